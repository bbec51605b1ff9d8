//! Room layers beside the walk mask: images of ids that say what is where in a room
//! rather than where walkers may go.
//!
//! * [`regions`]: a region layer ([`WalkRegions`]) and the [`RegionEntered`] and
//!   [`RegionExited`] events of every walker that crosses one.
//!
//! A layer is loaded like a walk mask (the same loader, decoding rules and hot
//! reload: a `*.walk.png` with a `.meta` saying `rule: Indexed` reads each pixel's
//! grey level as its id), and is the room's walk-mask size or smaller by a whole
//! factor ([`walkmask::layer::LayerScale`]).

pub mod regions;

pub use regions::{InRegion, Region, RegionEntered, RegionExited, WalkRegions};
