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
    let step = |a: (u32, u32), b: (u32, u32)| (b.0 as i64 - a.0 as i64, b.1 as i64 - a.1 as i64);
    // The unit step that led to out.last(), when out.last() ends a run.
    let mut run_step: Option<(i64, i64)> = None;
    for &p in pixels {
        let Some(&last) = out.last() else {
            out.push(p);
            continue;
        };
        if last == p {
            continue;
        }
        let s = step(last, p);
        // A unit step in the same direction extends the run: move its end.
        let unit = s.0.abs() <= 1 && s.1.abs() <= 1;
        if unit && run_step == Some(s) && out.len() >= 2 {
            *out.last_mut().expect("not empty") = p;
        } else {
            out.push(p);
        }
        run_step = unit.then_some(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_collapse_to_their_ends() {
        let line: Vec<(u32, u32)> = (0..100).map(|x| (x, 7)).collect();
        assert_eq!(simplify_runs(&line), vec![(0, 7), (99, 7)]);
        let diagonal: Vec<(u32, u32)> = (0..50).map(|i| (i, 49 - i)).collect();
        assert_eq!(simplify_runs(&diagonal), vec![(0, 49), (49, 0)]);
        let staircase = [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2)];
        assert_eq!(simplify_runs(&staircase), staircase.to_vec());
        assert_eq!(simplify_runs(&[(3, 3)]), vec![(3, 3)]);
        assert!(simplify_runs(&[]).is_empty());
    }
}
