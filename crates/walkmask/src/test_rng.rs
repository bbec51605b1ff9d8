//! The unit tests' random numbers: one xorshift generator, so that every test's
//! data is the same on every run and machine.

/// The xorshift64 sequence started at `seed` (which must not be 0).
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
