//! Snapping points to the nearest walkable or reachable pixel.

use crate::{NavGrid, Point};

/// The pixel nearest to `p` (Euclidean distance from `p` to the pixel centre) whose
/// region label satisfies `accept`, searching rings outward from `p`'s pixel. Ties go
/// to the first pixel found. `None` when no pixel of the mask is accepted.
///
/// Cost grows with the square of the distance to the answer, and is bounded by the
/// size of the mask.
pub fn nearest_pixel(
    grid: &NavGrid,
    p: Point,
    mut accept: impl FnMut(u32) -> bool,
) -> Option<(u32, u32)> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let px = (p.x as f64).clamp(0.0, w as f64 - 0.5);
    let py = (p.y as f64).clamp(0.0, h as f64 - 0.5);
    let (cx, cy) = (px.floor() as i64, py.floor() as i64);
    // Distances are measured from `p` itself: the clamped point only picks the ring
    // centre (measuring from it would favour the wrong pixel when `p` lies in the
    // last half pixel of a row or column, or outside the mask).
    let (qx, qy) = (p.x as f64, p.y as f64);
    let labels = grid.labels();
    let pw = grid.padded_width() as i64;
    let mut best: Option<((u32, u32), f64)> = None;
    let max_ring = w.max(h);
    let mut check = |x: i64, y: i64, best: &mut Option<((u32, u32), f64)>| {
        if x < 0 || y < 0 || x >= w || y >= h {
            return;
        }
        let label = labels[((y + 1) * pw + x + 1) as usize];
        if label == 0 || !accept(label) {
            return;
        }
        let d = (x as f64 + 0.5 - qx).powi(2) + (y as f64 + 0.5 - qy).powi(2);
        if best.is_none_or(|(_, bd)| d < bd) {
            *best = Some(((x as u32, y as u32), d));
        }
    };
    for r in 0..=max_ring {
        // Every pixel on ring r is at least r - 0.5 away from p (from the clamped
        // point, and no nearer to p, which can only lie further out).
        if let Some((_, bd)) = best {
            let lower = (r as f64 - 0.5).max(0.0);
            if lower * lower > bd {
                break;
            }
        }
        if r == 0 {
            check(cx, cy, &mut best);
            continue;
        }
        for x in (cx - r).max(-1)..=(cx + r).min(w) {
            check(x, cy - r, &mut best);
            check(x, cy + r, &mut best);
        }
        for y in (cy - r + 1).max(-1)..=(cy + r - 1).min(h) {
            check(cx - r, y, &mut best);
            check(cx + r, y, &mut best);
        }
    }
    best.map(|(pixel, _)| pixel)
}

/// The walkable pixel nearest to `p` in any region.
pub fn nearest_walkable(grid: &NavGrid, p: Point) -> Option<(u32, u32)> {
    nearest_pixel(grid, p, |_| true)
}

/// The pixel nearest to `p` that a walker in `region` can reach.
pub fn nearest_in_region(grid: &NavGrid, p: Point, region: u32) -> Option<(u32, u32)> {
    nearest_pixel(grid, p, |label| label == region)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, WalkMask};

    #[test]
    fn finds_nearest_by_euclidean_distance() {
        let mask = WalkMask::from_fn(20, 20, |x, y| {
            u8::from(x == 15 && y == 3 || x == 2 && y == 18)
        })
        .unwrap();
        let grid = NavGrid::new(mask, AreaSet::all());
        assert_eq!(
            nearest_walkable(&grid, Point::new(10.5, 5.5)),
            Some((15, 3))
        );
        assert_eq!(
            nearest_walkable(&grid, Point::new(3.5, 14.5)),
            Some((2, 18))
        );
        let empty = NavGrid::new(WalkMask::from_fn(4, 4, |_, _| 0).unwrap(), AreaSet::all());
        assert_eq!(nearest_walkable(&empty, Point::new(1.0, 1.0)), None);
    }
}
