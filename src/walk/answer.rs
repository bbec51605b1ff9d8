//! Answers: finished searches collected, joined to where the walker got to, and
//! applied (or planned again).

use bevy::prelude::*;
use bevy::tasks::Task;
#[cfg(not(target_arch = "wasm32"))]
use bevy::tasks::block_on;
use bevy::tasks::futures::check_ready;
use walkmask::Point;
use walkmask::los::line_of_sight;

use super::end::{answer_cancelled, answer_unreachable, end_walk, start_pending};
use super::job::{
    JobKind, JobState, MAX_ATTEMPTS, PathJob, PendingRequest, PlanStart, PlannedOn,
    SAME_PLACE_PIXELS, WalkOnHold,
};
use super::obstacle_watch::{ObstacleWatch, bending};
use super::start::start_jobs;
use super::stats::count_and_emit;
use super::timing::PlanClock;
use crate::obstacle::crosses_obstacles;
use crate::outcome::{Outcome, PathReady, PathReplanned, StopReason};
use crate::placement::{entity_world_xy, set_entity_world_xy};
use crate::plan::basis::PlanBasis;
use crate::plan::worker::{PlanOutput, PlannedPath};
use crate::tuning::WalkTuning;
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

/// How an answer joins where the walker is now.
pub(super) enum Joined {
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
pub(super) fn join(
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
pub(super) fn straight_on(position: Vec2, here: Point, path: &PlannedPath) -> Option<Joined> {
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
pub(super) fn clear_of_obstacles(path: &PlannedPath, here: Point, next: Point) -> bool {
    !crosses_obstacles(
        &path.obstacles,
        &[here, next],
        &path.mapping,
        path.grid.clearance(),
        here.pixel(),
    )
}

/// An answer planned while its room moved (a search is not restarted for that): its
/// path put where the room stands now, from its mask points, so that it is joined to
/// the walker and walked in the room's current placement.
fn in_current_placement(
    world: &World,
    mut output: PlanOutput,
    mut basis: Option<PlanBasis>,
) -> (PlanOutput, Option<PlanBasis>) {
    if let (PlanOutput::Path(path), Some(basis)) = (&mut output, basis.as_mut())
        && let (Some(room), Some(transform)) = (
            world.get::<crate::room::WalkRoom>(basis.room),
            world.get::<GlobalTransform>(basis.room),
        )
    {
        let mapping = room.mapping(transform, path.mapping.size);
        if mapping != path.mapping && mapping.is_valid() {
            path.waypoints = path
                .mask_points
                .iter()
                .map(|&p| mapping.mask_to_world(p))
                .collect();
            path.mapping = mapping;
            basis.mapping = mapping;
        }
    }
    (output, basis)
}

/// Applies a job's answer, unless the job was replaced or the walker is gone; then
/// starts the request that waited for it, if any.
pub(super) fn complete_job(
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
    // An answer whose destination is far from the waiting request's would turn the
    // walker the wrong way for a moment: drop it and plan the waiting one. A walker
    // standing still takes it all the same when it leads toward the waiting one's
    // destination (and the waiting one's when it lands): dropping every answer of a
    // fast drag would never let it start.
    let join_distance = world
        .get_resource::<WalkTuning>()
        .map_or(0.0, |tuning| tuning.rerequest_join_distance);
    let standing_at = match world.get::<WalkPath>(walker) {
        Some(_) => None,
        None => entity_world_xy(world, walker),
    };
    let serves = |pending: &PendingRequest| {
        pending.target.distance(job.target) <= join_distance
            || standing_at
                .is_some_and(|at| pending.target.distance(job.target) < pending.target.distance(at))
    };
    if let Some(pending) = job.pending
        && !serves(&pending)
    {
        let next = PathJob {
            pending: None,
            ..PathJob::new(job.request, job.target, job.kind)
        };
        answer_cancelled(world, walker, next);
        start_pending(world, walker, &job);
        start_put_back(world);
        return;
    }
    let (output, basis) = in_current_placement(world, output, basis);
    apply_answer(world, walker, &mut job, output, basis);
    if world.get::<PathJob>(walker).map(|j| j.serial) != Some(job.serial) {
        start_pending(world, walker, &job);
    }
    if world.get::<PathJob>(walker).is_some() {
        start_put_back(world);
    }
}

/// Starts the jobs that answers put back (a search planned again, a request that
/// waited) in the frame they were put back, and collects those already due (under
/// [`AnswerTiming::AfterFrames`](super::AnswerTiming)) at once, so that they land
/// when they are due rather than a frame later. Inside a run of these systems (an
/// answer applied while jobs are being started or collected) this does nothing, and
/// the next frame's `Plan` starts them.
fn start_put_back(world: &mut World) {
    if world.run_system_cached(start_jobs).is_ok() {
        let _ = world.run_system_cached(poll_jobs);
    }
}

/// Applies the answer of `job` (taken from the walker), or puts the job back to plan
/// again from further ahead.
pub(super) fn apply_answer(
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
                    let quiet_for = world
                        .get::<ObstacleWatch>(walker)
                        .map_or(0.0, |w| w.quiet_for);
                    let watch = ObstacleWatch {
                        seen: bending(&path.obstacles, &path.mask_points, path.grid.clearance()),
                        generation: start.obstacle_generation,
                        quiet_for,
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
            // The walk and its basis in one insert: a walk without a basis when its
            // insert's commands run is one loaded from a save (`super::saved`).
            let walk = (
                WalkPath {
                    waypoints: waypoints.clone(),
                    next: 0,
                    target: job.target,
                    request: job.request,
                    face: job.face,
                },
                WalkState::Walking,
                watch,
            );
            entity.remove::<WalkOnHold>();
            match basis {
                Some(basis) => entity.insert((walk, PlannedOn(basis))),
                None => entity.remove::<PlannedOn>().insert(walk),
            };
            if let Some(teleport) = teleport {
                set_entity_world_xy(world, walker, teleport);
            }
            let (entity, request, target) = (walker, job.request, job.target);
            count_and_emit(
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
            entity.insert((WalkState::Unreachable, WalkHeading(Vec2::ZERO)));
            match job.kind {
                JobKind::Request => answer_unreachable(world, walker, job.request, job.target),
                JobKind::Replan => end_walk(world, walker, StopReason::Blocked),
            }
        }
    }
}

/// The answer of a task that is due now: waited for where the pool runs on other
/// threads; on the web, where tasks run between frames and a wait would never end,
/// taken only if the task has run (else it lands in the first later frame it has).
fn collect_due(task: &mut Task<PlanOutput>) -> Option<PlanOutput> {
    #[cfg(all(feature = "background_searches", not(target_arch = "wasm32")))]
    if !task.is_finished() && crate::plan::search_threads::searches_in_background() {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            warn!(
                "bevy_walkmask: a frame waits for a search on an async compute thread of the \
                 lowest priority (background_searches with AnswerTiming::AfterFrames); \
                 the wait lasts as long as other threads keep the cores busy"
            );
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    return Some(block_on(task));
    #[cfg(target_arch = "wasm32")]
    return check_ready(task);
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
        // `None`: answered when ready.
        let frames_left = job.frames_left(&clock);
        let (output, basis) = match &mut job.state {
            JobState::Running { task, basis, .. } => {
                let output = match frames_left {
                    Some(0) => collect_due(task),
                    Some(_) => None,
                    None => check_ready(task),
                };
                (output, Some(*basis))
            }
            JobState::Failed if frames_left.is_none_or(|left| left == 0) => {
                (Some(PlanOutput::Unreachable), None)
            }
            JobState::Failed | JobState::Waiting | JobState::Done => continue,
        };
        let Some(output) = output else {
            continue;
        };
        job.state = JobState::Done;
        commands.queue(move |world: &mut World| complete_job(world, entity, serial, output, basis));
    }
}
