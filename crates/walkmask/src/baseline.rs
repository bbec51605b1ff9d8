//! Baseline planners with the same mask and result types, for tests and benchmarks.
//! Points in pixel units.
//!
//! Both planners answer the same questions as [`Pathfinder::find_path`] with the same
//! endpoint rules ([`resolve_endpoints`]: a blocked start moves to the nearest
//! walkable pixel, a blocked or unreachable destination snaps to the nearest
//! reachable pixel) and the same finishing ([`finish_path`]: collinear runs dropped,
//! exact endpoints, optional beautification). They move between pixels like the core
//! does: the 4 cardinal steps, and the 4 diagonal steps whose two side pixels are
//! both walkable.
//!
//! Unlike [`Pathfinder::find_path`] they do not try the straight line first: every
//! query runs the search, so [`PathStats::visited`] always measures the search
//! (the number of pixels expanded).
//!
//! [`Pathfinder::find_path`]: crate::Pathfinder::find_path
//! [`PathStats::visited`]: crate::PathStats::visited

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use web_time::Instant;

use crate::fill::DIAGONAL;
use crate::query::{PathOptions, PathResult, QueryError, finish_path, resolve_endpoints, result};
use crate::{NavGrid, Point};

/// Marks a pixel the search has not reached.
const NONE: u32 = u32::MAX;

/// Follows parent links from `to` back to `from` and returns the pixels from `from`
/// to `to`.
fn walk_back(grid: &NavGrid, parent: &[u32], from: usize, to: usize) -> Vec<(u32, u32)> {
    let mut pixels = vec![grid.pixel_of(to)];
    let mut i = to;
    while i != from {
        i = parent[i] as usize;
        pixels.push(grid.pixel_of(i));
    }
    pixels.reverse();
    pixels
}

/// Frontier breadth-first search (seed 002) from the start pixel with parent links,
/// stopping when the destination pixel is taken from the frontier.
///
/// The frontier is a first-in first-out queue; each pixel taken from it records
/// itself as the parent of its unvisited neighbours; the path is read back from the
/// destination through the parents. Differences from the seed: moves are
/// 8-neighbour (a diagonal step needs both side pixels walkable) instead of
/// 4-neighbour, so paths have the fewest steps of the core's move set; and a pixel is
/// marked as seen when it enters the frontier instead of when it leaves it, which
/// yields the same parents (the first pixel to reach a neighbour still wins) without
/// duplicate frontier entries.
///
/// Paths have the fewest steps, not the shortest length: a step costs 1 whether it is
/// straight or diagonal. `visited` in the result counts the pixels taken from the
/// frontier (the destination included).
///
/// ```
/// use walkmask::{AreaSet, NavGrid, PathOptions, PathStatus, Point, WalkMask};
/// use walkmask::baseline::frontier_bfs;
/// let mask = WalkMask::from_fn(12, 5, |x, y| if x == 6 && y < 4 { 0 } else { 1 }).unwrap();
/// let grid = NavGrid::new(mask, AreaSet::all());
/// let path = frontier_bfs(&grid, Point::new(1.5, 0.5), Point::new(10.5, 0.5), &PathOptions::default())
///     .unwrap();
/// assert_eq!(path.status, PathStatus::Found);
/// assert_eq!(path.waypoints.last(), Some(&Point::new(10.5, 0.5)));
/// ```
pub fn frontier_bfs(
    grid: &NavGrid,
    start: Point,
    goal: Point,
    options: &PathOptions,
) -> Result<PathResult, QueryError> {
    let started = Instant::now();
    let Some(ends) = resolve_endpoints(grid, start, goal, options)? else {
        return Ok(PathResult::unreachable(0, started.elapsed()));
    };
    let labels = grid.labels();
    let from = grid.index(ends.start_pixel.0, ends.start_pixel.1);
    let to = grid.index(ends.end_pixel.0, ends.end_pixel.1);
    let mut parent = vec![NONE; labels.len()];
    let mut frontier = VecDeque::new();
    parent[from] = from as u32;
    frontier.push_back(from);
    let mut visited = 0;
    let mut reached = false;
    while let Some(i) = frontier.pop_front() {
        visited += 1;
        if i == to {
            reached = true;
            break;
        }
        grid.for_each_step(i, |n, _, _, _| {
            if parent[n] == NONE {
                parent[n] = i as u32;
                frontier.push_back(n);
            }
        });
    }
    if !reached {
        // The endpoints share a region, so this does not happen; answer plainly.
        return Ok(PathResult::unreachable(visited, started.elapsed()));
    }
    let pixels = walk_back(grid, &parent, from, to);
    let waypoints = finish_path(grid, &pixels, ends.start, ends.end, options);
    Ok(result(&ends, waypoints, visited, started))
}

/// An open-list entry of the A* search.
#[derive(Clone, Copy, Debug)]
struct Open {
    f: f64,
    g: f64,
    index: u32,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    /// The greatest entry is the one to expand next: smallest `f`, then largest `g`
    /// (seed 004: among equal totals, the one that travelled furthest), then the
    /// smallest index (so the order is total and runs are reproducible).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(other.index.cmp(&self.index))
    }
}

/// Octile distance between the centres of two pixels (padded indices).
fn octile(pw: usize, a: usize, b: usize) -> f64 {
    let dx = (a % pw).abs_diff(b % pw) as f64;
    let dy = (a / pw).abs_diff(b / pw) as f64;
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi - lo + std::f64::consts::SQRT_2 * lo
}

/// An optimal pixel chain (both ends included) and its octile length.
type PixelPath = (Vec<(u32, u32)>, f64);

/// A* between two padded indices: the optimal pixel chain and its length (if any),
/// and the number of pixels expanded.
fn astar_search(grid: &NavGrid, from: usize, to: usize) -> (Option<PixelPath>, usize) {
    let labels = grid.labels();
    if labels[from] == 0 || labels[to] == 0 {
        return (None, 0);
    }
    let pw = grid.padded_width();
    let mut g = vec![f64::INFINITY; labels.len()];
    let mut parent = vec![NONE; labels.len()];
    let mut closed = vec![false; labels.len()];
    let mut open = BinaryHeap::new();
    g[from] = 0.0;
    parent[from] = from as u32;
    open.push(Open {
        f: octile(pw, from, to),
        g: 0.0,
        index: from as u32,
    });
    let mut expanded = 0;
    while let Some(Open { g: gi, index, .. }) = open.pop() {
        let i = index as usize;
        if closed[i] || gi > g[i] {
            continue; // a stale entry: a shorter way was found after it was pushed
        }
        closed[i] = true;
        expanded += 1;
        if i == to {
            return (Some((walk_back(grid, &parent, from, to), gi)), expanded);
        }
        grid.for_each_step(i, |n, step, _, _| {
            if closed[n] {
                return;
            }
            let cost = if step == DIAGONAL {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let gn = gi + cost;
            if gn < g[n] {
                g[n] = gn;
                parent[n] = i as u32;
                open.push(Open {
                    f: gn + octile(pw, n, to),
                    g: gn,
                    index: n as u32,
                });
            }
        });
    }
    (None, expanded)
}

/// A* on the pixel grid (seed 004): 8-neighbour moves without corner cutting,
/// octile step costs (1 straight, the square root of two diagonally), the octile
/// distance as the heuristic, a binary heap as the open list, and ties on the total
/// broken toward the larger distance travelled.
///
/// The pixel chain is optimal for octile lengths between pixel centres. `visited`
/// in the result counts the pixels expanded (the destination included).
///
/// ```
/// use walkmask::{AreaSet, NavGrid, PathOptions, PathStatus, Point, WalkMask};
/// use walkmask::baseline::astar;
/// let mask = WalkMask::from_fn(12, 5, |x, y| if x == 6 && y < 4 { 0 } else { 1 }).unwrap();
/// let grid = NavGrid::new(mask, AreaSet::all());
/// let path = astar(&grid, Point::new(1.5, 0.5), Point::new(10.5, 0.5), &PathOptions::default())
///     .unwrap();
/// assert_eq!(path.status, PathStatus::Found);
/// assert!(path.waypoints.len() > 2);
/// ```
pub fn astar(
    grid: &NavGrid,
    start: Point,
    goal: Point,
    options: &PathOptions,
) -> Result<PathResult, QueryError> {
    let started = Instant::now();
    let Some(ends) = resolve_endpoints(grid, start, goal, options)? else {
        return Ok(PathResult::unreachable(0, started.elapsed()));
    };
    let from = grid.index(ends.start_pixel.0, ends.start_pixel.1);
    let to = grid.index(ends.end_pixel.0, ends.end_pixel.1);
    let (found, expanded) = astar_search(grid, from, to);
    let Some((pixels, _)) = found else {
        // The endpoints share a region, so this does not happen; answer plainly.
        return Ok(PathResult::unreachable(expanded, started.elapsed()));
    };
    let waypoints = finish_path(grid, &pixels, ends.start, ends.end, options);
    Ok(result(&ends, waypoints, expanded, started))
}

/// The optimal octile pixel path from pixel `from` to pixel `to` (both ends
/// included) and its length between pixel centres (steps of 1 and the square root of
/// two; diagonal steps need both side pixels walkable). `None` when either pixel is
/// outside the mask or blocked, or `to` cannot be reached from `from`.
///
/// This is the yardstick for path quality: no walk along the core's moves between
/// the two pixel centres is shorter.
///
/// ```
/// use walkmask::{AreaSet, NavGrid, WalkMask};
/// use walkmask::baseline::astar_pixels;
/// let grid = NavGrid::new(WalkMask::from_fn(4, 3, |_, _| 1).unwrap(), AreaSet::all());
/// let (pixels, length) = astar_pixels(&grid, (0, 0), (3, 2)).unwrap();
/// assert_eq!((pixels.first(), pixels.last()), (Some(&(0, 0)), Some(&(3, 2))));
/// assert!((length - (1.0 + 2.0 * 2f64.sqrt())).abs() < 1e-9);
/// ```
pub fn astar_pixels(grid: &NavGrid, from: (u32, u32), to: (u32, u32)) -> Option<PixelPath> {
    if !grid.is_walkable(from.0, from.1) || !grid.is_walkable(to.0, to.1) {
        return None;
    }
    let from = grid.index(from.0, from.1);
    let to = grid.index(to.0, to.1);
    astar_search(grid, from, to).0
}

/// The nearest pixel to `p` whose region label satisfies `accept`, found by
/// searching square rings outward from `p`'s pixel (the snapping of earlier
/// versions, kept as the benchmark's reference for [`crate::snap`]). Ties go to the
/// first in row-major order. Its cost grows with the square of the distance to the
/// answer.
pub fn nearest_by_rings(
    grid: &NavGrid,
    p: Point,
    mut accept: impl FnMut(u32) -> bool,
) -> Option<(u32, u32)> {
    crate::snap::nearest_by_rings(grid, p, |x, y| grid.region(x, y).is_some_and(&mut accept))
        .first()
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, PathStatus, WalkMask};

    fn grid(w: u32, h: u32, cells: &[u8]) -> NavGrid {
        NavGrid::new(WalkMask::new(w, h, cells.to_vec()).unwrap(), AreaSet::all())
    }

    #[test]
    fn astar_does_not_cut_corners() {
        // 0 1
        // 1 1 : from (1,0) to (0,1) must go round through (1,1), length 2.
        let g = grid(2, 2, &[0, 1, 1, 1]);
        let (pixels, length) = astar_pixels(&g, (1, 0), (0, 1)).unwrap();
        assert_eq!(pixels, vec![(1, 0), (1, 1), (0, 1)]);
        assert!((length - 2.0).abs() < 1e-12);
        // Two pixels touching only at a corner are not connected.
        let g = grid(2, 2, &[1, 0, 0, 1]);
        assert_eq!(astar_pixels(&g, (0, 0), (1, 1)), None);
        assert_eq!(astar_pixels(&g, (0, 0), (0, 1)), None);
        assert_eq!(astar_pixels(&g, (0, 0), (5, 5)), None);
    }

    #[test]
    fn astar_length_is_octile_optimal_around_a_wall() {
        // A 7 x 5 room with a wall at x = 3 for y < 4: the shortest way from (0,0) to
        // (6,0) goes down to row 4 and back.
        let mut cells = vec![1u8; 35];
        for y in 0..4 {
            cells[y * 7 + 3] = 0;
        }
        let g = grid(7, 5, &cells);
        let (pixels, length) = astar_pixels(&g, (0, 0), (6, 0)).unwrap();
        // (3, 4) can only be entered straight from (2, 4) or (4, 4): the diagonal
        // steps into it would squeeze past the wall's corner. So: (0,0) -> (2,4) is
        // 2 diagonal + 2 straight steps, then 2 straight steps through the gap, then
        // the mirror image up to (6,0).
        let expected = 4.0 * std::f64::consts::SQRT_2 + 6.0;
        assert!((length - expected).abs() < 1e-9, "{length} {pixels:?}");
        for w in pixels.windows(2) {
            assert!(w[0].0.abs_diff(w[1].0) <= 1 && w[0].1.abs_diff(w[1].1) <= 1);
        }
    }

    #[test]
    fn planners_agree_on_endpoints_and_count_expansions() {
        let g = grid(5, 1, &[1, 1, 0, 1, 1]);
        let options = PathOptions::default();
        for plan in [frontier_bfs, astar] {
            // Destination in another region: snapped to the nearest reachable pixel.
            let r = plan(&g, Point::new(0.5, 0.5), Point::new(4.5, 0.5), &options).unwrap();
            assert_eq!(r.status, PathStatus::Snapped);
            assert_eq!(r.waypoints.last(), Some(&Point::new(1.5, 0.5)));
            assert_eq!(r.stats.visited, 2);
            let strict = PathOptions {
                snap_destination: false,
                ..options
            };
            let r = plan(&g, Point::new(0.5, 0.5), Point::new(4.5, 0.5), &strict).unwrap();
            assert_eq!(r.status, PathStatus::Unreachable);
            assert!(
                plan(
                    &g,
                    Point::new(f32::NAN, 0.5),
                    Point::new(1.5, 0.5),
                    &options
                )
                .is_err()
            );
            assert!(plan(&g, Point::new(0.5, 0.5), Point::new(5.0, 0.5), &options).is_err());
        }
    }

    #[test]
    fn bfs_takes_fewest_steps_astar_shortest_length() {
        let g = NavGrid::new(WalkMask::from_fn(20, 20, |_, _| 1).unwrap(), AreaSet::all());
        let options = PathOptions {
            beautify: false,
            taut: false,
            ..PathOptions::default()
        };
        let (a, b) = (Point::new(0.5, 0.5), Point::new(19.5, 9.5));
        let bfs = frontier_bfs(&g, a, b, &options).unwrap();
        let star = astar(&g, a, b, &options).unwrap();
        let optimum = 10.0 + 9.0 * std::f32::consts::SQRT_2;
        assert!((star.length - optimum).abs() < 1e-3, "{}", star.length);
        assert!(bfs.length >= star.length - 1e-3);
        // A* expands far fewer pixels than the breadth-first frontier here.
        assert!(
            star.stats.visited < bfs.stats.visited,
            "{:?} {:?}",
            star.stats,
            bfs.stats
        );
    }
}
