//! The walk lifecycle: the one owner of a walker's request, search, path, state and
//! outcomes. The states and transitions are drawn in the [`outcome`](crate::outcome)
//! module's documentation; each file here is one kind of transition.
//!
//! * [`accept`]: requests become the walker's job (or wait for the search under way,
//!   or, for cutscene routes, its walk at once);
//! * [`start`]: jobs become path tasks on the async compute pool;
//! * [`answer`]: finished tasks are joined to where the walker got to and applied;
//! * [`end`]: requests answered unreachable or cancelled, walks stopped, walkers
//!   removed;
//! * [`movement`]: walkers walk their paths and arrive; [`separation`]: walkers
//!   that overlap after moving pushed apart; [`hurry`]: walks skipped to their end or
//!   walked faster;
//! * [`membership`]: the room each walker is in ([`CurrentRoom`]), which every
//!   feature that groups walkers by room reads;
//! * [`saved`]: what a save holds of a walker's request and walk, taken up again
//!   after a load;
//! * [`replan`] and [`obstacle_watch`]: what makes a walk be planned again (areas,
//!   masks, the room's placement, teleports, obstacles); the only places that do;
//! * [`steered`]: the states of walkers steered by `WalkInput`;
//! * [`warm_up`]: standing walkers' fields warmed for their next request;
//! * [`job`] and [`timing`]: the state of a request in flight, and when answers land
//!   ([`AnswerTiming`]); [`stats`]: what has been answered ([`WalkStats`]), counted
//!   as every outcome is sent;
//! * [`commands`]: the walk commands, [`WalkCommandsExt`].
//!
//! Other modules (input, steering, chase) propose through
//! [`WalkRequest`](crate::WalkRequest)s and the functions of [`accept`], [`end`] and
//! [`steered`]; they never write a walker's `WalkState`, `WalkHeading`, `WalkPath` or
//! job themselves.

pub(crate) mod accept;
pub(crate) mod answer;
pub(crate) mod commands;
pub(crate) mod end;
pub(crate) mod hurry;
pub(crate) mod job;
pub(crate) mod membership;
pub(crate) mod movement;
pub(crate) mod obstacle_watch;
pub(crate) mod replan;
pub(crate) mod saved;
pub(crate) mod separation;
pub(crate) mod speed;
pub(crate) mod start;
pub(crate) mod stats;
pub(crate) mod steered;
pub(crate) mod timing;
pub(crate) mod warm_up;

pub use commands::WalkCommandsExt;
pub use hurry::Hurry;
pub use membership::CurrentRoom;
pub use saved::{PlannedRequest, RequestInFlight};
pub use stats::WalkStats;
pub use timing::AnswerTiming;
