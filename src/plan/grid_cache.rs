//! Prepared grids shared by every path task.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
use std::time::Duration;
use walkmask::subgoal::IndexPolicy;
use walkmask::{AreaSet, NavGrid};

use crate::asset::WalkMask;

/// Which grid: which mask asset, which pixels (the mask's revision), which areas (only
/// those that occur in the mask, so that toggling an absent area shares the grid), and
/// the walkers' clearance radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct GridKey {
    pub(crate) mask: AssetId<WalkMask>,
    pub(crate) revision: u64,
    pub(crate) areas: AreaSet,
    /// Clearance radius in steps of [`CLEARANCE_STEP`] pixels, rounded up.
    pub(crate) clearance_steps: u32,
}

/// Clearance radii are rounded up to a multiple of this many pixels, so that walkers
/// of nearly the same size share one grid.
pub(crate) const CLEARANCE_STEP: f32 = 0.25;

impl GridKey {
    /// The key of `mask` (the asset `id`) seen with `areas`, for walkers of
    /// `clearance` pixels (finite, at least 0).
    pub(crate) fn new(
        id: AssetId<WalkMask>,
        mask: &WalkMask,
        areas: AreaSet,
        clearance: f32,
    ) -> Self {
        // Far beyond any mask: a radius this wide blocks everything anyway.
        let steps = (clearance / CLEARANCE_STEP).ceil().clamp(0.0, 1e9) as u32;
        Self {
            mask: id,
            revision: mask.revision(),
            areas: areas.intersection(&mask.present_areas()),
            clearance_steps: steps,
        }
    }

    /// The clearance radius in pixels.
    pub(crate) fn clearance(&self) -> f32 {
        self.clearance_steps as f32 * CLEARANCE_STEP
    }
}

/// What [`NavGridCache::lookup_or_reserve`] found.
enum GridLookup {
    /// Built.
    Ready(NavGrid),
    /// Someone is building it.
    Building,
    /// No one was: its place is reserved for the caller to build it.
    Reserved,
}

struct Entry {
    key: GridKey,
    grid: Arc<OnceLock<NavGrid>>,
    /// What the grid will take before it is built (4 bytes a pixel of the mask with a
    /// one-pixel border, its labels).
    estimate: usize,
    /// Whether a path query has used the grid (a warm-up may prepare it ahead).
    queried: bool,
    /// The last frame ([`NavGridCache::next_frame`]) it was used in: a grid used in
    /// the current frame is not evicted, so that two grids needed every frame do not
    /// evict each other for ever.
    used_in: u64,
    /// Whether a task is building the grid in slices (on the web).
    #[cfg(target_arch = "wasm32")]
    building: bool,
}

/// Gives up a task's claim to build a grid in slices when the task ends, finished or
/// dropped halfway.
#[cfg(target_arch = "wasm32")]
struct ReleaseClaim<'a> {
    cache: &'a NavGridCache,
    key: GridKey,
}

#[cfg(target_arch = "wasm32")]
impl Drop for ReleaseClaim<'_> {
    fn drop(&mut self) {
        let mut inner = self.cache.lock();
        if let Some(entry) = inner.entries.iter_mut().find(|e| e.key == self.key) {
            entry.building = false;
        }
    }
}

impl Entry {
    fn new(key: GridKey, mask: &walkmask::WalkMask, queried: bool, frame: u64) -> Self {
        let (w, h) = (mask.width() as usize, mask.height() as usize);
        Self {
            key,
            grid: Arc::new(OnceLock::new()),
            estimate: (w + 2) * (h + 2) * 4,
            queried,
            used_in: frame,
            #[cfg(target_arch = "wasm32")]
            building: false,
        }
    }

    /// Bytes it holds: the built grid's (labels, open bits, edge index) and its
    /// subgoal index's, or the estimate while it is being built.
    fn bytes(&self) -> usize {
        self.grid.get().map_or(self.estimate, |grid| {
            grid.memory_bytes() + grid.subgoal_index().map_or(0, |index| index.memory_bytes())
        })
    }
}

impl Inner {
    /// Drops the least recently used grids while they hold more than the budget,
    /// keeping the most recent one whatever its size, and every grid used in the
    /// current frame: what is in use may exceed the budget (counted in
    /// [`GridCacheStats::over_budget_frames`], with a warning the first time).
    fn evict(&mut self) {
        let mut used: usize = self.entries.iter().map(Entry::bytes).sum();
        let mut i = 0;
        while used > self.budget && self.entries.len() > 1 && i + 1 < self.entries.len() {
            // Frame 0: frames are not counted (a cache used outside the plugin).
            if self.frame != 0 && self.entries[i].used_in == self.frame {
                i += 1;
                continue;
            }
            used -= self.entries.remove(i).bytes();
        }
        if used > self.budget && self.entries.len() > 1 && self.over_budget_in != self.frame {
            self.over_budget_in = self.frame;
            self.over_budget_frames += 1;
            if !self.warned_over_budget {
                self.warned_over_budget = true;
                warn!(
                    "the grids walkers use this frame take {used} bytes, over the grid cache's budget of {} (WalkmaskPlugin::grid_cache_bytes); they are kept",
                    self.budget
                );
            }
        }
    }

    /// The entry of `key`, made the most recently used (and used this frame).
    fn touch(&mut self, key: GridKey) -> Option<&mut Entry> {
        let i = self.entries.iter().position(|e| e.key == key)?;
        let mut entry = self.entries.remove(i);
        entry.used_in = self.frame;
        self.entries.push(entry);
        self.entries.last_mut()
    }

    /// The entry of `key`, made the most recently used, or a new one reserved; marked
    /// as used by a path query when `query`. With `count`, counted in the stats: a hit
    /// when a path query used it before, else a miss.
    fn use_entry(
        &mut self,
        key: GridKey,
        mask: &walkmask::WalkMask,
        query: bool,
        count: bool,
    ) -> &mut Entry {
        let queried_before = self.touch(key).map(|entry| {
            let before = entry.queried;
            entry.queried |= query;
            before
        });
        match queried_before {
            Some(true) if count => self.hits += 1,
            Some(_) | None if count => self.misses += 1,
            _ => {}
        }
        if queried_before.is_some() {
            self.entries.last_mut().expect("just touched")
        } else {
            self.reserve(key, mask, query)
        }
    }

    /// A new entry for `key` (the most recently used), after dropping the grids of
    /// the mask's older pixels and those over the budget.
    fn reserve(&mut self, key: GridKey, mask: &walkmask::WalkMask, queried: bool) -> &mut Entry {
        // Grids of older pixels of the same asset are of no further use.
        self.entries
            .retain(|e| e.key.mask != key.mask || e.key.revision == key.revision);
        self.entries
            .push(Entry::new(key, mask, queried, self.frame));
        self.evict();
        self.entries.last_mut().expect("just pushed")
    }
}

#[derive(Default)]
struct Inner {
    /// Least recently used first.
    entries: Vec<Entry>,
    budget: usize,
    hits: u64,
    misses: u64,
    /// Whether built grids get a subgoal index.
    search_index: bool,
    /// Grids built, and how long the last grid build and the last index build took.
    grid_builds: u64,
    last_grid_build: Option<Duration>,
    last_index_build: Option<Duration>,
    /// The current frame, for pinning the grids it uses.
    frame: u64,
    /// Frames in which the grids in use exceeded the budget, and the last one.
    over_budget_frames: u64,
    over_budget_in: u64,
    warned_over_budget: bool,
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
    /// ahead of them by a warm-up. Warm-ups themselves are not counted.
    pub misses: u64,
    /// Grids held.
    pub entries: usize,
    /// Bytes held by the grids (labels, open bits and edges: about 6.5 a pixel of
    /// the mask) and their subgoal indexes; a grid being built counts 4 a pixel.
    pub bytes: usize,
    /// The budget in bytes ([`WalkmaskPlugin::grid_cache_bytes`](crate::WalkmaskPlugin::grid_cache_bytes)).
    pub budget_bytes: usize,
    /// Grids held whose subgoal index is built ([`NavGridCache::with_search_index`]).
    pub indexed: usize,
    /// Bytes held by those indexes (most masks: well under 1 per pixel).
    pub index_bytes: usize,
    /// Grids built so far (by path queries and by warm-ups).
    pub grid_builds: u64,
    /// How long the last grid build took (areas, clearance and edges), on whichever
    /// thread built it. On the web that is the main thread, between two frames.
    pub last_grid_build: Option<Duration>,
    /// How long the last subgoal index build took (`None` until one is built; masks
    /// whose index does not pay get none).
    pub last_index_build: Option<Duration>,
    /// Frames in which the grids used in that frame held more than the budget: they
    /// are kept all the same (a grid a walker uses this frame is never dropped for
    /// another it uses), so raise the budget when this grows.
    pub over_budget_frames: u64,
}

/// Prepared [`NavGrid`]s shared by all path tasks, keyed by (mask asset, mask
/// revision, enabled areas that occur in the mask).
///
/// Bounded by a byte budget ([`WalkmaskPlugin::grid_cache_bytes`](crate::WalkmaskPlugin::grid_cache_bytes)):
/// the least recently used grids are dropped first; the grid in use is always kept,
/// so one grid larger than the whole budget still works (and is the only one kept).
/// Grids of a mask's older pixels are dropped as soon as its new pixels are used, and
/// grids of a mask that is unloaded are dropped with it.
///
/// Grids are built inside path tasks, never on the main thread. Two tasks that need
/// the same grid at once share one build. Once a grid is built, its subgoal index
/// ([`walkmask::subgoal`]) is built by a task of its own on the async compute pool,
/// when the mask's rule says it pays; queries fill until it is ready and use it from
/// then on, with the same path lengths. A grid of an area set seen before is found
/// here with its index.
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
    inner: Arc<Mutex<Inner>>,
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
            inner: Arc::new(Mutex::new(Inner {
                budget: budget_bytes,
                search_index: true,
                ..Inner::default()
            })),
        }
    }

    /// This cache, building a subgoal index for each grid it builds (`true`, the
    /// default) or not (`false`: every query fills).
    ///
    /// ```
    /// # use bevy_walkmask::NavGridCache;
    /// let cache = NavGridCache::new(64 << 20).with_search_index(false);
    /// assert_eq!(cache.stats().indexed, 0);
    /// ```
    pub fn with_search_index(self, on: bool) -> Self {
        self.lock().search_index = on;
        self
    }

    /// Whether it builds a subgoal index for each grid.
    pub(crate) fn search_index(&self) -> bool {
        self.lock().search_index
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts the next frame: the grids used from here on are kept until the frame
    /// after (see [`GridCacheStats::over_budget_frames`]).
    pub(crate) fn next_frame(&self) {
        self.lock().frame += 1;
    }

    /// The counters.
    ///
    /// ```
    /// # use bevy_walkmask::NavGridCache;
    /// assert_eq!(NavGridCache::new(1024).stats().bytes, 0);
    /// ```
    pub fn stats(&self) -> GridCacheStats {
        let inner = self.lock();
        let indexes: Vec<usize> = inner
            .entries
            .iter()
            .filter_map(|e| e.grid.get()?.subgoal_index().map(|i| i.memory_bytes()))
            .collect();
        GridCacheStats {
            hits: inner.hits,
            misses: inner.misses,
            entries: inner.entries.len(),
            bytes: inner.entries.iter().map(Entry::bytes).sum(),
            budget_bytes: inner.budget,
            indexed: indexes.len(),
            index_bytes: indexes.iter().sum(),
            grid_builds: inner.grid_builds,
            last_grid_build: inner.last_grid_build,
            last_index_build: inner.last_index_build,
            over_budget_frames: inner.over_budget_frames,
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
        self.lock().entries.clear();
    }

    /// Drops the grids of the mask asset `mask` but those of its pixels `current`
    /// (`None`: it was unloaded, drop them all).
    pub(crate) fn forget_mask(&self, mask: AssetId<WalkMask>, current: Option<u64>) {
        self.lock()
            .entries
            .retain(|e| e.key.mask != mask || Some(e.key.revision) == current);
    }

    /// The grid for `key`, built from `mask` on the calling thread if needed.
    /// `query` says whether a path query (counted in the stats) or a warm-up asks.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn get_or_build(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
        query: bool,
    ) -> NavGrid {
        let cell = self.lock().use_entry(key, mask, query, query).grid.clone();
        let mut built = false;
        let started = Instant::now();
        let grid = cell
            .get_or_init(|| {
                built = true;
                work_span!("walkmask: grid build");
                NavGrid::with_clearance(mask.clone(), key.areas, key.clearance())
                    .unwrap_or_else(|_| NavGrid::new(mask.clone(), key.areas))
            })
            .clone();
        if built {
            self.built(&grid, started.elapsed());
        }
        grid
    }

    /// The grid for `key`, built from `mask` if needed: [`get_or_build`](Self::get_or_build)
    /// on the calling thread; on the web in slices between which the browser draws.
    pub(crate) async fn grid(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
        query: bool,
    ) -> NavGrid {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.get_or_build(key, mask, query)
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.get_or_build_in_slices(key, mask, query).await
        }
    }

    /// [`get_or_build`](Self::get_or_build) on the web: the build gives the browser
    /// its thread back every few milliseconds, and a task that needs a grid another
    /// task is building waits for it without holding the thread.
    #[cfg(target_arch = "wasm32")]
    async fn get_or_build_in_slices(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
        query: bool,
    ) -> NavGrid {
        use crate::plan::browser_pause::{BrowserPause, next_browser_task};
        let mut counted = false;
        loop {
            let (cell, claimed) = {
                let mut inner = self.lock();
                let entry = inner.use_entry(key, mask, query, query && !counted);
                counted = true;
                let claimed = entry.grid.get().is_none() && !entry.building;
                entry.building |= claimed;
                (entry.grid.clone(), claimed)
            };
            if let Some(grid) = cell.get() {
                return grid.clone();
            }
            if !claimed {
                // Another task is building it.
                next_browser_task().await;
                continue;
            }
            // Should this task be dropped mid-build, the next one to ask builds it.
            let release = ReleaseClaim { cache: self, key };
            let started = Instant::now();
            let mut pause = BrowserPause::new();
            let grid = match NavGrid::with_clearance_pausing(
                mask.clone(),
                key.areas,
                key.clearance(),
                &mut pause,
            )
            .await
            {
                Ok(grid) => grid,
                Err(_) => NavGrid::new(mask.clone(), key.areas),
            };
            let grid = cell.get_or_init(|| grid).clone();
            drop(release);
            self.built(&grid, started.elapsed());
            return grid;
        }
    }

    /// Bookkeeping once `grid` is built: its time, the budget (its size is known
    /// now), and its subgoal index started on the pool.
    fn built(&self, grid: &NavGrid, took: Duration) {
        let index_it = {
            let mut inner = self.lock();
            inner.grid_builds += 1;
            inner.last_grid_build = Some(took);
            inner.evict();
            inner.search_index
        };
        // The search worker builds its own (`search_worker`).
        #[cfg(target_arch = "wasm32")]
        let index_it = index_it && !super::search_worker::browser::is_ready();
        if !index_it {
            return;
        }
        let (indexed, cache) = (grid.clone(), self.clone());
        AsyncComputeTaskPool::get()
            .spawn(async move {
                crate::plan::after_the_frame().await;
                let started = Instant::now();
                #[cfg(not(target_arch = "wasm32"))]
                let index = {
                    work_span!("walkmask: search index build");
                    indexed.build_index(IndexPolicy::WhenItPays)
                };
                #[cfg(target_arch = "wasm32")]
                let index = indexed
                    .build_index_pausing(
                        IndexPolicy::WhenItPays,
                        &mut crate::plan::browser_pause::BrowserPause::new(),
                    )
                    .await;
                if index.is_some() {
                    // So is its index's.
                    let mut inner = cache.lock();
                    inner.last_index_build = Some(started.elapsed());
                    inner.evict();
                }
            })
            .detach();
    }

    /// The grid for `key` if it is built. If it is not, and no one is building it,
    /// reserves its place and says so: the caller then builds it off the main thread
    /// with [`get_or_build`](Self::get_or_build). Never builds on the calling thread.
    fn lookup_or_reserve(&self, key: GridKey, mask: &walkmask::WalkMask) -> GridLookup {
        let mut inner = self.lock();
        if let Some(entry) = inner.touch(key) {
            return match entry.grid.get() {
                Some(grid) => GridLookup::Ready(grid.clone()),
                None => GridLookup::Building,
            };
        }
        inner.reserve(key, mask, false);
        GridLookup::Reserved
    }

    /// The grid for `key` if it is built; else `None`, after starting to build it on
    /// the async compute pool unless that is under way. Without `multi_threaded` the
    /// build runs inside this call and the grid is returned.
    pub(crate) fn ready_or_build_async(
        &self,
        key: GridKey,
        mask: &walkmask::WalkMask,
    ) -> Option<NavGrid> {
        match self.lookup_or_reserve(key, mask) {
            GridLookup::Ready(grid) => Some(grid),
            GridLookup::Building => None,
            GridLookup::Reserved => {
                let (cache, pixels) = (self.clone(), mask.clone());
                AsyncComputeTaskPool::get()
                    .spawn(async move {
                        crate::plan::after_the_frame().await;
                        cache.grid(key, &pixels, false).await;
                    })
                    .detach();
                match self.lookup_or_reserve(key, mask) {
                    GridLookup::Ready(grid) => Some(grid),
                    _ => None,
                }
            }
        }
    }

    /// Ids of the prepared grids the cache holds.
    pub(crate) fn grid_ids(&self) -> Vec<u64> {
        self.lock()
            .entries
            .iter()
            .filter_map(|e| e.grid.get().map(NavGrid::id))
            .collect()
    }
}
