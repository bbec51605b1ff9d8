//! Running one query with the chosen planner and turning it into a JSON object.

use std::time::Instant;

use serde::Serialize;
use walkmask::subgoal::IndexPolicy;
use walkmask::{NavGrid, PathOptions, PathResult, Pathfinder, Point, QueryError};

/// Which planner answers queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Planner {
    /// The walkmask planner as a game uses it: the mask's subgoal index is built
    /// once when the library's rule says it pays (most masks but dense noise), and
    /// queries search it; otherwise they fill.
    Auto,
    /// The walkmask planner with the subgoal index built whatever the mask.
    Index,
    /// The walkmask planner without the index: straight line first, then a distance
    /// fill toward the start, trace, simplify, line-of-sight shortcuts and the taut
    /// step.
    Fill,
    /// Baseline: octile A* over the pixel grid (no straight-line shortcut first),
    /// then the same simplification and shortcuts.
    Astar,
    /// Baseline: breadth-first frontier search (fewest steps, not shortest length),
    /// then the same simplification and shortcuts.
    Bfs,
}

/// Answers queries on one grid, reusing the planner's buffers between queries.
pub struct Answerer<'g> {
    grid: &'g NavGrid,
    planner: Planner,
    options: PathOptions,
    pathfinder: Pathfinder,
}

impl<'g> Answerer<'g> {
    /// An answerer for `grid`.
    pub fn new(grid: &'g NavGrid, planner: Planner, options: PathOptions) -> Self {
        match planner {
            Planner::Auto => {
                grid.build_index(IndexPolicy::WhenItPays);
            }
            Planner::Index => {
                grid.build_index(IndexPolicy::Always);
            }
            Planner::Fill | Planner::Astar | Planner::Bfs => {}
        }
        let options = PathOptions {
            use_index: planner != Planner::Fill,
            ..options
        };
        Self {
            grid,
            planner,
            options,
            pathfinder: Pathfinder::with_options(options),
        }
    }

    /// Answers one query, timing only the planner call.
    pub fn answer(&mut self, start: Point, goal: Point) -> (Result<PathResult, QueryError>, f64) {
        let t0 = Instant::now();
        let result = match self.planner {
            Planner::Auto | Planner::Index | Planner::Fill => {
                self.pathfinder.find_path(self.grid, start, goal)
            }
            Planner::Astar => walkmask::baseline::astar(self.grid, start, goal, &self.options),
            Planner::Bfs => walkmask::baseline::frontier_bfs(self.grid, start, goal, &self.options),
        };
        let micros = t0.elapsed().as_nanos() as f64 / 1000.0;
        (result, micros)
    }
}

/// One output object: `{"status", "waypoints", "length", "visited", "micros"}`, plus
/// `"optimal"` for scenario queries and `"error"` when the query was rejected.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    /// `found`, `snapped`, `unreachable` or `error`.
    pub status: &'static str,
    /// The walk as `[x, y]` points in pixel units.
    pub waypoints: Vec<[f32; 2]>,
    /// Length of the walk in pixels.
    pub length: f32,
    /// Pixels the search settled.
    pub visited: usize,
    /// Wall time of the query in microseconds.
    pub micros: f64,
    /// The scenario's optimal length (`.scen` input only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimal: Option<f64>,
    /// Why the query was rejected (status `error` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Answer {
    /// The object for a planner's answer.
    pub fn from_result(result: Result<PathResult, QueryError>, micros: f64) -> Self {
        match result {
            Ok(path) => Self {
                status: path.status.as_str(),
                waypoints: path.waypoints.iter().map(|p| [p.x, p.y]).collect(),
                length: path.length,
                visited: path.stats.visited,
                micros: round_micros(micros),
                optimal: None,
                error: None,
            },
            Err(e) => {
                let mut a = Self::error(e.to_string());
                a.micros = round_micros(micros);
                a
            }
        }
    }

    /// The object for a query that could not be asked (unparsable line and so on).
    pub fn error(message: String) -> Self {
        Self {
            status: "error",
            waypoints: Vec::new(),
            length: 0.0,
            visited: 0,
            micros: 0.0,
            optimal: None,
            error: Some(message),
        }
    }
}

/// Microseconds to the nanosecond (three decimals).
fn round_micros(micros: f64) -> f64 {
    (micros * 1000.0).round() / 1000.0
}
