//! Path queries: endpoints, straight line first, fill, trace, simplify, beautify.

use std::time::Duration;
use web_time::Instant;

use crate::fill::FillScratch;
use crate::geom::polyline_length;
use crate::los::line_of_sight;
use crate::obstacles::{ObstacleView, Obstacles};
use crate::simplify::simplify_runs;
use crate::smooth::beautify;
use crate::snap::{nearest_in_region, step_off_pixels};
use crate::subgoal::{IndexScratch, for_each_corner_path_pixel};
use crate::taut::tauten;
use crate::trace::trace_downhill;
use crate::{DistanceField, NavGrid, Point};

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathStatus {
    /// The path ends at the requested destination.
    Found,
    /// The destination was blocked or unreachable; the path ends at the centre of the
    /// reachable pixel nearest to it.
    Snapped,
    /// No path: nothing walkable near the start, or snapping was turned off and the
    /// destination cannot be reached.
    Unreachable,
}

impl PathStatus {
    /// `"found"`, `"snapped"` or `"unreachable"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PathStatus::Found => "found",
            PathStatus::Snapped => "snapped",
            PathStatus::Unreachable => "unreachable",
        }
    }
}

/// Counters of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Pixels the search settled (0 when the straight line was clear).
    pub visited: usize,
    /// Stretches of the index's path walked round obstacles nearby
    /// ([`ObstacleDetours::Local`]); 0 for every other answer.
    pub local_detours: usize,
    /// Whether a distance fill from one end answered (no subgoal index, or obstacles
    /// on the index's path that no local detour walked round, or an end they cover
    /// or cut off) rather than the straight line, the index or a warm field: the
    /// slow kind of answer, worth counting where searches run often.
    pub filled: bool,
    /// Wall time of the query.
    pub elapsed: Duration,
}

/// A query's answer: plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct PathResult {
    /// How it ended.
    pub status: PathStatus,
    /// The walk, from the (possibly snapped) start to the end. Empty when
    /// unreachable; a single point when start and end coincide.
    pub waypoints: Vec<Point>,
    /// Length of the walk in pixels.
    pub length: f32,
    /// Whether the requested start was on a pixel the walk may not use, so that the
    /// walk starts at the centre of the nearest walkable pixel instead (its first
    /// waypoint is not the requested start).
    pub start_moved: bool,
    /// Counters.
    pub stats: PathStats,
}

impl PathResult {
    /// A result with no path.
    pub fn unreachable(visited: usize, elapsed: Duration) -> Self {
        Self {
            status: PathStatus::Unreachable,
            waypoints: Vec::new(),
            length: 0.0,
            start_moved: false,
            stats: PathStats {
                visited,
                local_detours: 0,
                filled: false,
                elapsed,
            },
        }
    }

    /// Whether there is a path to walk (found or snapped).
    pub fn is_walkable(&self) -> bool {
        self.status != PathStatus::Unreachable
    }
}

/// Why a query could not be answered.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// A coordinate is NaN or infinite.
    #[error("{which} point ({x}, {y}) is not a finite number")]
    NotFinite {
        /// `"start"` or `"destination"`.
        which: &'static str,
        /// x as given.
        x: f32,
        /// y as given.
        y: f32,
    },
    /// A point lies outside `[0, width) x [0, height)`.
    #[error("{which} point ({x}, {y}) is outside the {width} x {height} mask")]
    OutsideMask {
        /// `"start"` or `"destination"`.
        which: &'static str,
        /// x as given.
        x: f32,
        /// y as given.
        y: f32,
        /// Mask width.
        width: u32,
        /// Mask height.
        height: u32,
    },
}

/// Options of a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathOptions {
    /// When the destination is blocked or unreachable, walk to the reachable pixel
    /// nearest to it (status [`PathStatus::Snapped`]) instead of answering
    /// [`PathStatus::Unreachable`]. Default: true.
    pub snap_destination: bool,
    /// Line-of-sight shortcuts after the trace (seed 000's beautification), when
    /// the path is not pulled taut: pulling taut makes the same shortcuts and then
    /// wraps the corners they leave. Default: true.
    pub beautify: bool,
    /// Pull the path taut ([`crate::taut`]): the shortest path round the same
    /// obstacles, turning at their corners. Default: true.
    pub taut: bool,
    /// Walk from pixel centre to pixel centre in the 8 grid directions (tile-by-tile
    /// movement when one pixel is one tile): no straight line from start to end, no
    /// shortcuts, no pulling taut, and the path ends at the centre of the end pixel
    /// instead of the exact end point. It never cuts a corner: a diagonal step only
    /// passes where both pixels beside it are open. Default: false.
    pub grid_steps: bool,
    /// Search the grid's subgoal index ([`crate::subgoal`]) when it has one
    /// ([`NavGrid::build_index`]); otherwise, or when false, the fill. Both find
    /// paths of the same octile length; the index is usually many times faster on
    /// large masks. Grid-step queries always use the fill. Default: true.
    pub use_index: bool,
    /// How a query among obstacles ([`Pathfinder::find_path_among`]) goes round the
    /// obstacles that block the subgoal index's path. Default:
    /// [`ObstacleDetours::Shortest`].
    pub obstacle_detours: ObstacleDetours,
}

impl Default for PathOptions {
    fn default() -> Self {
        Self {
            snap_destination: true,
            beautify: true,
            taut: true,
            grid_steps: false,
            use_index: true,
            obstacle_detours: ObstacleDetours::Shortest,
        }
    }
}

/// How a query among obstacles answers when obstacles block the path the subgoal
/// index finds on the mask (the index sees the mask only).
///
/// ```
/// use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
/// use walkmask::subgoal::IndexPolicy;
/// use walkmask::{AreaSet, NavGrid, ObstacleDetours, PathOptions, Pathfinder, PathStatus, Point, WalkMask};
///
/// // A hall 400 x 60 with a character standing in the middle of it.
/// let grid = NavGrid::new(WalkMask::from_fn(400, 60, |x, y| u8::from(y > 0 || x < 5)).unwrap(), AreaSet::all());
/// grid.build_index(IndexPolicy::Always);
/// let mut obstacles = Obstacles::new(&grid);
/// obstacles.push(Obstacle::new(Point::new(200.0, 30.0), Footprint::Circle { radius: 8.0 })).unwrap();
/// let mut pathfinder = Pathfinder::with_options(PathOptions {
///     obstacle_detours: ObstacleDetours::Local,
///     ..PathOptions::default()
/// });
/// let path = pathfinder
///     .find_path_among(&grid, &obstacles, Point::new(10.5, 30.5), Point::new(390.5, 30.5))
///     .unwrap();
/// assert_eq!(path.status, PathStatus::Found);
/// assert!(path.waypoints.len() > 2); // round the character
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ObstacleDetours {
    /// The shortest path among the obstacles: a fill over the grid with the
    /// obstacles painted in, which on a large mask may cover much of the region.
    #[default]
    Shortest,
    /// The index's path with each stretch that obstacles block walked round them
    /// from a little before the stretch to a little after it (a fill over that
    /// neighbourhood only, at most [`LOCAL_DETOUR_PIXELS_PER_STEP`] pixels per step
    /// of the stretch squared). Where that does not find a way (the obstacles close
    /// a passage, or cover the destination) the query answers as
    /// [`ObstacleDetours::Shortest`]. The path never enters an obstacle and ends
    /// where the shortest one would; it goes round each obstacle by the shorter side
    /// nearby, which is not always the shortest walk overall. Without an index (or
    /// with [`PathOptions::use_index`] off) it answers as
    /// [`ObstacleDetours::Shortest`].
    Local,
}

/// Steps of the index's path kept on each side of a stretch that obstacles block,
/// at least, when [`ObstacleDetours::Local`] walks round it.
pub const LOCAL_DETOUR_MARGIN: usize = 24;

/// The fill of a local detour ([`ObstacleDetours::Local`]) settles at most this many
/// pixels for every step of its stretch squared (plus 4,096) before the query falls
/// back to the shortest path.
pub const LOCAL_DETOUR_PIXELS_PER_STEP: usize = 16;

/// Before a fill among obstacles floods the mask from one end, a fill from the other
/// end settles at most this many pixels to find whether obstacles close it in (a
/// walker standing among others, or sent among them): then the first fill would
/// settle every pixel it reaches and still not reach it.
const POCKET_PIXELS: usize = 16_384;

/// A destination that obstacles cover or cut off is answered with the nearest
/// reachable pixel looked for among the pixels within this many pixels of it first
/// (beyond, one fill over the start's whole region finds it).
const OUTWARD_REACH: u32 = 96;

/// The pixels round a point in order of distance from it (squared, between the point
/// and their centres; ties in row-major order), within [`OUTWARD_REACH`] of it: a
/// best-first flood from the point's pixel over its 4-neighbours. Each pixel has a
/// neighbour at most as far that is one step nearer the point's pixel, so the flood
/// gives every pixel only after all nearer ones.
#[derive(Debug, Default)]
struct Rings {
    /// (squared distance's bits, padded index), least first.
    queue: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>>,
    /// One bit per pixel of the square window of side `2 * OUTWARD_REACH + 1`
    /// round the point's pixel: queued already.
    queued: Vec<u64>,
    /// The window's top-left pixel (may lie outside the grid).
    corner: (i64, i64),
    /// The point.
    point: (f64, f64),
    /// One bit per pixel of the window: known not to be reachable, passed over.
    closed: Vec<u64>,
    /// One bit per pixel of the window: joined to a pixel tried already, which was
    /// not closed in, so no fill need look for a pocket round it again.
    open: Vec<u64>,
}

impl Rings {
    const SIDE: i64 = 2 * OUTWARD_REACH as i64 + 1;

    /// Starts over round `point` (inside `grid`).
    fn begin(&mut self, grid: &NavGrid, point: Point) {
        let (x, y) = point.pixel().expect("a checked point");
        let words = (Self::SIDE * Self::SIDE) as usize / 64 + 1;
        self.queue.clear();
        self.queued.clear();
        self.queued.resize(words, 0);
        self.closed.clear();
        self.closed.resize(words, 0);
        self.open.clear();
        self.open.resize(words, 0);
        self.corner = (
            x as i64 - OUTWARD_REACH as i64,
            y as i64 - OUTWARD_REACH as i64,
        );
        self.point = (point.x as f64, point.y as f64);
        self.push(grid, x as i64, y as i64);
    }

    /// The window's bit of pixel `(x, y)`, if it lies in the window and the grid.
    fn bit(&self, grid: &NavGrid, x: i64, y: i64) -> Option<usize> {
        let (wx, wy) = (x - self.corner.0, y - self.corner.1);
        let inside = x >= 0
            && y >= 0
            && x < grid.width() as i64
            && y < grid.height() as i64
            && (0..Self::SIDE).contains(&wx)
            && (0..Self::SIDE).contains(&wy);
        inside.then_some((wy * Self::SIDE + wx) as usize)
    }

    /// Marks the pixels (padded indices) as not reachable.
    fn close(&mut self, grid: &NavGrid, pixels: impl Iterator<Item = usize>) {
        Self::mark(&mut self.closed, self.corner, grid, pixels);
    }

    /// Whether pixel `index` (padded, in the window) is marked not reachable.
    fn is_closed(&self, grid: &NavGrid, index: usize) -> bool {
        self.is_marked(&self.closed, grid, index)
    }

    /// Marks the pixels (padded indices) as joined to a pixel not closed in.
    fn open(&mut self, grid: &NavGrid, pixels: impl Iterator<Item = usize>) {
        Self::mark(&mut self.open, self.corner, grid, pixels);
    }

    /// Whether pixel `index` (padded, in the window) is marked joined to a pixel not
    /// closed in.
    fn is_open(&self, grid: &NavGrid, index: usize) -> bool {
        self.is_marked(&self.open, grid, index)
    }

    /// Sets the bits of the pixels (padded indices) that lie in the window whose
    /// top-left pixel is `corner`.
    fn mark(
        bits: &mut [u64],
        corner: (i64, i64),
        grid: &NavGrid,
        pixels: impl Iterator<Item = usize>,
    ) {
        for index in pixels {
            let (x, y) = grid.pixel_of(index);
            let (wx, wy) = (x as i64 - corner.0, y as i64 - corner.1);
            if (0..Self::SIDE).contains(&wx) && (0..Self::SIDE).contains(&wy) {
                let bit = (wy * Self::SIDE + wx) as usize;
                bits[bit / 64] |= 1 << (bit % 64);
            }
        }
    }

    /// Whether pixel `index` (padded) lies in the window and its bit is set.
    fn is_marked(&self, bits: &[u64], grid: &NavGrid, index: usize) -> bool {
        let (x, y) = grid.pixel_of(index);
        self.bit(grid, x as i64, y as i64)
            .is_some_and(|bit| bits[bit / 64] & (1 << (bit % 64)) != 0)
    }

    /// Queues pixel `(x, y)` unless it is outside the grid or the window, or queued.
    fn push(&mut self, grid: &NavGrid, x: i64, y: i64) {
        let Some(bit) = self.bit(grid, x, y) else {
            return;
        };
        if self.queued[bit / 64] & (1 << (bit % 64)) != 0 {
            return;
        }
        self.queued[bit / 64] |= 1 << (bit % 64);
        let (dx, dy) = (x as f64 + 0.5 - self.point.0, y as f64 + 0.5 - self.point.1);
        let gap = dx * dx + dy * dy;
        let index = grid.index(x as u32, y as u32);
        self.queue.push(std::cmp::Reverse((gap.to_bits(), index)));
    }

    /// The next pixel (squared distance, padded index), or `None` once the next one
    /// may have a nearer one outside the window.
    fn next(&mut self, grid: &NavGrid) -> Option<(f64, usize)> {
        let std::cmp::Reverse((bits, index)) = self.queue.pop()?;
        let gap = f64::from_bits(bits);
        // Every pixel outside the window is at least `OUTWARD_REACH - 0.5` away.
        let edge = OUTWARD_REACH as f64 - 1.0;
        if gap >= edge * edge {
            return None;
        }
        let (x, y) = grid.pixel_of(index);
        let (x, y) = (x as i64, y as i64);
        self.push(grid, x - 1, y);
        self.push(grid, x + 1, y);
        self.push(grid, x, y - 1);
        self.push(grid, x, y + 1);
        Some((gap, index))
    }

    /// Bytes held.
    fn memory_bytes(&self) -> usize {
        self.queue.capacity() * 16
            + (self.queued.capacity() + self.closed.capacity() + self.open.capacity()) * 8
    }
}

/// The two ends of a query after validation and snapping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Endpoints {
    /// Where the walk starts (moved to the nearest walkable pixel centre when the
    /// requested start was blocked).
    pub start: Point,
    /// Pixel of `start`.
    pub start_pixel: (u32, u32),
    /// Where the walk ends.
    pub end: Point,
    /// Pixel of `end`.
    pub end_pixel: (u32, u32),
    /// Whether `end` differs from the requested destination.
    pub snapped: bool,
    /// Whether `start` differs from the requested start (it was on a blocked pixel).
    pub start_moved: bool,
}

/// Validates `start` and `goal` and applies the snapping rules. `Ok(None)` means
/// unreachable (nothing walkable, or a destination in another region with snapping
/// off).
pub fn resolve_endpoints(
    grid: &NavGrid,
    start: Point,
    goal: Point,
    options: &PathOptions,
) -> Result<Option<Endpoints>, QueryError> {
    check_point(grid, start, "start")?;
    check_point(grid, goal, "destination")?;
    let goal_pixel = goal.pixel().expect("checked");
    let goal_region = grid.region(goal_pixel.0, goal_pixel.1);
    let (mut start, mut start_pixel) = (start, start.pixel().expect("checked"));
    let mut start_moved = false;
    let region = match grid.region(start_pixel.0, start_pixel.1) {
        Some(r) => r,
        None => {
            start_moved = true;
            let Some(p) = step_off_blocked_start(grid, start, goal, goal_region) else {
                return Ok(None);
            };
            start_pixel = p;
            start = Point::pixel_center(p.0, p.1);
            grid.region(p.0, p.1).expect("walkable")
        }
    };
    if goal_region == Some(region) {
        return Ok(Some(Endpoints {
            start,
            start_pixel,
            end: goal,
            end_pixel: goal_pixel,
            snapped: false,
            start_moved,
        }));
    }
    if !options.snap_destination {
        return Ok(None);
    }
    let end_pixel = nearest_in_region(grid, goal, region).expect("the start's region is not empty");
    Ok(Some(Endpoints {
        start,
        start_pixel,
        end: Point::pixel_center(end_pixel.0, end_pixel.1),
        end_pixel,
        snapped: true,
        start_moved,
    }))
}

/// Where a walker standing on a blocked pixel at `start` steps first: the nearest
/// walkable pixel, in a straight line over the floor when it stands on the floor
/// ([`step_off_pixels`]; none when it is boxed in). Among equally near ones it takes one in the goal's region, else
/// one whose region comes nearest to the goal, so that a tie never strands the walk.
fn step_off_blocked_start(
    grid: &NavGrid,
    start: Point,
    goal: Point,
    goal_region: Option<u32>,
) -> Option<(u32, u32)> {
    let nearest = step_off_pixels(grid, start);
    if grid.has_obstacles() && nearest.len() > 1 {
        return nearest_to_goal_among_obstacles(grid, &nearest, goal);
    }
    let region_of = |p: &(u32, u32)| grid.region(p.0, p.1).expect("walkable");
    if nearest
        .iter()
        .all(|p| region_of(p) == region_of(&nearest[0]))
    {
        return nearest.first().copied();
    }
    if let Some(p) = nearest.iter().find(|p| Some(region_of(p)) == goal_region) {
        return Some(*p);
    }
    // Each candidate's region, scored once by how near it comes to the goal.
    let gap_to_goal = |p: &(u32, u32)| {
        let q = nearest_in_region(grid, goal, region_of(p)).expect("the region has p");
        let (dx, dy) = (
            q.0 as f64 + 0.5 - goal.x as f64,
            q.1 as f64 + 0.5 - goal.y as f64,
        );
        dx * dx + dy * dy
    };
    nearest
        .iter()
        .map(|p| (gap_to_goal(p), *p))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, p)| p)
}

/// Among `candidates` (equally near a blocked start), the one from which a walker
/// comes nearest to `goal`. Obstacles may cut a region of the mask apart, so region
/// labels cannot tell: each candidate gets a fill of all it reaches (a rare case: a
/// start on a blocked pixel with several nearest pixels, among obstacles).
fn nearest_to_goal_among_obstacles(
    grid: &NavGrid,
    candidates: &[(u32, u32)],
    goal: Point,
) -> Option<(u32, u32)> {
    let mut scratch = FillScratch::new();
    candidates
        .iter()
        .map(|&(x, y)| {
            scratch.fill(grid, grid.index(x, y), None);
            let best = scratch
                .nearest_reached(grid, goal)
                .map_or(f64::INFINITY, |(gap, _)| gap);
            (best, (x, y))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, p)| p)
}

fn check_point(grid: &NavGrid, p: Point, which: &'static str) -> Result<(), QueryError> {
    if !p.is_finite() {
        return Err(QueryError::NotFinite {
            which,
            x: p.x,
            y: p.y,
        });
    }
    if !grid.contains(p) {
        return Err(QueryError::OutsideMask {
            which,
            x: p.x,
            y: p.y,
            width: grid.width(),
            height: grid.height(),
        });
    }
    Ok(())
}

/// Builds the final waypoints from a pixel chain running from the start pixel to the
/// end pixel (8-neighbour steps, or corners joined by straight runs as the subgoal
/// index gives them): pixel centres, collinear runs dropped, the exact start and end points
/// put at the ends, then pulled taut or beautified (as `options` say). With
/// [`PathOptions::grid_steps`] it is the exact start then the pixel centres, ending
/// at the end pixel's centre.
pub fn finish_path(
    grid: &NavGrid,
    pixels: &[(u32, u32)],
    start: Point,
    end: Point,
    options: &PathOptions,
) -> Vec<Point> {
    let runs = simplify_runs(pixels);
    let mut path = Vec::with_capacity(runs.len() + 2);
    path.push(start);
    for &(x, y) in &runs {
        let c = Point::pixel_center(x, y);
        if path.last() != Some(&c) {
            path.push(c);
        }
    }
    if options.grid_steps {
        return path;
    }
    if path.last() != Some(&end) {
        path.push(end);
    }
    if options.taut {
        // The pull makes every shortcut the beautification would, and then goes
        // round the corners they leave: beautifying first only costs time.
        tauten(grid, &mut path);
    } else if options.beautify {
        beautify(grid, &mut path);
    }
    path
}

/// Wraps finished waypoints into a result.
pub(crate) fn result(
    ends: &Endpoints,
    waypoints: Vec<Point>,
    visited: usize,
    started: Instant,
) -> PathResult {
    PathResult {
        status: if ends.snapped {
            crate::PathStatus::Snapped
        } else {
            crate::PathStatus::Found
        },
        length: polyline_length(&waypoints),
        start_moved: ends.start_moved,
        waypoints,
        stats: PathStats {
            visited,
            local_detours: 0,
            filled: false,
            elapsed: started.elapsed(),
        },
    }
}

/// Answers path queries, reusing its buffers from one query to the next. Keep one per
/// worker thread; it is `Send`.
#[derive(Debug, Default)]
pub struct Pathfinder {
    scratch: FillScratch,
    index_scratch: IndexScratch,
    chain: Vec<usize>,
    pixels: Vec<(u32, u32)>,
    /// The index's path pixel by pixel, for [`ObstacleDetours::Local`].
    detour_path: Vec<(u32, u32)>,
    options: PathOptions,
    /// Obstacle bits for [`Pathfinder::find_path_among`], reused.
    obstacle_view: ObstacleView,
    /// The pixels round a destination that obstacles cover, nearest first.
    rings: Rings,
}

impl Pathfinder {
    /// A pathfinder with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// A pathfinder with `options`.
    pub fn with_options(options: PathOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The options.
    pub fn options(&self) -> &PathOptions {
        &self.options
    }

    /// Changes the options for the next queries (the scratch is kept).
    pub fn set_options(&mut self, options: PathOptions) {
        self.options = options;
    }

    /// Bytes held by the reusable buffers.
    pub fn memory_bytes(&self) -> usize {
        self.scratch.memory_bytes()
            + self.index_scratch.memory_bytes()
            + self.chain.capacity() * 8
            + self.pixels.capacity() * 8
            + self.detour_path.capacity() * 8
            + self.obstacle_view.memory_bytes()
            + self.rings.memory_bytes()
    }

    /// A path from `start` to `goal` on `grid` (points in pixel units).
    ///
    /// The straight line is tried first. Otherwise, when the grid has a subgoal index
    /// ([`NavGrid::build_index`]), A* over the index gives the corner path; without
    /// one, a distance fill runs from one end toward the other and stops once it is
    /// settled, and the path is traced downhill. Either way the path is then
    /// simplified, beautified and pulled taut. The way back (`goal` to `start`) is
    /// the same walk reversed.
    pub fn find_path(
        &mut self,
        grid: &NavGrid,
        start: Point,
        goal: Point,
    ) -> Result<PathResult, QueryError> {
        self.find_path_with(grid, start, goal, EndSearch::Nearest)
    }

    /// [`Pathfinder::find_path`], where `end_search` says what a query among
    /// obstacles does when they cover its end or cut it off.
    fn find_path_with(
        &mut self,
        grid: &NavGrid,
        start: Point,
        goal: Point,
        end_search: EndSearch,
    ) -> Result<PathResult, QueryError> {
        let started = Instant::now();
        let Some(ends) = resolve_endpoints(grid, start, goal, &self.options)? else {
            return Ok(PathResult::unreachable(0, started.elapsed()));
        };
        if !self.options.grid_steps && line_of_sight(grid, ends.start, ends.end) {
            let waypoints = if ends.start == ends.end {
                vec![ends.start]
            } else {
                vec![ends.start, ends.end]
            };
            return Ok(result(&ends, waypoints, 0, started));
        }
        // A walk and its way back are found and finished the same way, from the end
        // whose pixel has the smaller index to the other, and the way back is that
        // walk reversed: the two go round every obstacle on the same side and are
        // equally long. (Grid steps end on a pixel centre and keep their direction.)
        let backwards = !self.options.grid_steps
            && grid.index(ends.start_pixel.0, ends.start_pixel.1)
                > grid.index(ends.end_pixel.0, ends.end_pixel.1);
        let (first, last, first_pixel, last_pixel) = if backwards {
            (ends.end, ends.start, ends.end_pixel, ends.start_pixel)
        } else {
            (ends.start, ends.end, ends.start_pixel, ends.end_pixel)
        };
        let finish = |this: &Self| {
            let mut waypoints = finish_path(grid, &this.pixels, first, last, &this.options);
            if backwards {
                waypoints.reverse();
            }
            waypoints
        };
        let expanded = match self.path_by_index(grid, first_pixel, last_pixel) {
            IndexPath::Open(expanded) => {
                return Ok(result(&ends, finish(self), expanded, started));
            }
            IndexPath::Blocked(expanded)
                if self.options.obstacle_detours == ObstacleDetours::Local =>
            {
                match self.detour_locally(grid) {
                    Ok((settled, detours)) => {
                        let mut answer = result(&ends, finish(self), expanded + settled, started);
                        answer.stats.local_detours = detours;
                        return Ok(answer);
                    }
                    // The pixels its fills settled count with the rest of the query's.
                    Err(settled) => expanded + settled,
                }
            }
            IndexPath::Blocked(expanded) => expanded,
            IndexPath::None => 0,
        };
        if end_search == EndSearch::WithoutFill {
            return Ok(PathResult::unreachable(expanded, started.elapsed()));
        }
        // The fill runs from the last pixel toward the first; the trace runs back.
        let source = grid.index(last_pixel.0, last_pixel.1);
        let target = grid.index(first_pixel.0, first_pixel.1);
        // Among obstacles, small fills from the ends first: if obstacles close one
        // in, its fill settles all it reaches without the other end, and the answer
        // is the nearest reachable pixel's without a fill that floods the mask from
        // the other end to find that out. The destination is looked at first (a
        // click lands among characters more often than a walker stands closed in),
        // the start only when the fill would run toward it: a fill from a start
        // closed in stops by itself.
        // What was settled before the fill: subgoals the index expanded, pixels local
        // detours that found no way round and the looks for a pocket settled.
        let mut settled_before = expanded;
        let mut pocket = None;
        if grid.has_obstacles() && end_search == EndSearch::Nearest {
            let (start_index, end_index) = (
                grid.index(ends.start_pixel.0, ends.start_pixel.1),
                grid.index(ends.end_pixel.0, ends.end_pixel.1),
            );
            let looks = [
                Some((end_index, start_index, ends.end_pixel)),
                (target == start_index).then_some((start_index, end_index, ends.start_pixel)),
            ];
            for (from, toward, pixel) in looks.into_iter().flatten() {
                let fill = self
                    .scratch
                    .fill_within(grid, from, Some(toward), POCKET_PIXELS);
                if !fill.reached && fill.settled <= POCKET_PIXELS {
                    pocket = Some((fill, pixel));
                    break;
                }
                settled_before += fill.settled;
                if fill.reached {
                    break; // the ends are joined: neither is closed in
                }
            }
        }
        // The fill in the scratch and the pixel it ran from: when it does not reach
        // the other end, it has settled every pixel its own end reaches.
        let (outcome, filled_from) = match pocket {
            Some(closed_in) => closed_in,
            None => (self.scratch.fill(grid, source, Some(target)), last_pixel),
        };
        self.chain.clear();
        let mut answer = if !outcome.reached && grid.has_obstacles() {
            // Obstacles cover the end or cut it off from the start.
            if end_search == EndSearch::ReachedOnly {
                return Ok(PathResult::unreachable(
                    outcome.settled + settled_before,
                    started.elapsed(),
                ));
            }
            let filled = FilledSide {
                from_start: filled_from == ends.start_pixel,
                settled: outcome.settled,
            };
            let mut nearest = self.nearest_reachable(grid, &ends, goal, filled, started);
            nearest.stats.visited += settled_before;
            return Ok(nearest);
        } else if !outcome.reached || {
            let toward = (last.x, last.y);
            !trace_downhill(grid, &self.scratch.dist, target, toward, &mut self.chain)
        } {
            // Same region guarantees reachability; kept as a defensive answer.
            PathResult::unreachable(outcome.settled, started.elapsed())
        } else {
            self.pixels.clear();
            self.pixels
                .extend(self.chain.iter().map(|&i| grid.pixel_of(i)));
            result(&ends, finish(self), outcome.settled, started)
        };
        answer.stats.filled = true;
        answer.stats.visited += settled_before;
        Ok(answer)
    }

    /// The corners of the path from pixel `from` to pixel `to` by the grid's index
    /// (straight runs between them), in `self.pixels`, with the number of subgoals
    /// expanded; `None` when the fill must answer (no index, turned off, grid steps,
    /// or a path an obstacle blocks: the index sees the mask only, and its path, when
    /// clear of them, is still the shortest among them).
    fn path_by_index(&mut self, grid: &NavGrid, from: (u32, u32), to: (u32, u32)) -> IndexPath {
        if !self.options.use_index || self.options.grid_steps {
            return IndexPath::None;
        }
        let Some(index) = grid.subgoal_index() else {
            return IndexPath::None;
        };
        if index
            .shortest_path(grid, &mut self.index_scratch, from, to, &mut self.pixels)
            .is_none()
        {
            return IndexPath::None;
        }
        let expanded = self.index_scratch.expanded();
        if grid.has_obstacles() && !corner_path_is_open(grid, &self.pixels) {
            return IndexPath::Blocked(expanded);
        }
        IndexPath::Open(expanded)
    }

    /// [`ObstacleDetours::Local`]: turns the index's corner path in `self.pixels`
    /// (blocked by obstacles somewhere) into a pixel chain that walks round each
    /// blocked stretch, from [`LOCAL_DETOUR_MARGIN`] steps (or more) before it to as
    /// many after it, by a fill toward the stretch's start over its neighbourhood.
    /// Returns the pixels settled and the stretches walked round, or `Err` with the
    /// pixels settled (and `self.pixels` unusable) when a stretch cannot be walked
    /// round within its budget or the path ends on an obstacle.
    fn detour_locally(&mut self, grid: &NavGrid) -> Result<(usize, usize), usize> {
        let mut path = std::mem::take(&mut self.detour_path);
        path.clear();
        for_each_corner_path_pixel(&self.pixels, |p| path.push(p));
        let n = path.len();
        let open = |a: (u32, u32), b: (u32, u32)| step_is_open(grid, a, b);
        let mut out = std::mem::take(&mut self.pixels);
        out.clear();
        let (mut settled, mut detours) = (0usize, 0usize);
        // `path[copied..]` is still to be copied, and every step from `path[copied]`
        // to `path[next - 1]` is open.
        let (mut copied, mut next) = (0usize, 1usize);
        let answer = loop {
            while next < n && open(path[next - 1], path[next]) {
                next += 1;
            }
            if next >= n {
                out.extend_from_slice(&path[copied..]);
                break Ok((settled, detours));
            }
            // The step from `path[next - 1]` is blocked. The window runs from
            // `margin` steps before it to `margin` steps after the first walkable
            // pixel past it, widened over any further blocked step inside it.
            let last_open = next - 1;
            let mut after = next;
            let window = loop {
                while after < n && !grid.is_walkable(path[after].0, path[after].1) {
                    after += 1;
                }
                if after >= n {
                    break None; // the path ends on an obstacle
                }
                let margin = LOCAL_DETOUR_MARGIN.max(after - last_open);
                let before = last_open.saturating_sub(margin).max(copied);
                let end = (after + margin).min(n - 1);
                match (after + 1..=end).find(|&k| !open(path[k - 1], path[k])) {
                    Some(k) => after = k,
                    None => break Some((before, end)),
                }
            };
            let Some((before, end)) = window else {
                break Err(settled);
            };
            let (a, b) = (path[before], path[end]);
            let steps = end - before;
            let budget = steps
                .saturating_mul(steps)
                .saturating_mul(LOCAL_DETOUR_PIXELS_PER_STEP)
                .saturating_add(4096);
            // The fill runs from the window's far end toward its near one, except
            // from the path's first pixel when the window starts there: obstacles
            // close in the ends of walks (a click among characters), and a fill from
            // a closed-in end stops within its pocket, while one toward it would
            // settle its whole budget before giving up.
            let from_first = before == 0 && end != n - 1;
            let (from, to) = if from_first { (a, b) } else { (b, a) };
            let source = grid.index(from.0, from.1);
            let target = grid.index(to.0, to.1);
            let outcome = self.scratch.fill_within(grid, source, Some(target), budget);
            settled += outcome.settled;
            self.chain.clear();
            let toward = (from.0 as f32 + 0.5, from.1 as f32 + 0.5);
            if !outcome.reached
                || !trace_downhill(grid, &self.scratch.dist, target, toward, &mut self.chain)
            {
                break Err(settled);
            }
            if from_first {
                self.chain.reverse();
            }
            // `path[copied..before]`, then the detour from `a` up to (not including)
            // `b`, which starts what is still to be copied.
            self.chain.pop();
            out.extend_from_slice(&path[copied..before]);
            out.extend(self.chain.iter().map(|&i| grid.pixel_of(i)));
            copied = end;
            next = end + 1;
            detours += 1;
        };
        self.detour_path = path;
        self.pixels = out;
        answer
    }

    /// Like [`Pathfinder::find_path`], among `obstacles` (made for this grid): their
    /// pixels are blocked too, except those of any obstacle covering the start's
    /// pixel (a walker can always leave a footprint it stands in). A destination
    /// covered by an obstacle, or cut off by obstacles, is answered with the
    /// reachable pixel nearest to it ([`PathStatus::Snapped`]), as a blocked one is.
    ///
    /// The obstacles are marked in a bitmap this pathfinder keeps (one bit a pixel)
    /// and cleared after the query, so the cost over [`Pathfinder::find_path`] is a
    /// few microseconds plus one bit test per pixel looked at.
    pub fn find_path_among(
        &mut self,
        grid: &NavGrid,
        obstacles: &Obstacles,
        start: Point,
        goal: Point,
    ) -> Result<PathResult, QueryError> {
        if obstacles.is_empty() {
            return self.find_path(grid, start, goal);
        }
        let except = start
            .pixel()
            .filter(|&(x, y)| x < grid.width() && y < grid.height());
        let mut view = std::mem::take(&mut self.obstacle_view);
        let result = view.look(grid, obstacles, except, |seen| {
            self.find_path(seen, start, goal)
        });
        self.obstacle_view = view;
        result
    }

    /// The path to the reachable pixel nearest to `goal` (ties: the shorter walk),
    /// for destinations that obstacles cover or cut off. `filled` tells which end's
    /// pixels the fill in the scratch settled (all it reaches). From the start, the
    /// answer is read off that fill. From the end, whose pixels are then known not
    /// to be reachable, it is looked for outward from `goal` first
    /// ([`Pathfinder::nearest_reachable_outward`]), else by one fill over everything
    /// the start reaches.
    fn nearest_reachable(
        &mut self,
        grid: &NavGrid,
        ends: &Endpoints,
        goal: Point,
        filled: FilledSide,
        started: Instant,
    ) -> PathResult {
        if !self.options.snap_destination {
            // The end's own pixel is not reachable (that is why this runs), and no
            // other end may be taken.
            return PathResult::unreachable(filled.settled, started.elapsed());
        }
        let mut settled = filled.settled;
        if !filled.from_start {
            match self.nearest_reachable_outward(grid, ends, goal, started) {
                Outward::Answer(mut answer) => {
                    answer.stats.visited += settled;
                    return answer;
                }
                Outward::GaveUp(visited) => settled += visited,
            }
            let source = grid.index(ends.start_pixel.0, ends.start_pixel.1);
            settled += self.scratch.fill(grid, source, None).settled;
        }
        let mut answer = self.nearest_reached_by_fill(grid, ends, goal, started, settled);
        answer.stats.filled = true;
        answer
    }

    /// The nearest reachable pixel by the pixels round `goal`, nearest first (ties
    /// in row-major order), when the fill in the scratch ran from the end and settled
    /// every pixel it reaches (none of them reachable from the start). A pixel in
    /// another region than the start's, or one that fill or a fill of at most
    /// [`POCKET_PIXELS`] from it finds closed in by obstacles, is not reachable. For
    /// any other the path to it is searched as an ordinary query: first without a
    /// fill (the straight line, the index, local detours), and where that does not
    /// reach it, after the fill that looks for a pocket round it, with one (a pixel
    /// such a fill joined to one not closed in needs no fill of its own). The first one reached, and every other pixel equally
    /// near that is reached too, are the candidates; the shortest walk wins (ties:
    /// the first in row-major order). Gives up, so that a fill from the start
    /// answers, when a query finds no path to a pixel not closed in, or no pixel
    /// within [`OUTWARD_REACH`] of `goal` is reached.
    fn nearest_reachable_outward(
        &mut self,
        grid: &NavGrid,
        ends: &Endpoints,
        goal: Point,
        started: Instant,
    ) -> Outward {
        let mut visited = 0usize;
        let Some(region) = grid.region(ends.start_pixel.0, ends.start_pixel.1) else {
            return Outward::GaveUp(visited);
        };
        let start_index = grid.index(ends.start_pixel.0, ends.start_pixel.1);
        let mut rings = std::mem::take(&mut self.rings);
        rings.begin(grid, goal);
        rings.close(grid, self.scratch.reached().map(|(i, _)| i));
        let mut best: Option<(f64, PathResult)> = None;
        let answer = loop {
            let Some((gap, index)) = rings.next(grid) else {
                break best.take();
            };
            if best.as_ref().is_some_and(|b| gap > b.0) {
                break best.take();
            }
            let (x, y) = grid.pixel_of(index);
            if grid.region(x, y) != Some(region) || rings.is_closed(grid, index) {
                continue;
            }
            // First an ordinary query that does not fill: it usually reaches the
            // pixel by the index or round the obstacles nearby.
            let end = Point::pixel_center(x, y);
            let found = match self.find_path_with(grid, ends.start, end, EndSearch::WithoutFill) {
                Ok(found) if found.status == PathStatus::Found => found,
                probe => {
                    visited += probe.map_or(0, |unreached| unreached.stats.visited);
                    if !rings.is_open(grid, index) {
                        let pocket =
                            self.scratch
                                .fill_within(grid, index, Some(start_index), POCKET_PIXELS);
                        visited += pocket.settled;
                        let settled = self.scratch.reached().map(|(i, _)| i);
                        if !pocket.reached && pocket.settled <= POCKET_PIXELS {
                            rings.close(grid, settled);
                            continue;
                        }
                        // Not closed in, and neither is any pixel this fill joined to
                        // it: if the query below does not reach it, the search gives up.
                        rings.open(grid, settled);
                    }
                    match self.find_path_with(grid, ends.start, end, EndSearch::ReachedOnly) {
                        Ok(found) if found.status == PathStatus::Found => found,
                        Ok(unreached) => {
                            visited += unreached.stats.visited;
                            break None;
                        }
                        Err(_) => break None,
                    }
                }
            };
            visited += found.stats.visited;
            if best.as_ref().is_none_or(|b| found.length < b.1.length) {
                best = Some((gap, found));
            }
        };
        self.rings = rings;
        let Some((_, mut answer)) = answer else {
            return Outward::GaveUp(visited);
        };
        answer.status = PathStatus::Snapped;
        answer.start_moved = ends.start_moved;
        answer.stats.visited = visited;
        answer.stats.elapsed = started.elapsed();
        Outward::Answer(answer)
    }

    /// [`Pathfinder::nearest_reachable`]'s answer from a whole-region fill from the
    /// start (in the scratch).
    fn nearest_reached_by_fill(
        &mut self,
        grid: &NavGrid,
        ends: &Endpoints,
        goal: Point,
        started: Instant,
        settled: usize,
    ) -> PathResult {
        let Some((_, end_index)) = self.scratch.nearest_reached(grid, goal) else {
            return PathResult::unreachable(settled, started.elapsed());
        };
        let end_pixel = grid.pixel_of(end_index);
        let reached_goal = Some(end_pixel) == goal.pixel();
        let ends = Endpoints {
            end: if reached_goal {
                goal
            } else {
                Point::pixel_center(end_pixel.0, end_pixel.1)
            },
            end_pixel,
            snapped: !reached_goal,
            ..*ends
        };
        self.chain.clear();
        let toward = (ends.start.x, ends.start.y);
        if !trace_downhill(grid, &self.scratch.dist, end_index, toward, &mut self.chain) {
            return PathResult::unreachable(settled, started.elapsed());
        }
        self.chain.reverse();
        self.pixels.clear();
        self.pixels
            .extend(self.chain.iter().map(|&i| grid.pixel_of(i)));
        let waypoints = finish_path(grid, &self.pixels, ends.start, ends.end, &self.options);
        result(&ends, waypoints, settled, started)
    }
}

/// What a query among obstacles does when they cover its end or cut it off.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EndSearch {
    /// Looks for the reachable pixel nearest to the destination (after a fill of at
    /// most [`POCKET_PIXELS`] from the end finds whether obstacles close it in).
    Nearest,
    /// Answers unreachable, without looking for a pocket first: the caller has.
    ReachedOnly,
    /// Answers only by the straight line, the subgoal index or local detours, and
    /// unreachable where a fill would have to answer.
    WithoutFill,
}

/// Which end's pixels the last fill of a query settled, all it reaches, without
/// reaching the other end.
#[derive(Clone, Copy)]
struct FilledSide {
    /// Whether it ran from the start's pixel (else from the end's).
    from_start: bool,
    /// The pixels it settled.
    settled: usize,
}

/// How [`Pathfinder::nearest_reachable_outward`] ended.
enum Outward {
    /// The path to the nearest reachable pixel.
    Answer(PathResult),
    /// No answer: the fill must find it. Carries the pixels settled so far.
    GaveUp(usize),
}

/// What the subgoal index gave a query.
enum IndexPath {
    /// No index path: no index, turned off, or grid steps.
    None,
    /// A path (in `Pathfinder::pixels`) open among the obstacles, with the subgoals
    /// expanded.
    Open(usize),
    /// A path on the mask that obstacles block somewhere.
    Blocked(usize),
}

/// Whether the 8-neighbour step from pixel `a` to pixel `b` is open on `grid`
/// (obstacles included): `b` walkable and, for a diagonal step, both pixels beside
/// it walkable.
fn step_is_open(grid: &NavGrid, (ax, ay): (u32, u32), (x, y): (u32, u32)) -> bool {
    grid.is_walkable(x, y)
        && (ax == x || ay == y || (grid.is_walkable(x, ay) && grid.is_walkable(ax, y)))
}

/// Whether every pixel of a corner path ([`crate::subgoal::SubgoalGraph::shortest_path`])
/// is walkable on `grid` (obstacles included) and every diagonal step has both
/// pixels beside it walkable.
fn corner_path_is_open(grid: &NavGrid, corners: &[(u32, u32)]) -> bool {
    let mut open = true;
    let mut last: Option<(u32, u32)> = None;
    for_each_corner_path_pixel(corners, |p| {
        open &= match last {
            Some(a) => step_is_open(grid, a, p),
            None => grid.is_walkable(p.0, p.1),
        };
        last = Some(p);
    });
    open
}

impl DistanceField {
    /// The path a walker standing at the field's source takes to `goal`: traced from
    /// `goal` downhill to the source and reversed, so it costs microseconds instead of
    /// a fill. The walk starts at `from` (a point in the source pixel, usually the
    /// walker's exact position). Snapping applies as in [`Pathfinder::find_path`].
    pub fn path_to(
        &self,
        from: Point,
        goal: Point,
        options: &PathOptions,
    ) -> Result<PathResult, QueryError> {
        self.answer(from, goal, options, FieldEnd::Start)
    }

    /// The path from `start` to the field's source (every walker heading to one
    /// destination can share one field). Ends exactly at `goal`, a point in the
    /// source pixel.
    pub fn path_from(
        &self,
        start: Point,
        goal: Point,
        options: &PathOptions,
    ) -> Result<PathResult, QueryError> {
        self.answer(start, goal, options, FieldEnd::Goal)
    }

    /// A path between `start` and `goal` where the field's source is the pixel of the
    /// end named by `source_end`: the trace runs from the other end downhill to the
    /// source. A query whose `source_end` is not on the source pixel gets a fresh fill.
    fn answer(
        &self,
        start: Point,
        goal: Point,
        options: &PathOptions,
        source_end: FieldEnd,
    ) -> Result<PathResult, QueryError> {
        let started = Instant::now();
        let grid = &self.grid;
        let Some(ends) = resolve_endpoints(grid, start, goal, options)? else {
            return Ok(PathResult::unreachable(0, started.elapsed()));
        };
        let (source_pixel, far_pixel, source_point) = match source_end {
            FieldEnd::Start => (ends.start_pixel, ends.end_pixel, ends.start),
            FieldEnd::Goal => (ends.end_pixel, ends.start_pixel, ends.end),
        };
        if source_pixel != self.source {
            return Pathfinder::with_options(*options).find_path(grid, start, goal);
        }
        if !options.grid_steps && line_of_sight(grid, ends.start, ends.end) {
            let waypoints = if ends.start == ends.end {
                vec![ends.start]
            } else {
                vec![ends.start, ends.end]
            };
            return Ok(result(&ends, waypoints, 0, started));
        }
        let mut chain = Vec::new();
        let from_index = grid.index(far_pixel.0, far_pixel.1);
        let toward = (source_point.x, source_point.y);
        if !trace_downhill(grid, &self.dist, from_index, toward, &mut chain) {
            return Ok(PathResult::unreachable(0, started.elapsed()));
        }
        if source_end == FieldEnd::Start {
            chain.reverse();
        }
        let pixels: Vec<(u32, u32)> = chain.iter().map(|&i| grid.pixel_of(i)).collect();
        let waypoints = finish_path(grid, &pixels, ends.start, ends.end, options);
        Ok(result(&ends, waypoints, 0, started))
    }
}

/// Which end of a query sits on a distance field's source.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldEnd {
    Start,
    Goal,
}
