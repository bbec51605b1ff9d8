//! The reference algorithm: seed 000's pseudocode, as written.
//!
//! Per query: a fresh `i32` distance buffer the size of the scene (`i32::MAX` for
//! walkable pixels, `-1` for blocked ones), a breadth-first flood from the destination
//! with Manhattan steps over two stacks until nothing is left (no early stop), then a
//! trace from the start down the distances with the seed's diagonal rule, the
//! simplification of straight runs, and the beautification with a Bresenham beeline
//! over the distance buffer, run forwards and then backwards.
//!
//! Two places where the pseudocode cannot be run literally:
//! - in the beautification, `if (dist < 10) continue;` would retry the same three
//!   points forever; here it moves on to the next point, as the comment after the
//!   sub-step loop says;
//! - the trace's "never should get here" case (no neighbour one step closer) cannot
//!   happen on a buffer the flood filled; it ends the query instead of looping.
//!
//! The sub-step loop keeps the pseudocode's behaviour of having no `break`: every
//! visible sub-point overwrites the corner, so the last one tried (the one nearest to
//! the corner) wins.
//!
//! The seed's own engine checks the straight line before the flood; the pseudocode
//! does not, so neither does this reference.

/// Distance of a walkable pixel the flood has not reached.
const MAX_INT: i32 = i32::MAX;

/// A point in pixel coordinates.
pub type Pixel = (i32, i32);

/// A path found by the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedPath {
    /// Waypoints from the start to the destination, after simplification and
    /// beautification.
    pub waypoints: Vec<Pixel>,
    /// Pixels the flood gave a distance (the destination's whole 4-connected region).
    pub filled: usize,
}

impl SeedPath {
    /// Euclidean length of the waypoint polyline, in pixels.
    pub fn length(&self) -> f64 {
        self.waypoints
            .windows(2)
            .map(|w| {
                let dx = (w[1].0 - w[0].0) as f64;
                let dy = (w[1].1 - w[0].1) as f64;
                dx.hypot(dy)
            })
            .sum()
    }
}

/// The walkability bitmap the reference reads (`allowed_at`), row-major.
#[derive(Clone, Debug)]
pub struct Reference {
    width: i32,
    height: i32,
    allowed: Vec<bool>,
}

impl Reference {
    /// A reference over `allowed` (`width * height` entries, row-major).
    ///
    /// # Panics
    /// When `allowed` does not hold `width * height` entries or the size does not fit
    /// in `i32`.
    pub fn new(width: u32, height: u32, allowed: Vec<bool>) -> Self {
        assert_eq!(allowed.len(), width as usize * height as usize);
        Self {
            width: i32::try_from(width).expect("width fits in i32"),
            height: i32::try_from(height).expect("height fits in i32"),
            allowed,
        }
    }

    #[inline]
    fn allowed_at(&self, x: i32, y: i32) -> bool {
        self.allowed[(y * self.width + x) as usize]
    }

    /// The path from `start` to `destination`, or `None` when the destination is
    /// blocked or cannot be reached from the start (or a point is outside the scene).
    pub fn find_path(&self, start: Pixel, destination: Pixel) -> Option<SeedPath> {
        let (width, height) = (self.width, self.height);
        let inside = |p: Pixel| p.0 >= 0 && p.1 >= 0 && p.0 < width && p.1 < height;
        if !inside(start) || !inside(destination) {
            return None;
        }
        // Quick sanity check.
        if !self.allowed_at(destination.0, destination.1) {
            return None;
        }
        // Initialise the distance buffer.
        let mut distance_buffer = vec![0i32; (width * height) as usize];
        let at = |x: i32, y: i32| (y * width + x) as usize;
        for y in 0..height {
            for x in 0..width {
                distance_buffer[at(x, y)] = if self.allowed_at(x, y) { MAX_INT } else { -1 };
            }
        }
        // Prepare stacks of points to process.
        let mut current: Vec<Pixel> = Vec::new();
        let mut next: Vec<Pixel> = Vec::new();
        current.push(destination);

        // Distance calculations: a diamond-shaped flood from the destination.
        let mut filled = 1usize;
        let mut dist = 0;
        distance_buffer[at(destination.0, destination.1)] = 0;
        loop {
            dist += 1;
            while let Some(p) = current.pop() {
                if p.0 > 0 && distance_buffer[at(p.0 - 1, p.1)] == MAX_INT {
                    distance_buffer[at(p.0 - 1, p.1)] = dist;
                    next.push((p.0 - 1, p.1));
                }
                if p.0 < width - 1 && distance_buffer[at(p.0 + 1, p.1)] == MAX_INT {
                    distance_buffer[at(p.0 + 1, p.1)] = dist;
                    next.push((p.0 + 1, p.1));
                }
                if p.1 > 0 && distance_buffer[at(p.0, p.1 - 1)] == MAX_INT {
                    distance_buffer[at(p.0, p.1 - 1)] = dist;
                    next.push((p.0, p.1 - 1));
                }
                if p.1 < height - 1 && distance_buffer[at(p.0, p.1 + 1)] == MAX_INT {
                    distance_buffer[at(p.0, p.1 + 1)] = dist;
                    next.push((p.0, p.1 + 1));
                }
            }
            if next.is_empty() {
                break;
            }
            filled += next.len();
            // The next stack becomes the current stack (the current one is empty).
            std::mem::swap(&mut current, &mut next);
            next.clear();
        }

        // Path tracing.
        let mut dist = distance_buffer[at(start.0, start.1)];
        if dist == MAX_INT || dist < 0 {
            // Unreachable from the start (or the start is blocked).
            return None;
        }
        let mut path: Vec<Pixel> = Vec::new();
        let mut p = start;
        loop {
            path.push(p);
            if dist == 0 {
                break;
            }
            dist -= 1;
            let diag = dist - 1;
            let can_go_left = p.0 > 0 && distance_buffer[at(p.0 - 1, p.1)] == dist;
            let can_go_right = p.0 < width - 1 && distance_buffer[at(p.0 + 1, p.1)] == dist;
            let can_go_up = p.1 > 0 && distance_buffer[at(p.0, p.1 - 1)] == dist;
            let can_go_down = p.1 < height - 1 && distance_buffer[at(p.0, p.1 + 1)] == dist;
            if can_go_left || can_go_right {
                p.0 += if can_go_left { -1 } else { 1 };
                if can_go_up && distance_buffer[at(p.0, p.1 - 1)] == diag {
                    dist = diag;
                    p.1 -= 1;
                } else if can_go_down && distance_buffer[at(p.0, p.1 + 1)] == diag {
                    dist = diag;
                    p.1 += 1;
                }
                continue;
            }
            if can_go_up {
                p.1 -= 1;
                continue;
            }
            if can_go_down {
                p.1 += 1;
                continue;
            }
            // "Never should get here."
            return None;
        }

        let mut path = simplify(&path);
        let beeline = |a: Pixel, b: Pixel| beeline_possible(&distance_buffer, width, a, b);
        beautify(&mut path, &beeline);
        path.reverse();
        beautify(&mut path, &beeline);
        path.reverse();
        Some(SeedPath {
            waypoints: path,
            filled,
        })
    }
}

/// The seed's simplification: drops every point in the middle of a run of equal
/// steps (horizontal, vertical or diagonal).
pub fn simplify(path: &[Pixel]) -> Vec<Pixel> {
    if path.len() < 3 {
        return path.to_vec();
    }
    let mut out = Vec::with_capacity(64);
    out.push(path[0]);
    let mut it1 = 0;
    while it1 + 1 < path.len() {
        let mut it2 = it1 + 1;
        let (dx, dy) = (path[it2].0 - path[it1].0, path[it2].1 - path[it1].1);
        while it2 + 1 < path.len() {
            let (p2, p3) = (path[it2], path[it2 + 1]);
            if p3.0 - p2.0 != dx || p3.1 - p2.1 != dy {
                break;
            }
            it2 += 1; // the middle point is removed
        }
        out.push(path[it2]);
        it1 = it2;
    }
    out
}

/// One beautification pass of the seed over `path`, with `beeline` as the
/// line-of-sight test.
pub fn beautify(path: &mut Vec<Pixel>, beeline: &impl Fn(Pixel, Pixel) -> bool) {
    if path.len() < 3 {
        return;
    }
    // `out` holds the points up to and including it1; `rest[k]` is it2.
    let rest = std::mem::take(path);
    let mut out: Vec<Pixel> = Vec::with_capacity(rest.len());
    out.push(rest[0]);
    let mut k = 1;
    while k + 1 < rest.len() {
        let p1 = *out.last().expect("it1");
        let mut p2 = rest[k];
        let p3 = rest[k + 1];
        if beeline(p1, p3) {
            // Remove it2: it3 becomes the next it2.
            k += 1;
            continue;
        }
        let (dx, dy) = (p3.0 - p2.0, p3.1 - p2.1);
        let dist = ((dx * dx + dy * dy) as f32).sqrt();
        if dist >= 10.0 {
            // At most 10 steps of at least 5 pixels each.
            let mut num_steps = 10;
            if dist / 10.0 < 5.0 {
                num_steps = ((dist / 5.0) as i32).max(1);
            }
            let corner = p2;
            for i in (1..num_steps).rev() {
                let p4 = (corner.0 + dx * i / num_steps, corner.1 + dy * i / num_steps);
                if beeline(p1, p4) {
                    p2 = p4;
                }
            }
        }
        // Move on to the next point: it2 (possibly moved) becomes it1.
        out.push(p2);
        k += 1;
    }
    out.extend_from_slice(&rest[k..]);
    *path = out;
}

/// Bresenham's line from `a` to `b` over the distance buffer: true when no pixel on it
/// is blocked (`-1`).
pub fn beeline_possible(buffer: &[i32], width: i32, a: Pixel, b: Pixel) -> bool {
    let (mut x, mut y) = a;
    let dx = (b.0 - a.0).abs();
    let dy = -(b.1 - a.1).abs();
    let sx = if a.0 < b.0 { 1 } else { -1 };
    let sy = if a.1 < b.1 { 1 } else { -1 };
    let mut err = dx + dy;
    loop {
        if buffer[(y * width + x) as usize] == -1 {
            return false;
        }
        if x == b.0 && y == b.1 {
            return true;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(rows: &[&str]) -> Reference {
        let w = rows[0].len() as u32;
        let h = rows.len() as u32;
        let allowed = rows
            .iter()
            .flat_map(|r| r.bytes().map(|b| b == b'.'))
            .collect();
        Reference::new(w, h, allowed)
    }

    fn clear(r: &Reference, a: Pixel, b: Pixel) -> bool {
        let buf: Vec<i32> = r.allowed.iter().map(|&w| if w { 0 } else { -1 }).collect();
        beeline_possible(&buf, r.width, a, b)
    }

    #[test]
    fn goes_around_a_wall_and_every_segment_is_clear() {
        let r = reference(&[
            "..........",
            "....#.....",
            "....#.....",
            "....#.....",
            "....#.....",
            "....#.....",
        ]);
        let p = r.find_path((1, 5), (8, 5)).expect("reachable");
        assert_eq!(p.waypoints.first(), Some(&(1, 5)));
        assert_eq!(p.waypoints.last(), Some(&(8, 5)));
        assert!(p.waypoints.len() >= 3, "{:?}", p.waypoints);
        assert!(
            p.waypoints.iter().any(|q| q.1 == 0),
            "must pass over the wall"
        );
        for w in p.waypoints.windows(2) {
            assert!(clear(&r, w[0], w[1]), "{:?}", p.waypoints);
        }
        assert_eq!(p.filled, 60 - 5);
    }

    #[test]
    fn unreachable_and_blocked_destinations() {
        let r = reference(&["..#..", "..#..", "..#.."]);
        assert_eq!(r.find_path((0, 0), (4, 0)), None);
        assert_eq!(r.find_path((0, 0), (2, 1)), None);
        assert_eq!(r.find_path((0, 0), (9, 0)), None);
        let same = r.find_path((1, 1), (1, 1)).unwrap();
        assert_eq!(same.waypoints, vec![(1, 1)]);
    }

    #[test]
    fn simplification_keeps_turns_only() {
        let run = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (4, 3)];
        assert_eq!(simplify(&run), vec![(0, 0), (2, 0), (4, 2), (4, 3)]);
        assert_eq!(simplify(&run[..2]), run[..2].to_vec());
    }

    #[test]
    fn trace_takes_diagonals_in_the_open() {
        // In an open field the trace goes diagonally; beautified, it is one segment.
        let rows = vec![".".repeat(30); 30];
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let r = reference(&rows);
        let p = r.find_path((2, 3), (25, 20)).unwrap();
        assert_eq!(p.waypoints, vec![(2, 3), (25, 20)]);
        assert_eq!(p.filled, 900);
    }

    #[test]
    fn bresenham_cuts_corners_between_blocked_pixels() {
        // The seed's beeline steps diagonally past two blocked pixels touching at a corner.
        let r = reference(&[".#", "#."]);
        assert!(clear(&r, (0, 0), (1, 1)));
        assert!(!clear(&r, (0, 0), (1, 0)));
    }
}
