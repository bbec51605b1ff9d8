//! The subgoal index against the fill, over random masks of every kind: for pairs of
//! walkable pixels, the index's cost equals the fill's octile distance exactly, its
//! corner path, filled in, runs from the start to the goal in legal 8-neighbour steps (a diagonal
//! step only where both pixels beside it are walkable) whose costs add up to that
//! distance, and pairs in different regions get no path.

mod support;

use proptest::prelude::*;
use walkmask::fill::{CARDINAL, DIAGONAL};
use walkmask::subgoal::{IndexScratch, SubgoalGraph, corner_path_pixels};
use walkmask::{DistanceField, NavGrid};

use support::Rng;
use support::cases::{Case, KINDS};

const CASES: u32 = 3000;

/// The cost of a chain of pixels, or a message naming its first illegal step.
fn chain_cost(grid: &NavGrid, chain: &[(u32, u32)]) -> Result<u32, String> {
    let open = |x: i64, y: i64| support::walkable(grid, x, y);
    let mut cost = 0;
    for pair in chain.windows(2) {
        let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
        let (dx, dy) = (bx as i64 - ax as i64, by as i64 - ay as i64);
        if !open(bx as i64, by as i64) {
            return Err(format!("step onto blocked {:?}", pair[1]));
        }
        cost += match (dx.abs(), dy.abs()) {
            (1, 0) | (0, 1) => CARDINAL,
            (1, 1) if open(ax as i64 + dx, ay as i64) && open(ax as i64, ay as i64 + dy) => {
                DIAGONAL
            }
            _ => return Err(format!("illegal step {:?} -> {:?}", pair[0], pair[1])),
        };
    }
    Ok(cost)
}

fn check(case: &Case, seed: u64) -> Result<(), TestCaseError> {
    let grid = case.grid();
    let index = SubgoalGraph::build(&grid);
    let walkable: Vec<(u32, u32)> = (0..case.h)
        .flat_map(|y| (0..case.w).map(move |x| (x, y)))
        .filter(|&(x, y)| grid.is_walkable(x, y))
        .collect();
    if walkable.is_empty() {
        return Ok(());
    }
    let mut rng = Rng(seed);
    let mut scratch = IndexScratch::default();
    let mut chain = Vec::new();
    for _ in 0..4 {
        let goal = walkable[rng.below(walkable.len() as u32) as usize];
        let field = DistanceField::new(&grid, goal).expect("walkable source");
        for _ in 0..8 {
            let start = walkable[rng.below(walkable.len() as u32) as usize];
            let expected = field.distance(start.0, start.1);
            let got = index.shortest_path(&grid, &mut scratch, start, goal, &mut chain);
            prop_assert_eq!(
                got,
                expected,
                "{:?}index cost from {:?} to {:?}",
                case,
                start,
                goal
            );
            if got.is_none() {
                continue;
            }
            prop_assert_eq!(chain.first(), Some(&start));
            prop_assert_eq!(chain.last(), Some(&goal));
            let walked = chain_cost(&grid, &corner_path_pixels(&chain));
            prop_assert_eq!(
                walked,
                Ok(got.unwrap()),
                "{:?}chain from {:?} to {:?}",
                case,
                start,
                goal
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(support::cases::config(CASES))]

    #[test]
    fn index_distances_equal_fill_distances(
        kind in 0..KINDS.len(),
        w in prop_oneof![1u32..=8, 1u32..=64],
        h in prop_oneof![1u32..=8, 1u32..=64],
        seed in any::<u64>(),
        density in 0u8..=100,
    ) {
        check(&Case::build(kind, w, h, seed, density), seed)?;
    }
}

/// Larger rooms with furniture-like blocks: long scans, many edges per subgoal.
#[test]
fn index_distances_equal_fill_distances_on_large_masks() {
    for seed in 0..12u64 {
        let case = Case::build(if seed % 2 == 0 { 5 } else { 1 }, 200, 150, seed, 3);
        check(&case, seed).unwrap();
    }
}
