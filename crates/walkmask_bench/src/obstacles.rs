//! Obstacles and clearance side by side: the time to work out one footprint's
//! pixels by shape; local detours against the shortest path among walkers; clicks
//! on spots characters close in or cover; the same
//! clicks on the room masks with no obstacle, among 20 character-sized obstacles
//! (`Pathfinder::find_path_among`), and on a grid widened for a walker of 14 px
//! (`NavGrid::with_clearance`), with the time to widen the grid.

use std::time::Instant;
use walkmask::subgoal::IndexPolicy;

use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
use walkmask::{NavGrid, ObstacleDetours, PathOptions, PathStatus, Pathfinder, Point, WalkMask};
use walkmask_demo_assets::synthetic;

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

/// Walkers in the detour comparison: the frame-cost harbour's solid walkers.
const HARBOUR_CHARACTERS: usize = 75;
/// Their radius and the walker's, pixels (the frame-cost harbour's).
const HARBOUR_RADIUS: f32 = 10.0;

/// [`HARBOUR_CHARACTERS`] walker-sized discs of radius [`HARBOUR_RADIUS`] on walkable
/// points of `grid`.
fn walkers(grid: &NavGrid, rng: &mut Rng) -> Obstacles {
    let mut walkers = Obstacles::new(grid);
    while walkers.len() < HARBOUR_CHARACTERS {
        let at = walkable_point(grid, rng);
        walkers
            .push(Obstacle::new(
                at,
                Footprint::Circle {
                    radius: HARBOUR_RADIUS,
                },
            ))
            .expect("finite sizes");
    }
    walkers
}

/// The percentile `p` (0 to 1) of sorted samples.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Working out one obstacle's pixels for walkers of radius 10 on a 4K mask (what a
/// search does for every obstacle that moved since the last one), by footprint,
/// against a circle of the same width.
fn footprint_pixels(quick: bool) {
    let count = if quick { 2_000 } else { 20_000 };
    println!(
        "\nObstacle pixels (one footprint at a time on a 3840 x 2160 mask for walkers of radius {HARBOUR_RADIUS} px, {count} random sub-pixel centres; median of 5 rounds, µs per footprint):"
    );
    println!("| footprint | µs per footprint | against the circle of its width |\n|---|---|---|");
    let shapes = [
        ("circle radius 10", Footprint::Circle { radius: 10.0 }),
        (
            "ellipse 10 x 5",
            Footprint::Ellipse {
                radius_x: 10.0,
                radius_y: 5.0,
            },
        ),
        (
            "ellipse 14 x 6",
            Footprint::Ellipse {
                radius_x: 14.0,
                radius_y: 6.0,
            },
        ),
        (
            "ellipse 30 x 3",
            Footprint::Ellipse {
                radius_x: 30.0,
                radius_y: 3.0,
            },
        ),
    ];
    let mut rng = Rng::new(5);
    let centres: Vec<Point> = (0..count)
        .map(|_| {
            Point::new(
                rng.range(40.0, 3800.0) as f32,
                rng.range(40.0, 2120.0) as f32,
            )
        })
        .collect();
    let time = |footprint: Footprint| {
        let mut rounds: Vec<f64> = (0..5)
            .map(|_| {
                let started = Instant::now();
                let mut pixels = 0usize;
                for &at in &centres {
                    let mut one = Obstacles::for_size(3840, 2160, HARBOUR_RADIUS);
                    one.push(Obstacle::new(at, footprint))
                        .expect("finite sizes");
                    pixels += usize::from(one.blocks(at.x as u32, at.y as u32));
                }
                assert_eq!(pixels, centres.len(), "every centre is covered");
                started.elapsed().as_secs_f64() * 1e6 / centres.len() as f64
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        rounds[2]
    };
    for (name, footprint) in shapes {
        let (width, _) = footprint.half_extent();
        let circle = time(Footprint::Circle {
            radius: width as f32,
        });
        let us = time(footprint);
        println!("| {name} | {us:.2} | {:.2}x |", us / circle);
    }
}

/// Local detours against the shortest path among obstacles, side by side on the same
/// clicks: on the 4K harbour and the 4K room with a walker's clearance, among
/// walker-sized discs, the clicks whose index path the walkers block.
fn detours(quick: bool) {
    let clicks = if quick { 100 } else { 400 };
    println!(
        "\nDetours among {HARBOUR_CHARACTERS} walkers of radius {HARBOUR_RADIUS} px (grid widened by the same radius, with its index; the clicks whose index path a walker blocks, out of {clicks} random clicks; µs per query median / p99 / max; length of the local detour's walk over the shortest one's):"
    );
    println!(
        "| mask | blocked clicks | shortest (fill) | local detours | median ratio | length ratio mean / max | local fell back to the fill |\n|---|---|---|---|---|---|---|"
    );
    let masks: Vec<(&str, WalkMask)> = vec![
        (
            "harbour 3840 x 2160",
            WalkMask::new(3840, 2160, synthetic::harbour(3840, 2160, 7)).expect("valid size"),
        ),
        ("room 3840 x 2160", masks::room(3840, 2160, 7)),
    ];
    for (name, mask) in masks {
        let grid = NavGrid::with_clearance(mask, walkmask::AreaSet::all(), HARBOUR_RADIUS)
            .expect("a valid radius");
        grid.build_index(IndexPolicy::WhenItPays);
        let mut rng = Rng::new(23);
        let obstacles = walkers(&grid, &mut rng);
        let mut shortest = Pathfinder::new();
        let mut local = Pathfinder::with_options(PathOptions {
            obstacle_detours: ObstacleDetours::Local,
            ..PathOptions::default()
        });
        // A pathfinder grows its fill buffer to the mask on its first fill (tens of
        // milliseconds at 4K, once): done before the timed queries.
        for pathfinder in [&mut shortest, &mut local] {
            for _ in 0..100 {
                let (a, b) = (
                    walkable_point(&grid, &mut rng),
                    walkable_point(&grid, &mut rng),
                );
                let answer = pathfinder
                    .find_path_among(&grid, &obstacles, a, b)
                    .expect("valid points");
                if answer.stats.filled || answer.stats.local_detours > 0 {
                    break;
                }
            }
        }
        let (mut fill_us, mut local_us, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let mut fell_back = 0usize;
        for _ in 0..clicks {
            let (a, b) = (
                walkable_point(&grid, &mut rng),
                walkable_point(&grid, &mut rng),
            );
            let plain = shortest.find_path(&grid, a, b).expect("valid points");
            let started = Instant::now();
            let exact = shortest
                .find_path_among(&grid, &obstacles, a, b)
                .expect("valid points");
            let exact_us = started.elapsed().as_secs_f64() * 1e6;
            if exact.waypoints == plain.waypoints {
                continue; // no walker in the way
            }
            let started = Instant::now();
            let detour = local
                .find_path_among(&grid, &obstacles, a, b)
                .expect("valid points");
            local_us.push(started.elapsed().as_secs_f64() * 1e6);
            fill_us.push(exact_us);
            if detour.status != PathStatus::Unreachable && exact.length > 0.0 {
                ratios.push(f64::from(detour.length) / f64::from(exact.length));
            }
            if detour.stats.filled {
                fell_back += 1;
            }
        }
        fill_us.sort_by(f64::total_cmp);
        local_us.sort_by(f64::total_cmp);
        let cell = |v: &[f64]| {
            format!(
                "{} / {} / {}",
                fmt_us(Some(percentile(v, 0.5))),
                fmt_us(Some(percentile(v, 0.99))),
                fmt_us(v.last().copied())
            )
        };
        let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
        let max = ratios.iter().copied().fold(f64::NAN, f64::max);
        println!(
            "| {name} | {} | {} | {} | {:.3} | {mean:.4} / {max:.4} | {fell_back} |",
            fill_us.len(),
            cell(&fill_us),
            cell(&local_us),
            percentile(&local_us, 0.5) / percentile(&fill_us, 0.5),
        );
    }
}

/// Characters in a ring round each closed-in spot, their centres' distance from it
/// and their radius (pixels): with the walker's radius added, neighbours overlap and
/// leave a pocket of 10 px round the spot.
const RING: usize = 6;
const RING_DISTANCE: f32 = 30.0;

/// Clicks on spots that characters close in or cover, across the 4K harbour among
/// its walkers: time per query and pixels settled. The answer is the reachable point
/// nearest to the click; the pixels round it are tried nearest first rather than
/// filling the start's whole region to find it (`PathStats::filled` counts the
/// clicks that still filled).
fn closed_in(quick: bool) {
    let clicks = if quick { 20 } else { 100 };
    println!(
        "\nClosed-in and covered clicks in the harbour 3840 x 2160 among {HARBOUR_CHARACTERS} walkers of radius {HARBOUR_RADIUS} px (grid widened by the same radius, with its index, local detours; {clicks} clicks from random starts, each on a spot {RING} more characters ring, or on a character, and the same clicks without them; µs per query median / p99 / max; pixels settled, mean):"
    );
    println!(
        "| destination | clicks | snapped | µs per query | the same clicks left open | pixels settled | answered by a fill |\n|---|---|---|---|---|---|---|"
    );
    let mask = WalkMask::new(3840, 2160, synthetic::harbour(3840, 2160, 7)).expect("valid size");
    let grid = NavGrid::with_clearance(mask, walkmask::AreaSet::all(), HARBOUR_RADIUS)
        .expect("a valid radius");
    grid.build_index(IndexPolicy::WhenItPays);
    let mut rng = Rng::new(29);
    let walkers = walkers(&grid, &mut rng);
    let disc = Footprint::Circle {
        radius: HARBOUR_RADIUS,
    };
    // The first fill grows a pathfinder's buffer to the mask (once): one query by
    // the fill before the timed ones, which take local detours round walkers in the
    // way, as the plugin's queries do.
    let mut pathfinder = Pathfinder::with_options(PathOptions {
        use_index: false,
        ..PathOptions::default()
    });
    let (a, b) = (
        walkable_point(&grid, &mut rng),
        walkable_point(&grid, &mut rng),
    );
    let _ = pathfinder.find_path(&grid, a, b);
    pathfinder.set_options(PathOptions {
        obstacle_detours: ObstacleDetours::Local,
        ..PathOptions::default()
    });
    for ringed in [true, false] {
        let (mut us, mut open_us) = (Vec::new(), Vec::new());
        let (mut settled, mut snapped, mut filled) = (0usize, 0usize, 0usize);
        while us.len() < clicks {
            let (start, goal) = (
                walkable_point(&grid, &mut rng),
                walkable_point(&grid, &mut rng),
            );
            // The same click with the destination left open, for comparison; only
            // clicks that reach it then (one region, no walker on either end).
            let started = Instant::now();
            let open = pathfinder
                .find_path_among(&grid, &walkers, start, goal)
                .expect("valid points");
            if open.status != PathStatus::Found {
                continue;
            }
            open_us.push(started.elapsed().as_secs_f64() * 1e6);
            let mut obstacles = walkers.clone();
            if ringed {
                for k in 0..RING {
                    let angle = k as f32 * std::f32::consts::TAU / RING as f32;
                    let at = Point::new(
                        goal.x + RING_DISTANCE * angle.cos(),
                        goal.y + RING_DISTANCE * angle.sin(),
                    );
                    obstacles
                        .push(Obstacle::new(at, disc))
                        .expect("finite sizes");
                }
            } else {
                obstacles
                    .push(Obstacle::new(goal, disc))
                    .expect("finite sizes");
            }
            let started = Instant::now();
            let answer = pathfinder
                .find_path_among(&grid, &obstacles, start, goal)
                .expect("valid points");
            us.push(started.elapsed().as_secs_f64() * 1e6);
            settled += answer.stats.visited;
            snapped += usize::from(answer.status == PathStatus::Snapped);
            filled += usize::from(answer.stats.filled);
        }
        us.sort_by(f64::total_cmp);
        open_us.sort_by(f64::total_cmp);
        println!(
            "| {} | {clicks} | {snapped} | {} / {} / {} | {} / {} / {} | {:.0} | {filled} |",
            if ringed {
                "closed in by a ring"
            } else {
                "on a character"
            },
            fmt_us(Some(percentile(&us, 0.5))),
            fmt_us(Some(percentile(&us, 0.99))),
            fmt_us(us.last().copied()),
            fmt_us(Some(percentile(&open_us, 0.5))),
            fmt_us(Some(percentile(&open_us, 0.99))),
            fmt_us(open_us.last().copied()),
            settled as f64 / clicks as f64,
        );
    }
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

/// Runs every case and prints its tables.
pub fn run(quick: bool) {
    footprint_pixels(quick);
    detours(quick);
    closed_in(quick);
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
