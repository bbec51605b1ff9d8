//! Statistics, the printed table, the JSON report and the goal checks.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use crate::masks::MaskClass;
use crate::methods::Method;
use crate::runner::MaskRun;

/// Median of sorted values.
pub fn median(sorted: &[f64]) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// 95th percentile of sorted values (nearest rank).
pub fn p95(sorted: &[f64]) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((0.95 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Geometric mean of positive values.
pub fn geomean(v: &[f64]) -> Option<f64> {
    let v: Vec<f64> = v.iter().copied().filter(|x| *x > 0.0).collect();
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// One method on one mask.
#[derive(Clone, Debug, Serialize)]
pub struct MethodSummary {
    /// Method key.
    pub method: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Queries run.
    pub ran: usize,
    /// Queries skipped.
    pub skipped: usize,
    /// Why.
    pub skip_reason: Option<String>,
    /// Median time per query, microseconds.
    pub median_us: Option<f64>,
    /// 95th percentile, microseconds.
    pub p95_us: Option<f64>,
    /// This method's median over the queries it ran divided by ours-cold's median over
    /// the same queries.
    pub ratio_to_ours_cold: Option<f64>,
    /// Mean pixels visited (settled / expanded / filled), when the method reports it.
    pub mean_visited: Option<f64>,
    /// Mean of path length / optimum over the reachable queries with a known optimum.
    pub mean_length_ratio: Option<f64>,
    /// Mean number of points in the returned paths.
    pub mean_waypoints: Option<f64>,
    /// Queries where this method disagrees with ours-cold on reachability.
    pub mismatches: usize,
}

/// One mask.
#[derive(Clone, Debug, Serialize)]
pub struct MaskSummary {
    /// Name.
    pub name: String,
    /// Class.
    pub class: MaskClass,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Walkable pixels.
    pub walkable: usize,
    /// Regions.
    pub regions: u32,
    /// Queries.
    pub queries: usize,
    /// Queries whose straight line is clear.
    pub straight_line: usize,
    /// Where the optimum for length ratios comes from.
    pub optimum: &'static str,
    /// `NavGrid::new`, milliseconds.
    pub navgrid_prep_ms: f64,
    /// `grid_pathfinding` grid build, milliseconds.
    pub jps_prep_ms: Option<f64>,
    /// Subgoals of the mask.
    pub subgoals: usize,
    /// Walkable pixels per subgoal (the planner's rule builds an index from
    /// `walkmask::subgoal::WALKABLE_PIXELS_PER_SUBGOAL`).
    pub walkable_per_subgoal: Option<f64>,
    /// `NavGrid::build_index`, milliseconds, when the planner built an index.
    pub index_build_ms: Option<f64>,
    /// The index's bytes per mask pixel, when built.
    pub index_bytes_per_pixel: Option<f64>,
    /// The index's graph size (subgoals and edges) per walkable pixel, when built
    /// (the planner's rule keeps the index of a mask crowded with subgoals only up to
    /// `walkmask::subgoal::MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL`).
    pub index_graph_per_walkable: Option<f64>,
    /// Median `DistanceField::new` (one per start), milliseconds.
    pub warm_field_median_ms: Option<f64>,
    /// Number of warm fields.
    pub warm_fields: usize,
    /// Mean pixels a warm field settled.
    pub warm_field_mean_settled: Option<f64>,
    /// Bandwidth floor (write + read 4 bytes/pixel), microseconds.
    pub floor_us: f64,
    /// Median warm field time / floor.
    pub full_fill_vs_floor: Option<f64>,
    /// Share of the wall time spent waiting for a core (contention from other
    /// processes); timings are inflated by about this much.
    pub run_queue_wait: Option<f64>,
    /// Per method.
    pub methods: Vec<MethodSummary>,
}

impl MaskSummary {
    /// The summary of `method`, if it ran.
    pub fn method(&self, method: Method) -> Option<&MethodSummary> {
        self.methods.iter().find(|m| m.method == method.key())
    }
}

/// A reachability disagreement.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    /// Mask.
    pub mask: String,
    /// Method.
    pub method: &'static str,
    /// Query index.
    pub query: usize,
    /// Start pixel.
    pub start: (u32, u32),
    /// Goal pixel.
    pub goal: (u32, u32),
    /// What ours-cold said.
    pub ours_reachable: bool,
    /// What the method said.
    pub method_reachable: bool,
}

/// Summarises a mask run; also returns its reachability mismatches.
pub fn summarise(run: &MaskRun) -> (MaskSummary, Vec<Mismatch>) {
    let cold = run.run(Method::OursCold);
    let astar = run.run(Method::PfAstar);
    let has_scenarios = run.queries.iter().all(|q| q.optimum.is_some()) && !run.queries.is_empty();
    // Optimum per query: scenario, else pathfinding A*'s octile length, else the field.
    let optimum: Vec<Option<f64>> = (0..run.queries.len())
        .map(|i| {
            run.queries[i].optimum.or_else(|| {
                astar
                    .and_then(|a| a.results[i])
                    .filter(|(_, o)| o.reachable)
                    .map(|(_, o)| o.length)
                    .or(run.field_optimum[i])
            })
        })
        .collect();
    let mut mismatches = Vec::new();
    let mut methods = Vec::new();
    for m in &run.runs {
        let mut times = Vec::new();
        let mut cold_times = Vec::new();
        let mut visited = Vec::new();
        let mut ratios = Vec::new();
        let mut waypoints = Vec::new();
        let mut mism = 0;
        for (i, r) in m.results.iter().enumerate() {
            let Some((t, o)) = r else { continue };
            times.push(us(*t));
            if let Some((ct, co)) = cold.and_then(|c| c.results[i]) {
                cold_times.push(us(ct));
                if co.reachable != o.reachable {
                    mism += 1;
                    mismatches.push(Mismatch {
                        mask: run.name.clone(),
                        method: m.method.key(),
                        query: i,
                        start: run.queries[i].start,
                        goal: run.queries[i].goal,
                        ours_reachable: co.reachable,
                        method_reachable: o.reachable,
                    });
                }
            }
            if let Some(v) = o.visited {
                visited.push(v as f64);
            }
            if o.reachable {
                waypoints.push(o.waypoints as f64);
                if let Some(opt) = optimum[i].filter(|&x| x > 0.0) {
                    ratios.push(o.length / opt);
                }
            }
        }
        let times = sorted(times);
        let cold_times = sorted(cold_times);
        let med = median(&times);
        methods.push(MethodSummary {
            method: m.method.key(),
            name: m.method.name(),
            ran: m.ran(),
            skipped: m.results.len() - m.ran(),
            skip_reason: m.skip_reason.clone(),
            median_us: med,
            p95_us: p95(&times),
            ratio_to_ours_cold: med
                .zip(median(&cold_times))
                .filter(|(_, c)| *c > 0.0)
                .map(|(a, c)| a / c),
            mean_visited: mean(&visited),
            mean_length_ratio: mean(&ratios),
            mean_waypoints: mean(&waypoints),
            mismatches: mism,
        });
    }
    let fields = sorted(run.fields.iter().map(|d| us(*d) / 1e3).collect());
    let warm_field_median_ms = median(&fields);
    let settled: Vec<f64> = run.field_settled.iter().map(|&s| s as f64).collect();
    let floor_us = us(run.floor);
    let summary = MaskSummary {
        name: run.name.clone(),
        class: run.class,
        width: run.width,
        height: run.height,
        walkable: run.walkable,
        regions: run.regions,
        queries: run.queries.len(),
        straight_line: run.queries.iter().filter(|q| q.straight).count(),
        optimum: if has_scenarios {
            "scenario"
        } else {
            "octile (pathfinding A*, else the warm field)"
        },
        navgrid_prep_ms: us(run.navgrid_prep) / 1e3,
        jps_prep_ms: run.jps_prep.map(|d| us(d) / 1e3),
        subgoals: run.subgoals,
        walkable_per_subgoal: (run.subgoals > 0).then(|| run.walkable as f64 / run.subgoals as f64),
        index_build_ms: run.index.map(|(d, _, _)| us(d) / 1e3),
        index_bytes_per_pixel: run
            .index
            .map(|(_, b, _)| b as f64 / (run.width as f64 * run.height as f64)),
        index_graph_per_walkable: run
            .index
            .map(|(_, _, e)| (run.subgoals + e) as f64 / run.walkable.max(1) as f64),
        warm_field_median_ms,
        warm_fields: run.fields.len(),
        warm_field_mean_settled: mean(&settled),
        floor_us,
        full_fill_vs_floor: warm_field_median_ms.map(|ms| ms * 1e3 / floor_us),
        run_queue_wait: run.run_queue_wait,
        methods,
    };
    (summary, mismatches)
}

/// A duration given in microseconds, with a unit that keeps 3 significant digits.
pub fn fmt_us(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v < 1.0 => format!("{:.0} ns", v * 1e3),
        Some(v) if v < 10.0 => format!("{v:.2} µs"),
        Some(v) if v < 100.0 => format!("{v:.1} µs"),
        Some(v) if v < 1e3 => format!("{v:.0} µs"),
        Some(v) if v < 1e6 => format!("{:.3} ms", v / 1e3),
        Some(v) => format!("{:.3} s", v / 1e6),
    }
}

/// A round axis value given in microseconds: "1 µs", "10 ms", "2.5 s".
pub fn axis_us(v: f64) -> String {
    let (value, unit) = if v < 1.0 {
        (v * 1e3, "ns")
    } else if v < 1e3 {
        (v, "µs")
    } else if v < 1e6 {
        (v / 1e3, "ms")
    } else {
        (v / 1e6, "s")
    };
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The printed block of one mask.
pub fn mask_table(s: &MaskSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n== {} [{}] {} x {}, {} walkable px, {} region(s); {} queries, {} straight-line; waited for a core {}",
        s.name,
        s.class.as_str(),
        s.width,
        s.height,
        s.walkable,
        s.regions,
        s.queries,
        s.straight_line,
        s.run_queue_wait
            .map_or("-".into(), |w| format!("{:.0} % of the time", w * 100.0))
    );
    let _ = writeln!(
        out,
        "   prep: NavGrid {:.2} ms | JPS grid {} | warm field median {} over {} start(s) ({} px settled) | floor {} | full fill / floor {}",
        s.navgrid_prep_ms,
        s.jps_prep_ms.map_or("-".into(), |v| format!("{v:.1} ms")),
        s.warm_field_median_ms
            .map_or("-".into(), |v| format!("{v:.3} ms")),
        s.warm_fields,
        opt(s.warm_field_mean_settled, 0),
        fmt_us(Some(s.floor_us)),
        opt(s.full_fill_vs_floor, 2),
    );
    let _ = writeln!(
        out,
        "   index: {} subgoals ({} walkable px each) | {}",
        s.subgoals,
        opt(s.walkable_per_subgoal, 1),
        match (
            s.index_build_ms,
            s.index_bytes_per_pixel,
            s.index_graph_per_walkable
        ) {
            (Some(ms), Some(b), Some(g)) =>
                format!("built in {ms:.1} ms, {b:.3} bytes per pixel, graph {g:.2} per walkable px"),
            _ => "not built: every query fills".into(),
        }
    );
    let _ = writeln!(
        out,
        "   {:<21} {:>5} {:>5} {:>11} {:>11} {:>9} {:>11} {:>8} {:>9} {:>5}",
        "method", "ran", "skip", "median", "p95", "x cold", "visited", "len/opt", "waypts", "mism"
    );
    for m in &s.methods {
        let _ = writeln!(
            out,
            "   {:<21} {:>5} {:>5} {:>11} {:>11} {:>9} {:>11} {:>8} {:>9} {:>5}{}",
            m.name,
            m.ran,
            m.skipped,
            fmt_us(m.median_us),
            fmt_us(m.p95_us),
            opt(m.ratio_to_ours_cold, 2),
            opt(m.mean_visited, 0),
            opt(m.mean_length_ratio, 3),
            opt(m.mean_waypoints, 1),
            m.mismatches,
            m.skip_reason
                .as_ref()
                .map(|r| format!("  ({r})"))
                .unwrap_or_default()
        );
    }
    out
}

/// Per class: geometric means over its masks.
#[derive(Clone, Debug, Serialize)]
pub struct ClassSummary {
    /// Class.
    pub class: MaskClass,
    /// Masks in the class.
    pub masks: usize,
    /// Geometric mean over masks of (method median / ours-cold median on the same
    /// queries), per method key.
    pub ratio_to_ours_cold: BTreeMap<&'static str, f64>,
    /// Geometric mean over masks of the median time per query, microseconds, per
    /// method key.
    pub median_us: BTreeMap<&'static str, f64>,
}

/// Class summaries, in class order.
pub fn classes(masks: &[MaskSummary]) -> Vec<ClassSummary> {
    let mut by: BTreeMap<MaskClass, Vec<&MaskSummary>> = BTreeMap::new();
    for m in masks {
        by.entry(m.class).or_default().push(m);
    }
    by.into_iter()
        .map(|(class, ms)| {
            let mut ratio = BTreeMap::new();
            let mut med = BTreeMap::new();
            for method in Method::ALL {
                let rs: Vec<f64> = ms
                    .iter()
                    .filter_map(|m| m.method(method).and_then(|x| x.ratio_to_ours_cold))
                    .collect();
                if let Some(g) = geomean(&rs) {
                    ratio.insert(method.key(), g);
                }
                let ts: Vec<f64> = ms
                    .iter()
                    .filter_map(|m| m.method(method).and_then(|x| x.median_us))
                    .collect();
                if let Some(g) = geomean(&ts) {
                    med.insert(method.key(), g);
                }
            }
            ClassSummary {
                class,
                masks: ms.len(),
                ratio_to_ours_cold: ratio,
                median_us: med,
            }
        })
        .collect()
}

/// One goal check.
#[derive(Clone, Debug, Serialize)]
pub struct GoalCheck {
    /// What is checked.
    pub goal: String,
    /// Where.
    pub mask: String,
    /// The measured value.
    pub value: f64,
    /// The limit.
    pub limit: f64,
    /// `value <= limit`.
    pub met: bool,
}

/// The performance goals, per mask where they apply:
/// - ours-cold median <= 0.25 x the seed-000 reference median, and <= the faster of
///   `pathfinding` A* and JPS, on every generated mask and every large Moving AI map;
/// - warm click median on the 1080p room <= 50 µs;
/// - the spiral's full fill <= 5 x the bandwidth floor.
pub fn goals(masks: &[MaskSummary]) -> Vec<GoalCheck> {
    let mut out = Vec::new();
    for m in masks {
        let applies = m.class.is_generated() || m.class == MaskClass::MovingAiLarge;
        if applies {
            if let Some(r) = m.method(Method::Seed000).and_then(|x| x.ratio_to_ours_cold) {
                // cold / seed = 1 / (seed / cold).
                out.push(GoalCheck {
                    goal: "cold median / seed-000 median".into(),
                    mask: m.name.clone(),
                    value: 1.0 / r,
                    limit: 0.25,
                    met: 1.0 / r <= 0.25,
                });
            }
            let peers: Vec<f64> = [Method::PfAstar, Method::Jps]
                .iter()
                .filter_map(|&p| m.method(p).and_then(|x| x.ratio_to_ours_cold))
                .collect();
            if let Some(best) = peers.iter().copied().reduce(f64::min) {
                out.push(GoalCheck {
                    goal: "cold median / min(pathfinding A*, JPS) median".into(),
                    mask: m.name.clone(),
                    value: 1.0 / best,
                    limit: 1.0,
                    met: 1.0 / best <= 1.0,
                });
            }
        }
        if m.class == MaskClass::Room1080p
            && let Some(w) = m.method(Method::OursWarm).and_then(|x| x.median_us)
        {
            out.push(GoalCheck {
                goal: "warm click median (µs)".into(),
                mask: m.name.clone(),
                value: w,
                limit: 50.0,
                met: w <= 50.0,
            });
        }
        if m.class == MaskClass::Spiral1080p
            && let Some(r) = m.full_fill_vs_floor
        {
            out.push(GoalCheck {
                goal: "full fill (DistanceField::new) / bandwidth floor".into(),
                mask: m.name.clone(),
                value: r,
                limit: 5.0,
                met: r <= 5.0,
            });
        }
    }
    out
}

/// The printed summary: per-class ratios, the full-fill row, goals, mismatches.
pub fn summary_table(
    masks: &[MaskSummary],
    classes: &[ClassSummary],
    goals: &[GoalCheck],
    mismatches: &[Mismatch],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n== Per class: geometric mean over masks of (method median / ours-cold median), and of the median time"
    );
    let _ = write!(out, "   {:<16} {:>3}", "class", "n");
    for m in Method::ALL {
        let _ = write!(out, " {:>16}", m.name());
    }
    let _ = writeln!(out);
    for c in classes {
        let _ = write!(out, "   {:<16} {:>3}", c.class.as_str(), c.masks);
        for m in Method::ALL {
            let cell = match (c.ratio_to_ours_cold.get(m.key()), c.median_us.get(m.key())) {
                (Some(r), Some(t)) => format!("{:.2}x {}", r, fmt_us(Some(*t))),
                _ => "-".into(),
            };
            let _ = write!(out, " {cell:>16}");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "\n== Headline: how many times slower than ours-cold each peer's median is (geometric mean over the class)"
    );
    let _ = writeln!(
        out,
        "   {:<16} {:>14} {:>16} {:>12} {:>14}",
        "class", "seed-000 ref", "pathfinding A*", "JPS query", "ours warm"
    );
    for c in classes {
        let r = |m: Method| opt(c.ratio_to_ours_cold.get(m.key()).copied(), 2);
        let _ = writeln!(
            out,
            "   {:<16} {:>14} {:>16} {:>12} {:>14}",
            c.class.as_str(),
            r(Method::Seed000),
            r(Method::PfAstar),
            r(Method::Jps),
            r(Method::OursWarm)
        );
    }
    for m in masks.iter().filter(|m| m.class == MaskClass::Room1080p) {
        let _ = writeln!(
            out,
            "   warm click median on {}: {} (p95 {})",
            m.name,
            fmt_us(m.method(Method::OursWarm).and_then(|x| x.median_us)),
            fmt_us(m.method(Method::OursWarm).and_then(|x| x.p95_us))
        );
    }
    let _ = writeln!(
        out,
        "\n== Full fill: DistanceField::new vs the bandwidth floor"
    );
    for m in masks.iter().filter(|m| m.class.is_generated()) {
        let _ = writeln!(
            out,
            "   {:<16} field median {:>10} | floor {:>10} | ratio {}",
            m.name,
            m.warm_field_median_ms
                .map_or("-".into(), |v| format!("{v:.3} ms")),
            fmt_us(Some(m.floor_us)),
            opt(m.full_fill_vs_floor, 2)
        );
    }
    let _ = writeln!(out, "\n== Goals");
    for g in goals {
        let _ = writeln!(
            out,
            "   {:<5} {:<48} {:<22} {:>10.3} (limit {})",
            if g.met { "MET" } else { "MISS" },
            g.goal,
            g.mask,
            g.value,
            g.limit
        );
    }
    let _ = writeln!(
        out,
        "\n== Reachability check against ours-cold: {} mismatch(es)",
        mismatches.len()
    );
    for m in mismatches.iter().take(20) {
        let _ = writeln!(
            out,
            "   {} {} query {} {:?} -> {:?}: ours {} / method {}",
            m.mask, m.method, m.query, m.start, m.goal, m.ours_reachable, m.method_reachable
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p95() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, 2.0, 10.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), Some(3.0));
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(p95(&v), Some(95.0));
        assert_eq!(p95(&[7.0]), Some(7.0));
        let g = geomean(&[1.0, 4.0]).unwrap();
        assert!((g - 2.0).abs() < 1e-12);
    }

    #[test]
    fn durations_print_with_units() {
        assert_eq!(fmt_us(Some(0.25)), "250 ns");
        assert_eq!(fmt_us(Some(1500.0)), "1.500 ms");
        assert_eq!(fmt_us(Some(2.5e6)), "2.500 s");
        assert_eq!(fmt_us(None), "-");
        assert_eq!(axis_us(1000.0), "1 ms");
        assert_eq!(axis_us(10.0), "10 µs");
        assert_eq!(axis_us(2.5e6), "2.5 s");
        assert_eq!(axis_us(0.1), "100 ns");
        assert_eq!(fmt_us(Some(12.345)), "12.3 µs");
        assert_eq!(fmt_us(Some(345.6)), "346 µs");
    }
}
