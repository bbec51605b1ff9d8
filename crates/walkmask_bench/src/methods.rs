//! The pathfinders under test, each behind the same small interface: pixel
//! coordinates in, reachability, length, waypoint count and pixels visited out.

use std::time::{Duration, Instant};

use grid_pathfinding::PathingGrid;
use grid_util::grid::Grid;
use walkmask::{NavGrid, PathResult, PathStatus};

/// Every method timed by the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// `walkmask::Pathfinder::find_path` on a prepared grid: by the grid's subgoal
    /// index where the planner built one, else by the fill.
    OursCold,
    /// `walkmask::Pathfinder::find_path` with `PathOptions::use_index` off: always
    /// the fill.
    OursFill,
    /// `walkmask::Pathfinder::find_path` without pulling the path taut (the cost and
    /// the length of the taut finishing step, apart).
    OursNotTaut,
    /// `walkmask::DistanceField::path_to` on a field filled from the start beforehand.
    OursWarm,
    /// Seed 000's pseudocode as written (`seed000`).
    Seed000,
    /// Seed 002's frontier breadth-first search (`walkmask::baseline::frontier_bfs`).
    FrontierBfs,
    /// The core's plain A* baseline (`walkmask::baseline::astar`).
    CoreAstar,
    /// `pathfinding::directed::astar::astar`, 8 neighbours, octile, no corner cutting.
    PfAstar,
    /// `pathfinding::directed::bfs::bfs`, 4 neighbours.
    PfBfs,
    /// `grid_pathfinding` jump point search (8 neighbours, corner cutting allowed).
    Jps,
}

impl Method {
    /// All methods, in table order.
    pub const ALL: [Method; 10] = [
        Method::OursCold,
        Method::OursFill,
        Method::OursNotTaut,
        Method::OursWarm,
        Method::Seed000,
        Method::FrontierBfs,
        Method::CoreAstar,
        Method::PfAstar,
        Method::PfBfs,
        Method::Jps,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Method::OursCold => "ours cold",
            Method::OursFill => "ours cold, fill",
            Method::OursNotTaut => "ours cold, not taut",
            Method::OursWarm => "ours warm",
            Method::Seed000 => "seed-000 ref",
            Method::FrontierBfs => "frontier BFS",
            Method::CoreAstar => "walkmask A*",
            Method::PfAstar => "pathfinding A*",
            Method::PfBfs => "pathfinding BFS",
            Method::Jps => "grid_pathfinding JPS",
        }
    }

    /// Key used in the JSON output.
    pub fn key(self) -> &'static str {
        match self {
            Method::OursCold => "ours_cold",
            Method::OursFill => "ours_cold_fill",
            Method::OursNotTaut => "ours_cold_not_taut",
            Method::OursWarm => "ours_warm",
            Method::Seed000 => "seed000",
            Method::FrontierBfs => "frontier_bfs",
            Method::CoreAstar => "walkmask_astar",
            Method::PfAstar => "pathfinding_astar",
            Method::PfBfs => "pathfinding_bfs",
            Method::Jps => "jps",
        }
    }
}

/// What one query returned (timing is kept apart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Whether the method found a path to the goal.
    pub reachable: bool,
    /// Path length in pixels (0 when unreachable).
    pub length: f64,
    /// Points in the returned path, as the method returns them.
    pub waypoints: usize,
    /// Pixels visited (settled, expanded or filled), when the method tells.
    pub visited: Option<usize>,
}

impl Outcome {
    /// The outcome of a `walkmask` result.
    pub fn of_result(r: &PathResult) -> Self {
        Self {
            reachable: r.status == PathStatus::Found,
            length: r.length as f64,
            waypoints: r.waypoints.len(),
            visited: Some(r.stats.visited),
        }
    }

    /// No path.
    pub fn unreachable(visited: Option<usize>) -> Self {
        Self {
            reachable: false,
            length: 0.0,
            waypoints: 0,
            visited,
        }
    }
}

/// Walkability of every pixel of `grid`, row-major, unpadded: the input the peers get.
pub fn walkable_bitmap(grid: &NavGrid) -> Vec<bool> {
    let (w, h) = (grid.width(), grid.height());
    let mut out = Vec::with_capacity(w as usize * h as usize);
    for y in 0..h {
        for x in 0..w {
            out.push(grid.is_walkable(x, y));
        }
    }
    out
}

/// Length of a chain of 8-neighbour cells given as flat indices.
fn chain_length(path: &[usize], width: usize) -> f64 {
    path.windows(2)
        .map(|p| {
            let dx = (p[1] % width).abs_diff(p[0] % width);
            let dy = (p[1] / width).abs_diff(p[0] / width);
            if dx != 0 && dy != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            }
        })
        .sum()
}

/// A cardinal step's cost for the `pathfinding` A*; with [`PF_DIAGONAL`] the ratio is
/// the square root of two to 8 digits (Pell numbers).
const PF_CARDINAL: u64 = 5741;
/// A diagonal step's cost for the `pathfinding` A*.
const PF_DIAGONAL: u64 = 8119;

/// The grid the `pathfinding` crate searches: a flat `Vec<bool>`.
#[derive(Clone, Debug)]
pub struct FlatGrid {
    /// Width in cells.
    pub width: usize,
    /// Height in cells.
    pub height: usize,
    /// Walkable cells, row-major.
    pub walk: Vec<bool>,
}

impl FlatGrid {
    /// `pathfinding` A* from `start` to `goal`: 8 neighbours, a diagonal step only when
    /// both side cells are walkable, octile heuristic.
    pub fn astar(&self, start: (u32, u32), goal: (u32, u32)) -> Outcome {
        let (w, h) = (self.width, self.height);
        let walk = &self.walk;
        let s = start.1 as usize * w + start.0 as usize;
        let g = goal.1 as usize * w + goal.0 as usize;
        let (gx, gy) = (goal.0 as usize, goal.1 as usize);
        let mut expanded = 0usize;
        let found = pathfinding::directed::astar::astar(
            &s,
            |&i| {
                expanded += 1;
                let (x, y) = (i % w, i / w);
                let west = x > 0 && walk[i - 1];
                let east = x + 1 < w && walk[i + 1];
                let north = y > 0 && walk[i - w];
                let south = y + 1 < h && walk[i + w];
                let mut out = [(0usize, 0u64); 8];
                let mut n = 0;
                let mut push = |j: usize, c: u64| {
                    out[n] = (j, c);
                    n += 1;
                };
                if west {
                    push(i - 1, PF_CARDINAL);
                }
                if east {
                    push(i + 1, PF_CARDINAL);
                }
                if north {
                    push(i - w, PF_CARDINAL);
                    if west && walk[i - w - 1] {
                        push(i - w - 1, PF_DIAGONAL);
                    }
                    if east && walk[i - w + 1] {
                        push(i - w + 1, PF_DIAGONAL);
                    }
                }
                if south {
                    push(i + w, PF_CARDINAL);
                    if west && walk[i + w - 1] {
                        push(i + w - 1, PF_DIAGONAL);
                    }
                    if east && walk[i + w + 1] {
                        push(i + w + 1, PF_DIAGONAL);
                    }
                }
                out.into_iter().take(n)
            },
            |&i| {
                let dx = (i % w).abs_diff(gx) as u64;
                let dy = (i / w).abs_diff(gy) as u64;
                let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
                PF_CARDINAL * hi + (PF_DIAGONAL - PF_CARDINAL) * lo
            },
            |&i| i == g,
        );
        match found {
            Some((path, _)) => Outcome {
                reachable: true,
                length: chain_length(&path, w),
                waypoints: path.len(),
                visited: Some(expanded),
            },
            None => Outcome::unreachable(Some(expanded)),
        }
    }

    /// `pathfinding` breadth-first search from `start` to `goal` over the 4 cardinal
    /// neighbours.
    pub fn bfs(&self, start: (u32, u32), goal: (u32, u32)) -> Outcome {
        let (w, h) = (self.width, self.height);
        let walk = &self.walk;
        let s = start.1 as usize * w + start.0 as usize;
        let g = goal.1 as usize * w + goal.0 as usize;
        let mut expanded = 0usize;
        let found = pathfinding::directed::bfs::bfs(
            &s,
            |&i| {
                expanded += 1;
                let (x, y) = (i % w, i / w);
                let mut out = [0usize; 4];
                let mut n = 0;
                for (ok, j) in [
                    (x > 0, i.wrapping_sub(1)),
                    (x + 1 < w, i + 1),
                    (y > 0, i.wrapping_sub(w)),
                    (y + 1 < h, i + w),
                ] {
                    if ok && walk[j] {
                        out[n] = j;
                        n += 1;
                    }
                }
                out.into_iter().take(n)
            },
            |&i| i == g,
        );
        match found {
            Some(path) => Outcome {
                reachable: true,
                length: chain_length(&path, w),
                waypoints: path.len(),
                visited: Some(expanded),
            },
            None => Outcome::unreachable(Some(expanded)),
        }
    }
}

/// Builds `grid_pathfinding`'s grid (blocked cells set one by one, then the connected
/// components), returning it with the build time.
pub fn build_jps(flat: &FlatGrid) -> (PathingGrid, Duration) {
    let started = Instant::now();
    let mut grid = PathingGrid::new(flat.width, flat.height, false);
    for (i, &walk) in flat.walk.iter().enumerate() {
        if !walk {
            grid.set(i % flat.width, i / flat.width, true);
        }
    }
    grid.generate_components();
    (grid, started.elapsed())
}

/// Jump point search from `start` to `goal`; the waypoints are the jump points.
pub fn jps(grid: &PathingGrid, start: (u32, u32), goal: (u32, u32)) -> Outcome {
    let p = |q: (u32, u32)| grid_util::point::Point::new(q.0 as i32, q.1 as i32);
    match grid.get_waypoints_single_goal(p(start), p(goal), false) {
        Some(points) => Outcome {
            reachable: true,
            length: points
                .windows(2)
                .map(|w| ((w[1].x - w[0].x) as f64).hypot((w[1].y - w[0].y) as f64))
                .sum(),
            waypoints: points.len(),
            visited: None,
        },
        None => Outcome::unreachable(None),
    }
}

/// The memory-bandwidth floor of a fill over `pixels` pixels: the median time, over
/// `reps` runs, of one pass writing and one pass reading a buffer of 4 bytes a pixel.
pub fn bandwidth_floor(pixels: usize, reps: usize) -> Duration {
    let mut buf = vec![1u32; pixels];
    let mut times = Vec::with_capacity(reps);
    for rep in 0..reps.max(1) {
        let started = Instant::now();
        buf.fill(rep as u32);
        let sum = buf.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        std::hint::black_box(sum);
        std::hint::black_box(&mut buf);
        times.push(started.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkmask::{AreaSet, WalkMask};

    fn flat(rows: &[&str]) -> FlatGrid {
        FlatGrid {
            width: rows[0].len(),
            height: rows.len(),
            walk: rows
                .iter()
                .flat_map(|r| r.bytes().map(|b| b == b'.'))
                .collect(),
        }
    }

    #[test]
    fn astar_does_not_cut_corners_and_is_octile_optimal() {
        let f = flat(&[".#", "#."]);
        assert!(!f.astar((0, 0), (1, 1)).reachable);
        let open = flat(&["....", "....", "...."]);
        let o = open.astar((0, 0), (3, 2));
        assert!(o.reachable);
        assert!((o.length - (1.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
        assert_eq!(o.waypoints, 4);
    }

    #[test]
    fn bfs_uses_four_neighbours() {
        let open = flat(&["....", "....", "...."]);
        let o = open.bfs((0, 0), (3, 2));
        assert!(o.reachable);
        assert_eq!(o.length, 5.0);
        let f = flat(&[".#.", "#.."]);
        assert!(!f.bfs((0, 0), (2, 1)).reachable);
    }

    #[test]
    fn jps_cuts_corners_where_the_core_does_not() {
        // Documented difference: grid_pathfinding squeezes between two blocked cells
        // that touch at a corner.
        let f = flat(&[".#", "#."]);
        let (grid, _) = build_jps(&f);
        assert!(jps(&grid, (0, 0), (1, 1)).reachable);
        let open = flat(&["....", ".##.", "...."]);
        let (grid, _) = build_jps(&open);
        let o = jps(&grid, (0, 1), (3, 1));
        assert!(o.reachable);
        // Around the block: at least two diagonal steps and a straight one.
        assert!(
            o.length >= 1.0 + 2.0 * std::f64::consts::SQRT_2 - 1e-9,
            "{o:?}"
        );
    }

    #[test]
    fn bitmap_matches_the_grid() {
        let mask = WalkMask::new(3, 2, vec![1, 0, 2, 0, 0, 1]).unwrap();
        let grid = NavGrid::new(mask, AreaSet::only(&[1]));
        assert_eq!(
            walkable_bitmap(&grid),
            vec![true, false, false, false, false, true]
        );
    }

    #[test]
    fn floor_is_positive() {
        assert!(bandwidth_floor(1 << 16, 3) > Duration::ZERO);
    }
}
