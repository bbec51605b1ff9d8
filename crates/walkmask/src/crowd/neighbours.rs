//! A uniform grid of agents by position, for nearest-neighbour queries.

use super::orca::Vector;

/// The agents bucketed in square cells (compressed rows: a count per cell, then the
/// agents in cell order), rebuilt once a frame. Agents at non-finite positions are
/// left out.
#[derive(Clone, Debug, Default)]
pub struct NeighbourGrid {
    cell: f32,
    origin: Vector,
    columns: usize,
    rows: usize,
    /// Cell `c`'s agents are `agents[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    agents: Vec<u32>,
    cell_of: Vec<u32>,
}

/// Cells kept per agent at most: a few agents spread far apart make the cells
/// larger instead of the grid huge.
const CELLS_PER_AGENT: usize = 4;

impl NeighbourGrid {
    /// An empty grid.
    pub fn new() -> Self {
        Self::default()
    }

    /// Buckets `positions` in cells `cell` units across (made larger when the agents
    /// are so spread out that the grid would have many more cells than agents).
    pub fn build(&mut self, positions: &[Vector], cell: f32) {
        let finite = || positions.iter().filter(|p| p.is_finite());
        let (mut min, mut max) = (
            Vector::new(f32::INFINITY, f32::INFINITY),
            Vector::new(f32::NEG_INFINITY, f32::NEG_INFINITY),
        );
        for p in finite() {
            min = Vector::new(min.x.min(p.x), min.y.min(p.y));
            max = Vector::new(max.x.max(p.x), max.y.max(p.y));
        }
        self.starts.clear();
        self.agents.clear();
        self.cell_of.clear();
        if min.x > max.x {
            self.columns = 0;
            self.rows = 0;
            self.starts.push(0);
            return;
        }
        let span = (max.x - min.x).max(max.y - min.y) as f64;
        let budget = (positions.len() * CELLS_PER_AGENT).max(16) as f64;
        let mut size = if cell.is_finite() && cell > 0.0 {
            cell as f64
        } else {
            span.max(1.0)
        };
        let count = |size: f64| {
            let columns = ((max.x - min.x) as f64 / size).floor() + 1.0;
            let rows = ((max.y - min.y) as f64 / size).floor() + 1.0;
            (columns, rows)
        };
        loop {
            let (columns, rows) = count(size);
            if columns * rows <= budget {
                break;
            }
            size *= 2.0;
        }
        let (columns, rows) = count(size);
        self.cell = size as f32;
        self.origin = min;
        self.columns = columns as usize;
        self.rows = rows as usize;
        self.starts.resize(self.columns * self.rows + 1, 0);
        for p in positions {
            let cell = if p.is_finite() {
                self.cell_index(*p)
            } else {
                u32::MAX
            };
            self.cell_of.push(cell);
            if cell != u32::MAX {
                self.starts[cell as usize + 1] += 1;
            }
        }
        for c in 0..self.columns * self.rows {
            self.starts[c + 1] += self.starts[c];
        }
        let total = *self.starts.last().unwrap_or(&0) as usize;
        self.agents.resize(total, 0);
        // Scatter, the agents of a cell in index order.
        let mut next = self.starts.clone();
        for (i, &cell) in self.cell_of.iter().enumerate() {
            if cell != u32::MAX {
                self.agents[next[cell as usize] as usize] = i as u32;
                next[cell as usize] += 1;
            }
        }
    }

    fn cell_coords(&self, p: Vector) -> (usize, usize) {
        // Clamped at 0 first, truncation is the floor (and NaN is 0): no call to
        // `floorf`, which is not inlined on x86-64 without SSE4.1.
        let column = (((p.x - self.origin.x) / self.cell).max(0.0) as usize)
            .min(self.columns.saturating_sub(1));
        let row = (((p.y - self.origin.y) / self.cell).max(0.0) as usize)
            .min(self.rows.saturating_sub(1));
        (column, row)
    }

    fn cell_index(&self, p: Vector) -> u32 {
        let (column, row) = self.cell_coords(p);
        (row * self.columns + column) as u32
    }

    /// The at most `k` agents nearest to agent `me` (whose position is
    /// `positions[me]`, the slice the grid was built from) within `range`, nearest
    /// first (ties: the lower index), as (squared distance, index) in `out`.
    /// `accept` filters the candidates.
    pub fn nearest(
        &self,
        positions: &[Vector],
        me: usize,
        range: f32,
        k: usize,
        mut accept: impl FnMut(usize) -> bool,
        out: &mut Vec<(f32, usize)>,
    ) {
        out.clear();
        let Some(&p) = positions.get(me) else {
            return;
        };
        if k == 0 || self.columns == 0 || !p.is_finite() || range.is_nan() || range < 0.0 {
            return;
        }
        let mut reach_squared = range * range;
        // Ring by ring of cells outward, until a ring's nearest point lies beyond the
        // k-th nearest found (or the range): a crowd packed round one point costs k
        // and a few cells, not everyone within the range.
        let (cx, cy) = (self.cell_coords(p).0 as i64, self.cell_coords(p).1 as i64);
        let rings = ((range / self.cell).ceil() as i64 + 1).min(self.columns.max(self.rows) as i64);
        let mut visit = |x0: i64, x1: i64, y: i64, out: &mut Vec<(f32, usize)>, reach: &mut f32| {
            if y < 0 || y >= self.rows as i64 {
                return;
            }
            let (x0, x1) = (x0.max(0), x1.min(self.columns as i64 - 1));
            if x0 > x1 {
                return;
            }
            let base = y as usize * self.columns;
            let (a, b) = (
                self.starts[base + x0 as usize],
                self.starts[base + x1 as usize + 1],
            );
            for &j in &self.agents[a as usize..b as usize] {
                let j = j as usize;
                if j == me {
                    continue;
                }
                let d = (positions[j] - p).length_squared();
                if d > *reach || !accept(j) {
                    continue;
                }
                let at = out.partition_point(|&(e, i)| (e, i) < (d, j));
                if at >= k {
                    continue;
                }
                if out.len() == k {
                    out.pop();
                }
                out.insert(at, (d, j));
                if out.len() == k {
                    *reach = out[k - 1].0;
                }
            }
        };
        for ring in 0..=rings {
            if ring >= 1 {
                let nearest = (ring - 1) as f32 * self.cell;
                if nearest * nearest > reach_squared {
                    break;
                }
            }
            if ring == 0 {
                visit(cx, cx, cy, out, &mut reach_squared);
                continue;
            }
            visit(cx - ring, cx + ring, cy - ring, out, &mut reach_squared);
            visit(cx - ring, cx + ring, cy + ring, out, &mut reach_squared);
            for y in cy - ring + 1..cy + ring {
                visit(cx - ring, cx - ring, y, out, &mut reach_squared);
                visit(cx + ring, cx + ring, y, out, &mut reach_squared);
            }
        }
    }
}

impl NeighbourGrid {
    /// Whether `test` holds for any agent within `range` of `point` (agents tested in
    /// cell order, stopping at the first that passes).
    pub fn any_within(
        &self,
        positions: &[Vector],
        point: Vector,
        range: f32,
        mut test: impl FnMut(usize) -> bool,
    ) -> bool {
        if self.columns == 0 || !point.is_finite() || range.is_nan() || range < 0.0 {
            return false;
        }
        let reach_squared = range * range;
        let (c0, r0) = self.cell_coords(point - Vector::new(range, range));
        let (c1, r1) = self.cell_coords(point + Vector::new(range, range));
        (r0..=r1).any(|row| {
            let base = row * self.columns;
            let (a, b) = (self.starts[base + c0], self.starts[base + c1 + 1]);
            self.agents[a as usize..b as usize].iter().any(|&j| {
                let j = j as usize;
                (positions[j] - point).length_squared() <= reach_squared && test(j)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_matches_brute_force() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        let positions: Vec<Vector> = (0..300)
            .map(|_| Vector::new(next() * 500.0, next() * 300.0))
            .collect();
        for cell in [40.0, 7.0, 500.0] {
            nearest_matches_brute_force_with(&positions, cell);
        }
    }

    fn nearest_matches_brute_force_with(positions: &[Vector], cell: f32) {
        let mut grid = NeighbourGrid::new();
        grid.build(positions, cell);
        let mut out = Vec::new();
        for me in 0..positions.len() {
            grid.nearest(positions, me, 60.0, 8, |_| true, &mut out);
            let mut brute: Vec<(f32, usize)> = positions
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != me)
                .map(|(j, q)| ((*q - positions[me]).length_squared(), j))
                .filter(|&(d, _)| d <= 3600.0)
                .collect();
            brute.sort_by(|a, b| a.partial_cmp(b).unwrap());
            brute.truncate(8);
            assert_eq!(out, brute, "agent {me}, cells of {cell}");
        }
    }

    #[test]
    fn scattered_agents_keep_the_grid_small() {
        let positions = [
            Vector::new(0.0, 0.0),
            Vector::new(1e7, 1e7),
            Vector::new(f32::NAN, 0.0),
        ];
        let mut grid = NeighbourGrid::new();
        grid.build(&positions, 1.0);
        assert!(grid.columns * grid.rows <= 16);
        let mut out = Vec::new();
        grid.nearest(&positions, 0, 1e8, 4, |_| true, &mut out);
        assert_eq!(out.len(), 1);
        grid.nearest(&positions, 2, 1e8, 4, |_| true, &mut out);
        assert!(out.is_empty());
    }
}
