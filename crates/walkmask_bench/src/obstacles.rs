//! Obstacles and clearance side by side: the same clicks on the room masks with no
//! obstacle, among 20 character-sized obstacles (`Pathfinder::find_path_among`), and
//! on a grid widened for a walker of 14 px (`NavGrid::with_clearance`), with the
//! time to widen the grid.

use std::time::Instant;
use walkmask::subgoal::IndexPolicy;

use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
use walkmask::{NavGrid, Pathfinder, Point};

use crate::masks;
use crate::report::{fmt_us, median};
use crate::rng::Rng;

/// A walker's radius for the clearance column, pixels.
const RADIUS: f32 = 14.0;
/// Obstacles in the room.
const OBSTACLES: usize = 20;

/// A walkable point of `grid`.
fn walkable_point(grid: &NavGrid, rng: &mut Rng) -> Point {
    loop {
        let (x, y) = (
            rng.below(grid.width() as u64) as u32,
            rng.below(grid.height() as u64) as u32,
        );
        if grid.is_walkable(x, y) {
            return Point::pixel_center(x, y);
        }
    }
}

/// Character-sized obstacles (ellipses of 20 to 40 by 8 to 16 px, some circles) on
/// walkable points of `grid`.
fn characters(grid: &NavGrid, rng: &mut Rng) -> Obstacles {
    let mut obstacles = Obstacles::new(grid);
    while obstacles.len() < OBSTACLES {
        let at = walkable_point(grid, rng);
        let footprint = if rng.below(4) == 0 {
            Footprint::Circle {
                radius: 10.0 + rng.below(10) as f32,
            }
        } else {
            Footprint::Ellipse {
                radius_x: 20.0 + rng.below(20) as f32,
                radius_y: 8.0 + rng.below(8) as f32,
            }
        };
        obstacles
            .push(Obstacle::new(at, footprint))
            .expect("finite sizes");
    }
    obstacles
}

/// Median microseconds of `query` over `pairs`.
fn time(pairs: &[(Point, Point)], mut query: impl FnMut(Point, Point)) -> f64 {
    let mut samples: Vec<f64> = pairs
        .iter()
        .map(|&(a, b)| {
            let started = Instant::now();
            query(a, b);
            started.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    median(&samples).unwrap_or(f64::NAN)
}

/// Runs every case and prints one table.
pub fn run(quick: bool) {
    let queries = if quick { 100 } else { 400 };
    println!(
        "\nObstacles and clearance (median per query over the same {queries} clicks; {OBSTACLES} character-sized obstacles; radius {RADIUS} px; each grid with its subgoal index, as the plugin prepares it):"
    );
    println!(
        "| mask | no obstacles | {OBSTACLES} obstacles off the mask (the overlay alone) | among {OBSTACLES} obstacles | widening the grid (once) | its index (once) | on the widened grid |\n|---|---|---|---|---|---|---|"
    );
    let sizes: &[(u32, u32)] = if quick {
        &[(1920, 1080)]
    } else {
        &[(1920, 1080), (3840, 2160)]
    };
    for &(w, h) in sizes {
        let mask = masks::room(w, h, 7);
        let grid = masks::grid_of(&mask);
        grid.build_index(IndexPolicy::WhenItPays);
        let mut rng = Rng::new(11);
        let obstacles = characters(&grid, &mut rng);
        let pairs: Vec<(Point, Point)> = (0..queries)
            .map(|_| {
                (
                    walkable_point(&grid, &mut rng),
                    walkable_point(&grid, &mut rng),
                )
            })
            .collect();
        let mut pathfinder = Pathfinder::new();
        let plain = time(&pairs, |a, b| {
            std::hint::black_box(pathfinder.find_path(&grid, a, b).ok());
        });
        let among = time(&pairs, |a, b| {
            std::hint::black_box(pathfinder.find_path_among(&grid, &obstacles, a, b).ok());
        });
        // The same obstacles moved off the mask: every query pays the overlay (the bit
        // test in the fill and the line of sight) but no walk goes round anything.
        let mut aside = Obstacles::new(&grid);
        for o in obstacles.obstacles() {
            let away = Point::new(o.center.x - 1e5, o.center.y);
            aside
                .push(Obstacle::new(away, o.footprint))
                .expect("finite");
        }
        let overlay_only = time(&pairs, |a, b| {
            std::hint::black_box(pathfinder.find_path_among(&grid, &aside, a, b).ok());
        });
        let started = Instant::now();
        let wide =
            NavGrid::with_clearance(mask.clone(), grid.areas(), RADIUS).expect("a valid radius");
        let widening = started.elapsed().as_secs_f64() * 1e6;
        let started = Instant::now();
        wide.build_index(IndexPolicy::WhenItPays);
        let indexing = started.elapsed().as_secs_f64() * 1e6;
        let on_wide = time(&pairs, |a, b| {
            std::hint::black_box(pathfinder.find_path(&wide, a, b).ok());
        });
        println!(
            "| room {w} x {h} | {} | {} ({:.2}x) | {} ({:.2}x) | {} | {} | {} ({:.2}x) |",
            fmt_us(Some(plain)),
            fmt_us(Some(overlay_only)),
            overlay_only / plain,
            fmt_us(Some(among)),
            among / plain,
            fmt_us(Some(widening)),
            fmt_us(Some(indexing)),
            fmt_us(Some(on_wide)),
            on_wide / plain,
        );
    }
}
