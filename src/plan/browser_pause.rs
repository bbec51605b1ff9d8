//! On the web, Bevy runs pool tasks on the main thread, after the frame that spawned
//! them: a grid or index build there would hold the page for as long as it takes.
//! Built through a [`BrowserPause`], it works in slices of a few milliseconds and
//! gives the browser its thread back in between, so frames go on being drawn.

use std::time::Duration;

use bevy::platform::time::Instant;
use wasm_bindgen::prelude::*;

/// Work done between two pauses: half a 60 Hz frame, far under the 50 ms a browser
/// counts as a long task.
const SLICE: Duration = Duration::from_millis(8);

/// Pauses a build once it has worked for [`SLICE`], until a later browser task.
pub(crate) struct BrowserPause {
    since: Instant,
}

impl BrowserPause {
    pub(crate) fn new() -> Self {
        Self {
            since: Instant::now(),
        }
    }
}

impl walkmask::pause::Pause for BrowserPause {
    fn due(&mut self) -> bool {
        self.since.elapsed() >= SLICE
    }

    async fn pause(&mut self) {
        next_browser_task().await;
        self.since = Instant::now();
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, milliseconds: i32) -> JsValue;
}

/// Completes in a later browser task (a zero timeout), after any frame that was due.
pub(crate) async fn next_browser_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        set_timeout(&resolve, 0);
    });
    // A timeout only ever resolves.
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
