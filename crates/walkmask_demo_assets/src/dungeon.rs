//! The tile map example's art: a dungeon tileset and a slime.
//!
//! * `tiles/dungeon.png`: four 32 x 32 tiles in a row: 0 stone floor, 1 brick wall,
//!   2 closed wooden door, 3 open door (floor in a dark frame);
//! * `sprites/slime.png`: a 32 x 32 green slime, its feet at the bottom.

use std::path::Path;

use image::RgbaImage;

use super::{Canvas, fbm, hash, hex, mix, mul, save};

/// Side of a tile, pixels.
const TILE: u32 = 32;

/// Writes the tileset and the slime under `out`.
pub(crate) fn write(out: &Path) -> Result<(), String> {
    let mut tiles = RgbaImage::new(TILE * 4, TILE);
    for (i, tile) in [floor(), wall(), door(false), door(true)]
        .iter()
        .enumerate()
    {
        image::imageops::replace(&mut tiles, &tile.to_rgba(), (i as u32 * TILE) as i64, 0);
    }
    save(|p| tiles.save(p), &out.join("tiles").join("dungeon.png"))?;
    let slime = slime().to_rgba();
    save(|p| slime.save(p), &out.join("sprites").join("slime.png"))
}

/// Grey-blue stone slabs with dark grout.
fn floor() -> Canvas {
    let mut c = Canvas::new(TILE, TILE);
    for y in 0..TILE as i32 {
        for x in 0..TILE as i32 {
            let n = fbm(x as f32 / 6.0, y as f32 / 6.0, 11);
            let slab = hash(x / 16, y / 16, 5);
            let base = mix(hex(0x4a5260), hex(0x5c6574), slab);
            let grout = x % 16 == 0 || y % 16 == 0;
            let col = if grout {
                hex(0x2a2e36)
            } else {
                mul(base, 0.8 + 0.4 * n)
            };
            c.blend(x, y, col, 1.0);
        }
    }
    c
}

/// Red-brown bricks in running bond, lit from the top.
fn wall() -> Canvas {
    let mut c = Canvas::new(TILE, TILE);
    for y in 0..TILE as i32 {
        for x in 0..TILE as i32 {
            let row = y / 8;
            let shift = if row % 2 == 0 { 0 } else { 8 };
            let brick_x = (x + shift) / 16;
            let mortar = y % 8 == 0 || (x + shift) % 16 == 0;
            let tone = hash(brick_x, row, 3);
            let n = fbm(x as f32 / 4.0, y as f32 / 4.0, 7);
            let brick = mix(hex(0x7a3b2a), hex(0x955036), tone);
            let col = if mortar {
                hex(0x3a302c)
            } else {
                mul(brick, 0.8 + 0.35 * n + if y % 8 == 1 { 0.15 } else { 0.0 })
            };
            c.blend(x, y, col, 1.0);
        }
    }
    c
}

/// A wooden door in a stone frame: closed (planks) or open (the floor shows through).
fn door(open: bool) -> Canvas {
    let mut c = if open {
        floor()
    } else {
        Canvas::new(TILE, TILE)
    };
    for y in 0..TILE as i32 {
        for x in 0..TILE as i32 {
            let frame = !(3..TILE as i32 - 3).contains(&x) || y < 3;
            if frame {
                c.blend(x, y, hex(0x2b2a30), 1.0);
            } else if !open {
                let plank = (x - 3) / 7;
                let n = fbm(x as f32 / 3.0, y as f32 / 9.0, 13 + plank as u32);
                let wood = mix(hex(0x6b4423), hex(0x8a5a2e), hash(plank, 0, 9));
                let seam = (x - 3) % 7 == 0;
                let col = if seam {
                    hex(0x3b2414)
                } else {
                    mul(wood, 0.8 + 0.3 * n)
                };
                c.blend(x, y, col, 1.0);
            }
        }
    }
    if !open {
        // Iron bands and a ring.
        for band in [8, 24] {
            for x in 3..TILE as i32 - 3 {
                c.blend(x, band, hex(0x3c3c44), 1.0);
                c.blend(x, band + 1, hex(0x55555f), 1.0);
            }
        }
        c.ellipse((22.0, 17.0), 2.5, 2.5, |_, _| hex(0xb89a4a), 1.0);
    }
    c
}

/// A green slime with two eyes, seen from the front.
fn slime() -> Canvas {
    let mut c = Canvas::new(TILE, TILE);
    c.ellipse((16.0, 29.0), 12.0, 3.0, |_, _| hex(0x101010), 0.35);
    c.ellipse(
        (16.0, 20.0),
        12.0,
        10.0,
        |_, y| {
            mix(
                hex(0x7ee06a),
                hex(0x2f8a3a),
                ((y - 10.0) / 20.0).clamp(0.0, 1.0),
            )
        },
        0.92,
    );
    c.ellipse((12.0, 14.0), 3.0, 2.0, |_, _| hex(0xd8ffd0), 0.6);
    for eye in [12.0, 20.0] {
        c.ellipse((eye, 19.0), 2.6, 3.2, |_, _| hex(0xffffff), 1.0);
        c.ellipse((eye + 0.6, 19.6), 1.3, 1.8, |_, _| hex(0x1a1a1a), 1.0);
    }
    c
}
