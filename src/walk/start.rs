//! Searches started: jobs whose room and mask are ready become path tasks on the
//! async compute pool.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
use walkmask::Point;

use super::job::{JobState, PathJob, PlanStart, WalkOnHold};
use super::obstacle_watch::SeenObstacle;
use super::saved::{RequestInFlight, SearchInputs, loaded_search, note, note_search_started};
use super::timing::{AnswerTiming, AnswerTimingSetting, PlanClock};
use crate::asset::WalkMask;
use crate::obstacle::ObstacleLayout;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{NoBasis, PlanBasis, Rooms, current_basis};
use crate::plan::grid_cache::GridKey;
use crate::plan::worker::{InFlight, PlanQuery, Planner};
use crate::tuning::WalkTuning;
use crate::walker::{WalkPath, Walker};

/// A walker with a job, as `start_jobs` sees it.
pub(super) type JobWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    &'static mut PathJob,
    Has<WalkOnHold>,
    &'static mut RequestInFlight,
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
    for (entity, walker, transform, child_of, path, mut job, held, mut in_flight) in &mut walkers {
        if !matches!(job.state, JobState::Waiting) {
            continue;
        }
        if job.due.is_none()
            && let AnswerTiming::AfterFrames(frames) = timing.0
        {
            job.due = Some(clock.frame + u64::from(frames));
        }
        let position = walker_xy(transform, child_of, &parents);
        let (mut basis, mask) =
            match current_basis(walker, position, &rooms, &masks, server.as_deref()) {
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
        // A search run again after a load starts as it was saved: from where it
        // started, among the obstacles it routed round then, on the placement of the
        // room then (its answer is put where the room stands when it lands, as any
        // answer whose room moved meanwhile).
        let resumed = std::mem::take(&mut job.resumed)
            .then(|| loaded_search(&in_flight))
            .flatten()
            .filter(|saved| saved.from.is_finite())
            .map(|saved| {
                let on_walk = saved.on_walk.filter(|(request, after)| {
                    path.is_some_and(|path| {
                        path.request == *request && *after <= path.waypoints.len()
                    })
                });
                let obstacles: Vec<_> = saved.obstacles.iter().map(SeenObstacle::get).collect();
                (
                    saved.from,
                    saved.from_world,
                    saved.mapping,
                    on_walk,
                    obstacles,
                )
            });
        if let Some((_, _, saved_mapping, ..)) = &resumed
            && saved_mapping.is_valid()
            && saved_mapping.size == basis.mapping.size
        {
            basis.mapping = *saved_mapping;
        }
        let mapping = basis.mapping;
        let (from, from_mask, on_path, saved_obstacles) = match resumed {
            Some((saved, saved_world, _, on_walk, obstacles)) => {
                let saved = Point::new(saved.x, saved.y);
                // The world point it started from, unless the room moved since.
                let world = mapping.mask_to_world(saved);
                let world = if world.distance(saved_world) < 1e-3 {
                    saved_world
                } else {
                    world
                };
                (world, saved, on_walk, Some(obstacles))
            }
            None => (from, mapping.world_to_mask(from), on_path, None),
        };
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
        // A resumed search's obstacles are older than the layout: its walk is
        // checked against the obstacles as they are once it lands.
        let obstacle_generation = match saved_obstacles {
            Some(_) => layout.generation.wrapping_sub(1),
            None => layout.generation,
        };
        job.start = Some(PlanStart {
            world: from,
            mask: from_mask,
            on_path,
            obstacle_generation,
        });
        let mut query = walk_query(
            (entity, walker),
            &basis,
            mask,
            (start, goal, clamped),
            &layout,
        );
        if let Some(obstacles) = saved_obstacles {
            query.obstacles = obstacles;
        }
        note_search_started(
            &mut in_flight,
            SearchInputs {
                from: Vec2::new(from_mask.x, from_mask.y),
                from_world: from,
                mapping,
                room: basis.room,
                areas: basis.key.areas.into(),
                mask_pixels: mask.pixels_hash(),
                on_walk: on_path,
                obstacles: query
                    .obstacles
                    .iter()
                    .copied()
                    .map(SeenObstacle::new)
                    .collect(),
            },
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
        let Ok((.., mut job, _, mut noted)) = walkers.get_mut(entity) else {
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
        let task = AsyncComputeTaskPool::get().spawn(async move { worker.plan(query).await });
        job.state = JobState::Running {
            task,
            basis,
            _in_flight: in_flight,
        };
        // Started now: a save made after this (in this frame too, when an answer
        // started it late in the frame) holds it as started.
        note(&mut noted, Some(&job), clock.frame);
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
