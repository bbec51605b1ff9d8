//! Long builds that give their thread back.
//!
//! Building a [`NavGrid`](crate::NavGrid) (areas, clearance, regions, edges) or its
//! subgoal index takes tens of milliseconds on a 1080p mask. On a thread of its own
//! that is nobody's frame; in a browser, where Bevy runs every pool task on the main
//! thread, it is a frame dropped. The `*_pausing` builders
//! ([`NavGrid::with_clearance_pausing`](crate::NavGrid::with_clearance_pausing),
//! [`NavGrid::build_index_pausing`](crate::NavGrid::build_index_pausing)) are the same
//! builds written as futures: between rows (and between groups of subgoals) they ask a
//! [`Pause`] whether to stop, and if so await it. The result is the same, pixel for
//! pixel, whatever the pauses.
//!
//! ```
//! use std::future::Future;
//! use std::pin::pin;
//! use std::task::{Context, Poll, Waker};
//! use walkmask::pause::Pause;
//! use walkmask::{AreaSet, NavGrid, WalkMask};
//!
//! /// Pauses at every chance (a real one would pause once its time slice is used).
//! struct Often(u32);
//! impl Pause for Often {
//!     fn due(&mut self) -> bool {
//!         true
//!     }
//!     async fn pause(&mut self) {
//!         self.0 += 1;
//!         // Give the executor back once: pending now, ready when polled again.
//!         let mut yielded = false;
//!         std::future::poll_fn(|cx| {
//!             if yielded {
//!                 Poll::Ready(())
//!             } else {
//!                 yielded = true;
//!                 cx.waker().wake_by_ref();
//!                 Poll::Pending
//!             }
//!         })
//!         .await
//!     }
//! }
//!
//! let mask = WalkMask::from_fn(64, 48, |x, y| u8::from((x / 8 + y / 8) % 3 != 0)).unwrap();
//! let mut pause = Often(0);
//! let grid = {
//!     let mut build = pin!(NavGrid::with_clearance_pausing(mask.clone(), AreaSet::all(), 1.5, &mut pause));
//!     let mut cx = Context::from_waker(Waker::noop());
//!     loop {
//!         if let Poll::Ready(grid) = build.as_mut().poll(&mut cx) {
//!             break grid.unwrap();
//!         }
//!     }
//! };
//! let at_once = NavGrid::with_clearance(mask, AreaSet::all(), 1.5).unwrap();
//! assert_eq!(grid.region_count(), at_once.region_count());
//! for (x, y) in (0..64).flat_map(|x| (0..48).map(move |y| (x, y))) {
//!     assert_eq!(grid.is_walkable(x, y), at_once.is_walkable(x, y));
//! }
//! assert!(pause.0 > 48);
//! ```

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Where a long build may stop and give its thread back.
///
/// [`due`](Pause::due) is asked often (once a row of the mask, or once a few dozen
/// subgoals) and should be cheap, such as a look at a clock; when it says yes, the
/// build awaits [`pause`](Pause::pause) and goes on when that completes.
pub trait Pause {
    /// Whether the build should stop here.
    fn due(&mut self) -> bool;

    /// Completes when the build may go on (on the web: in a later browser task, so
    /// that frames are drawn in between).
    fn pause(&mut self) -> impl Future<Output = ()>;
}

/// A [`Pause`] that never stops: the `*_pausing` builds run straight through (what the
/// plain builders do).
#[derive(Clone, Copy, Debug, Default)]
pub struct NeverPause;

impl Pause for NeverPause {
    #[inline]
    fn due(&mut self) -> bool {
        false
    }

    async fn pause(&mut self) {}
}

/// Pixels of a pass that does not go row by row (the region labelling) between two
/// looks at a build's [`Pause`].
pub(crate) const PIXELS_BETWEEN_CHECKPOINTS: usize = 1 << 14;

/// Stops here if `pause` says so.
#[inline]
pub(crate) async fn checkpoint(pause: &mut impl Pause) {
    if pause.due() {
        pause.pause().await;
    }
}

/// Runs a build made with [`NeverPause`] to its end: it never waits, so one poll
/// finishes it.
pub(crate) fn run_through<T>(build: impl Future<Output = T>) -> T {
    let mut build = pin!(build);
    match build.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => unreachable!("a build with NeverPause never waits"),
    }
}
