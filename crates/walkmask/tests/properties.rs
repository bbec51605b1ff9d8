//! Property tests of path queries over random masks: legal segments (checked by an
//! independent exact test), endpoints and snapping, status against an independent
//! flood fill, beautification never lengthening, near-optimal lengths against A*,
//! the baseline planners, distance-field paths, and errors for bad points.

mod support;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use walkmask::baseline::{astar, astar_pixels, frontier_bfs};
use walkmask::subgoal::IndexPolicy;
use walkmask::{
    AreaSet, DistanceField, NavGrid, PathOptions, PathResult, PathStatus, Pathfinder, Point,
    WalkMask,
};

use support::cases::{Scenario, scenario};
use support::{check_path_strict, flood, length, walkable};

/// Cases per property. The whole file stays well under a minute in the dev profile.
const CASES: u32 = 8000;

fn no_beautify() -> PathOptions {
    PathOptions {
        beautify: false,
        taut: false,
        ..PathOptions::default()
    }
}

fn no_snap() -> PathOptions {
    PathOptions {
        snap_destination: false,
        ..PathOptions::default()
    }
}

fn dist2(p: Point, x: u32, y: u32) -> f64 {
    (x as f64 + 0.5 - p.x as f64).powi(2) + (y as f64 + 0.5 - p.y as f64).powi(2)
}

fn centre_dist(p: Point, q: (u32, u32)) -> f64 {
    dist2(p, q.0, q.1).sqrt()
}

/// The pixel containing a point that is known to be inside the mask.
fn pixel(p: Point) -> (u32, u32) {
    (p.x.max(0.0).floor() as u32, p.y.max(0.0).floor() as u32)
}

/// What a default query is checked against and what later checks reuse.
struct Checked {
    /// Start pixel of the walk (after moving a blocked start).
    start_pixel: (u32, u32),
    /// End pixel of the walk.
    end_pixel: (u32, u32),
    /// Whether the requested destination pixel is reachable from the start pixel.
    reachable: bool,
}

/// Checks one answer of a query with default options (snapping on) against the
/// independent model; `None` when nothing is walkable.
fn check_answer(
    grid: &NavGrid,
    sc: &Scenario,
    r: &PathResult,
    what: &str,
) -> Result<Option<Checked>, TestCaseError> {
    let (w, h) = (grid.width(), grid.height());
    let enabled: Vec<(u32, u32)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| walkable(grid, x as i64, y as i64))
        .collect();
    if enabled.is_empty() {
        prop_assert_eq!(
            r.status,
            PathStatus::Unreachable,
            "{}: nothing is walkable",
            what
        );
        prop_assert!(r.waypoints.is_empty());
        return Ok(None);
    }
    prop_assert_ne!(
        r.status,
        PathStatus::Unreachable,
        "{}: something is walkable",
        what
    );
    let first = *r.waypoints.first().expect("walkable result has points");
    let last = *r.waypoints.last().expect("walkable result has points");
    // The start: as requested, or the centre of a nearest walkable pixel.
    let sp = pixel(sc.start);
    prop_assert_eq!(
        r.start_moved,
        !walkable(grid, sp.0 as i64, sp.1 as i64),
        "{}: start_moved must say whether the start pixel was blocked",
        what
    );
    let start_pixel = if walkable(grid, sp.0 as i64, sp.1 as i64) {
        prop_assert_eq!(first, sc.start, "{}: path must start at the start", what);
        sp
    } else {
        let s = pixel(first);
        prop_assert_eq!(
            first,
            Point::pixel_center(s.0, s.1),
            "{}: moved start is a centre",
            what
        );
        prop_assert!(walkable(grid, s.0 as i64, s.1 as i64));
        let best = enabled
            .iter()
            .map(|&(x, y)| dist2(sc.start, x, y))
            .fold(f64::INFINITY, f64::min);
        let got = dist2(sc.start, s.0, s.1);
        prop_assert!(
            got.sqrt() <= best.sqrt() + 1e-4,
            "{}: start moved to {:?} at {} but a walkable centre is at {}",
            what,
            s,
            got.sqrt(),
            best.sqrt()
        );
        s
    };
    // Reachability by an independent 4-connected flood fill.
    let reach = flood(grid, start_pixel);
    let gp = pixel(sc.goal);
    let reachable = reach[(gp.1 * w + gp.0) as usize];
    let end_pixel = if reachable {
        prop_assert_eq!(
            r.status,
            PathStatus::Found,
            "{}: destination is reachable",
            what
        );
        prop_assert_eq!(last, sc.goal, "{}: path must end at the destination", what);
        gp
    } else {
        prop_assert_eq!(
            r.status,
            PathStatus::Snapped,
            "{}: destination is not reachable",
            what
        );
        let e = pixel(last);
        prop_assert_eq!(
            last,
            Point::pixel_center(e.0, e.1),
            "{}: snapped end is a centre",
            what
        );
        prop_assert!(
            reach[(e.1 * w + e.0) as usize],
            "{}: snapped end {:?} unreachable",
            what,
            e
        );
        let best = enabled
            .iter()
            .filter(|&&(x, y)| reach[(y * w + x) as usize])
            .map(|&(x, y)| dist2(sc.goal, x, y))
            .fold(f64::INFINITY, f64::min);
        let got = dist2(sc.goal, e.0, e.1);
        prop_assert!(
            got.sqrt() <= best.sqrt() + 1e-4,
            "{}: snapped to {:?} at {} but a reachable centre is at {}",
            what,
            e,
            got.sqrt(),
            best.sqrt()
        );
        e
    };
    if let Err(e) = check_path_strict(grid, &r.waypoints) {
        return Err(TestCaseError::fail(format!(
            "{what}: illegal path {:?}: {e}",
            r.waypoints
        )));
    }
    let len = length(&r.waypoints);
    prop_assert!(
        (r.length as f64 - len).abs() <= 1e-3 * (1.0 + len),
        "{}: length {} but the waypoints measure {}",
        what,
        r.length,
        len
    );
    Ok(Some(Checked {
        start_pixel,
        end_pixel,
        reachable,
    }))
}

/// The walk `r` (checked as `c`) is within 2% of the octile optimum between its end
/// pixels, plus the offsets of its ends from their pixel centres; the same query
/// without shortcuts follows octile distances (41/29 for a diagonal step), so it is
/// within 0.03% of the optimum.
fn check_near_optimal(
    grid: &NavGrid,
    sc: &Scenario,
    r: &PathResult,
    c: &Checked,
) -> Result<(), TestCaseError> {
    let (_, optimum) =
        astar_pixels(grid, c.start_pixel, c.end_pixel).expect("the end pixel is reachable");
    let first = r.waypoints[0];
    let last = *r.waypoints.last().unwrap();
    let offsets = centre_dist(first, c.start_pixel) + centre_dist(last, c.end_pixel);
    let bound = 1.02 * (optimum + offsets) + 1.0;
    prop_assert!(
        length(&r.waypoints) <= bound,
        "length {} over bound {} (optimum {})",
        length(&r.waypoints),
        bound,
        optimum
    );
    let traced = Pathfinder::with_options(no_beautify())
        .find_path(grid, sc.start, sc.goal)
        .unwrap();
    let tight = optimum * 1.0003 + offsets + 1e-3;
    prop_assert!(
        length(&traced.waypoints) <= tight,
        "traced length {} over {} (optimum {}): {:?}",
        length(&traced.waypoints),
        tight,
        optimum,
        traced.waypoints
    );
    Ok(())
}

/// A blocked start in the last half pixel of the mask moves to the walkable pixel
/// nearest to the point itself (not to the point clamped to the last pixel centre).
#[test]
fn blocked_start_near_the_far_edge_moves_to_the_nearest_pixel() {
    // Walkable: (0, 1) and (2, 3). From (0.1, 3.95), (2, 3) is nearer (5.96 vs 6.16
    // squared); measured from (0.1, 3.5) it would not be.
    let mask =
        WalkMask::from_fn(4, 4, |x, y| u8::from((x, y) == (0, 1) || (x, y) == (2, 3))).unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    let r = Pathfinder::new()
        .find_path(&grid, Point::new(0.1, 3.95), Point::new(2.5, 3.5))
        .unwrap();
    assert_eq!(r.waypoints.first(), Some(&Point::new(2.5, 3.5)));
    assert_eq!(r.status, PathStatus::Found);
    // The same for a destination: snapped to (2, 3), not to (0, 1) in another
    // region and not to the nearest pixel of the clamped point.
    let grid = NavGrid::new(
        // (0, 1) and (2, 3) joined round the top and the right-hand side.
        WalkMask::from_fn(4, 4, |x, y| {
            u8::from(x == 0 && y < 2 || y == 0 || x == 3 || y == 3 && x >= 2)
        })
        .unwrap(),
        AreaSet::all(),
    );
    assert_eq!(grid.region_count(), 1);
    let r = Pathfinder::new()
        .find_path(&grid, Point::new(3.5, 0.5), Point::new(0.1, 3.95))
        .unwrap();
    assert_eq!(r.status, PathStatus::Snapped);
    assert_eq!(r.waypoints.last(), Some(&Point::new(2.5, 3.5)));
}

/// [`CASES`] cases per property, or `PROPTEST_CASES` when set.
fn config() -> ProptestConfig {
    support::cases::config(CASES)
}

proptest! {
    #![proptest_config(config())]

    /// Default queries: legal segments, right endpoints, status by reachability,
    /// snapped ends nearest, unreachable only when nothing is walkable.
    #[test]
    fn find_path_is_legal_and_ends_right(sc in scenario()) {
        let grid = sc.case.grid();
        let r = Pathfinder::new().find_path(&grid, sc.start, sc.goal);
        prop_assert!(r.is_ok(), "valid points must give an answer: {:?}", r);
        check_answer(&grid, &sc, &r.unwrap(), "find_path")?;
    }

    /// Without snapping: unreachable exactly when the destination cannot be reached;
    /// otherwise the same walk as with snapping.
    #[test]
    fn no_snap_is_unreachable_exactly_when_unreachable(sc in scenario()) {
        let grid = sc.case.grid();
        let snapped = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let strict = Pathfinder::with_options(no_snap()).find_path(&grid, sc.start, sc.goal).unwrap();
        match check_answer(&grid, &sc, &snapped, "find_path")? {
            None => prop_assert_eq!(strict.status, PathStatus::Unreachable),
            Some(c) if !c.reachable => {
                prop_assert_eq!(strict.status, PathStatus::Unreachable);
                prop_assert!(strict.waypoints.is_empty());
            }
            Some(_) => {
                prop_assert_eq!(strict.status, PathStatus::Found);
                prop_assert_eq!(&strict.waypoints, &snapped.waypoints);
            }
        }
    }

    /// Beautification never makes a walk longer, and the traced walk is legal too.
    #[test]
    fn beautify_never_lengthens(sc in scenario()) {
        let grid = sc.case.grid();
        let pretty = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let traced = Pathfinder::with_options(no_beautify()).find_path(&grid, sc.start, sc.goal).unwrap();
        check_answer(&grid, &sc, &pretty, "beautified")?;
        check_answer(&grid, &sc, &traced, "traced")?;
        prop_assert_eq!(pretty.waypoints.first(), traced.waypoints.first());
        prop_assert_eq!(pretty.waypoints.last(), traced.waypoints.last());
        prop_assert!(
            length(&pretty.waypoints) <= length(&traced.waypoints) + 1e-3,
            "beautified {} > traced {}: {:?} vs {:?}",
            length(&pretty.waypoints), length(&traced.waypoints), pretty.waypoints, traced.waypoints
        );
    }

    /// The fill agrees with A* on reachability, and its walk is never much longer
    /// than the octile optimum between the same endpoints.
    #[test]
    fn fill_matches_astar(sc in scenario()) {
        let grid = sc.case.grid();
        let r = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let Some(c) = check_answer(&grid, &sc, &r, "find_path")? else { return Ok(()) };
        let gp = pixel(sc.goal);
        prop_assert_eq!(astar_pixels(&grid, c.start_pixel, gp).is_some(), c.reachable);
        check_near_optimal(&grid, &sc, &r, &c)?;
    }

    /// Queries answered by the subgoal index: legal, the same endpoints and status
    /// as the fill's answer, and within the fill's bound of the octile optimum; the
    /// walk before shortcuts is exactly as short as the fill's.
    #[test]
    fn index_queries_match_fill_queries(sc in scenario()) {
        let grid = sc.case.grid();
        let fill = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        grid.build_index(IndexPolicy::Always);
        prop_assert!(grid.subgoal_index().is_some());
        let r = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let Some(c) = check_answer(&grid, &sc, &r, "index")? else { return Ok(()) };
        prop_assert_eq!(r.status, fill.status);
        prop_assert_eq!(r.waypoints.first(), fill.waypoints.first());
        prop_assert_eq!(r.waypoints.last(), fill.waypoints.last());
        check_near_optimal(&grid, &sc, &r, &c)?;
    }

    /// The baselines give legal walks with the same endpoints and status; A*'s walk
    /// is never longer than its optimum plus the endpoint offsets.
    #[test]
    fn baselines_are_legal(sc in scenario()) {
        let grid = sc.case.grid();
        let reference = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let c = check_answer(&grid, &sc, &reference, "find_path")?;
        for options in [PathOptions::default(), no_beautify()] {
            let bfs = frontier_bfs(&grid, sc.start, sc.goal, &options).unwrap();
            let star = astar(&grid, sc.start, sc.goal, &options).unwrap();
            for (name, r) in [("frontier_bfs", &bfs), ("astar", &star)] {
                check_answer(&grid, &sc, r, name)?;
                prop_assert_eq!(r.status, reference.status);
                prop_assert_eq!(r.waypoints.first(), reference.waypoints.first());
                prop_assert_eq!(r.waypoints.last(), reference.waypoints.last());
            }
            if let Some(c) = &c {
                let (_, optimum) = astar_pixels(&grid, c.start_pixel, c.end_pixel).unwrap();
                let first = reference.waypoints[0];
                let last = *reference.waypoints.last().unwrap();
                let expected = optimum + centre_dist(first, c.start_pixel) + centre_dist(last, c.end_pixel);
                let got = length(&star.waypoints);
                prop_assert!(got <= expected + 1e-3, "A* walk {} > {}", got, expected);
                if !options.beautify {
                    prop_assert!((got - expected).abs() <= 1e-3 * (1.0 + expected),
                        "A* traced walk {} != optimum plus offsets {}", got, expected);
                }
                prop_assert!(star.stats.visited >= 1 && bfs.stats.visited >= 1);
            }
        }
    }

    /// Distance-field walks: legal, same endpoints and status as `find_path`; before
    /// shortcuts they have the same length as `find_path`'s traced walk (all are
    /// shortest for the fill's octile costs), and the shortcuts never lengthen them.
    ///
    /// Two beautified walks are not compared with each other: the shortcuts are a
    /// local heuristic, and two equally short traces of a room with doors can
    /// beautify to lengths 41.1 and 43.0 (a 46 x 16 room with three walls, found by
    /// this property). Both stay within 0.03 % of the octile optimum plus the
    /// endpoint offsets, which `fill_matches_astar` checks for `find_path`.
    #[test]
    fn distance_field_paths(sc in scenario()) {
        let grid = sc.case.grid();
        let reference = Pathfinder::new().find_path(&grid, sc.start, sc.goal).unwrap();
        let traced = Pathfinder::with_options(no_beautify()).find_path(&grid, sc.start, sc.goal).unwrap();
        let Some(c) = check_answer(&grid, &sc, &reference, "find_path")? else { return Ok(()) };
        let from_start = DistanceField::new(&grid, c.start_pixel).expect("walkable start pixel");
        let to_end = DistanceField::new(&grid, c.end_pixel).expect("walkable end pixel");
        let straight = reference.waypoints.len() <= 2;
        let traced_len = length(&traced.waypoints);
        for options in [PathOptions::default(), no_beautify()] {
            let a = from_start.path_to(sc.start, sc.goal, &options).unwrap();
            let b = to_end.path_from(sc.start, sc.goal, &options).unwrap();
            for (name, r) in [("path_to", &a), ("path_from", &b)] {
                check_answer(&grid, &sc, r, name)?;
                prop_assert_eq!(r.status, reference.status);
                prop_assert_eq!(r.waypoints.first(), reference.waypoints.first());
                prop_assert_eq!(r.waypoints.last(), reference.waypoints.last());
                let len = length(&r.waypoints);
                if straight {
                    // The straight line was clear: every query answers with it.
                    prop_assert!(r.waypoints.len() <= 2, "{} {:?}", name, r.waypoints);
                } else if options.beautify {
                    prop_assert!(len <= traced_len + 1e-3, "{} length {} over the traced {}",
                        name, len, traced_len);
                } else {
                    // Same cost in the fill's units; the true lengths of two such walks
                    // can differ only by multiples of 41 - 29 sqrt(2) (in 1/29 px).
                    prop_assert!((len - traced_len).abs() <= 1e-3 * (1.0 + len) + 0.02,
                        "{} traced length {} vs find_path's {}", name, len, traced_len);
                }
            }
        }
    }

    /// NaN, infinite and outside points are errors, never panics, in every query.
    #[test]
    fn bad_points_are_errors(sc in scenario(), which in 0usize..20, on_start in any::<bool>(), on_x in any::<bool>()) {
        let grid = sc.case.grid();
        let (w, h) = (grid.width() as f32, grid.height() as f32);
        let n = if on_x { w } else { h };
        let bad_values = [
            f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.5, -1e-30, -f32::MIN_POSITIVE,
            n, n + 0.25, n.next_up(), 1e30, f32::MAX, f32::MIN, -1.0, 2.0 * n, n + 1.0,
            -f32::NAN, 1e9, -1e9, f32::MIN_POSITIVE - 1.0, n * 4.0,
        ];
        let v = bad_values[which];
        let bend = |p: Point| if on_x { Point::new(v, p.y) } else { Point::new(p.x, v) };
        let (start, goal) = if on_start { (bend(sc.start), sc.goal) } else { (sc.start, bend(sc.goal)) };
        let options = PathOptions::default();
        prop_assert!(Pathfinder::new().find_path(&grid, start, goal).is_err());
        prop_assert!(Pathfinder::with_options(no_snap()).find_path(&grid, start, goal).is_err());
        prop_assert!(frontier_bfs(&grid, start, goal, &options).is_err());
        prop_assert!(astar(&grid, start, goal, &options).is_err());
        if let Some(field) = DistanceField::new(&grid, pixel(sc.start)) {
            prop_assert!(field.path_to(start, goal, &options).is_err());
            prop_assert!(field.path_from(start, goal, &options).is_err());
        }
        // The valid query on the same grid still answers.
        prop_assert!(Pathfinder::new().find_path(&grid, sc.start, sc.goal).is_ok());
    }
}
