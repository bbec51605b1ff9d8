//! The garden: the demo's second room, reached from the lobby's lawn by the garden
//! path. The same camera as the lobby (so the lobby's scale map fits it too): a lawn
//! under the evening sky, a hedge on a low wall at the back, shrubs, a pond, a gravel
//! path from the left edge, the way back to the lobby.
//!
//! Output, under `rooms/`: `garden.png`, `garden.walk.png` (grey level = area id:
//! 1 the lawn, 0 blocked), `garden.hotspots.walk.png` at 480 x 270 (1 the way back
//! to the lobby, 2 the pond) and `garden_hotspots.txt` (the lobby's manifest format).

use std::path::Path;

use image::{GrayImage, Luma};

use super::{
    Canvas, H, HotspotArt, Rgbf, W, Z_WALL, check_walk_to, color_grade, fbm, floor_bbox,
    floor_shadow, hash, hex, hotspot_layer, mix, mul, proj, save, shrub, sky, smoothstep, unproj,
    unproj_wall, value_noise,
};

/// The pond: centre (u, z) and half-axes (metres) of its rim.
const POND: (f32, f32, f32, f32) = (1.6, 15.2, 1.7, 1.1);

/// Shrubs: (u, z, radius), back to front.
const SHRUBS: [(f32, f32, f32); 6] = [
    (-6.4, 18.9, 0.8),
    (-3.3, 19.2, 0.7),
    (4.1, 19.0, 0.8),
    (6.7, 18.6, 0.9),
    (-1.9, 16.6, 0.45),
    (3.4, 11.4, 0.55),
];

/// Signed distance (metres, roughly) from the pond's rim.
fn pond_sd(u: f32, z: f32) -> f32 {
    let (cu, cz, ru, rz) = POND;
    let d = ((u - cu) / ru).powi(2) + ((z - cz) / rz).powi(2);
    (d.sqrt() - 1.0) * ru.min(rz)
}

/// The gravel path's centre line: its z at `u`, from the left edge towards the pond.
fn path_z(u: f32) -> f32 {
    12.6 + 0.35 * (u * 0.55).sin() + 0.04 * u * u
}

/// The garden's hotspots: the way back to the lobby along the left edge, the pond.
pub(super) const HOTSPOTS: [HotspotArt; 2] = [
    HotspotArt {
        id: 1,
        name: "lobby",
        inside: |x, y| x < 90.0 && (560.0..900.0).contains(&y),
        walk_to: (70.0, 760.0),
        facing: "left",
    },
    HotspotArt {
        id: 2,
        name: "pond",
        inside: |x, y| unproj(x, y).is_some_and(|(u, z)| pond_sd(u, z) < 0.0),
        walk_to: (1242.0, 700.0),
        facing: "up",
    },
];

/// The area at screen point `(x, y)`: 1 the lawn, 0 blocked.
fn area_at(x: f32, y: f32) -> u8 {
    if x < 12.0 || x > W as f32 - 12.0 || y > H as f32 - 14.0 {
        return 0;
    }
    let Some((u, z)) = unproj(x, y) else { return 0 };
    if z > Z_WALL - 0.4 || pond_sd(u, z) < 0.05 {
        return 0;
    }
    // The four shrubs at the back stand against the hedge's wall: the floor behind
    // them is out of reach too, and so are the corners beyond the outer two.
    let in_shrub = SHRUBS.iter().enumerate().any(|(i, &(su, sz, r))| {
        let behind = z > sz
            && match i {
                0 => u < su + r,
                3 => u > su - r,
                _ => i < 4 && (u - su).abs() < r,
            };
        (u - su).hypot(z - sz) < r || behind
    });
    u8::from(!in_shrub)
}

/// The back: sky, a ridge, the hedge and its low wall.
fn draw_back(c: &mut Canvas) {
    for y in 0..360 {
        for x in 0..W as i32 {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let (u, h) = unproj_wall(fx, fy);
            let mut col = sky(fy);
            let ridge = 140.0 + 45.0 * fbm(fx / 110.0, 5.0, 61) + 20.0 * fbm(fx / 35.0, 6.0, 62);
            if fy > ridge {
                let k = smoothstep(ridge, ridge + 3.0, fy);
                let far = mix(
                    hex(0x5d4a6e),
                    hex(0x3a3f55),
                    ((fy - ridge) / 120.0).min(1.0),
                );
                col = mix(col, far, k);
            }
            let hedge_top = 235.0 + 14.0 * fbm(fx / 28.0, 7.0, 63);
            if fy > hedge_top {
                let n = fbm(fx / 9.0, fy / 9.0, 64);
                let k = smoothstep(hedge_top, hedge_top + 2.0, fy);
                let leaf = mix(
                    hex(0x1f4a2a),
                    hex(0x4f8a3a),
                    n * 0.9 + 0.1 * (1.0 - (fy - 235.0) / 125.0),
                );
                col = mix(col, leaf, k);
            }
            if h < 0.35 {
                let row = (h / 0.12).floor();
                let brick = ((u + row * 0.17) / 0.35).rem_euclid(1.0);
                let mortar = brick < 0.05 || (h / 0.12).rem_euclid(1.0) < 0.1;
                col = if mortar {
                    hex(0x8b7f74)
                } else {
                    let shade = hash(((u + row * 0.17) / 0.35).floor() as i32, row as i32, 65);
                    mul(hex(0xb5a48f), 0.9 + 0.15 * shade)
                };
            }
            c.blend(x, y, col, 1.0);
        }
    }
}

/// The lawn, the gravel path and the pond.
fn draw_floor(c: &mut Canvas) {
    for y in 360..H as i32 {
        for x in 0..W as i32 {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let Some((u, z)) = unproj(fx, fy) else {
                continue;
            };
            let n = fbm(u * 4.0, z * 10.0, 70);
            let blades = value_noise(u * 90.0, z * 260.0, 71);
            let mut col: Rgbf = mul(mix(hex(0x3f7a2e), hex(0x7fae48), n), 0.85 + 0.25 * blades);
            // gravel path from the left edge, fading out before the pond
            let along = 1.0 - smoothstep(-0.6, 0.4, u - POND.0 + POND.2);
            let half = 0.38 + 0.04 * fbm(u * 3.0, 2.0, 72);
            let dz = z * z / (super::F * super::CAM_H);
            let on_path = 1.0 - smoothstep(half - dz, half + dz, (z - path_z(u)).abs());
            if on_path * along > 0.0 {
                let grit = value_noise(u * 160.0, z * 420.0, 73);
                let gravel = mul(hex(0xc9b894), 0.82 + 0.22 * grit);
                col = mix(col, gravel, on_path * along);
            }
            // the pond: a stone rim round dark water with the sky in it
            let d = pond_sd(u, z);
            if d < 0.12 {
                let rim = mul(hex(0xbfb29c), 0.85 + 0.15 * fbm(u * 18.0, z * 18.0, 74));
                let k = 1.0 - smoothstep(0.12 - dz, 0.12 + dz, d);
                col = mix(col, rim, k);
            }
            if d < -0.02 {
                let depth = smoothstep(-0.02, -0.6, d);
                let ripple = 0.06 * ((u * 9.0 + z * 4.0).sin() * (z * 13.0).sin());
                let water = mix(hex(0x6f9cc0), hex(0x1f3f5a), depth);
                let water = mix(water, sky(300.0 - 200.0 * depth), 0.25 + ripple);
                let k = 1.0 - smoothstep(-0.02 - dz, -0.02 + dz, d);
                col = mix(col, water, k);
            }
            let ao = 1.0 - 0.35 * (1.0 - smoothstep(0.0, 2.0, Z_WALL - z));
            c.blend(x, y, mul(col, ao), 1.0);
        }
    }
    // lily pads
    for (i, (du, dz)) in [(-0.7, 0.2), (0.5, -0.35), (0.9, 0.4), (-0.2, -0.5)]
        .iter()
        .enumerate()
    {
        let p = proj(POND.0 + du, POND.1 + dz, 0.0);
        let s = 22.0 + 6.0 * hash(i as i32, 0, 75);
        c.ellipse(p, s, s * 0.38, |_, _| hex(0x3f7f3a), 1.0);
    }
}

/// Draws the garden, writes its picture, walk mask and hotspot layer, and checks that
/// the avatar fits at every walk-to point.
pub(super) fn write(rooms: &Path) -> Result<(), String> {
    let mut c = Canvas::new(W, H);
    draw_back(&mut c);
    draw_floor(&mut c);
    for (i, &(u, z, r)) in SHRUBS.iter().enumerate() {
        floor_shadow(
            &mut c,
            floor_bbox((u - r - 1.0, u + r + 1.0), (z - r - 0.5, z + r + 0.5)),
            0.35,
            0.3,
            |su, sz| (su - u - 0.25).hypot(sz - z + 0.15) - r,
        );
        shrub(&mut c, u, z, r, 900 + i as u64);
    }
    color_grade(&mut c);
    let picture = c.to_rgb();
    save(|p| picture.save(p), &rooms.join("garden.png"))?;
    let mask = GrayImage::from_fn(W, H, |x, y| Luma([area_at(x as f32 + 0.5, y as f32 + 0.5)]));
    save(|p| mask.save(p), &rooms.join("garden.walk.png"))?;
    let layer = hotspot_layer(&HOTSPOTS, W / 4, H / 4);
    save(|p| layer.save(p), &rooms.join("garden.hotspots.walk.png"))?;
    check_walk_to(&HOTSPOTS, &mask)
}
