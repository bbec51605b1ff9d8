//! The plugin's headless integration tests, in one test binary (one module a
//! concern; `cargo test --test plugin MODULE::` runs one). Each app is
//! `MinimalPlugins` + `AssetPlugin` rooted at `tests/assets` + the plugin, with the
//! helpers of `tests/common`. The memory test is its own binary: it counts the
//! process's allocations.

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "picking")]
#[path = "../common/picking.rs"]
mod picking;

mod avoidance;
mod chase;
mod crowds;
mod cutscene;
mod demo_rooms;
mod depth;
mod determinism;
mod diagnostics;
mod examples;
mod exits;
mod facing;
mod follow;
mod hotspots;
mod hover;
mod lifecycle;
mod model;
mod obstacles;
mod queries;
mod regions;
mod room_files;
mod rooms_and_walks;
mod saves;
mod scaling;
#[cfg(feature = "sequences")]
mod sequences;
mod steering;
#[cfg(feature = "tilemap")]
mod tilemap;
mod walk_lifecycle;
mod warm;
