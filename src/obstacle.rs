//! Obstacles: characters and props whose footprint walkers keep out of, gathered
//! each frame into the obstacle layout that plans and steering read. The re-plans
//! they cause are the walk lifecycle's (`walk::obstacle_watch`).

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use walkmask::Point;
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
/// walker's remaining path, or moves away from where it bent the path, within
/// [`WalkTuning::obstacle_lookahead_seconds`](crate::WalkTuning::obstacle_lookahead_seconds)
/// of walking ahead, the walker re-plans from where it is
/// ([`PathReplanned`](crate::PathReplanned)), at most once every
/// [`OBSTACLE_REPLAN_SECONDS`]; a destination that is now covered is replaced by
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
    Obstacle::new(
        mapping.world_to_mask(at),
        mask_footprint(shape, mapping.pixel_size()),
    )
}

/// `shape` in mask pixels of `pixel` world units along each axis.
fn mask_footprint(shape: ObstacleShape, pixel: Vec2) -> Footprint {
    match shape {
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
    }
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

/// Whether a walk along `path` (mask points) passes over a pixel of one of
/// `obstacles` widened by `clearance` (those that block pixel `except`, where the
/// walker stands, aside). Only the obstacles whose box comes near the walk are
/// tested, row by row along the walk.
pub(crate) fn crosses_obstacles(
    obstacles: &[(Entity, Obstacle)],
    path: &[Point],
    mapping: &MaskMapping,
    clearance: f32,
    except: Option<(u32, u32)>,
) -> bool {
    obstacles.iter().any(|(_, o)| {
        o.near_path(path, clearance)
            && o.blocks_walk(path, mapping.size.x, mapping.size.y, clearance, except)
    })
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

/// Side of a bucket of [`MaskObstacles`], mask pixels.
const BUCKET_PIXELS: f32 = 64.0;

/// The solid obstacles in one room's mask pixels (sorted by entity), with buckets of
/// a coarse grid over the mask so that those near a segment are found without
/// testing every one: each obstacle is listed in the buckets its box overlaps.
#[derive(Debug)]
pub(crate) struct MaskObstacles {
    /// The mapping the obstacles were converted with.
    pub(crate) mapping: MaskMapping,
    /// Obstacles by entity, in mask pixels.
    pub(crate) list: Vec<(Entity, Obstacle)>,
    columns: i32,
    rows: i32,
    /// Bucket `i`'s obstacles are `members[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    members: Vec<u32>,
}

impl MaskObstacles {
    /// `layout`'s obstacles in the mask pixels of `mapping`.
    pub(crate) fn new(layout: &ObstacleLayout, mapping: &MaskMapping) -> Self {
        let (to_mask_space, pixel) = (mapping.mask_to_world.inverse(), mapping.pixel_size());
        let list: Vec<(Entity, Obstacle)> = layout
            .solid
            .iter()
            .map(|&(entity, at, shape)| {
                let centre = to_mask_space.transform_point2(at);
                let footprint = mask_footprint(shape, pixel);
                (
                    entity,
                    Obstacle::new(Point::new(centre.x, centre.y), footprint),
                )
            })
            .collect();
        let columns = (mapping.size.x as f32 / BUCKET_PIXELS).ceil().max(1.0) as i32;
        let rows = (mapping.size.y as f32 / BUCKET_PIXELS).ceil().max(1.0) as i32;
        let mut buckets = Self {
            mapping: *mapping,
            list: Vec::new(),
            columns,
            rows,
            starts: Vec::new(),
            members: Vec::new(),
        };
        // Count, then place (a compressed table: no allocation per bucket).
        let spans: Vec<Option<[i32; 4]>> = list
            .iter()
            .map(|(_, o)| {
                let (hx, hy) = o.footprint.half_extent();
                let (hx, hy) = (hx as f32, hy as f32);
                buckets.span(
                    o.center.x - hx,
                    o.center.y - hy,
                    o.center.x + hx,
                    o.center.y + hy,
                )
            })
            .collect();
        let mut counts = vec![0u32; (columns * rows) as usize + 1];
        for [x0, y0, x1, y1] in spans.iter().flatten() {
            for y in *y0..=*y1 {
                for x in *x0..=*x1 {
                    counts[(y * columns + x) as usize + 1] += 1;
                }
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut members = vec![0u32; *counts.last().unwrap_or(&0) as usize];
        let mut next = counts.clone();
        for (i, span) in spans.iter().enumerate() {
            let Some([x0, y0, x1, y1]) = *span else {
                continue;
            };
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let bucket = (y * columns + x) as usize;
                    members[next[bucket] as usize] = i as u32;
                    next[bucket] += 1;
                }
            }
        }
        buckets.list = list;
        buckets.starts = counts;
        buckets.members = members;
        buckets
    }

    /// The buckets (first and last column and row, clamped to the grid) that the box
    /// `(x0, y0)`-`(x1, y1)` overlaps; `None` when a bound is not a number.
    fn span(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> Option<[i32; 4]> {
        if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite()) {
            return None;
        }
        let cell =
            |v: f32, n: i32| ((v / BUCKET_PIXELS).floor() as i64).clamp(0, n as i64 - 1) as i32;
        Some([
            cell(x0, self.columns),
            cell(y0, self.rows),
            cell(x1, self.columns),
            cell(y1, self.rows),
        ])
    }

    /// The obstacle of `entity`, if solid.
    pub(crate) fn get(&self, entity: Entity) -> Option<&Obstacle> {
        self.list
            .binary_search_by_key(&entity, |(e, _)| *e)
            .ok()
            .map(|i| &self.list[i].1)
    }

    /// Adds to `out` the index (in `list`) of every obstacle whose box comes within
    /// `reach` pixels of a segment of `path` (see [`Obstacle::near_segment`]), each
    /// once, in order.
    pub(crate) fn near_path(&self, path: &[Point], reach: f32, out: &mut Vec<usize>) {
        let start = out.len();
        // A single point is a segment of no length.
        let point;
        let path = match path {
            [p] => {
                point = [*p, *p];
                &point[..]
            }
            _ => path,
        };
        // Boxes grow by what `near_segment` grows them by.
        let grow = reach + 2.5;
        for pair in path.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let before = out.len();
            self.candidates(a, b, grow, out);
            let mut kept = before;
            for k in before..out.len() {
                let i = out[k];
                if self.list[i].1.near_segment(a, b, reach) {
                    out[kept] = i;
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
        sort_and_dedup_from(out, start);
    }

    /// Adds to `out` the obstacles listed in the buckets that the segment `a b`,
    /// widened by `grow`, passes over (row by row of buckets).
    fn candidates(&self, a: Point, b: Point, grow: f32, out: &mut Vec<usize>) {
        let Some([_, row0, _, row1]) = self.span(
            a.x.min(b.x) - grow,
            a.y.min(b.y) - grow,
            a.x.max(b.x) + grow,
            a.y.max(b.y) + grow,
        ) else {
            return;
        };
        let before = out.len();
        for row in row0..=row1 {
            // The segment's x extent within this row of buckets (grown).
            let (band0, band1) = (
                row as f32 * BUCKET_PIXELS - grow,
                (row + 1) as f32 * BUCKET_PIXELS + grow,
            );
            let (t0, t1) = if a.y == b.y {
                (0.0, 1.0)
            } else {
                let (ta, tb) = ((band0 - a.y) / (b.y - a.y), (band1 - a.y) / (b.y - a.y));
                (ta.min(tb).max(0.0), ta.max(tb).min(1.0))
            };
            let (xa, xb) = (a.x + (b.x - a.x) * t0, a.x + (b.x - a.x) * t1);
            let Some([col0, _, col1, _]) =
                self.span(xa.min(xb) - grow, band0, xa.max(xb) + grow, band0)
            else {
                continue;
            };
            for column in col0..=col1 {
                let bucket = (row * self.columns + column) as usize;
                let (from, to) = (self.starts[bucket], self.starts[bucket + 1]);
                out.extend(
                    self.members[from as usize..to as usize]
                        .iter()
                        .map(|&m| m as usize),
                );
            }
        }
        // A long segment lists an obstacle once per bucket it shares with it.
        sort_and_dedup_from(out, before);
    }
}

/// Sorts `out[start..]` and keeps one of each value there.
fn sort_and_dedup_from(out: &mut Vec<usize>, start: usize) {
    out[start..].sort_unstable();
    let mut kept = start;
    for k in start..out.len() {
        if k == start || out[k] != out[kept - 1] {
            out[kept] = out[k];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// The solid obstacles per room in mask pixels, rebuilt when the layout changes: one
/// conversion per obstacle and room a frame at most, shared by every walker.
#[derive(Debug, Default)]
pub(crate) struct MaskObstacleCache {
    generation: u64,
    rooms: HashMap<Entity, MaskObstacles>,
}

impl MaskObstacleCache {
    /// `layout`'s obstacles in `room`'s mask pixels (under `mapping`).
    pub(crate) fn room(
        &mut self,
        layout: &ObstacleLayout,
        room: Entity,
        mapping: &MaskMapping,
    ) -> &MaskObstacles {
        if self.generation != layout.generation {
            self.rooms.clear();
            self.generation = layout.generation;
        }
        let entry = self
            .rooms
            .entry(room)
            .or_insert_with(|| MaskObstacles::new(layout, mapping));
        if entry.mapping != *mapping {
            *entry = MaskObstacles::new(layout, mapping);
        }
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A room of 400 x 200 pixels at scale 1, centred on the origin, with a guard at
    /// each mask point in `at`.
    fn room_with_guards(at: &[(f32, f32)]) -> MaskObstacles {
        let mapping = MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(400, 200));
        let layout = ObstacleLayout {
            solid: at
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| {
                    let world = mapping.mask_to_world(Point::new(x, y));
                    (
                        Entity::from_raw_u32(i as u32 + 1).unwrap(),
                        world,
                        ObstacleShape::Circle { radius: 5.0 },
                    )
                })
                .collect(),
            generation: 1,
        };
        MaskObstacles::new(&layout, &mapping)
    }

    /// Every obstacle near any segment of a path is found once, however many
    /// segments and buckets the path crosses; those far from it are not.
    #[test]
    fn near_path_finds_the_obstacles_of_every_segment() {
        // Near the first segment only, near the second only, near both, far away.
        let obstacles =
            room_with_guards(&[(105.0, 60.0), (295.0, 140.0), (200.0, 100.0), (20.0, 180.0)]);
        let path = [
            Point::new(10.0, 20.0),
            Point::new(200.0, 100.0),
            Point::new(390.0, 180.0),
        ];
        let mut near = Vec::new();
        obstacles.near_path(&path, 2.0, &mut near);
        assert_eq!(near, vec![0, 1, 2]);
        // A single point is a segment of no length.
        near.clear();
        obstacles.near_path(&[Point::new(22.0, 178.0)], 2.0, &mut near);
        assert_eq!(near, vec![3]);
    }
}
