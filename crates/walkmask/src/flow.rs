//! Reusable distance fields: a cache bounded by a memory budget.
//!
//! A [`DistanceField`] filled from a walker's pixel answers every click of that walker
//! by tracing alone ([`DistanceField::path_to`]), and a field filled from a destination
//! serves every walker heading there ([`DistanceField::path_from`], seed 001's
//! signposts). [`FieldCache`] keeps such fields, keyed by grid (mask and area set) and
//! source pixel, and drops the least recently used ones beyond a budget in bytes.

use std::sync::Arc;

use crate::{DistanceField, FillScratch, NavGrid};

/// Cached distance fields, keyed by [`NavGrid::id`] and source pixel, bounded by a
/// memory budget in bytes (least recently used first out).
///
/// ```
/// use walkmask::{AreaSet, NavGrid, PathOptions, Point, WalkMask};
/// use walkmask::flow::FieldCache;
///
/// let grid = NavGrid::new(WalkMask::from_fn(64, 64, |x, y| u8::from(!(x == 30 && y < 60))).unwrap(), AreaSet::all());
/// let mut cache = FieldCache::new(1 << 20);
/// let field = cache.get_or_fill(&grid, (5, 5)).unwrap();
/// let path = field.path_to(Point::new(5.5, 5.5), Point::new(50.5, 5.5), &PathOptions::default()).unwrap();
/// assert!(path.waypoints.len() > 2); // around the wall, without a new fill
/// assert!(cache.get(&grid, (5, 5)).is_some());
/// ```
#[derive(Debug, Default)]
pub struct FieldCache {
    budget_bytes: usize,
    used_bytes: usize,
    tick: u64,
    entries: Vec<Entry>,
    scratch: FillScratch,
}

#[derive(Debug)]
struct Entry {
    grid_id: u64,
    source: (u32, u32),
    field: Arc<DistanceField>,
    bytes: usize,
    last_used: u64,
}

impl FieldCache {
    /// An empty cache that keeps at most `budget_bytes` of fields.
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            budget_bytes,
            ..Self::default()
        }
    }

    /// The budget in bytes.
    pub fn budget_bytes(&self) -> usize {
        self.budget_bytes
    }

    /// Bytes held by the cached fields.
    pub fn memory_bytes(&self) -> usize {
        self.used_bytes
    }

    /// Number of cached fields.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops every field.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.used_bytes = 0;
    }

    /// Drops the fields of one grid (for example when its mask changed).
    pub fn remove_grid(&mut self, grid_id: u64) {
        self.entries.retain(|e| e.grid_id != grid_id);
        self.used_bytes = self.entries.iter().map(|e| e.bytes).sum();
    }

    /// The cached field of `grid` from `source`, if any.
    pub fn get(&mut self, grid: &NavGrid, source: (u32, u32)) -> Option<Arc<DistanceField>> {
        self.tick += 1;
        let tick = self.tick;
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.grid_id == grid.id() && e.source == source)?;
        entry.last_used = tick;
        Some(entry.field.clone())
    }

    /// Adds a field (replacing one with the same key), then drops least recently used
    /// fields until the budget holds. A field larger than the whole budget is not kept.
    pub fn insert(&mut self, field: Arc<DistanceField>) {
        let bytes = field.memory_bytes();
        let (grid_id, source) = (field.grid().id(), field.source());
        self.entries
            .retain(|e| !(e.grid_id == grid_id && e.source == source));
        if bytes > self.budget_bytes {
            self.used_bytes = self.entries.iter().map(|e| e.bytes).sum();
            return;
        }
        self.tick += 1;
        self.entries.push(Entry {
            grid_id,
            source,
            field,
            bytes,
            last_used: self.tick,
        });
        self.used_bytes = self.entries.iter().map(|e| e.bytes).sum();
        while self.used_bytes > self.budget_bytes {
            let oldest = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i)
                .expect("over budget means not empty");
            let gone = self.entries.swap_remove(oldest);
            self.used_bytes -= gone.bytes;
        }
    }

    /// The cached field of `grid` from `source`, filling and caching it when missing.
    /// `None` when `source` is outside the mask or blocked.
    pub fn get_or_fill(
        &mut self,
        grid: &NavGrid,
        source: (u32, u32),
    ) -> Option<Arc<DistanceField>> {
        if let Some(field) = self.get(grid, source) {
            return Some(field);
        }
        let field = Arc::new(DistanceField::with_scratch(
            grid,
            source,
            &mut self.scratch,
        )?);
        self.insert(field.clone());
        Some(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, WalkMask};

    fn grid(w: u32, h: u32) -> NavGrid {
        NavGrid::new(WalkMask::from_fn(w, h, |_, _| 1).unwrap(), AreaSet::all())
    }

    #[test]
    fn budget_evicts_least_recently_used() {
        let g = grid(30, 30);
        let one = DistanceField::new(&g, (0, 0)).unwrap().memory_bytes();
        let mut cache = FieldCache::new(one * 2);
        cache.get_or_fill(&g, (0, 0)).unwrap();
        cache.get_or_fill(&g, (1, 1)).unwrap();
        assert_eq!(cache.len(), 2);
        cache.get(&g, (0, 0)).unwrap(); // (1, 1) is now the oldest
        cache.get_or_fill(&g, (2, 2)).unwrap();
        assert_eq!(cache.len(), 2);
        assert!(cache.memory_bytes() <= cache.budget_bytes());
        assert!(cache.get(&g, (1, 1)).is_none());
        assert!(cache.get(&g, (0, 0)).is_some() && cache.get(&g, (2, 2)).is_some());
    }

    #[test]
    fn keyed_by_grid_and_blocked_sources_are_refused() {
        let (a, b) = (grid(10, 10), grid(10, 10));
        let mut cache = FieldCache::new(1 << 20);
        cache.get_or_fill(&a, (3, 3)).unwrap();
        assert!(
            cache.get(&b, (3, 3)).is_none(),
            "another grid, even an equal one"
        );
        assert!(cache.get_or_fill(&a, (10, 3)).is_none());
        cache.remove_grid(a.id());
        assert!(cache.is_empty() && cache.memory_bytes() == 0);
        let mut tiny = FieldCache::new(16);
        assert!(tiny.get_or_fill(&a, (1, 1)).is_some(), "still answered");
        assert!(tiny.is_empty(), "but not kept over budget");
    }
}
