//! Replays the fuzz corpus kept in the repository (`fuzz/corpus/<target>/`) through
//! the same checks the fuzz targets run, so that a normal `cargo test` on stable
//! guards every input the fuzzers found interesting.

mod support;

use std::path::PathBuf;

use support::fuzz_checks::{check_decode, check_path_query};

/// The files of one target's corpus; fails when the corpus is missing or empty.
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {} is missing: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

fn replay(target: &str, check: fn(&[u8])) {
    let files = corpus(target);
    for (path, bytes) in &files {
        let outcome = std::panic::catch_unwind(|| check(bytes));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its check",
            path.display()
        );
    }
    println!("{target}: {} inputs replayed", files.len());
}

#[test]
fn decode_mask_corpus() {
    replay("decode_mask", check_decode);
}

#[test]
fn path_query_corpus() {
    replay("path_query", check_path_query);
}
