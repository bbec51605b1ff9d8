//! Random masks and queries for the property tests: seven kinds of mask (noise,
//! rooms with doors, lines, checkerboards, obstacles, area noise), area sets, and
//! points on centres, edges and the far border.

use proptest::prelude::*;
use walkmask::{AreaSet, NavGrid, Point, WalkMask};

use super::Rng;

/// The kinds of mask the generator draws.
pub const KINDS: [&str; 7] = [
    "noise",
    "rooms",
    "walkable-lines",
    "blocked-lines",
    "checkerboard",
    "obstacles",
    "area-noise",
];

/// A random mask with an area set.
#[derive(Clone)]
pub struct Case {
    pub kind: &'static str,
    pub w: u32,
    pub h: u32,
    pub cells: Vec<u8>,
    pub areas: AreaSet,
}

impl std::fmt::Debug for Case {
    /// The mask as text: `.` enabled area 1, other digits/letters enabled areas,
    /// `#` blocked, `-` a disabled area.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.areas == AreaSet::all() {
            writeln!(f, "{} {}x{} all areas", self.kind, self.w, self.h)?;
        } else {
            writeln!(
                f,
                "{} {}x{} areas {:?}",
                self.kind, self.w, self.h, self.areas
            )?;
        }
        for row in self.cells.chunks(self.w as usize) {
            let line: String = row
                .iter()
                .map(|&a| match a {
                    0 => '#',
                    a if !self.areas.contains(a) => '-',
                    1 => '.',
                    a => char::from_digit(a as u32 % 36, 36).unwrap_or('?'),
                })
                .collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Draws a 1-pixel line of `value` from `(x, y)` in one of four styles: horizontal,
/// vertical, diagonal (pixels meeting only at corners) or a 4-connected staircase.
fn line(cells: &mut [u8], w: u32, h: u32, rng: &mut Rng, value: u8) {
    let (mut x, mut y) = (rng.below(w) as i64, rng.below(h) as i64);
    let style = rng.below(4);
    let len = 1 + rng.below(w.max(h) + 1) as i64;
    let (sx, sy) = (
        if rng.chance(0.5) { 1 } else { -1 },
        if rng.chance(0.5) { 1 } else { -1 },
    );
    let mut set = |x: i64, y: i64| {
        if x >= 0 && y >= 0 && x < w as i64 && y < h as i64 {
            cells[(y * w as i64 + x) as usize] = value;
        }
    };
    for i in 0..len {
        set(x, y);
        match style {
            0 => x += sx,
            1 => y += sy,
            2 => {
                x += sx;
                y += sy;
            }
            _ => {
                if i % 2 == 0 {
                    x += sx;
                } else {
                    y += sy;
                }
            }
        }
    }
}

impl Case {
    pub fn build(kind: usize, w: u32, h: u32, seed: u64, density: u8) -> Case {
        let mut rng = Rng(seed);
        let n = (w * h) as usize;
        let density = density as f64 / 100.0;
        let at = |x: u32, y: u32| (y * w + x) as usize;
        let mut cells = vec![1u8; n];
        match kind {
            0 => {
                for c in cells.iter_mut() {
                    *c = u8::from(!rng.chance(density));
                }
            }
            1 => {
                // Walls across the room, each with 0 to 2 doors 1 to 3 pixels wide.
                let walls = 1 + rng.below(3 + (w + h) / 8);
                for _ in 0..walls {
                    let vertical = rng.chance(0.5);
                    let (span, across) = if vertical { (h, w) } else { (w, h) };
                    let at_pos = rng.below(across);
                    let (from, to) = if rng.chance(0.3) {
                        let a = rng.below(span);
                        (a, a + rng.below(span - a) + 1)
                    } else {
                        (0, span)
                    };
                    let mut wall = vec![true; span as usize];
                    for _ in 0..rng.below(3) {
                        let door = rng.below(span);
                        for d in door..(door + 1 + rng.below(3)).min(span) {
                            wall[d as usize] = false;
                        }
                    }
                    for s in from..to {
                        if wall[s as usize] {
                            let i = if vertical {
                                at(at_pos, s)
                            } else {
                                at(s, at_pos)
                            };
                            cells[i] = 0;
                        }
                    }
                }
            }
            2 | 3 => {
                let (background, ink) = if kind == 2 { (0, 1) } else { (1, 0) };
                cells.fill(background);
                for _ in 0..1 + rng.below(6) {
                    line(&mut cells, w, h, &mut rng, ink);
                }
            }
            4 => {
                let size = 1 + rng.below(3);
                let phase = rng.below(2);
                let open_rows = rng.chance(0.3);
                for y in 0..h {
                    for x in 0..w {
                        let checker = (x / size + y / size + phase).is_multiple_of(2);
                        let open = open_rows && y % 5 == 4;
                        cells[at(x, y)] = u8::from(checker || open || rng.chance(density * 0.2));
                    }
                }
            }
            5 => {
                // Rectangles and discs on an open field.
                for _ in 0..rng.below(6) {
                    let (cx, cy) = (rng.below(w) as i64, rng.below(h) as i64);
                    let (rx, ry) = (rng.below(w / 3 + 1) as i64, rng.below(h / 3 + 1) as i64);
                    let disc = rng.chance(0.5);
                    for y in 0..h as i64 {
                        for x in 0..w as i64 {
                            let (dx, dy) = (x - cx, y - cy);
                            let inside = if disc {
                                let r = rx.max(ry).max(1) as f64;
                                ((dx * dx + dy * dy) as f64) < r * r
                            } else {
                                dx.abs() <= rx && dy.abs() <= ry
                            };
                            if inside {
                                cells[at(x as u32, y as u32)] = 0;
                            }
                        }
                    }
                }
            }
            _ => {
                // Area ids in Voronoi cells plus noise, some blocked.
                let k = 2 + rng.below(4);
                let seeds: Vec<(i64, i64, u8)> = (0..k)
                    .map(|i| (rng.below(w) as i64, rng.below(h) as i64, 1 + i as u8))
                    .collect();
                for y in 0..h {
                    for x in 0..w {
                        let nearest = seeds
                            .iter()
                            .min_by_key(|(sx, sy, _)| {
                                (sx - x as i64).pow(2) + (sy - y as i64).pow(2)
                            })
                            .map(|s| s.2)
                            .unwrap_or(1);
                        cells[at(x, y)] = if rng.chance(density * 0.5) {
                            rng.below(k + 1) as u8
                        } else {
                            nearest
                        };
                    }
                }
            }
        }
        // Area sets: usually everything; sometimes several area ids and a random
        // subset of them enabled (possibly none).
        let mut areas = AreaSet::all();
        if kind == 6 || rng.chance(0.25) {
            if kind != 6 {
                let k = 2 + rng.below(3);
                for c in cells.iter_mut() {
                    if *c != 0 {
                        *c = 1 + rng.below(k) as u8;
                    }
                }
            }
            areas = AreaSet::none();
            for id in 1..=6u8 {
                if rng.chance(0.6) {
                    areas.insert(id);
                }
            }
        } else if rng.chance(0.1) {
            areas = AreaSet::only(&[1]);
        }
        Case {
            kind: KINDS[kind],
            w,
            h,
            cells,
            areas,
        }
    }

    pub fn grid(&self) -> NavGrid {
        NavGrid::new(
            WalkMask::new(self.w, self.h, self.cells.clone()).expect("valid size"),
            self.areas,
        )
    }
}

/// One coordinate on an axis of `n` pixels, by `mode`: a pixel centre, an arbitrary
/// value, a pixel edge, just below or above an edge, zero, negative zero, or the
/// largest value inside.
pub fn coordinate(mode: u8, f: u32, n: u32) -> f32 {
    let k = f % n;
    match mode % 8 {
        0 => k as f32 + 0.5,
        1 => {
            let v = (f as f64 / 4_294_967_296.0 * n as f64) as f32;
            if v >= n as f32 {
                (n as f32).next_down()
            } else {
                v
            }
        }
        2 => k as f32,
        3 => (k as f32 + 1.0).next_down(),
        4 => (k as f32).next_up().min((n as f32).next_down()),
        5 => 0.0,
        6 => -0.0,
        _ => (n as f32).next_down(),
    }
}

/// A point inside a `w x h` mask: each axis drawn by [`coordinate`].
pub fn make_point((mode, fx, fy): (u8, u32, u32), w: u32, h: u32) -> Point {
    // Mostly centres and arbitrary values; edges and corners often enough.
    let mx = mode % 8;
    let my = (mode / 8) % 8;
    Point::new(coordinate(mx, fx, w), coordinate(my, fy, h))
}

/// A mask, an area set, a start and a destination.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub case: Case,
    pub start: Point,
    pub goal: Point,
}

pub fn size() -> impl Strategy<Value = u32> {
    prop_oneof![1u32..=6, 1u32..=48]
}

pub fn point_spec() -> impl Strategy<Value = (u8, u32, u32)> {
    (0u8..64, any::<u32>(), any::<u32>())
}

pub fn scenario() -> impl Strategy<Value = Scenario> {
    (
        0..KINDS.len(),
        size(),
        size(),
        any::<u64>(),
        0u8..=100,
        point_spec(),
        point_spec(),
    )
        .prop_map(|(kind, w, h, seed, density, s, g)| {
            let case = Case::build(kind, w, h, seed, density);
            Scenario {
                start: make_point(s, w, h),
                goal: make_point(g, w, h),
                case,
            }
        })
}

/// `default_cases` cases per property, or `PROPTEST_CASES` when set (for longer soak
/// runs); failures are not persisted (the inputs print in full).
pub fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}
