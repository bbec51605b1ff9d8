//! A mask prepared for queries under one area set: walkability and connected regions.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::clearance::{
    ClearanceError, check_radius, min_squared_distance, squared_distances_pausing,
};
use crate::obstacles::{ObstacleBits, Obstacles, SharedBits};
use crate::pause::{NeverPause, PIXELS_BETWEEN_CHECKPOINTS, Pause, checkpoint, run_through};
use crate::snap::EdgeIndex;
use crate::subgoal::{
    IndexPolicy, MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL, MAX_SIDE, SubgoalGraph,
    WALKABLE_PIXELS_PER_SUBGOAL, count_subgoals_pausing,
};
use crate::{AreaSet, Point, WalkMask};

/// A [`WalkMask`] prepared for queries with one [`AreaSet`].
///
/// Holds a connected-region label per pixel (4 bytes a pixel, computed once), laid out
/// with a blocked one-pixel border so that the fill's inner loop needs no bounds
/// checks. Two pixels are in the same region when a walker can go from one to the
/// other; a destination in another region is answered without a fill.
///
/// Moves between pixels are the 4 cardinal steps and the 4 diagonal steps whose two
/// side pixels are both walkable (no squeezing between pixels that touch at a corner),
/// so regions are the 4-connected components of the enabled pixels.
///
/// A grid may be prepared for walkers of some radius ([`NavGrid::with_clearance`]):
/// then only the pixels such a walker may stand on count as walkable. It may also be
/// seen through [`Obstacles`] ([`NavGrid::with_obstacles`]), which block more pixels
/// without copying anything.
///
/// Cloning is cheap: the labels and the mask are shared.
#[derive(Clone)]
pub struct NavGrid {
    inner: Arc<Inner>,
    /// Pixels blocked by obstacles, on top of the labels.
    obstacles: Option<SharedBits>,
}

struct Inner {
    id: u64,
    mask: WalkMask,
    areas: AreaSet,
    /// Clearance radius in pixels.
    clearance: f32,
    /// Padded: `(width + 2) * (height + 2)`, 0 = blocked or border, else region id.
    labels: Vec<u32>,
    /// Padded like `labels`: 1 = walkable, 0 = blocked or border. The searches' inner
    /// loops test this, a quarter of the memory traffic of the labels.
    open: Vec<u8>,
    region_count: u32,
    walkable_count: usize,
    /// Edge pixels by row and by region, for snapping.
    edges: EdgeIndex,
    /// The search index, once [`NavGrid::build_index`] has decided (`None` inside:
    /// decided not to build one).
    index: OnceLock<Option<SubgoalGraph>>,
}

impl std::fmt::Debug for NavGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavGrid")
            .field("width", &self.width())
            .field("height", &self.height())
            .field("areas", &self.inner.areas)
            .field("clearance", &self.inner.clearance)
            .field("regions", &self.inner.region_count)
            .field("obstacles", &self.obstacles.is_some())
            .finish()
    }
}

/// A walkable pixel not yet given its region.
const UNLABELLED: u32 = u32::MAX;

/// Marks the pixels of one mask row whose area is enabled in `table`; returns how
/// many.
fn open_row(areas: &[u8], labels: &mut [u32], table: &[bool; 256]) -> usize {
    let mut count = 0;
    for (label, &a) in labels.iter_mut().zip(areas) {
        if table[a as usize] {
            *label = UNLABELLED;
            count += 1;
        }
    }
    count
}

/// Closes the pixels of one row that are nearer a blocked pixel than `least`
/// (squared); returns how many.
fn close_row(labels: &mut [u32], distances: &[u32], least: f64) -> usize {
    let mut count = 0;
    for (label, &d) in labels.iter_mut().zip(distances) {
        if *label != 0 && (d as f64) < least {
            *label = 0;
            count += 1;
        }
    }
    count
}

/// The region labelling, by 4-connected floods, a bounded piece at a time.
struct Regions {
    count: u32,
    /// The next pixel to look at as the seed of a region.
    next: usize,
    stack: Vec<usize>,
}

impl Regions {
    /// Labels about `budget` pixels (finishing the flood under way, then going on to
    /// new seeds); returns whether every pixel is labelled.
    fn label_some(&mut self, labels: &mut [u32], pw: usize, budget: usize) -> bool {
        let mut work = 0usize;
        loop {
            while let Some(i) = self.stack.pop() {
                for n in [i - 1, i + 1, i - pw, i + pw] {
                    if labels[n] == UNLABELLED {
                        labels[n] = self.count;
                        self.stack.push(n);
                    }
                }
                work += 1;
                if work >= budget {
                    return false;
                }
            }
            while self.next < labels.len() && labels[self.next] != UNLABELLED {
                self.next += 1;
                work += 1;
                if work >= budget {
                    return false;
                }
            }
            if self.next == labels.len() {
                return true;
            }
            self.count += 1;
            labels[self.next] = self.count;
            self.stack.push(self.next);
        }
    }
}

impl NavGrid {
    /// Prepares `mask` for queries that see only the areas in `areas`. Linear in the
    /// number of pixels; the mask itself is shared, not copied.
    pub fn new(mask: WalkMask, areas: AreaSet) -> Self {
        Self::build(mask, areas, 0.0)
    }

    /// Prepares `mask` for walkers of `radius` pixels: a pixel is walkable when it is
    /// in an enabled area and its centre keeps `radius + (√2 − 1)/2` from the centre
    /// of every pixel that is not (the outside of the mask included), so every point
    /// of a path keeps at least `radius − 1/2` from every such centre
    /// ([`crate::clearance`]). A doorway narrower than the walker closes. Linear in
    /// the number of pixels (an exact Euclidean distance transform), with 4 bytes a
    /// pixel of work space while it runs.
    ///
    /// ```
    /// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
    /// // A wall across a room with a 3-pixel door.
    /// let mask = WalkMask::from_fn(20, 20, |x, y| u8::from(y != 10 || (8..11).contains(&x))).unwrap();
    /// let thin = NavGrid::with_clearance(mask.clone(), AreaSet::all(), 1.0).unwrap();
    /// let wide = NavGrid::with_clearance(mask, AreaSet::all(), 2.0).unwrap();
    /// let (above, below) = (Point::new(9.5, 3.5), Point::new(9.5, 16.5));
    /// assert!(thin.connected(above, below));
    /// assert!(!wide.connected(above, below));
    /// ```
    pub fn with_clearance(
        mask: WalkMask,
        areas: AreaSet,
        radius: f32,
    ) -> Result<Self, ClearanceError> {
        Ok(Self::build(mask, areas, check_radius(radius)?))
    }

    /// [`NavGrid::with_clearance`] as a future that stops wherever `pause` asks
    /// ([`crate::pause`]): once a row in each pass, and every few thousand pixels of
    /// the region labelling. The grid is the same.
    pub async fn with_clearance_pausing(
        mask: WalkMask,
        areas: AreaSet,
        radius: f32,
        pause: &mut impl Pause,
    ) -> Result<Self, ClearanceError> {
        let radius = check_radius(radius)?;
        Ok(Self::build_pausing(mask, areas, radius, pause).await)
    }

    fn build(mask: WalkMask, areas: AreaSet, clearance: f32) -> Self {
        run_through(Self::build_pausing(mask, areas, clearance, &mut NeverPause))
    }

    async fn build_pausing(
        mask: WalkMask,
        areas: AreaSet,
        clearance: f32,
        pause: &mut impl Pause,
    ) -> Self {
        let (w, h) = (mask.width() as usize, mask.height() as usize);
        let pw = w + 2;
        let table = areas.lookup_table();
        let mut labels = vec![0u32; pw * (h + 2)];
        let mut walkable_count = 0;
        for (areas, labels) in mask
            .areas()
            .chunks_exact(w)
            .zip(labels[pw..].chunks_exact_mut(pw))
        {
            walkable_count += open_row(areas, &mut labels[1..=w], &table);
            checkpoint(pause).await;
        }
        if clearance > 0.0 {
            let distances = squared_distances_pausing(pw, h + 2, |i| labels[i] == 0, pause).await;
            let least = min_squared_distance(clearance);
            for (labels, distances) in labels.chunks_mut(pw).zip(distances.chunks(pw)) {
                walkable_count -= close_row(labels, distances, least);
                checkpoint(pause).await;
            }
        }
        let mut regions = Regions {
            count: 0,
            next: 0,
            stack: Vec::new(),
        };
        while !regions.label_some(&mut labels, pw, PIXELS_BETWEEN_CHECKPOINTS) {
            checkpoint(pause).await;
        }
        let region_count = regions.count;
        let edges = EdgeIndex::new_pausing(&labels, w, h, region_count, pause).await;
        let open = labels.iter().map(|&l| u8::from(l != 0)).collect();
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Self {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                mask,
                areas,
                clearance,
                labels,
                open,
                region_count,
                walkable_count,
                edges,
                index: OnceLock::new(),
            }),
            obstacles: None,
        }
    }

    /// This grid seen through `obstacles`: their pixels are blocked too. Allocates one
    /// bit a pixel; the mask and the labels are shared. Made for distance fields that
    /// several walkers share ([`crate::DistanceField::new`]); single queries use
    /// [`crate::Pathfinder::find_path_among`], which reuses its bits.
    ///
    /// Region labels stay those of the mask: two pixels of one region may be cut
    /// apart by obstacles, and queries then walk to the nearest reachable point.
    ///
    /// ```
    /// use walkmask::{AreaSet, DistanceField, Footprint, NavGrid, Obstacle, Obstacles, Point, WalkMask};
    /// let grid = NavGrid::new(WalkMask::from_fn(40, 9, |_, _| 1).unwrap(), AreaSet::all());
    /// let mut obstacles = Obstacles::new(&grid);
    /// obstacles.push(Obstacle::new(Point::new(20.0, 4.5), Footprint::Circle { radius: 2.0 })).unwrap();
    /// let seen = grid.with_obstacles(&obstacles);
    /// assert!(grid.is_walkable(20, 4) && !seen.is_walkable(20, 4));
    /// // A field everyone heading to (39, 4) can share, filled round the obstacle.
    /// let field = DistanceField::new(&seen, (39, 4)).unwrap();
    /// assert!(field.distance(20, 4).is_none());
    /// assert!(field.distance(0, 4).unwrap() > DistanceField::new(&grid, (39, 4)).unwrap().distance(0, 4).unwrap());
    /// ```
    pub fn with_obstacles(&self, obstacles: &Obstacles) -> Self {
        let mut bits = ObstacleBits::for_len(self.labels().len());
        bits.stamp(self, obstacles, None, true);
        self.with_bits(Arc::new(bits))
    }

    /// This grid seen through `bits`.
    pub(crate) fn with_bits(&self, bits: SharedBits) -> Self {
        Self {
            inner: self.inner.clone(),
            obstacles: Some(bits),
        }
    }

    /// The grid without obstacles.
    pub fn without_obstacles(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            obstacles: None,
        }
    }

    /// Whether obstacles block pixels on top of the mask.
    pub fn has_obstacles(&self) -> bool {
        self.obstacles.is_some()
    }

    /// The clearance radius in pixels the grid was prepared for (0 by default).
    pub fn clearance(&self) -> f32 {
        self.inner.clearance
    }

    /// Whether padded cell `i` is walkable: a labelled pixel not blocked by an
    /// obstacle.
    #[inline(always)]
    pub(crate) fn open(&self, i: usize) -> bool {
        self.inner.open[i] != 0 && self.obstacles.as_ref().is_none_or(|b| !b.get(i))
    }

    /// Whether padded cell `i` is floor: inside the mask and in an enabled area,
    /// clearance and obstacles aside (see [`crate::los::floor_line_of_sight`]).
    pub(crate) fn floor_cells(&self) -> impl Fn(usize) -> bool + '_ {
        let enabled = self.areas().lookup_table();
        let (pw, w, h) = (
            self.padded_width(),
            self.width() as usize,
            self.height() as usize,
        );
        let areas = self.mask().areas();
        move |i| {
            let (x, y) = (i % pw, i / pw);
            (1..=w).contains(&x)
                && (1..=h).contains(&y)
                && enabled[areas[(y - 1) * w + x - 1] as usize]
        }
    }

    /// Whether pixel `(x, y)` is floor: inside the mask and in an enabled area,
    /// whatever the grid's clearance radius and obstacles.
    pub fn is_floor(&self, x: u32, y: u32) -> bool {
        x < self.width()
            && y < self.height()
            && self
                .mask()
                .area_at(x, y)
                .is_some_and(|area| self.areas().contains(area))
    }

    /// Padded walkability of the mask under the area set and clearance (1 walkable,
    /// 0 blocked or border), obstacles aside.
    #[inline]
    pub(crate) fn open_cells(&self) -> &[u8] {
        &self.inner.open
    }

    /// The obstacle bits, if any.
    #[inline]
    pub(crate) fn obstacle_bits(&self) -> Option<&ObstacleBits> {
        self.obstacles.as_deref()
    }

    /// An id unique to this prepared grid (and its clones) in this process: caches of
    /// results computed on a grid key them by it. A grid seen through obstacles keeps
    /// the id of the grid it was made from.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// Bytes held by the region labels, the walkability bytes and the snapping
    /// index (about 5 bytes a pixel; the subgoal index is counted apart,
    /// [`SubgoalGraph::memory_bytes`]).
    pub fn memory_bytes(&self) -> usize {
        self.inner.labels.capacity() * 4
            + self.inner.open.capacity()
            + self.inner.edges.memory_bytes()
    }

    /// Builds the grid's search index ([`crate::subgoal`]) if `policy` says it pays,
    /// and returns it. Queries on this grid and its clones use it from then on
    /// ([`crate::Pathfinder::find_path`]); until then, and when it is not built, they
    /// use the fill. The first call decides: later calls return what it built (a
    /// call made while another thread builds waits for it). Takes tens of
    /// milliseconds on a 1080p room: call it off the frame, as the plugin does on the
    /// task pool.
    ///
    /// The index is not built for masks with a side over
    /// [`crate::subgoal::MAX_SIDE`] pixels or 2³¹ pixels in all.
    pub fn build_index(&self, policy: IndexPolicy) -> Option<&SubgoalGraph> {
        self.inner
            .index
            .get_or_init(|| run_through(self.index_by(policy, &mut NeverPause)))
            .as_ref()
    }

    /// The index `policy` asks for (`None` when it does not pay, or the mask is too
    /// large for one), built with `pause`.
    async fn index_by(&self, policy: IndexPolicy, pause: &mut impl Pause) -> Option<SubgoalGraph> {
        // Subgoal ids keep their top bit free.
        let pixels = self.width() as u64 * self.height() as u64;
        if self.width() > MAX_SIDE || self.height() > MAX_SIDE || pixels >= 1 << 31 {
            return None;
        }
        let walkable = self.walkable_count();
        let max_edges = match policy {
            IndexPolicy::Always => usize::MAX,
            IndexPolicy::WhenItPays => {
                let subgoals = count_subgoals_pausing(self, pause).await;
                if subgoals.saturating_mul(WALKABLE_PIXELS_PER_SUBGOAL) <= walkable {
                    usize::MAX
                } else {
                    // Crowded with corners: worth it only for a small graph.
                    let size = walkable as f64 * MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL;
                    (size as usize).checked_sub(subgoals)?
                }
            }
        };
        SubgoalGraph::build_within(self, pause, max_edges).await
    }

    /// [`NavGrid::build_index`] as a future that stops wherever `pause` asks
    /// ([`crate::pause`]). The index is built outside the grid's lock: if another
    /// caller finishes first, its index is kept and this one's dropped (the two are
    /// the same). Returns the grid's index either way.
    pub async fn build_index_pausing(
        &self,
        policy: IndexPolicy,
        pause: &mut impl Pause,
    ) -> Option<&SubgoalGraph> {
        if let Some(decided) = self.inner.index.get() {
            return decided.as_ref();
        }
        let built = self.index_by(policy, pause).await;
        self.inner.index.get_or_init(|| built).as_ref()
    }

    /// The search index, if [`NavGrid::build_index`] has built one.
    pub fn subgoal_index(&self) -> Option<&SubgoalGraph> {
        self.inner.index.get().and_then(Option::as_ref)
    }

    /// The edge pixels, for snapping.
    pub(crate) fn edges(&self) -> &EdgeIndex {
        &self.inner.edges
    }

    /// The mask.
    pub fn mask(&self) -> &WalkMask {
        &self.inner.mask
    }

    /// The enabled areas.
    pub fn areas(&self) -> AreaSet {
        self.inner.areas
    }

    /// Width in pixels.
    #[inline]
    pub fn width(&self) -> u32 {
        self.inner.mask.width()
    }

    /// Height in pixels.
    #[inline]
    pub fn height(&self) -> u32 {
        self.inner.mask.height()
    }

    /// Number of connected regions.
    pub fn region_count(&self) -> u32 {
        self.inner.region_count
    }

    /// Number of walkable (enabled) pixels.
    pub fn walkable_count(&self) -> usize {
        self.inner.walkable_count
    }

    /// Width of the padded layout (`width + 2`).
    #[inline]
    pub(crate) fn padded_width(&self) -> usize {
        self.inner.mask.width() as usize + 2
    }

    /// Padded region labels (0 = blocked or border).
    #[inline]
    pub(crate) fn labels(&self) -> &[u32] {
        &self.inner.labels
    }

    /// Calls `visit(n, cost, dx, dy)` for every pixel a walker can step to from the
    /// walkable pixel at padded index `i` ([`expand`]), obstacles included.
    #[inline(always)]
    pub(crate) fn for_each_step(&self, i: usize, visit: impl FnMut(usize, u32, i32, i32)) {
        let (open, pw) = (self.open_cells(), self.padded_width());
        match self.obstacle_bits() {
            Some(bits) => expand::<true>(open, Some(bits), pw, i, visit),
            None => expand::<false>(open, None, pw, i, visit),
        }
    }

    /// Padded index of pixel `(x, y)` (which must be inside the mask).
    #[inline]
    pub(crate) fn index(&self, x: u32, y: u32) -> usize {
        (y as usize + 1) * self.padded_width() + x as usize + 1
    }

    /// Pixel of a padded index.
    #[inline]
    pub(crate) fn pixel_of(&self, index: usize) -> (u32, u32) {
        let pw = self.padded_width();
        ((index % pw - 1) as u32, (index / pw - 1) as u32)
    }

    /// The region of pixel `(x, y)`: `None` when blocked (by the mask or an
    /// obstacle) or outside the mask.
    #[inline]
    pub fn region(&self, x: u32, y: u32) -> Option<u32> {
        let r = self.mask_region(x, y)?;
        let blocked = self
            .obstacle_bits()
            .is_some_and(|b| b.get(self.index(x, y)));
        (!blocked).then_some(r)
    }

    /// The region of pixel `(x, y)` in the mask, whether or not an obstacle blocks
    /// it: `None` when the mask blocks it or it is outside.
    #[inline]
    pub fn mask_region(&self, x: u32, y: u32) -> Option<u32> {
        if x >= self.width() || y >= self.height() {
            return None;
        }
        match self.inner.labels[self.index(x, y)] {
            0 => None,
            r => Some(r),
        }
    }

    /// Whether pixel `(x, y)` is inside the mask, in an enabled area, clear for the
    /// grid's clearance radius and not blocked by an obstacle.
    #[inline]
    pub fn is_walkable(&self, x: u32, y: u32) -> bool {
        // The byte per pixel, a quarter of the labels' memory traffic (a label is
        // non-zero exactly where this byte is).
        x < self.width() && y < self.height() && self.open(self.index(x, y))
    }

    /// Whether the pixel containing `p` is walkable ([`is_walkable`](Self::is_walkable));
    /// false outside the mask or for a point that is not finite.
    #[inline]
    pub fn walkable_at(&self, p: Point) -> bool {
        p.pixel().is_some_and(|(x, y)| self.is_walkable(x, y))
    }

    /// The region of the pixel containing `p`, if any.
    pub fn region_at(&self, p: Point) -> Option<u32> {
        let (x, y) = p.pixel()?;
        self.region(x, y)
    }

    /// Whether a walker at `a` can reach `b` (both walkable and in one region; on a
    /// grid seen through obstacles, obstacles may still cut the region apart).
    pub fn connected(&self, a: Point, b: Point) -> bool {
        matches!((self.region_at(a), self.region_at(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether `p` is finite and inside `[0, width) x [0, height)`.
    pub fn contains(&self, p: Point) -> bool {
        p.is_finite()
            && p.x >= 0.0
            && p.y >= 0.0
            && p.x < self.width() as f32
            && p.y < self.height() as f32
    }
}

/// The one move set of every search: calls `visit(n, cost, dx, dy)` for each pixel a
/// walker can step to from the walkable pixel at padded index `i` of a grid whose
/// padded walkability is `open` (row width `pw`): the walkable cardinal neighbours
/// (cost [`CARDINAL`]) and the diagonal ones whose two side pixels are walkable too
/// ([`DIAGONAL`]), in the order west, east, north, north-west, north-east, south,
/// south-west, south-east. `(dx, dy)` is the step. With `OBSTACLES`, pixels set in
/// `bits` are blocked too; without, `bits` is not read.
///
/// [`CARDINAL`]: crate::steps::CARDINAL
/// [`DIAGONAL`]: crate::steps::DIAGONAL
#[inline(always)]
pub(crate) fn expand<const OBSTACLES: bool>(
    open: &[u8],
    bits: Option<&ObstacleBits>,
    pw: usize,
    i: usize,
    mut visit: impl FnMut(usize, u32, i32, i32),
) {
    use crate::steps::{CARDINAL, DIAGONAL};
    // A walkable pixel lies inside the blocked one-pixel border, so all eight
    // neighbours are in bounds.
    assert!(i > pw && i + pw + 1 < open.len());
    // SAFETY: checked just above: i - pw - 1 >= 0 and i + pw + 1 < len.
    let at = |n: usize| {
        (unsafe { *open.get_unchecked(n) } != 0) && (!OBSTACLES || bits.is_none_or(|b| !b.get(n)))
    };
    let west = at(i - 1);
    let east = at(i + 1);
    let north = at(i - pw);
    let south = at(i + pw);
    if west {
        visit(i - 1, CARDINAL, -1, 0);
    }
    if east {
        visit(i + 1, CARDINAL, 1, 0);
    }
    if north {
        visit(i - pw, CARDINAL, 0, -1);
        if west && at(i - pw - 1) {
            visit(i - pw - 1, DIAGONAL, -1, -1);
        }
        if east && at(i - pw + 1) {
            visit(i - pw + 1, DIAGONAL, 1, -1);
        }
    }
    if south {
        visit(i + pw, CARDINAL, 0, 1);
        if west && at(i + pw - 1) {
            visit(i + pw - 1, DIAGONAL, -1, 1);
        }
        if east && at(i + pw + 1) {
            visit(i + pw + 1, DIAGONAL, 1, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_four_connected_components() {
        // Two pixels touching only at a corner are different regions.
        let mask = WalkMask::new(3, 3, vec![1, 0, 0, 0, 2, 0, 0, 0, 1]).unwrap();
        let grid = NavGrid::new(mask.clone(), AreaSet::all());
        assert_eq!(grid.region_count(), 3);
        assert_ne!(grid.region(0, 0), grid.region(1, 1));
        let only2 = NavGrid::new(mask, AreaSet::only(&[2]));
        assert_eq!(only2.region_count(), 1);
        assert_eq!(only2.region(0, 0), None);
        assert!(only2.is_walkable(1, 1));
        assert_eq!(only2.walkable_count(), 1);
    }

    #[test]
    fn index_round_trip() {
        let grid = NavGrid::new(WalkMask::from_fn(7, 5, |_, _| 1).unwrap(), AreaSet::all());
        for y in 0..5 {
            for x in 0..7 {
                assert_eq!(grid.pixel_of(grid.index(x, y)), (x, y));
            }
        }
        assert_eq!(grid.region_count(), 1);
        assert!(!grid.is_walkable(7, 0));
    }
}
