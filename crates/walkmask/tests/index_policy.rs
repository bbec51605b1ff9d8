//! The rule that decides whether a mask gets a subgoal index
//! ([`IndexPolicy::WhenItPays`]): a maze of 1-pixel corridors gets one, noise does
//! not, and on any mask the rule keeps either the whole graph `IndexPolicy::Always`
//! builds or none, exactly as its two thresholds say.

mod support;

use proptest::prelude::*;
use walkmask::subgoal::{
    IndexPolicy, MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL, WALKABLE_PIXELS_PER_SUBGOAL, count_subgoals,
};
use walkmask::{AreaSet, NavGrid, WalkMask};

use support::Rng;
use support::cases::{Case, KINDS};

/// A maze of `cells` x `cells` rooms of one pixel joined by 1-pixel doors (a
/// depth-first carve), `2 * cells + 1` pixels a side.
fn one_pixel_maze(cells: u32, seed: u64) -> WalkMask {
    let side = 2 * cells + 1;
    let mut open = vec![0u8; (side * side) as usize];
    let at = |x: u32, y: u32| (y * side + x) as usize;
    let mut rng = Rng(seed);
    let mut seen = vec![false; (cells * cells) as usize];
    let mut stack = vec![(0u32, 0u32)];
    seen[0] = true;
    open[at(1, 1)] = 1;
    while let Some(&(cx, cy)) = stack.last() {
        let next: Vec<(u32, u32)> = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .map(|&(dx, dy)| (cx as i64 + dx, cy as i64 + dy))
            .filter(|&(x, y)| x >= 0 && y >= 0 && x < cells as i64 && y < cells as i64)
            .map(|(x, y)| (x as u32, y as u32))
            .filter(|&(x, y)| !seen[(y * cells + x) as usize])
            .collect();
        if next.is_empty() {
            stack.pop();
            continue;
        }
        let (nx, ny) = next[rng.below(next.len() as u32) as usize];
        seen[(ny * cells + nx) as usize] = true;
        open[at(2 * nx + 1, 2 * ny + 1)] = 1;
        open[at(cx + nx + 1, cy + ny + 1)] = 1;
        stack.push((nx, ny));
    }
    WalkMask::from_fn(side, side, |x, y| open[at(x, y)]).unwrap()
}

/// A graph's size (subgoals and edges) against the rule's limit for `walkable`
/// pixels: at most 1 passes.
fn graph_size(subgoals: usize, edges: usize, walkable: usize) -> f64 {
    (subgoals + edges) as f64 / (walkable as f64 * MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL)
}

#[test]
fn a_maze_of_one_pixel_corridors_gets_an_index() {
    for seed in 0..4 {
        let grid = NavGrid::new(one_pixel_maze(100, seed), AreaSet::all());
        let subgoals = count_subgoals(&grid);
        // Crowded with corners: the first rule alone would leave it to the fill.
        assert!(subgoals * WALKABLE_PIXELS_PER_SUBGOAL > grid.walkable_count());
        let index = grid
            .build_index(IndexPolicy::WhenItPays)
            .expect("a maze of narrow corridors is indexed");
        assert!(
            graph_size(
                index.subgoal_count(),
                index.edge_count(),
                grid.walkable_count()
            ) <= 1.0
        );
    }
}

#[test]
fn noise_gets_no_index() {
    for seed in 0..4 {
        let mut rng = Rng(seed);
        let noise = WalkMask::from_fn(200, 200, |_, _| u8::from(rng.below(100) >= 35)).unwrap();
        let grid = NavGrid::new(noise, AreaSet::all());
        assert!(count_subgoals(&grid) * WALKABLE_PIXELS_PER_SUBGOAL > grid.walkable_count());
        assert!(grid.build_index(IndexPolicy::WhenItPays).is_none());
        // The graph it gave up on is the larger one.
        let all = NavGrid::new(grid.mask().clone(), AreaSet::all());
        let index = all.build_index(IndexPolicy::Always).unwrap();
        assert!(
            graph_size(
                index.subgoal_count(),
                index.edge_count(),
                grid.walkable_count()
            ) > 1.0
        );
    }
}

proptest! {
    #![proptest_config(support::cases::config(1000))]

    #[test]
    fn the_rule_keeps_the_whole_graph_or_none(
        kind in 0..KINDS.len(),
        w in prop_oneof![1u32..=8, 1u32..=64],
        h in prop_oneof![1u32..=8, 1u32..=64],
        seed in any::<u64>(),
        density in 0u8..=100,
    ) {
        let case = Case::build(kind, w, h, seed, density);
        let (ruled, always) = (case.grid(), case.grid());
        let whole = always.build_index(IndexPolicy::Always).unwrap();
        let walkable = ruled.walkable_count();
        let expected = count_subgoals(&ruled) * WALKABLE_PIXELS_PER_SUBGOAL <= walkable
            || whole.subgoal_count() + whole.edge_count()
                <= (walkable as f64 * MAX_GRAPH_SIZE_PER_WALKABLE_PIXEL) as usize;
        let kept = ruled.build_index(IndexPolicy::WhenItPays);
        prop_assert_eq!(kept.is_some(), expected, "{:?}", case);
        if let Some(kept) = kept {
            prop_assert_eq!(kept.subgoal_count(), whole.subgoal_count());
            prop_assert_eq!(kept.edge_count(), whole.edge_count());
            prop_assert_eq!(kept.memory_bytes(), whole.memory_bytes());
        }
    }
}
