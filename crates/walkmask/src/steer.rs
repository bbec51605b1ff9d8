//! Steering: one step of direct movement (keyboard or stick) that slides along walls.
//!
//! A step that would cross a blocked pixel is turned towards the wall's direction,
//! by up to 75 degrees either way, and shortened to its projection on the wanted
//! direction (`cos` of the turn), so a walker pushed into a wall at a slant slides
//! along it at the speed the push has along the wall. Straight into a wall, or into a
//! corner, it walks up to the wall and stops. Every step is checked with
//! [`line_of_sight`], so a steered walker never crosses a blocked pixel nor squeezes
//! between two that touch at a corner.

use crate::NavGrid;
use crate::geom::Point;
use crate::los::{last_clear_point, line_of_sight};

/// Turns tried, in degrees, in this order (each both ways).
const TURNS: [f32; 5] = [15.0, 30.0, 45.0, 60.0, 75.0];

/// Steps shorter than this (pixels) are not taken.
const MIN_STEP: f32 = 1e-4;

/// Where a walker standing at `from` (mask pixels) ends up after trying to move by
/// `step` (pixels), sliding along walls. `from` itself when it cannot move (or the
/// step is zero or not finite); `None` when `from` is not on a walkable pixel of
/// `grid` (step it onto the nearest walkable pixel first, as
/// [`snap::nearest_walkable`](crate::snap::nearest_walkable) finds).
///
/// ```
/// use walkmask::steer::slide;
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
///
/// // A wall at x = 5 (rows 0 to 9).
/// let mask = WalkMask::from_fn(10, 10, |x, _| u8::from(x != 5)).unwrap();
/// let grid = NavGrid::new(mask, AreaSet::all());
/// // Pushed up and right into the wall: slides up along it.
/// let to = slide(&grid, Point::new(4.5, 5.0), (1.0, -1.0)).unwrap();
/// assert!(to.x <= 5.0 && to.y < 4.5);
/// ```
pub fn slide(grid: &NavGrid, from: Point, step: (f32, f32)) -> Option<Point> {
    if !grid.contains(from) || grid.region_at(from).is_none() {
        return None;
    }
    let (dx, dy) = step;
    let length = (dx * dx + dy * dy).sqrt();
    if !length.is_finite() || length < MIN_STEP {
        return Some(from);
    }
    let clear = |to: Point| grid.contains(to) && line_of_sight(grid, from, to);
    let straight = Point::new(from.x + dx, from.y + dy);
    if clear(straight) {
        return Some(straight);
    }
    for degrees in TURNS {
        let (sin, cos) = degrees.to_radians().sin_cos();
        // The direction turned either way, at the length of the step's projection on it.
        let [left, right] = [sin, -sin].map(|sin| {
            let (tx, ty) = (dx * cos - dy * sin, dx * sin + dy * cos);
            Point::new(from.x + tx * cos, from.y + ty * cos)
        });
        match (clear(left), clear(right)) {
            // Both ways open this far round: the push is head-on into a wall, where
            // a walker stops rather than drift sideways.
            (true, true) if degrees >= 45.0 => break,
            (true, _) => return Some(left),
            (false, true) => return Some(right),
            (false, false) => {}
        }
    }
    // Straight at a wall or into a corner: up to the wall.
    Some(last_clear_point(grid, from, straight).unwrap_or(from))
}
