//! Property tests of walker clearance and obstacles over random masks.
//!
//! - A grid with clearance keeps exactly the pixels its definition keeps (brute
//!   force over every blocked pixel centre), and every point of every path on it
//!   keeps the radius minus half a pixel from every blocked pixel centre; a walker
//!   too wide for the floor it stands on steps off in a straight line over the
//!   floor.
//! - Obstacles block exactly the pixels within reach of their footprints, and a
//!   query among obstacles answers as a query on a copy of the mask with those
//!   pixels painted blocked (the oracle), except that obstacles covering the start
//!   are ignored; its paths are legal on the mask and never come nearer than the
//!   clearance to a footprint.
//! - Local detours ([`ObstacleDetours::Local`]) answer with the status and ends of
//!   the shortest path among the same obstacles, along a path legal on the oracle;
//!   in a furnished room among walkers their walks stay close to the shortest.

mod support;

use proptest::prelude::*;
use walkmask::fill::{CARDINAL, DIAGONAL};
use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
use walkmask::query::resolve_endpoints;
use walkmask::subgoal::IndexPolicy;
use walkmask::{
    AreaSet, DistanceField, NavGrid, ObstacleDetours, PathOptions, PathStatus, Pathfinder, Point,
    WalkMask,
};

use support::cases::{Scenario, scenario};
use support::{Rng, check_path_strict, length};

/// Cases per property.
const CASES: u32 = 3000;

/// [`CASES`] cases per property, or `PROPTEST_CASES` when set.
fn config() -> ProptestConfig {
    support::cases::config(CASES)
}

/// Centres of the pixels a walker must keep clear of: blocked or disabled pixels
/// and the ring of pixels round the mask.
fn blocked_centres(grid: &NavGrid) -> Vec<(f64, f64)> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let mut out = Vec::new();
    for y in -1..=h {
        for x in -1..=w {
            if !support::walkable(grid, x, y) {
                out.push((x as f64 + 0.5, y as f64 + 0.5));
            }
        }
    }
    out
}

/// Distance from point `c` to the segment `a b`.
fn segment_distance(a: Point, b: Point, c: (f64, f64)) -> f64 {
    let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
    let (dx, dy) = (bx - ax, by - ay);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((c.0 - ax) * dx + (c.1 - ay) * dy) / len2).clamp(0.0, 1.0)
    };
    (ax + t * dx - c.0).hypot(ay + t * dy - c.1)
}

/// A radius in quarter pixels from 0 to 4.
fn radius() -> impl Strategy<Value = f32> {
    (0u32..=16).prop_map(|q| q as f32 / 4.0)
}

fn clearance_grid(sc: &Scenario, radius: f32) -> NavGrid {
    let mask = WalkMask::new(sc.case.w, sc.case.h, sc.case.cells.clone()).unwrap();
    NavGrid::with_clearance(mask, sc.case.areas, radius).unwrap()
}

/// Up to four obstacles of every shape, centred anywhere in (or just outside) the
/// mask, sized up to a third of it.
fn obstacles_for(grid: &NavGrid, seed: u64) -> Obstacles {
    let mut rng = Rng(seed);
    let mut obstacles = Obstacles::new(grid);
    let (w, h) = (grid.width(), grid.height());
    let size = |rng: &mut Rng, n: u32| rng.below(n * 40 / 3 + 2) as f32 / 10.0;
    for _ in 0..rng.below(5) {
        let center = Point::new(
            rng.below(w * 10 + 20) as f32 / 10.0 - 1.0,
            rng.below(h * 10 + 20) as f32 / 10.0 - 1.0,
        );
        let footprint = match rng.below(3) {
            0 => Footprint::Rect {
                half_width: size(&mut rng, w),
                half_height: size(&mut rng, h),
            },
            1 => Footprint::Circle {
                radius: size(&mut rng, w.min(h)),
            },
            _ => Footprint::Ellipse {
                radius_x: size(&mut rng, w),
                radius_y: size(&mut rng, h),
            },
        };
        obstacles.push(Obstacle::new(center, footprint)).unwrap();
    }
    obstacles
}

/// The oracle: a mask where a pixel is walkable when `grid` (with its clearance)
/// has it walkable and no obstacle but those covering `except` blocks it.
fn baked(grid: &NavGrid, obstacles: &Obstacles, except: Option<(u32, u32)>) -> NavGrid {
    let ignored: Vec<usize> = (0..obstacles.len())
        .filter(|&i| except.is_some_and(|(x, y)| obstacles.obstacle_blocks(i, x, y)))
        .collect();
    let mask = WalkMask::from_fn(grid.width(), grid.height(), |x, y| {
        let by_obstacle = (0..obstacles.len())
            .any(|i| !ignored.contains(&i) && obstacles.obstacle_blocks(i, x, y));
        u8::from(grid.is_walkable(x, y) && !by_obstacle)
    })
    .unwrap();
    NavGrid::new(mask, AreaSet::all())
}

/// The length of the shortest route from `start` to `goal` that walks to its start
/// pixel's centre, along 8-neighbour steps between pixel centres (a diagonal only
/// where both pixels beside it are open), and on to the end, with the ends the query
/// resolves. A taut path is never longer.
fn shortest_grid_route(grid: &NavGrid, start: Point, goal: Point) -> f64 {
    let ends = resolve_endpoints(grid, start, goal, &PathOptions::default())
        .unwrap()
        .expect("a path was found");
    let field = DistanceField::new(grid, ends.end_pixel).expect("walkable end");
    let cost = field
        .distance(ends.start_pixel.0, ends.start_pixel.1)
        .expect("the start reaches the end");
    let gap = |p: Point, (x, y): (u32, u32)| squared_gap(p, Point::pixel_center(x, y)).sqrt();
    // A diagonal step costs 41/29 of a straight one, a little under √2.
    let per_cost = std::f64::consts::SQRT_2 / DIAGONAL as f64;
    cost as f64 * per_cost.max(1.0 / CARDINAL as f64)
        + gap(ends.start, ends.start_pixel)
        + gap(ends.end, ends.end_pixel)
}

fn squared_gap(p: Point, q: Point) -> f64 {
    ((p.x - q.x) as f64).powi(2) + ((p.y - q.y) as f64).powi(2)
}

proptest! {
    #![proptest_config(config())]

    /// The grid keeps a pixel exactly when it is walkable and its centre is at least
    /// `radius + (√2 − 1)/2` from every blocked pixel centre.
    #[test]
    fn clearance_grid_keeps_exactly_the_pixels_far_enough(sc in scenario(), r in radius()) {
        let plain = sc.case.grid();
        let wide = clearance_grid(&sc, r);
        let centres = blocked_centres(&plain);
        let least = r as f64 + walkmask::clearance::PIXEL_SLACK;
        for y in 0..plain.height() {
            for x in 0..plain.width() {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                let d2 = centres
                    .iter()
                    .map(|&(bx, by)| (bx - cx).powi(2) + (by - cy).powi(2))
                    .fold(f64::INFINITY, f64::min);
                let expected = plain.is_walkable(x, y) && d2 >= least * least;
                prop_assert_eq!(wide.is_walkable(x, y), expected, "pixel ({}, {}) radius {}", x, y, r);
            }
        }
    }

    /// Every point of every path on a grid with clearance keeps at least the radius
    /// minus half a pixel from every blocked pixel centre, and the path is legal on
    /// the mask. A destination the wide walker can reach is reached exactly.
    #[test]
    fn paths_keep_their_clearance(sc in scenario(), r in radius(), index in any::<bool>()) {
        let plain = sc.case.grid();
        let wide = clearance_grid(&sc, r);
        if index {
            wide.build_index(IndexPolicy::Always);
        }
        let result = Pathfinder::new().find_path(&wide, sc.start, sc.goal).unwrap();
        if result.status == PathStatus::Unreachable {
            // Nothing walkable, or a walker boxed in where it does not fit.
            let boxed_in = sc.start.pixel().is_some_and(|(x, y)| wide.is_floor(x, y))
                && walkmask::snap::nearest_step_off(&wide, sc.start).is_none();
            prop_assert!(wide.walkable_count() == 0 || boxed_in, "unreachable with walkable pixels left");
            return Ok(());
        }
        if let Err(e) = check_path_strict(&plain, &result.waypoints) {
            return Err(TestCaseError::fail(format!("illegal path {:?}: {e}", result.waypoints)));
        }
        // A walker too wide for the floor it stands on steps off it in a straight
        // line over the floor, never through a wall.
        let on_floor = sc.start.pixel().is_some_and(|(x, y)| plain.is_walkable(x, y));
        if on_floor {
            let first = result.waypoints[0];
            prop_assert!(
                walkmask::los::line_of_sight(&plain, sc.start, first),
                "stepped off {:?} to {:?} through a wall (radius {})", sc.start, first, r
            );
        }
        let centres = blocked_centres(&plain);
        let least = r as f64 - 0.5 - 1e-4;
        let segments: Vec<(Point, Point)> = match result.waypoints.as_slice() {
            [p] => vec![(*p, *p)],
            w => w.windows(2).map(|s| (s[0], s[1])).collect(),
        };
        for (a, b) in segments {
            for &c in &centres {
                let d = segment_distance(a, b, c);
                prop_assert!(d >= least, "segment {:?} -> {:?} passes {} from blocked centre {:?} (radius {})", a, b, d, c, r);
            }
        }
        let start_ok = sc.start.pixel().is_some_and(|(x, y)| wide.is_walkable(x, y));
        if start_ok && wide.connected(sc.start, sc.goal) {
            prop_assert_eq!(result.status, PathStatus::Found);
            prop_assert_eq!(result.waypoints.last(), Some(&sc.goal));
        }
    }

    /// Obstacles block exactly the pixels whose centres are nearer to the footprint
    /// than the clearance plus half a pixel diagonal.
    #[test]
    fn obstacles_block_the_pixels_within_reach(sc in scenario(), r in radius(), seed in any::<u64>()) {
        let grid = clearance_grid(&sc, r);
        let obstacles = obstacles_for(&grid, seed);
        let reach = r as f64 + std::f64::consts::FRAC_1_SQRT_2;
        for (i, o) in obstacles.obstacles().iter().enumerate() {
            for y in 0..grid.height() {
                for x in 0..grid.width() {
                    let d = o.footprint.distance(
                        x as f64 + 0.5 - o.center.x as f64,
                        y as f64 + 0.5 - o.center.y as f64,
                    );
                    // Within 1e-9 of the reach either answer is right.
                    if (d - reach).abs() > 1e-9 {
                        prop_assert_eq!(obstacles.obstacle_blocks(i, x, y), d < reach, "{:?} pixel ({}, {}) distance {}", o, x, y, d);
                    }
                }
            }
        }
    }

    /// Walkability read from the byte per pixel agrees with the region labels, with
    /// clearance and obstacles: a pixel is walkable exactly where it has a region.
    #[test]
    fn walkable_pixels_are_those_with_a_region(sc in scenario(), r in radius(), seed in any::<u64>()) {
        let plain = clearance_grid(&sc, r);
        let blocked = plain.with_obstacles(&obstacles_for(&plain, seed));
        for grid in [&plain, &blocked] {
            for y in 0..grid.height() + 1 {
                for x in 0..grid.width() + 1 {
                    let centre = Point::new(x as f32 + 0.5, y as f32 + 0.5);
                    prop_assert_eq!(grid.is_walkable(x, y), grid.region(x, y).is_some(), "pixel ({}, {})", x, y);
                    prop_assert_eq!(grid.walkable_at(centre), grid.is_walkable(x, y), "pixel ({}, {})", x, y);
                }
            }
            prop_assert!(!grid.walkable_at(Point::new(f32::NAN, 0.5)));
            prop_assert!(!grid.walkable_at(Point::new(-0.5, 0.5)));
        }
    }

    /// A query among obstacles answers as a query on the mask with the obstacles
    /// painted in: the same status, an end equally near the destination, and a path
    /// no longer than the shortest grid route there; its segments are legal on that
    /// painted mask, so they never enter a footprint.
    /// With the subgoal index, its path is kept only when no obstacle blocks it.
    #[test]
    fn queries_among_obstacles_match_the_painted_mask(sc in scenario(), r in radius(), seed in any::<u64>(), index in any::<bool>()) {
        let grid = clearance_grid(&sc, r);
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        let obstacles = obstacles_for(&grid, seed);
        answers_as_on_the_painted_mask(&grid, &obstacles, &sc, ObstacleDetours::Shortest)?;
    }

    /// A destination that characters cover or close in: one character on it (in
    /// the middle of its footprint or off it), or several standing round it, often
    /// overlapping into a ring with a pocket inside. Answered as on the painted mask
    /// (the nearest reachable pixel is looked for round the destination first), with
    /// the shortest way round characters or local detours.
    #[test]
    fn covered_and_closed_in_destinations_match_the_painted_mask(
        sc in scenario(),
        r in radius(),
        seed in any::<u64>(),
        index in any::<bool>(),
        local in any::<bool>(),
        size in 1u32..60,
        off in (-20i32..=20, -20i32..=20),
        ring in (1usize..7, 0u32..60, any::<u8>()),
    ) {
        let grid = clearance_grid(&sc, r);
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        let mut obstacles = obstacles_for(&grid, seed);
        let center = Point::new(sc.goal.x + off.0 as f32 / 10.0, sc.goal.y + off.1 as f32 / 10.0);
        let (count, spread, turn) = ring;
        for k in 0..count {
            let angle = (k as f32 + turn as f32 / 256.0) * std::f32::consts::TAU / count as f32;
            let d = spread as f32 / 10.0;
            let at = Point::new(center.x + d * angle.cos(), center.y + d * angle.sin());
            obstacles
                .push(Obstacle::new(at, Footprint::Circle { radius: size as f32 / 10.0 }))
                .unwrap();
        }
        answers_as_on_the_painted_mask(&grid, &obstacles, &sc, detours(local))?;
    }

    /// In an open room, characters standing round the destination (often closing it
    /// in), a start anywhere: answered as on the painted mask, with the shortest way
    /// round them or local detours. Most cases here take the outward search for the
    /// nearest reachable pixel, ties included.
    #[test]
    fn closed_in_destinations_in_an_open_room_match_the_painted_mask(
        w in 8u32..72,
        h in 8u32..72,
        start in (0u32..720, 0u32..720),
        goal in (0u32..720, 0u32..720),
        index in any::<bool>(),
        local in any::<bool>(),
        size in 5u32..60,
        ring in (2usize..8, 0u32..80, any::<u8>()),
    ) {
        let case = support::cases::Case {
            kind: "open",
            w,
            h,
            cells: vec![1; (w * h) as usize],
            areas: AreaSet::all(),
        };
        let at = |(x, y): (u32, u32)| Point::new((x % (w * 10)) as f32 / 10.0, (y % (h * 10)) as f32 / 10.0);
        let sc = Scenario { case, start: at(start), goal: at(goal) };
        let grid = clearance_grid(&sc, 0.0);
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        let mut obstacles = Obstacles::new(&grid);
        let (count, spread, turn) = ring;
        for k in 0..count {
            let angle = (k as f32 + turn as f32 / 256.0) * std::f32::consts::TAU / count as f32;
            let d = spread as f32 / 10.0;
            let at = Point::new(sc.goal.x + d * angle.cos(), sc.goal.y + d * angle.sin());
            obstacles
                .push(Obstacle::new(at, Footprint::Circle { radius: size as f32 / 10.0 }))
                .unwrap();
        }
        answers_as_on_the_painted_mask(&grid, &obstacles, &sc, detours(local))?;
    }
}

/// Local detours when `local`, else the shortest way round obstacles.
fn detours(local: bool) -> ObstacleDetours {
    if local {
        ObstacleDetours::Local
    } else {
        ObstacleDetours::Shortest
    }
}

/// A query among `obstacles` answers as a query on the mask with them painted in
/// (see `queries_among_obstacles_match_the_painted_mask`).
fn answers_as_on_the_painted_mask(
    grid: &NavGrid,
    obstacles: &Obstacles,
    sc: &Scenario,
    detours: ObstacleDetours,
) -> Result<(), TestCaseError> {
    let except = sc
        .start
        .pixel()
        .filter(|&(x, y)| x < grid.width() && y < grid.height());
    let oracle = baked(grid, obstacles, except);
    let mut pathfinder = Pathfinder::with_options(PathOptions {
        obstacle_detours: detours,
        ..PathOptions::default()
    });
    let ours = pathfinder
        .find_path_among(grid, obstacles, sc.start, sc.goal)
        .unwrap();
    // A walker too wide for the floor it stands on steps off it over the floor,
    // which the oracle's mask no longer tells apart from walls (see
    // `paths_keep_their_clearance`): only its path's legality is checked here.
    let squeezed = sc
        .start
        .pixel()
        .is_some_and(|(x, y)| grid.is_floor(x, y) && !grid.is_walkable(x, y));
    if squeezed {
        if ours.status != PathStatus::Unreachable
            && let Err(e) = check_path_strict(&oracle, &ours.waypoints)
        {
            return Err(TestCaseError::fail(format!(
                "path {:?} crosses an obstacle or wall: {e}",
                ours.waypoints
            )));
        }
        return Ok(());
    }
    let theirs = Pathfinder::new()
        .find_path(&oracle, sc.start, sc.goal)
        .unwrap();
    prop_assert_eq!(
        ours.status,
        theirs.status,
        "ours {:?} theirs {:?}",
        ours.waypoints,
        theirs.waypoints
    );
    prop_assert_eq!(ours.start_moved, theirs.start_moved);
    if ours.status == PathStatus::Unreachable {
        return Ok(());
    }
    if let Err(e) = check_path_strict(&oracle, &ours.waypoints) {
        return Err(TestCaseError::fail(format!(
            "path {:?} crosses an obstacle or wall: {e}",
            ours.waypoints
        )));
    }
    let (a, b) = (ours.waypoints[0], theirs.waypoints[0]);
    prop_assert!(
        (squared_gap(a, sc.start) - squared_gap(b, sc.start)).abs() < 1e-6,
        "starts {:?} vs {:?}",
        a,
        b
    );
    let (a, b) = (
        *ours.waypoints.last().unwrap(),
        *theirs.waypoints.last().unwrap(),
    );
    prop_assert!(
        (squared_gap(a, sc.goal) - squared_gap(b, sc.goal)).abs() < 1e-6,
        "ends {:?} vs {:?}",
        a,
        b
    );
    // Both walks are no longer than the shortest 8-neighbour route on the painted
    // mask (local detours go round each obstacle by the shorter side nearby, which is
    // not always shortest overall: their lengths are bounded in
    // `local_detours_stay_close_to_the_shortest_walk_in_a_room`). Their lengths
    // are not compared with each other: where two routes round different sides of a
    // wall tie on the grid, the index and the fill may take different ones, and
    // pulled taut those differ in length.
    let bound = shortest_grid_route(&oracle, sc.start, sc.goal);
    let bounded: &[(&str, &Vec<Point>)] = match detours {
        ObstacleDetours::Shortest => &[("ours", &ours.waypoints), ("theirs", &theirs.waypoints)],
        ObstacleDetours::Local => &[("theirs", &theirs.waypoints)],
    };
    for &(who, path) in bounded {
        let walked = length(path);
        prop_assert!(
            walked <= bound + 1e-3 * (path.len() as f64 + 1.0),
            "{} walks {} where the grid route is {}: {:?}",
            who,
            walked,
            bound,
            path
        );
    }
    // The bits are cleared after the query: the same pathfinder answers the plain
    // grid as a fresh one does.
    let after = pathfinder.find_path(grid, sc.start, sc.goal).unwrap();
    let fresh = Pathfinder::new()
        .find_path(grid, sc.start, sc.goal)
        .unwrap();
    prop_assert_eq!(after.waypoints, fresh.waypoints);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Testing a walk against one obstacle row by row, without its pixels, answers
    /// as the obstacle's pixels do: every obstacle of every shape, clearance, mask
    /// size, walk (points anywhere in or near the mask) and standing pixel.
    #[test]
    fn a_walk_meets_an_obstacle_as_its_pixels_say(
        w in 1u32..48,
        h in 1u32..48,
        r in radius(),
        seed in any::<u64>(),
        points in proptest::collection::vec((-60i32..600, -60i32..600), 1..5),
        standing in proptest::option::of((0u32..50, 0u32..50)),
    ) {
        let grid = NavGrid::with_clearance(WalkMask::from_fn(w, h, |_, _| 1).unwrap(), AreaSet::all(), r).unwrap();
        let path: Vec<Point> = points
            .iter()
            .map(|&(x, y)| Point::new(x as f32 / 10.0, y as f32 / 10.0))
            .collect();
        let all = obstacles_for(&grid, seed);
        for (i, obstacle) in all.obstacles().iter().enumerate() {
            let mut one = Obstacles::new(&grid);
            one.push_from(&all, i);
            let by_pixels = one.first_on_path(&path, standing).is_some();
            let by_rows = obstacle.blocks_walk(&path, w, h, grid.clearance(), standing);
            prop_assert_eq!(by_rows, by_pixels, "{:?} along {:?} standing on {:?}", obstacle, path, standing);
        }
    }
}

/// A pathfinder that walks round obstacles locally.
fn local_detours() -> Pathfinder {
    Pathfinder::with_options(PathOptions {
        obstacle_detours: ObstacleDetours::Local,
        ..PathOptions::default()
    })
}

proptest! {
    #![proptest_config(config())]

    /// A query with local detours answers as the shortest query among the same
    /// obstacles does (status, whether the start moved, ends equally near the
    /// requested points), along a path legal on the oracle's painted mask: it never
    /// enters a footprint or a wall.
    #[test]
    fn local_detours_end_as_the_shortest_path_does(sc in scenario(), r in radius(), seed in any::<u64>()) {
        let grid = clearance_grid(&sc, r);
        grid.build_index(IndexPolicy::Always);
        let obstacles = obstacles_for(&grid, seed);
        let except = sc.start.pixel().filter(|&(x, y)| x < grid.width() && y < grid.height());
        let oracle = baked(&grid, &obstacles, except);
        let ours = local_detours().find_path_among(&grid, &obstacles, sc.start, sc.goal).unwrap();
        let shortest = Pathfinder::new().find_path_among(&grid, &obstacles, sc.start, sc.goal).unwrap();
        prop_assert_eq!(ours.status, shortest.status, "ours {:?} shortest {:?}", ours.waypoints, shortest.waypoints);
        prop_assert_eq!(ours.start_moved, shortest.start_moved);
        if ours.status == PathStatus::Unreachable {
            return Ok(());
        }
        let squeezed = sc.start.pixel().is_some_and(|(x, y)| grid.is_floor(x, y) && !grid.is_walkable(x, y));
        if !squeezed && let Err(e) = check_path_strict(&oracle, &ours.waypoints) {
            return Err(TestCaseError::fail(format!("path {:?} crosses an obstacle or wall: {e}", ours.waypoints)));
        }
        let (a, b) = (ours.waypoints[0], shortest.waypoints[0]);
        prop_assert!((squared_gap(a, sc.start) - squared_gap(b, sc.start)).abs() < 1e-6, "starts {:?} vs {:?}", a, b);
        let (a, b) = (*ours.waypoints.last().unwrap(), *shortest.waypoints.last().unwrap());
        prop_assert!((squared_gap(a, sc.goal) - squared_gap(b, sc.goal)).abs() < 1e-6, "ends {:?} vs {:?}", a, b);
    }
}

/// In a furnished room among walker-sized discs, local detours walk round the
/// walkers (most blocked clicks are answered without the fill), along paths legal
/// on the painted mask, ending where the shortest paths end, and close to them in
/// length: within 1 % on average and 15 % at most over the seeded clicks.
#[test]
fn local_detours_stay_close_to_the_shortest_walk_in_a_room() {
    let (w, h) = (640u32, 360u32);
    let mut rng = Rng(0x5eed_1234);
    // Furniture: 24 rectangles away from a 20-pixel border.
    let mut furniture = Vec::new();
    for _ in 0..24 {
        let (x, y) = (20 + rng.below(w - 80), 20 + rng.below(h - 60));
        furniture.push((x, y, x + 8 + rng.below(50), y + 8 + rng.below(30)));
    }
    let mask = WalkMask::from_fn(w, h, |x, y| {
        u8::from(
            !furniture
                .iter()
                .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y)),
        )
    })
    .unwrap();
    let grid = NavGrid::with_clearance(mask, AreaSet::all(), 4.0).unwrap();
    grid.build_index(IndexPolicy::Always);
    let point = |rng: &mut Rng| loop {
        let (x, y) = (rng.below(w), rng.below(h));
        if grid.is_walkable(x, y) {
            break Point::pixel_center(x, y);
        }
    };
    let mut obstacles = Obstacles::new(&grid);
    for _ in 0..30 {
        let at = point(&mut rng);
        obstacles
            .push(Obstacle::new(at, Footprint::Circle { radius: 5.0 }))
            .unwrap();
    }
    // Walkers start outside every footprint, so one painted mask serves every click.
    let oracle = baked(&grid, &obstacles, None);
    let (mut local, mut shortest) = (local_detours(), Pathfinder::new());
    let (mut compared, mut detoured, mut sum, mut worst) = (0usize, 0usize, 0.0f64, 1.0f64);
    let mut fell_back = 0usize;
    for _ in 0..300 {
        let start = loop {
            let p = point(&mut rng);
            let (x, y) = p.pixel().unwrap();
            if oracle.is_walkable(x, y) {
                break p;
            }
        };
        let goal = point(&mut rng);
        let ours = local
            .find_path_among(&grid, &obstacles, start, goal)
            .unwrap();
        let best = shortest
            .find_path_among(&grid, &obstacles, start, goal)
            .unwrap();
        assert_eq!(ours.status, best.status, "{start:?} -> {goal:?}");
        if ours.status == PathStatus::Unreachable {
            continue;
        }
        if let Err(e) = check_path_strict(&oracle, &ours.waypoints) {
            panic!("{start:?} -> {goal:?}: {e}: {:?}", ours.waypoints);
        }
        assert_eq!(
            ours.waypoints.last(),
            best.waypoints.last(),
            "{start:?} -> {goal:?}"
        );
        if ours.stats.local_detours > 0 {
            detoured += 1;
            // Walked round locally, not filled; the shortest query filled instead.
            assert!(
                !ours.stats.filled && best.stats.filled,
                "{start:?} -> {goal:?}"
            );
        }
        fell_back += usize::from(ours.stats.filled);
        if best.length > 0.0 {
            let ratio = f64::from(ours.length) / f64::from(best.length);
            compared += 1;
            sum += ratio;
            worst = worst.max(ratio);
        }
    }
    let mean = sum / compared as f64;
    assert!(
        detoured >= 30,
        "only {detoured} clicks were walked round locally"
    );
    assert!(
        fell_back * 10 <= detoured,
        "{fell_back} clicks filled, {detoured} walked round locally"
    );
    assert!(mean <= 1.01, "mean length ratio {mean}");
    assert!(worst <= 1.15, "worst length ratio {worst}");
}

/// Two characters that touch can walk apart: a walker standing inside another's
/// footprint ignores that footprint, and only that one.
#[test]
fn a_walker_inside_a_footprint_walks_out_of_it() {
    let grid = NavGrid::new(WalkMask::from_fn(40, 20, |_, _| 1).unwrap(), AreaSet::all());
    let mut obstacles = Obstacles::new(&grid);
    let guard = Footprint::Circle { radius: 4.0 };
    obstacles
        .push(Obstacle::new(Point::new(10.0, 10.0), guard))
        .unwrap();
    obstacles
        .push(Obstacle::new(Point::new(25.0, 10.0), guard))
        .unwrap();
    let r = Pathfinder::new()
        .find_path_among(
            &grid,
            &obstacles,
            Point::new(11.0, 10.5),
            Point::new(38.5, 10.5),
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Found);
    assert_eq!(r.waypoints[0], Point::new(11.0, 10.5));
    // Round the second guard, not through it.
    let oracle = baked(&grid, &obstacles, Some((11, 10)));
    check_path_strict(&oracle, &r.waypoints).unwrap();
    assert!(r.waypoints.len() > 2);
}

/// A click on a character walks to the nearest reachable point beside it.
#[test]
fn a_click_on_an_obstacle_walks_up_to_it() {
    let grid = NavGrid::new(WalkMask::from_fn(60, 30, |_, _| 1).unwrap(), AreaSet::all());
    let mut obstacles = Obstacles::new(&grid);
    obstacles
        .push(Obstacle::new(
            Point::new(40.0, 15.0),
            Footprint::Ellipse {
                radius_x: 6.0,
                radius_y: 3.0,
            },
        ))
        .unwrap();
    let r = Pathfinder::new()
        .find_path_among(
            &grid,
            &obstacles,
            Point::new(5.5, 15.5),
            Point::new(40.0, 15.0),
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Snapped);
    let end = *r.waypoints.last().unwrap();
    // Just above or below the ellipse (3 px from its centre, plus under a pixel
    // diagonal), at the nearest open pixel there is.
    let goal = Point::new(40.0, 15.0);
    let nearest = (0..30u32)
        .flat_map(|y| (0..60u32).map(move |x| (x, y)))
        .filter(|&(x, y)| !obstacles.blocks(x, y))
        .map(|(x, y)| squared_gap(Point::pixel_center(x, y), goal))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(squared_gap(end, goal), nearest, "{end:?}");
    assert!(end.distance(goal) < 4.5, "{end:?}");
}

/// A guard in a doorway closes it; the walker goes the long way round, or, with no
/// other way, walks up to the guard and reports the destination snapped.
#[test]
fn a_guard_in_the_only_door_cuts_the_room() {
    // A wall at x = 20 with a door at y 8..12.
    let mask = WalkMask::from_fn(40, 20, |x, y| u8::from(x != 20 || (8..12).contains(&y))).unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    let mut obstacles = Obstacles::new(&grid);
    obstacles
        .push(Obstacle::new(
            Point::new(20.5, 10.0),
            Footprint::Rect {
                half_width: 1.0,
                half_height: 3.0,
            },
        ))
        .unwrap();
    let goal = Point::new(35.5, 10.5);
    let r = Pathfinder::new()
        .find_path_among(&grid, &obstacles, Point::new(3.5, 10.5), goal)
        .unwrap();
    assert_eq!(r.status, PathStatus::Snapped);
    assert!(r.waypoints.last().unwrap().x < 20.0);
    // Without the guard the door is open.
    let r = Pathfinder::new()
        .find_path(&grid, Point::new(3.5, 10.5), goal)
        .unwrap();
    assert_eq!(r.status, PathStatus::Found);
}

/// A local detour that finds no way round within its budget (a guard in the near
/// door, the other door far away) counts the pixels its fill settled in the query's:
/// the query then settles more than the shortest mode's, which tries no detour, and
/// answers the same, through the far door.
#[test]
fn pixels_settled_by_a_detour_that_fails_are_counted() {
    let doors = |y: u32| (10..18).contains(&y) || (380..388).contains(&y);
    let mask = WalkMask::from_fn(400, 400, |x, y| u8::from(x != 200 || doors(y))).unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    grid.build_index(IndexPolicy::Always);
    let mut obstacles = Obstacles::new(&grid);
    obstacles
        .push(Obstacle::new(
            Point::new(200.5, 14.0),
            Footprint::Rect {
                half_width: 1.0,
                half_height: 5.0,
            },
        ))
        .unwrap();
    let (start, goal) = (Point::new(100.5, 14.5), Point::new(300.5, 14.5));
    let local = local_detours()
        .find_path_among(&grid, &obstacles, start, goal)
        .unwrap();
    let shortest = Pathfinder::new()
        .find_path_among(&grid, &obstacles, start, goal)
        .unwrap();
    assert_eq!(local.status, PathStatus::Found);
    assert!(
        local.waypoints.iter().any(|p| p.y > 380.0),
        "through the far door"
    );
    assert_eq!(local.waypoints, shortest.waypoints);
    assert_eq!(local.stats.local_detours, 0);
    assert!(local.stats.filled);
    assert!(
        local.stats.visited > shortest.stats.visited + 10_000,
        "local {} shortest {}",
        local.stats.visited,
        shortest.stats.visited
    );
}

/// A walker that others stand round in a large room, sent across it, walks to the
/// point of its pocket nearest the destination, and the search finds the pocket
/// closed without filling the room (with the subgoal index or without).
#[test]
fn a_walker_closed_in_by_others_is_answered_within_its_pocket() {
    let grid = NavGrid::new(
        WalkMask::from_fn(1024, 1024, |_, _| 1).unwrap(),
        AreaSet::all(),
    );
    let start = Point::new(500.5, 500.5);
    let mut obstacles = Obstacles::new(&grid);
    // Twelve walkers of radius 6, their centres 12 px round the start: each overlaps
    // the next.
    for k in 0..12 {
        let angle = k as f32 * std::f32::consts::TAU / 12.0;
        let at = Point::new(start.x + 12.0 * angle.cos(), start.y + 12.0 * angle.sin());
        obstacles
            .push(Obstacle::new(at, Footprint::Circle { radius: 6.0 }))
            .unwrap();
    }
    let goal = Point::new(900.5, 500.5);
    for index in [false, true] {
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        let r = Pathfinder::new()
            .find_path_among(&grid, &obstacles, start, goal)
            .unwrap();
        assert_eq!(r.status, PathStatus::Snapped, "index {index}");
        let end = *r.waypoints.last().unwrap();
        assert!(
            end.distance(start) < 7.0 && end.x > start.x,
            "index {index}: {end:?}"
        );
        assert!(!obstacles.blocks(end.x as u32, end.y as u32));
        assert!(r.stats.visited < 20_000, "index {index}: {:?}", r.stats);
    }
}

/// The query among `obstacles` from `start` to `goal`, checked against the same
/// query on `oracle` (the mask with them painted in): snapped, to an end equally
/// near `goal`, along a path legal on the oracle.
fn snaps_as_on_the_painted_mask(
    grid: &NavGrid,
    obstacles: &Obstacles,
    oracle: &NavGrid,
    start: Point,
    goal: Point,
) -> walkmask::PathResult {
    let theirs = Pathfinder::new().find_path(oracle, start, goal).unwrap();
    let r = Pathfinder::new()
        .find_path_among(grid, obstacles, start, goal)
        .unwrap();
    assert_eq!(r.status, PathStatus::Snapped, "{start:?}");
    let (end, their_end) = (
        *r.waypoints.last().unwrap(),
        *theirs.waypoints.last().unwrap(),
    );
    assert_eq!(
        squared_gap(end, goal),
        squared_gap(their_end, goal),
        "{start:?}: {end:?}"
    );
    check_path_strict(oracle, &r.waypoints).unwrap();
    r
}

/// A click on a character standing across a large room walks up to it, without a
/// fill over the room.
#[test]
fn a_click_on_a_character_across_a_room_walks_up_to_it() {
    let grid = NavGrid::new(
        WalkMask::from_fn(1024, 1024, |_, _| 1).unwrap(),
        AreaSet::all(),
    );
    let mut obstacles = Obstacles::new(&grid);
    // Two characters side by side; the click lands on the first, off its centre.
    for at in [Point::new(902.0, 501.0), Point::new(917.0, 504.0)] {
        obstacles
            .push(Obstacle::new(at, Footprint::Circle { radius: 9.0 }))
            .unwrap();
    }
    let (start, goal) = (Point::new(100.5, 300.5), Point::new(905.3, 502.7));
    let oracle = baked(&grid, &obstacles, None);
    for index in [false, true] {
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        let r = snaps_as_on_the_painted_mask(&grid, &obstacles, &oracle, start, goal);
        assert_eq!(r.waypoints[0], start);
        if index {
            assert!(r.stats.visited < 100_000, "{:?}", r.stats);
        }
    }
}

/// `count` characters of footprint radius `radius` standing in a ring 100 px round
/// `center`.
fn ring_of_characters(grid: &NavGrid, center: Point, count: usize, radius: f32) -> Obstacles {
    let mut obstacles = Obstacles::new(grid);
    for k in 0..count {
        let angle = k as f32 * std::f32::consts::TAU / count as f32;
        let at = Point::new(
            center.x + 100.0 * angle.cos(),
            center.y + 100.0 * angle.sin(),
        );
        obstacles
            .push(Obstacle::new(at, Footprint::Circle { radius }))
            .unwrap();
    }
    obstacles
}

/// An open 1024 x 1024 room, a spot in it, and three characters whose footprints
/// overlap round a small hole at the spot.
fn a_spot_closed_in_across_a_room() -> (NavGrid, Point, Obstacles) {
    let grid = NavGrid::new(
        WalkMask::from_fn(1024, 1024, |_, _| 1).unwrap(),
        AreaSet::all(),
    );
    let spot = Point::new(700.3, 500.6);
    let mut obstacles = Obstacles::new(&grid);
    for k in 0..3 {
        let angle = k as f32 * std::f32::consts::TAU / 3.0 + 0.4;
        let at = Point::new(spot.x + 11.0 * angle.cos(), spot.y + 11.0 * angle.sin());
        obstacles
            .push(Obstacle::new(at, Footprint::Circle { radius: 9.0 }))
            .unwrap();
    }
    (grid, spot, obstacles)
}

/// A click on a spot that characters close in, across a large room, walks to the
/// reachable point nearest to it, and the search does not fill the room to find
/// where: the pixels round the spot are tried nearest first, passing over those the
/// closed-in fill settled. From either side of the spot (the fill runs from the end
/// with the higher pixel index), with the subgoal index or without.
#[test]
fn a_closed_in_spot_across_a_room_is_answered_without_filling_it() {
    let (grid, goal, obstacles) = a_spot_closed_in_across_a_room();
    let oracle = baked(&grid, &obstacles, None);
    let hole = goal.pixel().unwrap();
    assert!(
        oracle.is_walkable(hole.0, hole.1),
        "the goal is open, in its hole"
    );
    for index in [false, true] {
        if index {
            grid.build_index(IndexPolicy::Always);
        }
        for start in [Point::new(100.5, 100.5), Point::new(300.5, 900.5)] {
            let r = snaps_as_on_the_painted_mask(&grid, &obstacles, &oracle, start, goal);
            let end = *r.waypoints.last().unwrap();
            assert!(end.distance(goal) > 5.0, "outside the characters: {end:?}");
            // The room has 1,048,576 pixels.
            assert!(
                r.stats.visited < 100_000,
                "index {index}, {start:?}: {:?}",
                r.stats
            );
        }
    }
}

/// As the plugin queries (the subgoal index, local detours), a click on a spot that
/// characters close in, across a room, settles only pixels near the spot: the
/// spot's own pocket, then the pixels round it tried nearest first, the first of
/// them reached by the straight line. No fill looks for a pocket round the start,
/// or round a pixel that an ordinary query reaches without one. From either side of
/// the spot (the fill runs from the end with the higher pixel index).
#[test]
fn a_closed_in_spot_is_answered_by_pixels_near_it() {
    let (grid, goal, obstacles) = a_spot_closed_in_across_a_room();
    grid.build_index(IndexPolicy::Always);
    let oracle = baked(&grid, &obstacles, None);
    for start in [Point::new(100.5, 100.5), Point::new(300.5, 900.5)] {
        let mut pathfinder = local_detours();
        let r = pathfinder
            .find_path_among(&grid, &obstacles, start, goal)
            .unwrap();
        let theirs = Pathfinder::new().find_path(&oracle, start, goal).unwrap();
        assert_eq!(r.status, PathStatus::Snapped);
        let (ours_end, their_end) = (
            *r.waypoints.last().unwrap(),
            *theirs.waypoints.last().unwrap(),
        );
        assert!(
            (squared_gap(ours_end, goal) - squared_gap(their_end, goal)).abs() < 1e-6,
            "{ours_end:?} vs {their_end:?}"
        );
        check_path_strict(&oracle, &r.waypoints).unwrap();
        assert!(r.stats.visited < 2_000, "{start:?}: {:?}", r.stats);
        assert!(!r.stats.filled);
    }
}

/// A click inside a ring of characters too wide for the pixels tried round the
/// click is answered with the nearest reachable pixel all the same, by a fill from
/// the start, from either side of the ring.
#[test]
fn a_click_inside_a_wide_ring_of_characters_walks_up_to_the_ring() {
    let grid = NavGrid::new(
        WalkMask::from_fn(1024, 1024, |_, _| 1).unwrap(),
        AreaSet::all(),
    );
    grid.build_index(IndexPolicy::Always);
    let goal = Point::new(500.5, 500.5);
    let obstacles = ring_of_characters(&grid, goal, 30, 14.0);
    let oracle = baked(&grid, &obstacles, None);
    for start in [Point::new(100.5, 100.5), Point::new(900.5, 900.5)] {
        let r = snaps_as_on_the_painted_mask(&grid, &obstacles, &oracle, start, goal);
        let end = *r.waypoints.last().unwrap();
        assert!(end.distance(goal) > 100.0, "outside the ring: {end:?}");
        assert!(r.stats.filled);
    }
}

/// Bad obstacles and radii are refused with an error.
#[test]
fn bad_sizes_are_refused() {
    let grid = NavGrid::new(WalkMask::from_fn(4, 4, |_, _| 1).unwrap(), AreaSet::all());
    let mut obstacles = Obstacles::new(&grid);
    let circle = |radius| Footprint::Circle { radius };
    assert!(
        obstacles
            .push(Obstacle::new(Point::new(f32::NAN, 1.0), circle(1.0)))
            .is_err()
    );
    assert!(
        obstacles
            .push(Obstacle::new(Point::new(1.0, 1.0), circle(-1.0)))
            .is_err()
    );
    assert!(
        obstacles
            .push(Obstacle::new(Point::new(1.0, 1.0), circle(f32::INFINITY)))
            .is_err()
    );
    assert!(obstacles.is_empty());
    // A huge footprint far outside blocks nothing and costs nothing.
    obstacles
        .push(Obstacle::new(Point::new(1e30, -1e30), circle(1e20)))
        .unwrap();
    assert!(!obstacles.blocks(0, 0));
    let mask = WalkMask::from_fn(4, 4, |_, _| 1).unwrap();
    assert!(NavGrid::with_clearance(mask.clone(), AreaSet::all(), f32::NAN).is_err());
    assert!(NavGrid::with_clearance(mask.clone(), AreaSet::all(), -0.5).is_err());
    // A radius wider than the room leaves nothing walkable, and queries say so.
    let wide = NavGrid::with_clearance(mask, AreaSet::all(), 1e9).unwrap();
    assert_eq!(wide.walkable_count(), 0);
    let r = Pathfinder::new()
        .find_path(&wide, Point::new(1.5, 1.5), Point::new(2.5, 2.5))
        .unwrap();
    assert_eq!(r.status, PathStatus::Unreachable);
}

/// The obstacle on a path is found, and one the path keeps clear of is not.
#[test]
fn obstacles_on_a_path_are_found() {
    let mut obstacles = Obstacles::for_size(100, 50, 2.0);
    obstacles
        .push(Obstacle::new(
            Point::new(50.0, 25.0),
            Footprint::Circle { radius: 5.0 },
        ))
        .unwrap();
    obstacles
        .push(Obstacle::new(
            Point::new(80.0, 10.0),
            Footprint::Rect {
                half_width: 3.0,
                half_height: 2.0,
            },
        ))
        .unwrap();
    let across = [Point::new(10.5, 25.5), Point::new(90.5, 25.5)];
    assert_eq!(obstacles.first_on_path(&across, None), Some(0));
    // Standing inside the circle: it is ignored.
    assert_eq!(obstacles.first_on_path(&across, Some((50, 25))), None);
    let above = [
        Point::new(10.5, 15.5),
        Point::new(60.5, 15.5),
        Point::new(70.5, 3.0),
    ];
    // 9.5 px above the circle's centre: out of its reach (5 + 2 + 0.71).
    assert_eq!(obstacles.first_on_path(&above, None), None);
    let to_the_box = [Point::new(60.5, 15.5), Point::new(80.0, 13.5)];
    assert_eq!(obstacles.first_on_path(&to_the_box, None), Some(1));
}

/// The quick box test never misses a segment that the obstacle's pixels meet.
#[test]
fn the_box_test_never_misses_a_meeting() {
    let mut rng = Rng(7);
    for _ in 0..3000 {
        let clearance = rng.below(8) as f32 / 2.0;
        let mut obstacles = Obstacles::for_size(60, 60, clearance);
        let center = Point::new(rng.below(600) as f32 / 10.0, rng.below(600) as f32 / 10.0);
        let size = |rng: &mut Rng| rng.below(150) as f32 / 10.0;
        let footprint = match rng.below(3) {
            0 => Footprint::Circle {
                radius: size(&mut rng),
            },
            1 => Footprint::Rect {
                half_width: size(&mut rng),
                half_height: size(&mut rng),
            },
            _ => Footprint::Ellipse {
                radius_x: size(&mut rng),
                radius_y: size(&mut rng),
            },
        };
        let obstacle = Obstacle::new(center, footprint);
        obstacles.push(obstacle).unwrap();
        let p =
            |rng: &mut Rng| Point::new(rng.below(600) as f32 / 10.0, rng.below(600) as f32 / 10.0);
        let (a, b) = (p(&mut rng), p(&mut rng));
        if obstacles.first_on_path(&[a, b], None).is_some() {
            assert!(
                obstacle.near_segment(a, b, clearance),
                "{obstacle:?} {a:?} {b:?}"
            );
        }
    }
}
