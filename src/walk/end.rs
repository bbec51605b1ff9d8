//! Endings: requests answered unreachable or cancelled, walks stopped, and what a
//! walker that stops being a walker leaves open.

use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use super::job::{JobKind, PathJob, PlannedOn, WalkOnHold};
use super::obstacle_watch::ObstacleWatch;
use super::saved::{RequestInFlight, not_taken_up};
use super::stats::count_and_emit;
use crate::outcome::{Outcome, PathCancelled, PathUnreachable, StopReason, WalkStopped};
use crate::placement::entity_world_xy;
use crate::request::RequestId;
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

/// Answers request `request` of `walker` with [`PathUnreachable`].
pub(super) fn answer_unreachable(
    world: &mut World,
    walker: Entity,
    request: RequestId,
    target: Vec2,
) {
    count_and_emit(
        world,
        Outcome::Unreachable(PathUnreachable {
            entity: walker,
            request,
            target,
        }),
    );
}

/// Answers `request` (to `target`) of `walker` with [`PathCancelled`].
pub(super) fn cancel(world: &mut World, walker: Entity, request: RequestId, target: Vec2) {
    count_and_emit(
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
pub(super) fn answer_cancelled(world: &mut World, walker: Entity, job: PathJob) {
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
    /// The open requests and walk of a walker being removed: its job's, and a
    /// request loaded in flight and not read again yet (with the one it superseded).
    pub(crate) fn of(
        job: Option<&PathJob>,
        path: Option<&WalkPath>,
        in_flight: Option<&RequestInFlight>,
        position: Vec2,
    ) -> Self {
        let mut requests = Vec::new();
        if let Some(job) = job {
            if job.kind == JobKind::Request {
                requests.push((job.request, job.target));
            }
            if let Some(pending) = job.pending {
                requests.push((pending.request, pending.target));
            }
        }
        if let Some(loaded) = in_flight.and_then(|in_flight| not_taken_up(in_flight, job)) {
            for request in [loaded.superseded(), loaded.get()].into_iter().flatten() {
                requests.push((request.id, request.target));
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
            count_and_emit(
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

/// When a [`Walker`] is removed (an observer rather than a component hook, so that
/// walkers spawned before the plugin was added are followed too): answers its open
/// request and ends its open walk ([`OpenWork::close`]), and removes the plugin's
/// state from an entity that lives on without `Walker`. A walker that is despawned is
/// closed as it was; one that lives on is closed as it is when the command runs
/// (commands queued before may have changed it), unless it is a walker again by then.
pub(crate) fn walker_removed(removed: On<Remove, Walker>, world: DeferredWorld) {
    let walker = removed.entity;
    let position = entity_world_xy(&world, walker).unwrap_or(Vec2::NAN);
    let as_it_was = OpenWork::of(
        world.get::<PathJob>(walker),
        world.get::<WalkPath>(walker),
        world.get::<RequestInFlight>(walker),
        position,
    );
    let mut world = world;
    world.commands().queue(move |world: &mut World| {
        let open = match world.get_entity_mut(walker) {
            Err(_) => as_it_was,
            Ok(entity) if entity.contains::<Walker>() => return,
            Ok(mut entity) => {
                let position = entity_world_xy(entity.world(), walker).unwrap_or(Vec2::NAN);
                let open = OpenWork::of(
                    entity.get::<PathJob>(),
                    entity.get::<WalkPath>(),
                    entity.get::<RequestInFlight>(),
                    position,
                );
                if let Some(mut in_flight) = entity.get_mut::<RequestInFlight>() {
                    in_flight.set_if_neq(RequestInFlight::default());
                }
                entity.remove::<(
                    PathJob,
                    WalkPath,
                    PlannedOn,
                    ObstacleWatch,
                    WalkOnHold,
                    super::hurry::Hurried,
                    super::job::GivenRoute,
                )>();
                super::warm_up::forget(&mut entity);
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
pub(super) fn start_pending(world: &mut World, walker: Entity, job: &PathJob) {
    let Some(next) = job.pending_job() else {
        return;
    };
    match world.get_entity_mut(walker) {
        Ok(mut entity) if entity.contains::<Walker>() && !entity.contains::<PathJob>() => {
            if !entity.contains::<WalkPath>() {
                entity.insert((WalkState::Planning, WalkHeading(Vec2::ZERO)));
            }
            entity.insert(next);
        }
        _ => cancel(world, walker, next.request, next.target),
    }
}

/// Ends the walker's current walk, if any, with [`WalkStopped`] for `reason`.
pub(super) fn end_walk(world: &mut World, walker: Entity, reason: StopReason) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let Some(path) = entity.take::<WalkPath>() else {
        return;
    };
    entity.remove::<(PlannedOn, WalkOnHold)>();
    let position = entity_world_xy(world, walker).unwrap_or(Vec2::NAN);
    count_and_emit(
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
        entity.insert((WalkState::Idle, WalkHeading(Vec2::ZERO)));
    }
    drop_request_and_walk(world, walker, StopReason::Stopped);
    stand_if_nothing_left(world, walker, WalkState::Idle);
}

/// Ends the walk of a walker that could not go on (a tile-step walker that waited
/// too long for its next tile, a walker still blocked by others after re-planning):
/// it stands, [`WalkState::Unreachable`], its walk
/// ended [`Blocked`](StopReason::Blocked).
pub(crate) fn block_walker(world: &mut World, walker: Entity) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if !entity.contains::<WalkPath>() {
        return;
    }
    entity.insert((WalkState::Unreachable, WalkHeading(Vec2::ZERO)));
    drop_request_and_walk(world, walker, StopReason::Blocked);
    stand_if_nothing_left(world, walker, WalkState::Unreachable);
}

/// Puts a walker that has neither a request in flight nor a walk in `state`.
///
/// Each insert applies the commands queued on the world before it, so the state
/// set before a drop can start a walk given by such a command, which the drop
/// then ends; without this the walker would be left `Walking` with no walk.
fn stand_if_nothing_left(world: &mut World, walker: Entity, state: WalkState) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let idle = entity.contains::<Walker>()
        && !entity.contains::<PathJob>()
        && !entity.contains::<WalkPath>();
    if idle && entity.get::<WalkState>() != Some(&state) {
        entity.insert((state, WalkHeading(Vec2::ZERO)));
    }
}

/// Steering takes over: a request in flight gets [`PathCancelled`], a walk in
/// progress ends with [`WalkStopped`] (reason [`StopReason::Superseded`]).
pub(crate) fn steer_over_walk(world: &mut World, walker: Entity) {
    drop_request_and_walk(world, walker, StopReason::Superseded);
}

/// Cancels the walker's request in flight, if any ([`PathCancelled`]), and ends its
/// walk, if any, with [`WalkStopped`] for `reason`.
pub(super) fn drop_request_and_walk(world: &mut World, walker: Entity, reason: StopReason) {
    // A request loaded in flight and not read again yet is dropped as any other.
    super::saved::take_up_loaded_request(world, walker);
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if let Some(job) = entity.take::<PathJob>() {
        answer_cancelled(world, walker, job);
    }
    end_walk(world, walker, reason);
}
