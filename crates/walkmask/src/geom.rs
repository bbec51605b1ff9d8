//! Points in pixel units.

/// A point in mask pixel units: pixel `(x, y)` covers `[x, x+1) x [y, y+1)` and its
/// centre is `(x + 0.5, y + 0.5)`. `y` grows downwards, as in the image.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Point {
    /// Horizontal coordinate, 0 at the left edge of the mask.
    pub x: f32,
    /// Vertical coordinate, 0 at the top edge of the mask.
    pub y: f32,
}

impl Point {
    /// A point at `(x, y)`.
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// The centre of pixel `(x, y)`.
    pub fn pixel_center(x: u32, y: u32) -> Self {
        Self::new(x as f32 + 0.5, y as f32 + 0.5)
    }

    /// Euclidean distance to `other`.
    pub fn distance(self, other: Point) -> f32 {
        ((self.x - other.x) as f64).hypot((self.y - other.y) as f64) as f32
    }

    /// Whether both coordinates are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// The pixel that contains this point (floor of each coordinate), if the point is
    /// finite and not negative. The result may lie outside a given mask.
    pub fn pixel(self) -> Option<(u32, u32)> {
        if !self.is_finite() || self.x < 0.0 || self.y < 0.0 {
            return None;
        }
        // Not negative: truncation is the floor (without a call to `floorf`, which is
        // not inlined on x86-64 without SSE4.1; this is on every step's path).
        if self.x >= u32::MAX as f32 || self.y >= u32::MAX as f32 {
            return None;
        }
        Some((self.x as u32, self.y as u32))
    }
}

impl From<(f32, f32)> for Point {
    fn from((x, y): (f32, f32)) -> Self {
        Self::new(x, y)
    }
}

impl From<Point> for (f32, f32) {
    fn from(p: Point) -> Self {
        (p.x, p.y)
    }
}

/// Total length of a polyline.
pub fn polyline_length(points: &[Point]) -> f32 {
    points
        .windows(2)
        .map(|w| {
            let dx = (w[1].x - w[0].x) as f64;
            let dy = (w[1].y - w[0].y) as f64;
            dx.hypot(dy)
        })
        // Not `sum`: the sum of no floats is -0.0, which would print as "-0".
        .fold(0.0f64, |total, d| total + d) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pixel by the definition: the floor of each coordinate, for finite points
    /// that are not negative and whose floor a `u32` holds.
    fn pixel_by_floor(p: Point) -> Option<(u32, u32)> {
        if !p.is_finite() || p.x < 0.0 || p.y < 0.0 {
            return None;
        }
        let (x, y) = (p.x.floor(), p.y.floor());
        (x < u32::MAX as f32 && y < u32::MAX as f32).then_some((x as u32, y as u32))
    }

    #[test]
    fn pixel_is_the_floor_of_each_coordinate() {
        let mut values = vec![
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            0.5,
            1.0 - f32::EPSILON / 2.0,
            1.0,
            -f32::MIN_POSITIVE,
            -0.5,
            -1.0,
            4_294_967_040.0,
            u32::MAX as f32,
            1e12,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut seed = 11u32;
        for _ in 0..2_000 {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            values.push(f32::from_bits(seed));
            values.push((seed >> 8) as f32 / 4096.0 - 10.0);
        }
        for &x in &values {
            for &y in &values[..40] {
                let p = Point::new(x, y);
                assert_eq!(p.pixel(), pixel_by_floor(p), "{p:?}");
            }
        }
    }
}
