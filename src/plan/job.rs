//! The life of a request: accepted, planned on the async compute pool, answered,
//! joined to where the walker is when the answer lands.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::asset::LoadState;
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
use crate::walker::{Heading, WalkPath, WalkState, Walker};

/// When the answers of path tasks are applied.
///
/// ```
/// use bevy_walkmask::{AnswerTiming, WalkmaskPlugin};
/// // A replay or lockstep game: every answer lands exactly two frames after its request.
/// let plugin = WalkmaskPlugin { answer_timing: AnswerTiming::AfterFrames(2), ..Default::default() };
/// # let _ = plugin;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum AnswerTiming {
    /// In the first frame whose [`WalkmaskSystems::Poll`](crate::WalkmaskSystems::Poll)
    /// finds the task finished (never waiting for it). The default.
    #[default]
    WhenReady,
    /// Exactly this many frames after the task was started (0: in the same frame),
    /// waiting for the task in `Poll` if it has not finished by then. Deterministic
    /// frame by frame whatever the machine's speed (replays, lockstep, tests), at the
    /// price of the main thread waiting when a search takes longer than that.
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
        /// `Poll` runs seen since the task started.
        polls: u32,
        basis: PlanBasis,
        /// Counts the task in [`Planner::planning`] while it exists.
        _in_flight: InFlight,
    },
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
            state: JobState::Waiting,
        }
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
}

/// How far ahead (in seconds of walking) a walker that is walking is planned from with
/// [`AnswerTiming::WhenReady`], at the first attempt (about three frames at 60 frames
/// a second, more than most answers take); doubled at each further attempt. With
/// [`AnswerTiming::AfterFrames`] the lead is exactly the frames until the answer.
const PLAN_AHEAD_SECONDS: f32 = 0.05;

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

/// Answers a dropped job's request with [`PathCancelled`]. A re-plan job is not a
/// request: it has nothing to answer.
fn answer_cancelled(world: &mut World, walker: Entity, job: PathJob) {
    if job.kind == JobKind::Request {
        emit(
            world,
            Outcome::Cancelled(PathCancelled {
                entity: walker,
                request: job.request,
                target: job.target,
            }),
        );
    }
}

/// Makes `request` the walker's current request, to be traced from a field from its
/// destination shared with every walker sent there (see [`WalkChase`](crate::WalkChase)).
pub(crate) fn accept_shared_request(world: &mut World, request: WalkRequest) {
    let (walker, id) = (request.walker, request.id);
    accept_request(world, request);
    if let Some(mut job) = world.get_mut::<PathJob>(walker)
        && job.request == id
    {
        job.share = true;
    }
}

/// Makes `request` the walker's current request (see [`WalkRequest`]).
pub(crate) fn accept_request(world: &mut World, request: WalkRequest) {
    let WalkRequest {
        walker,
        target,
        id,
        face,
        route,
    } = request;
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        debug!("{id} for {walker}, which does not exist: no answer");
        return;
    };
    if !entity.contains::<Walker>() {
        warn!("{id} for {walker}, which has no Walker component");
        answer_unreachable(world, walker, id, target);
        return;
    }
    let previous = entity.take::<PathJob>();
    let walking = entity.contains::<WalkPath>();
    let finite = match &route {
        Route::Pathfind => target.is_finite(),
        Route::Anywhere { via } => target.is_finite() && via.iter().all(|p| p.is_finite()),
    };
    if finite && route == Route::Pathfind {
        entity.insert(PathJob::new(id, target, JobKind::Request).with_face(face));
        if !walking {
            entity.insert(WalkState::Planning);
        }
    }
    // Dropping the old job's task cancels it.
    if let Some(old) = previous {
        answer_cancelled(world, walker, old);
    }
    if !finite {
        warn!("{id} for {walker} to {target} ({route:?}): a point is not finite");
        end_walk(world, walker, StopReason::Superseded);
        if let Ok(mut entity) = world.get_entity_mut(walker) {
            entity.insert((WalkState::Unreachable, Heading(Vec2::ZERO)));
        }
        answer_unreachable(world, walker, id, target);
        return;
    }
    if let Route::Anywhere { via } = route {
        walk_anywhere(world, walker, id, target, face, via);
    }
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
    entity.remove::<PlannedOn>();
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
    entity.remove::<PlannedOn>();
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
    path: &PlannedPath,
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
            waypoints.extend_from_slice(rest);
            waypoints.dedup();
            return Joined::Walk {
                waypoints,
                teleport: None,
            };
        }
    }
    let next = path.mask_points.get(1).or(path.mask_points.first());
    match next {
        Some(&next)
            if line_of_sight(&path.grid, here, next) && clear_of_obstacles(path, here, next) =>
        {
            let rest = if path.mask_points.len() > 1 {
                rest
            } else {
                &path.waypoints[..]
            };
            Joined::Walk {
                waypoints: std::iter::once(position)
                    .chain(rest.iter().copied())
                    .collect(),
                teleport: None,
            }
        }
        _ => Joined::Retry,
    }
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

/// Applies a job's answer, unless the job was replaced or the walker is gone.
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
    let position = entity_world_xy(world, walker).unwrap_or(Vec2::NAN);
    let planned = match output {
        PlanOutput::Path(path) => {
            let start = job.start.expect("a job with an answer was started");
            match join(world, walker, position, &start, &path) {
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
                Joined::Retry if job.attempts + 1 < MAX_ATTEMPTS => {
                    job.attempts += 1;
                    job.state = JobState::Waiting;
                    if let Ok(mut entity) = world.get_entity_mut(walker) {
                        entity.insert(job);
                    }
                    return;
                }
                Joined::Retry => {
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
);

/// Starts path tasks for jobs whose room and mask are ready.
#[allow(clippy::too_many_arguments)]
pub(crate) fn start_jobs(
    mut commands: Commands,
    mut walkers: Query<JobWalker>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
    planner: Res<Planner>,
    time: Res<Time>,
    timing: Res<AnswerTimingSetting>,
    layout: Res<ObstacleLayout>,
) {
    let ahead = match timing.0 {
        AnswerTiming::WhenReady => PLAN_AHEAD_SECONDS,
        AnswerTiming::AfterFrames(frames) => frames as f32 * time.delta_secs(),
    };
    let mut starting: Vec<(Entity, PlanQuery, PlanBasis)> = Vec::new();
    for (entity, walker, transform, child_of, path, mut job) in &mut walkers {
        if !matches!(job.state, JobState::Waiting) {
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let (basis, mask) = match current_basis(walker, position, &rooms, &masks, server.as_deref())
        {
            Ok(found) => found,
            Err(NoBasis::Loading) => continue,
            Err(NoBasis::Failed(why)) => {
                warn!("walker {entity}: {} is unreachable: {why}", job.request);
                fail(&mut commands, entity, &mut job);
                continue;
            }
        };
        // A walker that is walking keeps walking while the answer is computed: plan
        // from a little further along its path, so that the new path starts where it
        // will be rather than where it was.
        let (from, on_path) = match path {
            Some(path) if walker.speed.is_finite() && walker.speed > 0.0 => {
                let lead = walker.speed * ahead * 2f32.powi(job.attempts as i32);
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
            fail(&mut commands, entity, &mut job);
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
        let Ok((.., mut job)) = walkers.get_mut(entity) else {
            continue;
        };
        query.share_destination = job.share
            || query
                .goal
                .pixel()
                .is_some_and(|pixel| sent_to[&(query.key, pixel)] >= CROWD);
        let in_flight = InFlight::new(&planner.planning);
        let worker = planner.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move { worker.plan(query) });
        job.state = JobState::Running {
            task,
            polls: 0,
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

/// This many walkers sent to one destination pixel in one frame share one field from
/// it. A field fills the whole region: on the room masks of BENCHMARKS.md it costs as
/// much as 10 to 40 searches (a 1080p room: 16.7 ms against a 0.45 ms median
/// search), on mazes about one; past this many walkers it pays on every mask measured.
pub(crate) const CROWD: usize = 16;

/// Answers `job` unreachable.
fn fail(commands: &mut Commands, entity: Entity, job: &mut PathJob) {
    job.state = JobState::Done;
    let serial = job.serial;
    commands.queue(move |world: &mut World| {
        complete_job(world, entity, serial, PlanOutput::Unreachable, None)
    });
}

/// Collects finished path tasks (see [`AnswerTiming`]).
pub(crate) fn poll_jobs(
    mut commands: Commands,
    mut jobs: Query<(Entity, &mut PathJob)>,
    timing: Res<AnswerTimingSetting>,
) {
    for (entity, mut job) in &mut jobs {
        let serial = job.serial;
        let JobState::Running {
            task, polls, basis, ..
        } = &mut job.state
        else {
            continue;
        };
        let basis = *basis;
        let output = match timing.0 {
            AnswerTiming::WhenReady => check_ready(task),
            AnswerTiming::AfterFrames(frames) if *polls >= frames => Some(block_on(task)),
            AnswerTiming::AfterFrames(_) => None,
        };
        *polls += 1;
        let Some(output) = output else {
            continue;
        };
        job.state = JobState::Done;
        commands.queue(move |world: &mut World| {
            complete_job(world, entity, serial, output, Some(basis))
        });
    }
}

/// The plugin's [`AnswerTiming`].
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct AnswerTimingSetting(pub(crate) AnswerTiming);
