//! Side-by-side benchmark of walkmask against the seed-000 reference and peer
//! pathfinders, on the same masks and the same queries.
//!
//! ```text
//! cargo run --release -p walkmask_bench -- [--quick] [--json FILE] [--chart FILE.png]
//! ```
//!
//! Per mask and method it prints the median and 95th percentile time per query, the
//! ratio of medians to ours-cold, the mean pixels visited, the mean path length
//! against the optimum and the mean waypoint count, checks that every method agrees
//! with ours-cold on reachability, and checks the performance goals. Numbers are
//! printed, never asserted.

mod anyangle;
mod chart;
mod masks;
mod methods;
mod obstacles;
mod report;
mod rng;
mod runner;
mod seed000;
mod snapping;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use serde::Serialize;
use walkmask::subgoal::IndexPolicy;

use masks::{BenchMask, MaskClass};
use methods::Method;
use report::{ClassSummary, GoalCheck, MaskSummary, Mismatch};
use runner::Budget;

/// Command line.
#[derive(Parser, Debug)]
#[command(about = "Benchmark walkmask against the seed-000 reference and peer pathfinders")]
struct Args {
    /// Fewer queries and masks, small time budgets: finishes in about a minute.
    #[arg(long)]
    quick: bool,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw a chart of the median times to this PNG file.
    #[arg(long, value_name = "FILE.png")]
    chart: Option<PathBuf>,
    /// Only masks whose name contains this text (`snapping`: only the snapping table;
    /// `obstacles`: only the obstacles and clearance table; `anyangle`: only the
    /// lengths against the any-angle optimum).
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// How "ours cold" plans: `auto` builds each mask's subgoal index when the
    /// library's rule says it pays (what the library and the plugin do), `index`
    /// builds it on every mask, `fill` never builds it.
    #[arg(long, value_enum, default_value_t = PlannerArg::Auto)]
    planner: PlannerArg,
}

/// `--planner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PlannerArg {
    Auto,
    Index,
    Fill,
}

impl PlannerArg {
    fn policy(self) -> Option<IndexPolicy> {
        match self {
            PlannerArg::Auto => Some(IndexPolicy::WhenItPays),
            PlannerArg::Index => Some(IndexPolicy::Always),
            PlannerArg::Fill => None,
        }
    }
}

/// How many queries and how much time, by mode.
#[derive(Clone, Debug, Serialize)]
struct Plan {
    /// Starts per generated mask.
    generated_starts: usize,
    /// Goals per start on generated masks.
    generated_goals: usize,
    /// At most this many straight-line queries per generated mask.
    generated_max_straight: usize,
    /// Scenarios per Moving AI map.
    movingai_queries: usize,
    /// Only these Moving AI maps (file names), or all.
    movingai_subset: Option<Vec<&'static str>>,
    /// Starts x goals per adventure-game mask.
    monoags_starts: usize,
    /// Goals per start on adventure-game masks.
    monoags_goals: usize,
    /// At most this many adventure-game masks.
    monoags_limit: Option<usize>,
    /// Time budget per method and mask, seconds, by class.
    budget_seconds: Vec<(MaskClass, f64)>,
    /// `pathfinding` BFS query cap on masks of at least 2 million pixels.
    pf_bfs_cap_large: usize,
    /// Repetitions of the bandwidth floor measurement.
    floor_reps: usize,
}

impl Plan {
    fn new(quick: bool) -> Self {
        if quick {
            Plan {
                generated_starts: 5,
                generated_goals: 4,
                generated_max_straight: 2,
                movingai_queries: 16,
                movingai_subset: Some(vec![
                    "8room_000.map",
                    "maze512-1-0.map",
                    "room-1550-155.map",
                ]),
                monoags_starts: 4,
                monoags_goals: 4,
                monoags_limit: Some(2),
                budget_seconds: vec![
                    (MaskClass::Room1080p, 0.6),
                    (MaskClass::Room4k, 0.8),
                    (MaskClass::Spiral1080p, 0.8),
                    (MaskClass::Maze1080p, 0.6),
                    (MaskClass::MovingAiLarge, 0.5),
                    (MaskClass::MovingAiSmall, 0.3),
                    (MaskClass::Monoags, 0.2),
                ],
                pf_bfs_cap_large: 2,
                floor_reps: 5,
            }
        } else {
            Plan {
                generated_starts: 40,
                generated_goals: 5,
                generated_max_straight: 20,
                movingai_queries: 100,
                movingai_subset: None,
                monoags_starts: 20,
                monoags_goals: 5,
                monoags_limit: None,
                budget_seconds: vec![
                    (MaskClass::Room1080p, 12.0),
                    (MaskClass::Room4k, 15.0),
                    (MaskClass::Spiral1080p, 12.0),
                    (MaskClass::Maze1080p, 12.0),
                    (MaskClass::MovingAiLarge, 6.0),
                    (MaskClass::MovingAiSmall, 2.5),
                    (MaskClass::Monoags, 1.5),
                ],
                pf_bfs_cap_large: 10,
                floor_reps: 21,
            }
        }
    }

    fn budget(&self, class: MaskClass, pixels: usize, method: Method) -> Budget {
        let secs = self
            .budget_seconds
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(2.0, |(_, s)| *s);
        let max_queries =
            (method == Method::PfBfs && pixels >= 2_000_000).then_some(self.pf_bfs_cap_large);
        Budget {
            time: Duration::from_secs_f64(secs),
            max_queries,
        }
    }
}

/// The JSON report.
#[derive(Serialize)]
struct Report<'a> {
    mode: &'static str,
    threads_available: usize,
    total_seconds: f64,
    /// 1-minute load average when the run started and when it ended.
    load_average: (Option<f64>, Option<f64>),
    /// Share of the wall time the benchmark thread waited for a core.
    run_queue_wait: Option<f64>,
    plan: &'a Plan,
    notes: Vec<&'static str>,
    masks: &'a [MaskSummary],
    classes: &'a [ClassSummary],
    goals: &'a [GoalCheck],
    mismatches: &'a [Mismatch],
    skipped_masks: &'a [String],
}

const NOTES: [&str; 10] = [
    "Times are wall-clock per query on one thread; median and p95 over the queries each method ran within its per-mask time budget (skipped queries are listed).",
    "x cold = the method's median over the queries it ran / ours-cold's median over the same queries.",
    "ours cold: Pathfinder::find_path on a NavGrid built once per mask (NavGrid time reported as prep); the straight line is tried first.",
    "ours warm: DistanceField::new from the start, once per start (reported apart), then DistanceField::path_to per query.",
    "seed-000 ref: the pseudocode as written (i32 buffer per query, two stacks, full Manhattan flood, diagonal trace, simplification, Bresenham beautification both ways); no straight-line pre-check.",
    "frontier BFS / walkmask A*: walkmask::baseline::{frontier_bfs, astar} with default options (same endpoint rules and finishing as ours).",
    "pathfinding A*: 8 neighbours, octile heuristic, diagonals only when both side cells are walkable, over a flat Vec<bool>; pathfinding BFS: 4 neighbours. Waypoints = every cell of the path.",
    "grid_pathfinding JPS: 8 neighbours with corner cutting (a diagonal step is allowed past blocked side cells, even between two blocked cells touching at a corner) and components joined diagonally; waypoints = jump points; its grid build is reported as prep. Its lengths may fall below the no-corner-cutting optimum.",
    "len/opt: path length / optimum; the optimum is the Moving AI scenario's (octile, no corner cutting) or, on other masks, pathfinding A*'s octile length (else the warm field's, diagonal 41/29). Any-angle paths (ours, seed, baselines) can be below 1.",
    "bandwidth floor: one pass writing and one reading a width x height buffer of 4-byte cells; full fill / floor = median DistanceField::new / floor.",
];

/// Makes a generated mask.
type MakeMask = fn() -> walkmask::WalkMask;

/// Every mask to run, loaded one at a time (the 4K one is large).
enum MaskSource {
    Generated(&'static str, MaskClass, MakeMask),
    MovingAi(masks::MovingAiMap),
    Monoags(PathBuf),
}

impl MaskSource {
    fn name(&self) -> String {
        match self {
            MaskSource::Generated(n, _, _) => n.to_string(),
            MaskSource::MovingAi(m) => m
                .map
                .file_stem()
                .map_or("?".into(), |s| s.to_string_lossy().into_owned()),
            MaskSource::Monoags(p) => {
                let dir = p
                    .parent()
                    .and_then(|d| d.file_name())
                    .map_or("?".into(), |s| s.to_string_lossy().into_owned());
                let stem = p
                    .file_stem()
                    .map_or("?".into(), |s| s.to_string_lossy().into_owned());
                format!("{dir}/{stem}")
            }
        }
    }

    fn load(&self, plan: &Plan, seed: u64) -> Result<BenchMask, String> {
        let name = self.name();
        match self {
            MaskSource::Generated(_, class, make) => {
                let mask = make();
                let grid = masks::grid_of(&mask);
                let queries = masks::random_queries(
                    &grid,
                    plan.generated_starts,
                    plan.generated_goals,
                    plan.generated_max_straight,
                    seed,
                );
                Ok(BenchMask {
                    name,
                    class: *class,
                    mask,
                    queries,
                })
            }
            MaskSource::MovingAi(m) => {
                let mask = masks::load_movingai(&m.map)?;
                let text = std::fs::read_to_string(&m.scen)
                    .map_err(|e| format!("{}: {e}", m.scen.display()))?;
                let scenarios = masks::parse_scenarios(&text)
                    .map_err(|e| format!("{}: {e}", m.scen.display()))?;
                let grid = masks::grid_of(&mask);
                let queries = masks::scenario_queries(&grid, &scenarios, plan.movingai_queries);
                let class = if mask.width() as u64 * mask.height() as u64 >= 1_000_000 {
                    MaskClass::MovingAiLarge
                } else {
                    MaskClass::MovingAiSmall
                };
                Ok(BenchMask {
                    name,
                    class,
                    mask,
                    queries,
                })
            }
            MaskSource::Monoags(p) => {
                let mask = masks::load_monoags(p)?;
                let grid = masks::grid_of(&mask);
                let queries = masks::random_queries(
                    &grid,
                    plan.monoags_starts,
                    plan.monoags_goals,
                    plan.monoags_starts * plan.monoags_goals / 10,
                    seed,
                );
                Ok(BenchMask {
                    name,
                    class: MaskClass::Monoags,
                    mask,
                    queries,
                })
            }
        }
    }
}

fn sources(plan: &Plan, notes: &mut Vec<String>) -> Vec<MaskSource> {
    let generated: [(&'static str, MaskClass, MakeMask); 4] = [
        ("room-1080p", MaskClass::Room1080p, || {
            masks::room(1920, 1080, 11)
        }),
        ("room-4k", MaskClass::Room4k, || masks::room(3840, 2160, 11)),
        ("spiral-1080p", MaskClass::Spiral1080p, || {
            masks::spiral(1920, 1080, 1)
        }),
        ("maze-1080p", MaskClass::Maze1080p, || {
            masks::maze(1920, 1080, 3, 5)
        }),
    ];
    let mut out: Vec<MaskSource> = generated
        .into_iter()
        .map(|(n, c, f)| MaskSource::Generated(n, c, f))
        .collect();
    let Some(data) = masks::data_dir() else {
        notes.push(
            "WALKMASK_DATA is not a folder: Moving AI and adventure-game masks skipped".into(),
        );
        return out;
    };
    if !masks::data_is_full() {
        notes.push(
            "WALKMASK_DATA is not set: real maps from the repository's testdata only (8 of 29 Moving AI maps)"
                .into(),
        );
    }
    let mai = masks::movingai_maps(&data);
    if mai.is_empty() {
        notes.push(format!("no Moving AI maps under {}", data.display()));
    }
    for m in mai {
        let file = m
            .map
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned());
        if plan
            .movingai_subset
            .as_ref()
            .is_none_or(|s| s.contains(&file.as_str()))
        {
            out.push(MaskSource::MovingAi(m));
        }
    }
    let mono = masks::monoags_masks(&data);
    if mono.is_empty() {
        notes.push(format!("no adventure-game masks under {}", data.display()));
    }
    for p in mono
        .into_iter()
        .take(plan.monoags_limit.unwrap_or(usize::MAX))
    {
        out.push(MaskSource::Monoags(p));
    }
    out
}

/// Chart groups: generated masks and large Moving AI maps one by one, the other
/// classes by geometric mean.
fn chart_groups(masks: &[MaskSummary], classes: &[ClassSummary]) -> Vec<chart::Group> {
    let mut groups = Vec::new();
    let values = |m: &MaskSummary| -> Vec<Option<f64>> {
        Method::ALL
            .iter()
            .map(|&k| m.method(k).and_then(|x| x.median_us))
            .chain(std::iter::once(Some(m.floor_us)))
            .collect()
    };
    for m in masks
        .iter()
        .filter(|m| m.class.is_generated() || m.class == MaskClass::MovingAiLarge)
    {
        let index = match (m.index_build_ms, m.index_bytes_per_pixel) {
            (Some(ms), Some(b)) => format!("\nindex {ms:.0} ms\n{b:.2} B/px"),
            _ => "\nno index".into(),
        };
        groups.push(chart::Group {
            label: m.name.clone(),
            sub: format!("{}x{}{index}", m.width, m.height),
            values: values(m),
        });
    }
    for c in classes
        .iter()
        .filter(|c| !c.class.is_generated() && c.class != MaskClass::MovingAiLarge)
    {
        let floors: Vec<f64> = masks
            .iter()
            .filter(|m| m.class == c.class)
            .map(|m| m.floor_us)
            .collect();
        groups.push(chart::Group {
            label: c.class.as_str().into(),
            sub: format!("geomean of {}", c.masks),
            values: Method::ALL
                .iter()
                .map(|k| c.median_us.get(k.key()).copied())
                .chain(std::iter::once(report::geomean(&floors)))
                .collect(),
        });
    }
    groups
}

fn main() {
    let args = Args::parse();
    let plan = Plan::new(args.quick);
    let started = Instant::now();
    let load_start = runner::load_average();
    let sched_start = runner::schedstat();
    let mut notes = Vec::new();
    let sources = sources(&plan, &mut notes);
    println!(
        "walkmask benchmark ({} mode), release build, one thread per query",
        if args.quick { "quick" } else { "full" }
    );
    for n in NOTES {
        println!("  - {n}");
    }
    let mut summaries = Vec::new();
    let mut mismatches = Vec::new();
    let mut skipped_masks = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let name = src.name();
        if args
            .filter
            .as_ref()
            .is_some_and(|f| !name.contains(f.as_str()))
        {
            continue;
        }
        eprintln!("[{:>5.1} s] {name}", started.elapsed().as_secs_f64());
        let mask = match src.load(&plan, 1000 + i as u64) {
            Ok(m) => m,
            Err(e) => {
                let msg = format!("{name}: not loaded ({e})");
                eprintln!("  skipped: {msg}");
                skipped_masks.push(msg);
                continue;
            }
        };
        if mask.queries.is_empty() {
            skipped_masks.push(format!("{name}: no queries"));
            continue;
        }
        let pixels = mask.mask.width() as usize * mask.mask.height() as usize;
        let run = runner::run_mask(
            &mask,
            &Method::ALL,
            |m| plan.budget(mask.class, pixels, m),
            plan.floor_reps,
            args.planner.policy(),
        );
        let (summary, mism) = report::summarise(&run);
        print!("{}", report::mask_table(&summary));
        summaries.push(summary);
        mismatches.extend(mism);
    }
    let classes = report::classes(&summaries);
    let goals = report::goals(&summaries);
    print!(
        "{}",
        report::summary_table(&summaries, &classes, &goals, &mismatches)
    );
    for n in notes.iter().chain(&skipped_masks) {
        println!("   note: {n}");
    }
    if args
        .filter
        .as_ref()
        .is_none_or(|f| "snapping".contains(f.as_str()))
    {
        snapping::run(args.quick);
    }
    if args
        .filter
        .as_ref()
        .is_none_or(|f| "obstacles".contains(f.as_str()))
    {
        obstacles::run(args.quick);
    }
    // About 11 minutes in full mode, so there only on request; in quick mode always.
    let anyangle = match &args.filter {
        Some(f) => "anyangle".contains(f.as_str()),
        None => args.quick,
    };
    if anyangle {
        anyangle::run(args.quick);
    }
    let total = started.elapsed().as_secs_f64();
    let load_end = runner::load_average();
    let wait = sched_start
        .zip(runner::schedstat())
        .map(|((_, w0), (_, w1))| w1.saturating_sub(w0) as f64 / (total * 1e9));
    println!(
        "\nTotal time {total:.1} s on {} core(s); load average {} at the start, {} at the end; the benchmark waited for a core {} of the time",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_start.map_or("-".into(), |l| format!("{l:.2}")),
        load_end.map_or("-".into(), |l| format!("{l:.2}")),
        wait.map_or("-".into(), |w| format!("{:.0} %", w * 100.0)),
    );
    let mut failed = false;
    if let Some(path) = &args.json {
        let report = Report {
            mode: if args.quick { "quick" } else { "full" },
            threads_available: std::thread::available_parallelism().map_or(1, |n| n.get()),
            total_seconds: total,
            load_average: (load_start, load_end),
            run_queue_wait: wait,
            plan: &plan,
            notes: NOTES.to_vec(),
            masks: &summaries,
            classes: &classes,
            goals: &goals,
            mismatches: &mismatches,
            skipped_masks: &skipped_masks,
        };
        let text = serde_json::to_string_pretty(&report).expect("plain data serialises");
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            failed = true;
        }
    }
    if let Some(path) = &args.chart {
        let series: Vec<&str> = Method::ALL
            .iter()
            .map(|m| m.name())
            .chain(std::iter::once("bandwidth floor"))
            .collect();
        let groups = chart_groups(&summaries, &classes);
        let title = format!(
            "walkmask: median time per query ({} run, log scale)",
            if args.quick { "quick" } else { "full" }
        );
        if let Err(e) = chart::draw(path, &title, &series, &groups) {
            eprintln!("error: chart not drawn: {e}");
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}
