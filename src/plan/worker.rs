//! What runs on the async compute pool: path queries and warm-ups, and what they
//! share (the grid cache, the warm fields, a pool of pathfinders).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bevy::prelude::*;
use walkmask::obstacles::{Obstacle, Obstacles};
use walkmask::subgoal::IndexPolicy;
use walkmask::{
    DistanceField, NavGrid, PathOptions, PathResult, PathStatus, Pathfinder, Point, QueryError,
};

use super::field_cache::WarmFieldCache;
use super::grid_cache::{GridKey, NavGridCache};
use crate::obstacle::{crosses_obstacles, rasterise};
use crate::room::MaskMapping;

/// An obstacle's pixels are kept by mask width and height, clearance and the
/// obstacle, bit for bit.
type RasterKey = (u32, u32, u32, [u32; 5]);

/// The pixels of the obstacles the last searches ran among, each worked out once:
/// within a frame every search sees the same solid walkers where they stand (less
/// its own walker), and a standing one stays where it is from frame to frame, so
/// most of a search's obstacles were worked out by an earlier one.
#[derive(Clone, Default)]
pub(crate) struct ObstacleRasters(Arc<Mutex<std::collections::HashMap<RasterKey, Obstacles>>>);

impl ObstacleRasters {
    /// Obstacles kept; past it the cache starts afresh.
    const KEEP: usize = 4096;

    /// `list` as obstacles for walkers of `clearance` pixels on a mask of
    /// `mapping`'s size, as [`rasterise`] makes them, in `list`'s order, from the kept
    /// pixels where they are kept.
    fn obstacles(
        &self,
        list: &[(Entity, Obstacle)],
        mapping: &MaskMapping,
        clearance: f32,
    ) -> Obstacles {
        let (w, h) = (mapping.size.x, mapping.size.y);
        let key = |obstacle: &Obstacle| (w, h, clearance.to_bits(), obstacle.key());
        let alone =
            |one: &(Entity, Obstacle)| rasterise(std::iter::once(one), mapping, clearance).0;
        let mut out = Obstacles::for_size(w, h, clearance);
        // Most searches find every obstacle kept: then they are put together under
        // one lock, one look-up each, with nothing else allocated.
        let missing: Vec<usize> = {
            let kept = self.lock();
            let mut missing = Vec::new();
            for (i, (_, obstacle)) in list.iter().enumerate() {
                match kept.get(&key(obstacle)) {
                    Some(pixels) if missing.is_empty() => out.push_from(pixels, 0),
                    Some(_) => {}
                    None => missing.push(i),
                }
            }
            if missing.is_empty() {
                return out;
            }
            out.clear();
            missing
        };
        // The others are worked out outside the lock, so searches on other threads
        // do not wait for them.
        let worked_out: Vec<Obstacles> = missing.iter().map(|&i| alone(&list[i])).collect();
        let mut kept = self.lock();
        let mut fresh = missing.iter().zip(&worked_out).peekable();
        for (i, one) in list.iter().enumerate() {
            if let Some((_, pixels)) = fresh.next_if(|&(&j, _)| j == i) {
                out.push_from(pixels, 0);
                continue;
            }
            match kept.get(&key(&one.1)) {
                Some(pixels) => out.push_from(pixels, 0),
                // Another search started the cache afresh between the two locks
                // (once every few thousand obstacles).
                None => out.push_from(&alone(one), 0),
            }
        }
        if kept.len() + worked_out.len() > Self::KEEP {
            kept.clear();
        }
        kept.extend(missing.iter().map(|&i| key(&list[i].1)).zip(worked_out));
        out
    }

    fn lock(&self) -> MutexGuard<'_, std::collections::HashMap<RasterKey, Obstacles>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Idle [`Pathfinder`]s kept for reuse: their scratch buffers grow to the mask size
/// once and are then reused by later queries. Bounded by a byte budget: a pathfinder
/// coming back when the idle ones already hold the budget is dropped.
#[derive(Clone)]
pub(crate) struct PathfinderPool {
    options: PathOptions,
    budget: usize,
    idle: Arc<Mutex<Vec<Pathfinder>>>,
}

impl PathfinderPool {
    fn lock(&self) -> MutexGuard<'_, Vec<Pathfinder>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self) -> Pathfinder {
        self.lock()
            .pop()
            .unwrap_or_else(|| Pathfinder::with_options(self.options))
    }

    fn put(&self, pathfinder: Pathfinder) {
        let mut idle = self.lock();
        let held: usize = idle.iter().map(Pathfinder::memory_bytes).sum();
        if held + pathfinder.memory_bytes() <= self.budget {
            idle.push(pathfinder);
        }
    }

    /// Bytes held by the idle pathfinders.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.lock().iter().map(Pathfinder::memory_bytes).sum()
    }

    /// Drops every idle pathfinder.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

/// What path tasks share: the grid cache, the warm fields and the pathfinder pool.
#[derive(Resource, Clone)]
pub(crate) struct Planner {
    pub(crate) cache: NavGridCache,
    pub(crate) fields: WarmFieldCache,
    pub(crate) pathfinders: PathfinderPool,
    /// Whether walkers standing still warm fields up.
    pub(crate) warm: bool,
    /// Warm-up tasks spawned and not yet finished or dropped.
    pub(crate) warming: Arc<AtomicUsize>,
    /// Path tasks spawned and not yet finished or dropped.
    pub(crate) planning: Arc<AtomicUsize>,
    /// Answers must not depend on timing ([`AnswerTiming::AfterFrames`](crate::AnswerTiming)):
    /// in the browser a query waits for its grid's subgoal index instead of filling
    /// while it is built (natively every query waits for it), and does not trace
    /// warm fields (which are ready or not depending on
    /// how fast the pool ran), so equal-length paths are chosen the same way in
    /// every run; and grids the main thread needs are built in the frame that needs
    /// them ([`Planner::main_thread_grid`]).
    pub(crate) deterministic: bool,
    /// Obstacles' pixels shared between searches.
    rasters: ObstacleRasters,
    /// What the searches of this planner did, counted.
    searches: Arc<SearchCounts>,
}

/// Searches counted as they end, for [`PlannerStatus`].
#[derive(Default)]
struct SearchCounts {
    /// Searches of their own run (not answered by a warm or shared field).
    run: AtomicU64,
    /// Of those, the ones a distance fill answered.
    filled: AtomicU64,
    /// The longest search's wall time, in microseconds.
    longest_micros: AtomicU64,
}

impl SearchCounts {
    fn count(&self, stats: &walkmask::PathStats) {
        self.run.fetch_add(1, Ordering::Relaxed);
        if stats.filled {
            self.filled.fetch_add(1, Ordering::Relaxed);
        }
        let micros = u64::try_from(stats.elapsed.as_micros()).unwrap_or(u64::MAX);
        self.longest_micros.fetch_max(micros, Ordering::Relaxed);
    }
}

/// Counts a task as in flight until it finishes or is dropped.
pub(crate) struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    pub(crate) fn new(counter: &Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::Relaxed);
        Self(counter.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Everything a path task needs, owned.
pub(crate) struct PlanQuery {
    pub(crate) key: GridKey,
    pub(crate) mask: walkmask::WalkMask,
    pub(crate) start: Point,
    pub(crate) goal: Point,
    /// Whether the goal was outside the mask and moved onto its edge.
    pub(crate) clamped: bool,
    pub(crate) mapping: MaskMapping,
    /// The solid obstacles but the walker's own, in mask pixels.
    pub(crate) obstacles: Vec<(Entity, Obstacle)>,
    /// Other walkers are sent to the same destination pixel now: fill one field from
    /// it for all of them.
    pub(crate) share_destination: bool,
    /// Pixel centre to pixel centre ([`PathOptions::grid_steps`]).
    pub(crate) grid_steps: bool,
}

/// A path task's answer.
pub(crate) enum PlanOutput {
    Path(PlannedPath),
    Unreachable,
}

/// A path, in mask and world coordinates, with what the main thread needs to join it
/// to where the walker is when it arrives.
pub(crate) struct PlannedPath {
    pub(crate) mask_points: Vec<Point>,
    pub(crate) waypoints: Vec<Vec2>,
    pub(crate) snapped: bool,
    /// The planned start was on a pixel the walker may not use; the path starts at the
    /// nearest walkable pixel instead.
    pub(crate) start_moved: bool,
    pub(crate) grid: NavGrid,
    pub(crate) mapping: MaskMapping,
    /// The obstacles it was planned among.
    pub(crate) obstacles: Vec<(Entity, Obstacle)>,
}

impl Planner {
    pub(crate) fn new(
        cache: NavGridCache,
        fields: WarmFieldCache,
        warm: bool,
        options: PathOptions,
        pathfinder_bytes: usize,
    ) -> Self {
        Self {
            cache,
            fields,
            pathfinders: PathfinderPool {
                options,
                budget: pathfinder_bytes,
                idle: Arc::new(Mutex::new(Vec::new())),
            },
            warm,
            warming: Arc::new(AtomicUsize::new(0)),
            planning: Arc::new(AtomicUsize::new(0)),
            deterministic: false,
            rasters: ObstacleRasters::default(),
            searches: Arc::default(),
        }
    }

    /// This planner, answering the same way whatever the timing (see
    /// [`Planner::deterministic`]).
    pub(crate) fn with_deterministic_answers(mut self, on: bool) -> Self {
        self.deterministic = on;
        self
    }

    /// The grid for `key` for the main thread's steps off a path (steering, crowds,
    /// hover, warm-ups, queries): when answers must not depend on timing, built in
    /// this call if need be (so a walker never waits a timing-dependent number of
    /// frames for it); else the grid if it is built, after starting its build on the
    /// async compute pool ([`NavGridCache::ready_or_build_async`]).
    pub(crate) fn main_thread_grid(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
    ) -> Option<NavGrid> {
        #[cfg(not(target_arch = "wasm32"))]
        if self.deterministic {
            return Some(self.cache.get_or_build(key, mask, false));
        }
        self.cache.ready_or_build_async(key, mask)
    }

    pub(crate) fn options(&self) -> &PathOptions {
        &self.pathfinders.options
    }

    /// The plugin's options with the query's own.
    fn options_for(&self, query: &PlanQuery) -> PathOptions {
        PathOptions {
            grid_steps: query.grid_steps,
            ..*self.options()
        }
    }

    /// Runs on a worker thread.
    pub(crate) async fn plan(&self, query: PlanQuery) -> PlanOutput {
        crate::plan::after_the_frame().await;
        let grid = self.cache.grid(query.key, &query.mask, true).await;
        // Waits for (or runs) the index build started with the grid: a search that
        // went on without it would fill the whole mask, and on a busy pool those
        // fills, queued before the build, would hold the build back for seconds (a
        // room entered with a crowd re-planning). On the web the build runs in
        // slices, so only deterministic planning waits there (the first build to
        // finish is kept).
        #[cfg(not(target_arch = "wasm32"))]
        if self.cache.search_index() {
            grid.build_index(IndexPolicy::WhenItPays);
        }
        #[cfg(target_arch = "wasm32")]
        if self.deterministic
            && self.cache.search_index()
            && !super::search_worker::browser::is_ready()
        {
            grid.build_index_pausing(
                IndexPolicy::WhenItPays,
                &mut crate::plan::browser_pause::BrowserPause::new(),
            )
            .await;
        }
        let options = &self.options_for(&query);
        // 1. The walker's own warm field.
        let warm = match query.start.pixel() {
            Some(source) if self.warm && !self.deterministic => self.fields.lookup(&grid, source),
            _ => None,
        };
        let mut result = warm.and_then(|field| self.trace_from(&field, &query));
        // 2. A field from the destination, shared with the others sent there.
        if result.is_none()
            && query.share_destination
            && grid.connected(query.start, query.goal)
            && let Some(destination) = query.goal.pixel()
            && let Some(field) = self
                .fields
                .shared(&grid, destination, || self.cache.grid_ids())
        {
            result = traced(field.path_from(query.start, query.goal, options), &query);
        }
        // 3. A search of its own: on the web in the search worker when it is up.
        #[cfg(target_arch = "wasm32")]
        if result.is_none() {
            result = super::search_worker::find_path::<super::search_worker::browser::Browser>(
                super::search_worker::WorkerQuery {
                    key: query.key,
                    mask: &query.mask,
                    index: self.cache.search_index(),
                    start: query.start,
                    goal: query.goal,
                    options: *options,
                    obstacles: &query.obstacles,
                },
            )
            .await
            .inspect(|answer| {
                if let Ok(answer) = answer {
                    self.searches.count(&answer.stats);
                }
            });
        }
        let result = result.unwrap_or_else(|| {
            work_span!("walkmask: path search");
            let obstacles =
                self.rasters
                    .obstacles(&query.obstacles, &query.mapping, grid.clearance());
            let mut pathfinder = self.pathfinders.take();
            pathfinder.set_options(*options);
            let result = pathfinder.find_path_among(&grid, &obstacles, query.start, query.goal);
            self.pathfinders.put(pathfinder);
            if let Ok(answer) = &result {
                self.searches.count(&answer.stats);
            }
            result
        });
        self.output(query, grid, result)
    }

    /// The walk from `query.start` traced through `field` (a field from the start's
    /// pixel), as a search would give it; `None` when it crosses an obstacle.
    pub(crate) fn trace_from(
        &self,
        field: &DistanceField,
        query: &PlanQuery,
    ) -> Option<Result<PathResult, QueryError>> {
        traced(
            field.path_to(query.start, query.goal, &self.options_for(query)),
            query,
        )
    }

    /// The answer to `query` from a query's result on `grid`.
    pub(crate) fn output(
        &self,
        query: PlanQuery,
        grid: NavGrid,
        result: Result<PathResult, QueryError>,
    ) -> PlanOutput {
        match result {
            Ok(path) if path.is_walkable() => {
                if query.clamped && !self.options().snap_destination {
                    return PlanOutput::Unreachable;
                }
                PlanOutput::Path(PlannedPath {
                    waypoints: path
                        .waypoints
                        .iter()
                        .map(|&p| query.mapping.mask_to_world(p))
                        .collect(),
                    mask_points: path.waypoints,
                    snapped: path.status == PathStatus::Snapped || query.clamped,
                    start_moved: path.start_moved,
                    grid,
                    mapping: query.mapping,
                    obstacles: query.obstacles,
                })
            }
            Ok(_) => PlanOutput::Unreachable,
            Err(error) => {
                debug!("path query failed: {error}");
                PlanOutput::Unreachable
            }
        }
    }

    /// Runs on a worker thread: fills and keeps the field for a walker standing at
    /// `source`.
    pub(crate) async fn warm_up(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
        source: (u32, u32),
    ) {
        crate::plan::after_the_frame().await;
        let grid = self.cache.grid(key, mask, false).await;
        if grid.is_walkable(source.0, source.1) {
            self.fields.warm(&grid, source, || self.cache.grid_ids());
        }
    }
}

/// A walk traced through a field, as a search would give it (a walk that starts where
/// it ends is one point), unless it crosses one of `query`'s obstacles (a field knows
/// nothing of them): then `None`, and the walker searches. Only the obstacles whose
/// box comes near the walk have their pixels worked out.
fn traced(
    result: Result<PathResult, QueryError>,
    query: &PlanQuery,
) -> Option<Result<PathResult, QueryError>> {
    match result {
        Ok(path)
            if crosses_obstacles(
                &query.obstacles,
                &path.waypoints,
                &query.mapping,
                query.key.clearance(),
                query.start.pixel(),
            ) =>
        {
            None
        }
        Ok(mut path) => {
            if let [a, b] = path.waypoints[..]
                && a == b
            {
                path.waypoints.pop();
            }
            Some(Ok(path))
        }
        Err(error) => Some(Err(error)),
    }
}

/// What the planner holds and has under way, for monitoring and tests.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PlannerStatus;
///
/// fn report(status: Res<PlannerStatus>) {
///     info!("{} path tasks in flight, {} bytes of idle scratch", status.tasks_in_flight(), status.idle_pathfinder_bytes());
/// }
/// # bevy::ecs::system::assert_is_system(report);
/// ```
#[derive(Resource, Clone)]
pub struct PlannerStatus(pub(crate) Planner);

impl PlannerStatus {
    /// Path tasks spawned and not yet collected or dropped.
    pub fn tasks_in_flight(&self) -> usize {
        self.0.planning.load(Ordering::Relaxed)
    }

    /// Warm-up tasks spawned and not yet finished or dropped.
    pub fn warm_ups_in_flight(&self) -> usize {
        self.0.warming.load(Ordering::Relaxed)
    }

    /// Bytes of scratch held by idle pathfinders (at most
    /// [`WalkmaskPlugin::pathfinder_bytes`](crate::WalkmaskPlugin::pathfinder_bytes)).
    pub fn idle_pathfinder_bytes(&self) -> usize {
        self.0.pathfinders.memory_bytes()
    }

    /// Drops the idle pathfinders (their scratch is allocated again when needed).
    pub fn release_idle_pathfinders(&self) {
        self.0.pathfinders.clear();
    }

    /// Path searches run so far: requests and re-plans that no warm or shared
    /// distance field answered.
    pub fn searches_run(&self) -> u64 {
        self.0.searches.run.load(Ordering::Relaxed)
    }

    /// Of [`searches_run`](Self::searches_run), those a distance fill over the mask
    /// answered ([`walkmask::PathStats::filled`]): no subgoal index yet or at all,
    /// walkers on the index's path that no local detour walked round, or an end
    /// they cover or cut off. The slow kind of search; few in a room with an index.
    pub fn searches_filled(&self) -> u64 {
        self.0.searches.filled.load(Ordering::Relaxed)
    }

    /// The longest of [`searches_run`](Self::searches_run), wall time on its thread.
    pub fn longest_search(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.0.searches.longest_micros.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use walkmask::obstacles::Footprint;

    use super::*;

    /// Searches after searches, each among a list drawn from more obstacles than the
    /// cache keeps (so it starts afresh now and then), some seen before and some not:
    /// the kept pixels put together are the list's own, in its order.
    #[test]
    fn kept_obstacle_pixels_are_the_lists_own() {
        let mapping = MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(48, 40));
        let clearance = 1.5;
        let rasters = ObstacleRasters::default();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let pool = ObstacleRasters::KEEP as u64 + 1500;
        let mut started_afresh = false;
        for _ in 0..1500 {
            let before = rasters.lock().len();
            let list: Vec<(Entity, Obstacle)> = (0..next(24))
                .map(|_| {
                    let n = next(pool);
                    let center = walkmask::Point::new((n % 48) as f32 + 0.25, (n / 48 % 40) as f32);
                    // Past the mask's cells the same places come again, larger:
                    // distinct obstacles on the same pixels.
                    let size = 1.0 + (n / (48 * 40)) as f32 / 4.0;
                    let footprint = match n % 3 {
                        0 => Footprint::Circle { radius: 3.0 * size },
                        1 => Footprint::Ellipse {
                            radius_x: 5.0 * size,
                            radius_y: 2.5 * size,
                        },
                        _ => Footprint::Rect {
                            half_width: 2.0 * size,
                            half_height: 4.0 * size,
                        },
                    };
                    (Entity::PLACEHOLDER, Obstacle::new(center, footprint))
                })
                .collect();
            let kept = rasters.obstacles(&list, &mapping, clearance);
            started_afresh |= rasters.lock().len() < before;
            let own = rasterise(&list, &mapping, clearance).0;
            assert_eq!(kept.obstacles(), own.obstacles());
            for y in 0..40 {
                for x in 0..48 {
                    assert_eq!(kept.blocks(x, y), own.blocks(x, y), "pixel ({x}, {y})");
                }
            }
        }
        assert!(started_afresh);
    }
}
