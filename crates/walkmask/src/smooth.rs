//! Beautification: line-of-sight shortcuts.

use crate::los::line_of_sight;
use crate::{NavGrid, Point};

/// Segments shorter than this are not subdivided.
const MIN_SPLIT_LENGTH: f32 = 10.0;
/// At most this many subdivision steps per segment...
const MAX_SPLIT_STEPS: usize = 10;
/// ...each at least this long.
const MIN_SPLIT_STEP: f32 = 5.0;

/// One beautification pass (seed 000): for each corner `p2` between `p1` and `p3`,
/// drop it when `p1` sees `p3`; otherwise slide it toward `p3` while `p1` still sees
/// it (in at most 10 steps of at least 5 px). Endpoints never move, and no
/// step makes the path longer or lets a segment cross a blocked pixel.
pub fn beautify_pass(grid: &NavGrid, path: &mut Vec<Point>) {
    if path.len() < 3 {
        return;
    }
    let mut out: Vec<Point> = Vec::with_capacity(path.len());
    out.push(path[0]);
    let mut i = 1;
    // `p1` is out.last(); `p2` = path[i], `p3` = path[i + 1].
    while i + 1 < path.len() {
        let p1 = *out.last().expect("out starts with the first point");
        let p2 = path[i];
        let p3 = path[i + 1];
        if line_of_sight(grid, p1, p3) {
            i += 1; // drop p2, p3 becomes the candidate corner
            continue;
        }
        let (dx, dy) = (p3.x - p2.x, p3.y - p2.y);
        let length = (dx * dx + dy * dy).sqrt();
        let mut corner = p2;
        if length >= MIN_SPLIT_LENGTH {
            let mut steps = MAX_SPLIT_STEPS;
            if length / MAX_SPLIT_STEPS as f32 <= MIN_SPLIT_STEP {
                steps = ((length / MIN_SPLIT_STEP) as usize).max(1);
            }
            // Slide toward p3 while p1 still sees the next step: visibility along
            // p2 -> p3 is a prefix in practice, so the first hidden step ends the
            // search (one failed check instead of up to nine long ones).
            for k in 1..steps {
                let t = k as f32 / steps as f32;
                let p4 = Point::new(p2.x + dx * t, p2.y + dy * t);
                if !line_of_sight(grid, p1, p4) {
                    break;
                }
                corner = p4;
            }
            // p4 lies on p2 -> p3 up to rounding; make sure the rest stays clear.
            if corner != p2 && !line_of_sight(grid, corner, p3) {
                corner = p2;
            }
        }
        out.push(corner);
        i += 1;
    }
    out.push(*path.last().expect("len >= 3"));
    *path = out;
}

/// Beautifies forwards, then backwards (seed 000 runs the pass in both directions).
pub fn beautify(grid: &NavGrid, path: &mut Vec<Point>) {
    beautify_pass(grid, path);
    path.reverse();
    beautify_pass(grid, path);
    path.reverse();
}
