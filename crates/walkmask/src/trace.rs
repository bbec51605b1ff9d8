//! Tracing downhill through a distance field.

use crate::NavGrid;
use crate::fill::UNREACHED;

/// Follows the distances in `dist` (padded, as filled by [`crate::fill`]) from pixel
/// index `from` down to distance 0, appending every pixel index to `out` (both ends
/// included). Each step goes to a neighbour whose distance plus the step cost equals
/// the current distance; among equals it takes the one nearest in a straight line to
/// `toward` (the other end), so paths hug the straight line instead of the walls.
///
/// Returns false (and leaves `out` partial) when `from` was not reached by the fill.
pub(crate) fn trace_downhill(
    grid: &NavGrid,
    dist: &[u32],
    from: usize,
    toward: (f32, f32),
    out: &mut Vec<usize>,
) -> bool {
    let pw = grid.padded_width();
    let mut i = from;
    if dist[i] == UNREACHED {
        return false;
    }
    out.push(i);
    let (tx, ty) = (toward.0 as f64 + 1.0, toward.1 as f64 + 1.0); // padded coordinates
    // Padded coordinates of `i`, carried along by each step's (dx, dy).
    let (mut x, mut y) = ((i % pw) as i64, (i / pw) as i64);
    // Bounded: the distance strictly decreases each step.
    while dist[i] != 0 {
        let d = dist[i];
        let mut best: Option<(usize, i32, i32, f64)> = None;
        grid.for_each_step(i, |n, cost, dx, dy| {
            let nd = dist[n];
            if nd != UNREACHED && nd + cost == d {
                let (nx, ny) = ((x + dx as i64) as f64 + 0.5, (y + dy as i64) as f64 + 0.5);
                let score = (nx - tx).powi(2) + (ny - ty).powi(2);
                if best.is_none_or(|(.., s)| score < s) {
                    best = Some((n, dx, dy, score));
                }
            }
        });
        match best {
            Some((n, dx, dy, _)) => {
                i = n;
                x += dx as i64;
                y += dy as i64;
                out.push(i);
            }
            // Cannot happen for distances written by the fill; stop rather than loop.
            None => return false,
        }
    }
    true
}
