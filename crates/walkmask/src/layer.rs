//! Room layers beside the walk mask: images of ids, one per pixel, that say where
//! regions (or hotspots) are rather than where walkers may go.
//!
//! A layer is decoded by the same rules as a walk mask and held in a [`WalkMask`]:
//! its "area" ids are the layer's ids, and 0 is "none". A layer may be the walk
//! mask's size or smaller by a whole factor ([`LayerScale`]).
//!
//! [`ids_along`] lists the ids a straight move passes over, in order, so that a
//! walker that crosses a region one pixel wide within one frame still enters and
//! leaves it.
//!
//! ```
//! use walkmask::layer::ids_along;
//! use walkmask::{Point, WalkMask};
//!
//! // A region (id 3) one pixel wide at x = 5.
//! let layer = WalkMask::from_fn(10, 4, |x, _| if x == 5 { 3 } else { 0 }).unwrap();
//! let mut ids = Vec::new();
//! ids_along(&layer, Point::new(1.5, 1.5), Point::new(8.5, 2.5), &mut ids);
//! assert_eq!(ids, [0, 3, 0]);
//! ```

use crate::{AreaSet, Point, WalkMask};

/// The id of the layer pixel under `p` (layer pixels), 0 outside the layer or for a
/// point that is not finite.
#[inline]
pub fn id_at(layer: &WalkMask, p: Point) -> u8 {
    if !(p.x.is_finite() && p.y.is_finite()) || p.x < 0.0 || p.y < 0.0 {
        return 0;
    }
    layer.area_at(p.x as u32, p.y as u32).unwrap_or(0)
}

/// Replaces `out` with the ids of the layer pixels the segment from `from` to `to`
/// (layer pixels) passes over, in the order it meets them, each run of equal ids
/// once: the first is the id under `from`, the last the id under `to`. Pixels off
/// the layer count as id 0. A segment that passes exactly through a pixel corner
/// meets one of the two pixels beside the corner.
///
/// The pixels are walked one by one (Amanatides and Woo's traversal), so the cost is
/// the number of pixels crossed. A point that is not finite gives the id under the
/// other one alone (0 when neither is finite).
pub fn ids_along(layer: &WalkMask, from: Point, to: Point, out: &mut Vec<u8>) {
    out.clear();
    let finite = |p: Point| p.x.is_finite() && p.y.is_finite();
    if !finite(from) || !finite(to) {
        out.push(if finite(to) {
            id_at(layer, to)
        } else if finite(from) {
            id_at(layer, from)
        } else {
            0
        });
        return;
    }
    let mut push = |id: u8| {
        if out.last() != Some(&id) {
            out.push(id);
        }
    };
    // Pixels far off the layer all read 0: clamp the walk to one pixel round it so
    // that a segment from far away costs no more than one across the layer.
    push(id_at(layer, from));
    let last = id_at(layer, to);
    let (from, to) = clip_to(layer, from, to);
    let id = |x: i64, y: i64| {
        if x < 0 || y < 0 {
            0
        } else {
            layer.area_at(x as u32, y as u32).unwrap_or(0)
        }
    };
    let (mut x, mut y) = (from.x.floor() as i64, from.y.floor() as i64);
    let (end_x, end_y) = (to.x.floor() as i64, to.y.floor() as i64);
    let (dx, dy) = ((to.x - from.x) as f64, (to.y - from.y) as f64);
    let (step_x, step_y) = (dx.signum() as i64, dy.signum() as i64);
    // Parameter t along the segment (0 at `from`, 1 at `to`) at which the next
    // vertical and horizontal pixel edges are crossed, and between edges.
    let first_edge = |start: f32, cell: i64, d: f64| -> (f64, f64) {
        if d > 0.0 {
            (((cell + 1) as f64 - start as f64) / d, 1.0 / d)
        } else if d < 0.0 {
            ((start as f64 - cell as f64) / -d, -1.0 / d)
        } else {
            (f64::INFINITY, f64::INFINITY)
        }
    };
    let (mut next_x, delta_x) = first_edge(from.x, x, dx);
    let (mut next_y, delta_y) = first_edge(from.y, y, dy);
    push(id(x, y));
    // One step per pixel edge crossed: never more than this, whatever rounding does.
    let steps = (end_x - x).abs() + (end_y - y).abs();
    for _ in 0..steps {
        if next_x < next_y {
            x += step_x;
            next_x += delta_x;
        } else {
            y += step_y;
            next_y += delta_y;
        }
        push(id(x, y));
    }
    // Rounding may have ended the walk beside the last pixel: the end is `to`'s.
    push(last);
}

/// `from` and `to` with the parts of the segment more than a pixel off the layer cut
/// away (Liang and Barsky's clipping against the layer grown by one pixel); a
/// segment wholly off it becomes its end, so only the ids under the ends count.
fn clip_to(layer: &WalkMask, from: Point, to: Point) -> (Point, Point) {
    let (min, max_x, max_y) = (
        -1.0f64,
        layer.width() as f64 + 1.0,
        layer.height() as f64 + 1.0,
    );
    let (fx, fy) = (from.x as f64, from.y as f64);
    let (dx, dy) = (to.x as f64 - fx, to.y as f64 - fy);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, fx - min),
        (dx, max_x - fx),
        (-dy, fy - min),
        (dy, max_y - fy),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return (to, to);
            }
            continue;
        }
        let r = q / p;
        if p < 0.0 {
            t0 = t0.max(r);
        } else {
            t1 = t1.min(r);
        }
    }
    if t0 > t1 {
        return (to, to);
    }
    let at = |t: f64| Point::new((fx + dx * t) as f32, (fy + dy * t) as f32);
    // Keep the true ends when they are on (or next to) the layer: their ids count.
    let start = if t0 > 0.0 { at(t0) } else { from };
    let end = if t1 < 1.0 { at(t1) } else { to };
    (start, end)
}

/// How a layer's pixels relate to its room's walk-mask pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerScale {
    /// Walk-mask pixels per layer pixel, along each axis (1 = the same size).
    pub factor: u32,
}

impl LayerScale {
    /// The whole factor by which a `layer` of `layer_size` pixels is smaller than a
    /// walk mask of `mask_size`, or an error saying why it fits none.
    ///
    /// ```
    /// use walkmask::layer::LayerScale;
    /// assert_eq!(LayerScale::between((640, 360), (320, 180)).unwrap().factor, 2);
    /// assert!(LayerScale::between((640, 360), (300, 180)).is_err());
    /// ```
    pub fn between(mask_size: (u32, u32), layer_size: (u32, u32)) -> Result<Self, String> {
        let ((mw, mh), (lw, lh)) = (mask_size, layer_size);
        if lw == 0 || lh == 0 {
            return Err(format!("the layer is {lw} x {lh} pixels"));
        }
        let factor = mw / lw;
        if factor == 0 || mw != lw * factor || mh != lh * factor {
            return Err(format!(
                "a {lw} x {lh} layer is not the {mw} x {mh} walk mask's size or a whole fraction of it"
            ));
        }
        Ok(Self { factor })
    }

    /// A walk-mask point as a layer point.
    #[inline]
    pub fn to_layer(&self, mask: Point) -> Point {
        let f = self.factor as f32;
        Point::new(mask.x / f, mask.y / f)
    }

    /// A layer point as a walk-mask point.
    ///
    /// ```
    /// use walkmask::Point;
    /// use walkmask::layer::LayerScale;
    /// let half = LayerScale { factor: 2 };
    /// assert_eq!(half.to_mask(Point::new(1.5, 3.0)), Point::new(3.0, 6.0));
    /// assert_eq!(half.to_layer(half.to_mask(Point::new(1.5, 3.0))), Point::new(1.5, 3.0));
    /// ```
    #[inline]
    pub fn to_mask(&self, layer: Point) -> Point {
        let f = self.factor as f32;
        Point::new(layer.x * f, layer.y * f)
    }
}

/// The centre of the layer pixel of id `id` nearest to `from` (layer pixels), or
/// `None` when no pixel has that id (or `id` is 0, "none", or `from` is not
/// finite). Of pixels equally near, the first in row order. The cost is one pass
/// over the layer.
///
/// ```
/// use walkmask::layer::nearest_with_id;
/// use walkmask::{Point, WalkMask};
///
/// // A hotspot (id 2) in the top-right corner.
/// let layer = WalkMask::from_fn(8, 8, |x, y| if x >= 6 && y <= 1 { 2 } else { 0 }).unwrap();
/// assert_eq!(nearest_with_id(&layer, 2, Point::new(0.5, 7.5)), Some(Point::new(6.5, 1.5)));
/// assert_eq!(nearest_with_id(&layer, 3, Point::new(0.5, 7.5)), None);
/// ```
pub fn nearest_with_id(layer: &WalkMask, id: u8, from: Point) -> Option<Point> {
    if id == 0 || !(from.x.is_finite() && from.y.is_finite()) {
        return None;
    }
    let width = layer.width() as usize;
    if width == 0 {
        return None;
    }
    let mut best: Option<(f32, Point)> = None;
    for (row, ids) in layer.areas().chunks_exact(width).enumerate() {
        let cy = row as f32 + 0.5;
        let dy = cy - from.y;
        // Rows farther than the best so far cannot hold a nearer pixel.
        if best.is_some_and(|(d, _)| dy * dy >= d) && cy > from.y {
            break;
        }
        for (column, _) in ids.iter().enumerate().filter(|&(_, &v)| v == id) {
            let c = Point::new(column as f32 + 0.5, cy);
            let dx = c.x - from.x;
            let d = dx * dx + dy * dy;
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, c));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// How far `p` (layer pixels) lies inside the pixels of its own id: the distance to
/// the nearest pixel of another id, measured to that pixel's square, at most `max`.
/// Pixels off the layer do not count (a region reaching the layer's border does not
/// end there), and neither does an id-0 point's distance: it is 0. What a region's
/// tint fades in by. `max` is clamped to 0..=64 pixels; the cost is the
/// `(2 max + 3)²` pixels around `p`.
///
/// ```
/// use walkmask::layer::depth_inside;
/// use walkmask::{Point, WalkMask};
///
/// // A rug (id 1) from x = 4 on.
/// let layer = WalkMask::from_fn(20, 5, |x, _| u8::from(x >= 4)).unwrap();
/// assert_eq!(depth_inside(&layer, Point::new(6.5, 2.5), 8.0), 2.5);
/// assert_eq!(depth_inside(&layer, Point::new(19.5, 2.5), 8.0), 8.0);
/// assert_eq!(depth_inside(&layer, Point::new(1.5, 2.5), 8.0), 0.0);
/// ```
pub fn depth_inside(layer: &WalkMask, p: Point, max: f32) -> f32 {
    let max = if max.is_finite() {
        max.clamp(0.0, 64.0)
    } else {
        0.0
    };
    let id = id_at(layer, p);
    if id == 0 || max == 0.0 {
        return 0.0;
    }
    let reach = max.ceil() as i64 + 1;
    let (cx, cy) = (p.x.floor() as i64, p.y.floor() as i64);
    let (w, h) = (i64::from(layer.width()), i64::from(layer.height()));
    let mut best = max * max;
    for y in (cy - reach).max(0)..=(cy + reach).min(h - 1) {
        let dy = (y as f32 - p.y).max(p.y - (y + 1) as f32).max(0.0);
        if dy * dy >= best {
            continue;
        }
        for x in (cx - reach).max(0)..=(cx + reach).min(w - 1) {
            let dx = (x as f32 - p.x).max(p.x - (x + 1) as f32).max(0.0);
            let d = dx * dx + dy * dy;
            if d < best && layer.area_at(x as u32, y as u32) != Some(id) {
                best = d;
            }
        }
    }
    best.sqrt()
}

/// `mask` with every pixel that lies under an id of `ids` in `layer` blocked (area
/// 0), the others as they are: what walkers see of a room while some of its regions
/// block the way. `layer` lies over `mask` by `scale`; pixels of the mask beyond the
/// layer (a layer that does not fit) are kept. The cost is one pass over the mask.
///
/// ```
/// use walkmask::layer::{LayerScale, block_ids};
/// use walkmask::{AreaSet, WalkMask};
///
/// // A floor of area 1, and a half-size layer with a puddle (id 2) in its left column.
/// let floor = WalkMask::from_fn(4, 2, |_, _| 1).unwrap();
/// let layer = WalkMask::from_fn(2, 1, |x, _| if x == 0 { 2 } else { 0 }).unwrap();
/// let blocked = block_ids(&floor, &layer, LayerScale { factor: 2 }, &AreaSet::only(&[2]));
/// assert_eq!(blocked.areas(), [0, 0, 1, 1, 0, 0, 1, 1]);
/// ```
pub fn block_ids(mask: &WalkMask, layer: &WalkMask, scale: LayerScale, ids: &AreaSet) -> WalkMask {
    let blocked = ids.lookup_table();
    let f = scale.factor.max(1) as usize;
    let (lw, lh) = (layer.width() as usize, layer.height() as usize);
    let width = mask.width() as usize;
    let mut areas = mask.areas().to_vec();
    for (y, row) in areas.chunks_exact_mut(width.max(1)).enumerate() {
        let ly = y / f;
        if ly >= lh {
            break;
        }
        let layer_row = &layer.areas()[ly * lw..(ly + 1) * lw];
        for (x, area) in row.iter_mut().enumerate() {
            if layer_row.get(x / f).is_some_and(|&id| blocked[id as usize]) {
                *area = 0;
            }
        }
    }
    mask.with_same_size(areas)
}

/// The pixels of one id of a layer, cut out of a picture of the same size: what a
/// walk-behind draws over the characters behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutOut {
    /// The left column of the smallest rectangle holding the id's pixels.
    pub x: u32,
    /// Its top row.
    pub y: u32,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Its pixels, row by row, four bytes (red, green, blue, alpha) each: the
    /// picture's where the layer has the id, transparent elsewhere.
    pub rgba: Vec<u8>,
}

/// Cuts the pixels of id `id` of `layer` out of a picture of the layer's size, whose
/// pixel `(x, y)` is `picture(x, y)` (red, green, blue, alpha). `None` when no pixel
/// has the id (or it is 0). The cost is one pass over the layer and one over the
/// cut-out's rectangle.
///
/// ```
/// use walkmask::WalkMask;
/// use walkmask::layer::cut_out;
///
/// // A pillar (id 1) two pixels wide in a 6 x 4 picture of solid grey.
/// let layer = WalkMask::from_fn(6, 4, |x, _| u8::from(x == 2 || x == 3)).unwrap();
/// let pillar = cut_out(&layer, 1, |_, _| [90, 90, 90, 255]).unwrap();
/// assert_eq!((pillar.x, pillar.y, pillar.width, pillar.height), (2, 0, 2, 4));
/// assert!(pillar.rgba.chunks(4).all(|p| p == [90, 90, 90, 255]));
/// assert!(cut_out(&layer, 2, |_, _| [0; 4]).is_none());
/// ```
pub fn cut_out(layer: &WalkMask, id: u8, picture: impl Fn(u32, u32) -> [u8; 4]) -> Option<CutOut> {
    let width = layer.width();
    if id == 0 || width == 0 {
        return None;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    for (row, ids) in layer.areas().chunks_exact(width as usize).enumerate() {
        let Some(first) = ids.iter().position(|&v| v == id) else {
            continue;
        };
        let last = ids.iter().rposition(|&v| v == id).unwrap_or(first);
        x0 = x0.min(first as u32);
        x1 = x1.max(last as u32);
        y0 = y0.min(row as u32);
        y1 = row as u32;
    }
    if x0 == u32::MAX {
        return None;
    }
    let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
    let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
    for y in y0..=y1 {
        for x in x0..=x1 {
            if layer.area_at(x, y) == Some(id) {
                rgba.extend_from_slice(&picture(x, y));
            } else {
                rgba.extend_from_slice(&[0; 4]);
            }
        }
    }
    Some(CutOut {
        x: x0,
        y: y0,
        width: w,
        height: h,
        rgba,
    })
}
