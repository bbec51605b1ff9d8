//! The benchmark's deterministic random numbers: the SplitMix64 generator the
//! synthetic masks are drawn with, so that masks and queries are the same on every
//! machine and every run.

pub use walkmask_demo_assets::synthetic::Rng;
