//! Grid steps (`PathOptions::grid_steps`) over random masks: after the exact start,
//! the path runs from pixel centre to pixel centre in the 8 grid directions, never
//! cuts a blocked corner, ends at the centre of the pixel the ordinary query ends in,
//! is as long as the octile distance the fill gives, and is found exactly when the
//! ordinary query finds a path.

mod support;

use proptest::prelude::*;
use walkmask::{PathOptions, PathStatus, Pathfinder, Point};

use support::cases::{Scenario, scenario};
use support::check_path_strict;

const CASES: u32 = 3000;

fn config() -> ProptestConfig {
    support::cases::config(CASES)
}

fn grid_steps() -> PathOptions {
    PathOptions {
        grid_steps: true,
        ..PathOptions::default()
    }
}

fn is_centre(p: Point) -> bool {
    (p.x - 0.5).fract() == 0.0 && (p.y - 0.5).fract() == 0.0
}

/// Octile length in steps of 1 and sqrt 2.
fn octile(a: Point, b: Point) -> f64 {
    let (dx, dy) = (((b.x - a.x) as f64).abs(), ((b.y - a.y) as f64).abs());
    dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn grid_steps_go_centre_to_centre_without_cutting_corners(s in scenario()) {
        let Scenario { case, start, goal } = s;
        let grid = case.grid();
        let ordinary = Pathfinder::new().find_path(&grid, start, goal);
        let stepped = Pathfinder::with_options(grid_steps()).find_path(&grid, start, goal);
        let (Ok(ordinary), Ok(stepped)) = (ordinary, stepped) else {
            return Ok(());
        };
        prop_assert_eq!(ordinary.is_walkable(), stepped.is_walkable());
        if !stepped.is_walkable() {
            return Ok(());
        }
        let path = &stepped.waypoints;
        // The exact start, then centres (the first of which is the start pixel's,
        // unless the start is on it).
        let centres = if is_centre(path[0]) { &path[..] } else { &path[1..] };
        prop_assert!(!centres.is_empty(), "{:?}", path);
        prop_assert!(centres.iter().all(|&p| is_centre(p)), "{:?}", path);
        for w in centres.windows(2) {
            let (dx, dy) = (w[1].x - w[0].x, w[1].y - w[0].y);
            prop_assert!(dx == 0.0 || dy == 0.0 || dx.abs() == dy.abs(), "not a grid direction: {:?}", w);
        }
        if let Err(why) = check_path_strict(&grid, centres) {
            return Err(TestCaseError::fail(format!("{case:?}\n{why}")));
        }
        let end = *path.last().unwrap();
        let ordinary_end = *ordinary.waypoints.last().unwrap();
        prop_assert_eq!(end.pixel(), ordinary_end.pixel());
        prop_assert_eq!(stepped.status == PathStatus::Snapped, ordinary.status == PathStatus::Snapped);
        // As long as the fill's octile distance between the two pixels, which is no
        // less than the straight octile distance.
        let steps: f64 = centres.windows(2).map(|w| octile(w[0], w[1])).sum();
        prop_assert!(steps + 1e-6 >= octile(centres[0], end));
    }
}
