//! Snapping points to the nearest walkable or reachable pixel.
//!
//! The nearest pixel of a set to a point outside it is always on the set's edge (a
//! pixel with a blocked side neighbour): from any other pixel, a step toward the
//! point comes no farther. So each [`NavGrid`] keeps its edge pixels, once in row
//! order and once grouped by region (built with the grid), and a
//! query looks at the rows around the point outward, one binary search per row,
//! until no nearer row can remain. The cost grows with the distance to the answer in
//! rows, not with its square: snapping across a whole 8192 x 8192 mask looks at
//! 8192 rows instead of 67 million pixels.

use crate::{NavGrid, Point};

/// Which pixels a snap may land on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapTarget {
    /// Any walkable pixel.
    Walkable,
    /// Pixels of one region (a walker in it can reach them).
    Region(u32),
}

/// Every pixel of `target` whose centre is nearest to `p` (Euclidean distance; all
/// of them when several are equally near), in row-major order. Empty when `target`
/// has no pixel. `p` may lie outside the mask.
///
/// On a grid seen through obstacles the nearest pixels of the mask are found as
/// usual; when obstacles block all of them, the search goes on ring by ring round
/// `p` (obstacles are small, so the nearest open pixel is near).
pub fn nearest_pixels(grid: &NavGrid, p: Point, target: SnapTarget) -> Vec<(u32, u32)> {
    if grid.has_obstacles() {
        let mut on_mask = nearest_pixels(&grid.without_obstacles(), p, target);
        on_mask.retain(|&(x, y)| grid.region(x, y).is_some());
        if !on_mask.is_empty() {
            return on_mask;
        }
        return nearest_by_rings(grid, p, |x, y| match (target, grid.region(x, y)) {
            (_, None) => false,
            (SnapTarget::Walkable, Some(_)) => true,
            (SnapTarget::Region(r), Some(label)) => label == r,
        });
    }
    let h = grid.height();
    let (qx, qy) = (p.x as f64, p.y as f64);
    let accepts = |x: u32, y: u32| match (target, grid.region(x, y)) {
        (_, None) => false,
        (SnapTarget::Walkable, Some(_)) => true,
        (SnapTarget::Region(r), Some(label)) => label == r,
    };
    if let Some((x, y)) = p.pixel()
        && accepts(x, y)
    {
        return vec![(x, y)];
    }
    let edges = grid.edges();
    let pw = grid.padded_width();
    let cy = qy.floor().clamp(0.0, h as f64 - 1.0) as i64;
    let mut best = f64::INFINITY;
    let mut found: Vec<(u32, u32)> = Vec::new();
    let consider = |x: u32, y: u32, best: &mut f64, found: &mut Vec<(u32, u32)>| {
        let d = (x as f64 + 0.5 - qx).powi(2) + (y as f64 + 0.5 - qy).powi(2);
        if d < *best {
            *best = d;
            found.clear();
        }
        if d == *best && !found.contains(&(x, y)) {
            found.push((x, y));
        }
    };
    // The pixels of row `y` on the edge: the nearest to `qx` from the left and from
    // the right are the only candidates in the row.
    let x_of = |v: u32| match target {
        SnapTarget::Walkable => v,
        SnapTarget::Region(_) => (v as usize % pw - 1) as u32,
    };
    let scan_row = |y: u32, best: &mut f64, found: &mut Vec<(u32, u32)>| {
        let row = match target {
            SnapTarget::Walkable => edges.row(y),
            SnapTarget::Region(r) => edges.region_row(r, y, pw),
        };
        let split = row.partition_point(|&v| (x_of(v) as f64 + 0.5) < qx);
        if split > 0 {
            consider(x_of(row[split - 1]), y, best, found);
        }
        if let Some(&v) = row.get(split) {
            consider(x_of(v), y, best, found);
        }
    };
    let row_gap = |y: i64| {
        let d = (y as f64 + 0.5 - qy).abs();
        d * d
    };
    let (mut up, mut down) = (cy, cy + 1);
    loop {
        let up_open = up >= 0 && row_gap(up) <= best;
        let down_open = down < h as i64 && row_gap(down) <= best;
        if !up_open && !down_open {
            break;
        }
        if up_open {
            scan_row(up as u32, &mut best, &mut found);
            up -= 1;
        }
        if down_open {
            scan_row(down as u32, &mut best, &mut found);
            down += 1;
        }
    }
    found.sort_unstable_by_key(|&(x, y)| (y, x));
    found
}

/// Every pixel `(x, y)` with `accept(x, y)` whose centre is nearest to `p`, in
/// row-major order, found by searching square rings outward from `p`'s pixel. Its
/// cost grows with the square of the distance to the answer.
pub(crate) fn nearest_by_rings(
    grid: &NavGrid,
    p: Point,
    accept: impl FnMut(u32, u32) -> bool,
) -> Vec<(u32, u32)> {
    nearest_by_rings_within(grid, p, u32::MAX, accept)
}

/// [`nearest_by_rings`] over the rings up to `reach` from `p`'s pixel.
fn nearest_by_rings_within(
    grid: &NavGrid,
    p: Point,
    reach: u32,
    mut accept: impl FnMut(u32, u32) -> bool,
) -> Vec<(u32, u32)> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let px = (p.x as f64).clamp(0.0, w as f64 - 0.5);
    let py = (p.y as f64).clamp(0.0, h as f64 - 0.5);
    let (cx, cy) = (px.floor() as i64, py.floor() as i64);
    let (qx, qy) = (p.x as f64, p.y as f64);
    let mut best = f64::INFINITY;
    let mut found: Vec<(u32, u32)> = Vec::new();
    let mut check = |x: i64, y: i64, best: &mut f64, found: &mut Vec<(u32, u32)>| {
        if x < 0 || y < 0 || x >= w || y >= h || !accept(x as u32, y as u32) {
            return;
        }
        let d = (x as f64 + 0.5 - qx).powi(2) + (y as f64 + 0.5 - qy).powi(2);
        if d < *best {
            *best = d;
            found.clear();
        }
        if d == *best {
            found.push((x as u32, y as u32));
        }
    };
    for r in 0..=w.max(h).min(i64::from(reach)) {
        let lower = (r as f64 - 0.5).max(0.0);
        if lower * lower > best {
            break;
        }
        if r == 0 {
            check(cx, cy, &mut best, &mut found);
            continue;
        }
        for x in (cx - r).max(-1)..=(cx + r).min(w) {
            check(x, cy - r, &mut best, &mut found);
            check(x, cy + r, &mut best, &mut found);
        }
        for y in (cy - r + 1).max(-1)..=(cy + r - 1).min(h) {
            check(cx - r, y, &mut best, &mut found);
            check(cx + r, y, &mut best, &mut found);
        }
    }
    found.sort_unstable_by_key(|&(x, y)| (y, x));
    found
}

/// The walkable pixel nearest to `p` in any region (the first in row-major order
/// among equally near ones).
pub fn nearest_walkable(grid: &NavGrid, p: Point) -> Option<(u32, u32)> {
    nearest_pixels(grid, p, SnapTarget::Walkable)
        .first()
        .copied()
}

/// The pixel nearest to `p` that a walker in `region` can reach (the first in
/// row-major order among equally near ones).
pub fn nearest_in_region(grid: &NavGrid, p: Point, region: u32) -> Option<(u32, u32)> {
    nearest_pixels(grid, p, SnapTarget::Region(region))
        .first()
        .copied()
}

/// The walkable pixels a walker standing at `p`, on a pixel that `grid` blocks,
/// steps onto first: the nearest ones (Euclidean distance, in row-major order).
///
/// When `p` stands on the floor ([`NavGrid::is_floor`]: the mask lets a point stand
/// there, and only the grid's clearance radius or an obstacle closes it), only pixels
/// it reaches in a straight line over the floor count
/// ([`floor_line_of_sight`](crate::los::floor_line_of_sight)), looked for within
/// [`step_off_reach`] of `p`: a wide walker squeezed against a wall steps out on its
/// own side, never through the wall, and one boxed in where it does not fit gets
/// nothing (it cannot walk). A walker off the floor (put into a wall or outside the
/// enabled areas) takes the nearest walkable pixels, as [`nearest_pixels`] finds.
///
/// ```
/// use walkmask::{AreaSet, NavGrid, Point, WalkMask};
/// use walkmask::snap::{nearest_walkable, step_off_pixels};
/// // A wall at x = 10 and a closed gate (area 2) at x = 16: walkers of radius 3 do
/// // not fit between them.
/// let mask = WalkMask::from_fn(40, 30, |x, y| match x {
///     10 if y < 20 => 0,
///     16 => 2,
///     _ => 1,
/// })
/// .unwrap();
/// let grid = NavGrid::with_clearance(mask, AreaSet::only(&[1]), 3.0).unwrap();
/// let squeezed = Point::new(12.5, 5.5);
/// // The nearest open pixel lies beyond the wall...
/// assert!(nearest_walkable(&grid, squeezed).unwrap().0 < 10);
/// // ...the walker steps out below the wall's end, on its own side.
/// let (x, y) = step_off_pixels(&grid, squeezed)[0];
/// assert!((10..16).contains(&x) && y >= 20);
/// ```
pub fn step_off_pixels(grid: &NavGrid, p: Point) -> Vec<(u32, u32)> {
    let on_floor = p.pixel().is_some_and(|(x, y)| grid.is_floor(x, y));
    if !on_floor {
        return nearest_pixels(grid, p, SnapTarget::Walkable);
    }
    if let Some((x, y)) = p.pixel()
        && grid.is_walkable(x, y)
    {
        return vec![(x, y)];
    }
    let reach = step_off_reach(grid);
    let mut found = nearest_by_rings_within(grid, p, reach, |x, y| {
        grid.is_walkable(x, y)
            && crate::los::floor_line_of_sight(grid, p, Point::pixel_center(x, y))
    });
    found.retain(|&(x, y)| {
        let (dx, dy) = (x as f64 + 0.5 - p.x as f64, y as f64 + 0.5 - p.y as f64);
        dx * dx + dy * dy <= (reach as f64) * (reach as f64)
    });
    found
}

/// The first of [`step_off_pixels`], if any.
pub fn nearest_step_off(grid: &NavGrid, p: Point) -> Option<(u32, u32)> {
    step_off_pixels(grid, p).first().copied()
}

/// How far (pixels) [`step_off_pixels`] looks for a way out for a walker on the
/// floor: four clearance radii and 8 pixels, at most 256.
pub fn step_off_reach(grid: &NavGrid) -> u32 {
    (grid.clearance() * 4.0 + 8.0).ceil().min(256.0) as u32
}

/// The walkable pixels with a blocked (or outside) side neighbour, indexed by row
/// and by region. Built once per [`NavGrid`]; 8 bytes per edge pixel and 4 bytes per
/// row and per region.
#[derive(Default)]
pub(crate) struct EdgeIndex {
    /// `row_x[row_start[y]..row_start[y + 1]]`: the x of row `y`'s edge pixels,
    /// ascending.
    row_start: Vec<u32>,
    row_x: Vec<u32>,
    /// `region_pixels[region_start[r]..region_start[r + 1]]`: padded indices of
    /// region `r`'s edge pixels, ascending (row-major).
    region_start: Vec<u32>,
    region_pixels: Vec<u32>,
}

/// Appends the x of row `y`'s edge pixels (walkable, with a blocked 4-neighbour) to
/// `row_x` and counts them per region.
fn edge_row(labels: &[u32], pw: usize, y: usize, row_x: &mut Vec<u32>, per_region: &mut [u32]) {
    let base = (y + 1) * pw + 1;
    for x in 0..pw - 2 {
        let i = base + x;
        let label = labels[i];
        if label != 0
            && (labels[i - 1] == 0
                || labels[i + 1] == 0
                || labels[i - pw] == 0
                || labels[i + pw] == 0)
        {
            row_x.push(x as u32);
            per_region[label as usize + 1] += 1;
        }
    }
}

impl EdgeIndex {
    /// Indexes the edges of padded region `labels` (`width x height` inside a
    /// one-pixel border) with `regions` regions, stopping once a row wherever `pause`
    /// asks ([`crate::pause`]).
    pub(crate) async fn new_pausing(
        labels: &[u32],
        width: usize,
        height: usize,
        regions: u32,
        pause: &mut impl crate::pause::Pause,
    ) -> Self {
        let pw = width + 2;
        let mut row_start = Vec::with_capacity(height + 1);
        let mut row_x = Vec::new();
        let mut per_region = vec![0u32; regions as usize + 2];
        row_start.push(0);
        for y in 0..height {
            edge_row(labels, pw, y, &mut row_x, &mut per_region);
            row_start.push(row_x.len() as u32);
            crate::pause::checkpoint(pause).await;
        }
        // Counting sort by region; a row-major scan keeps each region row-major.
        for r in 1..per_region.len() {
            per_region[r] += per_region[r - 1];
        }
        let mut next = per_region.clone();
        let mut region_pixels = vec![0u32; row_x.len()];
        for y in 0..height {
            for &x in &row_x[row_start[y] as usize..row_start[y + 1] as usize] {
                let i = (y + 1) * pw + x as usize + 1;
                let slot = &mut next[labels[i] as usize];
                region_pixels[*slot as usize] = i as u32;
                *slot += 1;
            }
        }
        Self {
            row_start,
            row_x,
            region_start: per_region,
            region_pixels,
        }
    }

    /// The x of row `y`'s edge pixels, ascending.
    pub(crate) fn row(&self, y: u32) -> &[u32] {
        let y = y as usize;
        &self.row_x[self.row_start[y] as usize..self.row_start[y + 1] as usize]
    }

    /// Padded indices of `region`'s edge pixels in row `y`, ascending.
    fn region_row(&self, region: u32, y: u32, pw: usize) -> &[u32] {
        let r = region as usize;
        let Some(&end) = self.region_start.get(r + 1) else {
            return &[];
        };
        let all = &self.region_pixels[self.region_start[r] as usize..end as usize];
        let row_of = |i: u32| i as usize / pw - 1;
        let from = all.partition_point(|&i| row_of(i) < y as usize);
        let to = from + all[from..].partition_point(|&i| row_of(i) <= y as usize);
        &all[from..to]
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.row_start.capacity()
            + self.row_x.capacity()
            + self.region_start.capacity()
            + self.region_pixels.capacity())
            * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AreaSet, WalkMask};

    #[test]
    fn finds_nearest_by_euclidean_distance() {
        let mask = WalkMask::from_fn(20, 20, |x, y| {
            u8::from(x == 15 && y == 3 || x == 2 && y == 18)
        })
        .unwrap();
        let grid = NavGrid::new(mask, AreaSet::all());
        assert_eq!(
            nearest_walkable(&grid, Point::new(10.5, 5.5)),
            Some((15, 3))
        );
        assert_eq!(
            nearest_walkable(&grid, Point::new(3.5, 14.5)),
            Some((2, 18))
        );
        let empty = NavGrid::new(WalkMask::from_fn(4, 4, |_, _| 0).unwrap(), AreaSet::all());
        assert_eq!(nearest_walkable(&empty, Point::new(1.0, 1.0)), None);
    }

    #[test]
    fn reports_every_equally_near_pixel() {
        let mask = WalkMask::from_fn(5, 3, |x, _| u8::from(x == 0 || x == 4)).unwrap();
        let grid = NavGrid::new(mask, AreaSet::all());
        assert_eq!(
            nearest_pixels(&grid, Point::new(2.5, 1.5), SnapTarget::Walkable),
            [(0, 1), (4, 1)]
        );
        let right = grid.region(4, 0).unwrap();
        assert_eq!(
            nearest_pixels(&grid, Point::new(2.5, 1.5), SnapTarget::Region(right)),
            [(4, 1)]
        );
        assert_eq!(
            nearest_pixels(&grid, Point::new(2.5, 1.5), SnapTarget::Region(99)),
            []
        );
    }
}
