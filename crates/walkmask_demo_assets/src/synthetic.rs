//! Synthetic walk masks for benchmarks and cost measurements: a furnished room, a
//! spiral, a maze and a harbour, drawn deterministically from a seed. Each is
//! `width * height` area ids, row-major, 0 blocked (the layout of
//! `walkmask::WalkMask::new`).

/// SplitMix64: 64 bits of state, good statistical quality for sampling.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniform float in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Pixels are blocked unless painted with an area id.
fn blank(w: u32, h: u32) -> Vec<u8> {
    vec![0u8; w as usize * h as usize]
}

/// A furnished room at `width x height`: a trapezoid floor (area 1 on the left of a
/// wall, area 2 on the right), the wall with two doors, an alcove (area 3) at the back,
/// a separate balcony (area 4, not connected), and 16 rectangles and 12 ellipses of
/// furniture. The layout is in fractions of the size, so the 4K room is the 1080p
/// room at twice the resolution.
pub fn room(width: u32, height: u32, seed: u64) -> Vec<u8> {
    let (w, h) = (width as f64, height as f64);
    let scale = w / 1920.0;
    let mut a = blank(width, height);
    let idx = |x: u32, y: u32| y as usize * width as usize + x as usize;
    let (floor_top, floor_bottom) = (0.42, 0.97);
    let wall_u = 0.58;
    let wall_half = 6.0 * scale / w; // 12 px thick at 1080p
    let doors = [(0.55, 0.62), (0.82, 0.90)];
    for y in 0..height {
        let v = (y as f64 + 0.5) / h;
        for x in 0..width {
            let u = (x as f64 + 0.5) / w;
            let mut area = 0;
            if (floor_top..floor_bottom).contains(&v) {
                let inset = 0.04 + (floor_bottom - v) * 0.15;
                if u >= inset && u <= 1.0 - inset {
                    area = if u < wall_u { 1 } else { 2 };
                    let in_wall = (u - wall_u).abs() <= wall_half;
                    let in_door = doors.iter().any(|&(d0, d1)| (d0..d1).contains(&v));
                    if in_wall && !in_door {
                        area = 0;
                    }
                }
            }
            if (0.20..0.40).contains(&u) && (0.30..floor_top).contains(&v) {
                area = 3;
            }
            if (0.70..0.90).contains(&u) && (0.12..0.24).contains(&v) {
                area = 4;
            }
            a[idx(x, y)] = area;
        }
    }
    // Furniture, kept clear of the doors.
    let mut rng = Rng::new(seed);
    let keep_clear = |cu: f64, cv: f64, ru: f64, rv: f64| {
        doors.iter().any(|&(d0, d1)| {
            (cu - wall_u).abs() < ru + 0.03 && cv + rv > d0 - 0.03 && cv - rv < d1 + 0.03
        })
    };
    let mut placed = 0;
    while placed < 28 {
        let cu = rng.range(0.08, 0.92);
        let cv = rng.range(floor_top + 0.03, floor_bottom - 0.03);
        let ellipse = placed >= 16;
        let (ru, rv) = if ellipse {
            (rng.range(0.008, 0.045), rng.range(0.015, 0.07))
        } else {
            (rng.range(0.01, 0.06), rng.range(0.015, 0.05))
        };
        if keep_clear(cu, cv, ru, rv) {
            continue;
        }
        placed += 1;
        let x0 = ((cu - ru) * w).floor().max(0.0) as u32;
        let x1 = (((cu + ru) * w).ceil() as u32).min(width - 1);
        let y0 = ((cv - rv) * h).floor().max(0.0) as u32;
        let y1 = (((cv + rv) * h).ceil() as u32).min(height - 1);
        for y in y0..=y1 {
            let v = (y as f64 + 0.5) / h;
            for x in x0..=x1 {
                let u = (x as f64 + 0.5) / w;
                let (nu, nv) = ((u - cu) / ru, (v - cv) / rv);
                let inside = if ellipse {
                    nu * nu + nv * nv <= 1.0
                } else {
                    nu.abs() <= 1.0 && nv.abs() <= 1.0
                };
                if inside {
                    a[idx(x, y)] = 0;
                }
            }
        }
    }
    a
}

/// A rectangular spiral of 1-pixel walls: one corridor of width `corridor` winding from
/// the top-left corner to the centre.
pub fn spiral(width: u32, height: u32, corridor: u32) -> Vec<u8> {
    let (w, h) = (width as i64, height as i64);
    let s = corridor as i64 + 1;
    let mut a = vec![1u8; width as usize * height as usize];
    let dirs = [(1i64, 0i64), (0, 1), (-1, 0), (0, -1)];
    let (mut x, mut y) = (0i64, 0i64);
    a[0] = 0;
    for k in 0i64.. {
        let len = if k == 0 {
            w - 1
        } else if k % 2 == 0 {
            w - 1 - s * (k / 2 - 1)
        } else {
            h - 1 - s * ((k - 1) / 2)
        };
        if len < s {
            break;
        }
        let (dx, dy) = dirs[(k % 4) as usize];
        for _ in 0..len {
            x += dx;
            y += dy;
            a[(y * w + x) as usize] = 0;
        }
    }
    a
}

/// A perfect maze (one path between any two cells) of `corridor`-pixel corridors and
/// 1-pixel walls, carved by a randomised depth-first search.
pub fn maze(width: u32, height: u32, corridor: u32, seed: u64) -> Vec<u8> {
    let pitch = corridor + 1;
    let cw = (width - 1) / pitch;
    let ch = (height - 1) / pitch;
    let mut a = blank(width, height);
    let idx = |x: u32, y: u32| y as usize * width as usize + x as usize;
    let open_rect = |a: &mut Vec<u8>, x0: u32, y0: u32, x1: u32, y1: u32| {
        for y in y0..y1 {
            for x in x0..x1 {
                a[idx(x, y)] = 1;
            }
        }
    };
    for cy in 0..ch {
        for cx in 0..cw {
            let (x0, y0) = (cx * pitch + 1, cy * pitch + 1);
            open_rect(&mut a, x0, y0, x0 + corridor, y0 + corridor);
        }
    }
    let mut rng = Rng::new(seed);
    let mut seen = vec![false; (cw * ch) as usize];
    let mut stack = vec![(0u32, 0u32)];
    seen[0] = true;
    while let Some(&(cx, cy)) = stack.last() {
        let mut options = [(0u32, 0u32); 4];
        let mut n = 0;
        for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (cx as i64 + dx, cy as i64 + dy);
            if nx >= 0 && ny >= 0 && nx < cw as i64 && ny < ch as i64 {
                let (nx, ny) = (nx as u32, ny as u32);
                if !seen[(ny * cw + nx) as usize] {
                    options[n] = (nx, ny);
                    n += 1;
                }
            }
        }
        if n == 0 {
            stack.pop();
            continue;
        }
        let (nx, ny) = options[rng.below(n as u64) as usize];
        seen[(ny * cw + nx) as usize] = true;
        // Open the wall between the two cells.
        let (x0, y0) = (cx.min(nx) * pitch + 1, cy.min(ny) * pitch + 1);
        if nx != cx {
            open_rect(&mut a, x0 + corridor, y0, x0 + corridor + 1, y0 + corridor);
        } else {
            open_rect(&mut a, x0, y0 + corridor, x0 + corridor, y0 + corridor + 1);
        }
        stack.push((nx, ny));
    }
    a
}

/// A harbour at `width x height`: a quay of walkable stone (area 1) above water
/// (blocked) along the bottom third, three piers (area 2) reaching into the water,
/// two rows of warehouses (blocked rectangles with a gap between every pair), and
/// stacks of crates (small blocked squares) on the quay. The layout is in fractions
/// of the size.
pub fn harbour(width: u32, height: u32, seed: u64) -> Vec<u8> {
    let (w, h) = (width as f64, height as f64);
    let mut a = blank(width, height);
    let paint = |a: &mut Vec<u8>, (u0, v0, u1, v1): (f64, f64, f64, f64), id: u8| {
        let (x0, x1) = ((u0 * w) as u32, ((u1 * w) as u32).min(width));
        let (y0, y1) = ((v0 * h) as u32, ((v1 * h) as u32).min(height));
        for y in y0..y1 {
            for x in x0..x1 {
                a[y as usize * width as usize + x as usize] = id;
            }
        }
    };
    // The quay, then the piers into the water below it.
    paint(&mut a, (0.0, 0.0, 1.0, 0.66), 1);
    for u in [0.15, 0.48, 0.80] {
        paint(&mut a, (u, 0.66, u + 0.05, 0.95), 2);
    }
    // Two rows of five warehouses.
    for (v0, v1) in [(0.06, 0.22), (0.32, 0.46)] {
        for i in 0..5 {
            let u0 = 0.04 + i as f64 * 0.193;
            paint(&mut a, (u0, v0, u0 + 0.15, v1), 0);
        }
    }
    // Crates along the quay's edge and between the rows.
    let mut rng = Rng::new(seed);
    for _ in 0..60 {
        let (u, v) = (rng.range(0.02, 0.96), rng.range(0.48, 0.62));
        let s = rng.range(0.004, 0.012);
        paint(&mut a, (u, v, u + s, v + s * w / h), 0);
    }
    for _ in 0..30 {
        let (u, v) = (rng.range(0.02, 0.96), rng.range(0.235, 0.30));
        let s = rng.range(0.004, 0.010);
        paint(&mut a, (u, v, u + s, v + s * w / h), 0);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..100).map(|_| a.below(10)).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.below(10)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| x < 10));
        // All ten values show up in 100 draws.
        for v in 0..10 {
            assert!(xs.contains(&v), "{v} missing");
        }
        let f = a.range(2.0, 3.0);
        assert!((2.0..3.0).contains(&f));
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn harbour_has_quay_piers_and_warehouses() {
        let (w, h) = (384, 216);
        let a = harbour(w, h, 1);
        let at = |x: u32, y: u32| a[(y * w + x) as usize];
        // Open quay between the warehouse rows, water at the bottom left corner.
        assert_eq!(at(w / 2, (0.27 * h as f64) as u32), 1);
        assert_eq!(at(2, h - 2), 0);
        // A pier reaches the water, a warehouse is solid.
        assert_eq!(at((0.17 * w as f64) as u32, (0.9 * h as f64) as u32), 2);
        assert_eq!(at((0.1 * w as f64) as u32, (0.14 * h as f64) as u32), 0);
        assert_eq!(a, harbour(w, h, 1));
    }
}
