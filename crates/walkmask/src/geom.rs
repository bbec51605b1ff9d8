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
        let (x, y) = (self.x.floor(), self.y.floor());
        if x >= u32::MAX as f32 || y >= u32::MAX as f32 {
            return None;
        }
        Some((x as u32, y as u32))
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
