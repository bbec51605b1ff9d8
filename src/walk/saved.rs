//! Walks saved in mid-walk and loaded back: what a save holds of a walker's request
//! and walk, and how the lifecycle takes them up again after a load.
//!
//! A save made through reflection (a `DynamicWorld` of the walkers) holds a walk in
//! progress as its [`WalkPath`] (with [`GivenRoute`] for a walk through given
//! points), and a request still being planned as [`RequestInFlight`]. The rest of
//! the lifecycle's state (the search task, the grid the walk was planned on) means
//! nothing in another process, so it is not saved; of the basis a walk was planned
//! on, the room, its placement and the areas open are ([`SavedPlanBasis`]). When
//! those components are inserted without the rest, as a loaded scene inserts them,
//! the walker takes up its walk or request again from where it stands, against the
//! world as loaded:
//!
//! * a walk on a found path whose way on crosses no pixel the loaded world forbids
//!   walks on as saved, on the placement and areas it was planned on: a room moved or
//!   a gate opened since re-plans it as it would have the game saved;
//! * any other walk on a found path stands ([`WalkOnHold`]) until it is planned
//!   again from here, answered [`PathReplanned`](crate::PathReplanned): a gate shut
//!   in the loaded world is walked round, or the walk ends where any walk would end
//!   against it;
//! * a walk through given points walks on;
//! * a request in flight is read again with its own id: it gets its one answer (a
//!   search that had started runs again on the inputs it was saved with, answered
//!   when it was due).

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use super::accept::accept_request;
use super::end::cancel;
use super::job::{
    GivenRoute, JobKind, PathJob, PendingRequest, PlannedOn, SavedPlanBasis, WalkOnHold,
    on_given_route,
};
use super::obstacle_watch::SeenObstacle;
use super::replan::crosses_blocked;
use super::timing::PlanClock;
use crate::asset::WalkMask;
use crate::facing::FaceTarget;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{PlanBasis, Rooms, current_basis};
use crate::request::{RequestId, WalkRequest, WalkRoute, keep_ids_after_inserted};
use crate::room::{MaskMapping, WalkAreas};
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

/// The walk request a walker's path is being planned for, kept by the plugin on
/// every [`Walker`] (`None` while nothing is being planned for it), so that a save
/// made through reflection holds it.
///
/// Loaded back onto a walker, a request in flight is read again with its own id and
/// gets its one answer: a search that had started runs again from where it started,
/// among the obstacles it routed round then, and is answered when it was due; one
/// that had not is planned from where the walker stands (see the
/// [guide's scripting chapter](crate::guide::scripting)). Game code reads it and
/// leaves it alone.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::RequestInFlight;
///
/// fn planning(walkers: Query<(Entity, &RequestInFlight)>) {
///     for (walker, in_flight) in &walkers {
///         if let Some(request) = in_flight.get() {
///             info!("{walker}: {} to {} being planned", request.id, request.target);
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(planning);
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
#[component(on_insert = request_in_flight_inserted)]
pub struct RequestInFlight {
    planned: Option<PlannedRequest>,
    superseded: Option<PlannedRequest>,
    /// Whether the search under way (the superseded request's, else the planned
    /// one's) had started: a request sent meanwhile waits for it.
    started: bool,
    /// Under [`AnswerTiming::AfterFrames`](crate::AnswerTiming::AfterFrames), the
    /// frames after the next one before that search's answer is due.
    due_in: Option<u64>,
    /// Whether that search re-plans the walker's walk (answering no request).
    replanning: bool,
    /// Where that search started and the obstacles it routed round, once it has
    /// started: loaded back, it runs again on them.
    #[entities]
    search: Option<SearchInputs>,
}

/// What a search under way was started with, as [`RequestInFlight`] saves it: its
/// start (mask pixels, and world), where the mask lay then, the waypoint of the walk
/// it started on, and the solid obstacles it routed round (mask pixels).
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub(crate) struct SearchInputs {
    pub(super) from: Vec2,
    /// `from` in the world the search was started in.
    pub(super) from_world: Vec2,
    /// Where the mask lay in the world then.
    pub(super) mapping: MaskMapping,
    /// The room it was planned in, and the areas it could use there.
    pub(super) room: Entity,
    pub(super) areas: WalkAreas,
    /// The [hash of the pixels](crate::WalkMask::pixels_hash) of the mask it ran on.
    pub(super) mask_pixels: u64,
    pub(super) on_walk: Option<(RequestId, usize)>,
    pub(super) obstacles: Vec<SeenObstacle>,
}

impl MapEntities for SearchInputs {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.room = mapper.get_mapped(self.room);
        self.obstacles.map_entities(mapper);
    }
}

impl SearchInputs {
    /// Whether a search started on these inputs would be started again on `now`,
    /// the walker's basis and its room's mask as they are (another room, other
    /// areas: a gate opened or shut since, or the mask painted anew); always when
    /// there is none (the mask not loaded, or failed).
    pub(super) fn basis_changed(&self, now: Option<(&PlanBasis, &WalkMask)>) -> bool {
        now.is_none_or(|(now, mask)| {
            (now.room, WalkAreas::from(now.key.areas), mask.pixels_hash())
                != (self.room, self.areas, self.mask_pixels)
        })
    }
}

impl RequestInFlight {
    /// The request being planned, if any.
    pub fn get(&self) -> Option<&PlannedRequest> {
        self.planned.as_ref()
    }

    /// The request whose search still runs while the one [`get`](Self::get) gives
    /// waits for it (a request sent while another was being planned). Loaded back,
    /// its search runs again, answered when it would have been, and the one waiting
    /// for it still waits.
    pub fn superseded(&self) -> Option<&PlannedRequest> {
        self.superseded.as_ref()
    }
}

/// A request being planned, as [`RequestInFlight`] holds it.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub struct PlannedRequest {
    /// The request's id (its answer carries it).
    pub id: RequestId,
    /// Where it asked to go, world coordinates.
    pub target: Vec2,
    /// What to face on arrival.
    pub face: Option<FaceTarget>,
}

/// The requests a job plans for the walker: the newest one waiting for it, else its
/// own when it answers a request (a re-plan answers none); and its own when another
/// waits for it; with how far its search got by the end of plan frame `frame`.
fn planned_by(job: Option<&PathJob>, frame: u64) -> RequestInFlight {
    let Some(job) = job else {
        return RequestInFlight::default();
    };
    let own = (job.kind == JobKind::Request).then_some(PlannedRequest {
        id: job.request,
        target: job.target,
        face: job.face,
    });
    let (planned, superseded) = match job.pending {
        Some(pending) => (
            Some(PlannedRequest {
                id: pending.request,
                target: pending.target,
                face: pending.face,
            }),
            own,
        ),
        None => (own, None),
    };
    RequestInFlight {
        planned,
        superseded,
        started: job.started(),
        due_in: job.due.map(|due| due.saturating_sub(frame + 1)),
        replanning: job.kind == JobKind::Replan,
        search: None,
    }
}

/// Brings `in_flight` up to date with `job` by the end of plan frame `frame`: what
/// it plans, and how far its search got. The inputs of a search under way are kept
/// (they are noted as it starts); any other's are dropped.
pub(super) fn note(in_flight: &mut Mut<RequestInFlight>, job: Option<&PathJob>, frame: u64) {
    let now = planned_by(job, frame);
    let noted = &**in_flight;
    let same = noted.planned == now.planned
        && noted.superseded == now.superseded
        && noted.started == now.started
        && noted.due_in == now.due_in
        && noted.replanning == now.replanning
        && (now.started || noted.search.is_none());
    if !same {
        let search = if now.started {
            in_flight.search.take()
        } else {
            None
        };
        **in_flight = RequestInFlight { search, ..now };
    }
}

/// Notes the inputs of the search a walker's job starts with.
pub(super) fn note_search_started(in_flight: &mut Mut<RequestInFlight>, inputs: SearchInputs) {
    in_flight.search = Some(inputs);
}

/// The inputs a search run again after a load starts with: those it was saved with,
/// if any.
pub(super) fn loaded_search(in_flight: &RequestInFlight) -> Option<&SearchInputs> {
    in_flight.search.as_ref()
}

/// The plan frame now (the last one run, or the one being run).
fn plan_frame(world: &World) -> u64 {
    world
        .get_resource::<PlanClock>()
        .map_or(0, |clock| clock.frame)
}

/// The plan frame whose requests are read now or next: the one a loaded request
/// taken up now is read in.
fn reading_frame(world: &World) -> u64 {
    world
        .get_resource::<PlanClock>()
        .map_or(1, PlanClock::reading_frame)
}

/// A job taken up from a save whose search had started: it counts as started (a
/// request sent meanwhile waits for it), runs again on the inputs it was saved with
/// and is answered `due_in` frames after plan frame `frame`, when it was due.
fn resumed_job(
    request: RequestId,
    target: Vec2,
    kind: JobKind,
    face: Option<FaceTarget>,
    due_in: Option<u64>,
    frame: u64,
) -> PathJob {
    let mut job = PathJob::new(request, target, kind).with_face(face);
    job.due = due_in.map(|frames| frame + frames);
    job.resumed = true;
    job
}

/// Brings every walker's [`RequestInFlight`] up to date with how far its search got
/// (after the frame's answers): what a save made after this frame holds.
pub(crate) fn note_searches(
    mut walkers: Query<(&PathJob, &mut RequestInFlight)>,
    clock: Res<PlanClock>,
) {
    for (job, mut in_flight) in &mut walkers {
        note(&mut in_flight, Some(job), clock.frame);
    }
}

/// The insert hook of [`PathJob`]: [`RequestInFlight`] is set in place (only a
/// load inserts one with a request, and runs its insert hook).
pub(crate) fn job_inserted(mut world: DeferredWorld, context: HookContext) {
    let frame = plan_frame(&world);
    let Ok(mut entity) = world.get_entity_mut(context.entity) else {
        return;
    };
    let Ok((job, mut in_flight)) = entity.get_components_mut::<(&PathJob, &mut RequestInFlight)>()
    else {
        return;
    };
    note(&mut in_flight, Some(job), frame);
}

/// The discard hook of [`PathJob`] (run before it is removed or replaced).
pub(crate) fn job_discarded(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut in_flight) = world.get_mut::<RequestInFlight>(context.entity) {
        in_flight.set_if_neq(RequestInFlight::default());
    }
}

/// Brings [`RequestInFlight`] up to date after a request was set waiting for the
/// walker's job (a change to the job in place, which runs no hook).
pub(super) fn note_waiting_request(entity: &mut EntityWorldMut) {
    let frame = plan_frame(entity.world());
    if let Ok((job, mut in_flight)) =
        entity.get_components_mut::<(&PathJob, &mut RequestInFlight)>()
    {
        note(&mut in_flight, Some(job), frame);
    }
}

/// The insert hook of [`RequestInFlight`]: ids handed out from here on come after
/// the ones a loaded request carries, and one inserted with a request on a walker
/// with no job for it (loaded from a save) is read again once the commands run (a
/// load between frames: before the next frame's requests and searches, where the
/// saved game had it).
fn request_in_flight_inserted(mut world: DeferredWorld, context: HookContext) {
    let walker = context.entity;
    let Some(loaded) = world.get::<RequestInFlight>(walker) else {
        return;
    };
    for request in [loaded.planned, loaded.superseded].into_iter().flatten() {
        request.id.keep_later_ids_after();
    }
    if let Some(loaded) = not_taken_up(loaded, world.get::<PathJob>(walker)) {
        world.commands().queue(move |world: &mut World| {
            let frame = reading_frame(world);
            take_up_request(world, walker, loaded, frame);
        });
    }
}

/// The request loaded in flight that `in_flight` holds and `job` does not plan (not
/// read again yet), if any.
pub(super) fn not_taken_up(
    in_flight: &RequestInFlight,
    job: Option<&PathJob>,
) -> Option<RequestInFlight> {
    (in_flight.planned.is_some() && planned_by(job, 0).planned != in_flight.planned)
        .then(|| in_flight.clone())
}

/// Takes up a request loaded in flight on `walker` that no job plans yet, if there is
/// one: called before the walker's next request is accepted, so that the loaded one
/// gets its answer (superseded by the new one, as any request in flight) rather than
/// being lost.
pub(super) fn take_up_loaded_request(world: &mut World, walker: Entity) {
    let Some(loaded) = world
        .get::<RequestInFlight>(walker)
        .and_then(|in_flight| not_taken_up(in_flight, world.get::<PathJob>(walker)))
    else {
        return;
    };
    let frame = reading_frame(world);
    take_up_request(world, walker, loaded, frame);
}

/// Reads a loaded request again, unless the walker was planned for it, or it was
/// taken up already (or the walker is gone, or no longer a walker) by the time the
/// commands run. A request whose search had started is planned again as it was: the
/// search under way (the superseded request's, if another waits for it) runs again,
/// answered in the frame it was due, and the request waiting for it still waits. One
/// whose search had not started is read again as new; the request it superseded is
/// answered [`PathCancelled`](crate::PathCancelled).
///
/// `frame`: the plan frame that reads it (a loaded answer's frames are counted from
/// it).
fn take_up_request(world: &mut World, walker: Entity, loaded: RequestInFlight, frame: u64) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let Some(planned) = loaded.planned else {
        return;
    };
    let now = planned_by(entity.get::<PathJob>(), frame);
    if !entity.contains::<Walker>()
        || entity.get::<RequestInFlight>() != Some(&loaded)
        || now.planned == Some(planned)
    {
        return;
    }
    // Taken up: until it is read again, the walker's job plans what it plans; a
    // search run again keeps the inputs it was saved with.
    let resumed = loaded.started && !entity.contains::<PathJob>();
    if let Some(mut in_flight) = entity.get_mut::<RequestInFlight>() {
        let search = resumed.then(|| loaded.search.clone()).flatten();
        *in_flight = RequestInFlight { search, ..now };
    }
    if resumed {
        debug!(
            "{walker}: {} loaded in flight, its search run again",
            planned.id
        );
        let walk = entity
            .get::<WalkPath>()
            .map(|walk| (walk.request, walk.target, walk.face));
        let resume = |request, target, kind, face| {
            resumed_job(request, target, kind, face, loaded.due_in, frame)
        };
        let (mut job, waiting) = match (loaded.superseded, walk) {
            (Some(superseded), _) => (
                resume(
                    superseded.id,
                    superseded.target,
                    JobKind::Request,
                    superseded.face,
                ),
                Some(planned),
            ),
            // The walk's re-plan, with the request waiting for it.
            (None, Some((request, target, face))) if loaded.replanning => (
                resume(request, target, JobKind::Replan, face),
                Some(planned),
            ),
            (None, _) => (
                resume(planned.id, planned.target, JobKind::Request, planned.face),
                None,
            ),
        };
        let running = planned_by(Some(&job), frame).planned;
        job.pending = waiting.map(|waiting| PendingRequest {
            request: waiting.id,
            target: waiting.target,
            face: waiting.face,
            share: false,
        });
        if !entity.contains::<WalkPath>() {
            entity.insert((WalkState::Planning, WalkHeading(Vec2::ZERO)));
        }
        entity.insert(job);
        for request in [running, waiting].into_iter().flatten() {
            super::stats::request_read(world, request.id);
        }
        return;
    }
    if let Some(superseded) = loaded.superseded {
        cancel(world, walker, superseded.id, superseded.target);
    }
    debug!("{walker}: {} loaded in flight, planned again", planned.id);
    accept_request(
        world,
        WalkRequest {
            walker,
            target: planned.target,
            id: planned.id,
            face: planned.face,
            route: WalkRoute::Pathfind,
        },
    );
}

/// A walk loaded onto a walker: without the basis it was planned on (the lifecycle
/// inserts a walk with its basis).
type LoadedWalk = (
    Entity,
    &'static Walker,
    &'static WalkPath,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static GivenRoute>,
    Option<&'static SavedPlanBasis>,
);

/// Takes up what a load wrote onto walkers (a `DynamicWorld` written into the world
/// inserts components in any order, or applies them in place over the defaults
/// [`Walker`] requires, which runs no insert hook):
///
/// * a request in flight that no job plans is read again with its own id (one
///   inserted is taken up by its insert hook already; one applied in place, here or
///   when the walker's next request comes, whichever is first);
/// * a walk whose way on, from where the walker stands, crosses no pixel the world
///   as loaded forbids it walks on as saved, planned on the placement and areas it
///   was planned on in the game saved ([`SavedPlanBasis`]): nothing is planned again
///   or reported, unless the room moved or its areas changed since, which re-plans
///   it as it would have the game saved;
/// * any other walk on a found path stands until it is planned again from here (or,
///   with a request loaded in flight beside it, until that request is answered); a
///   walk through given points walks on.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn take_up_loaded(
    mut commands: Commands,
    in_flight: Query<
        (Entity, &RequestInFlight, Option<&PathJob>),
        (With<Walker>, Changed<RequestInFlight>),
    >,
    walks: Query<LoadedWalk, (Added<WalkPath>, Without<PlannedOn>)>,
    in_flights: Query<&RequestInFlight>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
    clock: Option<Res<PlanClock>>,
) {
    // The frame that starts now (its requests are read after this, and its clock
    // moves on then).
    let frame = clock.map_or(1, |clock| clock.reading_frame());
    for (walker, loaded, job) in &in_flight {
        for request in [loaded.planned, loaded.superseded].into_iter().flatten() {
            request.id.keep_later_ids_after();
        }
        if let Some(loaded) = not_taken_up(loaded, job) {
            commands.queue(move |world: &mut World| take_up_request(world, walker, loaded, frame));
        }
    }
    for (walker, body, path, transform, child_of, given, saved) in &walks {
        let request = path.request;
        if !on_given_route(Some(path), given) {
            let position = walker_xy(transform, child_of, &parents);
            if let Ok((basis, mask)) =
                current_basis(body, position, &rooms, &masks, server.as_deref())
                && basis.mapping.is_valid()
                && (saved.is_some_and(|saved| saved.is(&basis, mask))
                    || !crosses_blocked(mask, &basis, position, path))
            {
                // A re-plan of the walk that was under way (with no request waiting
                // for it) runs again, answered when it was due.
                let replan = in_flights
                    .get(walker)
                    .ok()
                    .filter(|saved| saved.replanning && saved.started && saved.planned.is_none())
                    .map(|saved| saved.due_in);
                // Planned on the placement and areas it was planned on in the game
                // saved: what changed since re-plans it as it would have there.
                let basis = saved.map_or(basis, |saved| saved.planned_basis(basis));
                commands.queue(move |world: &mut World| {
                    walk_on_as_saved(world, walker, request, basis, replan, frame);
                });
                continue;
            }
        }
        commands.queue(move |world: &mut World| take_up_walk(world, walker, request, frame));
    }
}

/// Lets a loaded walk of `request` go on as saved, planned on `basis` (the world as
/// loaded), unless it was taken up otherwise by the time the commands run.
fn walk_on_as_saved(
    world: &mut World,
    walker: Entity,
    request: RequestId,
    basis: PlanBasis,
    replan: Option<Option<u64>>,
    frame: u64,
) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let Some(walk) = entity
        .get::<WalkPath>()
        .filter(|path| path.request == request)
        .map(|path| (path.target, path.face))
    else {
        return;
    };
    if entity.contains::<PlannedOn>() {
        return;
    }
    debug!("{walker}: the walk of {request} (loaded) goes on as saved");
    entity.insert(PlannedOn(basis));
    if let Some(due_in) = replan
        && !entity.contains::<PathJob>()
    {
        entity.insert(resumed_job(
            request,
            walk.0,
            JobKind::Replan,
            walk.1,
            due_in,
            frame,
        ));
    }
    // Saved on hold (game code moved it) with no search under way for it yet: its
    // re-plan starts now, so that it does not stand for ever.
    if entity.contains::<WalkOnHold>()
        && !entity.contains::<PathJob>()
        && entity
            .get::<RequestInFlight>()
            .is_none_or(|loaded| loaded.planned.is_none())
    {
        entity.insert(PathJob::new(request, walk.0, JobKind::Replan).with_face(walk.1));
    }
}

/// The insert hook of [`WalkPath`]: ids handed out from here on come after its
/// request's ([`take_up_loaded`] takes up a walk loaded without its basis).
pub(crate) fn walk_path_inserted(world: DeferredWorld, context: HookContext) {
    keep_ids_after_inserted::<WalkPath>(world, context);
}

/// Takes up a walk of `request` that has no basis: it stands until it is planned
/// again from where the walker stands (a walk through given points walks on).
fn take_up_walk(world: &mut World, walker: Entity, request: RequestId, frame: u64) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let Some(path) = entity.get::<WalkPath>() else {
        return;
    };
    if path.request != request
        || !entity.contains::<Walker>()
        || entity.contains::<PlannedOn>()
        || entity
            .get::<GivenRoute>()
            .is_some_and(|given| given.0 == request)
    {
        return;
    }
    let (target, face) = (path.target, path.face);
    debug!("{walker}: the walk of {request} has no basis (loaded), planned again");
    entity.insert(WalkOnHold);
    if entity.contains::<PathJob>() {
        return;
    }
    // A request loaded in flight beside the walk is planned instead (its answer takes
    // the walk's place): a re-plan's job would overwrite it with its own.
    match entity
        .get::<RequestInFlight>()
        .filter(|loaded| loaded.planned.is_some())
        .cloned()
    {
        Some(loaded) => take_up_request(world, walker, loaded, frame),
        None => {
            // A re-plan of the walk that was under way runs again, answered when it
            // was due; otherwise one starts now.
            let job = match entity
                .get::<RequestInFlight>()
                .filter(|saved| saved.replanning && saved.started)
            {
                Some(saved) => {
                    resumed_job(request, target, JobKind::Replan, face, saved.due_in, frame)
                }
                None => PathJob::new(request, target, JobKind::Replan).with_face(face),
            };
            entity.insert(job);
        }
    }
}
