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
/// [`snap::nearest_step_off`](crate::snap::nearest_step_off) finds).
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
    if !grid.walkable_at(from) {
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
        return Some(settle(grid, from, straight));
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
            (true, _) => return Some(settle(grid, from, left)),
            (false, true) => return Some(settle(grid, from, right)),
            (false, false) => {}
        }
    }
    // Straight at a wall or into a corner: up to the wall.
    let stop = settle(
        grid,
        from,
        last_clear_point(grid, from, straight).unwrap_or(from),
    );
    if (stop.x - from.x).hypot(stop.y - from.y) > MARGIN {
        return Some(stop);
    }
    // Already at it: round the edge of a face if only one side is open close by.
    Some(round_the_edge(grid, from, (dx / length, dy / length), length).unwrap_or(from))
}

/// How far (pixels) along a face a walker stopped by it looks for its edge.
const EDGE_SEARCH: f32 = 4.0;

/// The step along the face a walker at `from` pushes into (unit `direction`) towards
/// the one side where, within [`EDGE_SEARCH`] pixels, the way on opens; `None` when
/// neither or both sides do (a flat wall met head-on). The step is a quarter of the
/// push (the projection of a 75 degree turn), never past the opening.
fn round_the_edge(
    grid: &NavGrid,
    from: Point,
    direction: (f32, f32),
    length: f32,
) -> Option<Point> {
    let clear = |a: Point, b: Point| grid.contains(b) && line_of_sight(grid, a, b);
    let opening = |side: f32| {
        let (px, py) = (-direction.1 * side, direction.0 * side);
        (1..=EDGE_SEARCH as u32).find_map(|k| {
            let k = k as f32;
            let along = Point::new(from.x + px * k, from.y + py * k);
            let on = Point::new(along.x + direction.0, along.y + direction.1);
            (clear(from, along) && clear(along, on)).then_some((px, py, k))
        })
    };
    let (px, py, k) = match (opening(1.0), opening(-1.0)) {
        (Some(one), None) | (None, Some(one)) => one,
        _ => return None,
    };
    let step = (length * 0.25).min(k);
    let to = Point::new(from.x + px * step, from.y + py * step);
    clear(from, to)
        .then(|| settle(grid, from, to))
        .filter(|&p| p != from)
}

/// How far (pixels) a step's end keeps from blocked pixels, so that converting it to
/// the world and back (a few ulps) cannot put it on one.
const MARGIN: f32 = 1.0 / 128.0;

/// `to` (reached from `from` in a clear line) moved back towards `from` until it is
/// at least half a [`MARGIN`] from every blocked pixel along both axes (backing off by
/// a margin, then doubling); `from` when no point of the step is.
fn settle(grid: &NavGrid, from: Point, to: Point) -> Point {
    let open = |p: Point| grid.walkable_at(p);
    // Half the margin: a point settled a margin from a wall before passes.
    let m = MARGIN / 2.0;
    let clear_of_walls = |p: Point| {
        [(m, 0.0), (-m, 0.0), (0.0, m), (0.0, -m)]
            .iter()
            .all(|&(mx, my)| open(Point::new(p.x + mx, p.y + my)))
    };
    if clear_of_walls(to) {
        return to;
    }
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let length = (dx * dx + dy * dy).sqrt();
    let mut back = MARGIN;
    while back < length {
        let t = 1.0 - back / length;
        let p = Point::new(from.x + dx * t, from.y + dy * t);
        if clear_of_walls(p) {
            return p;
        }
        back *= 2.0;
    }
    from
}
