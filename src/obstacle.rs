//! Obstacles: characters and props whose footprint walkers keep out of, and the
//! re-plans they cause when they move.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use walkmask::obstacles::{Footprint, Obstacle, Obstacles};

use crate::placement::{Parents, walker_xy};
use crate::plan::job::{PathJob, PlannedOn, queue_replan};
use crate::room::MaskMapping;
use crate::tuning::WalkTuning;
use crate::walker::{WalkPath, Walker};

/// The shape of a [`WalkObstacle`]'s footprint round its position (a character's
/// feet), in world units, axis-aligned with the room's mask.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub enum ObstacleShape {
    /// A rectangle `2 * half_size` across.
    Rect {
        /// Half the width and half the height.
        half_size: Vec2,
    },
    /// A disc.
    Circle {
        /// Its radius.
        radius: f32,
    },
    /// An ellipse (the usual footprint of a character seen at an angle).
    Ellipse {
        /// Semi-axes along x and y.
        radii: Vec2,
    },
}

/// Something walkers keep out of while it is solid: a guard in a doorway, a waiter
/// between tables, a cart. Its footprint lies round the entity's world position (its
/// feet, like a [`Walker`]'s) and follows it as it moves.
///
/// Walkers' paths never enter a solid footprint (widened by the walker's
/// [`radius`](Walker::radius)); the footprint a walker stands in when it asks, and its
/// own (a walker may be an obstacle too), are ignored, as in Adventure Game Studio, so
/// two characters that touch can still walk apart. When an obstacle moves onto a
/// walker's remaining path, or moves away from where it bent the path, the walker
/// re-plans from where it is ([`PathReplanned`](crate::PathReplanned)), at most once
/// every [`OBSTACLE_REPLAN_SECONDS`]; a destination that is now covered is replaced by
/// the nearest reachable point (`snapped`). A click on a solid obstacle walks the
/// players up beside it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkObstacle, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // A guard: a walker others walk round.
///     commands.spawn((
///         Walker::new(120.0),
///         WalkObstacle::ellipse(Vec2::new(24.0, 10.0)),
///         Transform::from_xyz(40.0, -60.0, 1.0),
///     ));
///     // A cart, solid only while it stands.
///     commands.spawn((WalkObstacle::rect(Vec2::new(80.0, 30.0)).with_solid(false), Transform::default()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct WalkObstacle {
    /// The footprint.
    pub shape: ObstacleShape,
    /// Whether walkers keep out of it now (Adventure Game Studio's `Solid`).
    pub solid: bool,
}

impl WalkObstacle {
    /// A solid disc of `radius` world units.
    ///
    /// ```
    /// # use bevy_walkmask::WalkObstacle;
    /// assert!(WalkObstacle::circle(10.0).solid);
    /// ```
    pub fn circle(radius: f32) -> Self {
        Self {
            shape: ObstacleShape::Circle { radius },
            solid: true,
        }
    }

    /// A solid rectangle `size` world units across, centred on the position.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{ObstacleShape, WalkObstacle};
    /// let cart = WalkObstacle::rect(Vec2::new(80.0, 30.0));
    /// assert_eq!(cart.shape, ObstacleShape::Rect { half_size: Vec2::new(40.0, 15.0) });
    /// ```
    pub fn rect(size: Vec2) -> Self {
        Self {
            shape: ObstacleShape::Rect {
                half_size: size * 0.5,
            },
            solid: true,
        }
    }

    /// A solid ellipse with semi-axes `radii` (world units).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkObstacle;
    /// let guard = WalkObstacle::ellipse(Vec2::new(24.0, 10.0));
    /// # let _ = guard;
    /// ```
    pub fn ellipse(radii: Vec2) -> Self {
        Self {
            shape: ObstacleShape::Ellipse { radii },
            solid: true,
        }
    }

    /// Makes it solid or not.
    ///
    /// ```
    /// # use bevy_walkmask::WalkObstacle;
    /// assert!(!WalkObstacle::circle(5.0).with_solid(false).solid);
    /// ```
    pub fn with_solid(mut self, solid: bool) -> Self {
        self.solid = solid;
        self
    }
}

/// An obstacle does not re-plan the same walker more often than once in this many
/// seconds: an obstacle that moves every frame does not re-plan everyone every frame.
pub const OBSTACLE_REPLAN_SECONDS: f32 = 0.25;

/// How far (mask pixels) beyond a walker's clearance an obstacle may be and still
/// count as having bent its path: when it moves away, the walker re-plans.
const BEND_MARGIN_PIXELS: f32 = 2.0;

/// An obstacle whose centre moved less than this (mask pixels) has not moved.
const MOVED_PIXELS: f32 = 0.5;

/// The solid obstacles now, by entity, in world units.
#[derive(Resource, Default, Debug)]
pub(crate) struct ObstacleLayout {
    pub(crate) solid: Vec<(Entity, Vec2, ObstacleShape)>,
    /// Bumped whenever `solid` changes.
    pub(crate) generation: u64,
}

impl ObstacleLayout {
    /// The solid obstacles but `except`'s, in the mask pixels of `mapping`.
    pub(crate) fn in_mask(&self, except: Entity, mapping: &MaskMapping) -> Vec<(Entity, Obstacle)> {
        self.solid
            .iter()
            .filter(|(entity, _, _)| *entity != except)
            .map(|&(entity, at, shape)| (entity, to_mask(at, shape, mapping)))
            .collect()
    }
}

/// A footprint in mask pixels (sizes divided by the pixel size along each axis).
fn to_mask(at: Vec2, shape: ObstacleShape, mapping: &MaskMapping) -> Obstacle {
    let pixel = mapping.pixel_size();
    let footprint = match shape {
        ObstacleShape::Rect { half_size } => Footprint::Rect {
            half_width: half_size.x / pixel.x,
            half_height: half_size.y / pixel.y,
        },
        ObstacleShape::Circle { radius } if pixel.x == pixel.y => Footprint::Circle {
            radius: radius / pixel.x,
        },
        ObstacleShape::Circle { radius } => Footprint::Ellipse {
            radius_x: radius / pixel.x,
            radius_y: radius / pixel.y,
        },
        ObstacleShape::Ellipse { radii } => Footprint::Ellipse {
            radius_x: radii.x / pixel.x,
            radius_y: radii.y / pixel.y,
        },
    };
    Obstacle::new(mapping.world_to_mask(at), footprint)
}

/// Obstacles for walkers of `clearance` pixels on a mask of `mapping`'s size, from
/// `list`, with the entity of each (in the order of the obstacles); footprints that
/// cannot be used (NaN sizes, say) are left out with a warning.
pub(crate) fn rasterise<'a>(
    list: impl IntoIterator<Item = &'a (Entity, Obstacle)>,
    mapping: &MaskMapping,
    clearance: f32,
) -> (Obstacles, Vec<Entity>) {
    let mut obstacles = Obstacles::for_size(mapping.size.x, mapping.size.y, clearance);
    let mut entities = Vec::new();
    for &(entity, obstacle) in list {
        match obstacles.push(obstacle) {
            Ok(()) => entities.push(entity),
            Err(error) => warn_once!("a WalkObstacle is left out: {error}"),
        }
    }
    (obstacles, entities)
}

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

/// Keeps [`ObstacleLayout`] up to date (in [`WalkmaskSystems::Plan`](crate::WalkmaskSystems::Plan), first).
pub(crate) fn gather_obstacles(
    obstacles: Query<(Entity, &WalkObstacle, &Transform, Option<&ChildOf>)>,
    parents: Parents,
    mut layout: ResMut<ObstacleLayout>,
) {
    let mut solid: Vec<(Entity, Vec2, ObstacleShape)> = obstacles
        .iter()
        .filter(|(_, obstacle, _, _)| obstacle.solid)
        .map(|(entity, obstacle, transform, child_of)| {
            (
                entity,
                walker_xy(transform, child_of, &parents),
                obstacle.shape,
            )
        })
        .collect();
    solid.sort_by_key(|(entity, _, _)| *entity);
    if solid != layout.solid {
        layout.solid = solid;
        layout.generation += 1;
    }
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
