//! Distance fills over the pixel grid.
//!
//! Distances are 8-neighbour path lengths in integer units: a cardinal step costs
//! [`CARDINAL`] and a diagonal step [`DIAGONAL`] (41 / 29 = 1.4138, within 0.03 % of
//! the square root of two). A diagonal step needs both side pixels walkable. The fill
//! runs on a bucket queue (one bucket per distance value, reused circularly), so it is
//! a single linear pass like a breadth-first flood, but its distances are octile
//! lengths instead of Manhattan ones: the trace then never picks the long way round an
//! obstacle just because the 4-neighbour distances tie.
//!
//! The fill toward a start orders its queue by distance plus an octile estimate of
//! the remaining distance to the start (a consistent heuristic), so it settles the
//! pixels between the two points first and stops as soon as the start is settled;
//! every settled distance is exact.

use crate::NavGrid;
use crate::grid::expand;

use crate::steps::octile;
pub use crate::steps::{CARDINAL, DIAGONAL};
/// Distance of a pixel that the fill has not reached.
pub const UNREACHED: u32 = u32::MAX;

const BUCKETS: usize = 128; // > 2 * DIAGONAL, power of two
const BUCKET_MASK: u32 = BUCKETS as u32 - 1;
/// Bucket entries kept whatever the last fill pushed (64 KiB).
const BUCKET_SLACK: usize = 8192;

/// Reusable buffers for fills: after the first query on a grid size, no
/// `width x height` allocation happens again; only the pixels a query touched are
/// reset after it.
///
/// The bucket queue keeps its capacity from one query to the next, but never more
/// than twice what the last query pushed: each of its 128 buckets would otherwise keep the largest size any past
/// query gave it, and a pathfinder that lives as long as a game would creep up to
/// several times the memory of its largest query.
#[derive(Default)]
pub struct FillScratch {
    pub(crate) dist: Vec<u32>,
    touched: Vec<u32>,
    buckets: Vec<Vec<(u32, u32)>>,
    cardinal_queue: std::collections::VecDeque<(u32, u32)>,
    diagonal_queue: std::collections::VecDeque<(u32, u32)>,
}

impl std::fmt::Debug for FillScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FillScratch")
            .field("capacity", &self.dist.len())
            .finish()
    }
}

/// What a fill did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FillOutcome {
    /// Whether the target pixel was settled.
    pub reached: bool,
    /// Pixels settled.
    pub settled: usize,
}

impl FillScratch {
    /// Empty scratch buffers; they grow on the first fill.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes held by the buffers.
    pub fn memory_bytes(&self) -> usize {
        self.dist.capacity() * 4
            + self.touched.capacity() * 4
            + self.buckets.iter().map(|b| b.capacity() * 8).sum::<usize>()
            + (self.cardinal_queue.capacity() + self.diagonal_queue.capacity()) * 8
    }

    /// Makes `dist` all [`UNREACHED`] for a padded grid of `len` cells.
    fn reset(&mut self, len: usize) {
        if self.dist.len() != len {
            self.dist.clear();
            self.dist.resize(len, UNREACHED);
            self.touched.clear();
        } else {
            for &i in &self.touched {
                self.dist[i as usize] = UNREACHED;
            }
            self.touched.clear();
        }
        if self.buckets.len() != BUCKETS {
            self.buckets = (0..BUCKETS).map(|_| Vec::new()).collect();
        }
        for b in &mut self.buckets {
            b.clear();
        }
    }

    /// Fills distances from pixel `source` (padded index) over its region.
    ///
    /// With `target = Some(t)`, the queue is ordered toward `t` and the fill stops as
    /// soon as `t` is settled. With `None`, it fills the whole region.
    pub(crate) fn fill(
        &mut self,
        grid: &NavGrid,
        source: usize,
        target: Option<usize>,
    ) -> FillOutcome {
        self.fill_within(grid, source, target, usize::MAX)
    }

    /// Like [`FillScratch::fill`], but a fill toward a target gives up (not reached)
    /// once it has settled more than `budget` pixels. A whole-region fill ignores the
    /// budget.
    pub(crate) fn fill_within(
        &mut self,
        grid: &NavGrid,
        source: usize,
        target: Option<usize>,
        budget: usize,
    ) -> FillOutcome {
        self.reset(grid.open_cells().len());
        if !grid.open(source) {
            return FillOutcome::default();
        }
        // Obstacles cost one bit test more per neighbour; a grid without them runs
        // the loop without the test.
        let obstacles = grid.has_obstacles();
        match (target, obstacles) {
            (Some(t), false) => {
                let (outcome, pushed) = self.run::<true, false>(grid, source, t, budget);
                self.bound_buckets(pushed);
                outcome
            }
            (Some(t), true) => {
                let (outcome, pushed) = self.run::<true, true>(grid, source, t, budget);
                self.bound_buckets(pushed);
                outcome
            }
            (None, false) => self.run_full::<false>(grid, source),
            (None, true) => self.run_full::<true>(grid, source),
        }
    }

    /// The pixels the last fill reached (padded index, distance). After a fill of a
    /// whole region every one of them is settled.
    pub(crate) fn reached(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.touched
            .iter()
            .map(|&i| (i as usize, self.dist[i as usize]))
            .filter(|&(_, d)| d != UNREACHED)
    }

    /// The pixel the last fill reached whose centre is nearest to `goal` (ties: the
    /// smaller distance filled, then the lower index), as (squared gap in pixels,
    /// padded index).
    pub(crate) fn nearest_reached(
        &self,
        grid: &NavGrid,
        goal: crate::Point,
    ) -> Option<(f64, usize)> {
        let pw = grid.padded_width();
        let (gx, gy) = (goal.x as f64 + 1.0, goal.y as f64 + 1.0); // padded
        self.reached()
            .map(|(i, d)| {
                let (x, y) = ((i % pw) as f64 + 0.5, (i / pw) as f64 + 0.5);
                ((x - gx).powi(2) + (y - gy).powi(2), d, i)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)))
            .map(|(gap, _, i)| (gap, i))
    }

    /// Releases the buckets when together they hold more than twice the entries the
    /// last fill pushed (plus a little, so that small fills keep theirs).
    fn bound_buckets(&mut self, pushed: usize) {
        let held: usize = self.buckets.iter().map(Vec::capacity).sum();
        if held > 2 * pushed + BUCKET_SLACK {
            for bucket in &mut self.buckets {
                *bucket = Vec::new();
            }
        }
    }

    /// The whole-region fill: exact Dijkstra with one first-in first-out queue per step
    /// cost. Every pixel is settled in order of distance, so the pixels a cardinal step
    /// reaches are queued in order of distance too, and likewise for diagonal steps:
    /// the smaller of the two queue heads is always the next pixel to settle. No bucket
    /// bookkeeping at all.
    fn run_full<const OBSTACLES: bool>(&mut self, grid: &NavGrid, source: usize) -> FillOutcome {
        use std::collections::VecDeque;
        let open = grid.open_cells();
        let bits = grid.obstacle_bits();
        let pw = grid.padded_width();
        let dist = &mut self.dist[..];
        let touched = &mut self.touched;
        assert_eq!(dist.len(), open.len());
        let mut cardinal: VecDeque<(u32, u32)> = std::mem::take(&mut self.cardinal_queue);
        let mut diagonal: VecDeque<(u32, u32)> = std::mem::take(&mut self.diagonal_queue);
        cardinal.clear();
        diagonal.clear();
        dist[source] = 0;
        touched.push(source as u32);
        cardinal.push_back((source as u32, 0));
        let mut settled = 0usize;
        loop {
            let from_cardinal = match (cardinal.front(), diagonal.front()) {
                (Some(c), Some(d)) => c.1 <= d.1,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (index, g) = if from_cardinal {
                cardinal.pop_front()
            } else {
                diagonal.pop_front()
            }
            .expect("front was Some");
            let i = index as usize;
            if g != dist[i] {
                continue;
            }
            settled += 1;
            expand::<OBSTACLES>(open, bits, pw, i, |n, cost, _, _| {
                let nd = g + cost;
                // SAFETY: `expand` gives neighbours of an interior pixel, in bounds.
                let old = unsafe { dist.get_unchecked_mut(n) };
                if nd < *old {
                    if *old == UNREACHED {
                        touched.push(n as u32);
                    }
                    *old = nd;
                    if cost == CARDINAL {
                        cardinal.push_back((n as u32, nd));
                    } else {
                        diagonal.push_back((n as u32, nd));
                    }
                }
            });
        }
        self.cardinal_queue = cardinal;
        self.diagonal_queue = diagonal;
        FillOutcome {
            reached: false,
            settled,
        }
    }

    /// The bucket-queue loop. `TOWARD` orders by distance plus the octile estimate to
    /// `target` and stops when it is settled, or unreached once more than `budget`
    /// pixels are settled. Also returns how many entries it pushed.
    fn run<const TOWARD: bool, const OBSTACLES: bool>(
        &mut self,
        grid: &NavGrid,
        source: usize,
        target: usize,
        budget: usize,
    ) -> (FillOutcome, usize) {
        let open = grid.open_cells();
        let bits = grid.obstacle_bits();
        let pw = grid.padded_width();
        let (tx, ty) = if TOWARD {
            ((target % pw) as u32, (target / pw) as u32)
        } else {
            (0, 0)
        };
        // Octile estimate from padded coordinates (x, y) to the target.
        let heuristic = |x: u32, y: u32| -> u32 {
            if TOWARD {
                octile(x.abs_diff(tx), y.abs_diff(ty))
            } else {
                0
            }
        };
        let dist = &mut self.dist[..];
        let touched = &mut self.touched;
        let buckets = &mut self.buckets[..];
        assert_eq!(dist.len(), open.len());
        assert_eq!(buckets.len(), BUCKETS);

        dist[source] = 0;
        touched.push(source as u32);
        let mut key = heuristic((source % pw) as u32, (source / pw) as u32);
        buckets[(key & BUCKET_MASK) as usize].push((source as u32, 0));
        // Bit b set <=> bucket b is not empty: empty keys are skipped in one step.
        let mut occupied: u128 = 1u128 << (key & BUCKET_MASK);
        let mut settled = 0usize;
        let mut pushed = 1usize;
        let mut reached = false;

        'outer: while occupied != 0 {
            key += occupied.rotate_right(key & BUCKET_MASK).trailing_zeros();
            let slot = (key & BUCKET_MASK) as usize;
            // Last in, first out within a bucket: among equal keys the fill dives
            // toward the most recent pixel, which heads straight for the target.
            while let Some((index, g)) = buckets[slot].pop() {
                let i = index as usize;
                if g != dist[i] {
                    continue; // superseded by a shorter distance
                }
                settled += 1;
                if TOWARD && i == target {
                    reached = true;
                    break 'outer;
                }
                if settled > budget {
                    break 'outer;
                }
                // Coordinates only matter for the estimate: one division per pixel.
                let (x, y) = if TOWARD {
                    ((i % pw) as u32, (i / pw) as u32)
                } else {
                    (0, 0)
                };
                expand::<OBSTACLES>(open, bits, pw, i, |n, cost, dx, dy| {
                    let nd = g + cost;
                    // SAFETY: `expand` gives neighbours of an interior pixel, in bounds.
                    let old = unsafe { dist.get_unchecked_mut(n) };
                    if nd < *old {
                        if *old == UNREACHED {
                            touched.push(n as u32);
                        }
                        *old = nd;
                        let f =
                            nd + heuristic(x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
                        let b = (f & BUCKET_MASK) as usize;
                        // SAFETY: b < BUCKETS == buckets.len().
                        unsafe { buckets.get_unchecked_mut(b) }.push((n as u32, nd));
                        occupied |= 1u128 << b;
                        pushed += 1;
                    }
                });
            }
            occupied &= !(1u128 << slot);
        }
        (FillOutcome { reached, settled }, pushed)
    }
}

/// A full distance field from one source pixel over its whole region: a reusable
/// answer to "how does anyone in this region walk to the source", and, traced from
/// the other end, "how does a walker standing at the source walk anywhere".
///
/// Holds 4 bytes per pixel (padded by a one-pixel border).
#[derive(Clone)]
pub struct DistanceField {
    pub(crate) grid: NavGrid,
    pub(crate) source: (u32, u32),
    pub(crate) dist: Vec<u32>,
    pub(crate) settled: usize,
}

impl std::fmt::Debug for DistanceField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistanceField")
            .field("source", &self.source)
            .field("settled", &self.settled)
            .finish()
    }
}

impl DistanceField {
    /// Fills the whole region of pixel `source` on `grid`. `None` when the pixel is
    /// outside the mask or blocked.
    /// The distances are filled in place and kept: nothing is copied.
    pub fn new(grid: &NavGrid, source: (u32, u32)) -> Option<Self> {
        grid.region(source.0, source.1)?;
        let mut scratch = FillScratch::new();
        let outcome = scratch.fill(grid, grid.index(source.0, source.1), None);
        Some(Self {
            grid: grid.clone(),
            source,
            dist: std::mem::take(&mut scratch.dist),
            settled: outcome.settled,
        })
    }

    /// Like [`DistanceField::new`], reusing `scratch`'s queues. The field takes the
    /// distances `scratch` filled (nothing is copied); `scratch` makes a new
    /// distance buffer at its next fill.
    pub fn with_scratch(
        grid: &NavGrid,
        source: (u32, u32),
        scratch: &mut FillScratch,
    ) -> Option<Self> {
        grid.region(source.0, source.1)?;
        let outcome = scratch.fill(grid, grid.index(source.0, source.1), None);
        let dist = std::mem::take(&mut scratch.dist);
        Some(Self {
            grid: grid.clone(),
            source,
            dist,
            settled: outcome.settled,
        })
    }

    /// The source pixel.
    pub fn source(&self) -> (u32, u32) {
        self.source
    }

    /// The grid the field was filled on.
    pub fn grid(&self) -> &NavGrid {
        &self.grid
    }

    /// Pixels the fill settled (the size of the source's region).
    pub fn settled(&self) -> usize {
        self.settled
    }

    /// Distance from pixel `(x, y)` to the source in [`CARDINAL`] units, `None` when
    /// the pixel is unreachable or outside the mask.
    pub fn distance(&self, x: u32, y: u32) -> Option<u32> {
        if x >= self.grid.width() || y >= self.grid.height() {
            return None;
        }
        match self.dist[self.grid.index(x, y)] {
            UNREACHED => None,
            d => Some(d),
        }
    }

    /// Bytes held by the distances.
    pub fn memory_bytes(&self) -> usize {
        self.dist.capacity() * 4
    }
}
