//! Replaying a fuzz target's corpus (`fuzz/corpus/<target>/`) through a check. Also
//! compiled into the command-line tool's tests (`#[path]`), whose crate sits beside
//! this one, so the corpus is found from either.

use std::path::PathBuf;

/// Runs `check` on every file of `target`'s corpus; fails when the corpus is missing
/// or empty, or when a file fails its check (panics).
pub fn replay(target: &str, check: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {} is missing: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&bytes));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its check",
            path.display()
        );
    }
    println!("{target}: {} inputs replayed", files.len());
}
