//! Walks saved in mid-walk and loaded back: what a save holds of a walker's request
//! and walk, and how the lifecycle takes them up again after a load.
//!
//! A save made through reflection (a `DynamicWorld` of the walkers) holds a walk in
//! progress as its [`WalkPath`] (with [`GivenRoute`] for a walk through given
//! points), and a request still being planned as [`RequestInFlight`]. The rest of
//! the lifecycle's state (the search task, the basis the walk was planned on) means
//! nothing in another process, so it is not saved: when those components are
//! inserted without it, as a loaded scene inserts them, the walker takes up its walk
//! or request again from where it stands, against the world as loaded:
//!
//! * a walk on a found path stands ([`WalkOnHold`]) until it is planned again from
//!   here, answered [`PathReplanned`](crate::PathReplanned): a gate shut in the
//!   loaded world is walked round, or the walk ends where any walk would end
//!   against it;
//! * a walk through given points walks on;
//! * a request in flight is read again with its own id: it gets its one answer.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use super::accept::accept_request;
use super::end::cancel;
use super::job::{GivenRoute, JobKind, PathJob, PlannedOn, WalkOnHold};
use crate::facing::FaceTarget;
use crate::request::{RequestId, WalkRequest, WalkRoute, keep_ids_after_inserted};
use crate::walker::{WalkPath, Walker};

/// The walk request a walker's path is being planned for, kept by the plugin on
/// every [`Walker`] (`None` while nothing is being planned for it), so that a save
/// made through reflection holds it.
///
/// Loaded back onto a walker, a request in flight is read again with its own id and
/// gets its one answer; its walk, if it had begun one, is planned again from where
/// the walker stands (see the [guide's scripting chapter](crate::guide::scripting)).
/// Game code reads it and leaves it alone.
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
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
#[component(on_insert = request_in_flight_inserted)]
pub struct RequestInFlight {
    planned: Option<PlannedRequest>,
    superseded: Option<PlannedRequest>,
}

impl RequestInFlight {
    /// The request being planned, if any.
    pub fn get(&self) -> Option<&PlannedRequest> {
        self.planned.as_ref()
    }

    /// The request whose search still runs while the one [`get`](Self::get) gives
    /// waits for it (a request sent while another was being planned). Loaded back,
    /// it is answered [`PathCancelled`](crate::PathCancelled), superseded.
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
/// waits for it.
fn planned_by(job: Option<&PathJob>) -> RequestInFlight {
    let Some(job) = job else {
        return RequestInFlight::default();
    };
    let own = (job.kind == JobKind::Request).then_some(PlannedRequest {
        id: job.request,
        target: job.target,
        face: job.face,
    });
    match job.pending {
        Some(pending) => RequestInFlight {
            planned: Some(PlannedRequest {
                id: pending.request,
                target: pending.target,
                face: pending.face,
            }),
            superseded: own,
        },
        None => RequestInFlight {
            planned: own,
            superseded: None,
        },
    }
}

/// Sets the walker's [`RequestInFlight`] to `planned`, in place: only a load
/// inserts one with a request (and runs its insert hook).
fn note_planned(mut world: DeferredWorld, walker: Entity, planned: RequestInFlight) {
    if let Some(mut in_flight) = world.get_mut::<RequestInFlight>(walker) {
        in_flight.set_if_neq(planned);
    }
}

/// The insert hook of [`PathJob`].
pub(crate) fn job_inserted(world: DeferredWorld, context: HookContext) {
    let planned = planned_by(world.get::<PathJob>(context.entity));
    note_planned(world, context.entity, planned);
}

/// The discard hook of [`PathJob`] (run before it is removed or replaced).
pub(crate) fn job_discarded(world: DeferredWorld, context: HookContext) {
    note_planned(world, context.entity, RequestInFlight::default());
}

/// Brings [`RequestInFlight`] up to date after a request was set waiting for the
/// walker's job (a change to the job in place, which runs no hook).
pub(super) fn note_waiting_request(entity: &mut EntityWorldMut) {
    let planned = planned_by(entity.get::<PathJob>());
    if let Some(mut in_flight) = entity.get_mut::<RequestInFlight>() {
        in_flight.set_if_neq(planned);
    }
}

/// The insert hook of [`RequestInFlight`]: one inserted with a request on a walker
/// with no job for it (loaded from a save) is read again once the commands run.
fn request_in_flight_inserted(mut world: DeferredWorld, context: HookContext) {
    let walker = context.entity;
    let Some(&loaded) = world.get::<RequestInFlight>(walker) else {
        return;
    };
    let Some(planned) = loaded.planned else {
        return;
    };
    // Ids handed out from here on come after the loaded ones.
    for request in [loaded.planned, loaded.superseded].into_iter().flatten() {
        request.id.keep_later_ids_after();
    }
    if planned_by(world.get::<PathJob>(walker)).planned != Some(planned) {
        world
            .commands()
            .queue(move |world: &mut World| take_up_request(world, walker, loaded));
    }
}

/// Reads a loaded request again, unless the walker was planned for it (or is gone,
/// or no longer a walker) by the time the commands run; the request it superseded
/// is answered [`PathCancelled`](crate::PathCancelled).
fn take_up_request(world: &mut World, walker: Entity, loaded: RequestInFlight) {
    let Ok(entity) = world.get_entity(walker) else {
        return;
    };
    let Some(planned) = loaded.planned else {
        return;
    };
    if !entity.contains::<Walker>() || planned_by(entity.get::<PathJob>()).planned == Some(planned)
    {
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

/// Takes up what a load wrote onto walkers where the insert hooks could not: a
/// `DynamicWorld` written into the world applies a component in place when the
/// entity has it already (a [`RequestInFlight`] that [`Walker`] brought in as a
/// required component runs no insert hook), and in whatever order its components
/// come (a hook's commands may run before the walker has its [`Walker`]). A request
/// in flight that no job plans, and a walk that has no basis and no plan under way,
/// are taken up as the hooks take them up; what the hooks took up already is left.
#[allow(clippy::type_complexity)]
pub(crate) fn take_up_loaded(
    mut commands: Commands,
    in_flight: Query<
        (Entity, &RequestInFlight, Option<&PathJob>),
        (With<Walker>, Changed<RequestInFlight>),
    >,
    walks: Query<
        (Entity, &WalkPath),
        (
            With<Walker>,
            Added<WalkPath>,
            Without<PlannedOn>,
            Without<PathJob>,
        ),
    >,
) {
    for (walker, &loaded, job) in &in_flight {
        for request in [loaded.planned, loaded.superseded].into_iter().flatten() {
            request.id.keep_later_ids_after();
        }
        if loaded
            .planned
            .is_some_and(|planned| planned_by(job).planned != Some(planned))
        {
            commands.queue(move |world: &mut World| take_up_request(world, walker, loaded));
        }
    }
    for (walker, path) in &walks {
        let request = path.request;
        commands.queue(move |world: &mut World| take_up_walk(world, walker, request));
    }
}

/// The insert hook of [`WalkPath`]: a walk inserted without the basis it was
/// planned on (loaded from a save) is taken up again once the commands run, when it
/// still has none then (the lifecycle inserts the basis in the same command as the
/// walk).
pub(crate) fn walk_path_inserted(mut world: DeferredWorld, context: HookContext) {
    keep_ids_after_inserted::<WalkPath>(world.reborrow(), context);
    let walker = context.entity;
    let Some(request) = world.get::<WalkPath>(walker).map(|path| path.request) else {
        return;
    };
    world
        .commands()
        .queue(move |world: &mut World| take_up_walk(world, walker, request));
}

/// Takes up a walk of `request` that has no basis: it stands until it is planned
/// again from where the walker stands (a walk through given points walks on).
fn take_up_walk(world: &mut World, walker: Entity, request: RequestId) {
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
        .copied()
        .filter(|loaded| loaded.planned.is_some())
    {
        Some(loaded) => take_up_request(world, walker, loaded),
        None => {
            entity.insert(PathJob::new(request, target, JobKind::Replan).with_face(face));
        }
    }
}
