//! Snapping side by side: the edge index of `walkmask::snap` against the ring search
//! it replaced (`walkmask::baseline::nearest_by_rings`), on the worst cases (one
//! reachable pixel at the far end of a huge mask) and on clicks on furniture in a
//! room.

use std::time::Instant;

use walkmask::baseline::nearest_by_rings;
use walkmask::snap::{SnapTarget, nearest_pixels};
use walkmask::{AreaSet, NavGrid, Point, WalkMask};

use crate::masks;
use crate::report::{fmt_us, median};
use crate::rng::Rng;

/// One case: a grid, the points to snap and the target region.
struct Case {
    name: String,
    grid: NavGrid,
    points: Vec<Point>,
    region: u32,
}

/// A mask with one walkable pixel at (0, 0), clicked from the far corner.
fn one_pixel(width: u32, height: u32) -> Case {
    let mask = WalkMask::from_fn(width, height, |x, y| u8::from(x == 0 && y == 0))
        .expect("within the default limits");
    let grid = NavGrid::new(mask, AreaSet::all());
    Case {
        name: format!("{width} x {height}, one walkable pixel, far corner"),
        points: vec![Point::new(width as f32 - 0.5, height as f32 - 0.5)],
        region: grid.region(0, 0).expect("walkable"),
        grid,
    }
}

/// Clicks on blocked pixels of the 1080p room, snapped into its largest region.
fn room_clicks(count: usize) -> Case {
    let grid = masks::grid_of(&masks::room(1920, 1080, 7));
    let region = (1..=grid.region_count())
        .max_by_key(|&r| {
            (0..grid.height())
                .step_by(8)
                .flat_map(|y| (0..grid.width()).step_by(8).map(move |x| (x, y)))
                .filter(|&(x, y)| grid.region(x, y) == Some(r))
                .count()
        })
        .expect("the room has regions");
    let mut rng = Rng::new(5);
    let mut points = Vec::new();
    while points.len() < count {
        let (x, y) = (
            rng.below(grid.width() as u64) as u32,
            rng.below(grid.height() as u64) as u32,
        );
        if grid.region(x, y) != Some(region) {
            points.push(Point::new(x as f32 + 0.25, y as f32 + 0.75));
        }
    }
    Case {
        name: "1920 x 1080 room, clicks off the floor".into(),
        grid,
        points,
        region,
    }
}

/// Median microseconds per snap of `snap` over the case's points, `reps` times.
fn time(case: &Case, reps: usize, mut snap: impl FnMut(Point) -> Option<(u32, u32)>) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..reps {
        for &p in &case.points {
            let started = Instant::now();
            std::hint::black_box(snap(p));
            samples.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    samples.sort_by(f64::total_cmp);
    median(&samples).unwrap_or(f64::NAN)
}

/// Runs every case and prints one table.
pub fn run(quick: bool) {
    let mut cases = vec![room_clicks(if quick { 200 } else { 2000 })];
    cases.push(one_pixel(8192, 8192));
    if !quick {
        cases.push(one_pixel(16384, 4096));
    }
    println!("\nSnapping to the nearest reachable pixel (median per snap):");
    println!("| case | edge index | ring search | ring search / edge index |\n|---|---|---|---|");
    for case in &cases {
        // Both must answer alike (equally near pixels aside).
        for &p in &case.points {
            let ours = nearest_pixels(&case.grid, p, SnapTarget::Region(case.region));
            let rings = nearest_by_rings(&case.grid, p, |l| l == case.region);
            assert!(
                rings.is_some_and(|r| ours.contains(&r)),
                "{}: snaps disagree at {p:?}",
                case.name
            );
        }
        let reps = if case.points.len() > 1 {
            1
        } else if quick {
            3
        } else {
            10
        };
        let ours = time(case, reps, |p| {
            nearest_pixels(&case.grid, p, SnapTarget::Region(case.region))
                .first()
                .copied()
        });
        let rings = time(case, reps, |p| {
            nearest_by_rings(&case.grid, p, |l| l == case.region)
        });
        println!(
            "| {} | {} | {} | {:.0}x |",
            case.name,
            fmt_us(Some(ours)),
            fmt_us(Some(rings)),
            rings / ours
        );
    }
}
