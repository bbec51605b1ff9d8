//! Path searches below the game's own threads.
//!
//! Searches, grid builds and fills run on Bevy's async compute pool. On a machine
//! with as many busy threads as cores (two cores are common among players' laptops
//! and handhelds), the operating system shares a core between a long search and the
//! thread that runs the frame, and a frame that waits for its turn takes one time
//! slice longer (4 ms here), and a pool thread woken by the frame (the crowd's
//! avoidance solve) can land beside the main thread instead of on the searching
//! core. Running the async compute threads at the lowest priority lets the frame's
//! threads go first, and the searches use what is left. A game that keeps every core
//! busy all the time starves its searches this way: its walkers wait for their paths
//! (they are never lost), which is why this is the game's choice.

use bevy::app::TaskPoolOptions;

/// Returns `options` with the async compute pool's threads set to the lowest
/// priority of the platform when they start (`SCHED_IDLE` on Linux, the lowest
/// `pthread` priority on macOS, `THREAD_PRIORITY_LOWEST` on Windows), after any
/// start hook `options` already had. Path searches run there, so the frame's own
/// threads (main, render, compute) are never kept waiting by a search.
///
/// Bevy creates its task pools once, in `TaskPoolPlugin`, so this goes where
/// `DefaultPlugins` are added:
///
/// ```no_run
/// use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkmaskPlugin, background_searches};
///
/// App::new().add_plugins((
///     DefaultPlugins.set(TaskPoolPlugin {
///         task_pool_options: background_searches(TaskPoolOptions::default()),
///     }),
///     WalkmaskPlugin::default(),
/// ));
/// ```
///
/// Whatever else the game runs on the async compute pool runs at that priority too.
/// A thread whose priority cannot be changed stays as it was, with a warning in the
/// log. In the browser there are no pool threads, and this changes nothing.
///
/// With [`AnswerTiming::AfterFrames`](crate::AnswerTiming::AfterFrames) the frame
/// waits for a search that is due and has not finished; at the lowest priority that
/// search runs only on a core nothing else wants, so the wait can last as long as the
/// game keeps every core busy. The plugin says so in the log the first time a frame
/// waits for a search on such a thread: for lockstep games and replays keep the
/// default priority.
#[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
pub fn background_searches(mut options: TaskPoolOptions) -> TaskPoolOptions {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::Arc;
        let earlier = options.async_compute.on_thread_spawn.take();
        options.async_compute.on_thread_spawn = Some(Arc::new(move || {
            if let Some(earlier) = &earlier {
                earlier();
            }
            let lowered = lower_this_thread();
            if lowered.is_ok() {
                LOWERED.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            if let Err(error) = lowered {
                bevy::log::warn!(
                    "bevy_walkmask: could not lower the priority of an async compute thread \
                     ({error:?}); path searches share cores with the frame at equal priority"
                );
            }
        }));
    }
    options
}

/// Whether a pool thread runs at the lowest priority (never in the browser, which has
/// no pool threads).
#[cfg(not(target_arch = "wasm32"))]
static LOWERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether some async compute thread was lowered by [`background_searches`].
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn searches_in_background() -> bool {
    LOWERED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Linux and Android: `SCHED_IDLE`, which the scheduler treats as an idle core when it
/// places a woken thread, so a frame's thread woken while a search runs takes that
/// core at once instead of waiting beside it. (Nice 19 is not enough: the searching
/// core still counts as busy, and the woken thread lands beside the main thread.)
#[cfg(any(target_os = "linux", target_os = "android"))]
fn lower_this_thread() -> Result<(), thread_priority::Error> {
    use thread_priority::*;
    set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Min,
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
    )
}

/// Elsewhere: the lowest priority of the platform's thread scheduler.
#[cfg(all(
    not(target_arch = "wasm32"),
    not(any(target_os = "linux", target_os = "android"))
))]
fn lower_this_thread() -> Result<(), thread_priority::Error> {
    thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn an_earlier_start_hook_still_runs() {
        let calls = Arc::new(AtomicUsize::new(0));
        let mut options = TaskPoolOptions::default();
        let counted = calls.clone();
        options.async_compute.on_thread_spawn = Some(Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }));
        let options = background_searches(options);
        let hook = options.async_compute.on_thread_spawn.clone().unwrap();
        std::thread::spawn(move || hook()).join().unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // The other pools are left alone.
        assert!(options.compute.on_thread_spawn.is_none());
        assert!(options.io.on_thread_spawn.is_none());
    }

    /// The calling thread's scheduling policy, from `/proc` (field 41 of its `stat`).
    #[cfg(target_os = "linux")]
    fn policy_of_this_thread() -> u32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        after_name
            .split_whitespace()
            .nth(38)
            .unwrap()
            .parse()
            .unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_hook_lowers_the_thread_it_runs_on() {
        const SCHED_OTHER: u32 = 0;
        const SCHED_IDLE: u32 = 5;
        let options = background_searches(TaskPoolOptions::default());
        let hook = options.async_compute.on_thread_spawn.clone().unwrap();
        let policies = std::thread::spawn(move || {
            let before = policy_of_this_thread();
            hook();
            (before, policy_of_this_thread())
        })
        .join()
        .unwrap();
        assert_eq!(policies, (SCHED_OTHER, SCHED_IDLE));
        assert_eq!(
            policy_of_this_thread(),
            SCHED_OTHER,
            "only the pool's thread changes"
        );
    }
}
