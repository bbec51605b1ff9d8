//! Path length against the any-angle optimum: the shortest path in the plane that
//! keeps off blocked pixels and never squeezes between two that touch at a corner.
//!
//! The optimum turns only at convex obstacle corners, so it is the shortest path over
//! the visibility graph of those corners plus the two ends. Each corner is nudged
//! `walkmask::taut::CORNER_OFFSET` off the obstacle, as the taut step places its
//! turning points, and segments are checked with the library's own line of sight; the
//! result is the best walk the product's rules allow, within a few thousandths of a
//! pixel per turn of the infimum. The search is A* with the straight-line distance as
//! the estimate, over the corners inside the ellipse that a shorter walk than ours
//! must stay in; from each corner only segments tangent to its obstacle are tried (a
//! shortest path wraps every corner it turns at), and the line of sight is tested
//! only for segments that would improve a distance.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Instant;

use walkmask::los::line_of_sight;
use walkmask::taut::CORNER_OFFSET;
use walkmask::{NavGrid, Pathfinder, Point};

use crate::masks;
use crate::report::geomean;

/// The turning points of one grid.
pub struct Corners {
    /// Nudged corner positions.
    points: Vec<Point>,
    /// For each, the direction (±1, ±1) from its lattice point to the blocked pixel it
    /// wraps.
    blocked: Vec<(i8, i8)>,
}

impl Corners {
    /// Every lattice point with exactly one blocked pixel round it (a convex obstacle
    /// corner), or two that touch only there, nudged diagonally into each walkable
    /// pixel opposite a blocked one (outside the mask counts as blocked).
    pub fn new(grid: &NavGrid) -> Self {
        let blocked = |x: i64, y: i64| {
            x < 0
                || y < 0
                || x >= grid.width() as i64
                || y >= grid.height() as i64
                || !grid.is_walkable(x as u32, y as u32)
        };
        let round = [(-1i64, -1i64), (0, -1), (-1, 0), (0, 0)];
        let (mut points, mut dirs) = (Vec::new(), Vec::new());
        for y in 0..=grid.height() as i64 {
            for x in 0..=grid.width() as i64 {
                let state = round.map(|(dx, dy)| blocked(x + dx, y + dy));
                let count = state.iter().filter(|&&b| b).count();
                let diagonal =
                    state == [true, false, false, true] || state == [false, true, true, false];
                if count != 1 && !diagonal {
                    continue;
                }
                for (k, &(dx, dy)) in round.iter().enumerate() {
                    if state[k] || !state[3 - k] {
                        continue;
                    }
                    let (ox, oy) = (
                        if dx < 0 { -1.0 } else { 1.0 },
                        if dy < 0 { -1.0 } else { 1.0 },
                    );
                    points.push(Point::new(
                        (x as f64 + ox * CORNER_OFFSET) as f32,
                        (y as f64 + oy * CORNER_OFFSET) as f32,
                    ));
                    dirs.push((-ox as i8, -oy as i8));
                }
            }
        }
        Self {
            points,
            blocked: dirs,
        }
    }

    /// Number of turning points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether a segment along `d` through corner `k` stays outside its blocked
    /// pixel near the corner (neither `d` nor `-d` points into that quadrant).
    fn tangent(&self, k: usize, d: (f64, f64)) -> bool {
        let (bx, by) = self.blocked[k];
        let (sx, sy) = (d.0 * bx as f64, d.1 * by as f64);
        !((sx > 0.0 && sy > 0.0) || (sx < 0.0 && sy < 0.0))
    }

    /// The length of the shortest legal polyline from `a` to `b` turning only at the
    /// corners, given a legal walk of length `upper` between them (ours): only
    /// corners inside the ellipse of points whose distances to `a` and `b` add up to
    /// at most `upper` (plus a little slack) can be on a walk as short, so only
    /// those are searched. `None`
    /// when no walk is found or the search expands more than `max_expanded` nodes.
    pub fn shortest(
        &self,
        grid: &NavGrid,
        a: Point,
        b: Point,
        upper: f64,
        max_expanded: usize,
    ) -> Option<f64> {
        let dist = |p: Point, q: Point| (p.x as f64 - q.x as f64).hypot(p.y as f64 - q.y as f64);
        // A little slack: our turning points may sit a few thousandths of a pixel from
        // the oracle's.
        let bound = upper * (1.0 + 1e-4) + 0.05;
        // Candidates, then a and b.
        let mut nodes: Vec<usize> = (0..self.points.len())
            .filter(|&k| dist(a, self.points[k]) + dist(self.points[k], b) <= bound)
            .collect();
        let m = nodes.len();
        nodes.extend([usize::MAX, usize::MAX]);
        let point = |i: usize| match i.cmp(&m) {
            Ordering::Less => self.points[nodes[i]],
            Ordering::Equal => a,
            Ordering::Greater => b,
        };
        let mut g = vec![f64::INFINITY; m + 2];
        let mut closed = vec![false; m + 2];
        let mut heap = BinaryHeap::new();
        g[m] = 0.0;
        heap.push(Entry(dist(a, b), m));
        let mut expanded = 0;
        while let Some(Entry(_, u)) = heap.pop() {
            if closed[u] {
                continue;
            }
            closed[u] = true;
            if u == m + 1 {
                return Some(g[u]);
            }
            expanded += 1;
            if expanded > max_expanded {
                return None;
            }
            let p = point(u);
            for v in (0..m).chain(std::iter::once(m + 1)) {
                if closed[v] {
                    continue;
                }
                let q = point(v);
                let d = (q.x as f64 - p.x as f64, q.y as f64 - p.y as f64);
                if (u < m && !self.tangent(nodes[u], d)) || (v < m && !self.tangent(nodes[v], d)) {
                    continue;
                }
                let nd = g[u] + dist(p, q);
                if nd < g[v] && nd + dist(q, b) <= bound && line_of_sight(grid, p, q) {
                    g[v] = nd;
                    heap.push(Entry(nd + dist(q, b), v));
                }
            }
        }
        None
    }
}

/// A heap entry: estimated total, node (smallest total first).
#[derive(PartialEq)]
struct Entry(f64, usize);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// One map's measurement.
struct MapRow {
    name: String,
    large: bool,
    corners: usize,
    ratios: Vec<f64>,
    skipped: usize,
}

/// Measures ours against the any-angle optimum on `queries` scenarios of each Moving
/// AI map and prints a table per map and per class.
pub fn run(quick: bool) {
    let queries = if quick { 3 } else { 12 };
    let max_expanded = if quick { 2_000 } else { 20_000 };
    let Some(data) = masks::data_dir() else {
        println!("\nAny-angle optimum: WALKMASK_DATA is not a folder");
        return;
    };
    let started = Instant::now();
    let mut rows = Vec::new();
    for m in masks::movingai_maps(&data) {
        let name = m
            .map
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let Ok(mask) = masks::load_movingai(&m.map) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&m.scen) else {
            continue;
        };
        let Ok(scenarios) = masks::parse_scenarios(&text) else {
            continue;
        };
        let large = mask.width() as u64 * mask.height() as u64 >= 1_000_000;
        let grid = masks::grid_of(&mask);
        grid.build_index(walkmask::subgoal::IndexPolicy::WhenItPays);
        let corners = Corners::new(&grid);
        let mut pathfinder = Pathfinder::new();
        let (mut ratios, mut skipped) = (Vec::new(), 0);
        for q in masks::scenario_queries(&grid, &scenarios, queries) {
            let (a, b) = (
                Point::pixel_center(q.start.0, q.start.1),
                Point::pixel_center(q.goal.0, q.goal.1),
            );
            let Ok(ours) = pathfinder.find_path(&grid, a, b) else {
                continue;
            };
            if !ours.is_walkable() {
                continue;
            }
            let length = ours.length as f64;
            match corners.shortest(&grid, a, b, length, max_expanded) {
                Some(best) if best > 0.0 => ratios.push(length / best),
                Some(_) => {}
                None => skipped += 1,
            }
        }
        rows.push(MapRow {
            name,
            large,
            corners: corners.len(),
            ratios,
            skipped,
        });
    }
    println!(
        "\nPath length / any-angle optimum ({queries} scenarios per Moving AI map, evenly spread over each file; the optimum by A* over the corners' visibility graph, at most {max_expanded} expansions a query; {:.0} s):",
        started.elapsed().as_secs_f64()
    );
    println!(
        "| map | class | corners | queries | mean | max | not measured |\n|---|---|---|---|---|---|---|"
    );
    for r in &rows {
        let mean = r.ratios.iter().sum::<f64>() / r.ratios.len().max(1) as f64;
        let max = r.ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "| {} | {} | {} | {} | {:.4} | {:.4} | {} |",
            r.name,
            if r.large { "large" } else { "small" },
            r.corners,
            r.ratios.len(),
            mean,
            max,
            r.skipped
        );
    }
    for (label, large) in [("large", true), ("small", false)] {
        let all: Vec<f64> = rows
            .iter()
            .filter(|r| r.large == large)
            .flat_map(|r| r.ratios.iter().copied())
            .collect();
        let skipped: usize = rows
            .iter()
            .filter(|r| r.large == large)
            .map(|r| r.skipped)
            .sum();
        println!(
            "   {label} maps: {} queries, mean {:.4}, geometric mean {:.4}, max {:.4}, {} not measured",
            all.len(),
            all.iter().sum::<f64>() / all.len().max(1) as f64,
            geomean(&all).unwrap_or(f64::NAN),
            all.iter().copied().fold(0.0, f64::max),
            skipped
        );
    }
}
