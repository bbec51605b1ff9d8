//! Steering (`steer::slide`) over random masks: a walker steered by any sequence of
//! pushes never crosses a blocked pixel nor cuts a blocked corner, never moves
//! further than the push, never moves against it, and slides along a straight wall
//! pushed at a slant.

mod support;

use proptest::prelude::*;
use walkmask::steer::slide;
use walkmask::{AreaSet, NavGrid, Point, WalkMask};

use support::cases::{Scenario, scenario};
use support::check_path_strict;

/// Cases per property.
const CASES: u32 = 3000;

fn config() -> ProptestConfig {
    support::cases::config(CASES)
}

proptest! {
    #![proptest_config(config())]

    /// Twenty pushes in random directions from a walkable start: every step is legal
    /// (strictly: no corner cutting), at most as long as its push, and never has a
    /// negative component along it.
    #[test]
    fn steered_walks_stay_legal(
        s in scenario(),
        pushes in proptest::collection::vec((-3.0f32..3.0, -3.0f32..3.0), 20),
    ) {
        let Scenario { case, start, .. } = s;
        let grid = case.grid();
        if grid.region_at(start).is_none() {
            prop_assert_eq!(slide(&grid, start, (1.0, 0.0)), None);
            return Ok(());
        }
        let mut at = start;
        for (dx, dy) in pushes {
            let to = slide(&grid, at, (dx, dy)).expect("a walkable point stays walkable");
            if let Err(why) = check_path_strict(&grid, &[at, to]) {
                return Err(TestCaseError::fail(format!("{case:?}\n{why}")));
            }
            let (mx, my) = (to.x - at.x, to.y - at.y);
            let moved = (mx * mx + my * my).sqrt();
            let push = (dx * dx + dy * dy).sqrt();
            prop_assert!(moved <= push * (1.0 + 1e-4) + 1e-5, "moved {moved} for a push of {push}");
            prop_assert!(mx * dx + my * dy >= -1e-5, "moved against the push");
            at = to;
        }
    }
}

/// A wall along x = 10: pushed at 45 degrees into it, the walker slides along it
/// (y changes by the push's component along the wall, cos 45 of the push), and never
/// gets past x = 10; pushed head-on it stops at the wall.
#[test]
fn a_slanted_push_slides_along_a_wall_and_a_head_on_push_stops() {
    let mask = WalkMask::from_fn(20, 40, |x, _| u8::from(x != 10)).unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    let mut at = Point::new(9.0, 30.0);
    for _ in 0..10 {
        at = slide(&grid, at, (1.0, -1.0)).unwrap();
        assert!(at.x < 10.0, "{at:?}");
    }
    assert!(at.y < 30.0 - 10.0 * 0.69, "slid only to {at:?}");
    let before = at;
    for _ in 0..10 {
        at = slide(&grid, at, (1.0, 0.0)).unwrap();
    }
    assert!((at.y - before.y).abs() < 1e-4, "drifted to {at:?}");
    assert!(at.x > 9.99 && at.x <= 10.0, "{at:?}");
    // Standing on the wall: no step.
    assert_eq!(slide(&grid, Point::new(10.5, 5.0), (1.0, 0.0)), None);
    // Not finite or zero: stays.
    let p = Point::new(3.5, 3.5);
    assert_eq!(slide(&grid, p, (f32::NAN, 0.0)), Some(p));
    assert_eq!(slide(&grid, p, (0.0, 0.0)), Some(p));
}

/// A disk of blocked pixels met off-centre: the walker pushed at it walks round it on
/// the nearer side instead of stopping at its flat pixel face.
#[test]
fn a_push_at_a_round_obstacle_off_centre_walks_round_it() {
    let (cx, cy, r) = (20.0f32, 20.0f32, 4.7f32);
    let mask = WalkMask::from_fn(40, 40, |x, y| {
        let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
        u8::from(dx.hypot(dy) >= r)
    })
    .unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    let mut at = Point::new(10.0, 18.4);
    let mut path = vec![at];
    for _ in 0..60 {
        at = slide(&grid, at, (0.96, 0.0)).unwrap();
        path.push(at);
    }
    support::check_path_strict(&grid, &path).unwrap();
    assert!(at.x > cx + r, "stuck at {at:?}");
    assert!(path.iter().all(|p| p.y < 20.0), "went round the far side");
}
