//! walkmask's path searches in a browser's Web Worker: the core built as a wasm module
//! of its own, so that searches, fills and subgoal index builds leave the page's main
//! thread.
//!
//! `web/build.sh` builds it next to the game:
//!
//! ```sh
//! cargo build --profile web -p walkmask_web_worker --target wasm32-unknown-unknown
//! wasm-bindgen --target web --out-name walkmask_worker --out-dir OUT \
//!     target/wasm32-unknown-unknown/web/walkmask_web_worker.wasm
//! cp crates/walkmask_web_worker/walkmask_search_worker.js OUT/
//! ```
//!
//! and the game names the script in
//! `WalkmaskPlugin { search_worker: Some("walkmask_search_worker.js".into()), .. }`.
//! The plugin sends each grid's mask once and then queries, as
//! [`walkmask::remote`] messages; the worker answers them with a
//! [`RemoteSearches`] that keeps the last [`KEEP_GRIDS`] grids. Where the worker
//! cannot start (no workers, the script missing, another version of the messages),
//! the plugin searches on the main thread as before.

use walkmask::remote::{PROTOCOL_VERSION, RemoteSearches, Reply};

/// Grids the worker keeps (each with its subgoal index); loading one more drops the
/// one used longest ago, and the plugin sends it again when it is needed.
pub const KEEP_GRIDS: usize = 8;

/// The worker's searches.
pub fn searches() -> RemoteSearches {
    RemoteSearches::new(KEEP_GRIDS)
}

/// The first message the worker sends: the version of the messages it reads.
pub fn ready_message() -> Vec<u8> {
    Reply::Ready {
        version: PROTOCOL_VERSION,
    }
    .encode()
}

#[cfg(target_arch = "wasm32")]
mod web {
    use std::cell::RefCell;

    use walkmask::remote::RemoteSearches;
    use wasm_bindgen::prelude::*;

    thread_local! {
        static SEARCHES: RefCell<RemoteSearches> = RefCell::new(super::searches());
    }

    /// The first message to send: the version of the messages this worker reads.
    #[wasm_bindgen]
    pub fn ready() -> Vec<u8> {
        super::ready_message()
    }

    /// The reply to a request (`undefined` for a request that has none).
    #[wasm_bindgen]
    pub fn answer(request: &[u8]) -> Option<Vec<u8>> {
        SEARCHES.with_borrow_mut(|searches| searches.answer_bytes(request))
    }
}

#[cfg(test)]
mod tests {
    use walkmask::remote::{Reply, Request};

    #[test]
    fn the_worker_says_which_messages_it_reads_and_answers_them() {
        assert_eq!(
            Reply::decode(&super::ready_message()),
            Ok(Reply::Ready {
                version: walkmask::remote::PROTOCOL_VERSION
            })
        );
        let mut searches = super::searches();
        let reply = searches
            .answer_bytes(&Request::ForgetGrid { grid: 1 }.encode()[..4])
            .expect("refused");
        assert!(matches!(Reply::decode(&reply), Ok(Reply::Refused { .. })));
    }
}
