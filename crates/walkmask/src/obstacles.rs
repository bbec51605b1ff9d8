//! Obstacles over the mask: characters and props that block the way for a while.
//!
//! An [`Obstacle`] is a footprint (a rectangle, a circle or an ellipse, axis-aligned
//! in mask pixels) round a centre. [`Obstacles`] turns each into the pixels it blocks
//! for walkers of the grid's clearance radius: a pixel is blocked when its centre lies
//! closer than `clearance + √2/2` to the footprint, so that every point of every
//! pixel left open keeps at least the clearance from it. Each obstacle is kept as a
//! run of pixels per row, a few bytes a row.
//!
//! The mask is never copied: a query among obstacles marks their pixels in a bitmap
//! the [`Pathfinder`](crate::Pathfinder) keeps (one bit a pixel, reused), runs on the
//! grid seen through that bitmap ([`NavGrid::with_obstacles`] for fields that several
//! walkers share), and clears them again. Every step of the query tests the bitmap as
//! well as the mask. Where obstacles block the subgoal index's path, the query fills
//! round them: over the region for the shortest path, or with
//! [`ObstacleDetours::Local`](crate::ObstacleDetours::Local) only round each blocked
//! stretch of the index's path.
//!
//! Footprints that cover the walker's own pixel when it asks are ignored (Adventure
//! Game Studio's rule): two characters that touch can still walk apart.
//!
//! ```
//! use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
//! use walkmask::{AreaSet, NavGrid, Pathfinder, PathStatus, Point, WalkMask};
//!
//! // A corridor 60 x 9 with a guard standing in the middle of it.
//! let grid = NavGrid::new(WalkMask::from_fn(60, 9, |_, _| 1).unwrap(), AreaSet::all());
//! let mut obstacles = Obstacles::new(&grid);
//! obstacles.push(Obstacle::new(Point::new(30.0, 4.5), Footprint::Circle { radius: 3.0 })).unwrap();
//! let mut pathfinder = Pathfinder::new();
//! let path = pathfinder
//!     .find_path_among(&grid, &obstacles, Point::new(2.5, 4.5), Point::new(57.5, 4.5))
//!     .unwrap();
//! assert_eq!(path.status, PathStatus::Found);
//! assert!(path.waypoints.len() > 2); // round the guard
//! ```

use std::sync::Arc;

use crate::{NavGrid, Point};

/// The shape of an obstacle round its centre, in mask pixels, axis-aligned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Footprint {
    /// A rectangle `2 * half_width` wide and `2 * half_height` high.
    Rect {
        /// Half the width.
        half_width: f32,
        /// Half the height.
        half_height: f32,
    },
    /// A disc.
    Circle {
        /// Its radius.
        radius: f32,
    },
    /// An ellipse with semi-axes along x and y.
    Ellipse {
        /// Semi-axis along x.
        radius_x: f32,
        /// Semi-axis along y.
        radius_y: f32,
    },
}

impl Footprint {
    /// The kind as a number: 0 for a rectangle, 1 for a disc, 2 for an ellipse. With
    /// [`Footprint::sizes`] it is all there is to a footprint, and
    /// [`Footprint::from_kind`] makes it again (for keys and messages).
    ///
    /// ```
    /// use walkmask::obstacles::Footprint;
    /// let guard = Footprint::Ellipse { radius_x: 12.0, radius_y: 5.0 };
    /// let [a, b] = guard.sizes();
    /// assert_eq!(Footprint::from_kind(guard.kind(), a, b), Some(guard));
    /// ```
    pub fn kind(&self) -> u8 {
        match self {
            Footprint::Rect { .. } => 0,
            Footprint::Circle { .. } => 1,
            Footprint::Ellipse { .. } => 2,
        }
    }

    /// The footprint of kind `kind` ([`Footprint::kind`]) and sizes `a` and `b`
    /// ([`Footprint::sizes`]; a disc's radius is `a`); `None` for a kind there is
    /// not.
    pub fn from_kind(kind: u8, a: f32, b: f32) -> Option<Self> {
        match kind {
            0 => Some(Footprint::Rect {
                half_width: a,
                half_height: b,
            }),
            1 => Some(Footprint::Circle { radius: a }),
            2 => Some(Footprint::Ellipse {
                radius_x: a,
                radius_y: b,
            }),
            _ => None,
        }
    }

    /// Its two sizes: half the width and height of a rectangle, a disc's radius
    /// twice, an ellipse's semi-axes.
    pub fn sizes(&self) -> [f32; 2] {
        match *self {
            Footprint::Rect {
                half_width,
                half_height,
            } => [half_width, half_height],
            Footprint::Circle { radius } => [radius, radius],
            Footprint::Ellipse { radius_x, radius_y } => [radius_x, radius_y],
        }
    }

    /// Half the width and height of the smallest box round the footprint.
    ///
    /// ```
    /// use walkmask::obstacles::Footprint;
    /// let guard = Footprint::Ellipse { radius_x: 12.0, radius_y: 5.0 };
    /// assert_eq!(guard.half_extent(), (12.0, 5.0));
    /// ```
    pub fn half_extent(&self) -> (f64, f64) {
        let [a, b] = self.sizes();
        (a as f64, b as f64)
    }

    /// Euclidean distance from the offset `(dx, dy)` (from the centre) to the
    /// footprint; 0 inside it.
    pub fn distance(&self, dx: f64, dy: f64) -> f64 {
        let (x, y) = (dx.abs(), dy.abs());
        match *self {
            Footprint::Rect {
                half_width,
                half_height,
            } => {
                let ox = (x - half_width as f64).max(0.0);
                let oy = (y - half_height as f64).max(0.0);
                norm(ox, oy)
            }
            Footprint::Circle { radius } => (norm(x, y) - radius as f64).max(0.0),
            Footprint::Ellipse { radius_x, radius_y } => {
                distance_to_ellipse(radius_x as f64, radius_y as f64, x, y)
            }
        }
    }
}

impl Footprint {
    /// Whether the offset `(dx, dy)` (from the centre) lies less than `reach` from
    /// the footprint: the same answer as `self.distance(dx, dy) < reach`, but an
    /// ellipse's distance (a root found by Newton steps) is worked out only where
    /// two cheap bounds leave it open. Rasterising asks this of every pixel at the
    /// edge of every obstacle, most of them clearly in or out.
    #[inline]
    fn within(&self, dx: f64, dy: f64, reach: f64) -> bool {
        if let Footprint::Ellipse { radius_x, radius_y } = *self {
            let (a, b) = (radius_x as f64, radius_y as f64);
            let (x, y) = (dx.abs(), dy.abs());
            if a > 0.0 && b > 0.0 && reach.is_finite() {
                let k2 = (x / a).powi(2) + (y / b).powi(2);
                if k2 <= 1.0 {
                    return 0.0 < reach; // inside: distance 0, as `distance` has it
                }
                if k2.is_finite() {
                    // The bounds hold exactly; a margin far above the rounding of
                    // either side keeps the answer the distance's own.
                    let margin = 1e-9 * (1.0 + reach);
                    // Two lower bounds: the norm sqrt((x/a)^2 + (y/b)^2), 1 on the
                    // ellipse, grows at most 1 / min(a, b) per unit of distance; and
                    // the ellipse lies behind its tangent where its normal points
                    // along (x, y) (it reaches |(a x, b y)| / |(x, y)| that way).
                    let k = k2.sqrt();
                    let p = norm(x, y);
                    let (ax, by) = (a * x, b * y);
                    let support = norm(ax, by);
                    let lower = ((k - 1.0) * a.min(b)).max(p - support / p);
                    if lower >= reach + margin {
                        return false;
                    }
                    // Two upper bounds: the distances to the ellipse's point on the
                    // way to the centre and to the point where the normal points
                    // along (x, y).
                    let (qx, qy) = (a * ax / support, b * by / support);
                    let upper = (p * (1.0 - 1.0 / k)).min(norm(x - qx, y - qy));
                    if upper < reach - margin {
                        return true;
                    }
                }
            }
        }
        self.distance(dx, dy) < reach
    }
}

/// Distance from `(x, y)` (both at least 0) to the ellipse with semi-axes `a` along
/// x and `b` along y; 0 inside. Eberly's root of a one-variable function ("Distance
/// from a Point to an Ellipse, an Ellipsoid, or a Hyperellipsoid"), found by Newton
/// steps kept inside a shrinking bracket (a bisection step whenever Newton would leave
/// it), robust for every shape and a few steps for most points.
fn distance_to_ellipse(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if a <= 0.0 || b <= 0.0 {
        // Degenerate: a segment (or a point) along the longer axis.
        let (hx, hy) = (a.max(0.0), b.max(0.0));
        return norm((x - hx).max(0.0), (y - hy).max(0.0));
    }
    if (x / a).powi(2) + (y / b).powi(2) <= 1.0 {
        return 0.0;
    }
    // Eberly's form wants the longer semi-axis first.
    let (e0, e1, y0, y1) = if a >= b { (a, b, x, y) } else { (b, a, y, x) };
    if y1 == 0.0 {
        return y0 - e0;
    }
    if y0 == 0.0 {
        return y1 - e1;
    }
    let (z0, z1) = (y0 / e0, y1 / e1);
    let r0 = (e0 / e1).powi(2);
    let n0 = r0 * z0;
    // The root of g(s) = (n0 / (s + r0))^2 + (z1 / (s + 1))^2 - 1 between these two;
    // g falls and is convex there, so Newton from the left climbs to it.
    let (mut lo, mut hi) = (z1 - 1.0, norm(n0, z1) - 1.0);
    let mut s = lo;
    for _ in 0..200 {
        let (p, q) = (n0 / (s + r0), z1 / (s + 1.0));
        let g = p * p + q * q - 1.0;
        if g > 0.0 {
            lo = s;
        } else if g < 0.0 {
            hi = s;
        } else {
            break;
        }
        let slope = -2.0 * (p * p / (s + r0) + q * q / (s + 1.0));
        let newton = s - g / slope;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            (lo + hi) / 2.0
        };
        if next == s || next <= lo && s == lo || next >= hi && s == hi {
            break;
        }
        if (next - s).abs() <= 2.0 * f64::EPSILON * s.abs().max(1.0) {
            s = next;
            break;
        }
        s = next;
    }
    let (x0, x1) = (r0 * y0 / (s + r0), y1 / (s + 1.0));
    norm(x0 - y0, x1 - y1)
}

/// The length of `(x, y)`: a square root of the sum of squares, which is exact to
/// an ulp or two and overflows only beyond 1e154, far outside any mask (`f64::hypot`
/// guards against that overflow at several times the cost, and footprint distances
/// are computed for every pixel at the edge of every obstacle).
#[inline]
fn norm(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// One obstacle: a footprint round a centre, in mask pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obstacle {
    /// The centre (a character's feet).
    pub center: Point,
    /// The shape round it.
    pub footprint: Footprint,
}

impl Obstacle {
    /// An obstacle with `footprint` round `center`.
    pub fn new(center: Point, footprint: Footprint) -> Self {
        Self { center, footprint }
    }

    /// Its centre, kind of footprint and sizes, bit for bit: equal keys are the same
    /// obstacle, so the pixels one covers can be kept under its key.
    ///
    /// ```
    /// use walkmask::obstacles::{Footprint, Obstacle};
    /// use walkmask::Point;
    ///
    /// let a = Obstacle::new(Point::new(4.0, 5.0), Footprint::Circle { radius: 3.0 });
    /// let b = Obstacle::new(Point::new(4.0, 5.0), Footprint::Ellipse { radius_x: 3.0, radius_y: 3.0 });
    /// assert_eq!(a.key(), a.key());
    /// assert_ne!(a.key(), b.key());
    /// ```
    pub fn key(&self) -> [u32; 5] {
        let [a, b] = self.footprint.sizes();
        [
            self.center.x.to_bits(),
            self.center.y.to_bits(),
            u32::from(self.footprint.kind()),
            a.to_bits(),
            b.to_bits(),
        ]
    }

    /// [`Obstacle::near_segment`] for any segment of `path` (a single point counts
    /// as a segment of no length).
    pub fn near_path(&self, path: &[Point], reach: f32) -> bool {
        any_segment(path, |a, b| self.near_segment(a, b, reach))
    }

    /// Whether a walk along `path` passes over a pixel this obstacle blocks for
    /// walkers of `clearance` pixels on a `width x height` mask, unless it blocks
    /// pixel `except` (where the walker stands): the same answer as
    /// [`Obstacles::first_on_path`] on a set holding only this obstacle, without
    /// working out its pixels. Along each row of pixels, the distance to a footprint
    /// symmetric about its centre is least at the column nearest the centre, so one
    /// distance a row the walk crosses near the obstacle decides it.
    ///
    /// ```
    /// use walkmask::obstacles::{Footprint, Obstacle};
    /// use walkmask::Point;
    /// let guard = Obstacle::new(Point::new(20.0, 10.0), Footprint::Ellipse { radius_x: 6.0, radius_y: 3.0 });
    /// let across = [Point::new(2.5, 10.5), Point::new(38.5, 10.5)];
    /// let below = [Point::new(2.5, 18.5), Point::new(38.5, 18.5)];
    /// assert!(guard.blocks_walk(&across, 40, 20, 2.0, None));
    /// assert!(!guard.blocks_walk(&below, 40, 20, 2.0, None));
    /// // A walker standing in the footprint walks out of it.
    /// assert!(!guard.blocks_walk(&across, 40, 20, 2.0, Some((20, 10))));
    /// ```
    pub fn blocks_walk(
        &self,
        path: &[Point],
        width: u32,
        height: u32,
        clearance: f32,
        except: Option<(u32, u32)>,
    ) -> bool {
        if !self.center.is_finite() || width == 0 || height == 0 {
            return false;
        }
        let clearance = if clearance.is_finite() {
            clearance.max(0.0)
        } else {
            0.0
        };
        let reach = clearance as f64 + std::f64::consts::FRAC_1_SQRT_2;
        let (cx, cy) = (self.center.x as f64, self.center.y as f64);
        let blocked = |x: f64, y: f64| self.footprint.within(x + 0.5 - cx, y + 0.5 - cy, reach);
        if except.is_some_and(|(x, y)| x < width && y < height && blocked(x as f64, y as f64)) {
            return false;
        }
        let (_, hy) = self.footprint.half_extent();
        let (w, h) = (width as f64, height as f64);
        let top = (cy - hy - reach - 0.5).floor().max(0.0);
        let bottom = ((cy + hy + reach + 0.5).ceil() - 1.0).min(h - 1.0);
        let nearest = (cx - 0.5).round();
        any_segment(path, |a, b| {
            // The segment's columns within each band [row, row + 1], on the mask.
            row_bands(a, b, top, bottom).any(|(row, lo, hi)| {
                let (lo, hi) = (lo.max(0.0), hi.min(w - 1.0));
                lo <= hi && blocked(nearest.clamp(lo, hi), row)
            })
        })
    }

    /// Whether the segment `a b` comes within `reach` pixels of the box round the
    /// footprint: a quick test before working out the obstacle's pixels. Never false
    /// when the segment comes within `reach` of the footprint itself.
    pub fn near_segment(&self, a: Point, b: Point, reach: f32) -> bool {
        let (hx, hy) = self.footprint.half_extent();
        // A blocked pixel's centre lies within reach + √2/2 of the footprint and its
        // corners √2/2 further; the per-row test may count one more pixel.
        let grow = reach as f64 + 2.5;
        let (cx, cy) = (self.center.x as f64, self.center.y as f64);
        let (x0, x1) = (cx - hx - grow, cx + hx + grow);
        let (y0, y1) = (cy - hy - grow, cy + hy + grow);
        // Clip the segment to the box (Liang-Barsky).
        let (ax, ay) = (a.x as f64, a.y as f64);
        let (dx, dy) = (b.x as f64 - ax, b.y as f64 - ay);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [(-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
        t0 <= t1
    }
}

/// The rows from `top` to `bottom` (whole numbers) the segment `a b` crosses, each
/// with the first and last column (floored) the segment touches within the band
/// `[row, row + 1]`. Nothing for a segment with a coordinate that is not a number.
fn row_bands(a: Point, b: Point, top: f64, bottom: f64) -> impl Iterator<Item = (f64, f64, f64)> {
    let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
    let y_lo = ay.min(by).floor().max(top);
    let y_hi = ay.max(by).floor().min(bottom);
    let rows = if y_lo.is_nan() || y_hi.is_nan() || y_lo > y_hi {
        0
    } else {
        (y_hi - y_lo) as u64 + 1
    };
    (0..rows).map(move |k| {
        let row = y_lo + k as f64;
        let (xa, xb) = if ay == by {
            (ax, bx)
        } else {
            let at = |y: f64| ax + (bx - ax) * ((y - ay) / (by - ay)).clamp(0.0, 1.0);
            (at(row), at(row + 1.0))
        };
        (row, xa.min(xb).floor(), xa.max(xb).floor())
    })
}

/// Whether `test` holds for a segment of `path`; a single point is a segment of no
/// length, an empty path has none.
fn any_segment(path: &[Point], mut test: impl FnMut(Point, Point) -> bool) -> bool {
    match path {
        [] => false,
        [p] => test(*p, *p),
        _ => path.windows(2).any(|w| test(w[0], w[1])),
    }
}

/// Why an obstacle was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ObstacleError {
    /// The centre is NaN or infinite.
    #[error("obstacle centre ({x}, {y}) is not a finite number")]
    NotFinite {
        /// x as given.
        x: f32,
        /// y as given.
        y: f32,
    },
    /// A size is negative, NaN or infinite.
    #[error("obstacle size {0} is not a finite number of pixels at least 0")]
    BadSize(f32),
}

/// The pixels one obstacle blocks: per row from `first_row`, the columns `[x0, x1)`
/// (empty rows have `x0 == x1`), clipped to the mask.
#[derive(Clone, Debug, PartialEq)]
struct Raster {
    first_row: u32,
    runs: Vec<(u32, u32)>,
}

impl Raster {
    fn covers(&self, x: u32, y: u32) -> bool {
        y.checked_sub(self.first_row)
            .and_then(|r| self.runs.get(r as usize))
            .is_some_and(|&(x0, x1)| x >= x0 && x < x1)
    }

    /// Whether the segment `a b` passes over a pixel of this raster (a pixel it
    /// only touches at an edge or corner may count: the test errs toward blocked).
    fn meets_segment(&self, a: Point, b: Point) -> bool {
        let first_row = self.first_row as f64;
        let last_row = first_row + self.runs.len() as f64 - 1.0;
        row_bands(a, b, first_row, last_row).any(|(row, lo, hi)| {
            let (x0, x1) = self.runs[(row - first_row) as usize];
            x1 > x0 && lo < x1 as f64 && hi >= x0 as f64
        })
    }

    fn rows(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.runs
            .iter()
            .enumerate()
            .filter(|(_, (x0, x1))| x1 > x0)
            .map(|(r, &(x0, x1))| (self.first_row + r as u32, x0, x1))
    }
}

/// The obstacles in a room, turned into pixels for walkers of one clearance radius
/// (the radius of the grid they were made for).
#[derive(Clone, Debug)]
pub struct Obstacles {
    width: u32,
    height: u32,
    clearance: f32,
    obstacles: Vec<Obstacle>,
    rasters: Vec<Raster>,
}

impl Obstacles {
    /// No obstacles yet, for queries on `grid` (its size and clearance radius).
    pub fn new(grid: &NavGrid) -> Self {
        Self::for_size(grid.width(), grid.height(), grid.clearance())
    }

    /// No obstacles yet, for a `width x height` mask and walkers of `clearance`
    /// pixels (taken as 0 when negative or not finite).
    pub fn for_size(width: u32, height: u32, clearance: f32) -> Self {
        Self {
            width,
            height,
            clearance: if clearance.is_finite() {
                clearance.max(0.0)
            } else {
                0.0
            },
            obstacles: Vec::new(),
            rasters: Vec::new(),
        }
    }

    /// The first obstacle (index in push order) that a walk along `path` would pass
    /// over, ignoring those that block pixel `except` (where the walker stands).
    /// Errs toward blocked where a segment only grazes an obstacle's pixel.
    pub fn first_on_path(&self, path: &[Point], except: Option<(u32, u32)>) -> Option<usize> {
        self.on_path(path, except).next()
    }

    /// Every obstacle (index in push order) that a walk along `path` would pass over,
    /// ignoring those that block pixel `except`, as [`Obstacles::first_on_path`].
    pub fn on_path<'a>(
        &'a self,
        path: &'a [Point],
        except: Option<(u32, u32)>,
    ) -> impl Iterator<Item = usize> + 'a {
        self.rasters
            .iter()
            .enumerate()
            .filter_map(move |(i, raster)| {
                let ignored = except.is_some_and(|(x, y)| raster.covers(x, y));
                (!ignored && any_segment(path, |a, b| raster.meets_segment(a, b))).then_some(i)
            })
    }

    /// Adds an obstacle. Its pixels are worked out now: a binary search for each end
    /// of each row, so a few microseconds for a character-sized footprint.
    pub fn push(&mut self, obstacle: Obstacle) -> Result<(), ObstacleError> {
        let c = obstacle.center;
        if !c.is_finite() {
            return Err(ObstacleError::NotFinite { x: c.x, y: c.y });
        }
        for s in obstacle.footprint.sizes() {
            if !(s.is_finite() && s >= 0.0) {
                return Err(ObstacleError::BadSize(s));
            }
        }
        self.rasters.push(self.raster(&obstacle));
        self.obstacles.push(obstacle);
        Ok(())
    }

    /// Adds obstacle `index` of `from` (none when there is no such obstacle). Its
    /// pixels are copied when `from` was made for the same mask size and clearance,
    /// and worked out anew otherwise: a set of obstacles that changes little from
    /// one query to the next can be put together from obstacles worked out once.
    ///
    /// ```
    /// use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
    /// use walkmask::Point;
    /// let mut guard = Obstacles::for_size(64, 64, 2.0);
    /// guard.push(Obstacle::new(Point::new(20.0, 20.0), Footprint::Circle { radius: 4.0 })).unwrap();
    /// let mut room = Obstacles::for_size(64, 64, 2.0);
    /// room.push_from(&guard, 0);
    /// assert_eq!(room.obstacles(), guard.obstacles());
    /// assert!(room.blocks(20, 20) && !room.blocks(40, 40));
    /// ```
    pub fn push_from(&mut self, from: &Obstacles, index: usize) {
        let Some(&obstacle) = from.obstacles.get(index) else {
            return;
        };
        if (from.width, from.height) == (self.width, self.height)
            && from.clearance.to_bits() == self.clearance.to_bits()
        {
            self.rasters.push(from.rasters[index].clone());
        } else {
            self.rasters.push(self.raster(&obstacle));
        }
        self.obstacles.push(obstacle);
    }

    /// Removes every obstacle (keeping the allocations).
    pub fn clear(&mut self) {
        self.obstacles.clear();
        self.rasters.clear();
    }

    /// The obstacles, in the order they were pushed.
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// Number of obstacles.
    pub fn len(&self) -> usize {
        self.obstacles.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.obstacles.is_empty()
    }

    /// The clearance radius (pixels) the obstacles were widened by.
    pub fn clearance(&self) -> f32 {
        self.clearance
    }

    /// Whether any obstacle blocks pixel `(x, y)`.
    pub fn blocks(&self, x: u32, y: u32) -> bool {
        self.rasters.iter().any(|r| r.covers(x, y))
    }

    /// Whether obstacle `index` blocks pixel `(x, y)`.
    pub fn obstacle_blocks(&self, index: usize, x: u32, y: u32) -> bool {
        self.rasters.get(index).is_some_and(|r| r.covers(x, y))
    }

    /// Pixels an obstacle blocks, clipped to the mask.
    fn raster(&self, obstacle: &Obstacle) -> Raster {
        let reach = self.clearance as f64 + std::f64::consts::FRAC_1_SQRT_2;
        let (hx, hy) = obstacle.footprint.half_extent();
        let (cx, cy) = (obstacle.center.x as f64, obstacle.center.y as f64);
        let (w, h) = (self.width as f64, self.height as f64);
        // Rows whose centres can be within reach.
        let top = (cy - hy - reach - 0.5).floor().clamp(0.0, h);
        let bottom = (cy + hy + reach + 0.5).ceil().clamp(0.0, h);
        let mut runs = Vec::with_capacity((bottom - top) as usize);
        let blocked = |x: f64, y: f64| obstacle.footprint.within(x + 0.5 - cx, y + 0.5 - cy, reach);
        // Columns whose centres can be within reach, as pixel indices (may be
        // outside the mask; clipped below).
        // Clamped to one column beyond each side of the mask, which then stands for
        // everything outside (the runs are clipped to the mask anyway), so the
        // searches stay short whatever the footprint's size.
        let left = ((cx - hx - reach - 0.5).floor() - 1.0).max(-1.0);
        let right = ((cx + hx + reach + 0.5).ceil() + 1.0).min(w);
        if left >= right {
            // Wholly beside the mask.
            return Raster {
                first_row: 0,
                runs: Vec::new(),
            };
        }
        let centre = (cx - 0.5).round().clamp(left, right);
        // The previous row's run: the next row's ends are near it, so the search for
        // each end starts there and gallops out (a few tests a row, not a bisection
        // of the whole width).
        let mut previous: Option<f64> = None;
        for row in top as u32..bottom as u32 {
            let y = row as f64;
            // Along a row the distance to a convex footprint symmetric about its
            // centre falls until the centre column and rises after it, so the
            // blocked pixels are one run round the nearest column to the centre.
            let pivot = [centre, centre - 1.0, centre + 1.0]
                .into_iter()
                .find(|&x| blocked(x, y));
            let Some(pivot) = pivot else {
                runs.push((0, 0));
                previous = None;
                continue;
            };
            let guess_first = previous.unwrap_or(pivot);
            // First blocked column: in (left, pivot].
            let first = first_true(left, pivot, guess_first, |x| blocked(x, y));
            // Last blocked column: in [pivot, right). The test depends on the
            // column's distance from the centre alone and holds up to some
            // distance, so every column right of the centre no farther from it than
            // `first` is blocked, and the search starts past the farthest of those
            // (one test, or two, unless the mask's edge cut `first` short).
            let reach_first = (first + 0.5 - cx).abs();
            let mut known = (cx - 0.5 + reach_first).floor().max(pivot);
            while known > pivot && (known + 0.5 - cx).abs() > reach_first {
                known -= 1.0;
            }
            let known = known.min(right - 1.0);
            let last = -first_true(-right, -known, -(known + 1.0), |x| blocked(-x, y));
            previous = Some(first);
            let x0 = first.clamp(0.0, w) as u32;
            let x1 = (last + 1.0).clamp(0.0, w) as u32;
            runs.push((x0, x1.max(x0)));
        }
        Raster {
            first_row: top as u32,
            runs,
        }
    }
}

/// The least column in `(lo, hi]` where `test` holds, for a `test` that fails up to
/// some column and holds from there on, and holds at `hi` (`lo` is taken to fail,
/// untested). The search starts at `guess`, gallops away from it by doubling steps
/// until the answer is bracketed, then bisects: a few tests when the guess is near.
fn first_true(lo: f64, hi: f64, guess: f64, test: impl Fn(f64) -> bool) -> f64 {
    if hi - lo <= 1.0 {
        return hi;
    }
    let guess = guess.clamp(lo + 1.0, hi);
    let (mut lo, mut hi) = if test(guess) {
        // The answer is at or left of the guess.
        let (mut hi_seen, mut step) = (guess, 1.0);
        loop {
            let x = hi_seen - step;
            if x <= lo {
                break (lo, hi_seen);
            }
            if !test(x) {
                break (x, hi_seen);
            }
            hi_seen = x;
            step *= 2.0;
        }
    } else {
        // Right of the guess.
        let (mut lo_seen, mut step) = (guess, 1.0);
        loop {
            let x = lo_seen + step;
            if x >= hi {
                break (lo_seen, hi);
            }
            if test(x) {
                break (lo_seen, x);
            }
            lo_seen = x;
            step *= 2.0;
        }
    };
    while hi - lo > 1.0 {
        let mid = ((lo + hi) / 2.0).floor();
        if test(mid) { hi = mid } else { lo = mid }
    }
    hi
}

/// One bit a pixel over a grid's padded layout: set = blocked by an obstacle.
#[derive(Clone, Debug, Default)]
pub(crate) struct ObstacleBits {
    words: Vec<u64>,
    /// Every set bit lies in `[lo, hi)`: a test outside it reads no memory.
    lo: usize,
    hi: usize,
}

impl ObstacleBits {
    /// Bits for a padded grid of `len` cells, all clear.
    pub(crate) fn for_len(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)],
            lo: 0,
            hi: 0,
        }
    }

    /// Makes room for `len` cells (clearing everything when the size changes).
    pub(crate) fn fit(&mut self, len: usize) {
        if self.words.len() != len.div_ceil(64) {
            self.words.clear();
            self.words.resize(len.div_ceil(64), 0);
            (self.lo, self.hi) = (0, 0);
        }
    }

    /// Whether padded cell `i` is blocked.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> bool {
        i >= self.lo && i < self.hi && (self.words[i >> 6] >> (i & 63)) & 1 != 0
    }

    /// Sets (`value` true) the bits of the obstacles in `obstacles` on `grid`,
    /// skipping those that cover pixel `except`; or clears them again (`value`
    /// false, with the same arguments), leaving no bit set.
    pub(crate) fn stamp(
        &mut self,
        grid: &NavGrid,
        obstacles: &Obstacles,
        except: Option<(u32, u32)>,
        value: bool,
    ) {
        let pw = grid.padded_width();
        let (w, h) = (grid.width(), grid.height());
        for raster in &obstacles.rasters {
            if except.is_some_and(|(x, y)| raster.covers(x, y)) {
                continue;
            }
            for (y, x0, x1) in raster.rows() {
                if y >= h {
                    break;
                }
                let (x0, x1) = (x0.min(w), x1.min(w));
                let start = (y as usize + 1) * pw + x0 as usize + 1;
                self.set_range(start, start + (x1 - x0) as usize, value);
            }
        }
        if !value {
            (self.lo, self.hi) = (0, 0);
        }
    }

    /// The first set bit in `[from, to)`.
    pub(crate) fn first_set(&self, from: usize, to: usize) -> Option<usize> {
        let (from, to) = (from.max(self.lo), to.min(self.hi));
        let mut i = from;
        while i < to {
            let word = self.words[i >> 6] >> (i & 63);
            if word != 0 {
                let found = i + word.trailing_zeros() as usize;
                return (found < to).then_some(found);
            }
            i = (i | 63) + 1;
        }
        None
    }

    /// The last set bit in `[from, to)`.
    pub(crate) fn last_set(&self, from: usize, to: usize) -> Option<usize> {
        let (from, to) = (from.max(self.lo), to.min(self.hi));
        let mut end = to; // exclusive
        while end > from {
            let i = end - 1;
            let word = self.words[i >> 6] << (63 - (i & 63));
            if word != 0 {
                let found = i - word.leading_zeros() as usize;
                return (found >= from).then_some(found);
            }
            end = i & !63;
        }
        None
    }

    /// Sets or clears bits `[from, to)`.
    fn set_range(&mut self, from: usize, to: usize, value: bool) {
        if value && from < to {
            if self.lo == self.hi {
                (self.lo, self.hi) = (from, to);
            } else {
                (self.lo, self.hi) = (self.lo.min(from), self.hi.max(to));
            }
        }
        let mut i = from;
        while i < to {
            let word = i >> 6;
            let bit = i & 63;
            let n = (64 - bit).min(to - i);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << bit
            };
            if value {
                self.words[word] |= mask;
            } else {
                self.words[word] &= !mask;
            }
            i += n;
        }
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

/// Shared bits, as a grid seen through obstacles holds them.
pub(crate) type SharedBits = Arc<ObstacleBits>;

/// Reusable bits for looking at grids through obstacles, a few at a time: the first
/// look allocates one bit a pixel, later ones set and clear only the obstacles'
/// pixels, so a look costs what the obstacles cover rather than what the mask does
/// (steering a walker past the characters near it every frame, say).
///
/// ```
/// use walkmask::obstacles::{Footprint, Obstacle, ObstacleView, Obstacles};
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
///
/// let grid = NavGrid::new(WalkMask::from_fn(40, 20, |_, _| 1).unwrap(), AreaSet::all());
/// let mut obstacles = Obstacles::new(&grid);
/// obstacles.push(Obstacle::new(Point::new(20.0, 10.0), Footprint::Circle { radius: 3.0 })).unwrap();
/// let mut view = ObstacleView::default();
/// assert!(!view.look(&grid, &obstacles, None, |seen| seen.is_walkable(20, 10)));
/// // The grid itself is untouched, and the bits are clear again.
/// assert!(grid.is_walkable(20, 10));
/// assert!(view.look(&grid, &Obstacles::new(&grid), None, |seen| seen.is_walkable(20, 10)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ObstacleView {
    bits: Option<SharedBits>,
}

impl ObstacleView {
    /// Calls `see` with `grid` seen through `obstacles` (but those that block pixel
    /// `except`, where a walker stands), and returns what it returns.
    pub fn look<R>(
        &mut self,
        grid: &NavGrid,
        obstacles: &Obstacles,
        except: Option<(u32, u32)>,
        see: impl FnOnce(&NavGrid) -> R,
    ) -> R {
        if obstacles.is_empty() {
            return see(grid);
        }
        let mut bits = match (self.bits.take(), grid.obstacle_bits()) {
            // Obstacles on top of obstacles: start from the grid's own.
            (_, Some(theirs)) => SharedBits::new(theirs.clone()),
            (Some(ours), None) => ours,
            (None, None) => SharedBits::new(ObstacleBits::default()),
        };
        let len = grid.labels().len();
        let stamp = |bits: &mut SharedBits, value: bool| {
            let bits = SharedBits::make_mut(bits);
            bits.fit(len);
            bits.stamp(grid, obstacles, except, value);
        };
        stamp(&mut bits, true);
        let view = grid.with_bits(bits.clone());
        let answer = see(&view);
        drop(view);
        if !grid.has_obstacles() {
            stamp(&mut bits, false);
            self.bits = Some(bits);
        }
        answer
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.bits.as_ref().map_or(0, |b| b.memory_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipse_distance_matches_sampling() {
        for &(a, b) in &[(5.0, 2.0), (2.0, 5.0), (3.0, 3.0), (10.0, 0.5)] {
            for &(x, y) in &[
                (7.0, 0.0),
                (0.0, 7.0),
                (4.0, 4.0),
                (9.0, 1.0),
                (1.0, 0.2),
                (12.0, 3.0),
            ] {
                let sampled = (0..20000)
                    .map(|k| {
                        let t = k as f64 / 20000.0 * std::f64::consts::TAU;
                        (a * t.cos() - x).hypot(b * t.sin() - y)
                    })
                    .fold(f64::INFINITY, f64::min);
                let inside = (x / a).powi(2) + (y / b).powi(2) <= 1.0;
                let d = distance_to_ellipse(a, b, x, y);
                if inside {
                    assert_eq!(d, 0.0);
                } else {
                    assert!(
                        (d - sampled).abs() < 1e-3,
                        "{a} {b} ({x}, {y}): {d} vs {sampled}"
                    );
                }
            }
        }
    }

    /// The bisection this module used before Newton steps: slow and sure.
    fn distance_to_ellipse_by_bisection(a: f64, b: f64, x: f64, y: f64) -> f64 {
        if (x / a).powi(2) + (y / b).powi(2) <= 1.0 {
            return 0.0;
        }
        let (e0, e1, y0, y1) = if a >= b { (a, b, x, y) } else { (b, a, y, x) };
        if y1 == 0.0 {
            return y0 - e0;
        }
        if y0 == 0.0 {
            return y1 - e1;
        }
        let (z0, z1) = (y0 / e0, y1 / e1);
        let r0 = (e0 / e1).powi(2);
        let n0 = r0 * z0;
        let (mut s0, mut s1) = (z1 - 1.0, n0.hypot(z1) - 1.0);
        let mut s = s0;
        for _ in 0..2000 {
            s = (s0 + s1) / 2.0;
            if s == s0 || s == s1 {
                break;
            }
            let g = (n0 / (s + r0)).powi(2) + (z1 / (s + 1.0)).powi(2) - 1.0;
            if g > 0.0 {
                s0 = s;
            } else if g < 0.0 {
                s1 = s;
            } else {
                break;
            }
        }
        let (x0, x1) = (r0 * y0 / (s + r0), y1 / (s + 1.0));
        (x0 - y0).hypot(x1 - y1)
    }

    /// Floats uniform in [0, 1) from an xorshift generator started at `seed`.
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut next = crate::test_rng::xorshift(seed);
        move || (next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The bounds never change the answer: `within` is `distance < reach` for every
    /// footprint, offset and reach, at the reach of the distance itself and the
    /// floats beside it included.
    #[test]
    fn within_answers_as_the_distance_does() {
        let mut next = uniform(0x9e37_79b9_7f4a_7c15u64);
        for case in 0..300_000 {
            let size = |u: f64| {
                if case % 7 == 0 {
                    u * 0.5
                } else {
                    0.01 + u * 60.0
                }
            };
            let (a, b) = (size(next()) as f32, size(next()) as f32);
            let footprint = match case % 5 {
                0 => Footprint::Circle { radius: a },
                1 => Footprint::Rect {
                    half_width: a,
                    half_height: b,
                },
                _ => Footprint::Ellipse {
                    radius_x: a,
                    radius_y: b,
                },
            };
            let (dx, dy) = ((next() - 0.5) * 200.0, (next() - 0.5) * 200.0);
            let d = footprint.distance(dx, dy);
            let reaches = [
                next() * 100.0,
                d,
                d.next_up(),
                d.next_down(),
                d + 1e-12,
                (d - 1e-12).max(0.0),
                0.0,
            ];
            for reach in reaches {
                assert_eq!(
                    footprint.within(dx, dy, reach),
                    d < reach,
                    "{footprint:?} ({dx}, {dy}) reach {reach}, distance {d}"
                );
            }
        }
    }

    #[test]
    fn ellipse_distance_matches_bisection() {
        let mut next = uniform(0x2545_f491_4f6c_dd1du64);
        for _ in 0..200_000 {
            let (a, b) = (0.01 + next() * 60.0, 0.01 + next() * 60.0);
            let (x, y) = (next() * 100.0, next() * 100.0);
            let (fast, sure) = (
                distance_to_ellipse(a, b, x, y),
                distance_to_ellipse_by_bisection(a, b, x, y),
            );
            assert!(
                (fast - sure).abs() <= 1e-10 * sure.max(1.0),
                "{a} {b} ({x}, {y}): {fast} vs {sure}"
            );
        }
    }

    #[test]
    fn bit_ranges() {
        let mut bits = ObstacleBits::for_len(300);
        bits.set_range(3, 200, true);
        assert!(!bits.get(2) && bits.get(3) && bits.get(64) && bits.get(199) && !bits.get(200));
        bits.set_range(60, 130, false);
        assert!(bits.get(59) && !bits.get(60) && !bits.get(129) && bits.get(130));
        for from in 0..300 {
            for to in from..300 {
                let set: Vec<usize> = (from..to).filter(|&i| bits.get(i)).collect();
                assert_eq!(bits.first_set(from, to), set.first().copied());
                assert_eq!(bits.last_set(from, to), set.last().copied());
            }
        }
    }
}
