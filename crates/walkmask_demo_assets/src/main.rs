//! Draws the art of the `bevy_walkmask` demo room, deterministically, from code.
//!
//! ```text
//! cargo run --release -p walkmask_demo_assets -- assets/
//! ```
//!
//! Output, under the given directory:
//!
//! * `rooms/lobby.png`: the 1920 x 1080 background, a hotel lobby opening onto a
//!   garden behind a picket fence with a gate;
//! * `rooms/lobby.walk.png`: its walk mask, an 8-bit greyscale image whose grey level
//!   is the area id (decode with `DecodeRule::Indexed`): 0 blocked, 1 lobby floor,
//!   2 garden, 3 the rug in front of the reception desk, 4 the gate opening (the
//!   only way between lobby and garden: disable area 4 to close the gate);
//! * `rooms/lobby_half.walk.png`: the same mask at 960 x 540 (use with `scale = 2`);
//! * `rooms/lobby.regions.walk.png`: the room's region layer at 480 x 270 (a quarter
//!   of the mask's size), grey level = region id: 1 the rug, 2 the garden;
//! * `rooms/lobby.hotspots.walk.png`: the room's hotspot layer at 480 x 270, grey
//!   level = hotspot id (1 the bell on the desk, 2 the painting, 3 the fountain, 4 the
//!   bench, 5 the way on to the garden);
//! * `rooms/garden.png`, `rooms/garden.walk.png` and `rooms/garden.hotspots.walk.png`:
//!   the second room, the garden (module `garden`);
//! * `rooms/lobby.behind.walk.png`: the walk-behind layer at 1920 x 1080 (the
//!   picture's size), grey level = id: 1 the left pillar, 2 the right one;
//! * `rooms/lobby.scale.png`: a 240 x 135 scale map, a character's size at each
//!   floor row (grey 0 = 0.8, 255 = 1.8; read with `DecodeRule::Indexed`);
//! * `rooms/props/*.png`: every piece of furniture again on a transparent layer,
//!   cropped, to draw over the characters behind it; `gate_closed.png` and
//!   `gate_open.png` are the gate leaf, which `lobby.png` leaves out: the game shows
//!   the one that matches the state of area 4;
//! * `rooms/lobby.room.ron` and `rooms/garden.room.ron`: the two rooms as room files
//!   (module `room_files`): what each area, hotspot, region and walk-behind id is,
//!   each hotspot's walk-to point and facing, the exits, spawn points and props, in
//!   room pixels; written only when `walkmask lint` finds nothing wrong with them
//!   for the avatar (radius 14) and the avatar fits at every walk-to point;
//! * `rooms/*.walk.png.meta`, `rooms/lobby.scale.png.meta`: Bevy asset settings that
//!   select the `Indexed` rule, for the examples that load the masks and layers one
//!   by one (a room file's images need none);
//! * `sprites/avatar.png`: a 5 x 5 atlas of 128 x 256 frames (columns: idle and a
//!   four-frame walk; rows: facing the camera, facing away, facing right, three
//!   quarters towards the camera and right, three quarters away and right; the left
//!   directions are these mirrored: eight directions in all);
//! * `sprites/waiter.png`: the same for the waiter;
//! * `tiles/dungeon.png` and `sprites/slime.png`: the tile map example's tileset and
//!   monster (module `dungeon`).
//!
//! The walk mask is the floor exactly: furniture footprints are blocked with no margin
//! round them. Characters keep off the furniture with their own radius
//! (`Walker::radius`), so one mask serves characters of every size.
//!
//! The room is drawn in a simple perspective: the floor is the plane `h = 0`, seen
//! by a camera `CAM_H` metres high; a floor point `(u, z)` (metres across, metres
//! deep) lands on screen at `x = CX + F u / z`, `y = HORIZON + F (CAM_H - h) / z`.
//! The walk mask is computed from the same footprints as the drawings, so the two
//! always agree.

mod dungeon;
mod garden;
mod room_files;

use std::f32::consts::PI;
use std::fs;
use std::path::{Path, PathBuf};

use image::{GrayImage, Luma, Rgb, RgbImage, Rgba, RgbaImage};

const W: u32 = 1920;
const H: u32 = 1080;
const CX: f32 = 960.0;
const HORIZON: f32 = -360.0;
const F: f32 = 2400.0;
const CAM_H: f32 = 6.0;
/// Depth of the back wall (floor meets wall at screen y = 360); the bottom edge is z = 10.
const Z_WALL: f32 = 20.0;
/// The picket fence between lobby and garden runs along u = FENCE_U.
const FENCE_U: f32 = 2.4;
/// The gate opening in the fence, in depth.
const GATE_Z: (f32, f32) = (13.5, 14.9);

type Rgbf = [f32; 3];

fn hex(c: u32) -> Rgbf {
    [
        ((c >> 16) & 255) as f32 / 255.0,
        ((c >> 8) & 255) as f32 / 255.0,
        (c & 255) as f32 / 255.0,
    ]
}

fn mix(a: Rgbf, b: Rgbf, t: f32) -> Rgbf {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn mul(a: Rgbf, k: f32) -> Rgbf {
    [a[0] * k, a[1] * k, a[2] * k]
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

// ---------------------------------------------------------------- noise

fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x27d4_eb2d)
        ^ (y as u32).wrapping_mul(0x1656_67b1)
        ^ seed.wrapping_mul(0x9e37_79b9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^= h >> 15;
    (h & 0xff_ffff) as f32 / 0xff_ffff as f32
}

fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (xi, yi) = (x.floor() as i32, y.floor() as i32);
    let (fx, fy) = (x - x.floor(), y - y.floor());
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let a = hash(xi, yi, seed);
    let b = hash(xi + 1, yi, seed);
    let c = hash(xi, yi + 1, seed);
    let d = hash(xi + 1, yi + 1, seed);
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sy
}

fn fbm(x: f32, y: f32, seed: u32) -> f32 {
    let mut sum = 0.0;
    let mut amp = 0.5;
    let mut f = 1.0;
    for i in 0..4 {
        sum += amp * value_noise(x * f, y * f, seed + i);
        amp *= 0.5;
        f *= 2.0;
    }
    sum / 0.9375
}

/// A small deterministic random generator for scattering leaves and flowers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.next()
    }
}

// ---------------------------------------------------------------- projection

type P2 = (f32, f32);

/// Floor/world point (u across, z deep, h up) to screen pixels.
fn proj(u: f32, z: f32, h: f32) -> P2 {
    (CX + F * u / z, HORIZON + F * (CAM_H - h) / z)
}

/// Screen pixel to the floor point under it (None above the horizon).
fn unproj(x: f32, y: f32) -> Option<(f32, f32)> {
    if y <= HORIZON + 1.0 {
        return None;
    }
    let z = F * CAM_H / (y - HORIZON);
    Some(((x - CX) * z / F, z))
}

/// Screen pixel on the back wall to (u, h).
fn unproj_wall(x: f32, y: f32) -> (f32, f32) {
    ((x - CX) * Z_WALL / F, CAM_H - (y - HORIZON) * Z_WALL / F)
}

// ---------------------------------------------------------------- canvas

/// An RGBA canvas with premultiplied alpha, drawn with signed-distance shapes.
#[derive(Clone)]
struct Canvas {
    w: u32,
    h: u32,
    px: Vec<[f32; 4]>,
}

#[derive(Clone, Copy)]
struct BBox {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl BBox {
    fn of(points: &[P2], pad: f32) -> BBox {
        let mut b = BBox {
            x0: i32::MAX,
            y0: i32::MAX,
            x1: i32::MIN,
            y1: i32::MIN,
        };
        for &(x, y) in points {
            b.x0 = b.x0.min((x - pad).floor() as i32);
            b.y0 = b.y0.min((y - pad).floor() as i32);
            b.x1 = b.x1.max((x + pad).ceil() as i32);
            b.y1 = b.y1.max((y + pad).ceil() as i32);
        }
        b
    }
}

impl Canvas {
    fn new(w: u32, h: u32) -> Canvas {
        Canvas {
            w,
            h,
            px: vec![[0.0; 4]; (w * h) as usize],
        }
    }

    fn blend(&mut self, x: i32, y: i32, c: Rgbf, a: f32) {
        if x < 0 || y < 0 || x >= self.w as i32 || y >= self.h as i32 || a <= 0.0 {
            return;
        }
        let a = a.min(1.0);
        let p = &mut self.px[(y as u32 * self.w + x as u32) as usize];
        for i in 0..3 {
            p[i] = c[i] * a + p[i] * (1.0 - a);
        }
        p[3] = a + p[3] * (1.0 - a);
    }

    /// Adds light (in premultiplied space, so it only brightens what is there).
    fn add(&mut self, x: i32, y: i32, c: Rgbf, k: f32) {
        if x < 0 || y < 0 || x >= self.w as i32 || y >= self.h as i32 {
            return;
        }
        let p = &mut self.px[(y as u32 * self.w + x as u32) as usize];
        for i in 0..3 {
            p[i] += c[i] * k * p[3];
        }
    }

    fn get(&self, x: i32, y: i32) -> [f32; 4] {
        let x = x.clamp(0, self.w as i32 - 1) as u32;
        let y = y.clamp(0, self.h as i32 - 1) as u32;
        self.px[(y * self.w + x) as usize]
    }

    /// Fills where `sd(x, y) < 0` (anti-aliased over one pixel), colour from `shade`.
    fn fill(
        &mut self,
        b: BBox,
        sd: impl Fn(f32, f32) -> f32,
        shade: impl Fn(f32, f32) -> Rgbf,
        alpha: f32,
    ) {
        let x0 = b.x0.max(0);
        let y0 = b.y0.max(0);
        let x1 = b.x1.min(self.w as i32 - 1);
        let y1 = b.y1.min(self.h as i32 - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
                let d = sd(fx, fy);
                let cov = (0.5 - d).clamp(0.0, 1.0);
                if cov > 0.0 {
                    self.blend(x, y, shade(fx, fy), cov * alpha);
                }
            }
        }
    }

    fn poly(&mut self, pts: &[P2], shade: impl Fn(f32, f32) -> Rgbf) {
        let b = BBox::of(pts, 2.0);
        self.fill(b, |x, y| sd_poly(pts, x, y), shade, 1.0);
    }

    fn poly_c(&mut self, pts: &[P2], c: Rgbf) {
        self.poly(pts, |_, _| c);
    }

    fn ellipse(&mut self, c: P2, rx: f32, ry: f32, shade: impl Fn(f32, f32) -> Rgbf, alpha: f32) {
        let b = BBox::of(&[(c.0 - rx, c.1 - ry), (c.0 + rx, c.1 + ry)], 2.0);
        self.fill(b, |x, y| sd_ellipse(c, rx, ry, x, y), shade, alpha);
    }

    fn capsule(&mut self, a: P2, bb: P2, r: f32, c: Rgbf) {
        let b = BBox::of(&[a, bb], r + 2.0);
        self.fill(b, |x, y| sd_segment(a, bb, x, y) - r, |_, _| c, 1.0);
    }

    /// Draws `other` over this canvas.
    fn over(&mut self, other: &Canvas) {
        for (d, s) in self.px.iter_mut().zip(&other.px) {
            for i in 0..4 {
                d[i] = s[i] + d[i] * (1.0 - s[3]);
            }
        }
    }

    fn to_rgb(&self) -> RgbImage {
        RgbImage::from_fn(self.w, self.h, |x, y| {
            let p = self.px[(y * self.w + x) as usize];
            Rgb([to8(p[0]), to8(p[1]), to8(p[2])])
        })
    }

    fn to_rgba(&self) -> RgbaImage {
        RgbaImage::from_fn(self.w, self.h, |x, y| {
            let p = self.px[(y * self.w + x) as usize];
            if p[3] <= 1e-4 {
                return Rgba([0, 0, 0, 0]);
            }
            Rgba([
                to8(p[0] / p[3]),
                to8(p[1] / p[3]),
                to8(p[2] / p[3]),
                to8(p[3]),
            ])
        })
    }

    /// Bounding box of the pixels with any alpha.
    fn alpha_bbox(&self) -> Option<(u32, u32, u32, u32)> {
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for y in 0..self.h {
            for x in 0..self.w {
                if self.px[(y * self.w + x) as usize][3] > 1.0 / 512.0 {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x);
                    y1 = y1.max(y);
                }
            }
        }
        (x0 <= x1).then_some((x0, y0, x1 - x0 + 1, y1 - y0 + 1))
    }
}

fn to8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn sd_segment(a: P2, b: P2, x: f32, y: f32) -> f32 {
    let (px, py) = (x - a.0, y - a.1);
    let (bx, by) = (b.0 - a.0, b.1 - a.1);
    let l = bx * bx + by * by;
    let t = if l > 0.0 {
        ((px * bx + py * by) / l).clamp(0.0, 1.0)
    } else {
        0.0
    };
    ((px - bx * t).powi(2) + (py - by * t).powi(2)).sqrt()
}

/// Signed distance to a polygon (negative inside; any winding).
fn sd_poly(v: &[P2], x: f32, y: f32) -> f32 {
    let n = v.len();
    let mut d = f32::MAX;
    let mut inside = false;
    let mut j = n - 1;
    for i in 0..n {
        d = d.min(sd_segment(v[j], v[i], x, y));
        let (xi, yi) = v[i];
        let (xj, yj) = v[j];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            inside = !inside;
        }
        j = i;
    }
    if inside { -d } else { d }
}

fn sd_ellipse(c: P2, rx: f32, ry: f32, x: f32, y: f32) -> f32 {
    let (dx, dy) = (x - c.0, y - c.1);
    let k = ((dx / rx).powi(2) + (dy / ry).powi(2)).sqrt();
    if k < 1e-6 {
        return -rx.min(ry);
    }
    let gx = dx / (rx * rx * k);
    let gy = dy / (ry * ry * k);
    (k - 1.0) / (gx * gx + gy * gy).sqrt().max(1e-6)
}

fn convex_hull(mut pts: Vec<P2>) -> Vec<P2> {
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let cross = |o: P2, a: P2, b: P2| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut hull: Vec<P2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &P2>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

// ---------------------------------------------------------------- 3D-ish primitives

/// Light comes from the windows at the back left.
fn box3d(
    c: &mut Canvas,
    u: (f32, f32),
    z: (f32, f32),
    h: (f32, f32),
    top: Rgbf,
    front: Rgbf,
    side: Rgbf,
) {
    let (u0, u1) = u;
    let (z0, z1) = z;
    let (h0, h1) = h;
    let q = |pts: [(f32, f32, f32); 4]| pts.map(|(u, z, h)| proj(u, z, h));
    if u0 > 0.0 {
        let p = q([(u0, z0, h0), (u0, z1, h0), (u0, z1, h1), (u0, z0, h1)]);
        c.poly_c(&p, side);
    }
    if u1 < 0.0 {
        let p = q([(u1, z0, h0), (u1, z1, h0), (u1, z1, h1), (u1, z0, h1)]);
        c.poly_c(&p, mul(side, 1.15));
    }
    let p = q([(u0, z0, h0), (u1, z0, h0), (u1, z0, h1), (u0, z0, h1)]);
    let (ytop, ybot) = (p[3].1, p[0].1);
    c.poly(&p, |_, y| {
        mul(front, 1.0 - 0.25 * ((y - ytop) / (ybot - ytop + 1.0)))
    });
    if h1 < CAM_H {
        let p = q([(u0, z0, h1), (u1, z0, h1), (u1, z1, h1), (u0, z1, h1)]);
        c.poly_c(&p, top);
    }
}

fn floor_circle(cu: f32, cz: f32, r: f32, h: f32, n: usize) -> Vec<P2> {
    (0..n)
        .map(|i| {
            let a = i as f32 / n as f32 * 2.0 * PI;
            proj(cu + r * a.cos(), cz + r * a.sin(), h)
        })
        .collect()
}

/// A vertical (truncated) cone from h0 (radius r0) to h1 (radius r1), shaded as a
/// cylinder lit from the left, with its top face.
#[allow(clippy::too_many_arguments)] // the solid's natural parameters
fn cylinder(
    c: &mut Canvas,
    cu: f32,
    cz: f32,
    r0: f32,
    r1: f32,
    h0: f32,
    h1: f32,
    body: Rgbf,
    top: Option<Rgbf>,
) {
    let mut pts = floor_circle(cu, cz, r0, h0, 48);
    pts.extend(floor_circle(cu, cz, r1, h1, 48));
    let hull = convex_hull(pts);
    let xl = hull.iter().map(|p| p.0).fold(f32::MAX, f32::min);
    let xr = hull.iter().map(|p| p.0).fold(f32::MIN, f32::max);
    c.poly(&hull, |x, _| {
        let t = (x - xl) / (xr - xl + 1e-3);
        let light = 0.55 + 0.55 * (PI * (t - 0.3)).cos().max(0.0) - 0.15 * t;
        mul(body, light)
    });
    if let Some(top) = top {
        let t = floor_circle(cu, cz, r1, h1, 48);
        c.poly_c(&t, top);
    }
}

/// A soft shadow on the floor: `footprint(u, z)` is a signed distance in metres.
fn floor_shadow(
    c: &mut Canvas,
    b: BBox,
    strength: f32,
    blur: f32,
    footprint: impl Fn(f32, f32) -> f32,
) {
    for y in b.y0.max(0)..=b.y1.min(c.h as i32 - 1) {
        for x in b.x0.max(0)..=b.x1.min(c.w as i32 - 1) {
            let Some((u, z)) = unproj(x as f32 + 0.5, y as f32 + 0.5) else {
                continue;
            };
            let d = footprint(u, z);
            let a = strength * (1.0 - smoothstep(-blur * 0.5, blur, d));
            if a > 0.0 {
                c.blend(x, y, hex(0x1a1020), a);
            }
        }
    }
}

fn floor_bbox(u: (f32, f32), z: (f32, f32)) -> BBox {
    BBox::of(
        &[
            proj(u.0, z.0, 0.0),
            proj(u.1, z.0, 0.0),
            proj(u.0, z.1, 0.0),
            proj(u.1, z.1, 0.0),
        ],
        4.0,
    )
}

fn sd_rect(u: f32, z: f32, u0: f32, u1: f32, z0: f32, z1: f32) -> f32 {
    let dx = (u0 - u).max(u - u1);
    let dz = (z0 - z).max(z - z1);
    let outside = (dx.max(0.0).powi(2) + dz.max(0.0).powi(2)).sqrt();
    outside + dx.max(dz).min(0.0)
}

// ---------------------------------------------------------------- the room

/// What a prop blocks on the floor (for the walk mask).
enum Footprint {
    Rect { u0: f32, u1: f32, z0: f32, z1: f32 },
    Circle { u: f32, z: f32, r: f32 },
}

impl Footprint {
    fn sd(&self, u: f32, z: f32) -> f32 {
        match *self {
            Footprint::Rect { u0, u1, z0, z1 } => sd_rect(u, z, u0, u1, z0, z1),
            Footprint::Circle { u: cu, z: cz, r } => {
                ((u - cu).powi(2) + (z - cz).powi(2)).sqrt() - r
            }
        }
    }
}

/// A piece of furniture: its footprint, shadow and drawing.
struct Prop {
    name: &'static str,
    footprint: Vec<Footprint>,
    draw: fn(&mut Canvas),
}

impl Prop {
    /// Depth used to draw props back to front: the nearest footprint point.
    fn near_z(&self) -> f32 {
        self.footprint
            .iter()
            .map(|f| match *f {
                Footprint::Rect { z0, .. } => z0,
                Footprint::Circle { z, r, .. } => z - r,
            })
            .fold(f32::MAX, f32::min)
    }

    fn shadow(&self, c: &mut Canvas) {
        for f in &self.footprint {
            // light from the back left: shadows fall to the front right
            let (du, dz) = (0.25, -0.35);
            match *f {
                Footprint::Rect { u0, u1, z0, z1 } => {
                    let b = floor_bbox((u0 - 0.5, u1 + 0.9), (z0 - 1.0, z1 + 0.5));
                    floor_shadow(c, b, 0.5, 0.3, |u, z| {
                        sd_rect(u - du, z - dz, u0, u1, z0, z1)
                    });
                }
                Footprint::Circle { u, z, r } => {
                    let b = floor_bbox((u - r - 0.5, u + r + 0.9), (z - r - 1.0, z + r + 0.5));
                    floor_shadow(c, b, 0.5, 0.3, |uu, zz| {
                        ((uu - du - u).powi(2) + (zz - dz - z).powi(2)).sqrt() - r
                    });
                }
            }
        }
    }
}

const SOFA: (f32, f32, f32, f32) = (-5.9, -3.1, 19.05, 19.95);
const DESK: (f32, f32, f32, f32) = (-2.0, 0.6, 18.4, 19.1);
const RUG: (f32, f32, f32, f32) = (-2.0, 0.6, 15.6, 17.9);
const PILLARS: [(f32, f32); 2] = [(-2.7, 14.4), (1.05, 14.4)];
const TABLE: (f32, f32, f32) = (-0.6, 11.6, 0.5);
const FOUNTAIN: (f32, f32, f32) = (4.75, 17.2, 0.95);
const BENCH: (f32, f32, f32, f32) = (3.1, 4.4, 11.3, 11.85);

fn props() -> Vec<Prop> {
    vec![
        Prop {
            name: "sofa",
            footprint: vec![Footprint::Rect {
                u0: SOFA.0,
                u1: SOFA.1,
                z0: SOFA.2,
                z1: SOFA.3,
            }],
            draw: draw_sofa,
        },
        Prop {
            name: "desk",
            footprint: vec![Footprint::Rect {
                u0: DESK.0,
                u1: DESK.1,
                z0: DESK.2,
                z1: DESK.3,
            }],
            draw: draw_desk,
        },
        Prop {
            name: "palm",
            footprint: vec![Footprint::Circle {
                u: -6.7,
                z: 19.3,
                r: 0.35,
            }],
            draw: |c| plant(c, -6.7, 19.3, 0.35, 2.2, 11, 0x3f8f4a),
        },
        Prop {
            name: "fern",
            footprint: vec![Footprint::Circle {
                u: 1.75,
                z: 19.2,
                r: 0.3,
            }],
            draw: |c| plant(c, 1.75, 19.2, 0.3, 1.5, 7, 0x4a9a40),
        },
        Prop {
            name: "pillar_left",
            footprint: vec![Footprint::Circle {
                u: PILLARS[0].0,
                z: PILLARS[0].1,
                r: 0.24,
            }],
            draw: |c| pillar(c, PILLARS[0].0, PILLARS[0].1),
        },
        Prop {
            name: "pillar_right",
            footprint: vec![Footprint::Circle {
                u: PILLARS[1].0,
                z: PILLARS[1].1,
                r: 0.24,
            }],
            draw: |c| pillar(c, PILLARS[1].0, PILLARS[1].1),
        },
        Prop {
            name: "table",
            footprint: vec![
                Footprint::Circle {
                    u: TABLE.0,
                    z: TABLE.1,
                    r: TABLE.2,
                },
                Footprint::Rect {
                    u0: TABLE.0 - 0.95,
                    u1: TABLE.0 - 0.45,
                    z0: TABLE.1 - 0.25,
                    z1: TABLE.1 + 0.25,
                },
                Footprint::Rect {
                    u0: TABLE.0 + 0.45,
                    u1: TABLE.0 + 0.95,
                    z0: TABLE.1 - 0.25,
                    z1: TABLE.1 + 0.25,
                },
            ],
            draw: draw_table,
        },
        Prop {
            name: "plant_front",
            footprint: vec![Footprint::Circle {
                u: -3.2,
                z: 10.9,
                r: 0.3,
            }],
            draw: |c| plant(c, -3.2, 10.9, 0.3, 1.3, 9, 0x2f7d3c),
        },
        Prop {
            name: "fountain",
            footprint: vec![Footprint::Circle {
                u: FOUNTAIN.0,
                z: FOUNTAIN.1,
                r: FOUNTAIN.2,
            }],
            draw: draw_fountain,
        },
        Prop {
            name: "bench",
            footprint: vec![Footprint::Rect {
                u0: BENCH.0,
                u1: BENCH.1,
                z0: BENCH.2,
                z1: BENCH.3,
            }],
            draw: draw_bench,
        },
        Prop {
            name: "shrubs",
            footprint: vec![
                Footprint::Circle {
                    u: 3.2,
                    z: 19.3,
                    r: 0.45,
                },
                Footprint::Circle {
                    u: 6.9,
                    z: 19.1,
                    r: 0.6,
                },
            ],
            draw: |c| {
                shrub(c, 3.2, 19.3, 0.45, 71);
                shrub(c, 6.9, 19.1, 0.6, 72);
            },
        },
    ]
}

fn wall_x(u: f32) -> f32 {
    CX + F * u / Z_WALL
}

fn wall_y(h: f32) -> f32 {
    HORIZON + F * (CAM_H - h) / Z_WALL
}

fn sky(y: f32) -> Rgbf {
    let t = (y / 360.0).clamp(0.0, 1.0);
    if t < 0.55 {
        mix(hex(0x3b4a8c), hex(0xc7779a), t / 0.55)
    } else {
        mix(hex(0xc7779a), hex(0xffbf73), (t - 0.55) / 0.45)
    }
}

fn draw_back(c: &mut Canvas) {
    let fence_x = wall_x(FENCE_U);
    let paper = hex(0x2c5b5e);
    for y in 0..360 {
        for x in 0..W as i32 {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let (u, h) = unproj_wall(fx, fy);
            let col = if fx < fence_x + 10.0 {
                // lobby wall
                if h > 2.8 {
                    // crown moulding
                    let t = (h - 2.8) / 0.2;
                    mix(hex(0xe9dcc0), hex(0xb9a884), (t * 6.0).sin().abs() * 0.5)
                } else if h > 0.95 {
                    // damask wallpaper: stripes and a diamond lattice
                    let stripe = ((u * 5.0).fract() - 0.5).abs();
                    let (du, dh) = (
                        (u * 2.5).fract() - 0.5,
                        (h * 2.5 + 0.25 * (u * 2.5).floor()).fract() - 0.5,
                    );
                    let diamond = 1.0 - smoothstep(0.18, 0.24, du.abs() + dh.abs());
                    let ring = smoothstep(0.26, 0.3, du.abs() + dh.abs())
                        * (1.0 - smoothstep(0.3, 0.34, du.abs() + dh.abs()));
                    let mut col = mul(paper, 0.92 + 0.1 * smoothstep(0.3, 0.5, stripe));
                    col = mix(col, hex(0x3f7a73), 0.6 * diamond + 0.35 * ring);
                    col
                } else if h > 0.88 {
                    hex(0x7a4a2a) // chair rail
                } else if h > 0.12 {
                    // wainscoting panels
                    let pu = (u / 0.9).fract();
                    let ph = (h - 0.12) / 0.76;
                    let inset = pu > 0.1 && pu < 0.9 && ph > 0.14 && ph < 0.86;
                    let bevel = pu > 0.08 && pu < 0.92 && ph > 0.1 && ph < 0.9;
                    let grain = 0.9 + 0.1 * value_noise(u * 3.0, h * 60.0, 5);
                    let base = hex(0x5e3a22);
                    mul(
                        if inset {
                            mul(base, 1.12)
                        } else if bevel {
                            mul(base, 0.75)
                        } else {
                            base
                        },
                        grain,
                    )
                } else {
                    hex(0x3a2314) // skirting
                }
            } else {
                // garden: sunset sky, trees and a hedge
                let mut col = sky(fy);
                let ridge = 150.0 + 40.0 * fbm(fx / 90.0, 0.0, 11) + 25.0 * fbm(fx / 30.0, 1.0, 12);
                if fy > ridge {
                    let k = smoothstep(ridge, ridge + 3.0, fy);
                    col = mix(
                        col,
                        mix(
                            hex(0x5d4a6e),
                            hex(0x3a3f55),
                            ((fy - ridge) / 120.0).min(1.0),
                        ),
                        k,
                    );
                }
                let hedge_top = 250.0 + 10.0 * fbm(fx / 25.0, 3.0, 13);
                if fy > hedge_top {
                    let n = fbm(fx / 9.0, fy / 9.0, 14);
                    let k = smoothstep(hedge_top, hedge_top + 2.0, fy);
                    col = mix(
                        col,
                        mix(
                            hex(0x1f4a2a),
                            hex(0x4f8a3a),
                            n * 0.9 + 0.1 * (1.0 - (fy - 250.0) / 110.0),
                        ),
                        k,
                    );
                }
                if h < 0.35 {
                    // low stone wall under the hedge
                    let row = (h / 0.12).floor();
                    let brick = ((u + row * 0.17) / 0.35).fract();
                    let mortar = brick < 0.05 || (h / 0.12).fract() < 0.1;
                    col = if mortar {
                        hex(0x8b7f74)
                    } else {
                        mul(
                            hex(0xb5a48f),
                            0.9 + 0.15
                                * hash(((u + row * 0.17) / 0.35).floor() as i32, row as i32, 3),
                        )
                    };
                }
                col
            };
            c.blend(x, y, col, 1.0);
        }
    }
    // the end of the lobby wall: a pilaster
    box3d(
        c,
        (FENCE_U - 0.08, FENCE_U + 0.14),
        (Z_WALL - 0.12, Z_WALL),
        (0.0, 4.0),
        hex(0xe0d2b4),
        hex(0xd8c9a8),
        hex(0xa89878),
    );

    // windows with the sunset, curtains
    for wu in [-6.6, 1.1] {
        window(c, wu);
    }
    // painting over the sofa, sconces either side
    let (pu0, pu1) = (-5.1, -3.9);
    let (ph0, ph1) = (1.35, 2.2);
    let frame = [
        (wall_x(pu0), wall_y(ph1)),
        (wall_x(pu1), wall_y(ph1)),
        (wall_x(pu1), wall_y(ph0)),
        (wall_x(pu0), wall_y(ph0)),
    ];
    c.poly_c(&frame, hex(0xc9a24a));
    let inner = [
        (frame[0].0 + 9.0, frame[0].1 + 9.0),
        (frame[1].0 - 9.0, frame[1].1 + 9.0),
        (frame[2].0 - 9.0, frame[2].1 - 9.0),
        (frame[3].0 + 9.0, frame[3].1 - 9.0),
    ];
    let (iy0, iy1) = (inner[0].1, inner[2].1);
    c.poly(&inner, |x, y| {
        let t = (y - iy0) / (iy1 - iy0);
        let hill = 0.55 + 0.12 * (x / 23.0).sin() + 0.05 * (x / 7.0).sin();
        let hill2 = 0.72 + 0.08 * (x / 15.0 + 1.0).cos();
        if t > hill2 {
            mix(hex(0x3d6b3a), hex(0x2a4a2a), (t - hill2) * 2.0)
        } else if t > hill {
            mix(hex(0x6f9a5a), hex(0x55804a), (t - hill) * 3.0)
        } else {
            mix(hex(0x8fb6d9), hex(0xf4d9a0), t / hill)
        }
    });
    for &su in &[pu0 - 0.45, pu1 + 0.45] {
        let p = (wall_x(su), wall_y(1.75));
        glow(c, p, 90.0, hex(0xffc870), 0.35);
        band(
            c,
            (p.0 - 4.0, p.0 + 4.0, p.1 + 4.0),
            (p.0 - 3.0, p.0 + 3.0, p.1 + 20.0),
            hex(0x9a7a3a),
        );
        band(
            c,
            (p.0 - 10.0, p.0 + 10.0, p.1 - 12.0),
            (p.0 - 6.0, p.0 + 6.0, p.1 + 4.0),
            hex(0xffe2a8),
        );
    }
}

fn glow(c: &mut Canvas, p: P2, r: f32, col: Rgbf, k: f32) {
    for y in (p.1 - r) as i32..=(p.1 + r) as i32 {
        for x in (p.0 - r) as i32..=(p.0 + r) as i32 {
            let d = ((x as f32 - p.0).powi(2) + (y as f32 - p.1).powi(2)).sqrt() / r;
            if d < 1.0 {
                c.add(x, y, col, k * (1.0 - d).powi(2));
            }
        }
    }
}

fn window(c: &mut Canvas, wu: f32) {
    let (u0, u1) = (wu - 0.6, wu + 0.6);
    let (h0, h1) = (1.05, 2.6);
    let (x0, x1) = (wall_x(u0), wall_x(u1));
    let (y0, y1) = (wall_y(h1), wall_y(h0));
    let arch = (x1 - x0) / 2.0;
    let cxw = (x0 + x1) / 2.0;
    let shape = |x: f32, y: f32, grow: f32| {
        let rect = sd_poly(
            &[
                (x0 - grow, y0 + arch),
                (x1 + grow, y0 + arch),
                (x1 + grow, y1 + grow),
                (x0 - grow, y1 + grow),
            ],
            x,
            y,
        );
        let circ = ((x - cxw).powi(2) + (y - y0 - arch).powi(2)).sqrt() - arch - grow;
        rect.min(circ)
    };
    let b = BBox {
        x0: x0 as i32 - 20,
        y0: y0 as i32 - 20,
        x1: x1 as i32 + 20,
        y1: y1 as i32 + 20,
    };
    c.fill(b, |x, y| shape(x, y, 10.0), |_, _| hex(0xe6d8b8), 1.0);
    c.fill(
        b,
        |x, y| shape(x, y, 0.0),
        |x, y| {
            let mut col = sky(y * 0.8 + 40.0);
            let ridge = y1 - 40.0 - 20.0 * fbm(x / 40.0, 0.0, 21);
            if y > ridge {
                col = mix(col, hex(0x4a3f5e), smoothstep(ridge, ridge + 2.0, y));
            }
            let sun = ((x - cxw - 20.0).powi(2) + (y - y1 + 70.0).powi(2)).sqrt();
            mix(col, hex(0xfff0c0), 1.0 - smoothstep(10.0, 16.0, sun))
        },
        1.0,
    );
    // mullions
    band(
        c,
        (cxw - 3.0, cxw + 3.0, y0),
        (cxw - 3.0, cxw + 3.0, y1),
        hex(0xe6d8b8),
    );
    let ym = y0 + arch + 10.0;
    band(c, (x0, x1, ym - 3.0), (x0, x1, ym + 3.0), hex(0xe6d8b8));
    // sill
    band(
        c,
        (x0 - 16.0, x1 + 16.0, y1 + 6.0),
        (x0 - 12.0, x1 + 12.0, y1 + 16.0),
        hex(0xd4c4a0),
    );
    // curtains
    for side in [-1.0f32, 1.0] {
        let edge = if side < 0.0 { x0 - 22.0 } else { x1 + 22.0 };
        let inner = if side < 0.0 { x0 + 18.0 } else { x1 - 18.0 };
        let top = y0 - 16.0;
        let pts = [
            (edge, top),
            (inner, top),
            (inner - side * 6.0, (y0 + y1) / 2.0),
            (edge + side * 8.0, y1 + 30.0),
            (edge - side * 4.0, y1 + 34.0),
        ];
        c.poly(&pts, |x, _| {
            let fold = 0.8 + 0.2 * ((x - edge) / 6.0).sin();
            mul(hex(0x8e2a36), fold)
        });
    }
    band(
        c,
        (x0 - 30.0, x1 + 30.0, y0 - 22.0),
        (x0 - 30.0, x1 + 30.0, y0 - 14.0),
        hex(0x6a4420),
    );
}

fn draw_floor(c: &mut Canvas) {
    let fence = FENCE_U;
    for y in 360..H as i32 {
        for x in 0..W as i32 {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let (u, z) = unproj(fx, fy).unwrap();
            // pixel footprint on the floor, for filtering the pattern
            let du = z / F;
            let fence_line = fence + 0.0 * z;
            let col = if u < fence_line {
                // marble checkerboard, 0.6 m tiles
                let (tu, tz) = (u / 0.6, z / 0.6);
                let (cu, cz) = (tu.floor() as i32, tz.floor() as i32);
                let dark = (cu + cz).rem_euclid(2) == 1;
                let light_tile = mix(hex(0xeadfc8), hex(0xd9c9ad), fbm(u * 2.0, z * 6.0, 1) * 0.6);
                let dark_tile = mix(hex(0x3f524c), hex(0x2f3f3a), fbm(u * 2.0, z * 6.0, 2) * 0.8);
                let mut col = if dark { dark_tile } else { light_tile };
                // veins
                let vein = (fbm(u * 3.0 + 7.0, z * 3.0, 3) * 12.0).sin().abs();
                col = mix(
                    col,
                    mul(col, 0.82),
                    (1.0 - smoothstep(0.0, 0.08, vein)) * 0.6,
                );
                // grout lines, filtered by pixel size
                let gu = (tu - tu.round()).abs() * 0.6;
                let gz = (tz - tz.round()).abs() * 0.6;
                let dz = z * z / (F * CAM_H);
                let g = (1.0 - smoothstep(0.006, 0.006 + du * 1.2, gu))
                    .max(1.0 - smoothstep(0.006, 0.006 + dz * 1.2, gz));
                mix(col, hex(0x8a7a66), g * 0.7)
            } else {
                // garden lawn with a flagstone path from the gate to the fountain
                let n = fbm(u * 4.0, z * 10.0, 30);
                let blades = value_noise(u * 90.0, z * 260.0, 31);
                let mut col = mix(hex(0x3f7a2e), hex(0x7fae48), n);
                col = mul(col, 0.85 + 0.25 * blades);
                // stepping stones on a straight line from the gate to the fountain
                let a = (FENCE_U + 0.1, (GATE_Z.0 + GATE_Z.1) * 0.5);
                let b = (FOUNTAIN.0 - 0.25, FOUNTAIN.1 - FOUNTAIN.2 - 0.3);
                let (lx, lz) = (b.0 - a.0, b.1 - a.1);
                let len = (lx * lx + lz * lz).sqrt();
                let s = ((u - a.0) * lx + (z - a.1) * lz) / len;
                let k = (s / 0.62).round();
                if k >= 0.0 && k * 0.62 <= len {
                    let ki = k as i32;
                    let t = k * 0.62 / len;
                    let c = (
                        a.0 + lx * t + 0.08 * (hash(ki, 2, 43) - 0.5),
                        a.1 + lz * t + 0.15 * (hash(ki, 3, 44) - 0.5),
                    );
                    let r = 0.24 + 0.05 * hash(ki, 4, 45);
                    let wob = 1.0 + 0.12 * (((z - c.1).atan2(u - c.0)) * 3.0 + ki as f32).sin();
                    let d = ((u - c.0).powi(2) + (z - c.1).powi(2)).sqrt() / (r * wob);
                    let stone = mul(
                        hex(0xbfb29c),
                        0.85 + 0.15 * hash(ki, 1, 41) + 0.12 * fbm(u * 20.0, z * 20.0, 42)
                            - 0.15 * smoothstep(0.7, 1.0, d),
                    );
                    let dz = z * z / (F * CAM_H) / r;
                    col = mix(col, stone, 1.0 - smoothstep(1.0 - dz, 1.0 + dz, d));
                }
                col
            };
            // darker near the wall, slight vignette at the front corners
            let ao = 1.0 - 0.35 * (1.0 - smoothstep(0.0, 2.0, Z_WALL - z));
            let vign = 1.0
                - 0.25
                    * smoothstep(0.5, 1.0, ((fx - CX) / CX).abs())
                    * smoothstep(700.0, 1080.0, fy);
            c.blend(x, y, mul(col, ao * vign), 1.0);
        }
    }
    // low sun through the windows: warm patches on the floor
    for wu in [-6.6f32, 1.1] {
        for y in 360..H as i32 {
            for x in 0..W as i32 {
                let (u, z) = unproj(x as f32 + 0.5, y as f32 + 0.5).unwrap();
                if u > FENCE_U {
                    continue;
                }
                let back = Z_WALL - z;
                let shift = 0.45 * back;
                let lu = u - wu - shift;
                let a = (1.0 - smoothstep(0.45, 0.62, lu.abs()))
                    * smoothstep(0.2, 0.8, back)
                    * (1.0 - smoothstep(3.0, 6.5, back));
                let mull = 1.0 - 0.6 * (1.0 - smoothstep(0.02, 0.05, lu.abs()));
                if a > 0.0 {
                    c.add(x, y, hex(0xffb060), 0.32 * a * mull);
                }
            }
        }
    }
    // rug in front of the desk (walkable: area 3)
    let (u0, u1, z0, z1) = RUG;
    let rug = [
        proj(u0, z0, 0.005),
        proj(u1, z0, 0.005),
        proj(u1, z1, 0.005),
        proj(u0, z1, 0.005),
    ];
    c.poly(&rug, |x, y| {
        let (u, z) = unproj(x, y).unwrap();
        let su = ((u - u0) / (u1 - u0)).clamp(0.0, 1.0);
        let sz = ((z - z0) / (z1 - z0)).clamp(0.0, 1.0);
        let edge = su
            .min(1.0 - su)
            .min((sz.min(1.0 - sz)) * (z1 - z0) / (u1 - u0) * 1.0)
            * (u1 - u0);
        if edge < 0.07 {
            hex(0x6a1e26)
        } else if edge < 0.14 {
            let k = (((u + z) * 25.0).sin() * ((u - z) * 25.0).sin()).abs();
            mix(hex(0xd9a34a), hex(0x6a1e26), smoothstep(0.3, 0.5, k))
        } else if edge < 0.17 {
            hex(0x2a3a6a)
        } else {
            let (cu, cz) = (su - 0.5, (sz - 0.5) * (z1 - z0) / (u1 - u0));
            let r = (cu.abs() + cz.abs() * 1.8) * 6.0;
            let medal = (r * 3.0).cos() * 0.5 + 0.5;
            let base = mix(
                hex(0xa8323a),
                hex(0x8a2430),
                fbm(u * 30.0, z * 30.0, 50) * 0.5,
            );
            if r < 1.6 {
                mix(hex(0x2a3a6a), hex(0xd9a34a), medal)
            } else {
                mix(base, hex(0xc4542f), 0.3 * medal)
            }
        }
    });
    // fringes
    for side in [u0, u1] {
        for i in 0..14 {
            let z = z0 + (z1 - z0) * (i as f32 + 0.5) / 14.0;
            let a = proj(side, z, 0.0);
            let b = proj(side + if side == u0 { -0.06 } else { 0.06 }, z, 0.0);
            c.capsule(a, b, 1.2, hex(0xe8d8b0));
        }
    }
}

fn draw_sofa(c: &mut Canvas) {
    let (u0, u1, z0, z1) = SOFA;
    let velvet = hex(0x7a2434);
    let legs = hex(0x3a2214);
    for &(lu, lz) in &[(u0 + 0.08, z0 + 0.06), (u1 - 0.08, z0 + 0.06)] {
        box3d(
            c,
            (lu - 0.04, lu + 0.04),
            (lz - 0.03, lz + 0.03),
            (0.0, 0.12),
            legs,
            legs,
            legs,
        );
    }
    // backrest
    box3d(
        c,
        (u0, u1),
        (z1 - 0.16, z1),
        (0.12, 0.95),
        mul(velvet, 1.2),
        mul(velvet, 0.95),
        mul(velvet, 0.8),
    );
    // seat
    box3d(
        c,
        (u0 + 0.18, u1 - 0.18),
        (z0, z1 - 0.12),
        (0.12, 0.42),
        mul(velvet, 1.15),
        mul(velvet, 0.9),
        mul(velvet, 0.8),
    );
    // cushions
    let n = 3;
    let w = (u1 - u0 - 0.36) / n as f32;
    for i in 0..n {
        let cu0 = u0 + 0.18 + w * i as f32 + 0.02;
        box3d(
            c,
            (cu0, cu0 + w - 0.04),
            (z0 + 0.02, z1 - 0.14),
            (0.42, 0.5),
            mul(velvet, 1.3),
            mul(velvet, 1.05),
            mul(velvet, 0.85),
        );
        // back cushions
        box3d(
            c,
            (cu0, cu0 + w - 0.04),
            (z1 - 0.3, z1 - 0.16),
            (0.5, 0.88),
            mul(velvet, 1.25),
            mul(velvet, 1.1),
            mul(velvet, 0.9),
        );
    }
    // arms
    for &(a0, a1) in &[(u0, u0 + 0.18), (u1 - 0.18, u1)] {
        box3d(
            c,
            (a0, a1),
            (z0, z1 - 0.05),
            (0.12, 0.66),
            mul(velvet, 1.25),
            mul(velvet, 0.95),
            mul(velvet, 0.75),
        );
    }
    // gold piping
    let a = proj(u0, z0, 0.12);
    let b = proj(u1, z0, 0.12);
    c.capsule(a, b, 1.5, hex(0xc9a24a));
}

fn draw_desk(c: &mut Canvas) {
    let (u0, u1, z0, z1) = DESK;
    let wood = hex(0x6b3e22);
    box3d(
        c,
        (u0, u1),
        (z0, z1),
        (0.0, 1.05),
        mul(wood, 1.3),
        wood,
        mul(wood, 0.7),
    );
    // front panels
    let n = 5;
    for i in 0..n {
        let pu0 = u0 + (u1 - u0) * i as f32 / n as f32 + 0.07;
        let pu1 = u0 + (u1 - u0) * (i + 1) as f32 / n as f32 - 0.07;
        let p = [
            proj(pu0, z0, 0.15),
            proj(pu1, z0, 0.15),
            proj(pu1, z0, 0.85),
            proj(pu0, z0, 0.85),
        ];
        c.poly_c(&p, mul(wood, 1.15));
        let q = [
            proj(pu0 + 0.03, z0, 0.18),
            proj(pu1 - 0.03, z0, 0.18),
            proj(pu1 - 0.03, z0, 0.82),
            proj(pu0 + 0.03, z0, 0.82),
        ];
        c.poly_c(&q, mul(wood, 0.9));
    }
    // marble top
    box3d(
        c,
        (u0 - 0.05, u1 + 0.05),
        (z0 - 0.05, z1),
        (1.05, 1.11),
        hex(0xe8e0d0),
        hex(0xb8ae9c),
        hex(0xa09684),
    );
    // brass lamp with green shade, a bell and a guest book
    let lamp = (u0 + 0.45, z0 + 0.12);
    cylinder(
        c,
        lamp.0,
        lamp.1,
        0.08,
        0.06,
        1.11,
        1.14,
        hex(0xc9a24a),
        Some(hex(0xe0c070)),
    );
    let a = proj(lamp.0, lamp.1, 1.14);
    let b = proj(lamp.0, lamp.1, 1.5);
    c.capsule(a, b, 2.5, hex(0xb8903a));
    cylinder(
        c,
        lamp.0,
        lamp.1,
        0.2,
        0.1,
        1.45,
        1.62,
        hex(0x2f7a4a),
        Some(hex(0x3f9a5a)),
    );
    glow(c, proj(lamp.0, lamp.1, 1.4), 110.0, hex(0xffd890), 0.25);
    let bell = (u1 - 0.5, z0 + 0.1);
    let p = proj(bell.0, bell.1, 1.11);
    c.ellipse(
        (p.0, p.1 - 6.0),
        9.0,
        8.0,
        |x, _| mix(hex(0xf0d070), hex(0xa07a2a), (x - p.0 + 9.0) / 18.0),
        1.0,
    );
    c.ellipse((p.0, p.1 - 15.0), 2.5, 2.5, |_, _| hex(0x806020), 1.0);
    box3d(
        c,
        (u1 - 1.15, u1 - 0.8),
        (z0 + 0.02, z0 + 0.18),
        (1.11, 1.14),
        hex(0xf4ecd8),
        hex(0x7a2a2a),
        hex(0x7a2a2a),
    );
    // key rack on the wall behind
    let kr = [
        (wall_x(-1.2), wall_y(2.0)),
        (wall_x(-0.2), wall_y(2.0)),
        (wall_x(-0.2), wall_y(1.55)),
        (wall_x(-1.2), wall_y(1.55)),
    ];
    c.poly_c(&kr, hex(0x5a3a22));
    for i in 0..8 {
        let x = kr[0].0 + 8.0 + i as f32 * ((kr[1].0 - kr[0].0 - 16.0) / 7.0);
        for row in 0..2 {
            let y = kr[0].1 + 10.0 + row as f32 * 22.0;
            c.ellipse((x, y), 2.0, 2.0, |_, _| hex(0xd0b060), 1.0);
            if (i + row) % 3 != 0 {
                c.capsule((x, y + 2.0), (x, y + 12.0), 1.2, hex(0xd8c070));
                c.ellipse((x, y + 14.0), 3.0, 4.0, |_, _| hex(0x9a2a2a), 1.0);
            }
        }
    }
}

fn pillar(c: &mut Canvas, u: f32, z: f32) {
    let marble = hex(0xe8e0d2);
    box3d(
        c,
        (u - 0.3, u + 0.3),
        (z - 0.3, z + 0.3),
        (0.0, 0.28),
        hex(0xd8d0c0),
        hex(0xcfc5b2),
        hex(0xa8a090),
    );
    cylinder(c, u, z, 0.26, 0.26, 0.28, 0.36, marble, Some(hex(0xf0e8da)));
    // shaft with flutes (drawn as the cylinder, then vertical grooves)
    cylinder(c, u, z, 0.2, 0.18, 0.36, 4.2, marble, None);
    for i in 0..7 {
        let a = PI * (0.15 + 0.7 * i as f32 / 6.0);
        let (gu, gz) = (u - 0.19 * a.cos(), z - 0.19 * a.sin());
        let p0 = proj(gu, gz, 0.5);
        let p1 = proj(gu, gz, 4.2);
        c.capsule(p0, p1, 1.3, mul(marble, 0.78 - 0.1 * (i as f32 / 6.0)));
    }
    let b = proj(u, z, 0.36);
    c.ellipse(b, F * 0.22 / z, 4.0, |_, _| hex(0xc8bfae), 1.0);
}

fn plant(c: &mut Canvas, u: f32, z: f32, r: f32, height: f32, leaves: usize, leaf: u32) {
    // terracotta pot
    cylinder(
        c,
        u,
        z,
        r * 0.75,
        r,
        0.0,
        r * 1.6,
        hex(0xb5603a),
        Some(hex(0x4a3020)),
    );
    let rim0 = r * 1.5;
    cylinder(
        c,
        u,
        z,
        r * 1.05,
        r * 1.05,
        rim0,
        r * 1.7,
        hex(0xc8704a),
        Some(hex(0x3a2818)),
    );
    let base = proj(u, z, r * 1.65);
    let scale = F / z;
    let mut rng = Rng((u * 1000.0) as u64 ^ 0x5eed ^ (leaves as u64 * 77));
    let leaf_col = hex(leaf);
    // back leaves first (drawn in order of increasing "front-ness")
    let mut fronds: Vec<(f32, f32, f32)> = (0..leaves * 2)
        .map(|i| {
            let ang = -PI / 2.0
                + (i as f32 / (leaves * 2) as f32 - 0.5) * PI * 1.5
                + rng.range(-0.15, 0.15);
            (ang, rng.range(0.6, 1.0), rng.next())
        })
        .collect();
    fronds.sort_by(|a, b| a.2.total_cmp(&b.2));
    for (ang, len, depth) in fronds {
        let l = height * len * scale * 0.55;
        let tip = (
            base.0 + ang.cos() * l,
            base.1 + ang.sin() * l * 1.1 - height * scale * 0.15,
        );
        let ctrl = (
            base.0 + ang.cos() * l * 0.3,
            base.1 - height * scale * 0.35 * len,
        );
        // a leaf: quadratic curve with width
        let n = 16;
        let mut left = Vec::new();
        let mut right = Vec::new();
        for k in 0..=n {
            let t = k as f32 / n as f32;
            let p = (
                (1.0 - t).powi(2) * base.0 + 2.0 * (1.0 - t) * t * ctrl.0 + t * t * tip.0,
                (1.0 - t).powi(2) * base.1 + 2.0 * (1.0 - t) * t * ctrl.1 + t * t * tip.1,
            );
            let d = (
                2.0 * (1.0 - t) * (ctrl.0 - base.0) + 2.0 * t * (tip.0 - ctrl.0),
                2.0 * (1.0 - t) * (ctrl.1 - base.1) + 2.0 * t * (tip.1 - ctrl.1),
            );
            let dl = (d.0 * d.0 + d.1 * d.1).sqrt().max(1e-3);
            let wdt = (PI * t).sin().max(0.0).powf(0.7) * scale * 0.07 * (0.6 + 0.4 * len);
            left.push((p.0 - d.1 / dl * wdt, p.1 + d.0 / dl * wdt));
            right.push((p.0 + d.1 / dl * wdt, p.1 - d.0 / dl * wdt));
        }
        right.reverse();
        left.extend(right);
        let shade = 0.65 + 0.5 * depth;
        let col = mul(leaf_col, shade);
        let cx = base.0;
        c.poly(&left, |x, _| {
            mix(
                col,
                mul(col, 1.25),
                ((x - cx) / 80.0).clamp(-1.0, 1.0) * -0.5 + 0.5,
            )
        });
        // midrib
        let mid: Vec<P2> = (0..=8)
            .map(|k| {
                let t = k as f32 / 8.0;
                (
                    (1.0 - t).powi(2) * base.0 + 2.0 * (1.0 - t) * t * ctrl.0 + t * t * tip.0,
                    (1.0 - t).powi(2) * base.1 + 2.0 * (1.0 - t) * t * ctrl.1 + t * t * tip.1,
                )
            })
            .collect();
        for w in mid.windows(2) {
            c.capsule(w[0], w[1], 0.8, mul(col, 0.7));
        }
    }
}

fn shrub(c: &mut Canvas, u: f32, z: f32, r: f32, seed: u64) {
    let mut rng = Rng(seed);
    let scale = F / z;
    let base = proj(u, z, 0.0);
    for i in 0..40 {
        let a = rng.range(0.0, 2.0 * PI);
        let rr = rng.range(0.0, r) * scale;
        let hgt = rng.range(0.1, r * 1.8) * scale;
        let p = (base.0 + a.cos() * rr, base.1 - hgt + a.sin() * rr * 0.3);
        let s = rng.range(0.1, 0.2) * scale;
        let t = i as f32 / 40.0;
        let col = mix(hex(0x245a2a), hex(0x5a9a3a), t * 0.8 + 0.2 * rng.next());
        c.ellipse(
            p,
            s,
            s * 0.85,
            |x, y| {
                mix(
                    col,
                    mul(col, 0.7),
                    ((x - p.0 + y - p.1) / (2.0 * s)).clamp(0.0, 1.0),
                )
            },
            1.0,
        );
        if rng.next() < 0.35 {
            let fcol =
                [hex(0xf06a8a), hex(0xf8e070), hex(0xf0f0f0)][(rng.next() * 3.0) as usize % 3];
            c.ellipse(
                (p.0 + rng.range(-s, s) * 0.5, p.1 - s * 0.3),
                3.5,
                3.5,
                |_, _| fcol,
                1.0,
            );
        }
    }
}

fn draw_table(c: &mut Canvas) {
    let (u, z, r) = TABLE;
    let wood = hex(0x5a3520);
    // chairs either side
    for side in [-1.0f32, 1.0] {
        let cu = u + side * 0.6;
        let (u0, u1) = (cu - 0.17, cu + 0.17);
        let (z0, z1) = (z - 0.15, z + 0.15);
        for &(lu, lz) in &[
            (u0 + 0.03, z0 + 0.03),
            (u1 - 0.03, z0 + 0.03),
            (u0 + 0.03, z1 - 0.03),
            (u1 - 0.03, z1 - 0.03),
        ] {
            box3d(
                c,
                (lu - 0.025, lu + 0.025),
                (lz - 0.025, lz + 0.025),
                (0.0, 0.45),
                wood,
                wood,
                mul(wood, 0.8),
            );
        }
        box3d(
            c,
            (u0, u1),
            (z0, z1),
            (0.45, 0.5),
            hex(0x8a2a34),
            mul(wood, 1.1),
            wood,
        );
        // backrest on the far side from the table
        let bu = if side < 0.0 { u0 } else { u1 - 0.04 };
        box3d(
            c,
            (bu, bu + 0.04),
            (z0, z1),
            (0.5, 1.0),
            mul(wood, 1.2),
            mul(wood, 1.1),
            mul(wood, 0.9),
        );
    }
    cylinder(c, u, z, 0.25, 0.06, 0.0, 0.05, wood, Some(mul(wood, 1.2)));
    cylinder(c, u, z, 0.05, 0.05, 0.05, 0.7, wood, None);
    // tablecloth: top ellipse and a skirt
    cylinder(
        c,
        u,
        z,
        r + 0.02,
        r,
        0.55,
        0.75,
        hex(0xf2ece0),
        Some(hex(0xfaf6ee)),
    );
    // a vase with flowers
    cylinder(
        c,
        u + 0.05,
        z + 0.05,
        0.05,
        0.07,
        0.75,
        0.95,
        hex(0x2f5f9a),
        Some(hex(0x1f3f6a)),
    );
    let top = proj(u + 0.05, z + 0.05, 0.95);
    let mut rng = Rng(99);
    for _ in 0..9 {
        let tip = (
            top.0 + rng.range(-22.0, 22.0),
            top.1 - rng.range(18.0, 40.0),
        );
        c.capsule(top, tip, 1.0, hex(0x3a7a3a));
        let fcol = [hex(0xf0506a), hex(0xf8d040), hex(0xffffff)][(rng.next() * 3.0) as usize % 3];
        c.ellipse(tip, 6.0, 5.0, |_, _| fcol, 1.0);
        c.ellipse(tip, 2.0, 2.0, |_, _| hex(0x9a6a20), 1.0);
    }
}

fn draw_fountain(c: &mut Canvas) {
    let (u, z, r) = FOUNTAIN;
    let stone = hex(0xc8bca8);
    cylinder(c, u, z, r, r, 0.0, 0.45, stone, Some(hex(0xd8ccb8)));
    // water
    let w = floor_circle(u, z, r - 0.08, 0.42, 64);
    let cy = proj(u, z, 0.42).1;
    c.poly(&w, |x, y| {
        let ripple = ((x / 9.0).sin() + ((y - cy) / 3.0).sin()) * 0.5;
        mix(hex(0x3a7aa8), hex(0x8ac4e0), 0.35 + 0.25 * ripple)
    });
    cylinder(c, u, z, 0.1, 0.08, 0.42, 1.1, stone, None);
    cylinder(c, u, z, 0.32, 0.3, 1.05, 1.15, stone, Some(hex(0x7ab4d8)));
    // water jet and falling streams
    let top = proj(u, z, 1.15);
    let jet = proj(u, z, 1.6);
    c.capsule(top, jet, 3.0, hex(0xcfeaf8));
    for i in 0..8 {
        let a = i as f32 / 8.0 * 2.0 * PI;
        let mut prev = jet;
        for k in 1..=12 {
            let t = k as f32 / 12.0;
            let p = proj(
                u + a.cos() * 0.5 * t,
                z + a.sin() * 0.5 * t * 0.6,
                1.6 + 0.25 * t - 1.15 * t * t,
            );
            c.capsule(prev, p, 1.4, hex(0xdff2fc));
            prev = p;
        }
    }
}

fn draw_bench(c: &mut Canvas) {
    let (u0, u1, z0, z1) = BENCH;
    let iron = hex(0x2a2a30);
    let wood = hex(0x9a6a3a);
    for &lu in &[u0 + 0.05, u1 - 0.05] {
        box3d(
            c,
            (lu - 0.03, lu + 0.03),
            (z0, z1),
            (0.0, 0.42),
            iron,
            iron,
            iron,
        );
    }
    for i in 0..3 {
        let sz = z0 + (z1 - z0) * i as f32 / 3.0;
        box3d(
            c,
            (u0, u1),
            (sz + 0.005, sz + (z1 - z0) / 3.0 - 0.01),
            (0.42, 0.46),
            mul(wood, 1.2),
            wood,
            mul(wood, 0.8),
        );
    }
    for i in 0..2 {
        let h = 0.6 + i as f32 * 0.22;
        box3d(
            c,
            (u0, u1),
            (z1 - 0.03, z1),
            (h, h + 0.1),
            mul(wood, 1.2),
            wood,
            mul(wood, 0.8),
        );
    }
    for &lu in &[u0 + 0.05, u1 - 0.05] {
        box3d(
            c,
            (lu - 0.025, lu + 0.025),
            (z1 - 0.035, z1),
            (0.42, 0.95),
            iron,
            iron,
            iron,
        );
    }
}

/// Fence posts and pickets along u = FENCE_U, except the gate opening.
fn draw_fence(c: &mut Canvas, with_gate_posts: bool) {
    let white = hex(0xf2ede2);
    let side = hex(0xc8c0b0);
    let u = FENCE_U;
    let mut z = Z_WALL - 0.12;
    // pickets from the wall towards the camera, far to near
    let pickets: Vec<f32> = {
        let mut v = Vec::new();
        while z > 9.4 {
            if z < GATE_Z.0 - 0.06 || z > GATE_Z.1 + 0.06 {
                v.push(z);
            }
            z -= 0.11;
        }
        v
    };
    // rails
    for &(h0, h1) in &[(0.3, 0.36), (0.72, 0.78)] {
        for &(za, zb) in &[(GATE_Z.1 + 0.05, Z_WALL - 0.12), (9.4, GATE_Z.0 - 0.05)] {
            box3d(
                c,
                (u - 0.05, u - 0.02),
                (za, zb),
                (h0, h1),
                white,
                white,
                side,
            );
        }
    }
    for &pz in &pickets {
        picket(c, u, pz, 0.95, white, side);
    }
    if with_gate_posts {
        for &gz in &[GATE_Z.1 + 0.04, GATE_Z.0 - 0.04] {
            box3d(
                c,
                (u - 0.06, u + 0.06),
                (gz - 0.06, gz + 0.06),
                (0.0, 1.15),
                white,
                white,
                side,
            );
            cylinder(c, u, gz, 0.07, 0.07, 1.15, 1.22, white, Some(hex(0xfaf8f2)));
            let p = proj(u, gz, 1.28);
            c.ellipse(
                p,
                F * 0.07 / gz,
                F * 0.07 / gz,
                |x, _| mix(hex(0xffffff), side, ((x - p.0) / 10.0).clamp(0.0, 1.0)),
                1.0,
            );
        }
    }
}

fn picket(c: &mut Canvas, u: f32, z: f32, h: f32, white: Rgbf, side: Rgbf) {
    box3d(
        c,
        (u - 0.02, u + 0.02),
        (z - 0.035, z + 0.035),
        (0.0, h),
        white,
        mul(white, 0.97),
        side,
    );
    let tip = [
        proj(u - 0.02, z - 0.035, h),
        proj(u - 0.02, z + 0.035, h),
        proj(u - 0.02, z, h + 0.08),
    ];
    c.poly_c(&tip, side);
}

/// The gate leaf: closed (in the opening) or open (swung into the garden on the far hinge).
fn draw_gate(c: &mut Canvas, open: bool) {
    let white = hex(0x9a6234);
    let side = hex(0x6e4222);
    let (za, zb) = (GATE_Z.0 + 0.02, GATE_Z.1 - 0.02);
    if !open {
        for &(h0, h1) in &[(0.22, 0.3), (0.78, 0.86)] {
            box3d(
                c,
                (FENCE_U - 0.04, FENCE_U),
                (za, zb),
                (h0, h1),
                white,
                white,
                side,
            );
        }
        // diagonal brace
        c.capsule(
            proj(FENCE_U - 0.04, za + 0.03, 0.28),
            proj(FENCE_U - 0.04, zb - 0.03, 0.8),
            3.0,
            side,
        );
        let n = 5;
        for i in 0..n {
            let z = zb - 0.04 - (zb - za - 0.08) * i as f32 / (n - 1) as f32;
            picket(
                c,
                FENCE_U - 0.02,
                z,
                1.0 - 0.06 * ((i as f32 / (n - 1) as f32) * PI).sin(),
                white,
                side,
            );
        }
    } else {
        // hinged on the far post, swung open into the garden: lies along z = zb
        let len = zb - za;
        let (u0, u1) = (FENCE_U + 0.02, FENCE_U + len);
        for &(h0, h1) in &[(0.22, 0.3), (0.78, 0.86)] {
            box3d(
                c,
                (u0, u1),
                (zb - 0.02, zb + 0.02),
                (h0, h1),
                white,
                white,
                side,
            );
        }
        c.capsule(
            proj(u0 + 0.03, zb - 0.02, 0.8),
            proj(u1 - 0.03, zb - 0.02, 0.28),
            3.0,
            side,
        );
        let n = 5;
        for i in 0..n {
            let uu = u0 + 0.04 + (u1 - u0 - 0.08) * i as f32 / (n - 1) as f32;
            let h = 1.0 - 0.06 * ((i as f32 / (n - 1) as f32) * PI).sin();
            box3d(
                c,
                (uu - 0.035, uu + 0.035),
                (zb - 0.02, zb + 0.02),
                (0.0, h),
                white,
                mul(white, 0.97),
                side,
            );
            let tip = [
                proj(uu - 0.035, zb - 0.02, h),
                proj(uu + 0.035, zb - 0.02, h),
                proj(uu, zb - 0.02, h + 0.08),
            ];
            c.poly_c(&tip, mul(white, 0.95));
        }
    }
}

fn color_grade(c: &mut Canvas) {
    for y in 0..c.h {
        for x in 0..c.w {
            let p = &mut c.px[(y * c.w + x) as usize];
            // warm evening light, slightly lifted shadows, soft vignette
            let (fx, fy) = (x as f32 / c.w as f32 - 0.5, y as f32 / c.h as f32 - 0.5);
            let v = 1.0 - 0.35 * (fx * fx + fy * fy * 0.8);
            p[0] = (p[0] * 1.04 + 0.015) * v;
            p[1] = (p[1] * 1.0 + 0.01) * v;
            p[2] = (p[2] * 0.93 + 0.02) * v;
        }
    }
}

// ---------------------------------------------------------------- the walk mask

/// The area id at a screen point (0 blocked).
fn area_at(x: f32, y: f32, props: &[Prop]) -> u8 {
    if x < 12.0 || x > W as f32 - 12.0 || y > H as f32 - 14.0 {
        return 0;
    }
    let Some((u, z)) = unproj(x, y) else { return 0 };
    if z > Z_WALL - 0.4 {
        return 0;
    }
    for p in props {
        for f in &p.footprint {
            if f.sd(u, z) < 0.0 {
                return 0;
            }
            // The floor between a shrub and the wall behind it is out of reach, and
            // so is the corner beyond the one in the corner (no sliver of floor that
            // no one can walk to).
            if let Footprint::Circle { u: cu, z: cz, r } = *f
                && p.name == "shrubs"
                && ((z > cz && (u - cu).abs() < r) || (cu > 6.0 && u > cu && z > cz - r))
            {
                return 0;
            }
        }
    }
    let fence = u - FENCE_U;
    if fence.abs() < 0.3 {
        let in_gate = z > GATE_Z.0 + 0.12 && z < GATE_Z.1 - 0.12;
        return if in_gate { 4 } else { 0 };
    }
    if fence > 0.0 {
        return 2;
    }
    // the pilaster at the end of the lobby wall
    if sd_rect(u, z, FENCE_U - 0.08, FENCE_U + 0.14, Z_WALL - 0.12, Z_WALL) < 0.0 {
        return 0;
    }
    let (u0, u1, z0, z1) = RUG;
    if u > u0 && u < u1 && z > z0 && z < z1 {
        return 3;
    }
    1
}

/// The region under screen point `(x, y)`: 1 the rug, 2 the garden, 0 elsewhere
/// (walkable or not: a region only says where it is).
fn region_at(x: f32, y: f32) -> u8 {
    let Some((u, z)) = unproj(x, y) else { return 0 };
    let (u0, u1, z0, z1) = RUG;
    if u > u0 && u < u1 && z > z0 && z < z1 {
        1
    } else if u > FENCE_U + 0.3 && z < Z_WALL {
        2
    } else {
        0
    }
}

/// The region layer at `w` x `h` (a whole fraction of the room's size).
fn regions(w: u32, h: u32) -> GrayImage {
    let (sx, sy) = (W as f32 / w as f32, H as f32 / h as f32);
    GrayImage::from_fn(w, h, |x, y| {
        Luma([region_at((x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy)])
    })
}

/// A hotspot of the room: its id, name, shape (screen pixels), walk-to point
/// (screen pixels) and the direction faced on arrival.
struct HotspotArt {
    id: u8,
    name: &'static str,
    inside: fn(f32, f32) -> bool,
    walk_to: (f32, f32),
    facing: &'static str,
}

/// The hotspots, drawn over the picture's bell, painting, fountain and bench.
const HOTSPOTS: [HotspotArt; 5] = [
    HotspotArt {
        id: 1,
        name: "bell",
        inside: |x, y| (x - 972.0).hypot(y - 264.0) < 24.0,
        walk_to: (972.0, 470.0),
        facing: "up",
    },
    HotspotArt {
        id: 2,
        name: "painting",
        inside: |x, y| (349.0..481.0).contains(&x) && (96.0..198.0).contains(&y),
        walk_to: (330.0, 450.0),
        facing: "up",
    },
    HotspotArt {
        id: 3,
        name: "fountain",
        inside: |x, y| {
            ((x - 1625.0) / 140.0).powi(2) + ((y - 445.0) / 78.0).powi(2) < 1.0
                || ((1585.0..1665.0).contains(&x) && (245.0..445.0).contains(&y))
        },
        walk_to: (1560.0, 560.0),
        facing: "up_right",
    },
    HotspotArt {
        id: 4,
        name: "bench",
        inside: |x, y| (1589.0..1892.0).contains(&x) && (663.0..915.0).contains(&y),
        walk_to: (1700.0, 960.0),
        facing: "up",
    },
    // The way on to the garden: the lawn's right edge, past the fountain.
    HotspotArt {
        id: 5,
        name: "garden",
        inside: |x, y| x > 1845.0 && (420.0..640.0).contains(&y),
        walk_to: (1872.0, 540.0),
        facing: "right",
    },
];

/// The avatar's radius in the demo (pixels): walk-to points keep this far from
/// anything blocked.
const AVATAR_RADIUS: f32 = 14.0;

/// The hotspot layer of `spots` at `w` x `h`.
fn hotspot_layer(spots: &[HotspotArt], w: u32, h: u32) -> GrayImage {
    let (sx, sy) = (W as f32 / w as f32, H as f32 / h as f32);
    GrayImage::from_fn(w, h, |x, y| {
        let (x, y) = ((x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy);
        Luma([spots.iter().find(|h| (h.inside)(x, y)).map_or(0, |h| h.id)])
    })
}

/// Checks that every walk-to point of `spots` has room for the avatar on the walk
/// mask `mask` (full size).
fn check_walk_to(spots: &[HotspotArt], mask: &GrayImage) -> Result<(), String> {
    for h in spots {
        let (wx, wy) = h.walk_to;
        let r = AVATAR_RADIUS as i32 + 1;
        for dy in -r..=r {
            for dx in -r..=r {
                if dx * dx + dy * dy > r * r {
                    continue;
                }
                let (x, y) = (wx as i32 + dx, wy as i32 + dy);
                if mask.get_pixel(x as u32, y as u32).0[0] == 0 {
                    return Err(format!(
                        "the {} hotspot's walk-to point ({wx}, {wy}) is within {r} px of a blocked pixel ({x}, {y})",
                        h.name
                    ));
                }
            }
        }
    }
    Ok(())
}

fn mask(w: u32, h: u32, props: &[Prop]) -> GrayImage {
    let sx = W as f32 / w as f32;
    let sy = H as f32 / h as f32;
    GrayImage::from_fn(w, h, |x, y| {
        Luma([area_at((x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy, props)])
    })
}

// ---------------------------------------------------------------- the scale map

/// The scale map's range: grey 0 and 255.
const SCALE_MIN: f32 = 0.8;
const SCALE_MAX: f32 = 1.8;

/// Scale of a character (frames 230 px from hair to sole) standing at screen row `y`:
/// a 1.7 m person at the floor's depth there, clamped to the rows of the floor.
fn person_scale(y: f32) -> f32 {
    let y = y.clamp(300.0, 1200.0);
    let depth = F * CAM_H / (y - HORIZON);
    F * 1.7 / depth / 230.0
}

// ---------------------------------------------------------------- the avatar

const FRAME_W: u32 = 128;
const FRAME_H: u32 = 256;

#[derive(Clone, Copy, PartialEq)]
enum Facing {
    Front,
    Back,
    Right,
    /// Three-quarter view, towards the camera and to the right.
    FrontRight,
    /// Three-quarter view, away from the camera and to the right.
    BackRight,
}

/// Draws one frame; `phase` in 0..4 is the walk cycle, None is standing.
/// The colours a character is drawn in.
#[derive(Clone, Copy)]
struct Outfit {
    skin: u32,
    hair: u32,
    jacket: u32,
    jacket_dark: u32,
    trousers: u32,
    boots: u32,
    scarf: u32,
}

/// The player: teal jacket, red scarf.
const PLAYER: Outfit = Outfit {
    skin: 0xf0c8a0,
    hair: 0x5a3420,
    jacket: 0x2a7f7a,
    jacket_dark: 0x1f5f5c,
    trousers: 0x34384a,
    boots: 0x4a2c1a,
    scarf: 0xd8483a,
};

/// The waiter: white jacket, black trousers and shoes, a black bow tie.
const WAITER: Outfit = Outfit {
    skin: 0xd9a27c,
    hair: 0x1e1a18,
    jacket: 0xf2efe6,
    jacket_dark: 0xcfcabd,
    trousers: 0x1c1c22,
    boots: 0x101012,
    scarf: 0x151515,
};

/// An outfit's colours, ready to paint with.
struct Palette {
    skin: Rgbf,
    hair: Rgbf,
    jacket: Rgbf,
    jacket_dark: Rgbf,
    trousers: Rgbf,
    boots: Rgbf,
    scarf: Rgbf,
}

impl Outfit {
    fn palette(self) -> Palette {
        Palette {
            skin: hex(self.skin),
            hair: hex(self.hair),
            jacket: hex(self.jacket),
            jacket_dark: hex(self.jacket_dark),
            trousers: hex(self.trousers),
            boots: hex(self.boots),
            scarf: hex(self.scarf),
        }
    }
}

/// A four-cornered band: `top` and `bottom` are (left x, right x, y).
fn band(c: &mut Canvas, top: (f32, f32, f32), bottom: (f32, f32, f32), col: Rgbf) {
    c.poly_c(
        &[
            (top.0, top.2),
            (top.1, top.2),
            (bottom.1, bottom.2),
            (bottom.0, bottom.2),
        ],
        col,
    );
}

/// An arm from `shoulder` to `hand` (`width` thick, in `sleeve`), and the hand below
/// its end (`hand_size` radius, in the given colour).
fn arm(
    c: &mut Canvas,
    shoulder: P2,
    hand: P2,
    width: f32,
    sleeve: Rgbf,
    (hand_size, skin): (f32, Rgbf),
) {
    c.capsule(shoulder, hand, width, sleeve);
    c.ellipse(
        (hand.0, hand.1 + 8.0),
        hand_size,
        hand_size,
        |_, _| skin,
        1.0,
    );
}

/// The jacket's front seam at `seam` and three brass buttons at `buttons`.
fn buttons(c: &mut Canvas, seam: f32, buttons: f32, bob: f32, seam_col: Rgbf) {
    c.capsule((seam, 90.0 + bob), (seam, 158.0 + bob), 1.5, seam_col);
    for k in 0..3 {
        c.ellipse(
            (buttons, 104.0 + 16.0 * k as f32 + bob),
            2.5,
            2.5,
            |_, _| hex(0xe0c060),
            1.0,
        );
    }
}

fn avatar_frame(outfit: Outfit, facing: Facing, phase: Option<u32>) -> Canvas {
    let mut c = Canvas::new(FRAME_W, FRAME_H);
    let Palette {
        skin,
        hair,
        jacket,
        jacket_dark,
        trousers,
        boots,
        scarf,
    } = outfit.palette();
    // walk cycle: swing in -1..1 and a small bob
    let (swing, bob) = match phase {
        None => (0.0, 0.0),
        Some(p) => {
            let s = [1.0, 0.0, -1.0, 0.0][p as usize % 4];
            (s, if s == 0.0 { -4.0 } else { 0.0 })
        }
    };
    let cx = 64.0;
    let feet = 248.0;
    let hip = 150.0 + bob;
    match facing {
        Facing::FrontRight | Facing::BackRight => {
            three_quarter(&mut c, outfit, facing == Facing::FrontRight, swing, bob);
        }
        Facing::Front | Facing::Back => {
            // legs: in front view the stepping leg is lifted a little
            for (i, lx) in [(0, cx - 13.0), (1, cx + 13.0)] {
                let lift = if (i == 0 && swing > 0.0) || (i == 1 && swing < 0.0) {
                    10.0
                } else {
                    0.0
                };
                c.capsule((lx, hip), (lx, feet - 14.0 - lift), 11.0, trousers);
                c.ellipse((lx, feet - 8.0 - lift), 13.0, 9.0, |_, _| boots, 1.0);
            }
            // torso
            let torso = [
                (cx - 30.0, 82.0 + bob),
                (cx + 30.0, 82.0 + bob),
                (cx + 27.0, 160.0 + bob),
                (cx - 27.0, 160.0 + bob),
            ];
            c.poly(
                &torso,
                |x, _| if x > cx + 10.0 { jacket_dark } else { jacket },
            );
            if facing == Facing::Front {
                buttons(&mut c, cx, cx + 6.0, bob, jacket_dark);
            }
            band(
                &mut c,
                (cx - 28.0, cx + 28.0, 146.0 + bob),
                (cx - 28.0, cx + 28.0, 154.0 + bob),
                hex(0x3a2416),
            );
            // arms swing forward/back: in front view they move up and down a bit
            for (i, ax) in [(0, cx - 36.0), (1, cx + 36.0)] {
                let s = if i == 0 { swing } else { -swing };
                let hand = (ax - 2.0 * (i as f32 * 2.0 - 1.0), 148.0 + bob - 8.0 * s);
                arm(
                    &mut c,
                    (ax, 92.0 + bob),
                    hand,
                    9.0,
                    if i == 1 { jacket_dark } else { jacket },
                    (7.5, skin),
                );
            }
            // scarf and head
            band(
                &mut c,
                (cx - 20.0, cx + 20.0, 72.0 + bob),
                (cx - 22.0, cx + 22.0, 88.0 + bob),
                scarf,
            );
            let head = (cx, 48.0 + bob);
            c.ellipse(
                head,
                25.0,
                28.0,
                |x, _| if x > cx + 12.0 { mul(skin, 0.9) } else { skin },
                1.0,
            );
            if facing == Facing::Front {
                c.poly_c(
                    &[
                        (cx - 27.0, 44.0 + bob),
                        (cx - 24.0, 20.0 + bob),
                        (cx, 14.0 + bob),
                        (cx + 24.0, 20.0 + bob),
                        (cx + 27.0, 44.0 + bob),
                        (cx + 14.0, 30.0 + bob),
                        (cx - 4.0, 34.0 + bob),
                        (cx - 18.0, 30.0 + bob),
                    ],
                    hair,
                );
                c.ellipse((cx - 9.0, 50.0 + bob), 3.2, 4.2, |_, _| hex(0x2a1a14), 1.0);
                c.ellipse((cx + 9.0, 50.0 + bob), 3.2, 4.2, |_, _| hex(0x2a1a14), 1.0);
                c.capsule(
                    (cx - 5.0, 63.0 + bob),
                    (cx + 5.0, 63.0 + bob),
                    1.5,
                    hex(0xa05a4a),
                );
                c.ellipse((cx - 15.0, 58.0 + bob), 4.0, 2.5, |_, _| hex(0xf0a090), 0.6);
                c.ellipse((cx + 15.0, 58.0 + bob), 4.0, 2.5, |_, _| hex(0xf0a090), 0.6);
            } else {
                c.ellipse(
                    (cx, 44.0 + bob),
                    27.0,
                    28.0,
                    |x, _| if x > cx + 12.0 { mul(hair, 0.85) } else { hair },
                    1.0,
                );
                band(
                    &mut c,
                    (cx - 22.0, cx + 22.0, 56.0 + bob),
                    (cx - 16.0, cx + 16.0, 72.0 + bob),
                    hair,
                );
            }
        }
        Facing::Right => {
            // legs swing as pendulums
            for (i, s) in [(0, swing), (1, -swing)] {
                let ang = 0.42 * s;
                let foot = (
                    cx + (feet - 14.0 - hip) * ang.sin(),
                    feet - 14.0 - (1.0 - ang.cos()) * 40.0,
                );
                let col = if i == 0 { mul(trousers, 0.8) } else { trousers };
                c.capsule((cx, hip), foot, 11.0, col);
                c.ellipse(
                    (foot.0 + 6.0, foot.1 + 6.0),
                    15.0,
                    8.5,
                    |_, _| if i == 0 { mul(boots, 0.8) } else { boots },
                    1.0,
                );
            }
            let back_arm = (cx - 28.0 * swing * 0.8, 146.0 + bob);
            arm(
                &mut c,
                (cx - 2.0, 94.0 + bob),
                back_arm,
                8.5,
                jacket_dark,
                (7.0, mul(skin, 0.85)),
            );
            let torso = [
                (cx - 18.0, 82.0 + bob),
                (cx + 18.0, 82.0 + bob),
                (cx + 17.0, 160.0 + bob),
                (cx - 19.0, 160.0 + bob),
            ];
            c.poly(
                &torso,
                |x, _| if x < cx - 8.0 { jacket_dark } else { jacket },
            );
            band(
                &mut c,
                (cx - 19.0, cx + 18.0, 146.0 + bob),
                (cx - 19.0, cx + 18.0, 154.0 + bob),
                hex(0x3a2416),
            );
            let front_arm = (cx + 28.0 * swing * 0.8, 146.0 + bob);
            arm(
                &mut c,
                (cx + 2.0, 94.0 + bob),
                front_arm,
                9.0,
                jacket,
                (7.5, skin),
            );
            band(
                &mut c,
                (cx - 16.0, cx + 16.0, 72.0 + bob),
                (cx - 18.0, cx + 18.0, 88.0 + bob),
                scarf,
            );
            // scarf tail flapping behind
            c.poly_c(
                &[
                    (cx - 14.0, 78.0 + bob),
                    (cx - 34.0, 92.0 + bob + 4.0 * swing),
                    (cx - 30.0, 100.0 + bob + 4.0 * swing),
                    (cx - 12.0, 88.0 + bob),
                ],
                scarf,
            );
            let head = (cx + 2.0, 48.0 + bob);
            c.ellipse(head, 24.0, 28.0, |_, _| skin, 1.0);
            c.ellipse((cx + 25.0, 52.0 + bob), 5.0, 4.0, |_, _| skin, 1.0); // nose
            c.poly_c(
                &[
                    (cx + 24.0, 30.0 + bob),
                    (cx + 16.0, 16.0 + bob),
                    (cx - 8.0, 16.0 + bob),
                    (cx - 24.0, 32.0 + bob),
                    (cx - 22.0, 66.0 + bob),
                    (cx - 8.0, 64.0 + bob),
                    (cx - 4.0, 40.0 + bob),
                    (cx + 8.0, 32.0 + bob),
                ],
                hair,
            );
            c.ellipse((cx + 14.0, 48.0 + bob), 3.0, 4.2, |_, _| hex(0x2a1a14), 1.0);
            c.ellipse(
                (cx - 2.0, 50.0 + bob),
                4.5,
                6.0,
                |_, _| mul(skin, 0.85),
                1.0,
            ); // ear
        }
    }
    outline(&mut c, hex(0x1c1418), 2.5);
    c
}

/// A three-quarter view between the front (or back) and the side: legs and arms swing
/// as in the side view but shorter, the body is a little narrower than from the front,
/// and the face (or the back of the head) is turned to the right.
fn three_quarter(c: &mut Canvas, outfit: Outfit, front: bool, swing: f32, bob: f32) {
    let Palette {
        skin,
        hair,
        jacket,
        jacket_dark,
        trousers,
        boots,
        scarf,
    } = outfit.palette();
    let cx = 64.0;
    let feet = 248.0;
    let hip = 150.0 + bob;
    // The far leg first (darker), then the near one; each swings towards the right
    // and a little up, foreshortened.
    for (i, lx, s) in [(0, cx - 7.0, swing), (1, cx + 8.0, -swing)] {
        let ang = 0.42 * s;
        let foot = (
            lx + (feet - 14.0 - hip) * ang.sin() * 0.6,
            feet - 14.0 - (1.0 - ang.cos()) * 40.0 - if front { 0.0 } else { 3.0 * i as f32 },
        );
        let dark = i == 0;
        c.capsule(
            (lx, hip),
            foot,
            11.0,
            if dark { mul(trousers, 0.8) } else { trousers },
        );
        let toe = if front { 4.0 } else { 2.0 };
        c.ellipse(
            (foot.0 + toe, foot.1 + 7.0),
            14.0,
            8.5,
            |_, _| if dark { mul(boots, 0.8) } else { boots },
            1.0,
        );
    }
    // The far arm, behind the body.
    let far_hand = (cx - 24.0 + 16.0 * swing * 0.6, 146.0 + bob);
    arm(
        c,
        (cx - 20.0, 94.0 + bob),
        far_hand,
        8.5,
        jacket_dark,
        (7.0, mul(skin, 0.85)),
    );
    let torso = [
        (cx - 25.0, 82.0 + bob),
        (cx + 25.0, 82.0 + bob),
        (cx + 23.0, 160.0 + bob),
        (cx - 24.0, 160.0 + bob),
    ];
    c.poly(
        &torso,
        |x, _| if x < cx - 12.0 { jacket_dark } else { jacket },
    );
    if front {
        buttons(c, cx + 8.0, cx + 13.0, bob, jacket_dark);
    }
    band(
        c,
        (cx - 24.0, cx + 24.0, 146.0 + bob),
        (cx - 24.0, cx + 24.0, 154.0 + bob),
        hex(0x3a2416),
    );
    // The near arm, in front of the body.
    let near_hand = (cx + 22.0 - 16.0 * swing * 0.6, 148.0 + bob);
    arm(
        c,
        (cx + 20.0, 94.0 + bob),
        near_hand,
        9.0,
        jacket,
        (7.5, skin),
    );
    band(
        c,
        (cx - 18.0, cx + 18.0, 72.0 + bob),
        (cx - 20.0, cx + 20.0, 88.0 + bob),
        scarf,
    );
    let head = (cx + 2.0, 48.0 + bob);
    c.ellipse(
        head,
        24.5,
        28.0,
        |x, _| if x < cx - 12.0 { mul(skin, 0.9) } else { skin },
        1.0,
    );
    if front {
        // Hair over the top and the back (left) of the head; the face turned right.
        c.poly_c(
            &[
                (cx - 24.0, 54.0 + bob),
                (cx - 23.0, 22.0 + bob),
                (cx + 2.0, 14.0 + bob),
                (cx + 22.0, 18.0 + bob),
                (cx + 27.0, 36.0 + bob),
                (cx + 14.0, 28.0 + bob),
                (cx - 2.0, 32.0 + bob),
                (cx - 12.0, 46.0 + bob),
            ],
            hair,
        );
        c.ellipse(
            (cx - 9.0, 52.0 + bob),
            4.0,
            5.5,
            |_, _| mul(skin, 0.85),
            1.0,
        ); // ear
        c.ellipse((cx + 4.0, 50.0 + bob), 3.0, 4.2, |_, _| hex(0x2a1a14), 1.0);
        c.ellipse((cx + 17.0, 50.0 + bob), 2.8, 4.0, |_, _| hex(0x2a1a14), 1.0);
        c.ellipse((cx + 25.0, 55.0 + bob), 3.5, 3.5, |_, _| skin, 1.0); // nose
        c.capsule(
            (cx + 7.0, 64.0 + bob),
            (cx + 15.0, 63.0 + bob),
            1.5,
            hex(0xa05a4a),
        );
        c.ellipse((cx + 21.0, 59.0 + bob), 3.5, 2.3, |_, _| hex(0xf0a090), 0.6);
    } else {
        // The back of the head; the right ear and cheek show.
        c.ellipse(
            (cx - 1.0, 44.0 + bob),
            26.0,
            28.0,
            |x, _| if x > cx + 12.0 { mul(hair, 0.85) } else { hair },
            1.0,
        );
        band(
            c,
            (cx - 22.0, cx + 16.0, 56.0 + bob),
            (cx - 16.0, cx + 10.0, 72.0 + bob),
            hair,
        );
        c.ellipse((cx + 22.0, 52.0 + bob), 4.0, 6.0, |_, _| skin, 1.0); // ear
    }
}

/// Adds a dark outline around everything drawn on the canvas.
fn outline(c: &mut Canvas, col: Rgbf, r: f32) {
    let src = c.clone();
    let ri = r.ceil() as i32;
    for y in 0..c.h as i32 {
        for x in 0..c.w as i32 {
            let mut a: f32 = 0.0;
            for dy in -ri..=ri {
                for dx in -ri..=ri {
                    let d = ((dx * dx + dy * dy) as f32).sqrt();
                    if d <= r + 0.5 {
                        a = a.max(src.get(x + dx, y + dy)[3] * (r + 0.5 - d).clamp(0.0, 1.0));
                    }
                }
            }
            let p = src.get(x, y);
            let out = &mut c.px[(y as u32 * c.w + x as u32) as usize];
            // outline underneath the figure
            let oa = a * (1.0 - p[3]);
            for i in 0..3 {
                out[i] = p[i] + col[i] * oa;
            }
            out[3] = p[3] + oa;
        }
    }
}

fn avatar_atlas(outfit: Outfit) -> RgbaImage {
    let rows = [
        Facing::Front,
        Facing::Back,
        Facing::Right,
        Facing::FrontRight,
        Facing::BackRight,
    ];
    let mut atlas = RgbaImage::new(FRAME_W * 5, FRAME_H * rows.len() as u32);
    for (row, facing) in rows.into_iter().enumerate() {
        for col in 0..5u32 {
            let phase = if col == 0 { None } else { Some(col - 1) };
            let frame = avatar_frame(outfit, facing, phase).to_rgba();
            image::imageops::replace(
                &mut atlas,
                &frame,
                (col * FRAME_W) as i64,
                (row as u32 * FRAME_H) as i64,
            );
        }
    }
    atlas
}

// ---------------------------------------------------------------- main

fn save(img: impl FnOnce(&Path) -> image::ImageResult<()>, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    img(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Asset settings for the masks: the bevy_walkmask loader with the `Indexed` rule.
const MASK_META: &str = r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "bevy_walkmask::asset::WalkMaskLoader",
        settings: (
            rule: Indexed,
        ),
    ),
)
"#;

fn run(out: &Path) -> Result<(), String> {
    let props = {
        let mut p = props();
        p.sort_by(|a, b| b.near_z().total_cmp(&a.near_z()));
        p
    };
    let rooms = out.join("rooms");

    // background
    let mut bg = Canvas::new(W, H);
    draw_back(&mut bg);
    draw_floor(&mut bg);
    for p in &props {
        p.shadow(&mut bg);
    }
    // fence shadow
    floor_shadow(
        &mut bg,
        floor_bbox((FENCE_U - 0.1, FENCE_U + 0.8), (9.0, Z_WALL)),
        0.3,
        0.15,
        |u, z| {
            let in_gate = z > GATE_Z.0 && z < GATE_Z.1;
            if in_gate {
                1.0
            } else {
                sd_rect(
                    u - 0.25,
                    z + 0.2,
                    FENCE_U - 0.02,
                    FENCE_U + 0.02,
                    9.0,
                    Z_WALL,
                )
            }
        },
    );
    // props and the fence, back to front; the fence goes between the garden's
    // far props and everything nearer than its far end
    let mut layers: Vec<(String, Canvas, [P2; 2])> = Vec::new();
    let fence_line = [proj(FENCE_U, 9.0, 0.0), proj(FENCE_U, Z_WALL, 0.0)];
    let mut fence = Canvas::new(W, H);
    draw_fence(&mut fence, true);
    let garden: Vec<&Prop> = props
        .iter()
        .filter(|p| {
            p.footprint.iter().all(|f| {
                matches!(f, Footprint::Circle { u, .. } if *u > FENCE_U)
                    || matches!(f, Footprint::Rect { u0, .. } if *u0 > FENCE_U)
            })
        })
        .collect();
    for p in &garden {
        (p.draw)(&mut bg);
    }
    bg.over(&fence);
    let mut gate_closed = Canvas::new(W, H);
    draw_gate(&mut gate_closed, false);
    let mut gate_open = Canvas::new(W, H);
    draw_gate(&mut gate_open, true);
    for p in props
        .iter()
        .filter(|p| !garden.iter().any(|g| g.name == p.name))
    {
        (p.draw)(&mut bg);
    }
    // props layers (for depth sorting), each with its front line
    for p in &props {
        let mut layer = Canvas::new(W, H);
        (p.draw)(&mut layer);
        let sort_y = proj(0.0, p.near_z(), 0.0).1;
        layers.push((
            p.name.to_string(),
            layer,
            [(W as f32, sort_y), (0.0, sort_y)],
        ));
    }
    // the gate leaves: closed in the fence line, open swung back along its far edge
    layers.push(("gate_closed".into(), gate_closed, fence_line));
    let open_y = proj(FENCE_U, GATE_Z.1 - 0.04, 0.0).1;
    layers.push((
        "gate_open".into(),
        gate_open,
        [(W as f32, open_y), (0.0, open_y)],
    ));
    layers.push(("fence".into(), fence, fence_line));
    color_grade(&mut bg);
    for (_, l, _) in &mut layers {
        color_grade(l);
    }

    let bg_img = bg.to_rgb();
    save(|p| bg_img.save(p), &rooms.join("lobby.png"))?;
    // the walk-behind layer: the two pillars, cut from lobby.png by the plugin
    let mut behind = GrayImage::new(W, H);
    for (id, pillar) in [(1u8, "pillar_left"), (2, "pillar_right")] {
        let Some((_, layer, _)) = layers.iter().find(|(name, ..)| name == pillar) else {
            return Err(format!("no {pillar} layer"));
        };
        for (x, y, p) in layer.to_rgba().enumerate_pixels() {
            if p.0[3] >= 128 {
                behind.put_pixel(x, y, Luma([id]));
            }
        }
    }
    save(|p| behind.save(p), &rooms.join("lobby.behind.walk.png"))?;
    let m = mask(W, H, &props);
    save(|p| m.save(p), &rooms.join("lobby.walk.png"))?;
    let half = mask(W / 2, H / 2, &props);
    save(|p| half.save(p), &rooms.join("lobby_half.walk.png"))?;
    let layer = regions(W / 4, H / 4);
    save(|p| layer.save(p), &rooms.join("lobby.regions.walk.png"))?;
    let layer = hotspot_layer(&HOTSPOTS, W / 4, H / 4);
    save(|p| layer.save(p), &rooms.join("lobby.hotspots.walk.png"))?;
    check_walk_to(&HOTSPOTS, &m)?;
    // the scale map: a character's size at each floor row, coarse (it changes with
    // depth only), grey = (scale - SCALE_MIN) / (SCALE_MAX - SCALE_MIN) * 255
    let scales = GrayImage::from_fn(W / 8, H / 8, |_, y| {
        let screen_y = (y as f32 + 0.5) * 8.0;
        let t = (person_scale(screen_y) - SCALE_MIN) / (SCALE_MAX - SCALE_MIN);
        Luma([(t * 255.0).round().clamp(0.0, 255.0) as u8])
    });
    save(|p| scales.save(p), &rooms.join("lobby.scale.png"))?;
    garden::write(&rooms)?;
    // The masks and layers loaded one by one (by the examples, and by the demo's `H`
    // key) rather than through a room file: the grey level is the id, decoded with
    // `Indexed`.
    for name in [
        "lobby.walk.png",
        "lobby_half.walk.png",
        "lobby.regions.walk.png",
        "lobby.hotspots.walk.png",
        "lobby.behind.walk.png",
        "lobby.scale.png",
        "garden.walk.png",
        "garden.hotspots.walk.png",
    ] {
        let meta = rooms.join(format!("{name}.meta"));
        fs::write(&meta, MASK_META).map_err(|e| format!("cannot write {}: {e}", meta.display()))?;
        println!("wrote {}", meta.display());
    }

    // The furniture again, cropped, as the lobby's props: each drawn over the
    // characters behind its line. The pillars are walk-behinds cut from the picture
    // instead; a slanted line (the fence, the closed gate) is no single row, and the
    // game sorts those itself.
    let mut room_props = Vec::new();
    for (name, layer, line) in &layers {
        if name.starts_with("pillar") {
            continue;
        }
        let Some((x, y, w, h)) = layer.alpha_bbox() else {
            continue;
        };
        let img = image::imageops::crop_imm(&layer.to_rgba(), x, y, w, h).to_image();
        let image = format!("props/{name}.png");
        save(|p| img.save(p), &rooms.join(&image))?;
        let level = (line[0].1 - line[1].1).abs() < 0.05;
        room_props.push(walkmask::room_file::Prop {
            name: name.clone(),
            image,
            at: (x as f32, y as f32),
            baseline: level.then_some((line[0].1 * 10.0).round() / 10.0),
            // The gate starts closed.
            visible: name != "gate_open",
        });
    }

    // the two rooms as room files; a pillar's baseline is where its front line is
    let baseline = |pillar: &str| {
        layers
            .iter()
            .find(|(name, ..)| name == pillar)
            .map(|(_, _, line)| line[0].1)
            .ok_or(format!("no {pillar} layer"))
    };
    let pillars = [baseline("pillar_left")?, baseline("pillar_right")?];
    room_files::write(
        &rooms,
        "lobby",
        &room_files::lobby(&HOTSPOTS, pillars, room_props),
    )?;
    room_files::write(&rooms, "garden", &room_files::garden(&garden::HOTSPOTS))?;

    let atlas = avatar_atlas(PLAYER);
    save(|p| atlas.save(p), &out.join("sprites").join("avatar.png"))?;
    let atlas = avatar_atlas(WAITER);
    save(|p| atlas.save(p), &out.join("sprites").join("waiter.png"))?;
    dungeon::write(out)
}

fn main() {
    let out: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("assets"));
    if let Err(e) = run(&out) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
