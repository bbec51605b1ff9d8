//! Runs every method over one mask's queries, each within a time budget.

use std::time::{Duration, Instant};

use walkmask::subgoal::IndexPolicy;
use walkmask::{DistanceField, NavGrid, PathOptions, Pathfinder, Point};

use crate::masks::{BenchMask, Query};
use crate::methods::{self, FlatGrid, Method, Outcome};
use crate::seed000::Reference;

/// How much one method may spend on one mask.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Wall time after which the remaining queries are skipped.
    pub time: Duration,
    /// At most this many queries (`None`: all).
    pub max_queries: Option<usize>,
}

/// One method's results on one mask.
#[derive(Clone, Debug)]
pub struct MethodRun {
    /// The method.
    pub method: Method,
    /// Per query: time and outcome, `None` when skipped.
    pub results: Vec<Option<(Duration, Outcome)>>,
    /// Why queries were skipped, if any were.
    pub skip_reason: Option<String>,
}

impl MethodRun {
    /// Number of queries run.
    pub fn ran(&self) -> usize {
        self.results.iter().filter(|r| r.is_some()).count()
    }
}

/// Everything measured on one mask.
#[derive(Clone, Debug)]
pub struct MaskRun {
    /// Mask name.
    pub name: String,
    /// Mask class.
    pub class: crate::masks::MaskClass,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Walkable pixels.
    pub walkable: usize,
    /// Connected regions.
    pub regions: u32,
    /// The queries.
    pub queries: Vec<Query>,
    /// `NavGrid::new` time.
    pub navgrid_prep: Duration,
    /// Subgoals of the mask (`walkmask::subgoal::count_subgoals`).
    pub subgoals: usize,
    /// `NavGrid::build_index` time, the index's bytes and its edges, when the
    /// planner built one.
    pub index: Option<(Duration, usize, usize)>,
    /// `grid_pathfinding` grid build time (set every blocked cell, then components).
    pub jps_prep: Option<Duration>,
    /// Time of each warm distance field (`DistanceField::new`, one per start).
    pub fields: Vec<Duration>,
    /// Pixels each warm field settled.
    pub field_settled: Vec<usize>,
    /// Memory-bandwidth floor (write + read a 4 bytes/pixel buffer).
    pub floor: Duration,
    /// Share of the wall time this thread spent waiting for a core while the mask ran
    /// (other processes competing), when the system tells.
    pub run_queue_wait: Option<f64>,
    /// Octile optimum of each query when known without a scenario: from the warm
    /// field (diagonal 41/29), used when `pathfinding` A* did not run on the query.
    pub field_optimum: Vec<Option<f64>>,
    /// Per method.
    pub runs: Vec<MethodRun>,
}

impl MaskRun {
    /// The run of `method`, if it was part of the benchmark.
    pub fn run(&self, method: Method) -> Option<&MethodRun> {
        self.runs.iter().find(|r| r.method == method)
    }
}

/// Runs `query` for every query of `mask` with `method`, within `budget`.
fn run_each(
    method: Method,
    queries: &[Query],
    budget: Budget,
    mut query: impl FnMut(&Query) -> Outcome,
) -> MethodRun {
    let started = Instant::now();
    let mut results = Vec::with_capacity(queries.len());
    let mut skip_reason = None;
    for q in queries {
        if skip_reason.is_none() {
            if budget.max_queries.is_some_and(|m| results.len() >= m) {
                skip_reason = Some(format!(
                    "capped at {} queries",
                    budget.max_queries.unwrap_or_default()
                ));
            } else if started.elapsed() >= budget.time {
                skip_reason = Some(format!(
                    "time budget of {:.0} s spent",
                    budget.time.as_secs_f64()
                ));
            }
        }
        if skip_reason.is_some() {
            results.push(None);
            continue;
        }
        let t = Instant::now();
        let outcome = query(q);
        let dt = t.elapsed();
        results.push(Some((dt, outcome)));
    }
    MethodRun {
        method,
        results,
        skip_reason,
    }
}

fn center(p: (u32, u32)) -> Point {
    Point::pixel_center(p.0, p.1)
}

/// Runs `methods` on `mask`, with `budget(method)` for each, printing progress to
/// standard error. The grid's subgoal index is built first under `planner` (`None`:
/// not built, every query fills).
pub fn run_mask(
    mask: &BenchMask,
    methods: &[Method],
    budget: impl Fn(Method) -> Budget,
    floor_reps: usize,
    planner: Option<IndexPolicy>,
) -> MaskRun {
    let sched_start = schedstat();
    let wall_start = Instant::now();
    let t = Instant::now();
    let grid = NavGrid::new(mask.mask.clone(), walkmask::AreaSet::all());
    let navgrid_prep = t.elapsed();
    let subgoals = walkmask::subgoal::count_subgoals(&grid);
    let t = Instant::now();
    let index = planner
        .and_then(|policy| grid.build_index(policy))
        .map(|index| (t.elapsed(), index.memory_bytes(), index.edge_count()));
    let (w, h) = (grid.width(), grid.height());
    let queries = &mask.queries;
    let bitmap = methods::walkable_bitmap(&grid);
    let flat = FlatGrid {
        width: w as usize,
        height: h as usize,
        walk: bitmap.clone(),
    };
    let floor = methods::bandwidth_floor(w as usize * h as usize, floor_reps);
    let mut runs = Vec::new();
    let mut fields = Vec::new();
    let mut field_settled = Vec::new();
    let mut field_optimum = vec![None; queries.len()];
    let mut jps_prep = None;
    for &method in methods {
        let b = budget(method);
        eprint!("  {:<22}", method.name());
        let run = match method {
            Method::OursCold | Method::OursFill | Method::OursNotTaut => {
                let options = match method {
                    Method::OursFill => PathOptions {
                        use_index: false,
                        ..PathOptions::default()
                    },
                    Method::OursNotTaut => PathOptions {
                        taut: false,
                        ..PathOptions::default()
                    },
                    _ => PathOptions::default(),
                };
                let mut pf = Pathfinder::with_options(options);
                run_each(method, queries, b, |q| {
                    pf.find_path(&grid, center(q.start), center(q.goal))
                        .map(|r| Outcome::of_result(&r))
                        .unwrap_or(Outcome::unreachable(None))
                })
            }
            Method::OursWarm => {
                // One field per start, filled before the clicks and timed apart.
                let mut field: Option<(usize, Option<DistanceField>)> = None;
                let options = PathOptions::default();
                let started = Instant::now();
                let mut results = Vec::with_capacity(queries.len());
                let mut skip_reason = None;
                for (i, q) in queries.iter().enumerate() {
                    if skip_reason.is_none() && started.elapsed() >= b.time {
                        skip_reason = Some(format!(
                            "time budget of {:.0} s spent",
                            b.time.as_secs_f64()
                        ));
                    }
                    if skip_reason.is_some() {
                        results.push(None);
                        continue;
                    }
                    if field.as_ref().is_none_or(|(g, _)| *g != q.group) {
                        let t = Instant::now();
                        let f = DistanceField::new(&grid, q.start);
                        fields.push(t.elapsed());
                        field_settled.push(f.as_ref().map_or(0, |f| f.settled()));
                        field = Some((q.group, f));
                    }
                    let Some((_, Some(f))) = &field else {
                        results.push(Some((Duration::ZERO, Outcome::unreachable(None))));
                        continue;
                    };
                    field_optimum[i] = f
                        .distance(q.goal.0, q.goal.1)
                        .map(|d| d as f64 / walkmask::fill::CARDINAL as f64);
                    let t = Instant::now();
                    let r = f.path_to(center(q.start), center(q.goal), &options);
                    let dt = t.elapsed();
                    let outcome = r
                        .map(|r| Outcome::of_result(&r))
                        .unwrap_or(Outcome::unreachable(None));
                    results.push(Some((dt, outcome)));
                }
                MethodRun {
                    method,
                    results,
                    skip_reason,
                }
            }
            Method::Seed000 => {
                let reference = Reference::new(w, h, bitmap.clone());
                let p = |q: (u32, u32)| (q.0 as i32, q.1 as i32);
                run_each(method, queries, b, |q| {
                    match reference.find_path(p(q.start), p(q.goal)) {
                        Some(path) => Outcome {
                            reachable: true,
                            length: path.length(),
                            waypoints: path.waypoints.len(),
                            visited: Some(path.filled),
                        },
                        None => Outcome::unreachable(None),
                    }
                })
            }
            Method::FrontierBfs => run_each(method, queries, b, |q| {
                walkmask::baseline::frontier_bfs(
                    &grid,
                    center(q.start),
                    center(q.goal),
                    &PathOptions::default(),
                )
                .map(|r| Outcome::of_result(&r))
                .unwrap_or(Outcome::unreachable(None))
            }),
            Method::CoreAstar => run_each(method, queries, b, |q| {
                walkmask::baseline::astar(
                    &grid,
                    center(q.start),
                    center(q.goal),
                    &PathOptions::default(),
                )
                .map(|r| Outcome::of_result(&r))
                .unwrap_or(Outcome::unreachable(None))
            }),
            Method::PfAstar => run_each(method, queries, b, |q| flat.astar(q.start, q.goal)),
            Method::PfBfs => run_each(method, queries, b, |q| flat.bfs(q.start, q.goal)),
            Method::Jps => {
                let (jgrid, prep) = methods::build_jps(&flat);
                jps_prep = Some(prep);
                run_each(method, queries, b, |q| {
                    methods::jps(&jgrid, q.start, q.goal)
                })
            }
        };
        eprintln!(
            "{:>5}/{} queries{}",
            run.ran(),
            queries.len(),
            run.skip_reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
        runs.push(run);
    }
    let run_queue_wait = sched_start.zip(schedstat()).map(|((_, w0), (_, w1))| {
        w1.saturating_sub(w0) as f64 / wall_start.elapsed().as_nanos().max(1) as f64
    });
    MaskRun {
        name: mask.name.clone(),
        class: mask.class,
        width: w,
        height: h,
        walkable: grid.walkable_count(),
        regions: grid.region_count(),
        queries: queries.clone(),
        navgrid_prep,
        subgoals,
        index,
        jps_prep,
        fields,
        field_settled,
        floor,
        run_queue_wait,
        field_optimum,
        runs,
    }
}

/// This thread's time on a core and time waiting for one, in nanoseconds
/// (`/proc/thread-self/schedstat`; `None` where there is no such file).
pub fn schedstat() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut f = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some((f.next()??, f.next()??))
}

/// The 1-minute load average (`/proc/loadavg`), where there is one.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
