//! Baseline planners with the same mask and result types, for tests and benchmarks.
