//! Obstacles: characters and props whose footprint walkers keep out of, gathered
//! each frame into the obstacle layout that plans and steering read. The re-plans
//! they cause are the walk lifecycle's (`walk::obstacle_watch`).

use bevy::prelude::*;
use walkmask::obstacles::{Footprint, Obstacle, Obstacles};

use crate::placement::{Parents, walker_xy};
use crate::room::MaskMapping;
pub use crate::tuning::OBSTACLE_REPLAN_SECONDS;

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
/// feet, like a [`Walker`](crate::Walker)'s) and follows it as it moves.
///
/// Walkers' paths never enter a solid footprint (widened by the walker's
/// [`radius`](crate::Walker::radius)); the footprint a walker stands in when it asks, and its
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
