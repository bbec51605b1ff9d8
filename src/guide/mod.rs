//! The guide: how to use bevy_walkmask, one chapter per topic.
//!
//! Start with [painting] and [coordinates], then read the chapter for what your
//! game needs. The crate's [front page](crate) lists every feature; the items' own
//! pages hold the details.
//!
//! | chapter | what it covers |
//! |---|---|
//! | [painting] | walk masks and layers as images: decode rules, indexed export, file names, `.meta` files |
//! | [coordinates] | room pixels (y down) and world positions (y up), [`MaskMapping`](crate::MaskMapping) |
//! | [rooms] | areas, regions, hotspots, exits and edges, walk-behinds and baselines, scaling |
//! | [walking] | requests, [`WalkCommandsExt`](crate::WalkCommandsExt), facing, keyboard and stick, hover, questions |
//! | [scripting] | outcomes, [`RequestEnded`](crate::RequestEnded), cutscenes, determinism |
//! | [crowds] | solid characters, clearance, avoidance, crowds, one walker per tile |
//! | [tilemap] | rooms made of bevy_ecs_tilemap layers (feature `tilemap`) |
//! | [web] | the browser build and what changes there |
//! | [performance] | threads, caches and their budgets, diagnostics, tracing, benchmarks |
//! | [core_and_cli] | the engine-agnostic core, untrusted files, the command-line tool |
//! | [faq] | troubleshooting and frequent questions |

#[doc = include_str!("painting.md")]
pub mod painting {}

#[doc = include_str!("coordinates.md")]
pub mod coordinates {}

#[doc = include_str!("rooms.md")]
pub mod rooms {}

#[doc = include_str!("walking.md")]
pub mod walking {}

#[doc = include_str!("scripting.md")]
pub mod scripting {}

#[doc = include_str!("crowds.md")]
pub mod crowds {}

#[doc = include_str!("tilemap.md")]
pub mod tilemap {}

#[doc = include_str!("web.md")]
pub mod web {}

#[doc = include_str!("performance.md")]
pub mod performance {}

#[doc = include_str!("core_and_cli.md")]
pub mod core_and_cli {}

#[doc = include_str!("faq.md")]
pub mod faq {}
