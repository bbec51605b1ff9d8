//! Drawing a mask, a distance field and a path into an RGB image.

use image::{Rgb, RgbImage};
use walkmask::{DistanceField, NavGrid, Point};

/// Colour of blocked pixels.
const BLOCKED: [u8; 3] = [24, 24, 30];

/// A distinct, fairly saturated colour for area `id` (golden-ratio hue steps, so
/// neighbouring ids differ clearly).
pub fn area_color(id: u8) -> [u8; 3] {
    let hue = (id as f32 * 0.618_034).fract();
    hsv_to_rgb(hue, 0.45, 0.85)
}

fn hsv_to_rgb(h: f32, s: f32, v: f32) -> [u8; 3] {
    let h6 = h * 6.0;
    let i = h6.floor() as i32 % 6;
    let f = h6 - h6.floor();
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    let (r, g, b) = match i {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [to_u8(r), to_u8(g), to_u8(b)]
}

fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Heat colour for `t` in `[0, 1]`: near the destination hot (yellow), far cold
/// (deep blue), through red and purple.
fn heat(t: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [255.0, 240.0, 80.0],
        [250.0, 140.0, 40.0],
        [220.0, 50.0, 70.0],
        [130.0, 30.0, 130.0],
        [30.0, 30.0, 120.0],
    ];
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f32;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f32;
    let mut out = [0u8; 3];
    for (c, o) in out.iter_mut().enumerate() {
        *o = (STOPS[i][c] + (STOPS[i + 1][c] - STOPS[i][c]) * f).round() as u8;
    }
    out
}

fn mix(a: [u8; 3], b: [u8; 3], t: f32) -> [u8; 3] {
    let mut out = [0u8; 3];
    for c in 0..3 {
        out[c] = (a[c] as f32 + (b[c] as f32 - a[c] as f32) * t).round() as u8;
    }
    out
}

/// What to draw.
pub struct Scene<'a> {
    /// The grid (mask and enabled areas).
    pub grid: &'a NavGrid,
    /// The distance field toward the path's end, if there is one.
    pub field: Option<&'a DistanceField>,
    /// The path's waypoints (may be empty).
    pub waypoints: &'a [Point],
    /// The requested start and destination, marked even when no path exists.
    pub start: Point,
    /// See `start`.
    pub goal: Point,
    /// Output pixels per mask pixel.
    pub scale: u32,
}

/// Draws `scene` into a `width * scale` x `height * scale` image.
///
/// Enabled areas get a colour per area id, disabled areas a dim version of it,
/// blocked pixels a dark grey; pixels the distance field reaches are tinted by their
/// distance (hot near the destination); the path is a white line with a dark
/// outline, its waypoints dots, the start green and the end red.
pub fn draw(scene: &Scene) -> RgbImage {
    let grid = scene.grid;
    let s = scene.scale;
    let (w, h) = (grid.width(), grid.height());
    let mut img = RgbImage::new(w * s, h * s);

    let max_dist = scene.field.map_or(0, |f| {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .filter_map(|(x, y)| f.distance(x, y))
            .max()
            .unwrap_or(0)
    });
    let areas = grid.areas();
    let mask = grid.mask();
    for y in 0..h {
        for x in 0..w {
            let id = mask.area_at(x, y).unwrap_or(0);
            let mut c = if id == 0 {
                BLOCKED
            } else if areas.contains(id) {
                area_color(id)
            } else {
                mix(area_color(id), BLOCKED, 0.75)
            };
            if let Some(d) = scene.field.and_then(|f| f.distance(x, y)) {
                let t = if max_dist == 0 {
                    0.0
                } else {
                    d as f32 / max_dist as f32
                };
                c = mix(c, heat(t), 0.6);
            }
            for dy in 0..s {
                for dx in 0..s {
                    img.put_pixel(x * s + dx, y * s + dy, Rgb(c));
                }
            }
        }
    }

    let sf = s as f32;
    let line = (sf * 0.25).max(1.0);
    let outline = line + (sf * 0.15).max(0.75);
    let to_img = |p: Point| (p.x * sf, p.y * sf);
    for seg in scene.waypoints.windows(2) {
        segment(&mut img, to_img(seg[0]), to_img(seg[1]), outline, [0, 0, 0]);
    }
    for seg in scene.waypoints.windows(2) {
        segment(
            &mut img,
            to_img(seg[0]),
            to_img(seg[1]),
            line,
            [255, 255, 255],
        );
    }
    let dot = (sf * 0.6).max(2.5);
    for &p in scene.waypoints {
        disc(&mut img, to_img(p), dot + 0.75, [0, 0, 0]);
        disc(&mut img, to_img(p), dot, [255, 255, 255]);
    }
    let end = scene.waypoints.last().copied().unwrap_or(scene.goal);
    let start = scene.waypoints.first().copied().unwrap_or(scene.start);
    for (p, c) in [(start, [40, 200, 70]), (end, [230, 40, 40])] {
        disc(&mut img, to_img(p), dot * 1.6 + 0.75, [0, 0, 0]);
        disc(&mut img, to_img(p), dot * 1.6, c);
    }
    if end != scene.goal && scene.goal.is_finite() {
        // The requested destination, when the path was snapped away from it.
        ring(&mut img, to_img(scene.goal), dot * 1.6, [230, 40, 40]);
    }
    img
}

/// Paints every output pixel whose centre is within `radius` of the segment `a-b`.
fn segment(img: &mut RgbImage, a: (f32, f32), b: (f32, f32), radius: f32, c: [u8; 3]) {
    paint_where(img, a, b, radius, c, |d| d <= radius);
}

/// Paints a filled disc.
pub(crate) fn disc(img: &mut RgbImage, p: (f32, f32), radius: f32, c: [u8; 3]) {
    paint_where(img, p, p, radius, c, |d| d <= radius);
}

/// Paints a ring of width about 1.5 output pixels.
pub(crate) fn ring(img: &mut RgbImage, p: (f32, f32), radius: f32, c: [u8; 3]) {
    paint_where(img, p, p, radius + 1.0, c, |d| (d - radius).abs() <= 0.75);
}

fn paint_where(
    img: &mut RgbImage,
    a: (f32, f32),
    b: (f32, f32),
    reach: f32,
    c: [u8; 3],
    inside: impl Fn(f32) -> bool,
) {
    if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
        return;
    }
    let (iw, ih) = (img.width() as f32, img.height() as f32);
    let x0 = (a.0.min(b.0) - reach - 1.0).floor().clamp(0.0, iw) as u32;
    let x1 = (a.0.max(b.0) + reach + 1.0).ceil().clamp(0.0, iw) as u32;
    let y0 = (a.1.min(b.1) - reach - 1.0).floor().clamp(0.0, ih) as u32;
    let y1 = (a.1.max(b.1) + reach + 1.0).ceil().clamp(0.0, ih) as u32;
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    for y in y0..y1 {
        for x in x0..x1 {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let t = if len2 > 0.0 {
                (((px - a.0) * dx + (py - a.1) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (qx, qy) = (a.0 + t * dx, a.1 + t * dy);
            let d = ((px - qx) * (px - qx) + (py - qy) * (py - qy)).sqrt();
            if inside(d) {
                img.put_pixel(x, y, Rgb(c));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_colours_differ_between_neighbouring_ids() {
        for id in 1..255u8 {
            assert_ne!(area_color(id), area_color(id + 1));
            assert_ne!(area_color(id), BLOCKED);
        }
    }

    #[test]
    fn heat_ends() {
        assert_eq!(heat(0.0), [255, 240, 80]);
        assert_eq!(heat(1.0), [30, 30, 120]);
        assert_eq!(heat(2.0), heat(1.0));
    }
}
