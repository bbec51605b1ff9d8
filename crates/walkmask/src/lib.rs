//! # walkmask
//!
//! Pixel-accurate click-to-walk pathfinding over walk-mask images, with no engine
//! dependency.
//!
//! A [`WalkMask`] stores one area id per pixel (0 = blocked, 1..=255 = a numbered
//! walkable area). An [`AreaSet`] says which areas are enabled. A [`NavGrid`]
//! prepares a mask and an area set for queries (connected regions, computed once),
//! and a [`Pathfinder`] answers queries with reusable scratch buffers:
//!
//! 1. straight line first: when the segment is clear, the path is its two endpoints;
//! 2. the shortest 8-neighbour path: A* over the grid's subgoal graph when
//!    [`NavGrid::build_index`] has built one ([`subgoal`]), else a distance fill over
//!    the pixel grid from the destination, stopping as soon as the start pixel is
//!    settled ([`fill`]), and a trace downhill from the start ([`trace`]);
//! 3. collinear runs dropped ([`simplify`]), then line-of-sight shortcuts in both
//!    directions ([`smooth`]);
//! 4. the path pulled taut round obstacle corners ([`taut`]).
//!
//! Destinations on walls or in other regions snap to the nearest reachable pixel
//! ([`snap`]); a start on a blocked pixel first moves to the nearest walkable one.
//!
//! ```
//! use walkmask::{AreaSet, NavGrid, Pathfinder, PathStatus, Point, WalkMask};
//!
//! // A 12 x 5 room with a wall in the middle column that has a gap at the bottom.
//! let mask = WalkMask::from_fn(12, 5, |x, y| if x == 6 && y < 4 { 0 } else { 1 }).unwrap();
//! let grid = NavGrid::new(mask, AreaSet::all());
//! let mut pathfinder = Pathfinder::new();
//! let path = pathfinder
//!     .find_path(&grid, Point::new(1.5, 0.5), Point::new(10.5, 0.5))
//!     .unwrap();
//! assert_eq!(path.status, PathStatus::Found);
//! assert_eq!(path.waypoints.first(), Some(&Point::new(1.5, 0.5)));
//! assert_eq!(path.waypoints.last(), Some(&Point::new(10.5, 0.5)));
//! assert!(path.waypoints.len() > 2); // it goes around the wall
//! ```
#![warn(missing_docs)]

#[cfg(feature = "ags")]
pub mod ags;
pub mod areas;
pub mod baseline;
pub mod clearance;
pub mod crowd;
pub mod fill;
pub mod flow;
pub mod geom;
pub mod grid;
pub mod layer;
#[cfg(feature = "room_file")]
pub mod lint;
pub mod los;
pub mod mask;
mod mask_decode;
pub mod obstacles;
pub mod pause;
pub mod query;
pub mod remote;
#[cfg(feature = "room_file")]
pub mod room_file;
pub mod simplify;
pub mod smooth;
pub mod snap;
pub mod steer;
pub mod steps;
pub mod subgoal;
pub mod taut;
#[cfg(test)]
mod test_rng;
pub mod trace;

pub use areas::AreaSet;
pub use fill::{DistanceField, FillScratch};
pub use geom::Point;
pub use grid::NavGrid;
pub use mask::{AreaColor, ColorChannel, DecodeRule, MaskError, MaskLimits, WalkMask};
pub use obstacles::{Footprint, Obstacle, Obstacles};
pub use query::{
    ObstacleDetours, PathOptions, PathResult, PathStats, PathStatus, Pathfinder, QueryError,
};
