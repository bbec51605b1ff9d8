//! Pulling a path taut: the shortest path in the plane that goes round the same
//! obstacles on the same sides, turning only at obstacle corners.
//!
//! The path is a rubber band. For each corner `v` between its neighbours `a` and
//! `b` whose straight line `a -> b` is not clear, the band from `a` to `b` wraps
//! round whatever blocks the triangle `a, v, b`: the shortest way from `a` to `b`
//! that keeps those obstacles on the same side as `v` is the convex hull of `a`, `b`
//! and the obstacle corners in the triangle, on `v`'s side. `v` is replaced by the
//! hull's corners, nudged [`CORNER_OFFSET`] off the obstacle into free space so the
//! pixels they lie in are walkable. Passes repeat until nothing shortens. Every new
//! segment is checked with [`line_of_sight`], and a replacement that is not shorter
//! is not made, so the path stays legal and never grows.
//!
//! Only obstacle corners matter, and every obstacle corner is a corner of a walkable
//! pixel with a blocked side neighbour: the grid's edge index lists those pixels by
//! row, and only the first and last corner on each row line can be on the hull, so
//! a triangle costs a few binary searches per row, not its area. Triangles are
//! searched only within `REACH` of their corner, which bounds a step's cost on long
//! winding corridors.

use crate::los::line_of_sight;
use crate::{NavGrid, Point};

/// How far a turning point sits off the obstacle corner it wraps (in pixels, along
/// each axis): 1/256 of a pixel, exact in `f32` for coordinates up to 65536.
pub const CORNER_OFFSET: f64 = 1.0 / 256.0;

/// At most this many passes over the path.
const MAX_PASSES: usize = 32;

/// Obstacles of at most this many pixels are tried on both sides.
const SMALL_OBSTACLE: usize = 64;

/// At most this many rounds of trying the other side of small obstacles.
const MAX_FLIP_ROUNDS: usize = 4;

/// Paths with more turning points than this (long walks down winding corridors,
/// where each flood to size an obstacle would cost more than the pull itself) are
/// not tried on the other side of small obstacles.
const MAX_FLIP_TURNS: usize = 64;

/// A point in `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct P {
    x: f64,
    y: f64,
}

impl P {
    fn of(p: Point) -> Self {
        Self {
            x: p.x as f64,
            y: p.y as f64,
        }
    }

    fn point(self) -> Point {
        Point::new(self.x as f32, self.y as f32)
    }

    fn sub(self, o: P) -> P {
        P {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    fn len(self) -> f64 {
        // Coordinates are pixels: `hypot`'s care for overflow is not needed.
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

/// The distance between two points, in `f64`.
fn distance(p: Point, q: Point) -> f64 {
    P::of(q).sub(P::of(p)).len()
}

/// `(b - a) x (c - a)`: positive when `c` is left of `a -> b` (y down: clockwise).
fn cross(a: P, b: P, c: P) -> f64 {
    let (u, v) = (b.sub(a), c.sub(a));
    u.x * v.y - u.y * v.x
}

/// Pulls `path` taut in place (see the module docs). The first and last points never
/// move.
///
/// The grid trace decides which side of each obstacle the path passes, and among
/// grid paths of equal length that choice can be the longer way round a pillar in
/// the plane (and differ between a walk and its way back). So once taut, the path
/// also tries the other side of every small obstacle it wraps (up to
/// `SMALL_OBSTACLE` pixels, not touching the mask's border) and keeps whichever is
/// shorter, on paths of up to `MAX_FLIP_TURNS` turning points.
pub fn tauten(grid: &NavGrid, path: &mut Vec<Point>) {
    let mut corners = Vec::new();
    pull(grid, path, &mut corners);
    if path.len() > MAX_FLIP_TURNS + 2 {
        return;
    }
    for _ in 0..MAX_FLIP_ROUNDS {
        if !flip_small_obstacles(grid, path, &mut corners) {
            break;
        }
        pull(grid, path, &mut corners);
    }
}

/// The rubber-band passes.
fn pull(grid: &NavGrid, path: &mut Vec<Point>, corners: &mut Vec<P>) {
    if path.len() < 3 {
        return;
    }
    // `fresh[i]`: a neighbour of point i changed in the last pass, so the corners
    // next to it need a look; a corner whose three points were all settled before
    // is left as it is.
    let mut fresh = vec![true; path.len()];
    let mut out = Vec::with_capacity(path.len());
    let mut out_fresh = Vec::with_capacity(path.len());
    for _ in 0..MAX_PASSES {
        // One pass streams the path into `out`: `a` is the last point kept.
        let mut changed = false;
        out.clear();
        out_fresh.clear();
        out.push(path[0]);
        out_fresh.push(false);
        for i in 1..path.len() - 1 {
            let (a, v, b) = (
                *out.last().expect("starts with path[0]"),
                path[i],
                path[i + 1],
            );
            let a_moved = a != path[i - 1] || *out_fresh.last().expect("same length");
            if !(a_moved || fresh[i - 1] || fresh[i] || fresh[i + 1]) {
                out.push(v);
                out_fresh.push(false);
            } else if line_of_sight(grid, a, b) {
                changed = true; // v dropped
                if let Some(last) = out_fresh.last_mut() {
                    *last = true;
                }
            } else if turns_round_its_corner(grid, a, v, b) {
                out.push(v); // already taut here: the hull would give `v` back
                out_fresh.push(false);
            } else if let Some(c) = corner_of_its_pixel(grid, a, v, b) {
                // The common case, without searching the triangle: `v` sits next to
                // the obstacle corner it turns round.
                if let Some(last) = out_fresh.last_mut() {
                    *last = true;
                }
                out.push(c);
                out_fresh.push(false);
                changed = true;
            } else if let Some(chain) = wrap(grid, a, v, b, corners) {
                // Hull corners need no second look while their neighbours stay:
                // each is needed by the hull between them. The point before them
                // and the first of them are looked at again next pass (the point
                // before has a new neighbour), the point after them in this pass
                // (its `a` moved).
                if let Some(last) = out_fresh.last_mut() {
                    *last = true;
                }
                out_fresh.extend(std::iter::repeat_n(false, chain.len()));
                out.extend(chain);
                changed = true;
            } else {
                out.push(v);
                out_fresh.push(false);
            }
        }
        out.push(path[path.len() - 1]);
        out_fresh.push(false);
        std::mem::swap(path, &mut out);
        std::mem::swap(&mut fresh, &mut out_fresh);
        if !changed || path.len() < 3 {
            break;
        }
    }
}

/// Whether `v` sits at an obstacle corner (nudged off it) and the path turns round
/// that obstacle there: a blocked pixel at the corner lies inside the turn
/// `a -> v -> b`. Such a corner is the apex of its own triangle's hull, so wrapping
/// it again cannot shorten the path.
fn turns_round_its_corner(grid: &NavGrid, a: Point, v: Point, b: Point) -> bool {
    let (pa, pv, pb) = (P::of(a), P::of(v), P::of(b));
    let turn = cross(pa, pv, pb);
    if turn == 0.0 {
        return false;
    }
    wrapped_pixels(grid, v).any(|(x, y)| {
        let q = P {
            x: x as f64 + 0.5,
            y: y as f64 + 0.5,
        };
        cross(pa, pv, q) * turn > 0.0 && cross(pv, pb, q) * turn > 0.0
    })
}

/// `v` moved onto a corner of its own pixel (nudged off the obstacle there), when
/// the path then turns round that obstacle ([`turns_round_its_corner`]), both new
/// segments are clear and the path gets shorter; the shortest such move.
///
/// This is the hull of the triangle `a, v, b` whenever its apex is that corner, found
/// without searching the triangle: a turning point of a grid path is usually the
/// pixel diagonal to the convex corner it goes round. Nothing lies between the old
/// and the new path (the sliver between them is narrower than a pixel and both are
/// clear), so the path keeps every obstacle on the same side.
fn corner_of_its_pixel(grid: &NavGrid, a: Point, v: Point, b: Point) -> Option<Point> {
    let (pa, pv, pb) = (P::of(a), P::of(v), P::of(b));
    let side = cross(pa, pb, pv);
    if side == 0.0 {
        return None;
    }
    let (x, y) = ((v.x as f64).floor(), (v.y as f64).floor());
    let old = distance(a, v) + distance(v, b);
    let mut best: Option<(f64, Point)> = None;
    for (cx, cy) in [(x, y), (x + 1.0, y), (x, y + 1.0), (x + 1.0, y + 1.0)] {
        let c = P { x: cx, y: cy };
        // Only a corner on v's side of a -> b, or on it, can be the apex.
        if cross(pa, pb, c) * side < 0.0 {
            continue;
        }
        let Some(n) = nudge(grid, pa, c, pb, side) else {
            continue;
        };
        let new = distance(a, n) + distance(n, b);
        if new >= old - 1e-6 || best.is_some_and(|(l, _)| l <= new) {
            continue;
        }
        if turns_round_its_corner(grid, a, n, b)
            && line_of_sight(grid, a, n)
            && line_of_sight(grid, n, b)
        {
            best = Some((new, n));
        }
    }
    best.map(|(_, n)| n)
}

/// The corners the band from `a` to `b` wraps on `v`'s side, when that way is
/// clear and shorter than `a -> v -> b` by more than a rounding error.
///
/// Only the part of the triangle within [`REACH`] of `v` is searched: where `a` or
/// `b` is farther, the band is cut there (the cut points join the path, on its old
/// segments) and later passes carry the pull on. This keeps each step's cost
/// bounded on long winding corridors, where a whole triangle can hold most of the
/// mask's walls.
fn wrap(grid: &NavGrid, a: Point, v: Point, b: Point, corners: &mut Vec<P>) -> Option<Vec<Point>> {
    let (a2, b2) = (within_reach(v, a), within_reach(v, b));
    let (pa, pv, pb) = (P::of(a2), P::of(v), P::of(b2));
    let side = cross(pa, pb, pv);
    if side == 0.0 {
        return None;
    }
    corners.clear();
    obstacle_corners(grid, pa, pv, pb, corners);
    // Keep the corners on v's side of a -> b, or on it (a corner exactly on the
    // line blocks it too): the others cannot bend the band.
    corners.retain(|&c| cross(pa, pb, c) * side >= 0.0);
    if corners.is_empty() && a2 == a && b2 == b {
        return None;
    }
    let (inner, mut new) = around(grid, a2, b2, side, corners)?;
    // The cut points lie on the old segments; they are checked all the same.
    let mut chain = Vec::with_capacity(inner.len() + 2);
    for (from, to, keep) in [(a, a2, a2 != a), (b2, b, b2 != b)] {
        if keep && !line_of_sight(grid, from, to) {
            return None;
        }
    }
    if a2 != a {
        new += distance(a, a2);
        chain.push(a2);
    }
    chain.extend(inner);
    if b2 != b {
        new += distance(b2, b);
        chain.push(b2);
    }
    // Shorter, or nothing.
    let old = distance(a, v) + distance(v, b);
    (new < old - 1e-6).then_some(chain)
}

/// How far from a corner the triangle of a pull is searched (pixels).
const REACH: f64 = 128.0;

/// `p`, or the point [`REACH`] from `v` on the way to it.
fn within_reach(v: Point, p: Point) -> Point {
    let d = P::of(p).sub(P::of(v));
    let length = d.len();
    if length <= REACH {
        return p;
    }
    let t = REACH / length;
    Point::new((v.x as f64 + d.x * t) as f32, (v.y as f64 + d.y * t) as f32)
}

/// Corner `c` moved [`CORNER_OFFSET`] away from the obstacle it wraps: outwards
/// from the hull (the side of `a -> b` that `side` names), along the bisector of the
/// two hull edges at `c`, rounded to the diagonal or axis direction. `None` when the
/// pixel it lands in is not walkable.
fn nudge(grid: &NavGrid, before: P, c: P, after: P, side: f64) -> Option<Point> {
    // Outward normals of the edges before -> c and c -> after (pointing to v's side).
    let normal = |from: P, to: P| {
        let d = to.sub(from);
        let n = if side > 0.0 {
            P { x: -d.y, y: d.x }
        } else {
            P { x: d.y, y: -d.x }
        };
        let l = n.len().max(f64::MIN_POSITIVE);
        P {
            x: n.x / l,
            y: n.y / l,
        }
    };
    let (n1, n2) = (normal(before, c), normal(c, after));
    let (dx, dy) = (n1.x + n2.x, n1.y + n2.y);
    let step = |d: f64| {
        if d > 1e-9 {
            CORNER_OFFSET
        } else if d < -1e-9 {
            -CORNER_OFFSET
        } else {
            0.0
        }
    };
    let p = P {
        x: c.x + step(dx),
        y: c.y + step(dy),
    };
    let point = p.point();
    let (x, y) = point.pixel()?;
    grid.is_walkable(x, y).then_some(point)
}

/// The convex hull of `a`, `b` and `corners` (all on the `side` of `a -> b`), from
/// `a` to `b` on that side, without `a` and `b`.
fn hull_chain(a: P, b: P, side: f64, corners: &mut [P]) -> Vec<P> {
    // Order along a -> b, then build the chain that keeps every point on the inner
    // side (a monotone chain in the frame of a -> b; corners project inside or past
    // the ends, which the hull handles the same way).
    let dir = b.sub(a);
    let along = |p: &P| (p.x - a.x) * dir.x + (p.y - a.y) * dir.y;
    corners.sort_by(|p, q| along(p).total_cmp(&along(q)));
    let mut chain: Vec<P> = vec![a];
    for &p in corners.iter().chain(std::iter::once(&b)) {
        // Pop while the last turn bends inwards. Straight runs are kept: a corner on
        // the line still has to be stepped round (later passes drop the ones that
        // are not needed).
        while chain.len() >= 2 {
            let n = chain.len();
            let turn = cross(chain[n - 2], chain[n - 1], p);
            if turn * side > 0.0 {
                chain.pop();
            } else {
                break;
            }
        }
        chain.push(p);
    }
    chain.pop(); // b
    chain.remove(0); // a
    chain
}

/// One round of trying the other side of the small obstacles the path wraps: for
/// each run of turning points round one small obstacle, the hull of that obstacle
/// on the other side of the line joining the run's neighbours, kept when it is clear
/// and shorter. Whether anything changed.
fn flip_small_obstacles(grid: &NavGrid, path: &mut Vec<Point>, corners: &mut Vec<P>) -> bool {
    if path.len() < 3 {
        return false;
    }
    let mut changed = false;
    let mut out = Vec::with_capacity(path.len());
    out.push(path[0]);
    let mut i = 1;
    while i + 1 < path.len() {
        let Some(obstacle) = small_obstacle_at(grid, path[i]) else {
            out.push(path[i]);
            i += 1;
            continue;
        };
        // The run of turning points round this obstacle.
        let mut j = i;
        while j + 2 < path.len() && wraps(grid, path[j + 1], &obstacle) {
            j += 1;
        }
        let (a, b) = (*out.last().expect("starts with path[0]"), path[j + 1]);
        let (pa, pb) = (P::of(a), P::of(b));
        let side = cross(pa, pb, P::of(path[i]));
        corners.clear();
        for &(x, y) in &obstacle {
            for (cx, cy) in [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)] {
                let c = P {
                    x: cx as f64,
                    y: cy as f64,
                };
                if cross(pa, pb, c) * side < 0.0 {
                    corners.push(c);
                }
            }
        }
        corners.sort_by(|p, q| (p.x, p.y).partial_cmp(&(q.x, q.y)).expect("finite"));
        corners.dedup();
        // Round the obstacle on the other side of the line a -> b...
        let mut replacement = (side != 0.0 && !corners.is_empty())
            .then(|| around(grid, a, b, -side, corners))
            .flatten();
        // ...or on the same side of the line, but with the obstacle left on the
        // other hand: wrapped round whatever else blocks the triangle.
        if i == j && side != 0.0 {
            corners.clear();
            let v = path[i];
            let (near_a, near_b) = (P::of(within_reach(v, a)), P::of(within_reach(v, b)));
            obstacle_corners(grid, near_a, P::of(v), near_b, corners);
            corners.retain(|&c| cross(pa, pb, c) * side >= 0.0 && !only_round(grid, c, &obstacle));
            if !corners.is_empty()
                && let Some((chain, new)) = around(grid, a, b, side, corners)
                && replacement.as_ref().is_none_or(|(_, best)| new < *best)
            {
                replacement = Some((chain, new));
            }
        }
        let old = distance(a, path[i])
            + path[i..=j + 1]
                .windows(2)
                .map(|w| distance(w[0], w[1]))
                .sum::<f64>();
        match replacement {
            Some((chain, new)) if new < old - 1e-6 => {
                out.extend(chain);
                changed = true;
            }
            _ => out.extend_from_slice(&path[i..=j]),
        }
        i = j + 1;
    }
    out.push(path[path.len() - 1]);
    *path = out;
    changed
}

/// The path from `a` to `b` round the hull of `corners` on `side`, nudged off the
/// corners, with its length; `None` unless every segment is clear.
fn around(
    grid: &NavGrid,
    a: Point,
    b: Point,
    side: f64,
    corners: &mut [P],
) -> Option<(Vec<Point>, f64)> {
    let (pa, pb) = (P::of(a), P::of(b));
    let hull = hull_chain(pa, pb, side, corners);
    let mut chain = Vec::with_capacity(hull.len());
    let mut before = pa;
    for (k, &c) in hull.iter().enumerate() {
        let after = hull.get(k + 1).copied().unwrap_or(pb);
        chain.push(nudge(grid, before, c, after, side)?);
        before = c;
    }
    let mut length = 0.0;
    let mut from = a;
    for &p in chain.iter().chain(std::iter::once(&b)) {
        if !line_of_sight(grid, from, p) {
            return None;
        }
        length += distance(from, p);
        from = p;
    }
    Some((chain, length))
}

/// The blocked pixels a turning point `v` was nudged off: those round the lattice
/// point nearest to it.
fn wrapped_pixels(grid: &NavGrid, v: Point) -> impl Iterator<Item = (i64, i64)> + '_ {
    let (cx, cy) = ((v.x as f64).round() as i64, (v.y as f64).round() as i64);
    let near = ((v.x as f64) - cx as f64).abs() < 2.0 * CORNER_OFFSET
        && ((v.y as f64) - cy as f64).abs() < 2.0 * CORNER_OFFSET;
    pixels_round(cx, cy)
        .into_iter()
        .filter(move |&(x, y)| near && blocked(grid, x, y))
}

/// Whether every blocked pixel round lattice point `c` belongs to `obstacle`.
fn only_round(grid: &NavGrid, c: P, obstacle: &[(i64, i64)]) -> bool {
    let (x, y) = (c.x as i64, c.y as i64);
    pixels_round(x, y)
        .into_iter()
        .filter(|&(px, py)| blocked(grid, px, py))
        .all(|p| obstacle.contains(&p))
}

/// Whether turning point `v` wraps a pixel of `obstacle`.
fn wraps(grid: &NavGrid, v: Point, obstacle: &[(i64, i64)]) -> bool {
    wrapped_pixels(grid, v).any(|p| obstacle.contains(&p))
}

/// The four pixels that meet at lattice point `(x, y)`: NW, NE, SW, SE.
fn pixels_round(x: i64, y: i64) -> [(i64, i64); 4] {
    [(x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)]
}

/// Whether pixel `(x, y)` is blocked or outside the mask.
#[inline]
fn blocked(grid: &NavGrid, x: i64, y: i64) -> bool {
    x < 0
        || y < 0
        || x >= grid.width() as i64
        || y >= grid.height() as i64
        || !grid.open(grid.index(x as u32, y as u32))
}

/// The obstacle (8-connected blocked pixels) that turning point `v` wraps, when it
/// has at most [`SMALL_OBSTACLE`] pixels and keeps off the mask's border.
///
/// The obstacle is grown a run of blocked pixels along a row at a time, and given
/// up as soon as it outgrows the limit, so a wall costs about the limit's worth of
/// pixel tests.
fn small_obstacle_at(grid: &NavGrid, v: Point) -> Option<Vec<(i64, i64)>> {
    let start = wrapped_pixels(grid, v).next()?;
    let mut obstacle = Runs {
        grid,
        runs: Vec::new(),
        size: 0,
    };
    obstacle.add(start.0, start.1)?;
    let mut k = 0;
    while k < obstacle.runs.len() {
        let (y, first, last) = obstacle.runs[k];
        k += 1;
        // Pixels touching the run, diagonals included, on the rows above and below.
        for row in [y - 1, y + 1] {
            let mut x = first - 1;
            while x <= last + 1 {
                if !blocked(grid, x, row) {
                    x += 1;
                } else if let Some(end) = obstacle.run_holding(x, row) {
                    x = end + 1;
                } else {
                    x = obstacle.add(x, row)? + 1;
                }
            }
        }
    }
    let pixels = obstacle
        .runs
        .iter()
        .flat_map(|&(y, first, last)| (first..=last).map(move |x| (x, y)))
        .collect();
    Some(pixels)
}

/// A small obstacle being grown: runs of blocked pixels along rows.
struct Runs<'a> {
    grid: &'a NavGrid,
    /// `(row, first x, last x)`.
    runs: Vec<(i64, i64, i64)>,
    /// Pixels in the runs.
    size: usize,
}

impl Runs<'_> {
    /// Adds the run of blocked pixels through blocked pixel `(x, y)` and returns its
    /// last x; `None` when it touches the mask's border ring or the obstacle
    /// outgrows [`SMALL_OBSTACLE`].
    fn add(&mut self, x: i64, y: i64) -> Option<i64> {
        let (w, h) = (self.grid.width() as i64, self.grid.height() as i64);
        if x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1 || self.size == SMALL_OBSTACLE {
            return None;
        }
        // The run may hold at most `room` pixels (at least one): `last - first < room`.
        let room = (SMALL_OBSTACLE - self.size) as i64;
        let (mut first, mut last) = (x, x);
        while blocked(self.grid, first - 1, y) {
            first -= 1;
            if first <= 0 || last - first >= room {
                return None;
            }
        }
        while blocked(self.grid, last + 1, y) {
            last += 1;
            if last >= w - 1 || last - first >= room {
                return None;
            }
        }
        self.size += (last - first + 1) as usize;
        self.runs.push((y, first, last));
        Some(last)
    }

    /// The last x of the run on row `y` that holds `x`, if one does.
    fn run_holding(&self, x: i64, y: i64) -> Option<i64> {
        self.runs
            .iter()
            .find(|&&(row, first, last)| row == y && first <= x && x <= last)
            .map(|&(_, _, last)| last)
    }
}

/// `x` rounded down, for the coordinates of a mask (not far below zero): a cast
/// rather than a call to the C library.
#[inline]
fn floor(x: f64) -> i64 {
    let t = x as i64;
    t - i64::from((t as f64) > x)
}

/// `x` rounded up, as [`floor`].
#[inline]
fn ceil(x: f64) -> i64 {
    let t = x as i64;
    t + i64::from((t as f64) < x)
}

/// Lattice points in the closed triangle `a, v, b` that are corners of blocked pixels
/// (or of the mask's border) next to walkable ones. Only the leftmost and rightmost
/// such point on each row line can be a hull corner, so only those are kept.
fn obstacle_corners(grid: &NavGrid, a: P, v: P, b: P, out: &mut Vec<P>) {
    let h = grid.height() as i64;
    let y_lo = a.y.min(v.y).min(b.y).ceil().max(0.0) as i64;
    let y_hi = (a.y.max(v.y).max(b.y).floor() as i64).min(h);
    let edges = [(a, v), (v, b), (b, a)];
    // Lattice point (x, y) of the mask, 0 <= x <= width and 0 <= y <= height, has its
    // four pixels inside the padded grid: the one to its north-west is at padded
    // index y * pw + x.
    let pw = grid.padded_width();
    let is_corner = |x: i64, y: i64| {
        debug_assert!((0..=grid.width() as i64).contains(&x) && (0..=h).contains(&y));
        let nw = y as usize * pw + x as usize;
        let open = [
            grid.open(nw),
            grid.open(nw + 1),
            grid.open(nw + pw),
            grid.open(nw + pw + 1),
        ];
        open.iter().any(|&o| o) && !open.iter().all(|&o| o)
    };
    for y in y_lo..=y_hi {
        let yf = y as f64;
        // The triangle's extent on the line at height y.
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (p, q) in edges {
            let (y0, y1) = (p.y.min(q.y), p.y.max(q.y));
            if yf < y0 || yf > y1 {
                continue;
            }
            if p.y == q.y {
                lo = lo.min(p.x.min(q.x));
                hi = hi.max(p.x.max(q.x));
            } else {
                let x = p.x + (q.x - p.x) * (yf - p.y) / (q.y - p.y);
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if lo > hi {
            continue;
        }
        let (x_lo, x_hi) = (ceil(lo), floor(hi));
        if x_lo > x_hi {
            continue;
        }
        // Corners on this line belong to edge pixels of the rows above and below.
        let mut first: Option<i64> = None;
        let mut last: Option<i64> = None;
        for row in [y - 1, y] {
            if row < 0 || row >= h {
                continue;
            }
            let xs = grid.edges().row(row as u32);
            // Pixels x with a corner in [x_lo, x_hi]: x + 1 >= x_lo and x <= x_hi.
            let from = xs.partition_point(|&x| (x as i64) + 1 < x_lo);
            let to = from + xs[from..].partition_point(|&x| (x as i64) <= x_hi);
            let in_range = &xs[from..to];
            let corner = |cx: i64| (x_lo..=x_hi).contains(&cx) && is_corner(cx, y);
            // Only the leftmost and the rightmost corner count: scan in from each end.
            if let Some(cx) = in_range
                .iter()
                .flat_map(|&x| [x as i64, x as i64 + 1])
                .find(|&cx| corner(cx))
            {
                first = Some(first.map_or(cx, |f| f.min(cx)));
            }
            if let Some(cx) = in_range
                .iter()
                .rev()
                .flat_map(|&x| [x as i64 + 1, x as i64])
                .find(|&cx| corner(cx))
            {
                last = Some(last.map_or(cx, |l| l.max(cx)));
            }
            // Obstacles' pixels are not in the edge index: their outermost pixels
            // on the row give their candidate corners.
            if let Some(bits) = grid.obstacle_bits() {
                let w = grid.width() as i64;
                let (x0, x1) = ((x_lo - 1).max(0), (x_hi + 1).min(w));
                if x0 < x1 {
                    let base = (row as usize + 1) * grid.padded_width() + 1;
                    let (from, to) = (base + x0 as usize, base + x1 as usize);
                    if let Some(i) = bits.first_set(from, to) {
                        let x = (i - base) as i64;
                        if let Some(cx) = [x, x + 1].into_iter().find(|&cx| corner(cx)) {
                            first = Some(first.map_or(cx, |f| f.min(cx)));
                        }
                    }
                    if let Some(i) = bits.last_set(from, to) {
                        let x = (i - base) as i64;
                        if let Some(cx) = [x + 1, x].into_iter().find(|&cx| corner(cx)) {
                            last = Some(last.map_or(cx, |l| l.max(cx)));
                        }
                    }
                }
            }
        }
        for x in first.into_iter().chain(last.filter(|&l| Some(l) != first)) {
            out.push(P { x: x as f64, y: yf });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, WalkMask};

    fn length(path: &[Point]) -> f64 {
        path.windows(2).map(|w| distance(w[0], w[1])).sum()
    }

    /// [`small_obstacle_at`] a pixel at a time (breadth first): the reference.
    fn small_obstacle_by_pixels(grid: &NavGrid, v: Point) -> Option<Vec<(i64, i64)>> {
        let start = wrapped_pixels(grid, v).next()?;
        let (w, h) = (grid.width() as i64, grid.height() as i64);
        // Membership in a window round the start that any small obstacle fits in.
        const SPAN: i64 = SMALL_OBSTACLE as i64;
        const SIDE: i64 = 2 * SPAN + 1;
        let mut seen = [0u64; ((SIDE * SIDE) as usize).div_ceil(64)];
        let mut mark = |(x, y): (i64, i64)| {
            let bit = ((y - start.1 + SPAN) * SIDE + (x - start.0 + SPAN)) as usize;
            let fresh = seen[bit / 64] & (1 << (bit % 64)) == 0;
            seen[bit / 64] |= 1 << (bit % 64);
            fresh
        };
        mark(start);
        let mut pixels = vec![start];
        let mut k = 0;
        while k < pixels.len() {
            let (x, y) = pixels[k];
            k += 1;
            if x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1 {
                return None; // touches the border: there is no other side
            }
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let n = (x + dx, y + dy);
                    if blocked(grid, n.0, n.1) && mark(n) {
                        if pixels.len() == SMALL_OBSTACLE {
                            return None;
                        }
                        pixels.push(n);
                    }
                }
            }
        }
        Some(pixels)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Grown a run at a time, the small obstacle round every pixel corner is the
        /// one grown a pixel at a time: the same pixels, and none when either says
        /// it is too big or touches the border.
        #[test]
        fn small_obstacles_grown_by_runs_are_grown_by_pixels(
            seed in proptest::prelude::any::<u64>(),
            (w, h) in (3u32..48, 3u32..48),
            blocked_in_8 in 1u64..6,
        ) {
            let mut next = crate::test_rng::xorshift(seed | 1);
            let mask = WalkMask::from_fn(w, h, |_, _| u8::from(next() % 8 >= blocked_in_8))
            .unwrap();
            let grid = NavGrid::new(mask, AreaSet::all());
            for y in 0..=h {
                for x in 0..=w {
                    let v = Point::new(x as f32 + CORNER_OFFSET as f32, y as f32 + CORNER_OFFSET as f32);
                    let sorted = |pixels: Option<Vec<(i64, i64)>>| {
                        pixels.map(|mut p| {
                            p.sort_unstable();
                            p
                        })
                    };
                    proptest::prop_assert_eq!(
                        sorted(small_obstacle_at(&grid, v)),
                        sorted(small_obstacle_by_pixels(&grid, v)),
                        "corner ({}, {})", x, y
                    );
                }
            }
        }
    }

    #[test]
    fn wraps_a_pillar_at_its_corner() {
        // A 20 x 12 room with a pillar at x 8..12, y 3..9.
        let mask = WalkMask::from_fn(20, 12, |x, y| {
            u8::from(!((8..12).contains(&x) && (3..9).contains(&y)))
        })
        .unwrap();
        let grid = NavGrid::new(mask, AreaSet::all());
        // A detour through the pillar's bottom-left and far below it.
        let mut path = vec![
            Point::new(2.5, 6.5),
            Point::new(6.5, 11.5),
            Point::new(14.5, 11.5),
            Point::new(18.5, 6.5),
        ];
        let before = length(&path);
        tauten(&grid, &mut path);
        let after = length(&path);
        assert!(after < before);
        // Taut: round the pillar's two bottom corners (8, 9) and (12, 9).
        let expected = [
            P { x: 2.5, y: 6.5 },
            P { x: 8.0, y: 9.0 },
            P { x: 12.0, y: 9.0 },
            P { x: 18.5, y: 6.5 },
        ];
        let optimum: f64 = expected.windows(2).map(|w| w[1].sub(w[0]).len()).sum();
        assert!(
            (after - optimum).abs() < 0.02,
            "{after} vs {optimum}: {path:?}"
        );
        for w in path.windows(2) {
            assert!(line_of_sight(&grid, w[0], w[1]), "{path:?}");
        }
    }
}
