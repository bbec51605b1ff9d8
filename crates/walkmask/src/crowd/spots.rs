//! Free spots to stand on round an occupied destination.

use super::neighbours::NeighbourGrid;
use super::orca::Vector;
use crate::los::line_of_sight;
use crate::{NavGrid, Point};

/// Rings of candidate spots lie this many footprints apart (rows of packed discs),
/// the first one footprint out.
const RING_SPACING: f32 = 0.87;

/// Reusable buffers for [`free_spot`].
#[derive(Clone, Debug, Default)]
pub struct SpotScratch {
    grid: NeighbourGrid,
    positions: Vec<Vector>,
    candidates: Vec<(f32, f32, Vector)>,
}

/// Where a walker of `radius` sent to `goal` stands when others are there: `goal`
/// itself when no disc of `taken` (centre, radius) comes within `gap` of a disc of
/// `radius` round it, else the nearest point that clears every one of them by `gap`,
/// lies on a walkable pixel of `grid` and is seen from `goal` in a straight line on
/// `grid` (so it is on the same side of every wall, and reachable from `goal`).
/// Points at the same distance go by the angle nearest to `approach` (where the
/// walker comes from). Candidates lie on rings round `goal` a footprint apart, up to
/// `max_distance` away; `None` when none is free (or `goal` is not walkable).
///
/// Pass `grid` with the walker's clearance ([`NavGrid::with_clearance`]): its
/// walkable pixels are where its centre may stand.
///
/// ```
/// use walkmask::crowd::{SpotScratch, free_spot};
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
///
/// let grid = NavGrid::new(WalkMask::from_fn(100, 100, |_, _| 1).unwrap(), AreaSet::all());
/// let goal = Point::new(50.5, 50.5);
/// let mut scratch = SpotScratch::default();
/// // Someone of radius 4 stands on the goal: a walker of radius 4 stands beside them.
/// let spot = free_spot(&grid, goal, goal, 4.0, 1.0, &[(goal, 4.0)], 40.0, &mut scratch).unwrap();
/// assert!(spot.distance(goal) >= 9.0 - 1e-3);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn free_spot(
    grid: &NavGrid,
    goal: Point,
    approach: Point,
    radius: f32,
    gap: f32,
    taken: &[(Point, f32)],
    max_distance: f32,
    scratch: &mut SpotScratch,
) -> Option<Point> {
    if !goal.is_finite() || !grid.contains(goal) || grid.region_at(goal).is_none() {
        return None;
    }
    let radius = if radius.is_finite() {
        radius.max(0.0)
    } else {
        0.0
    };
    let gap = if gap.is_finite() { gap.max(0.0) } else { 0.0 };
    scratch.positions.clear();
    scratch
        .positions
        .extend(taken.iter().map(|(p, _)| Vector::new(p.x, p.y)));
    let largest = taken
        .iter()
        .map(|&(_, r)| r)
        .filter(|r| r.is_finite())
        .fold(0.0f32, f32::max);
    let spacing = 2.0 * radius + gap;
    scratch
        .grid
        .build(&scratch.positions, spacing.max(1.0) * 2.0);
    let positions = &scratch.positions;
    let free = |p: Point| {
        let p = Vector::new(p.x, p.y);
        !scratch
            .grid
            .any_within(positions, p, radius + gap + largest, |j| {
                let r = taken[j].1;
                let clear = radius + r.max(0.0) + gap;
                (positions[j] - p).length_squared() < clear * clear * (1.0 - 1e-6)
            })
    };
    if free(goal) {
        return Some(goal);
    }
    // Rings about a footprint apart.
    let step = spacing.max(1.0);
    let approach_angle = {
        let (dx, dy) = (approach.x - goal.x, approach.y - goal.y);
        if dx.is_finite() && dy.is_finite() && (dx != 0.0 || dy != 0.0) {
            dy.atan2(dx)
        } else {
            0.0
        }
    };
    let mut ring = 1u32;
    loop {
        let ring_radius = step * (1.0 + (ring - 1) as f32 * RING_SPACING);
        if ring_radius.is_nan() || ring_radius > max_distance || max_distance.is_nan() {
            return None;
        }
        // Half a footprint apart: spots already taken on this ring or the one before
        // leave gaps at any angle.
        let count = ((2.0 * std::f32::consts::TAU * ring_radius / step).floor() as u32).max(12);
        scratch.candidates.clear();
        for k in 0..count {
            // Points either side of the approach angle, alternately.
            let offset = (k as f32 / count as f32) * std::f32::consts::TAU;
            let angle = approach_angle + offset;
            let turn = offset.min(std::f32::consts::TAU - offset);
            let (sin, cos) = angle.sin_cos();
            scratch.candidates.push((
                ring_radius,
                turn,
                Vector::new(goal.x + cos * ring_radius, goal.y + sin * ring_radius),
            ));
        }
        scratch.candidates.sort_by(|a, b| a.1.total_cmp(&b.1));
        let found = scratch.candidates.iter().find_map(|&(_, _, c)| {
            let p = Point::new(c.x, c.y);
            (grid.contains(p)
                && grid.region_at(p).is_some()
                && free(p)
                && line_of_sight(grid, goal, p))
            .then_some(p)
        });
        if found.is_some() {
            return found;
        }
        ring += 1;
    }
}
