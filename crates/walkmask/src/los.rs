//! Line of sight on the pixel grid.
//!
//! A segment is *clear* when every pixel it passes through is walkable and it never
//! squeezes between pixels that touch only at a corner: where the segment passes
//! exactly through a pixel corner, both side pixels of that corner must be walkable.
//! Pixels are half-open (`[x, x+1) x [y, y+1)`), so a point on a pixel edge belongs
//! to the pixel to its right or below.

use crate::{NavGrid, Point};

/// Two crossing parameters closer than this count as one corner crossing.
const CORNER_EPSILON: f64 = 1e-9;

/// Whether the segment from `a` to `b` is clear on `grid` (see the module docs).
/// False when either end is outside the mask or not finite.
///
/// ```
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
/// use walkmask::los::line_of_sight;
/// // Two blocked pixels touching at a corner: the diagonal between them is not clear.
/// let mask = WalkMask::new(2, 2, vec![1, 0, 0, 1]).unwrap();
/// let grid = NavGrid::new(mask, AreaSet::all());
/// assert!(!line_of_sight(&grid, Point::new(0.5, 0.5), Point::new(1.5, 1.5)));
/// assert!(line_of_sight(&grid, Point::new(0.2, 0.5), Point::new(0.8, 0.5)));
/// ```
pub fn line_of_sight(grid: &NavGrid, a: Point, b: Point) -> bool {
    let open = grid.open_cells();
    let run_open = |first: usize, steps: usize, stride: usize| {
        if stride == 1 {
            !open[first..=first + steps].contains(&0)
        } else {
            (0..=steps).all(|k| open[first + k * stride] != 0)
        }
    };
    match grid.obstacle_bits() {
        None => clear_line(grid, a, b, run_open),
        Some(bits) => clear_line(grid, a, b, |first, steps, stride| {
            run_open(first, steps, stride)
                && if stride == 1 {
                    bits.first_set(first, first + steps + 1).is_none()
                } else {
                    (0..=steps).all(|k| !bits.get(first + k * stride))
                }
        }),
    }
}

/// Whether the segment from `a` to `b` is clear on the *floor* of `grid`: the pixels
/// of its mask in its enabled areas, whatever its clearance radius and obstacles (the
/// pixels a walker of radius 0 could cross). A walker too wide for where it stands
/// steps off only along such a line, never through a wall.
///
/// ```
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
/// use walkmask::los::{floor_line_of_sight, line_of_sight};
/// // A wall at x = 10; a grid for walkers of radius 3 closes the floor beside it.
/// let mask = WalkMask::from_fn(21, 9, |x, _| u8::from(x != 10)).unwrap();
/// let grid = NavGrid::with_clearance(mask, AreaSet::all(), 3.0).unwrap();
/// let (a, b) = (Point::new(12.5, 4.5), Point::new(16.5, 4.5));
/// assert!(!line_of_sight(&grid, a, b));
/// assert!(floor_line_of_sight(&grid, a, b));
/// assert!(!floor_line_of_sight(&grid, a, Point::new(4.5, 4.5)));
/// ```
pub fn floor_line_of_sight(grid: &NavGrid, a: Point, b: Point) -> bool {
    let floor = grid.floor_cells();
    clear_line(grid, a, b, |first, steps, stride| {
        (0..=steps).all(|k| floor(first + k * stride))
    })
}

/// The walk of [`line_of_sight`], a run of pixels at a time: the pixels the segment
/// passes through on one row (or, for a segment steeper than a diagonal, one
/// column) are a run, and `run_clear(first, steps, stride)` tells whether the
/// padded cells `first + k * stride` for `k` in `0..=steps` are all clear.
///
/// Where the segment crosses from one row to the next within a rounding error of a
/// pixel corner, both pixels beside the corner are in the runs, so the walk is
/// never less strict than one pixel at a time (which decides such a crossing by
/// comparing rounded parameters).
fn clear_line(
    grid: &NavGrid,
    a: Point,
    b: Point,
    run_clear: impl Fn(usize, usize, usize) -> bool,
) -> bool {
    if !grid.contains(a) || !grid.contains(b) {
        return false;
    }
    let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
    if (bx - ax).abs() >= (by - ay).abs() {
        clear_runs((ax, ay), (bx, by), |y, from, to| {
            run_clear(grid.index(from as u32, y as u32), (to - from) as usize, 1)
        })
    } else {
        // The same walk with rows and columns swapped.
        let pw = grid.padded_width();
        clear_runs((ay, ax), (by, bx), |x, from, to| {
            run_clear(grid.index(x as u32, from as u32), (to - from) as usize, pw)
        })
    }
}

/// [`clear_line`] from `a` to `b` (not negative) in a frame whose runs lie along
/// `x`: `run_clear(line, from, to)` tells whether pixels `from..=to` of line `line`
/// are clear.
fn clear_runs(a: (f64, f64), b: (f64, f64), run_clear: impl Fn(i64, i64, i64) -> bool) -> bool {
    let ((ax, ay), (bx, by)) = (a, b);
    // Not negative: truncation is the floor.
    let (x0, y0) = (ax as i64, ay as i64);
    let (x1, y1) = (bx as i64, by as i64);
    let (x_min, x_max) = (x0.min(x1), x0.max(x1));
    let line_clear = |y: i64, from: i64, to: i64| run_clear(y, from.max(x_min), to.min(x_max));
    if y0 == y1 {
        return line_clear(y0, x_min, x_max);
    }
    let step = if y1 > y0 { 1 } else { -1 };
    let slope = (bx - ax) / (by - ay);
    // Crossings this close to a pixel corner count as passing through it: more than
    // the rounding of any walk along the segment.
    let near = 1e-7 + 4.0 * CORNER_EPSILON * (bx - ax).abs();
    // The pixels the segment enters the current line at.
    let (mut enter_lo, mut enter_hi) = (x0, x0);
    let mut y = y0;
    while y != y1 {
        let boundary = if step > 0 { y + 1 } else { y } as f64;
        // Not negative but for rounding, so truncation is the floor.
        let x = ax + (boundary - ay) * slope;
        let corner = (x + 0.5) as i64;
        let (lo, hi) = if x0 != x1 && (x - corner as f64).abs() <= near {
            (corner - 1, corner)
        } else {
            (x as i64, x as i64)
        };
        if !line_clear(y, enter_lo.min(lo), enter_hi.max(hi)) {
            return false;
        }
        (enter_lo, enter_hi) = (lo, hi);
        y += step;
    }
    line_clear(y1, enter_lo.min(x1), enter_hi.max(x1))
}

/// The last point along the segment from `a` toward `b` that a walker can reach in a
/// straight line from `a` (Adventure Game Studio's `Trace`): `b` itself when the
/// segment is clear, `None` when `a` is not on a walkable pixel.
pub fn last_clear_point(grid: &NavGrid, a: Point, b: Point) -> Option<Point> {
    if !grid.walkable_at(a) {
        return None;
    }
    if grid.contains(b) && line_of_sight(grid, a, b) {
        return Some(b);
    }
    // Binary search on the parameter: clear prefixes are monotone.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let at = |t: f64| {
        Point::new(
            (a.x as f64 + (b.x as f64 - a.x as f64) * t) as f32,
            (a.y as f64 + (b.y as f64 - a.y as f64) * t) as f32,
        )
    };
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        let p = at(mid);
        if grid.contains(p) && line_of_sight(grid, a, p) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(at(lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, WalkMask};
    use proptest::prelude::*;

    fn grid(w: u32, h: u32, cells: &[u8]) -> NavGrid {
        NavGrid::new(WalkMask::new(w, h, cells.to_vec()).unwrap(), AreaSet::all())
    }

    /// The segment walked one pixel at a time (what [`clear_line`] does a row at a
    /// time), with `blocked` telling which padded cells are: the reference.
    fn clear_by_pixels(
        grid: &NavGrid,
        a: Point,
        b: Point,
        blocked: impl Fn(usize) -> bool,
    ) -> bool {
        if !grid.contains(a) || !grid.contains(b) {
            return false;
        }
        let pw = grid.padded_width() as isize;
        let blocked = |i: isize| blocked(i as usize);
        let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
        // Both ends are in the mask, so not negative: truncation is the floor.
        let (x0, y0) = (ax as i64, ay as i64);
        let (x1, y1) = (bx as i64, by as i64);
        let mut index = grid.index(x0 as u32, y0 as u32) as isize;
        if blocked(index) {
            return false;
        }
        let mut steps_x = (x1 - x0).unsigned_abs();
        let mut steps_y = (y1 - y0).unsigned_abs();
        let (dx, dy) = (bx - ax, by - ay);
        let step_x: isize = if x1 > x0 { 1 } else { -1 };
        let step_y: isize = if y1 > y0 { pw } else { -pw };
        // Parameter t in [0, 1] where the segment crosses the next vertical/horizontal edge.
        let (delta_tx, mut next_tx) = if steps_x == 0 {
            (f64::INFINITY, f64::INFINITY)
        } else if dx > 0.0 {
            (1.0 / dx, ((x0 + 1) as f64 - ax) / dx)
        } else {
            (-1.0 / dx, (ax - x0 as f64) / -dx)
        };
        let (delta_ty, mut next_ty) = if steps_y == 0 {
            (f64::INFINITY, f64::INFINITY)
        } else if dy > 0.0 {
            (1.0 / dy, ((y0 + 1) as f64 - ay) / dy)
        } else {
            (-1.0 / dy, (ay - y0 as f64) / -dy)
        };
        while steps_x > 0 || steps_y > 0 {
            let corner = steps_x > 0 && steps_y > 0 && (next_tx - next_ty).abs() <= CORNER_EPSILON;
            if corner {
                // Through a corner: both side pixels must be walkable.
                if blocked(index + step_x) || blocked(index + step_y) {
                    return false;
                }
                index += step_x + step_y;
                next_tx += delta_tx;
                next_ty += delta_ty;
                steps_x -= 1;
                steps_y -= 1;
            } else if steps_y == 0 || (steps_x > 0 && next_tx < next_ty) {
                index += step_x;
                next_tx += delta_tx;
                steps_x -= 1;
            } else {
                index += step_y;
                next_ty += delta_ty;
                steps_y -= 1;
            }
            if blocked(index) {
                return false;
            }
        }
        true
    }

    /// A random mask of `w x h` with about one pixel in `1 / blocked_one_in` blocked.
    fn scattered(w: u32, h: u32, seed: u64, blocked_one_in: u64) -> NavGrid {
        let mut next = crate::test_rng::xorshift(seed | 1);
        let cells = (0..w * h)
            .map(|_| u8::from(!next().is_multiple_of(blocked_one_in)))
            .collect::<Vec<_>>();
        grid(w, h, &cells)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A row at a time gives what a pixel at a time gives: between pixel
        /// centres (which pass exactly through corners on diagonals), between
        /// points anywhere, and between points a corner offset off pixel corners.
        #[test]
        fn a_row_at_a_time_matches_a_pixel_at_a_time(
            seed in any::<u64>(),
            (w, h) in (1u32..40, 1u32..40),
            blocked_one_in in 2u64..12,
            ends in proptest::collection::vec((0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0u8..3), 40),
        ) {
            let plain = scattered(w, h, seed, blocked_one_in);
            // Half the cases see the mask through a few obstacles as well.
            let g = if seed.is_multiple_of(2) {
                let mut obstacles = crate::Obstacles::new(&plain);
                for k in 0..3u64 {
                    let at = |m: u64, size: u32| ((seed >> (8 * k + m)) % u64::from(size)) as f32 + 0.5;
                    let center = Point::new(at(0, w), at(4, h));
                    let footprint = crate::Footprint::Circle { radius: 1.5 };
                    obstacles.push(crate::Obstacle::new(center, footprint)).unwrap();
                }
                plain.with_obstacles(&obstacles)
            } else {
                plain
            };
            for (fx, fy, gx, gy, kind) in ends {
                let place = |f: f32, size: u32| -> f32 {
                    let cell = ((f * size as f32) as u32).min(size - 1) as f32;
                    match kind {
                        0 => cell + 0.5,
                        1 => (f * size as f32).min(size as f32 - 1e-3),
                        _ => cell + (crate::taut::CORNER_OFFSET as f32),
                    }
                };
                let (a, b) = (Point::new(place(fx, w), place(fy, h)), Point::new(place(gx, w), place(gy, h)));
                let reference = clear_by_pixels(&g, a, b, |i| !g.open(i));
                prop_assert_eq!(line_of_sight(&g, a, b), reference, "{:?} -> {:?}", a, b);
            }
        }
    }

    #[test]
    fn blocked_pixel_on_the_way() {
        let g = grid(5, 1, &[1, 1, 0, 1, 1]);
        assert!(!line_of_sight(
            &g,
            Point::new(0.5, 0.5),
            Point::new(4.5, 0.5)
        ));
        assert!(line_of_sight(
            &g,
            Point::new(0.5, 0.5),
            Point::new(1.99, 0.5)
        ));
        assert!(!line_of_sight(
            &g,
            Point::new(0.5, 0.5),
            Point::new(2.0, 0.5)
        ));
        assert!(line_of_sight(
            &g,
            Point::new(4.5, 0.5),
            Point::new(3.0, 0.5)
        ));
    }

    #[test]
    fn corner_squeeze_is_blocked_both_ways() {
        let g = grid(2, 2, &[0, 1, 1, 0]);
        assert!(!line_of_sight(
            &g,
            Point::new(1.5, 0.5),
            Point::new(0.5, 1.5)
        ));
        assert!(!line_of_sight(
            &g,
            Point::new(0.5, 1.5),
            Point::new(1.5, 0.5)
        ));
        let open = grid(2, 2, &[1, 1, 1, 1]);
        assert!(line_of_sight(
            &open,
            Point::new(1.5, 0.5),
            Point::new(0.5, 1.5)
        ));
    }

    #[test]
    fn outside_or_nan_is_not_clear() {
        let g = grid(2, 2, &[1, 1, 1, 1]);
        assert!(!line_of_sight(
            &g,
            Point::new(0.5, 0.5),
            Point::new(2.0, 0.5)
        ));
        assert!(!line_of_sight(
            &g,
            Point::new(f32::NAN, 0.5),
            Point::new(1.0, 0.5)
        ));
    }

    #[test]
    fn trace_stops_before_wall() {
        let g = grid(6, 1, &[1, 1, 1, 0, 1, 1]);
        let p = last_clear_point(&g, Point::new(0.5, 0.5), Point::new(5.5, 0.5)).unwrap();
        assert!(p.x < 3.0 && p.x > 2.9, "{p:?}");
    }
}
