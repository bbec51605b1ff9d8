//! Every decoder entry point under every rule, and the Moving AI parser: no panic
//! (caught or not), and any mask within its limits.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/walkmask/tests/support/mod.rs"]
mod support;

libfuzzer_sys::fuzz_target!(|data: &[u8]| support::fuzz_checks::check_decode(data));
