//! What a game that runs for hours asks of the core: memory that does not creep
//! over many queries, snapping that stays fast however far the nearest reachable
//! pixel is, and answers that are right at the edges (ties, single-point paths).

mod support;

use proptest::prelude::*;
use support::Rng;
use walkmask::{AreaSet, NavGrid, PathOptions, PathStatus, Pathfinder, Point, WalkMask};

/// A room with scattered furniture and a few long walls with gaps.
fn furnished_room(width: u32, height: u32, seed: u64) -> NavGrid {
    let mut rng = Rng(seed);
    let mut areas = vec![1u8; (width * height) as usize];
    for _ in 0..(width * height / 400) {
        let (x, y) = (rng.below(width), rng.below(height));
        let (w, h) = (1 + rng.below(12), 1 + rng.below(12));
        for yy in y..(y + h).min(height) {
            for xx in x..(x + w).min(width) {
                areas[(yy * width + xx) as usize] = 0;
            }
        }
    }
    for i in 0..4 {
        let x = width * (i + 1) / 5;
        for y in 0..height {
            if y % 40 > 6 {
                areas[(y * width + x) as usize] = 0;
            }
        }
    }
    NavGrid::new(WalkMask::new(width, height, areas).unwrap(), AreaSet::all())
}

fn random_walkable(grid: &NavGrid, rng: &mut Rng) -> Point {
    loop {
        let (x, y) = (rng.below(grid.width()), rng.below(grid.height()));
        if grid.region(x, y).is_some() {
            return Point::new(x as f32 + 0.5, y as f32 + 0.5);
        }
    }
}

#[test]
fn pathfinder_memory_stays_within_a_fixed_factor_of_one_query() {
    let grid = furnished_room(240, 160, 7);
    let mut rng = Rng(11);
    let queries: Vec<(Point, Point)> = (0..10_000)
        .map(|_| {
            (
                random_walkable(&grid, &mut rng),
                random_walkable(&grid, &mut rng),
            )
        })
        .collect();
    // What one query holds: the most any single query leaves in a fresh pathfinder.
    let one_query = queries
        .iter()
        .step_by(25)
        .map(|&(a, b)| {
            let mut fresh = Pathfinder::new();
            fresh.find_path(&grid, a, b).unwrap();
            fresh.memory_bytes()
        })
        .max()
        .unwrap();
    let mut pathfinder = Pathfinder::new();
    let mut most = 0;
    for &(a, b) in &queries {
        let path = pathfinder.find_path(&grid, a, b).unwrap();
        assert!(path.is_walkable());
        most = most.max(pathfinder.memory_bytes());
    }
    println!(
        "one query: {} KiB, most after any of 10,000: {} KiB",
        one_query / 1024,
        most / 1024
    );
    assert!(
        most * 2 <= one_query * 3,
        "memory grew to {most} bytes over 10,000 queries, one query holds {one_query}"
    );
}

#[test]
fn a_single_point_path_has_a_length_of_positive_zero() {
    let grid = furnished_room(40, 40, 3);
    let p = random_walkable(&grid, &mut Rng(5));
    let path = Pathfinder::new().find_path(&grid, p, p).unwrap();
    assert_eq!(path.waypoints, [p]);
    assert_eq!(path.length.to_bits(), 0.0f32.to_bits(), "{}", path.length);
}

/// A one-row Moving AI map.
fn row_map(row: &str) -> NavGrid {
    let text = format!("type octile\nheight 1\nwidth {}\nmap\n{row}\n", row.len());
    NavGrid::new(WalkMask::parse_movingai(&text).unwrap(), AreaSet::all())
}

#[test]
fn a_blocked_start_between_equally_near_pixels_steps_toward_the_goal() {
    let grid = row_map(".@.");
    for snap in [true, false] {
        let options = PathOptions {
            snap_destination: snap,
            ..PathOptions::default()
        };
        let mut pathfinder = Pathfinder::with_options(options);
        // From the wall to the right cell, and to the left cell.
        for (goal, first) in [(2.5, 2.5), (0.5, 0.5)] {
            let path = pathfinder
                .find_path(&grid, Point::new(1.5, 0.5), Point::new(goal, 0.5))
                .unwrap();
            assert_eq!(path.status, PathStatus::Found, "snap {snap}, goal {goal}");
            assert!(path.start_moved);
            assert_eq!(path.waypoints.first().unwrap().x, first);
            assert_eq!(path.waypoints.last().unwrap().x, goal);
        }
    }
    // When the goal is blocked, the tie goes to the side whose region gets nearer.
    let grid = row_map(".@.@@");
    let path = Pathfinder::new()
        .find_path(&grid, Point::new(1.5, 0.5), Point::new(4.5, 0.5))
        .unwrap();
    assert_eq!(path.status, PathStatus::Snapped);
    assert_eq!(path.waypoints, [Point::new(2.5, 0.5)]);
}

#[test]
fn snapping_to_a_far_reachable_pixel_is_fast() {
    // 4096 x 4096, one walkable pixel in a corner; the click is in the far corner.
    let size = 4096u32;
    let mask = WalkMask::from_fn(size, size, |x, y| u8::from(x == 0 && y == 0)).unwrap();
    let grid = NavGrid::new(mask, AreaSet::all());
    let mut pathfinder = Pathfinder::new();
    let far = Point::new(size as f32 - 0.5, size as f32 - 0.5);
    let started = std::time::Instant::now();
    for _ in 0..20 {
        let path = pathfinder
            .find_path(&grid, Point::new(0.5, 0.5), far)
            .unwrap();
        assert_eq!(path.status, PathStatus::Snapped);
        assert_eq!(path.waypoints, [Point::new(0.5, 0.5)]);
        // And a blocked start that far away moves to the one pixel.
        let path = pathfinder
            .find_path(&grid, far, Point::new(0.5, 0.5))
            .unwrap();
        assert_eq!(path.status, PathStatus::Found);
        assert_eq!(path.waypoints, [Point::new(0.5, 0.5)]);
    }
    let each = started.elapsed() / 40;
    println!("far snap on {size} x {size}: {each:?} per query");
}

/// The nearest pixel to `p` (Euclidean, to pixel centres) accepted by `accept`, by
/// brute force; all pixels at that distance.
fn nearest_by_brute_force(
    grid: &NavGrid,
    p: Point,
    accept: impl Fn(u32, u32) -> bool,
) -> Vec<(u32, u32)> {
    let mut best: Option<f64> = None;
    let mut all = Vec::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            if !accept(x, y) {
                continue;
            }
            let d = (x as f64 + 0.5 - p.x as f64).powi(2) + (y as f64 + 0.5 - p.y as f64).powi(2);
            match best {
                Some(b) if d > b => {}
                Some(b) if d == b => all.push((x, y)),
                _ => {
                    best = Some(d);
                    all = vec![(x, y)];
                }
            }
        }
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Snapping picks a reachable pixel at exactly the nearest distance, near or far.
    #[test]
    fn snapping_finds_the_nearest_reachable_pixel(
        width in 1u32..40,
        height in 1u32..40,
        seed in any::<u64>(),
        density in 0u32..100,
        sx in 0.0f32..1.0, sy in 0.0f32..1.0, gx in 0.0f32..1.0, gy in 0.0f32..1.0,
    ) {
        let mut rng = Rng(seed);
        let mask = WalkMask::from_fn(width, height, |_, _| u8::from(rng.below(100) >= density)).unwrap();
        let grid = NavGrid::new(mask, AreaSet::all());
        let clamp = |v: f32, n: u32| (v * n as f32).min(n as f32 - 0.001);
        let start = Point::new(clamp(sx, width), clamp(sy, height));
        let goal = Point::new(clamp(gx, width), clamp(gy, height));
        let path = Pathfinder::new().find_path(&grid, start, goal).unwrap();
        let walkable = |x: u32, y: u32| grid.region(x, y).is_some();
        if path.status == PathStatus::Unreachable {
            prop_assert!(nearest_by_brute_force(&grid, start, walkable).is_empty());
            return Ok(());
        }
        let first = path.waypoints[0].pixel().unwrap();
        let region = grid.region(first.0, first.1).unwrap();
        if path.start_moved {
            let nearest = nearest_by_brute_force(&grid, start, walkable);
            prop_assert!(nearest.contains(&first), "start moved to {:?}, nearest {:?}", first, nearest);
        }
        let last = path.waypoints.last().unwrap().pixel().unwrap();
        if path.status == PathStatus::Snapped {
            let nearest = nearest_by_brute_force(&grid, goal, |x, y| grid.region(x, y) == Some(region));
            prop_assert!(nearest.contains(&last), "snapped to {:?}, nearest {:?}", last, nearest);
        }
        support::check_path_strict(&grid, &path.waypoints).map_err(TestCaseError::fail)?;
    }
}
