//! Tests only: see `tests/single_threaded.rs`. The plugin's lifecycle tests, built
//! against a Bevy without the `multi_threaded` feature when this crate is tested alone.
