//! Requests accepted: a walker's new request becomes its job, waits for the search
//! under way, or (a cutscene route) becomes its walk at once.

use bevy::prelude::*;

use super::end::{answer_cancelled, answer_unreachable, cancel, drop_request_and_walk, end_walk};
use super::hurry::{Hurry, hurry_walker};
use super::job::{GivenRoute, JobKind, PathJob, PendingRequest, PlannedOn, WalkOnHold};
use super::stats::count_and_emit;
use super::timing::PlanClock;
use crate::cutscene::skips_walks_of;
use crate::facing::FaceTarget;
use crate::outcome::{Outcome, PathReady, StopReason};
use crate::placement::entity_world_xy;
use crate::request::{RequestId, WalkRequest, WalkRoute};
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

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
pub(super) fn accept(world: &mut World, request: WalkRequest, share: bool) {
    let walker = request.walker;
    accept_walk(world, request, share);
    // A walker in a cutscene that is being skipped skips every walk it starts.
    if skips_walks_of(world, walker) {
        hurry_walker(world, walker, Hurry::Skip);
    }
}

/// [`accept`], apart from a cutscene's skip.
fn accept_walk(world: &mut World, request: WalkRequest, share: bool) {
    let WalkRequest {
        walker,
        target,
        id,
        face,
        route,
    } = request;
    super::stats::request_read(world, id);
    // A request loaded in flight and not read again yet is superseded by this one,
    // as any request in flight, rather than lost.
    super::saved::take_up_loaded_request(world, walker);
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
        WalkRoute::Pathfind => target.is_finite(),
        WalkRoute::Anywhere { via } => target.is_finite() && via.iter().all(|p| p.is_finite()),
    };
    if !finite {
        warn!("{id} for {walker} to {target} ({route:?}): a point is not finite");
        drop_request_and_walk(world, walker, StopReason::Superseded);
        if let Ok(mut entity) = world.get_entity_mut(walker) {
            entity.insert((WalkState::Unreachable, WalkHeading(Vec2::ZERO)));
        }
        answer_unreachable(world, walker, id, target);
        return;
    }
    let via = match route {
        WalkRoute::Anywhere { via } => via,
        WalkRoute::Pathfind => {
            if let Some(mut job) = entity.get_mut::<PathJob>()
                && job.started()
            {
                let replaced = job.pending.replace(PendingRequest {
                    request: id,
                    target,
                    face,
                    share,
                });
                super::saved::note_waiting_request(&mut entity);
                if let Some(old) = replaced {
                    cancel(world, walker, old.request, old.target);
                }
                return;
            }
            let previous = entity.take::<PathJob>();
            if !entity.contains::<WalkPath>() {
                entity.insert((WalkState::Planning, WalkHeading(Vec2::ZERO)));
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
pub(super) fn walk_anywhere(
    world: &mut World,
    walker: Entity,
    request: RequestId,
    target: Vec2,
    face: Option<FaceTarget>,
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
        GivenRoute(request),
        WalkPath {
            waypoints: waypoints.clone(),
            next: 0,
            target,
            request,
            face,
        },
        WalkState::Walking,
    ));
    count_and_emit(
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

/// Starts the lifecycle's frame: advances the [`PlanClock`] (the plugin's frame
/// count), and reads [`WalkRequest`] messages (all of them, every frame).
pub(crate) fn read_requests(
    mut commands: Commands,
    mut requests: MessageReader<WalkRequest>,
    mut clock: ResMut<PlanClock>,
) {
    clock.frame += 1;
    clock.reading = true;
    for request in requests.read() {
        let request = request.clone();
        commands.queue(move |world: &mut World| accept_request(world, request));
    }
}
