//! Clearance: keeping a walker of some radius off the walls.
//!
//! A walker with radius `r` (in pixels) may stand on a pixel when the pixel's centre
//! is at least `r + (√2 − 1) / 2` from the centre of every blocked pixel (the pixels
//! outside the mask count as blocked). Every point of a pixel lies within `√2 / 2` of
//! its centre, so every point of a path over such pixels keeps at least `r − 1/2`
//! from every blocked pixel centre, which is at least `r − 1` from the blocked
//! pixel's nearest point. With `r = 0` every walkable pixel qualifies.
//!
//! The distances come from an exact Euclidean distance transform (Felzenszwalb and
//! Huttenlocher, "Distance Transforms of Sampled Functions", 2012): one pass down the
//! columns and one lower envelope of parabolas along the rows, linear in the number
//! of pixels, in integers throughout. A [`NavGrid`](crate::NavGrid) built with
//! [`NavGrid::with_clearance`](crate::NavGrid::with_clearance) keeps only the pixels
//! that qualify; every later step of a query (fill, trace, line of sight, snapping,
//! the taut step) then sees the widened obstacles without knowing of them.

use crate::pause::{NeverPause, Pause, checkpoint, run_through};

/// Extra distance added to a walker's radius so that whole pixels, not just their
/// centres, keep within half a pixel of the radius: `(√2 − 1) / 2`.
pub const PIXEL_SLACK: f64 = (std::f64::consts::SQRT_2 - 1.0) / 2.0;

/// Why a clearance radius was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ClearanceError {
    /// The radius is negative, NaN or infinite.
    #[error("clearance radius {0} is not a finite number of pixels at least 0")]
    BadRadius(f32),
}

/// Checks a clearance radius in pixels.
pub fn check_radius(radius: f32) -> Result<f32, ClearanceError> {
    if radius.is_finite() && radius >= 0.0 {
        Ok(radius)
    } else {
        Err(ClearanceError::BadRadius(radius))
    }
}

/// Squared distance, in pixels squared, a pixel centre must keep from every blocked
/// pixel centre for a walker of `radius` pixels to stand on it.
pub fn min_squared_distance(radius: f32) -> f64 {
    let t = radius as f64 + PIXEL_SLACK;
    t * t
}

/// Squared distances are kept up to this value: larger ones are stored as it (a
/// radius of 32 768 pixels; no mask comes near).
pub const DISTANCE_CAP: u32 = 1 << 30;

/// Squared Euclidean distance from each cell of a `width x height` grid to the
/// nearest cell where `blocked` is true, in whole cells squared, capped at
/// [`DISTANCE_CAP`]. Every column must hold a blocked cell (a padded grid with a
/// blocked border does). Four bytes a cell, plus a few rows of work space.
///
/// ```
/// use walkmask::clearance::squared_distances;
/// // A 5 x 3 grid blocked round its border.
/// let blocked = |x: usize, y: usize| x == 0 || y == 0 || x == 4 || y == 2;
/// let cells: Vec<bool> = (0..15).map(|i| blocked(i % 5, i / 5)).collect();
/// let d = squared_distances(&cells, 5, 3);
/// assert_eq!(&d[5..10], &[0, 1, 1, 1, 0]);
/// ```
pub fn squared_distances(blocked: &[bool], width: usize, height: usize) -> Vec<u32> {
    squared_distances_by(width, height, |i| blocked[i])
}

/// [`squared_distances`] with the blocked test as a function of the cell index,
/// stopping once a row wherever `pause` asks ([`crate::pause`]).
pub(crate) async fn squared_distances_pausing(
    width: usize,
    height: usize,
    blocked: impl Fn(usize) -> bool,
    pause: &mut impl Pause,
) -> Vec<u32> {
    assert!(width > 0 && height > 0, "an empty grid has no distances");
    // Columns: distance to the nearest blocked cell above or below, in cells, row by
    // row (each pass reads the grid in memory order, keeping one value per column).
    // Capping the input at C caps the output at C exactly: the cell itself is a
    // candidate root at horizontal distance 0, so min(d, C) comes out.
    let mut d = vec![FAR; width * height];
    let mut last: Vec<u32> = vec![FAR; width]; // row of the last blocked cell seen
    for (y, row) in d.chunks_exact_mut(width).enumerate() {
        down_row(row, y, &mut last, |x| blocked(y * width + x));
        checkpoint(pause).await;
    }
    last.fill(FAR);
    for (y, row) in d.chunks_exact_mut(width).enumerate().rev() {
        up_row(row, y, &mut last);
        checkpoint(pause).await;
    }
    // Rows: the lower envelope of the parabolas (q - x)^2 + f(q), in exact integer
    // arithmetic: 64-bit while products stay below 2^63 (rows up to 65 536 cells),
    // else 128-bit.
    if width <= 1 << 16 {
        let mut envelope = LowerEnvelope::<i64>::new(width, 1 << 40);
        for row in d.chunks_exact_mut(width) {
            envelope.apply(row);
            checkpoint(pause).await;
        }
    } else {
        let mut envelope = LowerEnvelope::<i128>::new(width, 1 << 90);
        for row in d.chunks_exact_mut(width) {
            envelope.apply(row);
            checkpoint(pause).await;
        }
    }
    d
}

/// No blocked cell seen yet in a column.
const FAR: u32 = u32::MAX;

/// The pass down the columns, row `y`: distance to the last blocked cell above.
#[inline]
fn down_row(row: &mut [u32], y: usize, last: &mut [u32], blocked: impl Fn(usize) -> bool) {
    for (x, (out, last)) in row.iter_mut().zip(last.iter_mut()).enumerate() {
        if blocked(x) {
            *last = y as u32;
            *out = 0;
        } else if *last != FAR {
            *out = y as u32 - *last;
        }
    }
}

/// The pass up the columns, row `y`: the nearer of the blocked cells above and below,
/// squared.
#[inline]
fn up_row(row: &mut [u32], y: usize, last: &mut [u32]) {
    for (x, (out, last)) in row.iter_mut().zip(last.iter_mut()).enumerate() {
        if *out == 0 {
            *last = y as u32;
        } else if *last != FAR {
            *out = (*out).min(*last - y as u32);
        }
        assert!(*out != FAR, "column {x} has no blocked cell");
        *out = (*out as u64 * *out as u64).min(DISTANCE_CAP as u64) as u32;
    }
}

/// [`squared_distances`] with the blocked test as a function of the cell index.
pub(crate) fn squared_distances_by(
    width: usize,
    height: usize,
    blocked: impl Fn(usize) -> bool,
) -> Vec<u32> {
    run_through(squared_distances_pausing(
        width,
        height,
        blocked,
        &mut NeverPause,
    ))
}

/// The integers the row pass computes in.
trait Exact:
    Copy
    + PartialOrd
    + From<i64>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
}

impl Exact for i64 {}
impl Exact for i128 {}

/// The row pass: replaces a row of squared column distances by the squared distance
/// to the nearest blocked cell, the lower envelope of the parabolas rooted at its
/// cells. Holds the work space for rows of one width.
struct LowerEnvelope<T> {
    f: Vec<u32>,
    vertices: Vec<usize>,
    /// Where parabola k of the envelope starts to be the lowest, as a fraction
    /// (numerator, denominator) so that every comparison is exact.
    starts: Vec<(T, T)>,
    /// Beyond every intersection, and exact times a denominator.
    far: T,
}

impl<T: Exact> LowerEnvelope<T> {
    fn new(width: usize, far: T) -> Self {
        Self {
            f: vec![0u32; width],
            vertices: vec![0usize; width],
            starts: vec![(T::from(0), T::from(1)); width + 1],
            far,
        }
    }

    fn apply(&mut self, row: &mut [u32]) {
        let width = row.len();
        self.f.copy_from_slice(row);
        let (f, vertices, starts): (&[u32], &mut [usize], &mut [(T, T)]) =
            (&self.f, &mut self.vertices, &mut self.starts);
        let (low, high) = ((T::from(0) - self.far, T::from(1)), (self.far, T::from(1)));
        let int = |v: usize| T::from(v as i64);
        // The intersection of the parabolas rooted at q and v (v < q).
        let meet = |q: usize, v: usize| -> (T, T) {
            let (qi, vi) = (int(q), int(v));
            (
                (T::from(f[q] as i64) + qi * qi) - (T::from(f[v] as i64) + vi * vi),
                T::from(2) * (qi - vi),
            )
        };
        // a/b <= c/d with positive denominators.
        let le = |a: (T, T), c: (T, T)| a.0 * c.1 <= c.0 * a.1;
        let mut k = 0usize;
        vertices[0] = 0;
        starts[0] = low;
        starts[1] = high;
        for q in 1..width {
            let mut s = meet(q, vertices[k]);
            while le(s, starts[k]) {
                k -= 1;
                s = meet(q, vertices[k]);
            }
            k += 1;
            vertices[k] = q;
            starts[k] = s;
            starts[k + 1] = high;
        }
        k = 0;
        for (x, out) in row.iter_mut().enumerate() {
            while !le((int(x), T::from(1)), starts[k + 1]) {
                k += 1;
            }
            let v = vertices[k];
            let dx = x.abs_diff(v) as u64;
            *out = (dx * dx + f[v] as u64).min(DISTANCE_CAP as u64) as u32;
        }
    }
}

/// Applies the row pass to each row of `d` (rows of `width` cells).
#[cfg(test)]
fn lower_envelopes<T: Exact>(d: &mut [u32], width: usize, far: T) {
    let mut envelope = LowerEnvelope::new(width, far);
    for row in d.chunks_exact_mut(width) {
        envelope.apply(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(blocked: &[bool], w: usize, h: usize) -> Vec<u32> {
        (0..w * h)
            .map(|i| {
                (0..w * h)
                    .filter(|&j| blocked[j])
                    .map(|j| {
                        let dx = (i % w).abs_diff(j % w) as u32;
                        let dy = (i / w).abs_diff(j / w) as u32;
                        dx * dx + dy * dy
                    })
                    .min()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn matches_brute_force_on_random_grids() {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let w = 3 + (next() % 20) as usize;
            let h = 3 + (next() % 20) as usize;
            let density = next() % 100;
            let blocked: Vec<bool> = (0..w * h)
                .map(|i| {
                    let (x, y) = (i % w, i / w);
                    x == 0 || y == 0 || x == w - 1 || y == h - 1 || next() % 100 < density / 4
                })
                .collect();
            assert_eq!(squared_distances(&blocked, w, h), brute(&blocked, w, h));
        }
    }

    #[test]
    fn wide_rows_agree_with_narrow_ones() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200 {
            let width = 1 + (state % 40) as usize;
            let row: Vec<u32> = (0..width * 3)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 50) as u32
                })
                .collect();
            let (mut a, mut b) = (row.clone(), row);
            lower_envelopes::<i64>(&mut a, width, 1 << 40);
            lower_envelopes::<i128>(&mut b, width, 1 << 90);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn radius_checks() {
        assert!(check_radius(f32::NAN).is_err());
        assert!(check_radius(-1.0).is_err());
        assert!(check_radius(f32::INFINITY).is_err());
        assert_eq!(check_radius(0.0), Ok(0.0));
        // r = 0 keeps every walkable pixel (its nearest blocked centre is >= 1 away).
        assert!(min_squared_distance(0.0) < 1.0);
    }
}
