//! Planning: walk requests become path queries on the async compute pool.
//!
//! A request is stored on the walker as a job. When the walker's room and mask are
//! ready, the job spawns a task on [`AsyncComputeTaskPool`] that prepares (or reuses)
//! a [`NavGrid`] for the mask and the enabled areas, borrows a [`Pathfinder`] from a
//! pool and answers the query. The main thread only polls tasks with
//! [`check_ready`]; it never builds grids or searches.
//!
//! Warm fields: while a walker stands still, a task fills the whole
//! [`DistanceField`] from its pixel and keeps it in the [`WarmFieldCache`]; its next
//! request is then answered by tracing that field ([`DistanceField::path_to`]), which
//! takes microseconds instead of a search.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use bevy::asset::LoadState;
use bevy::ecs::query::{QueryData, QueryFilter, ROQueryItem};
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use walkmask::flow::FieldCache;
use walkmask::{AreaSet, DistanceField, NavGrid, PathOptions, PathStatus, Pathfinder, Point};

use crate::asset::WalkMask;
use crate::room::{MaskMapping, WalkAreas, WalkRoom};
use crate::walker::{
    Arrived, Heading, PathCancelled, PathReady, PathUnreachable, WalkPath, WalkRequest, WalkState,
    Walker,
};

/// Key of a prepared grid: which mask, which pixels, which areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct GridKey {
    mask: AssetId<WalkMask>,
    revision: usize,
    areas: AreaSet,
}

struct CacheEntry {
    key: GridKey,
    /// Keeps the pixels alive, so the revision (their address) cannot be reused by
    /// another mask while the entry exists.
    _mask: walkmask::WalkMask,
    grid: Arc<OnceLock<NavGrid>>,
    bytes: usize,
    /// Whether a path query has used the grid (a warm-up may prepare it ahead).
    queried: bool,
}

struct CacheInner {
    /// Least recently used first.
    entries: Vec<CacheEntry>,
    budget: usize,
    /// Areas present in each mask revision.
    present: Vec<(AssetId<WalkMask>, usize, AreaSet)>,
    hits: u64,
    misses: u64,
}

/// Counters of the [`NavGridCache`].
///
/// ```
/// # use bevy_walkmask::GridCacheStats;
/// let stats = GridCacheStats::default();
/// assert_eq!(stats.hits + stats.misses, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridCacheStats {
    /// Path queries on a grid an earlier path query used.
    pub hits: u64,
    /// Path queries that were the first on their grid: it was prepared for them, or
    /// ahead of them by a warm-up (see [`WarmFieldCache`]). Warm-ups themselves are
    /// not counted.
    pub misses: u64,
    /// Grids held.
    pub entries: usize,
    /// Estimated bytes held by the grids.
    pub bytes: usize,
}

/// Prepared [`NavGrid`]s shared by all path tasks, keyed by (mask asset, mask
/// revision, enabled areas that occur in the mask), least recently used dropped first
/// when over the byte budget (the most recent grid is always kept). Grids of a mask's
/// older pixels are dropped once its new pixels are used.
///
/// Grids are built inside path tasks, never on the main thread. Two tasks that need
/// the same grid at once share one build.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::NavGridCache;
///
/// fn report(cache: Res<NavGridCache>) {
///     let stats = cache.stats();
///     info!("{} grids, {} bytes, {} hits", stats.entries, stats.bytes, stats.hits);
/// }
/// # bevy::ecs::system::assert_is_system(report);
/// ```
#[derive(Resource, Clone)]
pub struct NavGridCache {
    inner: Arc<Mutex<CacheInner>>,
}

impl NavGridCache {
    /// An empty cache holding at most about `budget_bytes` of grids.
    ///
    /// ```
    /// # use bevy_walkmask::NavGridCache;
    /// let cache = NavGridCache::new(64 << 20);
    /// assert_eq!(cache.stats().entries, 0);
    /// ```
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(CacheInner {
                entries: Vec::new(),
                budget: budget_bytes,
                present: Vec::new(),
                hits: 0,
                misses: 0,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, CacheInner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The counters.
    ///
    /// ```
    /// # use bevy_walkmask::NavGridCache;
    /// assert_eq!(NavGridCache::new(1024).stats().bytes, 0);
    /// ```
    pub fn stats(&self) -> GridCacheStats {
        let inner = self.lock();
        GridCacheStats {
            hits: inner.hits,
            misses: inner.misses,
            entries: inner.entries.len(),
            bytes: inner.entries.iter().map(|e| e.bytes).sum(),
        }
    }

    /// Drops every grid.
    ///
    /// ```
    /// # use bevy_walkmask::NavGridCache;
    /// let cache = NavGridCache::new(1024);
    /// cache.clear();
    /// assert_eq!(cache.stats().entries, 0);
    /// ```
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.entries.clear();
        inner.present.clear();
    }

    /// The areas that occur in the mask (computed once per revision, on the calling
    /// thread).
    fn present_areas(&self, key: &GridKey, mask: &walkmask::WalkMask) -> AreaSet {
        let found = self
            .lock()
            .present
            .iter()
            .find(|(id, revision, _)| *id == key.mask && *revision == key.revision)
            .map(|(_, _, areas)| *areas);
        if let Some(areas) = found {
            return areas;
        }
        let mut seen = [false; 256];
        for &a in mask.areas() {
            seen[a as usize] = true;
        }
        let areas: AreaSet = (1..=255u8).filter(|&id| seen[id as usize]).collect();
        let mut inner = self.lock();
        inner.present.retain(|(id, _, _)| *id != key.mask);
        inner.present.push((key.mask, key.revision, areas));
        areas
    }

    /// The grid for `key`, built from `mask` on the calling thread if needed.
    /// `query` says whether a path query (counted in the stats) or a warm-up asks.
    ///
    /// Area sets that differ only in areas absent from the mask share one grid.
    fn get_or_build(&self, mut key: GridKey, mask: &walkmask::WalkMask, query: bool) -> NavGrid {
        key.areas = key.areas.intersection(&self.present_areas(&key, mask));
        let cell = {
            let mut inner = self.lock();
            if let Some(i) = inner.entries.iter().position(|e| e.key == key) {
                let mut entry = inner.entries.remove(i);
                let cell = entry.grid.clone();
                if query {
                    if entry.queried {
                        inner.hits += 1;
                    } else {
                        inner.misses += 1;
                        entry.queried = true;
                    }
                }
                inner.entries.push(entry);
                cell
            } else {
                if query {
                    inner.misses += 1;
                }
                // Grids of older pixels of the same asset are of no further use.
                inner
                    .entries
                    .retain(|e| e.key.mask != key.mask || e.key.revision == key.revision);
                let cell = Arc::new(OnceLock::new());
                let (w, h) = (mask.width() as usize, mask.height() as usize);
                inner.entries.push(CacheEntry {
                    key,
                    _mask: mask.clone(),
                    grid: cell.clone(),
                    bytes: (w + 2) * (h + 2) * 4,
                    queried: query,
                });
                let mut used: usize = inner.entries.iter().map(|e| e.bytes).sum();
                while used > inner.budget && inner.entries.len() > 1 {
                    used -= inner.entries.remove(0).bytes;
                }
                cell
            }
        };
        cell.get_or_init(|| NavGrid::new(mask.clone(), key.areas))
            .clone()
    }

    /// Ids of the prepared grids the cache holds.
    fn grid_ids(&self) -> Vec<u64> {
        self.lock()
            .entries
            .iter()
            .filter_map(|e| e.grid.get().map(NavGrid::id))
            .collect()
    }
}

/// Reusable [`Pathfinder`]s (their scratch buffers grow to the mask size once and are
/// then reused by later queries).
#[derive(Clone)]
struct PathfinderPool {
    options: PathOptions,
    idle: Arc<Mutex<Vec<Pathfinder>>>,
}

impl PathfinderPool {
    /// At most this many idle pathfinders are kept.
    const MAX_IDLE: usize = 8;

    fn take(&self) -> Pathfinder {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_else(|| Pathfinder::with_options(self.options))
    }

    fn put(&self, pathfinder: Pathfinder) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < Self::MAX_IDLE {
            idle.push(pathfinder);
        }
    }
}

struct FieldsInner {
    fields: FieldCache,
    /// Fields being filled right now, as (grid id, source pixel).
    filling: Vec<(u64, (u32, u32))>,
    /// Grids that have fields in `fields`.
    grids: Vec<u64>,
    hits: u64,
    misses: u64,
    fills: u64,
}

/// Counters of the [`WarmFieldCache`].
///
/// ```
/// # use bevy_walkmask::FieldCacheStats;
/// let stats = FieldCacheStats::default();
/// assert_eq!(stats.hits + stats.misses + stats.fills, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldCacheStats {
    /// Path queries answered from a warm field.
    pub hits: u64,
    /// Path queries that found no warm field for their start and searched instead
    /// (not counted when warm fields are off).
    pub misses: u64,
    /// Warm fields filled.
    pub fills: u64,
    /// Fields held.
    pub entries: usize,
    /// Bytes held by the fields (about 4 per mask pixel each).
    pub bytes: usize,
    /// The budget in bytes ([`WalkmaskPlugin::field_cache_bytes`](crate::WalkmaskPlugin::field_cache_bytes)).
    pub budget_bytes: usize,
}

/// Warm distance fields: while a walker stands still (no request, no path; state
/// `Idle`, `Arrived` or `Unreachable`), a task on the async compute pool fills the
/// whole [`DistanceField`] from the walker's pixel on its grid (the room's mask and the
/// areas the walker may use) and keeps it here. The walker's next request is answered
/// by tracing the field ([`DistanceField::path_to`], microseconds) instead of a
/// search; the answer is of the same kind (same statuses, snapping and endpoints).
///
/// A warm-up is started once per (grid, pixel), one at a time (so that path tasks on
/// the same pool never queue behind more than one fill), and replaced when the walker
/// moves, the room's areas change or the mask changes; fields of an old grid are never used for
/// a new one. Fields are dropped least recently used first beyond the byte budget
/// ([`WalkmaskPlugin::field_cache_bytes`](crate::WalkmaskPlugin::field_cache_bytes));
/// a field takes about 4 bytes per mask pixel. Turn warming off with
/// [`WalkmaskPlugin::warm_fields`](crate::WalkmaskPlugin::warm_fields).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WarmFieldCache;
///
/// fn report(fields: Res<WarmFieldCache>) {
///     let stats = fields.stats();
///     info!("{} warm fields ({} bytes), {} queries answered from them", stats.entries, stats.bytes, stats.hits);
/// }
/// # bevy::ecs::system::assert_is_system(report);
/// ```
#[derive(Resource, Clone)]
pub struct WarmFieldCache {
    inner: Arc<Mutex<FieldsInner>>,
}

impl WarmFieldCache {
    /// An empty cache holding at most `budget_bytes` of fields.
    ///
    /// ```
    /// # use bevy_walkmask::WarmFieldCache;
    /// let fields = WarmFieldCache::new(256 << 20);
    /// assert_eq!(fields.stats().budget_bytes, 256 << 20);
    /// ```
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(FieldsInner {
                fields: FieldCache::new(budget_bytes),
                filling: Vec::new(),
                grids: Vec::new(),
                hits: 0,
                misses: 0,
                fills: 0,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, FieldsInner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The counters.
    ///
    /// ```
    /// # use bevy_walkmask::WarmFieldCache;
    /// assert_eq!(WarmFieldCache::new(1024).stats().entries, 0);
    /// ```
    pub fn stats(&self) -> FieldCacheStats {
        let inner = self.lock();
        FieldCacheStats {
            hits: inner.hits,
            misses: inner.misses,
            fills: inner.fills,
            entries: inner.fields.len(),
            bytes: inner.fields.memory_bytes(),
            budget_bytes: inner.fields.budget_bytes(),
        }
    }

    /// Drops every field (walkers standing still warm up again).
    ///
    /// ```
    /// # use bevy_walkmask::WarmFieldCache;
    /// let fields = WarmFieldCache::new(1024);
    /// fields.clear();
    /// assert_eq!(fields.stats().bytes, 0);
    /// ```
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.fields.clear();
        inner.grids.clear();
    }

    /// The field of `grid` from `source` for a path query (counted).
    fn lookup(&self, grid: &NavGrid, source: (u32, u32)) -> Option<Arc<DistanceField>> {
        let mut inner = self.lock();
        let field = inner.fields.get(grid, source);
        if field.is_some() {
            inner.hits += 1;
        } else {
            inner.misses += 1;
        }
        field
    }

    /// Fills the field of `grid` from `source` unless it is cached or being filled;
    /// the lock is not held while filling. `live` lists the grids still in use: fields
    /// of other grids can never be asked for again and are dropped.
    fn warm(&self, grid: &NavGrid, source: (u32, u32), live: impl FnOnce() -> Vec<u64>) {
        let key = (grid.id(), source);
        {
            let mut inner = self.lock();
            if inner.fields.get(grid, source).is_some() || inner.filling.contains(&key) {
                return;
            }
            inner.filling.push(key);
        }
        /// Takes the key off the `filling` list however the fill ends.
        struct Filling<'a>(&'a WarmFieldCache, (u64, (u32, u32)));
        impl Drop for Filling<'_> {
            fn drop(&mut self) {
                self.0.lock().filling.retain(|k| *k != self.1);
            }
        }
        let _filling = Filling(self, key);
        let Some(field) = DistanceField::new(grid, source) else {
            return;
        };
        let live = live();
        let mut inner = self.lock();
        let FieldsInner {
            fields,
            grids,
            fills,
            ..
        } = &mut *inner;
        *fills += 1;
        grids.retain(|id| {
            let keep = *id == key.0 || live.contains(id);
            if !keep {
                fields.remove_grid(*id);
            }
            keep
        });
        if !grids.contains(&key.0) {
            grids.push(key.0);
        }
        fields.insert(Arc::new(field));
    }
}

/// What path tasks share: the grid cache, the warm fields and the pathfinder pool.
#[derive(Resource, Clone)]
pub(crate) struct Planner {
    pub(crate) cache: NavGridCache,
    pub(crate) fields: WarmFieldCache,
    /// Whether walkers standing still warm fields up.
    warm: bool,
    /// Warm-up tasks spawned and not yet finished or dropped.
    warming: Arc<AtomicUsize>,
    pool: PathfinderPool,
}

/// Counts a warm-up task as in flight until it finishes or is dropped.
struct Warming(Arc<AtomicUsize>);

impl Drop for Warming {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Planner {
    pub(crate) fn new(
        cache: NavGridCache,
        fields: WarmFieldCache,
        warm: bool,
        options: PathOptions,
    ) -> Self {
        Self {
            cache,
            fields,
            warm,
            warming: Arc::new(AtomicUsize::new(0)),
            pool: PathfinderPool {
                options,
                idle: Arc::new(Mutex::new(Vec::new())),
            },
        }
    }

    /// Runs on a worker thread.
    fn plan(&self, query: PlanQuery) -> PlanOutput {
        let grid = self.cache.get_or_build(query.key, &query.mask, true);
        let field = match query.start.pixel() {
            Some(source) if self.warm => self.fields.lookup(&grid, source),
            _ => None,
        };
        let result = match field {
            Some(field) => field
                .path_to(query.start, query.goal, &self.pool.options)
                .map(|mut path| {
                    // A walk that starts where it ends is one point, as from a search.
                    if let [a, b] = path.waypoints[..]
                        && a == b
                    {
                        path.waypoints.pop();
                    }
                    path
                }),
            None => {
                let mut pathfinder = self.pool.take();
                let result = pathfinder.find_path(&grid, query.start, query.goal);
                self.pool.put(pathfinder);
                result
            }
        };
        match result {
            Ok(path) if path.is_walkable() => {
                if query.clamped && !self.pool.options.snap_destination {
                    return PlanOutput::Unreachable;
                }
                PlanOutput::Path {
                    waypoints: path
                        .waypoints
                        .iter()
                        .map(|&p| query.mapping.mask_to_world(p))
                        .collect(),
                    snapped: path.status == PathStatus::Snapped || query.clamped,
                }
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
    fn warm_up(&self, key: GridKey, mask: &walkmask::WalkMask, source: (u32, u32)) {
        let grid = self.cache.get_or_build(key, mask, false);
        if grid.is_walkable(source.0, source.1) {
            self.fields.warm(&grid, source, || self.cache.grid_ids());
        }
    }
}

/// Everything a path task needs, owned.
struct PlanQuery {
    key: GridKey,
    mask: walkmask::WalkMask,
    start: Point,
    goal: Point,
    clamped: bool,
    mapping: MaskMapping,
}

/// A path task's answer.
pub(crate) enum PlanOutput {
    Path { waypoints: Vec<Vec2>, snapped: bool },
    Unreachable,
}

pub(crate) enum JobState {
    /// Waits for the room or the mask.
    Waiting,
    Running(Task<PlanOutput>),
    /// The answer is on its way (a command applies it).
    Done,
}

/// A walk request being answered, stored on the walker.
#[derive(Component)]
pub(crate) struct PathJob {
    /// Unique per request, so late answers for replaced jobs are ignored.
    pub(crate) id: u64,
    pub(crate) target: Vec2,
    /// The walker's position when the query started.
    pub(crate) from: Vec2,
    pub(crate) state: JobState,
}

static NEXT_JOB: AtomicU64 = AtomicU64::new(1);

/// One outcome, written as a message and triggered on the walker.
pub(crate) enum Outcome {
    Ready(PathReady),
    Unreachable(PathUnreachable),
    Cancelled(PathCancelled),
    Arrived(Arrived),
}

pub(crate) fn emit(world: &mut World, outcome: Outcome) {
    match outcome {
        Outcome::Ready(ev) => {
            world.write_message(ev.clone());
            world.trigger(ev);
        }
        Outcome::Unreachable(ev) => {
            world.write_message(ev.clone());
            world.trigger(ev);
        }
        Outcome::Cancelled(ev) => {
            world.write_message(ev.clone());
            world.trigger(ev);
        }
        Outcome::Arrived(ev) => {
            world.write_message(ev.clone());
            world.trigger(ev);
        }
    }
}

/// Makes `target` the walker's current request (see [`WalkRequest`]).
pub(crate) fn accept_request(world: &mut World, walker: Entity, target: Vec2) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        debug!("walk request for {walker}, which does not exist");
        return;
    };
    if !entity.contains::<Walker>() {
        warn!("walk request for {walker}, which has no Walker component");
        emit(
            world,
            Outcome::Unreachable(PathUnreachable {
                entity: walker,
                target,
            }),
        );
        return;
    }
    let previous = entity.take::<PathJob>();
    let walking = entity.contains::<WalkPath>();
    let position = entity
        .get::<Transform>()
        .map_or(Vec2::ZERO, |t| t.translation.truncate());
    let finite = target.is_finite();
    if finite {
        entity.insert(PathJob {
            id: NEXT_JOB.fetch_add(1, Ordering::Relaxed),
            target,
            from: position,
            state: JobState::Waiting,
        });
        if !walking {
            entity.insert(WalkState::Planning);
        }
    } else {
        warn!("walk request for {walker} to {target}, which is not a finite point");
        if !walking {
            entity.insert(WalkState::Unreachable);
        }
    }
    // Dropping the old job's task cancels it.
    if let Some(old) = previous {
        emit(
            world,
            Outcome::Cancelled(PathCancelled {
                entity: walker,
                target: old.target,
            }),
        );
    }
    if !finite {
        emit(
            world,
            Outcome::Unreachable(PathUnreachable {
                entity: walker,
                target,
            }),
        );
    }
}

/// Stops the walker (see [`WalkCommandsExt::stop_walking`](crate::WalkCommandsExt::stop_walking)).
pub(crate) fn stop_walker(world: &mut World, walker: Entity) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let job = entity.take::<PathJob>();
    entity.remove::<WalkPath>();
    if entity.contains::<Walker>() {
        entity.insert((WalkState::Idle, Heading(Vec2::ZERO)));
    }
    if let Some(job) = job {
        emit(
            world,
            Outcome::Cancelled(PathCancelled {
                entity: walker,
                target: job.target,
            }),
        );
    }
}

/// How far (world units) a path's first point may lie from a standing walker before
/// the walker is taken to have stood on a blocked pixel. Mapping a point to the mask
/// and back moves it by far less; a snapped start moves it by at least half a pixel.
const START_MOVED: f32 = 0.01;

/// Applies a job's answer, unless the job was replaced or the walker is gone.
fn complete_job(world: &mut World, walker: Entity, id: u64, output: PlanOutput) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if entity.get::<PathJob>().map(|job| job.id) != Some(id) {
        return;
    }
    let Some(job) = entity.take::<PathJob>() else {
        return;
    };
    let position = entity
        .get::<Transform>()
        .map_or(Vec2::ZERO, |t| t.translation.truncate());
    match output {
        PlanOutput::Path {
            mut waypoints,
            snapped,
        } => {
            let walking = entity.contains::<WalkPath>();
            if let Some(first) = waypoints.first_mut() {
                if walking && position != job.from {
                    // The walker kept walking its old path while this one was
                    // computed: continue from where it stands.
                    *first = position;
                } else if !walking && first.distance(position) > START_MOVED {
                    // The walker stood on a pixel it may not use (a closed area, a
                    // reloaded mask): the path starts at the nearest walkable pixel.
                    // Step onto it at once, as Adventure Game Studio does, rather than
                    // walk there through whatever blocks the way.
                    if let Some(mut transform) = entity.get_mut::<Transform>() {
                        transform.translation.x = first.x;
                        transform.translation.y = first.y;
                    }
                }
            }
            entity.insert((
                WalkPath {
                    waypoints: waypoints.clone(),
                    next: 0,
                    target: job.target,
                },
                WalkState::Walking,
            ));
            emit(
                world,
                Outcome::Ready(PathReady {
                    entity: walker,
                    target: job.target,
                    waypoints,
                    snapped,
                }),
            );
        }
        PlanOutput::Unreachable => {
            entity.remove::<WalkPath>();
            entity.insert((WalkState::Unreachable, Heading(Vec2::ZERO)));
            emit(
                world,
                Outcome::Unreachable(PathUnreachable {
                    entity: walker,
                    target: job.target,
                }),
            );
        }
    }
}

/// Reads [`WalkRequest`] messages (all of them, every frame).
pub(crate) fn read_requests(mut commands: Commands, mut requests: MessageReader<WalkRequest>) {
    for &WalkRequest { walker, target } in requests.read() {
        commands.queue(move |world: &mut World| accept_request(world, walker, target));
    }
}

/// The room a walker is in: its own, or the only one.
pub(crate) fn resolve_room<'q, 's, D: QueryData, F: QueryFilter>(
    walker: &Walker,
    rooms: &'q Query<'_, 's, D, F>,
) -> Option<ROQueryItem<'q, 's, D>> {
    match walker.room {
        Some(room) => rooms.get(room).ok(),
        None => rooms.single().ok(),
    }
}

/// Starts path tasks for jobs whose room and mask are ready.
pub(crate) fn start_jobs(
    mut commands: Commands,
    mut walkers: Query<(Entity, &Walker, &Transform, &mut PathJob)>,
    rooms: Query<(&WalkRoom, &GlobalTransform)>,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
    planner: Res<Planner>,
) {
    for (entity, walker, transform, mut job) in &mut walkers {
        if !matches!(job.state, JobState::Waiting) {
            continue;
        }
        let fail = |commands: &mut Commands, id: u64| {
            commands.queue(move |world: &mut World| {
                complete_job(world, entity, id, PlanOutput::Unreachable)
            });
        };
        let Some((room, room_transform)) = resolve_room(walker, &rooms) else {
            match walker.room {
                Some(room) => warn!("walker {entity}: its room {room} has no WalkRoom"),
                None => warn!(
                    "walker {entity}: no room given and not exactly one WalkRoom in the world"
                ),
            }
            job.state = JobState::Done;
            fail(&mut commands, job.id);
            continue;
        };
        let Some(mask) = masks.get(&room.mask) else {
            let state = server
                .as_ref()
                .map_or(LoadState::NotLoaded, |s| s.load_state(&room.mask));
            match state {
                LoadState::Loading => {}
                LoadState::Failed(error) => {
                    warn!("walker {entity}: the room's walk mask failed to load: {error}");
                    job.state = JobState::Done;
                    fail(&mut commands, job.id);
                }
                LoadState::NotLoaded | LoadState::Loaded => {
                    warn!("walker {entity}: the room's walk mask is missing");
                    job.state = JobState::Done;
                    fail(&mut commands, job.id);
                }
            }
            continue;
        };
        let mapping = room.mapping(room_transform, mask.size());
        let here = transform.translation.truncate();
        let start = mapping
            .clamp_to_mask(mapping.world_to_mask(here))
            .map(|(p, _)| p);
        let goal = mapping.clamp_to_mask(mapping.world_to_mask(job.target));
        let (true, Some(start), Some((goal, clamped))) = (mapping.is_valid(), start, goal) else {
            warn!(
                "walker {entity}: cannot place the walk on the mask (walker at {here}, target {}, room scale {})",
                job.target, room.scale
            );
            job.state = JobState::Done;
            fail(&mut commands, job.id);
            continue;
        };
        let areas = walker_areas(walker, room);
        let query = PlanQuery {
            key: GridKey {
                mask: room.mask.id(),
                revision: mask.revision(),
                areas: areas.to_area_set(),
            },
            mask: mask.mask.clone(),
            start,
            goal,
            clamped,
            mapping,
        };
        let planner = planner.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move { planner.plan(query) });
        job.from = here;
        job.state = JobState::Running(task);
    }
}

/// What a warm-up was started for: the grid and the walker's pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WarmKey {
    grid: GridKey,
    pixel: (u32, u32),
}

/// The warm-up of a walker standing still: the key it was started for and its task
/// while it runs.
#[derive(Component)]
pub(crate) struct WarmUp {
    key: WarmKey,
    task: Option<Task<()>>,
}

/// At most this many warm-up tasks run (or wait to run) at once, so that a path
/// task queued on the async compute pool waits for at most one fill.
const MAX_WARMING: usize = 1;

/// A walker that may be standing still.
type StandingWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    &'static WalkState,
    Option<&'static mut WarmUp>,
);

/// Starts a warm-up task for walkers standing still whose (grid, pixel) has none yet;
/// a walker that moved, or whose room areas or mask changed, gets a new one (the old
/// task is dropped).
pub(crate) fn warm_fields(
    mut commands: Commands,
    mut walkers: Query<StandingWalker, (Without<PathJob>, Without<WalkPath>)>,
    rooms: Query<(&WalkRoom, &GlobalTransform)>,
    masks: Res<Assets<WalkMask>>,
    planner: Res<Planner>,
) {
    if !planner.warm {
        return;
    }
    for (entity, walker, transform, state, mut warm) in &mut walkers {
        if !matches!(
            state,
            WalkState::Idle | WalkState::Arrived | WalkState::Unreachable
        ) {
            continue;
        }
        let Some((room, room_transform)) = resolve_room(walker, &rooms) else {
            continue;
        };
        let Some(mask) = masks.get(&room.mask) else {
            continue;
        };
        let mapping = room.mapping(room_transform, mask.size());
        let here = mapping.world_to_mask(transform.translation.truncate());
        let Some(pixel) = mapping
            .clamp_to_mask(here)
            .and_then(|(p, _)| p.pixel())
            .filter(|_| mapping.is_valid())
        else {
            continue;
        };
        let key = WarmKey {
            grid: GridKey {
                mask: room.mask.id(),
                revision: mask.revision(),
                areas: walker_areas(walker, room).to_area_set(),
            },
            pixel,
        };
        if let Some(warm) = warm.as_mut()
            && warm.key == key
        {
            if warm.task.is_some() && warm.task.as_mut().and_then(check_ready).is_some() {
                warm.task = None;
            }
            continue;
        }
        // Path tasks share the pool with warm-ups: keep at most a few fills ahead of
        // them; the others start in a later frame.
        if planner.warming.load(Ordering::Relaxed) >= MAX_WARMING {
            continue;
        }
        planner.warming.fetch_add(1, Ordering::Relaxed);
        let warming = Warming(planner.warming.clone());
        let planner = planner.clone();
        let pixels = mask.mask.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let _warming = warming;
            planner.warm_up(key.grid, &pixels, key.pixel)
        });
        let task = Some(task);
        match warm {
            // Dropping the old task cancels it.
            Some(mut warm) => *warm = WarmUp { key, task },
            None => {
                commands.entity(entity).try_insert(WarmUp { key, task });
            }
        }
    }
}

/// Collects finished path tasks without blocking.
pub(crate) fn poll_jobs(mut commands: Commands, mut jobs: Query<(Entity, &mut PathJob)>) {
    for (entity, mut job) in &mut jobs {
        let JobState::Running(task) = &mut job.state else {
            continue;
        };
        let Some(output) = check_ready(task) else {
            continue;
        };
        job.state = JobState::Done;
        let id = job.id;
        commands.queue(move |world: &mut World| complete_job(world, entity, id, output));
    }
}

/// Mask reloads and room changes (areas, mask, scale, offset): walkers on a changed
/// mask or in a changed room re-plan from where they stand to their current target.
/// Also reports masks that failed to load.
pub(crate) fn react_to_mask_changes(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<WalkMask>>,
    mut failures: MessageReader<bevy::asset::AssetLoadFailedEvent<WalkMask>>,
    rooms: Query<(Entity, &WalkRoom)>,
    changed_rooms: Query<(), Changed<WalkRoom>>,
    mut walkers: Query<(Entity, &Walker, Option<&mut PathJob>, Option<&WalkPath>)>,
) {
    for failure in failures.read() {
        error!(
            "walk mask '{}' failed to load ({}); walk requests in rooms using it are answered with PathUnreachable",
            failure.path, failure.error
        );
    }
    let mut changed: Vec<AssetId<WalkMask>> = Vec::new();
    for event in events.read() {
        if let AssetEvent::Modified { id } = event
            && !changed.contains(id)
        {
            changed.push(*id);
        }
    }
    // A room whose areas, mask, scale or offset changed (a gate closing, say)
    // invalidates paths planned in it just as new mask pixels do.
    if changed.is_empty() && changed_rooms.is_empty() {
        return;
    }
    for (entity, walker, job, path) in &mut walkers {
        let Some((room_entity, room)) = resolve_room(walker, &rooms) else {
            continue;
        };
        if !changed.contains(&room.mask.id()) && !changed_rooms.contains(room_entity) {
            continue;
        }
        match (job, path) {
            (Some(mut job), _) => {
                if matches!(job.state, JobState::Running(_)) {
                    // Same request, new pixels: start over (dropping the old task).
                    job.state = JobState::Waiting;
                }
            }
            (None, Some(path)) => {
                let target = path.target;
                debug!("walker {entity}: walk mask changed, re-planning to {target}");
                commands.queue(move |world: &mut World| accept_request(world, entity, target));
            }
            (None, None) => {}
        }
    }
}

/// The areas a walker may use in a room.
pub(crate) fn walker_areas(walker: &Walker, room: &WalkRoom) -> WalkAreas {
    match walker.areas {
        Some(limit) => room.areas.intersection(&limit),
        None => room.areas,
    }
}
