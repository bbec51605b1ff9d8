//! Taut paths against an exact any-angle oracle on small random masks: the shortest
//! path in the plane that keeps off blocked pixels, found by Dijkstra over the
//! visibility graph of the obstacle corners (each nudged off its corner as the
//! finishing step does), with segments checked by the independent legality check.

mod support;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use walkmask::subgoal::IndexPolicy;
use walkmask::taut::CORNER_OFFSET;
use walkmask::{AreaSet, NavGrid, PathOptions, PathStatus, Pathfinder, Point, WalkMask};

use support::{Rng, check_path_strict, check_segment_strict, length, walkable};

/// A room of `w x h` with `blocks` random rectangles and a sprinkle of single
/// blocked pixels.
fn random_room(w: u32, h: u32, blocks: u32, noise: u32, rng: &mut Rng) -> NavGrid {
    let mut cells = vec![1u8; (w * h) as usize];
    for _ in 0..blocks {
        let (x, y) = (rng.below(w), rng.below(h));
        let (bw, bh) = (1 + rng.below(w / 3), 1 + rng.below(h / 3));
        for yy in y..(y + bh).min(h) {
            for xx in x..(x + bw).min(w) {
                cells[(yy * w + xx) as usize] = 0;
            }
        }
    }
    for _ in 0..noise {
        cells[(rng.below(h) * w + rng.below(w)) as usize] = 0;
    }
    NavGrid::new(WalkMask::new(w, h, cells).unwrap(), AreaSet::all())
}

/// The turning points the oracle may use: every lattice point with exactly one
/// blocked pixel round it (a convex obstacle corner), or two blocked pixels that
/// touch only there, nudged diagonally into each walkable pixel opposite a blocked
/// one.
fn turning_points(grid: &NavGrid) -> Vec<Point> {
    let blocked = |x: i64, y: i64| !walkable(grid, x, y);
    let mut out = Vec::new();
    for y in 0..=grid.height() as i64 {
        for x in 0..=grid.width() as i64 {
            // Pixels round (x, y): NW, NE, SW, SE.
            let round = [(-1, -1), (0, -1), (-1, 0), (0, 0)];
            let state = round.map(|(dx, dy)| blocked(x + dx, y + dy));
            let count = state.iter().filter(|&&b| b).count();
            let diagonal =
                state == [true, false, false, true] || state == [false, true, true, false];
            if count != 1 && !diagonal {
                continue;
            }
            for (k, &(dx, dy)) in round.iter().enumerate() {
                // A walkable pixel whose opposite pixel is blocked.
                if state[k] || !state[3 - k] {
                    continue;
                }
                let (ox, oy) = (
                    if dx < 0 { -1.0 } else { 1.0 },
                    if dy < 0 { -1.0 } else { 1.0 },
                );
                out.push(Point::new(
                    (x as f64 + ox * CORNER_OFFSET) as f32,
                    (y as f64 + oy * CORNER_OFFSET) as f32,
                ));
            }
        }
    }
    out
}

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

/// The shortest legal polyline from `a` to `b` turning only at `points`.
fn oracle(grid: &NavGrid, a: Point, b: Point, points: &[Point]) -> Option<(f64, Vec<Point>)> {
    let mut nodes = vec![a, b];
    nodes.extend_from_slice(points);
    let n = nodes.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut prev = vec![usize::MAX; n];
    let mut heap = BinaryHeap::new();
    dist[0] = 0.0;
    heap.push(Entry(0.0, 0));
    while let Some(Entry(d, i)) = heap.pop() {
        if d > dist[i] {
            continue;
        }
        if i == 1 {
            break;
        }
        for j in 1..n {
            let nd = d + nodes[i].distance(nodes[j]) as f64;
            if nd < dist[j] && check_segment_strict(grid, nodes[i], nodes[j]).is_ok() {
                dist[j] = nd;
                prev[j] = i;
                heap.push(Entry(nd, j));
            }
        }
    }
    if !dist[1].is_finite() {
        return None;
    }
    let mut path = vec![b];
    let mut at = 1;
    while prev[at] != usize::MAX {
        at = prev[at];
        path.push(nodes[at]);
    }
    path.reverse();
    Some((length(&path), path))
}

/// The winding number of the closed polyline `ring` round `p`.
fn winding(ring: &[Point], p: (f64, f64)) -> i32 {
    let mut w = 0;
    for k in 0..ring.len() {
        let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
        let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
        let side = (bx - ax) * (p.1 - ay) - (by - ay) * (p.0 - ax);
        if ay <= p.1 && by > p.1 && side > 0.0 {
            w += 1;
        } else if ay > p.1 && by <= p.1 && side < 0.0 {
            w -= 1;
        }
    }
    w
}

/// Whether two paths with the same ends go round every blocked pixel on the same
/// side: the loop of one and the other reversed winds round no blocked pixel centre.
fn same_corridor(grid: &NavGrid, p: &[Point], q: &[Point]) -> bool {
    let mut ring: Vec<Point> = p.to_vec();
    ring.extend(q.iter().rev().skip(1));
    (0..grid.height() as i64).all(|y| {
        (0..grid.width() as i64)
            .all(|x| walkable(grid, x, y) || winding(&ring, (x as f64 + 0.5, y as f64 + 0.5)) == 0)
    })
}

fn random_walkable(grid: &NavGrid, rng: &mut Rng) -> Option<Point> {
    (0..200).find_map(|_| {
        let (x, y) = (rng.below(grid.width()), rng.below(grid.height()));
        grid.is_walkable(x, y)
            .then(|| Point::new(x as f32 + 0.5, y as f32 + 0.5))
    })
}

#[test]
fn taut_paths_match_the_any_angle_oracle_in_their_corridor() {
    let mut rng = Rng(2024);
    let traced_options = PathOptions {
        beautify: false,
        taut: false,
        ..PathOptions::default()
    };
    let (mut compared, mut same, mut worst) = (0, 0, 1.0f64);
    for case in 0..300 {
        let size = 8 + rng.below(33);
        let grid = random_room(
            size,
            8 + rng.below(33),
            2 + rng.below(8),
            rng.below(12),
            &mut rng,
        );
        let points = turning_points(&grid);
        for _ in 0..3 {
            let (Some(a), Some(b)) = (
                random_walkable(&grid, &mut rng),
                random_walkable(&grid, &mut rng),
            ) else {
                continue;
            };
            let taut = Pathfinder::new().find_path(&grid, a, b).unwrap();
            if taut.status != PathStatus::Found {
                continue;
            }
            check_path_strict(&grid, &taut.waypoints)
                .unwrap_or_else(|e| panic!("case {case}: {e}"));
            assert_eq!((taut.waypoints[0], *taut.waypoints.last().unwrap()), (a, b));
            let taut_len = length(&taut.waypoints);
            let traced = Pathfinder::with_options(traced_options)
                .find_path(&grid, a, b)
                .unwrap();
            let traced_len = length(&traced.waypoints);
            assert!(
                taut_len <= traced_len + 1e-4,
                "case {case}: taut {taut_len} longer than traced {traced_len}"
            );
            let (best, best_path) =
                oracle(&grid, a, b, &points).expect("the oracle reaches it too");
            // The oracle's turning points are the finishing step's, so it is no
            // longer than any taut path in any corridor (up to the nudges).
            assert!(
                best <= taut_len + 0.02,
                "case {case}: oracle {best} > taut {taut_len}"
            );
            compared += 1;
            if same_corridor(&grid, &taut.waypoints, &best_path) {
                same += 1;
                worst = worst.max(taut_len / best.max(1e-9));
                assert!(
                    taut_len <= best * 1.001 + 0.02,
                    "case {case}: taut {taut_len} vs oracle {best} in the same corridor\n\
                     taut {:?}\noracle {:?}",
                    taut.waypoints,
                    best_path
                );
            }
        }
    }
    println!("{compared} paths, {same} in the oracle's corridor, worst ratio there {worst:.5}");
    assert!(
        compared > 500 && same * 10 > compared * 7,
        "{compared} compared, {same} in the corridor"
    );
}

/// A walk and its way back are the same walk reversed, by the fill and by the
/// subgoal index: their lengths differ by rounding only (the bound is 1%).
#[test]
fn paths_there_and_back_have_the_same_length() {
    let mut rng = Rng(77);
    let mut checked = 0;
    for case in 0..300 {
        let grid = random_room(
            8 + rng.below(57),
            8 + rng.below(57),
            2 + rng.below(10),
            rng.below(20),
            &mut rng,
        );
        let indexed = NavGrid::new(grid.mask().clone(), grid.areas());
        indexed.build_index(IndexPolicy::Always);
        let mut pathfinder = Pathfinder::new();
        for _ in 0..3 {
            let (Some(a), Some(b)) = (
                random_walkable(&grid, &mut rng),
                random_walkable(&grid, &mut rng),
            ) else {
                continue;
            };
            for (how, grid) in [("fill", &grid), ("index", &indexed)] {
                let there = pathfinder.find_path(grid, a, b).unwrap();
                let back = pathfinder.find_path(grid, b, a).unwrap();
                assert_eq!(there.status, back.status);
                if there.status != PathStatus::Found {
                    continue;
                }
                let (l1, l2) = (there.length as f64, back.length as f64);
                let gap = (l1 - l2).abs() / l1.max(l2).max(1e-9);
                assert!(
                    gap <= 1e-5,
                    "case {case} ({how}): {l1} there, {l2} back\n{:?}\n{:?}",
                    there.waypoints,
                    back.waypoints
                );
                let mut reversed = back.waypoints.clone();
                reversed.reverse();
                assert_eq!(there.waypoints, reversed, "case {case} ({how})");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} pairs");
}
