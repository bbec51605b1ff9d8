//! The cost of a step on the pixel grid, shared by every search: the fill, the
//! subgoal index and the grid's move set.

/// Cost of a horizontal or vertical step.
pub const CARDINAL: u32 = 29;
/// Cost of a diagonal step.
pub const DIAGONAL: u32 = 41;

/// Octile estimate of the distance between two pixels `dx` and `dy` apart, in step
/// costs.
#[inline]
pub(crate) fn octile(dx: u32, dy: u32) -> u32 {
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    CARDINAL * hi + (DIAGONAL - CARDINAL) * lo
}
