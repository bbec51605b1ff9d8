//! The life of a request: accepted, planned on the async compute pool, answered,
//! joined to where the walker is when the answer lands.
//!
//! The states and transitions are drawn in the [`outcome`](crate::outcome) module's
//! documentation; this module is where they happen.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::asset::LoadState;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on};
use walkmask::los::line_of_sight;
use walkmask::{AreaSet, Point};

use super::grid_cache::GridKey;
use super::worker::{InFlight, PlanOutput, PlanQuery, PlannedPath, Planner};
use crate::asset::WalkMask;
use crate::facing::Face;
use crate::obstacle::{ObstacleLayout, ObstacleWatch, rasterise};
use crate::outcome::{
    Outcome, PathCancelled, PathReady, PathReplanned, PathUnreachable, StopReason, WalkStopped,
    emit,
};
use crate::placement::{Parents, entity_world_xy, set_entity_world_xy, walker_xy};
use crate::request::{RequestId, Route, WalkRequest};
use crate::room::{MaskMapping, RoomLookup, WalkRoom, room_of};
use crate::tuning::WalkTuning;
use crate::walker::{Heading, WalkPath, WalkState, Walker};

/// When the answers of path tasks are applied.
///
/// ```
/// use bevy_walkmask::{AnswerTiming, WalkmaskPlugin};
/// // A replay or lockstep game: every answer lands exactly two frames after its request.
/// let plugin = WalkmaskPlugin { answer_timing: AnswerTiming::AfterFrames(2), ..Default::default() };
/// # let _ = plugin;
/// ```
///
/// ## What `AfterFrames` promises
///
/// A frame here is one run of the plugin's schedule ([`WalkmaskPlugin::schedule`](crate::WalkmaskPlugin::schedule):
/// a frame in `Update`, a fixed step in `FixedUpdate`).
///
/// * A request read in frame `f` is answered (ready, unreachable or cancelled) in
///   frame `f + n`. A search restarted meanwhile (the room's areas or mask changed)
///   keeps that frame; so does an answer that could not be joined to where the walker
///   got to (game code moved it), whose search is run again at once from where the
///   walker stands. Two cases wait longer: a request that arrives while the walker's
///   previous search runs starts its own search in the frame that one lands (see
///   [`WalkTuning::rerequest_join_distance`]), and a request whose room's mask is still
///   loading starts when it has loaded.
/// * Answers do not depend on timing: queries wait for their grid's subgoal index
///   instead of filling while it is built, and do not trace warm fields. With the same
///   inputs at the same frames (requests, area toggles, moves, and the same time steps,
///   as `FixedUpdate` gives), two runs give the same answers, waypoints and positions
///   frame by frame, on any machine with the same float arithmetic.
/// * The price: `Poll` waits for a search that has not finished when it is due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum AnswerTiming {
    /// In the first frame whose [`WalkmaskSystems::Poll`](crate::WalkmaskSystems::Poll)
    /// finds the task finished (never waiting for it). The default.
    #[default]
    WhenReady,
    /// Exactly this many frames after the search started (0: in the same frame),
    /// waiting for it in `Poll` if it has not finished by then. Deterministic frame by
    /// frame whatever the machine's speed (replays, lockstep, tests); see above.
    AfterFrames(u32),
}

/// What a plan depends on: where the walker is (its room), which pixels (the mask's
/// revision), which areas it may use (only those in the mask), and where the mask lies.
/// A walk is re-planned exactly when this changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlanBasis {
    pub(crate) room: Entity,
    pub(crate) key: GridKey,
    pub(crate) mapping: MaskMapping,
}

/// The basis of a walk: attached to a walker with a [`WalkPath`].
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct PlannedOn(pub(crate) PlanBasis);

/// Why no basis can be had now.
pub(crate) enum NoBasis {
    /// The mask is still loading: wait.
    Loading,
    /// It will not work: the reason, for the log.
    Failed(String),
}

/// Read access to rooms and masks, for systems.
pub(crate) type Rooms<'w, 's> =
    Query<'w, 's, (Entity, &'static WalkRoom, &'static GlobalTransform)>;

/// The basis of a walker at `position` now.
pub(crate) fn current_basis<'m>(
    walker: &Walker,
    position: Vec2,
    rooms: &Rooms,
    masks: &'m Assets<WalkMask>,
    server: Option<&AssetServer>,
) -> Result<(PlanBasis, &'m WalkMask), NoBasis> {
    let room_entity = match room_of(walker.room, position, rooms.iter(), masks) {
        RoomLookup::Found(room) => room,
        RoomLookup::NotARoom(room) => {
            return Err(NoBasis::Failed(format!("its room {room} has no WalkRoom")));
        }
        RoomLookup::NoRoom => {
            // Rooms still loading may turn out to lie under the walker.
            let loading = rooms.iter().any(|(_, room, _)| {
                server.is_some_and(|s| matches!(s.load_state(&room.mask), LoadState::Loading))
            });
            return Err(if loading {
                NoBasis::Loading
            } else {
                NoBasis::Failed(format!(
                    "it names no room and stands over no room's mask (at {position})"
                ))
            });
        }
    };
    let (_, room, room_transform) = rooms.get(room_entity).expect("found above");
    let Some(mask) = masks.get(&room.mask) else {
        let state = server.map_or(LoadState::NotLoaded, |s| s.load_state(&room.mask));
        return Err(match state {
            LoadState::Loading => NoBasis::Loading,
            LoadState::Failed(error) => {
                NoBasis::Failed(format!("the room's walk mask failed to load: {error}"))
            }
            LoadState::NotLoaded | LoadState::Loaded => {
                NoBasis::Failed("the room's walk mask is missing".into())
            }
        });
    };
    let mapping = room.mapping(room_transform, mask.size());
    if !mapping.is_valid() {
        return Err(NoBasis::Failed(format!(
            "the room's placement cannot be used (scale {}, transform {:?})",
            room.scale,
            room_transform.affine()
        )));
    }
    let areas = walker_areas(walker, room);
    let Some(clearance) = clearance_pixels(walker.radius, &mapping) else {
        return Err(NoBasis::Failed(format!(
            "its radius {} is not a finite number of world units at least 0",
            walker.radius
        )));
    };
    Ok((
        PlanBasis {
            room: room_entity,
            key: GridKey::new(room.mask.id(), mask, areas, clearance),
            mapping,
        },
        mask,
    ))
}

/// A walker's radius in mask pixels (measured along the mask's finer axis, so that
/// it keeps at least `radius` world units both ways); `None` when it cannot be used.
pub(crate) fn clearance_pixels(radius: f32, mapping: &MaskMapping) -> Option<f32> {
    if !(radius.is_finite() && radius >= 0.0) {
        return None;
    }
    // The mapping was checked valid: the pixel size is finite and not zero.
    Some(radius / mapping.pixel_size().min_element())
}

/// The areas a walker may use in a room.
pub(crate) fn walker_areas(walker: &Walker, room: &WalkRoom) -> AreaSet {
    let room_areas = room.areas.to_area_set();
    match walker.areas {
        Some(limit) => room_areas.intersection(&limit.to_area_set()),
        None => room_areas,
    }
}

/// Whether a job answers a request or re-plans a walk already answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    Request,
    Replan,
}

pub(crate) enum JobState {
    /// Waits for the room or the mask, or to be (re)started.
    Waiting,
    Running {
        task: Task<PlanOutput>,
        basis: PlanBasis,
        /// Counts the task in [`Planner::planning`] while it exists.
        _in_flight: InFlight,
    },
    /// It cannot be planned (no room, no mask, a target off the mask): answered
    /// unreachable when due.
    Failed,
    /// The answer is on its way (a command applies it).
    Done,
}

/// Where a plan starts.
#[derive(Clone, Copy, Debug)]
struct PlanStart {
    /// World position.
    world: Vec2,
    /// Mask position (as given to the query).
    mask: Point,
    /// When the walker was walking: the request of that walk and the index of the
    /// waypoint after `world` on its path.
    on_path: Option<(RequestId, usize)>,
    /// The [`ObstacleLayout`] generation the plan saw.
    obstacle_generation: u64,
}

/// A request that waits for the walker's running search (see
/// [`WalkTuning::rerequest_join_distance`](crate::WalkTuning::rerequest_join_distance)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingRequest {
    request: RequestId,
    target: Vec2,
    face: Option<Face>,
    share: bool,
}

/// A walk request being answered (or a walk being re-planned), stored on the walker.
#[derive(Component)]
pub(crate) struct PathJob {
    /// Unique per job, so late answers of replaced jobs are ignored.
    serial: u64,
    pub(crate) request: RequestId,
    pub(crate) target: Vec2,
    pub(crate) kind: JobKind,
    /// What to face on arrival.
    pub(crate) face: Option<Face>,
    /// Share one field from the destination with every other walker sent there,
    /// however few (chasers).
    pub(crate) share: bool,
    start: Option<PlanStart>,
    /// Times the answer could not be joined to where the walker had got to.
    attempts: u32,
    /// The newest request that arrived while this job's search ran.
    pending: Option<PendingRequest>,
    /// Under [`AnswerTiming::AfterFrames`], the [`PlanClock`] frame its answer is due
    /// in, set when its search first starts: a search restarted on a new basis, or
    /// planned again because its answer could not be joined, keeps it.
    due: Option<u64>,
    pub(crate) state: JobState,
}

impl PathJob {
    pub(crate) fn new(request: RequestId, target: Vec2, kind: JobKind) -> Self {
        static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);
        Self {
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            request,
            target,
            kind,
            face: None,
            share: false,
            start: None,
            attempts: 0,
            pending: None,
            due: None,
            state: JobState::Waiting,
        }
    }

    /// The job of the request waiting for this one, if any.
    pub(crate) fn pending_job(&self) -> Option<PathJob> {
        self.pending.map(|p| {
            PathJob::new(p.request, p.target, JobKind::Request)
                .with_face(p.face)
                .with_share(p.share)
        })
    }

    /// Whether its search was started (and its answer has not been applied yet).
    fn started(&self) -> bool {
        matches!(
            self.state,
            JobState::Running { .. } | JobState::Failed | JobState::Done
        )
    }

    /// Faces `face` on arrival.
    pub(crate) fn with_face(mut self, face: Option<Face>) -> Self {
        self.face = face;
        self
    }

    /// Traces a field from the destination shared with every walker sent there
    /// (chasers re-planned together).
    pub(crate) fn with_share(mut self, share: bool) -> Self {
        self.share = share;
        self
    }

    /// The basis of the running task, if one runs.
    pub(crate) fn running_basis(&self) -> Option<&PlanBasis> {
        match &self.state {
            JobState::Running { basis, .. } => Some(basis),
            _ => None,
        }
    }

    /// Drops the running task (if any) to start again from the walker's position.
    pub(crate) fn restart(&mut self) {
        self.state = JobState::Waiting;
    }

    /// Starts again from where game code put the walker.
    pub(crate) fn restart_from_here(&mut self) {
        self.state = JobState::Waiting;
        self.attempts = 0;
    }

    /// Frames left before the answer is due (`None`: when ready).
    fn frames_left(&self, clock: &PlanClock) -> Option<u64> {
        self.due.map(|due| due.saturating_sub(clock.frame))
    }
}

/// Marker: game code moved the walker off its walk, which it does not walk on until
/// a new path lands (or the walk ends). Removed with the walk.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct WalkOnHold;

/// Re-plans `walker`'s walk for request `request` (same destination and facing),
/// unless a job runs or its walk changed by the time the command runs (a newer
/// request's job is never replaced).
pub(crate) fn queue_replan(commands: &mut Commands, walker: Entity, path: &WalkPath, share: bool) {
    let (request, target, face) = (path.request, path.target, path.face);
    commands.queue(move |world: &mut World| {
        let Ok(mut entity) = world.get_entity_mut(walker) else {
            return;
        };
        if entity.contains::<PathJob>()
            || entity.get::<WalkPath>().map(|path| path.request) != Some(request)
        {
            return;
        }
        entity.insert(
            PathJob::new(request, target, JobKind::Replan)
                .with_face(face)
                .with_share(share),
        );
    });
}

/// After this many answers that could not be joined to where the walker had got to
/// (a walker moved by game code every frame), the request is answered unreachable.
const MAX_ATTEMPTS: u32 = 8;

/// Two mask points closer than this (pixels) are the same place.
const SAME_PLACE_PIXELS: f32 = 1e-3;

/// Answers request `request` of `walker` with [`PathUnreachable`].
fn answer_unreachable(world: &mut World, walker: Entity, request: RequestId, target: Vec2) {
    emit(
        world,
        Outcome::Unreachable(PathUnreachable {
            entity: walker,
            request,
            target,
        }),
    );
}

/// Answers `request` (to `target`) of `walker` with [`PathCancelled`].
fn cancel(world: &mut World, walker: Entity, request: RequestId, target: Vec2) {
    emit(
        world,
        Outcome::Cancelled(PathCancelled {
            entity: walker,
            request,
            target,
        }),
    );
}

/// Answers a dropped job's request, and the request waiting for it, with
/// [`PathCancelled`]. A re-plan job is not a request: it has nothing to answer.
fn answer_cancelled(world: &mut World, walker: Entity, job: PathJob) {
    if job.kind == JobKind::Request {
        cancel(world, walker, job.request, job.target);
    }
    if let Some(pending) = job.pending {
        cancel(world, walker, pending.request, pending.target);
    }
}

/// What a removed walker's open request and walk were, for their last outcomes.
pub(crate) struct OpenWork {
    requests: Vec<(RequestId, Vec2)>,
    walk: Option<RequestId>,
    position: Vec2,
}

impl OpenWork {
    /// The open requests and walk of a walker being removed.
    pub(crate) fn of(job: Option<&PathJob>, path: Option<&WalkPath>, position: Vec2) -> Self {
        let mut requests = Vec::new();
        if let Some(job) = job {
            if job.kind == JobKind::Request {
                requests.push((job.request, job.target));
            }
            if let Some(pending) = job.pending {
                requests.push((pending.request, pending.target));
            }
        }
        Self {
            requests,
            walk: path.map(|path| path.request),
            position,
        }
    }

    /// Whether there is nothing to answer.
    pub(crate) fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.walk.is_none()
    }

    /// Answers the open requests with [`PathCancelled`] and ends the open walk with
    /// [`WalkStopped`] ([`StopReason::Removed`]).
    pub(crate) fn close(self, world: &mut World, walker: Entity) {
        for (request, target) in self.requests {
            cancel(world, walker, request, target);
        }
        if let Some(request) = self.walk {
            emit(
                world,
                Outcome::Stopped(WalkStopped {
                    entity: walker,
                    request,
                    position: self.position,
                    reason: StopReason::Removed,
                }),
            );
        }
    }
}

/// The `on_remove` hook of [`Walker`]: answers its open request and ends its open
/// walk ([`OpenWork::close`]), and removes the plugin's state from an entity that
/// lives on without `Walker`. A walker that is despawned is closed as it was; one
/// that lives on is closed as it is when the command runs (commands queued before
/// may have changed it), unless it is a walker again by then.
pub(crate) fn walker_removed(world: DeferredWorld, context: HookContext) {
    let walker = context.entity;
    let position = entity_world_xy(&world, walker).unwrap_or(Vec2::NAN);
    let as_it_was = OpenWork::of(
        world.get::<PathJob>(walker),
        world.get::<WalkPath>(walker),
        position,
    );
    let mut world = world;
    world.commands().queue(move |world: &mut World| {
        let open = match world.get_entity_mut(walker) {
            Err(_) => as_it_was,
            Ok(entity) if entity.contains::<Walker>() => return,
            Ok(mut entity) => {
                let position = entity_world_xy(entity.world(), walker).unwrap_or(Vec2::NAN);
                let open =
                    OpenWork::of(entity.get::<PathJob>(), entity.get::<WalkPath>(), position);
                entity.remove::<(PathJob, WalkPath, PlannedOn, ObstacleWatch, WalkOnHold)>();
                crate::plan::warm_up::forget(&mut entity);
                open
            }
        };
        if !open.is_empty() {
            open.close(world, walker);
        }
    });
}

/// Starts the job of the request that waited for `job`, if any; a walker that is gone
/// (an observer despawned it) answers it [`PathCancelled`].
fn start_pending(world: &mut World, walker: Entity, job: &PathJob) {
    let Some(next) = job.pending_job() else {
        return;
    };
    match world.get_entity_mut(walker) {
        Ok(mut entity) if entity.contains::<Walker>() && !entity.contains::<PathJob>() => {
            if !entity.contains::<WalkPath>() {
                entity.insert((WalkState::Planning, Heading(Vec2::ZERO)));
            }
            entity.insert(next);
        }
        _ => cancel(world, walker, next.request, next.target),
    }
}

/// Makes `request` the walker's current request, to be traced from a field from its
/// destination shared with every walker sent there (see [`WalkChase`](crate::WalkChase)).
pub(crate) fn accept_shared_request(world: &mut World, request: WalkRequest) {
    accept(world, request, true);
}

/// Makes `request` the walker's current request (see [`WalkRequest`]).
pub(crate) fn accept_request(world: &mut World, request: WalkRequest) {
    accept(world, request, false);
}

/// Makes `request` the walker's current request; `share`: traced from a shared field.
///
/// A request that arrives while the walker's previous search runs waits for it (see
/// [`WalkTuning::rerequest_join_distance`](crate::WalkTuning::rerequest_join_distance)):
/// dropping a search every time a new request comes would starve a walker sent
/// somewhere new every frame.
fn accept(world: &mut World, request: WalkRequest, share: bool) {
    let WalkRequest {
        walker,
        target,
        id,
        face,
        route,
    } = request;
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        warn!("{id} for {walker}, which does not exist");
        answer_unreachable(world, walker, id, target);
        return;
    };
    if !entity.contains::<Walker>() {
        warn!("{id} for {walker}, which has no Walker component");
        answer_unreachable(world, walker, id, target);
        return;
    }
    let finite = match &route {
        Route::Pathfind => target.is_finite(),
        Route::Anywhere { via } => target.is_finite() && via.iter().all(|p| p.is_finite()),
    };
    if !finite {
        warn!("{id} for {walker} to {target} ({route:?}): a point is not finite");
        drop_request_and_walk(world, walker, StopReason::Superseded);
        if let Ok(mut entity) = world.get_entity_mut(walker) {
            entity.insert((WalkState::Unreachable, Heading(Vec2::ZERO)));
        }
        answer_unreachable(world, walker, id, target);
        return;
    }
    let via = match route {
        Route::Anywhere { via } => via,
        Route::Pathfind => {
            if let Some(mut job) = entity.get_mut::<PathJob>()
                && job.started()
            {
                let replaced = job.pending.replace(PendingRequest {
                    request: id,
                    target,
                    face,
                    share,
                });
                if let Some(old) = replaced {
                    cancel(world, walker, old.request, old.target);
                }
                return;
            }
            let previous = entity.take::<PathJob>();
            if !entity.contains::<WalkPath>() {
                entity.insert((WalkState::Planning, Heading(Vec2::ZERO)));
            }
            entity.insert(
                PathJob::new(id, target, JobKind::Request)
                    .with_face(face)
                    .with_share(share),
            );
            // Dropping the old job's task cancels it.
            if let Some(old) = previous {
                answer_cancelled(world, walker, old);
            }
            return;
        }
    };
    if let Some(old) = entity.take::<PathJob>() {
        answer_cancelled(world, walker, old);
    }
    walk_anywhere(world, walker, id, target, face, via);
}

/// Starts a walk through `via` to `target` that ignores the mask (all points finite).
fn walk_anywhere(
    world: &mut World,
    walker: Entity,
    request: RequestId,
    target: Vec2,
    face: Option<Face>,
    via: Vec<Vec2>,
) {
    end_walk(world, walker, StopReason::Superseded);
    let Some(position) = entity_world_xy(world, walker) else {
        if world.get_entity(walker).is_ok() {
            warn!("{request} for {walker}, which has no Transform");
        }
        answer_unreachable(world, walker, request, target);
        return;
    };
    let mut waypoints = vec![position];
    waypoints.extend(via);
    waypoints.push(target);
    waypoints.dedup();
    // An observer of `WalkStopped` may have despawned the walker.
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    entity.remove::<(PlannedOn, WalkOnHold)>();
    entity.insert((
        WalkPath {
            waypoints: waypoints.clone(),
            next: 0,
            target,
            request,
            face,
        },
        WalkState::Walking,
    ));
    emit(
        world,
        Outcome::Ready(PathReady {
            entity: walker,
            request,
            target,
            waypoints,
            snapped: false,
        }),
    );
}

/// Ends the walker's current walk, if any, with [`WalkStopped`] for `reason`.
fn end_walk(world: &mut World, walker: Entity, reason: StopReason) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let Some(path) = entity.take::<WalkPath>() else {
        return;
    };
    entity.remove::<(PlannedOn, WalkOnHold)>();
    let position = entity_world_xy(world, walker).unwrap_or(Vec2::NAN);
    emit(
        world,
        Outcome::Stopped(WalkStopped {
            entity: walker,
            request: path.request,
            position,
            reason,
        }),
    );
}

/// Stops the walker (see [`WalkCommandsExt::stop_walking`](crate::WalkCommandsExt::stop_walking)).
pub(crate) fn stop_walker(world: &mut World, walker: Entity) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if entity.contains::<Walker>() {
        entity.insert((WalkState::Idle, Heading(Vec2::ZERO)));
    }
    drop_request_and_walk(world, walker, StopReason::Stopped);
}

/// Steering takes over: a request in flight gets [`PathCancelled`], a walk in
/// progress ends with [`WalkStopped`] (reason [`StopReason::Superseded`]).
pub(crate) fn steer_over_walk(world: &mut World, walker: Entity) {
    drop_request_and_walk(world, walker, StopReason::Superseded);
}

/// Cancels the walker's request in flight, if any ([`PathCancelled`]), and ends its
/// walk, if any, with [`WalkStopped`] for `reason`.
fn drop_request_and_walk(world: &mut World, walker: Entity, reason: StopReason) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if let Some(job) = entity.take::<PathJob>() {
        answer_cancelled(world, walker, job);
    }
    end_walk(world, walker, reason);
}

/// How an answer joins where the walker is now.
enum Joined {
    /// Walk this (from the walker's position), after moving the walker to `teleport`.
    Walk {
        waypoints: Vec<Vec2>,
        teleport: Option<Vec2>,
    },
    /// The walker got past the planned start and cannot walk straight onto the new
    /// path: plan again from further ahead.
    Retry,
    /// The way along the old walk to the planned start is blocked now: the walker
    /// stands, and plans again from where it stands.
    RetryFromHere,
}

/// Joins `path`, planned from `start`, to where the walker is now.
///
/// * Still at the planned start: the path as it is (a start that was moved off a
///   blocked pixel steps there at once, as Adventure Game Studio does).
/// * Walking and not yet at the planned start: along the old path to it, then on.
/// * Elsewhere (the planned start was passed, or game code moved the walker): straight
///   to the path's second point if the mask allows it, else [`Joined::Retry`].
fn join(
    world: &World,
    walker: Entity,
    position: Vec2,
    start: &PlanStart,
    (path, basis): (&PlannedPath, Option<PlanBasis>),
) -> Joined {
    let here = path.mapping.world_to_mask(position);
    let rest = path.waypoints.get(1..).unwrap_or(&[]);
    if here.distance(start.mask) < SAME_PLACE_PIXELS {
        if path.start_moved {
            return Joined::Walk {
                waypoints: path.waypoints.clone(),
                teleport: path.waypoints.first().copied(),
            };
        }
        let waypoints = std::iter::once(position).chain(rest.iter().copied());
        return Joined::Walk {
            waypoints: waypoints.collect(),
            teleport: None,
        };
    }
    if path.start_moved {
        return Joined::Retry;
    }
    if let (Some((request, after)), Some(old)) = (start.on_path, world.get::<WalkPath>(walker))
        && old.request == request
        && after >= 1
        && after <= old.waypoints.len()
        && old.next <= after
    {
        let segment_start = old.waypoints[after - 1];
        let passed = old.next == after
            && position.distance(segment_start) > start.world.distance(segment_start);
        if !passed {
            let mut waypoints = vec![position];
            waypoints.extend_from_slice(&old.waypoints[old.next..after]);
            waypoints.push(start.world);
            // The old walk's corners were checked on the grid, placement and
            // obstacles of their own plan. The step onto them is always checked on
            // the new one's (game code may have moved the walker off the walk); when
            // the old walk was planned on another grid or placement (the room moved,
            // the mask changed), every step up to the new path's start is.
            let same_basis =
                basis.is_some() && world.get::<PlannedOn>(walker).map(|p| p.0) == basis;
            let checked = if same_basis { 1 } else { waypoints.len() };
            let open = waypoints.windows(2).take(checked).all(|step| {
                let (a, b) = (
                    path.mapping.world_to_mask(step[0]),
                    path.mapping.world_to_mask(step[1]),
                );
                a.x == b.x && a.y == b.y
                    || line_of_sight(&path.grid, a, b) && clear_of_obstacles(path, a, b)
            });
            if open {
                waypoints.extend_from_slice(rest);
                waypoints.dedup();
                return Joined::Walk {
                    waypoints,
                    teleport: None,
                };
            }
            return match straight_on(position, here, path) {
                Some(walk) => walk,
                None => Joined::RetryFromHere,
            };
        }
    }
    straight_on(position, here, path).unwrap_or(Joined::Retry)
}

/// The walk straight from `position` (`here` on the mask) to the second point of
/// `path` and on, if the mask and the obstacles allow it.
fn straight_on(position: Vec2, here: Point, path: &PlannedPath) -> Option<Joined> {
    let rest = path.waypoints.get(1..).unwrap_or(&[]);
    let next = path.mask_points.get(1).or(path.mask_points.first())?;
    if !(line_of_sight(&path.grid, here, *next) && clear_of_obstacles(path, here, *next)) {
        return None;
    }
    let rest = if path.mask_points.len() > 1 {
        rest
    } else {
        &path.waypoints[..]
    };
    Some(Joined::Walk {
        waypoints: std::iter::once(position)
            .chain(rest.iter().copied())
            .collect(),
        teleport: None,
    })
}

/// Whether the straight step from `here` to `next` (mask points) keeps out of the
/// obstacles the path was planned among (those covering `here` aside).
fn clear_of_obstacles(path: &PlannedPath, here: Point, next: Point) -> bool {
    if path.obstacles.is_empty() {
        return true;
    }
    let (obstacles, _) = rasterise(&path.obstacles, &path.mapping, path.grid.clearance());
    obstacles
        .first_on_path(&[here, next], here.pixel())
        .is_none()
}

/// Applies a job's answer, unless the job was replaced or the walker is gone; then
/// starts the request that waited for it, if any.
fn complete_job(
    world: &mut World,
    walker: Entity,
    serial: u64,
    output: PlanOutput,
    basis: Option<PlanBasis>,
) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if entity.get::<PathJob>().map(|job| job.serial) != Some(serial) {
        return;
    }
    let Some(mut job) = entity.take::<PathJob>() else {
        return;
    };
    // An answer whose destination is far from the waiting request's would send the
    // walker the wrong way for a moment: drop it and plan the waiting one.
    let join_distance = world
        .get_resource::<WalkTuning>()
        .map_or(0.0, |tuning| tuning.rerequest_join_distance);
    let serves = |pending: &PendingRequest| pending.target.distance(job.target) <= join_distance;
    if let Some(pending) = job.pending
        && !serves(&pending)
    {
        let next = PathJob {
            pending: None,
            ..PathJob::new(job.request, job.target, job.kind)
        };
        answer_cancelled(world, walker, next);
        start_pending(world, walker, &job);
        return;
    }
    apply_answer(world, walker, &mut job, output, basis);
    if world.get::<PathJob>(walker).map(|j| j.serial) != Some(job.serial) {
        start_pending(world, walker, &job);
    }
}

/// Applies the answer of `job` (taken from the walker), or puts the job back to plan
/// again from further ahead.
fn apply_answer(
    world: &mut World,
    walker: Entity,
    job: &mut PathJob,
    output: PlanOutput,
    basis: Option<PlanBasis>,
) {
    let position = entity_world_xy(world, walker).unwrap_or(Vec2::NAN);
    let planned = match output {
        PlanOutput::Path(path) => {
            let start = job.start.expect("a job with an answer was started");
            match join(world, walker, position, &start, (&path, basis)) {
                Joined::Walk {
                    waypoints,
                    teleport,
                } => {
                    let quiet_until = world
                        .get::<ObstacleWatch>(walker)
                        .map_or(0.0, |w| w.quiet_until);
                    let watch = ObstacleWatch {
                        seen: path.obstacles,
                        generation: start.obstacle_generation,
                        quiet_until,
                    };
                    Some((waypoints, teleport, path.snapped, watch))
                }
                retry @ (Joined::RetryFromHere | Joined::Retry)
                    if job.attempts + 1 < MAX_ATTEMPTS =>
                {
                    let mut again = PathJob::new(job.request, job.target, job.kind)
                        .with_face(job.face)
                        .with_share(job.share);
                    again.serial = job.serial;
                    again.attempts = job.attempts + 1;
                    again.due = job.due;
                    again.pending = job.pending.take();
                    if let Ok(mut entity) = world.get_entity_mut(walker) {
                        entity.insert(again);
                        if matches!(retry, Joined::RetryFromHere) && entity.contains::<WalkPath>() {
                            entity.insert(WalkOnHold);
                        }
                    }
                    return;
                }
                Joined::RetryFromHere | Joined::Retry => {
                    warn!(
                        "walker {walker}: {} could not be joined to where the walker got to after {MAX_ATTEMPTS} plans",
                        job.request
                    );
                    None
                }
            }
        }
        PlanOutput::Unreachable => None,
    };
    let old_request = world.get::<WalkPath>(walker).map(|path| path.request);
    if old_request.is_some_and(|old| old != job.request) {
        end_walk(world, walker, StopReason::Superseded);
    }
    // An observer of `WalkStopped` may have despawned the walker.
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    match planned {
        Some((waypoints, teleport, snapped, watch)) => {
            entity.insert((
                WalkPath {
                    waypoints: waypoints.clone(),
                    next: 0,
                    target: job.target,
                    request: job.request,
                    face: job.face,
                },
                WalkState::Walking,
                watch,
            ));
            entity.remove::<WalkOnHold>();
            match basis {
                Some(basis) => entity.insert(PlannedOn(basis)),
                None => entity.remove::<PlannedOn>(),
            };
            if let Some(teleport) = teleport {
                set_entity_world_xy(world, walker, teleport);
            }
            let (entity, request, target) = (walker, job.request, job.target);
            emit(
                world,
                match job.kind {
                    JobKind::Request => Outcome::Ready(PathReady {
                        entity,
                        request,
                        target,
                        waypoints,
                        snapped,
                    }),
                    JobKind::Replan => Outcome::Replanned(PathReplanned {
                        entity,
                        request,
                        target,
                        waypoints,
                        snapped,
                    }),
                },
            );
        }
        None => {
            entity.insert((WalkState::Unreachable, Heading(Vec2::ZERO)));
            match job.kind {
                JobKind::Request => answer_unreachable(world, walker, job.request, job.target),
                JobKind::Replan => end_walk(world, walker, StopReason::Blocked),
            }
        }
    }
}

/// Reads [`WalkRequest`] messages (all of them, every frame).
pub(crate) fn read_requests(mut commands: Commands, mut requests: MessageReader<WalkRequest>) {
    for request in requests.read() {
        let request = request.clone();
        commands.queue(move |world: &mut World| accept_request(world, request));
    }
}

/// A walker with a job, as `start_jobs` sees it.
type JobWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    &'static mut PathJob,
    Has<WalkOnHold>,
);

/// Starts path tasks for jobs whose room and mask are ready.
#[allow(clippy::too_many_arguments)]
pub(crate) fn start_jobs(
    mut walkers: Query<JobWalker>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
    planner: Res<Planner>,
    time: Res<Time>,
    (timing, clock): (Res<AnswerTimingSetting>, Res<PlanClock>),
    layout: Res<ObstacleLayout>,
    tuning: Res<WalkTuning>,
) {
    let mut starting: Vec<(Entity, PlanQuery, PlanBasis)> = Vec::new();
    for (entity, walker, transform, child_of, path, mut job, held) in &mut walkers {
        if !matches!(job.state, JobState::Waiting) {
            continue;
        }
        if job.due.is_none()
            && let AnswerTiming::AfterFrames(frames) = timing.0
        {
            job.due = Some(clock.frame + u64::from(frames));
        }
        let position = walker_xy(transform, child_of, &parents);
        let (basis, mask) = match current_basis(walker, position, &rooms, &masks, server.as_deref())
        {
            Ok(found) => found,
            Err(NoBasis::Loading) => continue,
            Err(NoBasis::Failed(why)) => {
                warn!("walker {entity}: {} is unreachable: {why}", job.request);
                job.state = JobState::Failed;
                continue;
            }
        };
        // A walker that is walking keeps walking while the answer is computed: plan
        // from a little further along its path, so that the new path starts where it
        // will be rather than where it was.
        let (from, on_path) = match path {
            Some(path) if !held && walker.speed.is_finite() && walker.speed > 0.0 => {
                // Under `AfterFrames` the walker moves exactly that many frames
                // before the answer lands (none for a search restarted when its
                // answer is due); when ready, about `plan_ahead_seconds`, doubled
                // for each answer that landed behind the walker.
                let lead = match job.frames_left(&clock) {
                    Some(frames) => walker.speed * frames as f32 * time.delta_secs(),
                    None => {
                        walker.speed * tuning.plan_ahead_seconds * 2f32.powi(job.attempts as i32)
                    }
                };
                let (point, after) = path.point_ahead(position, lead);
                (point, Some((path.request, after)))
            }
            _ => (position, None),
        };
        let mapping = basis.mapping;
        let from_mask = mapping.world_to_mask(from);
        let start = mapping.clamp_to_mask(from_mask);
        let goal = mapping.clamped_mask_point(job.target);
        let (Some((start, _)), Some((goal, clamped))) = (start, goal) else {
            warn!(
                "walker {entity}: {} cannot be placed on the mask (walker at {position}, target {})",
                job.request, job.target
            );
            job.state = JobState::Failed;
            continue;
        };
        job.start = Some(PlanStart {
            world: from,
            mask: from_mask,
            on_path,
            obstacle_generation: layout.generation,
        });
        let query = walk_query(
            (entity, walker),
            &basis,
            mask,
            (start, goal, clamped),
            &layout,
        );
        starting.push((entity, query, basis));
    }
    // Walkers sent to one destination pixel together share one field from it.
    let mut sent_to: HashMap<(GridKey, (u32, u32)), usize> = HashMap::new();
    for (_, query, _) in &starting {
        if let Some(pixel) = query.goal.pixel() {
            *sent_to.entry((query.key, pixel)).or_default() += 1;
        }
    }
    for (entity, mut query, basis) in starting {
        let Ok((.., mut job, _)) = walkers.get_mut(entity) else {
            continue;
        };
        query.share_destination = job.share
            || query.goal.pixel().is_some_and(|pixel| {
                tuning
                    .crowd_share
                    .is_some_and(|crowd| sent_to[&(query.key, pixel)] >= crowd)
            });
        let in_flight = InFlight::new(&planner.planning);
        let worker = planner.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move { worker.plan(query) });
        job.state = JobState::Running {
            task,
            basis,
            _in_flight: in_flight,
        };
    }
}

/// The query for a walk of `walker` on `basis` from `start` to `goal` (`clamped`: the
/// goal was moved onto the mask's edge), among the solid obstacles but its own.
pub(crate) fn walk_query(
    (walker, settings): (Entity, &Walker),
    basis: &PlanBasis,
    mask: &WalkMask,
    (start, goal, clamped): (Point, Point, bool),
    layout: &ObstacleLayout,
) -> PlanQuery {
    PlanQuery {
        key: basis.key,
        mask: mask.core().clone(),
        start,
        goal,
        clamped,
        mapping: basis.mapping,
        obstacles: layout.in_mask(walker, &basis.mapping),
        share_destination: false,
        grid_steps: settings.grid_steps,
    }
}

/// Collects finished path tasks (see [`AnswerTiming`]).
pub(crate) fn poll_jobs(
    mut commands: Commands,
    mut jobs: Query<(Entity, &mut PathJob), With<Walker>>,
    clock: Res<PlanClock>,
) {
    for (entity, mut job) in &mut jobs {
        let job = &mut *job;
        let serial = job.serial;
        let due = job.frames_left(&clock).is_none_or(|left| left == 0);
        let (output, basis) = match &mut job.state {
            JobState::Running { task, basis, .. } => {
                let output = match job.due {
                    Some(_) if due => Some(block_on(task)),
                    Some(_) => None,
                    None => check_ready(task),
                };
                (output, Some(*basis))
            }
            JobState::Failed if due => (Some(PlanOutput::Unreachable), None),
            JobState::Failed | JobState::Waiting | JobState::Done => continue,
        };
        let Some(output) = output else {
            continue;
        };
        job.state = JobState::Done;
        commands.queue(move |world: &mut World| complete_job(world, entity, serial, output, basis));
    }
}

/// Counts the runs of the plugin's schedule (frames, or fixed steps in
/// `FixedUpdate`), for [`AnswerTiming::AfterFrames`].
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct PlanClock {
    frame: u64,
}

/// Starts a new frame of the [`PlanClock`].
pub(crate) fn count_frame(mut clock: ResMut<PlanClock>) {
    clock.frame += 1;
}

/// The plugin's [`AnswerTiming`].
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct AnswerTimingSetting(pub(crate) AnswerTiming);
