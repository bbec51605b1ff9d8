//! Moving AI benchmark maps: for a sample of each map's scenarios, the walk from
//! start centre to goal centre is found, legal (checked independently of the crate's
//! line of sight) and at most 2 % longer than the scenario's optimal octile length.
//!
//! Reads the eight maps of the repository's `testdata/movingai`, and the full sets
//! from the folder `WALKMASK_DATA` names when it is set (`maps/<dir>/<map>.map` with
//! `scenarios/<dir>/<map>.map.scen`, and `gppc2012/<map>.map` with
//! `gppc2012/<map>.map.scen`). Run with `--nocapture` to see the mean and largest
//! ratio of length to optimum per map.
//!
//! The `wc3maps512` scenarios were made with water (`W`) passable from water, and
//! their optimal lengths are approximate; the mask reads water as blocked. There,
//! scenarios with an end on water are skipped and lengths are compared with the
//! A* optimum on the mask instead.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use walkmask::baseline::astar_pixels;
use walkmask::subgoal::IndexPolicy;
use walkmask::{AreaSet, DecodeRule, NavGrid, PathStatus, Pathfinder, Point, WalkMask};

use support::check_path_strict;

/// Allowed ratio of walk length to the optimal octile length: a taut any-angle walk
/// is never longer than the best 8-neighbour path.
const MAX_RATIO: f64 = 1.0;

/// Scenarios sampled from a map of 512 x 512 pixels; larger maps get
/// proportionally fewer (at least [`MIN_SAMPLES`]), smaller ones more (at most
/// [`MAX_SAMPLES`]).
const SAMPLES_512: usize = 48;
const MIN_SAMPLES: usize = 10;
const MAX_SAMPLES: usize = 96;

/// Maps up to this many pixels also check the baseline A* optimum against the
/// scenario's optimal length (it validates the map reading and the move rules).
const ASTAR_CHECK_PIXELS: usize = 300_000;

/// One line of a `.scen` file.
#[derive(Clone, Debug)]
struct Scenario {
    line: usize,
    width: u32,
    height: u32,
    start: (u32, u32),
    goal: (u32, u32),
    optimal: f64,
}

fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("version") {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 9 {
            return Err(format!(
                "line {}: expected 9 fields, got {:?}",
                i + 1,
                fields
            ));
        }
        let num = |k: usize| -> Result<u32, String> {
            fields[k]
                .parse()
                .map_err(|e| format!("line {}: field {k} {:?}: {e}", i + 1, fields[k]))
        };
        out.push(Scenario {
            line: i + 1,
            width: num(2)?,
            height: num(3)?,
            start: (num(4)?, num(5)?),
            goal: (num(6)?, num(7)?),
            optimal: fields[8]
                .parse()
                .map_err(|e| format!("line {}: optimal {:?}: {e}", i + 1, fields[8]))?,
        });
    }
    Ok(out)
}

/// Every map with its scenario file.
fn maps(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let scen_for = |dir: &Path, map: &Path| -> Option<PathBuf> {
        let name = map.file_name()?.to_str()?;
        let stem = map.file_stem()?.to_str()?;
        [format!("{name}.scen"), format!("{stem}.scen")]
            .into_iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file())
    };
    let map_files = |dir: &Path| -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "map"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("maps"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let scen_dir = root
            .join("scenarios")
            .join(dir.file_name().expect("a name"));
        for map in map_files(&dir) {
            match scen_for(&scen_dir, &map) {
                Some(scen) => out.push((map, scen)),
                None => println!("note: no scenarios for {}", map.display()),
            }
        }
    }
    let gppc = root.join("gppc2012");
    for map in map_files(&gppc) {
        match scen_for(&gppc, &map) {
            Some(scen) => out.push((map, scen)),
            None => println!("note: no scenarios for {}", map.display()),
        }
    }
    out
}

/// Map sets whose scenario lengths are approximate (see the module docs).
const APPROXIMATE_SETS: [&str; 1] = ["wc3maps512"];

/// What one map gave.
struct MapReport {
    name: String,
    size: (u32, u32),
    queries: usize,
    skipped: usize,
    mean_ratio: f64,
    max_ratio: f64,
    seconds: f64,
    failures: Vec<String>,
}

fn run_map(map_path: &Path, scen_path: &Path) -> MapReport {
    let started = Instant::now();
    let name = map_path
        .strip_prefix(map_path.parent().and_then(Path::parent).unwrap_or(map_path))
        .unwrap_or(map_path)
        .display()
        .to_string();
    let mut failures = Vec::new();
    let approximate = APPROXIMATE_SETS.iter().any(|set| name.starts_with(set));
    let mut skipped = 0;
    let report = |failures: Vec<String>, size, queries, skipped, mean_ratio, max_ratio| MapReport {
        name: name.clone(),
        size,
        queries,
        skipped,
        mean_ratio,
        max_ratio,
        seconds: started.elapsed().as_secs_f64(),
        failures,
    };
    let failed = |message: String| report(vec![message], (0, 0), 0, 0, 0.0, 0.0);
    let mask = match WalkMask::open(map_path, &DecodeRule::default()) {
        Ok(mask) => mask,
        Err(e) => return failed(format!("{name}: cannot read map: {e}")),
    };
    let scenarios = match std::fs::read_to_string(scen_path)
        .map_err(|e| e.to_string())
        .and_then(|text| parse_scenarios(&text))
    {
        Ok(s) if !s.is_empty() => s,
        Ok(_) => return failed(format!("{name}: no scenarios")),
        Err(e) => return failed(format!("{name}: bad scenario file: {e}")),
    };
    let size = (mask.width(), mask.height());
    let pixels = size.0 as usize * size.1 as usize;
    let grid = NavGrid::new(mask.clone(), AreaSet::all());
    let indexed = NavGrid::new(mask, AreaSet::all());
    indexed.build_index(IndexPolicy::Always);
    // Evenly spaced over the file, which is sorted by path length bucket, so short
    // and long paths are both sampled; the last scenario (the longest) is included.
    let wanted = (SAMPLES_512 * 512 * 512 / pixels.max(1)).clamp(MIN_SAMPLES, MAX_SAMPLES);
    let n = scenarios.len();
    let picks: Vec<&Scenario> = (0..wanted.min(n))
        .map(|k| &scenarios[(n - 1) - k * (n - 1) / wanted.min(n).max(2).saturating_sub(1).max(1)])
        .collect();
    let mut pathfinder = Pathfinder::new();
    let mut index_pathfinder = Pathfinder::new();
    let (mut sum, mut max, mut count) = (0.0f64, 0.0f64, 0usize);
    for s in picks {
        let at = format!("{name} line {}", s.line);
        if (s.width, s.height) != size {
            failures.push(format!(
                "{at}: scenario for {}x{}, map is {}x{}",
                s.width, s.height, size.0, size.1
            ));
            continue;
        }
        let on_mask = |(x, y): (u32, u32)| grid.is_walkable(x, y);
        if approximate && !(on_mask(s.start) && on_mask(s.goal)) {
            skipped += 1;
            continue;
        }
        let start = Point::pixel_center(s.start.0, s.start.1);
        let goal = Point::pixel_center(s.goal.0, s.goal.1);
        // The same query answered by the fill and by the subgoal index.
        let mut lengths = [0.0f64; 2];
        for (k, (grid, pathfinder, how)) in [
            (&grid, &mut pathfinder, "fill"),
            (&indexed, &mut index_pathfinder, "index"),
        ]
        .into_iter()
        .enumerate()
        {
            let at = format!("{at} ({how})");
            let r = match pathfinder.find_path(grid, start, goal) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{at}: error {e}"));
                    continue;
                }
            };
            if r.status != PathStatus::Found {
                failures.push(format!(
                    "{at}: status {:?} from {:?} to {:?}",
                    r.status, s.start, s.goal
                ));
                continue;
            }
            if r.waypoints.first() != Some(&start) || r.waypoints.last() != Some(&goal) {
                failures.push(format!("{at}: walk does not join the two centres"));
            }
            if let Err(e) = check_path_strict(grid, &r.waypoints) {
                failures.push(format!("{at}: illegal walk: {e}"));
            }
            lengths[k] = support::length(&r.waypoints);
        }
        let len = lengths[0].max(lengths[1]);
        let mut optimal = s.optimal;
        if approximate {
            match astar_pixels(&grid, s.start, s.goal) {
                Some((_, optimum)) => optimal = optimum,
                None => failures.push(format!("{at}: A* finds no path")),
            }
        } else if pixels <= ASTAR_CHECK_PIXELS {
            // Scenario lengths are printed with as few as 2 decimals.
            match astar_pixels(&grid, s.start, s.goal) {
                Some((_, optimum)) if (optimum - s.optimal).abs() <= 1e-5 * s.optimal + 0.006 => {}
                other => failures.push(format!(
                    "{at}: A* optimum {:?} differs from the scenario's {}",
                    other.map(|o| o.1),
                    s.optimal
                )),
            }
        }
        if len > MAX_RATIO * optimal + 1e-3 {
            failures.push(format!(
                "{at}: length {len:.4} over {MAX_RATIO} x optimal {optimal}"
            ));
        }
        if optimal > 0.0 {
            let ratio = len / optimal;
            sum += ratio;
            max = max.max(ratio);
            count += 1;
        }
    }
    let mean = if count > 0 { sum / count as f64 } else { 0.0 };
    failures.truncate(20);
    report(failures, size, count, skipped, mean, max)
}

#[test]
fn moving_ai_scenarios_are_found_legal_and_near_optimal() {
    let root = support::testdata().join("movingai");
    let jobs = maps(&root);
    assert_eq!(jobs.len(), 8, "the eight maps of {}", root.display());
    run_maps(jobs);
}

/// The full sets (29 maps up to 1550 x 1550), without the maps the test above runs.
#[test]
fn moving_ai_full_sets_are_found_legal_and_near_optimal() {
    let Some(data) = support::full_data("moving_ai_full_sets") else {
        return;
    };
    let root = data.join("movingai");
    let in_repo: Vec<PathBuf> = maps(&support::testdata().join("movingai"))
        .into_iter()
        .map(|(map, _)| map.file_name().expect("a name").into())
        .collect();
    let jobs: Vec<(PathBuf, PathBuf)> = maps(&root)
        .into_iter()
        .filter(|(map, _)| !in_repo.iter().any(|name| map.ends_with(name)))
        .collect();
    assert!(
        !jobs.is_empty(),
        "no Moving AI maps with scenarios under {}",
        root.display()
    );
    run_maps(jobs);
}

fn run_maps(jobs: Vec<(PathBuf, PathBuf)>) {
    let started = Instant::now();
    let next = Mutex::new(0usize);
    let reports = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let job = {
                        let mut next = next.lock().unwrap();
                        let job = *next;
                        *next += 1;
                        job
                    };
                    let Some((map, scen)) = jobs.get(job) else {
                        break;
                    };
                    let report = run_map(map, scen);
                    reports.lock().unwrap().push(report);
                }
            });
        }
    });
    let mut reports = reports.into_inner().unwrap();
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    println!(
        "{:<34} {:>11} {:>7} {:>7} {:>12} {:>10} {:>8}",
        "map", "size", "queries", "skipped", "mean len/opt", "max", "seconds"
    );
    let mut failures = Vec::new();
    let (mut all_sum, mut all_max, mut all_n) = (0.0, 0.0f64, 0usize);
    for r in &reports {
        println!(
            "{:<34} {:>5}x{:<5} {:>7} {:>7} {:>12.4} {:>10.4} {:>8.2}",
            r.name, r.size.0, r.size.1, r.queries, r.skipped, r.mean_ratio, r.max_ratio, r.seconds
        );
        all_sum += r.mean_ratio * r.queries as f64;
        all_n += r.queries;
        all_max = all_max.max(r.max_ratio);
        failures.extend(r.failures.iter().cloned());
    }
    println!(
        "all: {} maps, {} queries, mean ratio {:.4}, max ratio {:.4}, {:.1} s",
        reports.len(),
        all_n,
        all_sum / all_n.max(1) as f64,
        all_max,
        started.elapsed().as_secs_f64()
    );
    assert!(all_n > 0, "no scenario was run");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
