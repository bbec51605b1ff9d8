//! Planning: walk requests become path queries on the async compute pool.
//!
//! * [`job`]: the life of a request (accepted, planned, answered, joined to where
//!   the walker is when the answer lands) and [`AnswerTiming`];
//! * [`worker`]: what runs on the pool (queries and warm-ups) and what the tasks
//!   share;
//! * [`grid_cache`]: prepared grids ([`NavGridCache`]);
//! * [`field_cache`] and [`warm_up`]: warm distance fields for walkers standing still
//!   ([`WarmFieldCache`]);
//! * [`replan`]: walks and plans follow changes to rooms, masks and walkers;
//! * [`commands`]: the walk commands, [`WalkCommandsExt`].
//!
//! The main thread starts and polls tasks, checks the straight steps that join an
//! answer to where its walker got to, and traces hover answers from warm fields
//! ([`WalkTuning::hover`](crate::WalkTuning::hover) turns those off); it never builds
//! grids, fills or searches (with Bevy's `multi_threaded` feature: without it, Bevy
//! runs pool tasks on the thread that spawns them, see the crate documentation).

pub(crate) mod commands;
pub(crate) mod field_cache;
pub(crate) mod grid_cache;
pub(crate) mod job;
pub(crate) mod replan;
pub(crate) mod warm_up;
pub(crate) mod worker;

pub use commands::WalkCommandsExt;
pub use field_cache::{FieldCacheStats, WarmFieldCache};
pub use grid_cache::{GridCacheStats, NavGridCache};
pub use job::AnswerTiming;
pub use worker::PlannerStatus;
