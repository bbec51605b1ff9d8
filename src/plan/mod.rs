//! Planning: what path queries run on and share, on the async compute pool.
//!
//! * [`basis`]: what a plan depends on (room, mask pixels, areas, placement);
//! * [`worker`]: what runs on the pool (queries and warm-ups) and what the tasks
//!   share;
//! * [`grid_cache`]: prepared grids ([`NavGridCache`]);
//! * [`field_cache`]: warm distance fields and fields shared by crowds
//!   ([`WarmFieldCache`]);
//! * `search_threads` (feature `background_searches`): the async compute pool's
//!   threads below the frame's (`background_searches`);
//! * `browser_pause` (on the web): grid and index builds in slices of a few
//!   milliseconds, so that the browser draws frames in between;
//! * `search_worker` (on the web, with [`WalkmaskPlugin::search_worker`](crate::WalkmaskPlugin::search_worker)):
//!   path searches and their subgoal indexes in a Web Worker.
//!
//! The walk lifecycle (`walk`) decides when to plan; this module knows nothing of it.
//!
//! The main thread starts and polls tasks, checks the straight steps that join an
//! answer to where its walker got to, and traces hover answers from warm fields
//! ([`WalkTuning::hover`](crate::WalkTuning::hover) turns those off); it never builds
//! grids, fills or searches (with Bevy's `multi_threaded` feature: without it, Bevy
//! runs pool tasks on the thread that spawns them, see the crate documentation). It
//! does wait for a search whose answer is due under
//! [`AnswerTiming::AfterFrames`](crate::AnswerTiming::AfterFrames); the copy of a
//! mask with blocking regions blocked is made outside this module, in `layers`.

pub(crate) mod basis;
#[cfg(target_arch = "wasm32")]
pub(crate) mod browser_pause;
pub(crate) mod field_cache;
pub(crate) mod grid_cache;
#[cfg(feature = "background_searches")]
pub(crate) mod search_threads;
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) mod search_worker;
pub(crate) mod worker;

/// Where a pool task's work begins. On the web, pool tasks run on the main thread in
/// the same browser task as the frame that spawned them (a microtask at its end); this
/// lets that frame end first, so that a frame and a search are two tasks, not one long
/// one. Elsewhere it returns at once.
pub(crate) async fn after_the_frame() {
    #[cfg(target_arch = "wasm32")]
    browser_pause::next_browser_task().await;
}

pub use field_cache::{FieldCacheStats, WarmFieldCache};
pub use grid_cache::{GridCacheStats, NavGridCache};
#[cfg(feature = "background_searches")]
pub use search_threads::background_searches;
pub use worker::PlannerStatus;
