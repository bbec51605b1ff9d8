//! Dropping the middle points of straight runs.

/// Removes every point that lies between two others on the same horizontal, vertical
/// or diagonal run of unit steps (seed 000's simplification). `pixels` are pixel
/// coordinates of consecutive 8-neighbours; the polyline they describe is unchanged.
///
/// ```
/// use walkmask::simplify::simplify_runs;
/// let run = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (4, 3)];
/// assert_eq!(simplify_runs(&run), vec![(0, 0), (2, 0), (4, 2), (4, 3)]);
/// ```
pub fn simplify_runs(pixels: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(pixels.len().min(64));
    let step = |a: (u32, u32), b: (u32, u32)| {
        (b.0 as i64 - a.0 as i64, b.1 as i64 - a.1 as i64)
    };
    for &p in pixels {
        if out.len() >= 2 {
            let n = out.len();
            if step(out[n - 2], out[n - 1]) == step(out[n - 1], p) {
                out[n - 1] = p;
                continue;
            }
        }
        if out.last() != Some(&p) {
            out.push(p);
        }
    }
    out
}
