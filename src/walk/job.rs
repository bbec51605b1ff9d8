//! A walker's request in flight ([`PathJob`]) and the state a walk carries
//! ([`PlannedOn`], [`WalkOnHold`]).

use std::sync::atomic::{AtomicU64, Ordering};

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use bevy::tasks::Task;
use walkmask::Point;

use super::timing::PlanClock;
use crate::asset::WalkMask;
use crate::facing::FaceTarget;
use crate::plan::basis::PlanBasis;
use crate::plan::grid_cache::GridKey;
use crate::plan::worker::{InFlight, PlanOutput};
use crate::request::RequestId;
use crate::room::{MaskMapping, WalkAreas};
use crate::walker::WalkPath;

/// The basis of a walk: attached to a walker with a [`WalkPath`]. Its hooks keep
/// [`SavedPlanBasis`], what a save holds of it, in step.
#[derive(Component, Clone, Copy, Debug)]
#[component(on_insert = note_planned_on, on_remove = forget_planned_on)]
pub(crate) struct PlannedOn(pub(crate) PlanBasis);

/// What a save holds of a walk's [`PlannedOn`]: the room, where it lay and the areas
/// open when the walk was planned (the mask and grid it names live in this process
/// only). A walk loaded back is planned on these, so that a room moved or a gate
/// opened between the load and the first frame re-plans it as it would have the
/// game saved. Written by `PlannedOn`'s hooks only.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub(crate) struct SavedPlanBasis {
    /// The room the walk was planned in (`None`: no walk with a basis).
    #[entities]
    pub(crate) room: Option<Entity>,
    /// Where the room's mask lay.
    pub(crate) mapping: Option<MaskMapping>,
    /// The areas open to the walker (of those in the mask).
    pub(crate) areas: WalkAreas,
    /// The [hash of the mask's pixels](crate::WalkMask::pixels_hash).
    pub(crate) mask_pixels: Option<u64>,
}

impl SavedPlanBasis {
    /// `now` (the basis of the world as loaded) with the placement and areas the
    /// walk was planned on, when it was planned in the same room.
    pub(crate) fn planned_basis(&self, now: PlanBasis) -> PlanBasis {
        match (self.room, self.mapping) {
            (Some(room), Some(mapping)) if room == now.room => PlanBasis {
                mapping,
                key: GridKey {
                    areas: self.areas.into(),
                    ..now.key
                },
                ..now
            },
            _ => now,
        }
    }

    /// Whether the walk was planned on just what `now` and `mask` (the world as
    /// loaded) are: the same room, placement, areas and pixels. Its way on is then as
    /// clear as it was in the game saved.
    pub(crate) fn is(&self, now: &PlanBasis, mask: &WalkMask) -> bool {
        self.room == Some(now.room)
            && self.mapping == Some(now.mapping)
            && self.areas == WalkAreas::from(now.key.areas)
            && self.mask_pixels == Some(mask.pixels_hash())
    }
}

fn note_planned_on(mut world: DeferredWorld, context: HookContext) {
    let Some(PlannedOn(basis)) = world.get::<PlannedOn>(context.entity).copied() else {
        return;
    };
    let mask_pixels = world
        .get_resource::<Assets<WalkMask>>()
        .and_then(|masks| masks.get(basis.key.mask))
        .map(WalkMask::pixels_hash);
    if let Some(mut saved) = world.get_mut::<SavedPlanBasis>(context.entity) {
        *saved = SavedPlanBasis {
            room: Some(basis.room),
            mapping: Some(basis.mapping),
            areas: basis.key.areas.into(),
            mask_pixels,
        };
    }
}

fn forget_planned_on(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut saved) = world.get_mut::<SavedPlanBasis>(context.entity) {
        *saved = SavedPlanBasis::default();
    }
}

/// A walk through given points that ignores the mask ([`WalkRoute::Anywhere`](crate::WalkRoute::Anywhere)):
/// the request of that walk, on a walker whose [`WalkPath`] it still is. Such a walk
/// is never planned, slid, turned aside by avoidance or held for tiles.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub(crate) struct GivenRoute(pub(crate) RequestId);

/// Whether `path` is a walk through given points ([`GivenRoute`]).
pub(crate) fn on_given_route(path: Option<&WalkPath>, route: Option<&GivenRoute>) -> bool {
    matches!((path, route), (Some(path), Some(route)) if path.request == route.0)
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
pub(super) struct PlanStart {
    /// World position.
    pub(super) world: Vec2,
    /// Mask position (as given to the query).
    pub(super) mask: Point,
    /// When the walker was walking: the request of that walk and the index of the
    /// waypoint after `world` on its path.
    pub(super) on_path: Option<(RequestId, usize)>,
    /// The [`ObstacleLayout`] generation the plan saw.
    pub(super) obstacle_generation: u64,
}

/// A request that waits for the walker's running search (see
/// [`WalkTuning::rerequest_join_distance`](crate::WalkTuning::rerequest_join_distance)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingRequest {
    pub(super) request: RequestId,
    pub(super) target: Vec2,
    pub(super) face: Option<FaceTarget>,
    pub(super) share: bool,
}

/// A walk request being answered (or a walk being re-planned), stored on the walker.
/// Its hooks keep [`RequestInFlight`](super::saved::RequestInFlight).
#[derive(Component)]
#[component(on_insert = super::saved::job_inserted, on_discard = super::saved::job_discarded)]
pub(crate) struct PathJob {
    /// Unique per job, so late answers of replaced jobs are ignored.
    pub(super) serial: u64,
    pub(crate) request: RequestId,
    pub(crate) target: Vec2,
    pub(crate) kind: JobKind,
    /// What to face on arrival.
    pub(crate) face: Option<FaceTarget>,
    /// Share one field from the destination with every other walker sent there,
    /// however few (chasers).
    pub(crate) share: bool,
    pub(super) start: Option<PlanStart>,
    /// Times the answer could not be joined to where the walker had got to.
    pub(super) attempts: u32,
    /// The newest request that arrived while this job's search ran.
    pub(super) pending: Option<PendingRequest>,
    /// Under [`AnswerTiming::AfterFrames`], the [`PlanClock`] frame its answer is due
    /// in, set when its search first starts: a search restarted on a new basis, or
    /// planned again because its answer could not be joined, keeps it.
    pub(super) due: Option<u64>,
    /// A job taken up from a save whose search had started: it counts as started (a
    /// request sent meanwhile waits for it) until its search runs again.
    pub(super) resumed: bool,
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
            resumed: false,
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
    pub(super) fn started(&self) -> bool {
        self.resumed
            || matches!(
                self.state,
                JobState::Running { .. } | JobState::Failed | JobState::Done
            )
    }

    /// Faces `face` on arrival.
    pub(crate) fn with_face(mut self, face: Option<FaceTarget>) -> Self {
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
    pub(super) fn frames_left(&self, clock: &PlanClock) -> Option<u64> {
        self.due.map(|due| due.saturating_sub(clock.frame))
    }
}

/// Marker: game code moved the walker off its walk, which it does not walk on until
/// a new path lands (or the walk ends). Removed with the walk. Saved: a walk loaded
/// on hold stands until its re-plan lands, as in the game saved.
#[derive(Component, Reflect, Default, Clone, Copy, Debug)]
#[reflect(Component, Default, Clone, Debug)]
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
pub(super) const MAX_ATTEMPTS: u32 = 8;

/// Two mask points closer than this (pixels) are the same place.
pub(super) const SAME_PLACE_PIXELS: f32 = 1e-3;
