//! Walks among moving obstacles: a walker re-plans when a solid obstacle moves onto
//! the rest of its path, or away from where it bent the path.

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::prelude::*;
use walkmask::obstacles::{Footprint, Obstacle};

use super::job::{PathJob, PlannedOn, queue_replan};
use crate::obstacle::{MaskObstacleCache, MaskObstacles, ObstacleLayout};
use crate::placement::{Parents, walker_xy};
use crate::tuning::WalkTuning;
use crate::walker::{WalkPath, Walker};

/// How far (mask pixels) beyond a walker's clearance an obstacle may be and still
/// count as having bent its path: when it moves away, the walker re-plans.
const BEND_MARGIN_PIXELS: f32 = 2.0;

/// An obstacle whose centre moved less than this (mask pixels) has not moved.
const MOVED_PIXELS: f32 = 0.5;

/// What a walk was planned among: the obstacles that bent it, and how long its
/// walker waits before it may re-plan for obstacles again. Saved with the walk (a
/// walk loaded back is watched as it was).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub(crate) struct ObstacleWatch {
    /// The obstacles near the path when it was planned (mask pixels): when one moves
    /// away, the walker re-plans.
    #[entities]
    pub(crate) seen: Vec<SeenObstacle>,
    /// The layout generation the walk was last checked against (it means nothing in
    /// another world: a walk loaded back is checked in its first frame).
    #[reflect(ignore)]
    pub(crate) generation: u64,
    /// Seconds left before the walker may re-plan for obstacles again.
    pub(crate) quiet_for: f32,
}

/// An obstacle a walk was planned among, in mask pixels.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub(crate) struct SeenObstacle {
    entity: Entity,
    center: Vec2,
    footprint: SeenFootprint,
}

/// [`Footprint`] as a save holds it.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
enum SeenFootprint {
    Rect { half_width: f32, half_height: f32 },
    Circle { radius: f32 },
    Ellipse { radius_x: f32, radius_y: f32 },
}

impl SeenObstacle {
    pub(crate) fn new((entity, obstacle): (Entity, Obstacle)) -> Self {
        let footprint = match obstacle.footprint {
            Footprint::Rect {
                half_width,
                half_height,
            } => SeenFootprint::Rect {
                half_width,
                half_height,
            },
            Footprint::Circle { radius } => SeenFootprint::Circle { radius },
            Footprint::Ellipse { radius_x, radius_y } => {
                SeenFootprint::Ellipse { radius_x, radius_y }
            }
        };
        Self {
            entity,
            center: Vec2::new(obstacle.center.x, obstacle.center.y),
            footprint,
        }
    }

    /// The obstacle and its entity.
    pub(crate) fn get(&self) -> (Entity, Obstacle) {
        let footprint = match self.footprint {
            SeenFootprint::Rect {
                half_width,
                half_height,
            } => Footprint::Rect {
                half_width,
                half_height,
            },
            SeenFootprint::Circle { radius } => Footprint::Circle { radius },
            SeenFootprint::Ellipse { radius_x, radius_y } => {
                Footprint::Ellipse { radius_x, radius_y }
            }
        };
        let center = walkmask::Point::new(self.center.x, self.center.y);
        (self.entity, Obstacle::new(center, footprint))
    }
}

impl MapEntities for SeenObstacle {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.entity = mapper.get_mapped(self.entity);
    }
}

/// A walker on its way, as obstacle checks see it.
type WatchedWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    &'static WalkPath,
    &'static PlannedOn,
    &'static mut ObstacleWatch,
    Has<PathJob>,
);

/// What the obstacle checks keep from frame to frame: the obstacles per room in mask
/// pixels, and each obstacle's pixels per room and walker clearance, worked out when
/// a walk first comes near it and kept while it stays where it is.
#[derive(Default)]
pub(crate) struct WatchCache {
    rooms: MaskObstacleCache,
    /// Indices of obstacles near a walk (reused).
    near: Vec<usize>,
    /// A walk's points from where its walker stands (world), its stretch within the
    /// look-ahead (world, then mask pixels) and the obstacles that bent it and have
    /// moved off (reused: a walk is looked at every frame).
    walk: Vec<Vec2>,
    ahead_world: Vec<Vec2>,
    ahead: Vec<walkmask::Point>,
    moved_away: Vec<(Entity, Obstacle)>,
}

/// The checks of one walk against the obstacles of its room in one frame.
struct PathCheck<'a> {
    current: &'a MaskObstacles,
    near: &'a mut Vec<usize>,
    walker: Entity,
    /// The mask's width and height in pixels.
    size: UVec2,
    clearance: f32,
    standing_on: Option<(u32, u32)>,
}

impl PathCheck<'_> {
    /// Whether a walk along `path` (mask points) passes over a pixel of an obstacle
    /// other than the walker's own (those covering where it stands aside). Only the
    /// obstacles in the buckets it passes are looked at, each by one distance per row
    /// of pixels the walk crosses near it ([`Obstacle::blocks_walk`]).
    fn blocks(&mut self, path: &[walkmask::Point]) -> bool {
        self.near.clear();
        self.current.near_path(path, self.clearance, self.near);
        let size = self.size;
        self.near.iter().any(|&i| {
            let (other, obstacle) = self.current.list[i];
            other != self.walker
                && obstacle.blocks_walk(path, size.x, size.y, self.clearance, self.standing_on)
        })
    }
}

/// The start of the polyline `path` (world points) up to `length` along it (at least
/// its first point).
fn path_prefix(path: &[Vec2], length: f32, out: &mut Vec<Vec2>) {
    out.clear();
    out.push(path[0]);
    let mut left = length;
    for pair in path.windows(2) {
        let step = pair[0].distance(pair[1]);
        if step >= left {
            if step > 0.0 {
                out.push(pair[0].lerp(pair[1], left / step));
            }
            break;
        }
        out.push(pair[1]);
        left -= step;
    }
}

/// Re-plans walkers whose remaining path an obstacle now blocks, or that an obstacle
/// which bent their path has moved away from (see [`WalkObstacle`]).
///
/// A frame's cost grows with the walkers and with the obstacles near their walks, not
/// with all obstacles per walker: the obstacles are converted to each room's mask
/// pixels once and listed in coarse buckets, a walk looks only at those in the
/// buckets it passes, and a walk is tested against an obstacle near it row by row
/// without working out the obstacle's pixels.
pub(crate) fn replan_for_obstacles(
    mut commands: Commands,
    time: Res<Time>,
    layout: Res<ObstacleLayout>,
    mut walkers: Query<WatchedWalker>,
    parents: Parents,
    mut cache: Local<WatchCache>,
    tuning: Res<WalkTuning>,
) {
    let delta = time.delta_secs();
    let generation = layout.generation;
    let WatchCache {
        rooms,
        near,
        walk,
        ahead_world,
        ahead,
        moved_away,
    } = &mut *cache;
    for (entity, walker, transform, child_of, path, planned_on, mut watch, planning) in &mut walkers
    {
        // The quiet time runs on while a re-plan is under way.
        if watch.quiet_for > 0.0 {
            watch.quiet_for -= delta;
        }
        if planning || watch.generation == generation || watch.quiet_for > 0.0 {
            continue;
        }
        watch.generation = generation;
        let basis = planned_on.0;
        let (mapping, clearance) = (basis.mapping, basis.key.clearance());
        let here = walker_xy(transform, child_of, &parents);
        // World -> mask, inverted once per walker rather than once per point.
        let to_mask = mapping.mask_to_world.inverse();
        walk.clear();
        walk.push(here);
        walk.extend(path.waypoints.iter().skip(path.next).copied());
        let world = &*walk;
        let mask_point = |p: Vec2| {
            let p = to_mask.transform_point2(p);
            walkmask::Point::new(p.x, p.y)
        };
        // The stretch within the look-ahead, and the destination: the rest of the walk
        // is looked at once it comes within the look-ahead.
        let look_ahead = if walker.speed.is_finite() {
            walker.speed.max(0.0) * tuning.obstacle_lookahead_seconds
        } else {
            0.0
        };
        path_prefix(world, look_ahead, ahead_world);
        let goes_beyond = ahead_world.len() < world.len() || ahead_world.last() != world.last();
        ahead.clear();
        ahead.extend(ahead_world.iter().copied().map(mask_point));
        let ahead = &*ahead;
        let end = [mask_point(world[world.len() - 1])];
        let mut check = PathCheck {
            current: rooms.room(&layout, basis.room, &mapping),
            near: &mut *near,
            walker: entity,
            size: mapping.size,
            clearance,
            standing_on: ahead[0].pixel(),
        };
        // Only the look-ahead and the destination are looked at; a walk that goes on
        // beyond the look-ahead is looked at again next frame, whether or not anything
        // moves, as the stretch ahead moves on with the walker.
        let blocked = check.blocks(ahead) || check.blocks(&end);
        let current = check.current;
        let standing_on = check.standing_on;
        let reach = clearance + BEND_MARGIN_PIXELS;
        moved_away.clear();
        moved_away.extend(watch.seen.iter().map(SeenObstacle::get).filter(
            |(seen_entity, seen)| {
                seen.near_path(ahead, reach)
                    && !current.get(*seen_entity).is_some_and(|o| {
                        o.footprint == seen.footprint
                            && o.center.distance(seen.center) < MOVED_PIXELS
                    })
            },
        ));
        let freed = moved_away.iter().any(|(_, obstacle)| {
            obstacle.blocks_walk(ahead, mapping.size.x, mapping.size.y, reach, standing_on)
        });
        if goes_beyond && !(blocked || freed) {
            watch.generation = generation.wrapping_sub(1);
        }
        if blocked || freed {
            debug!(
                "walker {entity}: an obstacle {} its path, re-planning to {}",
                if blocked { "blocks" } else { "left" },
                path.target
            );
            watch.quiet_for = tuning.obstacle_replan_seconds;
            queue_replan(&mut commands, entity, path, false);
        }
    }
}

/// The obstacles among `seen` (those a walk was planned among) that could have bent
/// the walk along `path` (mask points) for a walker of `clearance` pixels: those whose
/// box comes within the bend margin of it. Only these are watched for moving away.
pub(crate) fn bending(
    seen: &[(Entity, Obstacle)],
    path: &[walkmask::Point],
    clearance: f32,
) -> Vec<SeenObstacle> {
    let reach = clearance + BEND_MARGIN_PIXELS;
    seen.iter()
        .filter(|(_, o)| o.near_path(path, reach))
        .copied()
        .map(SeenObstacle::new)
        .collect()
}
