//! The CLI's batch reader and line parsers on arbitrary input.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/walkmask_cli/src/coords.rs"]
mod coords;
#[path = "../../crates/walkmask_cli/src/fuzz_checks.rs"]
mod fuzz_checks;
#[allow(dead_code)]
#[path = "../../crates/walkmask_cli/src/lines.rs"]
mod lines;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_batch_input(data));
