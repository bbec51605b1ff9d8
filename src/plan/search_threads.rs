//! Path searches below the game's own threads.
//!
//! Searches, grid builds and fills run on Bevy's async compute pool. On a machine
//! with as many busy threads as cores (two cores are common among players' laptops
//! and handhelds), the operating system shares a core between a long search and the
//! thread that runs the frame, and a frame that waits for its turn takes one time
//! slice longer (4 ms here). Running the async compute threads at the lowest
//! priority lets the frame's threads go first, and the searches use what is left.

use bevy::app::TaskPoolOptions;

/// Returns `options` with the async compute pool's threads set to the lowest
/// priority of the platform when they start (nice 19 on Linux, the lowest
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
pub fn background_searches(mut options: TaskPoolOptions) -> TaskPoolOptions {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::Arc;
        let earlier = options.async_compute.on_thread_spawn.take();
        options.async_compute.on_thread_spawn = Some(Arc::new(move || {
            if let Some(earlier) = &earlier {
                earlier();
            }
            if let Err(error) =
                thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min)
            {
                bevy::log::warn!(
                    "bevy_walkmask: could not lower the priority of an async compute thread \
                     ({error:?}); path searches share cores with the frame at equal priority"
                );
            }
        }));
    }
    options
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

    /// The calling thread's nice value, from `/proc` (field 19 of its `stat`).
    #[cfg(target_os = "linux")]
    fn nice_of_this_thread() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        after_name
            .split_whitespace()
            .nth(16)
            .unwrap()
            .parse()
            .unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_hook_lowers_the_thread_it_runs_on() {
        let options = background_searches(TaskPoolOptions::default());
        let hook = options.async_compute.on_thread_spawn.clone().unwrap();
        let nice = std::thread::spawn(move || {
            let before = nice_of_this_thread();
            hook();
            (before, nice_of_this_thread())
        })
        .join()
        .unwrap();
        assert_eq!(nice, (nice_of_this_thread(), 19));
    }
}
