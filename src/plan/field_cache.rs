//! Warm distance fields kept for walkers standing still.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use bevy::prelude::*;
use walkmask::flow::FieldCache;
use walkmask::{DistanceField, NavGrid};

struct FieldsInner {
    fields: FieldCache,
    /// Fields being filled right now, as (grid id, source pixel).
    filling: Vec<(u64, (u32, u32))>,
    /// Grids that have fields in `fields`.
    grids: Vec<u64>,
    hits: u64,
    misses: u64,
    fills: u64,
    shared: u64,
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
    /// Fields filled (warm fields and fields shared by walkers going to one place).
    pub fills: u64,
    /// Path queries answered from a field filled from their destination, shared with
    /// the other walkers going there.
    pub shared: u64,
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
///
/// The same fields serve crowds: when several walkers are sent to one destination
/// pixel (same room, areas and radius) in one frame, one field is filled from the
/// destination and every one of them traces it ([`DistanceField::path_from`], ties
/// toward the straight line to the destination), instead of one search each.
#[derive(Resource, Clone)]
pub struct WarmFieldCache {
    inner: Arc<Mutex<FieldsInner>>,
    /// Signalled whenever a fill ends, for tasks waiting on the same field.
    filled: Arc<Condvar>,
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
                shared: 0,
            })),
            filled: Arc::new(Condvar::new()),
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
            shared: inner.shared,
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
    pub(crate) fn lookup(&self, grid: &NavGrid, source: (u32, u32)) -> Option<Arc<DistanceField>> {
        let mut inner = self.lock();
        let field = inner.fields.get(grid, source);
        if field.is_some() {
            inner.hits += 1;
        } else {
            inner.misses += 1;
        }
        field
    }

    /// The field of `grid` from `source` if it is cached, not counted in the stats
    /// (for hover answers).
    pub(crate) fn peek(&self, grid: &NavGrid, source: (u32, u32)) -> Option<Arc<DistanceField>> {
        self.lock().fields.get(grid, source)
    }

    /// Fills the field of `grid` from `source` unless it is cached or being filled;
    /// the lock is not held while filling. `live` lists the grids still in use: fields
    /// of other grids can never be asked for again and are dropped.
    pub(crate) fn warm(&self, grid: &NavGrid, source: (u32, u32), live: impl FnOnce() -> Vec<u64>) {
        let key = (grid.id(), source);
        {
            let mut inner = self.lock();
            if inner.fields.get(grid, source).is_some() || inner.filling.contains(&key) {
                return;
            }
            inner.filling.push(key);
        }
        self.fill(grid, source, live);
    }

    /// The field of `grid` from `destination`, for a walker sent there with others
    /// (counted as shared): the cached one, or the one another task is filling (this
    /// task waits for it), or a new fill. `None` when `destination` is not walkable.
    pub(crate) fn shared(
        &self,
        grid: &NavGrid,
        destination: (u32, u32),
        live: impl FnOnce() -> Vec<u64>,
    ) -> Option<Arc<DistanceField>> {
        let key = (grid.id(), destination);
        let mut inner = self.lock();
        loop {
            if let Some(field) = inner.fields.get(grid, destination) {
                inner.shared += 1;
                return Some(field);
            }
            if !inner.filling.contains(&key) {
                break;
            }
            inner = self
                .filled
                .wait(inner)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        inner.filling.push(key);
        drop(inner);
        let field = self.fill(grid, destination, live);
        if field.is_some() {
            self.lock().shared += 1;
        }
        field
    }

    /// Fills the field of `grid` from `source` (whose key the caller put on the
    /// `filling` list) and keeps it.
    fn fill(
        &self,
        grid: &NavGrid,
        source: (u32, u32),
        live: impl FnOnce() -> Vec<u64>,
    ) -> Option<Arc<DistanceField>> {
        let key = (grid.id(), source);
        /// Takes the key off the `filling` list however the fill ends, and wakes the
        /// tasks waiting for it.
        struct Filling<'a>(&'a WarmFieldCache, (u64, (u32, u32)));
        impl Drop for Filling<'_> {
            fn drop(&mut self) {
                self.0.lock().filling.retain(|k| *k != self.1);
                self.0.filled.notify_all();
            }
        }
        let _filling = Filling(self, key);
        work_span!("walkmask: distance field fill");
        let field = Arc::new(DistanceField::new(grid, source)?);
        let live = live();
        let mut inner = self.lock();
        let FieldsInner {
            fields,
            grids,
            fills,
            ..
        } = &mut *inner;
        *fills += 1;
        drop_dead_grids(fields, grids, |id| id == key.0 || live.contains(&id));
        if !grids.contains(&key.0) {
            grids.push(key.0);
        }
        fields.insert(field.clone());
        Some(field)
    }

    /// Drops the fields of grids not in `live` (their mask was unloaded or replaced).
    pub(crate) fn keep_grids(&self, live: &[u64]) {
        let mut inner = self.lock();
        let FieldsInner { fields, grids, .. } = &mut *inner;
        drop_dead_grids(fields, grids, |id| live.contains(&id));
    }
}

/// Drops from `fields` the fields of every grid in `grids` that is not `alive`, and
/// forgets those grids.
fn drop_dead_grids(fields: &mut FieldCache, grids: &mut Vec<u64>, alive: impl Fn(u64) -> bool) {
    grids.retain(|&id| {
        let keep = alive(id);
        if !keep {
            fields.remove_grid(id);
        }
        keep
    });
}
