//! Walks among moving obstacles: a walker re-plans when a solid obstacle moves onto
//! the rest of its path, or away from where it bent the path.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use walkmask::obstacles::{Obstacle, Obstacles};

use super::job::{PathJob, PlannedOn, queue_replan};
use crate::obstacle::{ObstacleLayout, rasterise};
use crate::placement::{Parents, walker_xy};
use crate::tuning::WalkTuning;
use crate::walker::{WalkPath, Walker};

/// How far (mask pixels) beyond a walker's clearance an obstacle may be and still
/// count as having bent its path: when it moves away, the walker re-plans.
const BEND_MARGIN_PIXELS: f32 = 2.0;

/// An obstacle whose centre moved less than this (mask pixels) has not moved.
const MOVED_PIXELS: f32 = 0.5;

/// What a walk was planned among: the obstacles then, and when its walker may next
/// re-plan for them.
#[derive(Component, Clone, Debug, Default)]
pub(crate) struct ObstacleWatch {
    /// The obstacles the plan saw (mask pixels).
    pub(crate) seen: Vec<(Entity, Obstacle)>,
    /// The layout generation the walk was last checked against.
    pub(crate) generation: u64,
    /// No obstacle re-plan before this time (seconds since startup).
    pub(crate) quiet_until: f32,
}

/// A walker on its way, as obstacle checks see it.
type WatchedWalker = (
    Entity,
    &'static Transform,
    Option<&'static ChildOf>,
    &'static WalkPath,
    &'static PlannedOn,
    &'static mut ObstacleWatch,
);

/// The obstacles' pixels in a frame, by (room, clearance in steps), with the entity
/// of each.
type RastersByRoom = HashMap<(Entity, u32), (Obstacles, Vec<Entity>)>;

/// Re-plans walkers whose remaining path an obstacle now blocks, or that an obstacle
/// which bent their path has moved away from (see [`WalkObstacle`]). The obstacles'
/// pixels are worked out once per room and walker radius in a frame, and only for
/// obstacles whose box comes near a walk.
pub(crate) fn replan_for_obstacles(
    mut commands: Commands,
    time: Res<Time>,
    layout: Res<ObstacleLayout>,
    mut walkers: Query<WatchedWalker, (With<Walker>, Without<PathJob>)>,
    parents: Parents,
    mut rasters: Local<RastersByRoom>,
    tuning: Res<WalkTuning>,
) {
    rasters.clear();
    let now = time.elapsed_secs();
    for (entity, transform, child_of, path, planned_on, mut watch) in &mut walkers {
        if watch.generation == layout.generation || now < watch.quiet_until {
            continue;
        }
        watch.generation = layout.generation;
        let basis = planned_on.0;
        let (mapping, clearance) = (basis.mapping, basis.key.clearance());
        let here = walker_xy(transform, child_of, &parents);
        let rest: Vec<walkmask::Point> = std::iter::once(here)
            .chain(path.waypoints.iter().skip(path.next).copied())
            .map(|p| mapping.world_to_mask(p))
            .collect();
        let standing_on = rest[0].pixel();
        let current = layout.in_mask(entity, &mapping);
        let blocked = current.iter().any(|(_, o)| o.near_path(&rest, clearance)) && {
            let (obstacles, entities) = rasters
                .entry((basis.room, basis.key.clearance_steps))
                .or_insert_with(|| {
                    rasterise(
                        &layout.in_mask(Entity::PLACEHOLDER, &mapping),
                        &mapping,
                        clearance,
                    )
                });
            obstacles
                .on_path(&rest, standing_on)
                .any(|i| entities[i] != entity)
        };
        let reach = clearance + BEND_MARGIN_PIXELS;
        let moved_away: Vec<(Entity, Obstacle)> = watch
            .seen
            .iter()
            .filter(|(seen_entity, seen)| {
                seen.near_path(&rest, reach)
                    && !current.iter().any(|(e, o)| {
                        e == seen_entity
                            && o.footprint == seen.footprint
                            && o.center.distance(seen.center) < MOVED_PIXELS
                    })
            })
            .copied()
            .collect();
        let freed = !moved_away.is_empty()
            && rasterise(&moved_away, &mapping, reach)
                .0
                .first_on_path(&rest, standing_on)
                .is_some();
        if blocked || freed {
            debug!(
                "walker {entity}: an obstacle {} its path, re-planning to {}",
                if blocked { "blocks" } else { "left" },
                path.target
            );
            watch.quiet_until = now + tuning.obstacle_replan_seconds;
            queue_replan(&mut commands, entity, path, false);
        }
    }
}
