//! Helpers shared by the integration tests: an exact, independent legality check for
//! path segments, and a 4-connected flood fill.
//!
//! The legality check does not use the crate's line of sight. It decides exactly
//! (integer arithmetic on the exact binary values of the `f32` coordinates) which
//! half-open pixels `[x, x+1) x [y, y+1)` a segment touches, then requires every
//! touched pixel to be inside the mask and walkable, and rejects a segment that
//! touches two diagonal neighbours whose two shared side pixels are both blocked (a
//! squeeze between pixels that meet only at a corner).
#![allow(dead_code)]

pub mod cases;
pub mod corpus;
pub mod files;
pub mod fuzz_checks;

use std::cmp::Ordering;
use std::collections::HashSet;

use walkmask::{NavGrid, Point};

/// Whether pixel `(x, y)` is inside the mask and in an enabled area, read from the
/// mask and the area set directly.
pub fn walkable(grid: &NavGrid, x: i64, y: i64) -> bool {
    if x < 0 || y < 0 || x >= grid.width() as i64 || y >= grid.height() as i64 {
        return false;
    }
    grid.mask()
        .area_at(x as u32, y as u32)
        .is_some_and(|a| grid.areas().contains(a))
}

/// `v = m * 2^e` exactly, with `m` odd (or `v == 0`, then `(0, 0)`).
fn decompose(v: f32) -> (i64, i32) {
    let bits = v.to_bits();
    let negative = bits >> 31 == 1;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let fraction = (bits & 0x7f_ffff) as i64;
    assert!(exponent != 0xff, "not a finite coordinate: {v}");
    let (mut m, mut e) = if exponent == 0 {
        (fraction, -149)
    } else {
        (fraction | 1 << 23, exponent - 150)
    };
    if m == 0 {
        return (0, 0);
    }
    while m & 1 == 0 {
        m >>= 1;
        e += 1;
    }
    (if negative { -m } else { m }, e)
}

/// A signed 320-bit integer (two's complement, little-endian limbs): wide enough for
/// products of two scaled coordinates even for the smallest `f32` values (a coordinate
/// below 64 scaled by at most 2^149 has at most 156 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct I320([u64; 5]);

impl I320 {
    const ZERO: I320 = I320([0; 5]);

    fn from_i64(v: i64) -> Self {
        let ext = if v < 0 { u64::MAX } else { 0 };
        I320([v as u64, ext, ext, ext, ext])
    }

    fn is_negative(&self) -> bool {
        self.0[4] >> 63 == 1
    }

    /// `self * 2^n` (the result must fit).
    fn shl(self, n: u32) -> Self {
        let (words, bits) = ((n / 64) as usize, n % 64);
        let mut out = [0u64; 5];
        for i in (words..5).rev() {
            let src = i - words;
            out[i] = self.0[src] << bits;
            if bits > 0 && src > 0 {
                out[i] |= self.0[src - 1] >> (64 - bits);
            }
        }
        I320(out)
    }

    fn add(self, other: Self) -> Self {
        let mut out = [0u64; 5];
        let mut carry = 0u128;
        for (i, o) in out.iter_mut().enumerate() {
            let sum = self.0[i] as u128 + other.0[i] as u128 + carry;
            *o = sum as u64;
            carry = sum >> 64;
        }
        I320(out)
    }

    fn neg(self) -> Self {
        I320(self.0.map(|w| !w)).add(I320::from_i64(1))
    }

    fn sub(self, other: Self) -> Self {
        self.add(other.neg())
    }

    /// The product modulo 2^320, which is exact when it fits.
    fn mul(self, other: Self) -> Self {
        let mut out = [0u64; 5];
        for i in 0..5 {
            let mut carry = 0u128;
            for j in 0..5 - i {
                let t = self.0[i] as u128 * other.0[j] as u128 + out[i + j] as u128 + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
        }
        I320(out)
    }
}

impl Ord for I320 {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Same sign: two's complement orders like the unsigned limbs.
            _ => self.0.iter().rev().cmp(other.0.iter().rev()),
        }
    }
}

impl PartialOrd for I320 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A bound on the segment parameter `t = num / den` (`den > 0`).
#[derive(Clone, Copy, Debug)]
struct Bound {
    num: I320,
    den: I320,
    /// Whether `t` may equal the bound.
    closed: bool,
}

impl Bound {
    fn cmp_value(&self, other: &Bound) -> Ordering {
        self.num.mul(other.den).cmp(&other.num.mul(self.den))
    }
}

/// A segment with coordinates scaled to integers by a common power of two.
struct ExactSegment {
    shift: u32,
    a: (I320, I320),
    b: (I320, I320),
}

impl ExactSegment {
    fn new(a: Point, b: Point) -> Self {
        let parts = [a.x, a.y, b.x, b.y].map(decompose);
        let shift = parts
            .iter()
            .filter(|(m, _)| *m != 0)
            .map(|&(_, e)| -e)
            .max()
            .unwrap_or(0)
            .max(0) as u32;
        let scaled = |(m, e): (i64, i32)| I320::from_i64(m).shl((e + shift as i32) as u32);
        let [ax, ay, bx, by] = parts.map(scaled);
        Self {
            shift,
            a: (ax, ay),
            b: (bx, by),
        }
    }

    /// Narrows `[lower, upper]` by `lo <= a + t (b - a) < lo + 1` on one axis
    /// (`lo` an integer). Returns false when the axis alone rules out every `t`.
    fn clip(&self, a: I320, b: I320, lo: i64, lower: &mut Bound, upper: &mut Bound) -> bool {
        let x0 = I320::from_i64(lo).shl(self.shift);
        let x1 = I320::from_i64(lo + 1).shl(self.shift);
        let d = b.sub(a);
        let tighten_lower = |lower: &mut Bound, cand: Bound| match cand.cmp_value(lower) {
            Ordering::Greater => *lower = cand,
            Ordering::Equal => lower.closed &= cand.closed,
            Ordering::Less => {}
        };
        let tighten_upper = |upper: &mut Bound, cand: Bound| match cand.cmp_value(upper) {
            Ordering::Less => *upper = cand,
            Ordering::Equal => upper.closed &= cand.closed,
            Ordering::Greater => {}
        };
        match d.cmp(&I320::ZERO) {
            Ordering::Equal => return x0 <= a && a < x1,
            Ordering::Greater => {
                let low = Bound {
                    num: x0.sub(a),
                    den: d,
                    closed: true,
                };
                let high = Bound {
                    num: x1.sub(a),
                    den: d,
                    closed: false,
                };
                tighten_lower(lower, low);
                tighten_upper(upper, high);
            }
            Ordering::Less => {
                let high = Bound {
                    num: a.sub(x0),
                    den: d.neg(),
                    closed: true,
                };
                let low = Bound {
                    num: a.sub(x1),
                    den: d.neg(),
                    closed: false,
                };
                tighten_lower(lower, low);
                tighten_upper(upper, high);
            }
        }
        true
    }

    /// Whether some point of the segment lies in the half-open pixel `(px, py)`.
    fn touches(&self, px: i64, py: i64) -> bool {
        let one = I320::from_i64(1);
        let mut lower = Bound {
            num: I320::ZERO,
            den: one,
            closed: true,
        };
        let mut upper = Bound {
            num: one,
            den: one,
            closed: true,
        };
        if !self.clip(self.a.0, self.b.0, px, &mut lower, &mut upper)
            || !self.clip(self.a.1, self.b.1, py, &mut lower, &mut upper)
        {
            return false;
        }
        match lower.cmp_value(&upper) {
            Ordering::Less => true,
            Ordering::Equal => lower.closed && upper.closed,
            Ordering::Greater => false,
        }
    }
}

impl ExactSegment {
    /// Where lattice point `(x, y)` lies on the segment: `None` off it, else
    /// `Some(-1)` at `a`, `Some(1)` at `b`, `Some(0)` strictly between.
    fn lattice(&self, x: i64, y: i64) -> Option<i8> {
        let px = I320::from_i64(x).shl(self.shift);
        let py = I320::from_i64(y).shl(self.shift);
        let (dx, dy) = (self.b.0.sub(self.a.0), self.b.1.sub(self.a.1));
        let cross = dx.mul(py.sub(self.a.1)).sub(dy.mul(px.sub(self.a.0)));
        let between = |v: I320, p: I320, q: I320| p.min(q) <= v && v <= p.max(q);
        if cross != I320::ZERO
            || !between(px, self.a.0, self.b.0)
            || !between(py, self.a.1, self.b.1)
        {
            return None;
        }
        Some(if (px, py) == self.a {
            -1
        } else if (px, py) == self.b {
            1
        } else {
            0
        })
    }
}

/// Where the segment from `a` to `b` passes exactly through a pixel corner from one
/// pixel into its diagonal neighbour: `(from, to)` for each such crossing. The corner
/// point itself belongs to the pixel below-right of it, so a segment that starts at
/// a corner and heads up-left, or ends at one coming from the up-left, crosses too.
pub fn corner_crossings(a: Point, b: Point) -> Vec<((i64, i64), (i64, i64))> {
    let mut out = Vec::new();
    if a.x == b.x || a.y == b.y {
        return out; // along a row, a column or a single point: no diagonal move
    }
    let exact = ExactSegment::new(a, b);
    let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
    let (sx, sy) = ((bx - ax).signum() as i64, (by - ay).signum() as i64);
    for x in ax.min(bx).ceil() as i64..=ax.max(bx).floor() as i64 {
        let estimate = (ay + (x as f64 - ax) * (by - ay) / (bx - ax)).round() as i64;
        for y in estimate - 1..=estimate + 1 {
            let Some(place) = exact.lattice(x, y) else {
                continue;
            };
            let before = (
                if sx > 0 { x - 1 } else { x },
                if sy > 0 { y - 1 } else { y },
            );
            let after = (
                if sx > 0 { x } else { x - 1 },
                if sy > 0 { y } else { y - 1 },
            );
            let from = if place == -1 { (x, y) } else { before };
            let to = if place == 1 { (x, y) } else { after };
            if from.0.abs_diff(to.0) == 1 && from.1.abs_diff(to.1) == 1 {
                out.push((from, to));
            }
        }
    }
    out
}

/// Every pixel (possibly outside the mask) that the segment from `a` to `b` touches,
/// pixels being half-open: `[x, x+1) x [y, y+1)`.
pub fn touched_pixels(a: Point, b: Point) -> Vec<(i64, i64)> {
    let exact = ExactSegment::new(a, b);
    let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
    let (x_lo, x_hi) = (ax.min(bx).floor() as i64, ax.max(bx).floor() as i64);
    let (y_lo, y_hi) = (ay.min(by).floor() as i64, ay.max(by).floor() as i64);
    let (dx, dy) = (bx - ax, by - ay);
    let mut out = Vec::new();
    for cx in x_lo..=x_hi {
        // Rows the segment can meet in this column, with a one-pixel margin for
        // rounding; the exact test decides.
        let (r0, r1) = if dx == 0.0 {
            (y_lo, y_hi)
        } else {
            let t0 = ((cx as f64 - ax) / dx).clamp(0.0, 1.0);
            let t1 = ((cx as f64 + 1.0 - ax) / dx).clamp(0.0, 1.0);
            let (ya, yb) = (ay + dy * t0, ay + dy * t1);
            (
                (ya.min(yb).floor() as i64 - 1).max(y_lo),
                (ya.max(yb).floor() as i64 + 1).min(y_hi),
            )
        };
        for cy in r0..=r1 {
            if exact.touches(cx, cy) {
                out.push((cx, cy));
            }
        }
    }
    out
}

/// Checks one segment: every touched pixel walkable, no squeeze between two blocked
/// pixels that meet only at a corner.
pub fn check_segment(grid: &NavGrid, a: Point, b: Point) -> Result<(), String> {
    if !a.is_finite() || !b.is_finite() {
        return Err(format!("segment {a:?} -> {b:?} is not finite"));
    }
    let touched = touched_pixels(a, b);
    if touched.is_empty() {
        return Err(format!("segment {a:?} -> {b:?} touches no pixel"));
    }
    for &(x, y) in &touched {
        if !walkable(grid, x, y) {
            return Err(format!(
                "segment {a:?} -> {b:?} crosses blocked pixel ({x}, {y})"
            ));
        }
    }
    let set: HashSet<(i64, i64)> = touched.iter().copied().collect();
    for &(x, y) in &touched {
        for (sx, sy) in [(1, 1), (1, -1)] {
            if set.contains(&(x + sx, y + sy))
                && !walkable(grid, x + sx, y)
                && !walkable(grid, x, y + sy)
            {
                return Err(format!(
                    "segment {a:?} -> {b:?} squeezes from ({x}, {y}) to ({}, {}) between two \
                     blocked pixels",
                    x + sx,
                    y + sy
                ));
            }
        }
    }
    Ok(())
}

/// [`check_segment`], and the crate's stricter move rule: where the segment passes
/// exactly through a pixel corner from one pixel into its diagonal neighbour, both
/// side pixels at that corner must be walkable (not just one).
pub fn check_segment_strict(grid: &NavGrid, a: Point, b: Point) -> Result<(), String> {
    check_segment(grid, a, b)?;
    for (from, to) in corner_crossings(a, b) {
        let sides = [(to.0, from.1), (from.0, to.1)];
        if let Some(&(x, y)) = sides.iter().find(|&&(x, y)| !walkable(grid, x, y)) {
            return Err(format!(
                "segment {a:?} -> {b:?} cuts the corner of blocked pixel ({x}, {y}) going \
                 from {from:?} to {to:?}"
            ));
        }
    }
    Ok(())
}

/// Checks a whole path: not empty, every point finite, every segment legal (a single
/// point must be on a walkable pixel).
pub fn check_path(grid: &NavGrid, path: &[Point]) -> Result<(), String> {
    check_path_with(grid, path, check_segment)
}

/// [`check_path`] with [`check_segment_strict`].
pub fn check_path_strict(grid: &NavGrid, path: &[Point]) -> Result<(), String> {
    check_path_with(grid, path, check_segment_strict)
}

fn check_path_with(
    grid: &NavGrid,
    path: &[Point],
    check: fn(&NavGrid, Point, Point) -> Result<(), String>,
) -> Result<(), String> {
    match path {
        [] => Err("empty path".to_string()),
        [p] => check(grid, *p, *p),
        _ => path.windows(2).try_for_each(|w| check(grid, w[0], w[1])),
    }
}

/// Length of a polyline in `f64`.
pub fn length(path: &[Point]) -> f64 {
    path.windows(2)
        .map(|w| ((w[1].x - w[0].x) as f64).hypot((w[1].y - w[0].y) as f64))
        .sum()
}

/// Pixels reachable from `from` by 4-connected steps over walkable pixels
/// (row-major, `width * height`). All false when `from` is not walkable.
pub fn flood(grid: &NavGrid, from: (u32, u32)) -> Vec<bool> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let mut seen = vec![false; (w * h) as usize];
    let (fx, fy) = (from.0 as i64, from.1 as i64);
    if !walkable(grid, fx, fy) {
        return seen;
    }
    let mut stack = vec![(fx, fy)];
    seen[(fy * w + fx) as usize] = true;
    while let Some((x, y)) = stack.pop() {
        for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
            if walkable(grid, nx, ny) && !seen[(ny * w + nx) as usize] {
                seen[(ny * w + nx) as usize] = true;
                stack.push((nx, ny));
            }
        }
    }
    seen
}

/// The repository's `testdata` folder: a few real Moving AI maps with their
/// scenarios and the walk masks of a real adventure game (see its README).
pub fn testdata() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// The full benchmark sets, from the folder `WALKMASK_DATA` names (the layout of
/// `testdata`). Without it this says so in one line and gives `None`; a name that
/// is not a folder fails the test.
pub fn full_data(test: &str) -> Option<std::path::PathBuf> {
    let Some(dir) = std::env::var_os("WALKMASK_DATA") else {
        println!(
            "{test}: WALKMASK_DATA is not set, so the full benchmark sets are not read (testdata/README.md)"
        );
        return None;
    };
    let dir = std::path::PathBuf::from(dir);
    assert!(
        dir.is_dir(),
        "WALKMASK_DATA={} is not a folder",
        dir.display()
    );
    Some(dir)
}

/// SplitMix64: a small deterministic generator for mask structure.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use walkmask::{AreaSet, WalkMask};

    fn grid(w: u32, h: u32, cells: &[u8]) -> NavGrid {
        NavGrid::new(WalkMask::new(w, h, cells.to_vec()).unwrap(), AreaSet::all())
    }

    fn p(x: f32, y: f32) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn checker_half_open_pixels() {
        let mut t = touched_pixels(p(0.5, 0.5), p(2.0, 0.5));
        t.sort();
        assert_eq!(t, vec![(0, 0), (1, 0), (2, 0)]);
        let mut t = touched_pixels(p(2.0, 0.5), p(0.5, 0.5));
        t.sort();
        assert_eq!(t, vec![(0, 0), (1, 0), (2, 0)]);
        assert_eq!(touched_pixels(p(1.0, 1.0), p(1.0, 1.0)), vec![(1, 1)]);
        // Along an edge: only the row below/column right of it.
        let mut t = touched_pixels(p(0.5, 1.0), p(2.5, 1.0));
        t.sort();
        assert_eq!(t, vec![(0, 1), (1, 1), (2, 1)]);
        // Through a corner: the two diagonal pixels only.
        let mut t = touched_pixels(p(0.5, 0.5), p(1.5, 1.5));
        t.sort();
        assert_eq!(t, vec![(0, 0), (1, 1)]);
        // Up-right through a corner: the corner point belongs to the pixel below-right.
        let mut t = touched_pixels(p(0.5, 1.5), p(1.5, 0.5));
        t.sort();
        assert_eq!(t, vec![(0, 1), (1, 0), (1, 1)]);
        // Just off a corner.
        let mut t = touched_pixels(p(0.5, 0.5), p(1.5, 1.5f32.next_up()));
        t.sort();
        assert_eq!(t, vec![(0, 0), (0, 1), (1, 1)]);
    }

    #[test]
    fn checker_rejects_squeezes_and_walls() {
        let g = grid(2, 2, &[1, 0, 0, 1]);
        assert!(check_segment(&g, p(0.5, 0.5), p(1.5, 1.5)).is_err());
        assert!(check_segment(&g, p(1.5, 1.5), p(0.5, 0.5)).is_err());
        assert!(check_segment(&g, p(0.5, 0.5), p(0.9, 0.9)).is_ok());
        let g = grid(2, 2, &[1, 1, 0, 1]);
        assert!(check_segment(&g, p(0.5, 0.5), p(1.5, 1.5)).is_ok());
        assert!(check_segment(&g, p(0.5, 1.5), p(1.5, 0.5)).is_err());
        let g = grid(3, 1, &[1, 0, 1]);
        assert!(check_segment(&g, p(0.5, 0.5), p(2.5, 0.5)).is_err());
        assert!(check_segment(&g, p(0.5, 0.5), p(1.0, 0.5)).is_err());
        assert!(check_segment(&g, p(0.5, 0.5), p(1f32.next_down(), 0.5)).is_ok());
        // Tiny coordinates are handled exactly.
        let g = grid(2, 2, &[1, 1, 1, 1]);
        assert!(check_segment(&g, p(1e-30, 0.5), p(1.5, 1e-20)).is_ok());
        assert!(check_segment(&g, p(1e-45, 1.0f32.next_down()), p(0.5, 0.5)).is_ok());
        let g = grid(2, 2, &[1, 0, 0, 1]);
        // Passes the corner (1, 1) by the smallest margins: touches a blocked pixel.
        assert!(
            check_segment(&g, p(1e-45, 0.0), p(2.0f32.next_down(), 2.0f32.next_down())).is_err()
        );
    }

    #[test]
    fn strict_rule_needs_both_sides_at_an_exact_corner() {
        // (0, 1) blocked: passing the corner (1, 1) from (0, 0) to (1, 1) touches only
        // one blocked side, allowed by the squeeze rule, not by the strict rule.
        let g = grid(2, 2, &[1, 1, 0, 1]);
        assert!(check_segment(&g, p(0.5, 0.5), p(1.5, 1.5)).is_ok());
        assert!(check_segment_strict(&g, p(0.5, 0.5), p(1.5, 1.5)).is_err());
        assert!(check_segment_strict(&g, p(1.0, 1.0), p(0.5, 0.5)).is_err());
        assert!(check_segment_strict(&g, p(0.5, 0.5), p(1.0, 1.0)).is_err());
        // Starting at the corner heading down-right, or ending there from below-right,
        // never leaves pixel (1, 1).
        assert!(check_segment_strict(&g, p(1.0, 1.0), p(1.5, 1.5)).is_ok());
        assert!(check_segment_strict(&g, p(1.5, 1.5), p(1.0, 1.0)).is_ok());
        // Near the corner but not through it: a plain walk through (1, 0).
        assert!(check_segment_strict(&g, p(0.5, 0.5), p(1.5, 1.5f32.next_up())).is_err());
        assert!(check_segment_strict(&g, p(0.5, 0.5), p(1.5f32.next_up(), 1.5)).is_ok());
        assert_eq!(
            corner_crossings(p(0.5, 1.5), p(2.5, 3.5)),
            vec![((0, 1), (1, 2)), ((1, 2), (2, 3))]
        );
        assert!(corner_crossings(p(0.5, 1.5), p(2.5, 1.5)).is_empty());
    }

    #[test]
    fn wide_integers() {
        let big = I320::from_i64(i64::MAX).shl(80);
        let product = big.mul(big.neg());
        assert!(product.is_negative());
        assert_eq!(
            product,
            I320::from_i64(i64::MAX)
                .mul(I320::from_i64(-i64::MAX))
                .shl(160)
        );
        assert!(I320::from_i64(-3) < I320::from_i64(2));
        assert!(I320::from_i64(-3).shl(150) < I320::from_i64(-2).shl(150));
        assert_eq!(I320::from_i64(5).sub(I320::from_i64(7)), I320::from_i64(-2));
    }
}
