//! Replays the fuzz corpus kept in the repository (`fuzz/corpus/<target>/`) through
//! the same checks the fuzz targets run, so that a normal `cargo test` on stable
//! guards every input the fuzzers found interesting.

mod support;

use support::corpus::replay;
use support::fuzz_checks::{check_decode, check_path_query};

#[test]
fn decode_mask_corpus() {
    replay("decode_mask", check_decode);
}

#[test]
fn path_query_corpus() {
    replay("path_query", check_path_query);
}
