//! Path queries on small random masks, checked against an independent flood fill,
//! brute-force snapping and an exact segment-legality check.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/walkmask/tests/support/mod.rs"]
mod support;

libfuzzer_sys::fuzz_target!(|data: &[u8]| support::fuzz_checks::check_path_query(data));
