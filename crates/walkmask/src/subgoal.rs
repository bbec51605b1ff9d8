//! An exact search index over a prepared grid: a simple subgoal graph (Uras, Harabor
//! and Koenig, "Subgoal Graphs for Optimal Pathfinding in Eight-Neighbor Grids",
//! ICAPS 2013).
//!
//! Every shortest grid path can be made to turn only next to convex obstacle corners.
//! The walkable pixels diagonal to such a corner are the **subgoals**; two subgoals
//! are joined when one reaches the other by a straight octile walk (diagonal steps,
//! then cardinal steps) that meets no other subgoal on the way. A query joins its two
//! ends to the subgoals they reach the same way and runs A* over this graph, which is
//! usually thousands of times smaller than the grid; the corner path (straight runs
//! between turns) goes to the usual finishing steps.
//!
//! Distances are exactly those of the fill ([`crate::fill`]): the same 29:41 step
//! costs and the same rule that a diagonal step needs both pixels beside it open. The
//! index sees the mask and the area set only, not [`crate::Obstacles`]; a query among
//! obstacles uses the index path when it crosses none of them (it is then still the
//! shortest), and otherwise the fill, or with [`crate::ObstacleDetours::Local`] the
//! index path walked round each obstacle on it nearby.
//!
//! Memory: one bit a pixel marks the subgoals, with a running count every 64 pixels;
//! each row and each column keeps the sorted positions of its subgoals and of the
//! blocked pixels that end a walkable run (2 bytes each), so a scan along a row jumps
//! to its next stop by binary search; the graph keeps 4 bytes a subgoal for its cell
//! and 4 bytes an edge end.
//!
//! ```
//! use walkmask::{AreaSet, NavGrid, WalkMask};
//! use walkmask::subgoal::{IndexPolicy, SubgoalGraph};
//! // A wall with a gap: the path turns at the wall's end.
//! let mask = WalkMask::from_fn(30, 20, |x, y| u8::from(x != 15 || y > 16)).unwrap();
//! let grid = NavGrid::new(mask, AreaSet::all());
//! let index = SubgoalGraph::build(&grid);
//! assert!(index.subgoal_count() >= 2);
//! let mut scratch = walkmask::subgoal::IndexScratch::default();
//! let mut corners = Vec::new();
//! let cost = index.shortest_path(&grid, &mut scratch, (2, 2), (28, 2), &mut corners).unwrap();
//! assert_eq!(corners.first(), Some(&(2, 2)));
//! assert_eq!(corners.last(), Some(&(28, 2)));
//! assert!(corners.len() > 2); // round the wall's end
//! assert!(cost > 26 * 29);
//! assert!(grid.build_index(IndexPolicy::Always).is_some());
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::NavGrid;
use crate::pause::{NeverPause, Pause, checkpoint, run_through};
use crate::steps::octile;

/// When [`NavGrid::build_index`] builds a [`SubgoalGraph`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexPolicy {
    /// Build it when it pays, weighing the index's size against the fill's work on
    /// each mask: always when there is at most one subgoal for every
    /// [`WALKABLE_PIXELS_PER_SUBGOAL`] walkable pixels; on masks more crowded with
    /// corners, only when the graph (subgoals and edges) has at most
    /// [`MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL`] entries per walkable pixel (the build
    /// gives up as soon as it has more). Narrow corridors (a maze of 1-pixel
    /// passages) pass: each subgoal sees a few others, and a query over the graph
    /// settles far fewer nodes than a fill settles pixels. Noise and dense random
    /// obstacles do not: their graphs outgrow the walkable pixels, and the fill
    /// answers faster.
    #[default]
    WhenItPays,
    /// Build it whatever the mask.
    Always,
}

/// The first measured rule of [`IndexPolicy::WhenItPays`]: an index is built
/// whenever the mask has at least this many walkable pixels per subgoal.
pub const WALKABLE_PIXELS_PER_SUBGOAL: usize = 8;

/// The second measured rule of [`IndexPolicy::WhenItPays`]: on a mask with fewer
/// than [`WALKABLE_PIXELS_PER_SUBGOAL`] walkable pixels per subgoal, the index is
/// kept only when its graph's size, subgoals and edges together, is at most this
/// many per walkable pixel: a query over the graph then does clearly less work than
/// a fill over the pixels. Measured on the Moving AI maps crowded with corners: a
/// maze of 1-pixel corridors (0.55: its graph is a tree) answers in half the
/// fill's time with the index; random obstacles (1.14 to 1.52) answer 1.5 to 1.9
/// times slower with it.
pub const MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL: f64 = 0.75;

/// Largest side, in pixels, a mask may have for the index (stops are stored in 16
/// bits).
pub const MAX_SIDE: u32 = u16::MAX as u32 - 2;

/// Sorted stop positions for each line (row or column), in padded coordinates.
#[derive(Default)]
struct Stops {
    /// `offsets[k]..offsets[k + 1]` are line `k`'s stops.
    offsets: Vec<u32>,
    at: Vec<u16>,
}

impl Stops {
    fn line(&self, k: usize) -> &[u16] {
        &self.at[self.offsets[k] as usize..self.offsets[k + 1] as usize]
    }

    fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 4 + self.at.capacity() * 2
    }
}

/// A subgoal graph for one [`NavGrid`] (its mask, areas and clearance). See the
/// [module docs](self).
pub struct SubgoalGraph {
    grid_id: u64,
    /// Padded width.
    pw: usize,
    /// Subgoal bit per padded cell.
    bits: Vec<u64>,
    /// Subgoals before each 64-bit word of `bits`.
    rank: Vec<u32>,
    /// Padded cell of each subgoal.
    cells: Vec<u32>,
    /// Padded (x, y) of each subgoal, for costs without divisions.
    coords: Vec<(u16, u16)>,
    /// `offsets[s]..offsets[s + 1]` index `neighbours` for subgoal `s`.
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
    /// Per row (padded y), the padded x of its stops.
    rows: Stops,
    /// Per column (padded x), the padded y of its stops.
    columns: Stops,
}

impl std::fmt::Debug for SubgoalGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubgoalGraph")
            .field("subgoals", &self.subgoal_count())
            .field("edges", &self.edge_count())
            .field("memory_bytes", &self.memory_bytes())
            .finish()
    }
}

/// Set on a neighbour id (and a parent link) when the straight walk to it from the
/// node holding it, diagonal steps first, is open; else the walk from the other end
/// is.
const FROM_HERE: u32 = 1 << 31;

/// The 4 diagonal directions as (dx, dy).
const DIAGONALS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// A cardinal direction.
#[derive(Clone, Copy)]
enum Cardinal {
    East,
    West,
    South,
    North,
}

impl Cardinal {
    fn horizontal(dx: i8) -> Self {
        if dx > 0 {
            Cardinal::East
        } else {
            Cardinal::West
        }
    }

    fn vertical(dy: i8) -> Self {
        if dy > 0 {
            Cardinal::South
        } else {
            Cardinal::North
        }
    }
}

/// What a walk along a row or column from a cell meets.
struct Ray {
    /// Open cells that are not subgoals, walked over before the stop.
    free: u32,
    /// The subgoal the walk stops at, if it stops at one.
    subgoal: Option<usize>,
}

/// The padded cells a walkable cell is a subgoal for: a walkable cell with a blocked
/// diagonal neighbour whose two shared neighbours are open.
fn is_corner_cell(cells: &[u8], pw: usize, i: usize) -> bool {
    let open = |n: usize| cells[n] != 0;
    let (w, e, n, s) = (open(i - 1), open(i + 1), open(i - pw), open(i + pw));
    (n && w && !open(i - pw - 1))
        || (n && e && !open(i - pw + 1))
        || (s && w && !open(i + pw - 1))
        || (s && e && !open(i + pw + 1))
}

/// Every pixel of a path given by its corners ([`SubgoalGraph::shortest_path`]):
/// the straight runs between consecutive corners filled in, each pixel once.
///
/// ```
/// use walkmask::subgoal::corner_path_pixels;
/// let pixels = corner_path_pixels(&[(0, 0), (2, 2), (4, 2)]);
/// assert_eq!(pixels, vec![(0, 0), (1, 1), (2, 2), (3, 2), (4, 2)]);
/// ```
pub fn corner_path_pixels(corners: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut pixels = Vec::new();
    for_each_corner_path_pixel(corners, |p| pixels.push(p));
    pixels
}

/// Calls `visit` with every pixel of a corner path, in order.
pub(crate) fn for_each_corner_path_pixel(
    corners: &[(u32, u32)],
    mut visit: impl FnMut((u32, u32)),
) {
    let Some(&first) = corners.first() else {
        return;
    };
    visit(first);
    for pair in corners.windows(2) {
        let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
        let (dx, dy) = (bx as i64 - ax as i64, by as i64 - ay as i64);
        let steps = dx.abs().max(dy.abs());
        for k in 1..=steps {
            visit((
                (ax as i64 + dx.signum() * k) as u32,
                (ay as i64 + dy.signum() * k) as u32,
            ));
        }
    }
}

/// Octile cost between two cells given by coordinates.
#[inline]
fn octile_between(a: (u16, u16), b: (u16, u16)) -> u32 {
    octile(a.0.abs_diff(b.0) as u32, a.1.abs_diff(b.1) as u32)
}

/// Counts the subgoals of `grid` without building anything (one pass over its
/// walkability).
pub fn count_subgoals(grid: &NavGrid) -> usize {
    run_through(count_subgoals_pausing(grid, &mut NeverPause))
}

/// [`count_subgoals`], stopping once a row wherever `pause` asks.
pub(crate) async fn count_subgoals_pausing(grid: &NavGrid, pause: &mut impl Pause) -> usize {
    let open = grid.open_cells();
    let pw = grid.padded_width();
    let mut count = 0;
    for row in 1..open.len() / pw - 1 {
        count += (row * pw..(row + 1) * pw)
            .filter(|&i| open[i] != 0 && is_corner_cell(open, pw, i))
            .count();
        checkpoint(pause).await;
    }
    count
}

/// Subgoals scanned between two looks at a build's [`Pause`].
const SUBGOALS_BETWEEN_CHECKPOINTS: usize = 32;

/// A node's search state; `cost` and `parent` are valid where `stamp` is the
/// query's generation, and the node is expanded where `closed` is.
#[derive(Clone, Copy, Default)]
struct NodeState {
    stamp: u32,
    closed: u32,
    cost: u32,
    parent: u32,
}

/// Reusable buffers for [`SubgoalGraph::shortest_path`].
#[derive(Default)]
pub struct IndexScratch {
    /// Per node (subgoals, then start, then goal), in one cache line's reach.
    nodes_state: Vec<NodeState>,
    generation: u32,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    start_links: Vec<u32>,
    /// Cost from a subgoal to the goal, for the subgoals the goal reaches; valid where
    /// `goal_stamp == generation`.
    goal_cost: Vec<u32>,
    goal_stamp: Vec<u32>,
    nodes: Vec<u32>,
    /// Subgoals the last query expanded.
    expanded: usize,
}

impl std::fmt::Debug for IndexScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexScratch")
            .field("nodes", &self.nodes_state.len())
            .finish()
    }
}

impl IndexScratch {
    /// Subgoals the last query expanded.
    pub fn expanded(&self) -> usize {
        self.expanded
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.nodes_state.capacity() * 4
            + self.goal_cost.capacity()
            + self.goal_stamp.capacity()
            + self.start_links.capacity()
            + self.nodes.capacity())
            * 4
            + self.heap.capacity() * 8
    }

    fn begin(&mut self, nodes: usize) {
        if self.nodes_state.len() < nodes {
            self.nodes_state.resize(nodes, NodeState::default());
            self.goal_cost.resize(nodes, 0);
            self.goal_stamp.resize(nodes, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.nodes_state.fill(NodeState::default());
            self.goal_stamp.fill(0);
            self.generation = 1;
        }
        self.heap.clear();
        self.start_links.clear();
        self.expanded = 0;
    }
}

impl SubgoalGraph {
    /// Builds the graph for `grid` (obstacles on the grid are ignored: the index is of
    /// the mask under its area set and clearance). Linear in the pixels for the
    /// subgoals and the stops, then one scan from each subgoal.
    ///
    /// # Panics
    /// When a side of the mask is larger than [`MAX_SIDE`]; [`NavGrid::build_index`]
    /// checks it first.
    pub fn build(grid: &NavGrid) -> Self {
        run_through(Self::build_pausing(grid, &mut NeverPause))
    }

    /// [`SubgoalGraph::build`], stopping wherever `pause` asks ([`crate::pause`]):
    /// once a row or column of the mask, and once every few dozen subgoals scanned.
    /// The graph is the same.
    ///
    /// # Panics
    /// As [`SubgoalGraph::build`].
    pub async fn build_pausing(grid: &NavGrid, pause: &mut impl Pause) -> Self {
        Self::build_within(grid, pause, usize::MAX)
            .await
            .expect("no limit on edges")
    }

    /// [`SubgoalGraph::build_pausing`], giving up (`None`) as soon as the graph is
    /// known to have more than `max_edges` edges.
    pub(crate) async fn build_within(
        grid: &NavGrid,
        pause: &mut impl Pause,
        max_edges: usize,
    ) -> Option<Self> {
        assert!(grid.width() <= MAX_SIDE && grid.height() <= MAX_SIDE);
        let open = grid.open_cells();
        let pw = grid.padded_width();
        let ph = open.len() / pw;
        let mut bits = vec![0u64; open.len().div_ceil(64)];
        let mut cells = Vec::new();
        for row in 1..ph - 1 {
            for i in row * pw..(row + 1) * pw {
                if open[i] != 0 && is_corner_cell(open, pw, i) {
                    bits[i / 64] |= 1 << (i % 64);
                    cells.push(i as u32);
                }
            }
            checkpoint(pause).await;
        }
        let mut rank = Vec::with_capacity(bits.len());
        let mut before = 0u32;
        for word in &bits {
            rank.push(before);
            before += word.count_ones();
        }
        let is_stop = |i: usize, step: usize| {
            if open[i] != 0 {
                bits[i / 64] >> (i % 64) & 1 == 1
            } else {
                (i >= step && open[i - step] != 0) || open.get(i + step).is_some_and(|&o| o != 0)
            }
        };
        let mut rows = Stops::default();
        rows.offsets.push(0);
        for y in 0..ph {
            for x in 1..pw - 1 {
                if is_stop(y * pw + x, 1) {
                    rows.at.push(x as u16);
                }
            }
            rows.offsets.push(rows.at.len() as u32);
            checkpoint(pause).await;
        }
        let mut columns = Stops::default();
        columns.offsets.push(0);
        for x in 0..pw {
            for y in 1..ph - 1 {
                if is_stop(y * pw + x, pw) {
                    columns.at.push(y as u16);
                }
            }
            columns.offsets.push(columns.at.len() as u32);
            checkpoint(pause).await;
        }
        let mut graph = SubgoalGraph {
            grid_id: grid.id(),
            pw,
            bits,
            rank,
            coords: cells
                .iter()
                .map(|&c| ((c as usize % pw) as u16, (c as usize / pw) as u16))
                .collect(),
            cells,
            offsets: Vec::new(),
            neighbours: Vec::new(),
            rows,
            columns,
        };
        // (owner << 33 | neighbour << 1 | flag): flag 0 when the walk from the owner,
        // diagonal steps first, is the one the scan found open; sorted, that entry
        // comes first and is the one kept.
        let mut pairs: Vec<u64> = Vec::new();
        let subgoals = graph.cells.len();
        for first in (0..subgoals).step_by(SUBGOALS_BETWEEN_CHECKPOINTS) {
            graph.scan_subgoals(
                open,
                first..(first + SUBGOALS_BETWEEN_CHECKPOINTS).min(subgoals),
                &mut pairs,
            );
            // Each edge is seen from at most both ends, each sighting pushing two
            // entries: more than four per allowed edge means too many edges.
            if pairs.len() / 4 > max_edges {
                return None;
            }
            checkpoint(pause).await;
        }
        pairs.sort_unstable();
        pairs.dedup_by_key(|p| *p >> 1);
        if pairs.len() / 2 > max_edges {
            return None;
        }
        let mut offsets = Vec::with_capacity(graph.cells.len() + 1);
        let mut neighbours = Vec::with_capacity(pairs.len());
        offsets.push(0);
        let mut at = 0;
        for s in 0..graph.cells.len() as u64 {
            while at < pairs.len() && pairs[at] >> 33 == s {
                let t = (pairs[at] >> 1) as u32 & !FROM_HERE;
                let from_here = if pairs[at] & 1 == 0 { FROM_HERE } else { 0 };
                neighbours.push(t | from_here);
                at += 1;
            }
            offsets.push(neighbours.len() as u32);
        }
        graph.offsets = offsets;
        graph.neighbours = neighbours;
        Some(graph)
    }

    /// Scans from each subgoal of `ids` and appends both directions of every pair it
    /// sees, `(owner << 33 | neighbour << 1 | flag)`, to `pairs`.
    fn scan_subgoals(&self, open: &[u8], ids: std::ops::Range<usize>, pairs: &mut Vec<u64>) {
        for s in ids {
            self.scan(open, self.cells[s] as usize, None, &mut |t| {
                let t = self.id_of(t) as u64;
                pairs.push((s as u64) << 33 | t << 1);
                pairs.push(t << 33 | (s as u64) << 1 | 1);
            });
        }
    }

    /// Number of subgoals.
    pub fn subgoal_count(&self) -> usize {
        self.cells.len()
    }

    /// Number of edges (each counted once).
    pub fn edge_count(&self) -> usize {
        self.neighbours.len() / 2
    }

    /// Bytes held by the index.
    pub fn memory_bytes(&self) -> usize {
        (self.bits.capacity() * 8)
            + (self.rank.capacity()
                + self.cells.capacity()
                + self.coords.capacity()
                + self.offsets.capacity())
                * 4
            + self.neighbours.capacity() * 4
            + self.rows.memory_bytes()
            + self.columns.memory_bytes()
    }

    /// The id of the grid the index was built for.
    pub fn grid_id(&self) -> u64 {
        self.grid_id
    }

    #[inline]
    fn is_subgoal(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    fn id_of(&self, i: usize) -> u32 {
        let below = self.bits[i / 64] & ((1u64 << (i % 64)) - 1);
        self.rank[i / 64] + below.count_ones()
    }

    /// Walks from open cell `i` in direction `dir` up to the first blocked cell or
    /// subgoal.
    fn ray(&self, open: &[u8], i: usize, dir: Cardinal) -> Ray {
        let pw = self.pw;
        let (x, y) = (i % pw, i / pw);
        let (line, at, forward, step) = match dir {
            Cardinal::East => (self.rows.line(y), x, true, 1isize),
            Cardinal::West => (self.rows.line(y), x, false, -1),
            Cardinal::South => (self.columns.line(x), y, true, pw as isize),
            Cardinal::North => (self.columns.line(x), y, false, -(pw as isize)),
        };
        let at = at as u16;
        let stop = if forward {
            let k = line.partition_point(|&p| p <= at);
            line.get(k).map(|&p| (p - at) as usize)
        } else {
            let k = line.partition_point(|&p| p < at);
            k.checked_sub(1).map(|k| (at - line[k]) as usize)
        };
        // Without a stop the walk runs into the blocked border.
        let distance = stop.unwrap_or_else(|| match dir {
            Cardinal::East => pw - 1 - x,
            Cardinal::West => x,
            Cardinal::South => open.len() / pw - 1 - y,
            Cardinal::North => y,
        });
        let end = (i as isize + step * distance as isize) as usize;
        Ray {
            free: distance as u32 - 1,
            subgoal: (open[end] != 0).then_some(end),
        }
    }

    /// Calls `found` with every subgoal directly reachable from open cell `s` by
    /// diagonal steps then cardinal steps (the paper's direct-h-reachable set), and
    /// returns whether `target` is reached that way too.
    fn scan(
        &self,
        cells: &[u8],
        s: usize,
        target: Option<usize>,
        found: &mut impl FnMut(usize),
    ) -> bool {
        let pw = self.pw as isize;
        let target = target.filter(|&t| t != s);
        let mut reached = false;
        // Whether `target` lies `1..=reach` cells from `from` along `dir`.
        let on_ray = |from: usize, dir: Cardinal, reach: i64| -> bool {
            let Some(t) = target else { return false };
            if reach < 1 {
                return false;
            }
            let (fx, fy) = ((from as isize % pw) as i64, (from as isize / pw) as i64);
            let (tx, ty) = ((t as isize % pw) as i64, (t as isize / pw) as i64);
            let d = match dir {
                Cardinal::East if ty == fy => tx - fx,
                Cardinal::West if ty == fy => fx - tx,
                Cardinal::South if tx == fx => ty - fy,
                Cardinal::North if tx == fx => fy - ty,
                _ => return false,
            };
            (1..=reach).contains(&d)
        };
        let mut reach = [0i64; 4];
        for (k, dir) in [
            Cardinal::East,
            Cardinal::West,
            Cardinal::South,
            Cardinal::North,
        ]
        .into_iter()
        .enumerate()
        {
            let ray = self.ray(cells, s, dir);
            reach[k] = ray.free as i64;
            if let Some(g) = ray.subgoal {
                found(g);
                reached |= Some(g) == target;
            }
            reached |= on_ray(s, dir, ray.free as i64);
        }
        for (dx, dy) in DIAGONALS {
            let (c1, c2) = (Cardinal::horizontal(dx), Cardinal::vertical(dy));
            let mut max1 = reach[if dx > 0 { 0 } else { 1 }];
            let mut max2 = reach[if dy > 0 { 2 } else { 3 }];
            let (sx, sy) = (dx as isize, dy as isize * pw);
            let mut p = s as isize;
            loop {
                let open = |n: isize| cells[n as usize] != 0;
                if !(open(p + sx) && open(p + sy) && open(p + sx + sy)) {
                    break;
                }
                p += sx + sy;
                let pu = p as usize;
                if self.is_subgoal(pu) {
                    found(pu);
                    reached |= Some(pu) == target;
                    break;
                }
                reached |= Some(pu) == target;
                for (dir, max) in [(c1, &mut max1), (c2, &mut max2)] {
                    if *max < 0 {
                        continue;
                    }
                    let ray = self.ray(cells, pu, dir);
                    let j = ray.free as i64;
                    reached |= on_ray(pu, dir, j.min(*max));
                    if let Some(g) = ray.subgoal
                        && j <= *max
                    {
                        found(g);
                        reached |= Some(g) == target;
                    }
                    *max = (*max).min(j);
                }
            }
        }
        reached
    }

    /// The shortest path from pixel `start` to pixel `goal` (both walkable, in one
    /// region of the grid the index was built for, which `grid` must be). Its
    /// corners go in `corners` (cleared first): `start`, each pixel where the path
    /// turns, then `goal`; between two consecutive corners it runs straight, along
    /// a row, a column or a diagonal ([`corner_path_pixels`] lists every pixel). Its
    /// cost in [`crate::fill::CARDINAL`] units is returned; `None` when no path
    /// exists.
    pub fn shortest_path(
        &self,
        grid: &NavGrid,
        scratch: &mut IndexScratch,
        start: (u32, u32),
        goal: (u32, u32),
        corners: &mut Vec<(u32, u32)>,
    ) -> Option<u32> {
        debug_assert_eq!(grid.id(), self.grid_id);
        corners.clear();
        let (labels, open) = (grid.labels(), grid.open_cells());
        let (s, g) = (grid.index(start.0, start.1), grid.index(goal.0, goal.1));
        if labels[s] == 0 || labels[g] == 0 || labels[s] != labels[g] {
            return None;
        }
        if s == g {
            corners.push(start);
            return Some(0);
        }
        let n = self.cells.len();
        let (start_node, goal_node) = (n as u32, n as u32 + 1);
        scratch.begin(n + 2);
        let generation = scratch.generation;
        // The goal's links first: a subgoal reached from the goal gets its cost to it.
        let direct_from_goal;
        {
            let IndexScratch {
                goal_cost,
                goal_stamp,
                ..
            } = scratch;
            let mut link = |t: usize| {
                let id = self.id_of(t) as usize;
                goal_cost[id] = self.cost(t, g);
                goal_stamp[id] = generation;
            };
            if self.is_subgoal(g) {
                link(g);
            }
            direct_from_goal = self.scan(open, g, Some(s), &mut link);
        }
        let direct_from_start;
        {
            let links = &mut scratch.start_links;
            if self.is_subgoal(s) {
                links.push(self.id_of(s) | FROM_HERE);
            }
            direct_from_start = self.scan(open, s, Some(g), &mut |t| {
                links.push(self.id_of(t) | FROM_HERE)
            });
        }
        if direct_from_start || direct_from_goal {
            corners.push(start);
            self.push_run(s, g, direct_from_start, corners);
            return Some(self.cost(s, g));
        }
        let cell_of = |node: u32| -> usize {
            if node == start_node {
                s
            } else if node == goal_node {
                g
            } else {
                self.cells[node as usize] as usize
            }
        };
        let (gx, gy) = ((g % self.pw) as u16, (g / self.pw) as u16);
        let (sx, sy) = ((s % self.pw) as u16, (s / self.pw) as u16);
        let xy_of = |node: u32| -> (u16, u16) {
            if node == start_node {
                (sx, sy)
            } else if node == goal_node {
                (gx, gy)
            } else {
                self.coords[node as usize]
            }
        };
        let heuristic = |node: u32| octile_between(xy_of(node), (gx, gy));
        let IndexScratch {
            nodes_state: state,
            heap,
            start_links,
            goal_cost,
            goal_stamp,
            nodes,
            expanded,
            ..
        } = scratch;
        macro_rules! relax {
            ($from:expr, $to:expr, $c:expr) => {{
                let (to, c): (u32, u32) = ($to, $c);
                let node = &mut state[to as usize];
                if node.stamp != generation || c < node.cost {
                    node.stamp = generation;
                    node.cost = c;
                    node.parent = $from;
                    heap.push(Reverse((c + heuristic(to), to)));
                }
            }};
        }
        relax!(start_node, start_node, 0);
        let mut found = false;
        while let Some(Reverse((_, u))) = heap.pop() {
            let k = u as usize;
            if state[k].closed == generation {
                continue;
            }
            state[k].closed = generation;
            if u == goal_node {
                found = true;
                break;
            }
            *expanded += 1;
            let base = state[k].cost;
            let here = xy_of(u);
            let neighbours: &[u32] = if u == start_node {
                start_links
            } else {
                &self.neighbours[self.offsets[k] as usize..self.offsets[k + 1] as usize]
            };
            for &link in neighbours {
                let v = link & !FROM_HERE;
                let c = base + octile_between(here, self.coords[v as usize]);
                relax!(u | (link & FROM_HERE), v, c);
            }
            if u != start_node && goal_stamp[k] == generation {
                // The walk to the goal was found from the goal's end.
                relax!(u, goal_node, base + goal_cost[k]);
            }
        }
        if !found {
            return None;
        }
        // Parent links carry FROM_HERE: the walk from the parent is the open one.
        nodes.clear();
        let mut at = goal_node;
        while at != start_node {
            nodes.push(at);
            at = state[at as usize].parent;
            nodes.push(at);
            at &= !FROM_HERE;
        }
        corners.push(start);
        for pair in nodes.rchunks_exact(2) {
            let (link, to) = (pair[1], pair[0]);
            let (a, b) = (cell_of(link & !FROM_HERE), cell_of(to));
            if a != b {
                self.push_run(a, b, link & FROM_HERE != 0, corners);
            }
        }
        Some(state[goal_node as usize].cost)
    }

    /// Octile cost between two padded cells (two divisions each: for the ends of a
    /// query, not the search's inner loop).
    #[inline]
    fn cost(&self, a: usize, b: usize) -> u32 {
        let pw = self.pw;
        let (ax, ay, bx, by) = (a % pw, a / pw, b % pw, b / pw);
        octile(ax.abs_diff(bx) as u32, ay.abs_diff(by) as u32)
    }

    /// Appends the corners after `a` of the straight octile walk from `a` to `b`
    /// (padded cells): the bend, if it has one, then `b`. The walk takes its
    /// diagonal steps first from `a` when `from_a`, else first from `b` (the side
    /// the scan that joined them found open).
    fn push_run(&self, a: usize, b: usize, from_a: bool, corners: &mut Vec<(u32, u32)>) {
        let pw = self.pw as i64;
        let (ax, ay, bx, by) = (a as i64 % pw, a as i64 / pw, b as i64 % pw, b as i64 / pw);
        let (sx, sy) = ((bx - ax).signum(), (by - ay).signum());
        let k = (bx - ax).abs().min((by - ay).abs());
        let bend = if from_a {
            (ax + sx * k, ay + sy * k)
        } else {
            (bx - sx * k, by - sy * k)
        };
        let pixel = |(x, y): (i64, i64)| ((x - 1) as u32, (y - 1) as u32);
        if bend != (ax, ay) && bend != (bx, by) {
            corners.push(pixel(bend));
        }
        corners.push(pixel((bx, by)));
    }
}
