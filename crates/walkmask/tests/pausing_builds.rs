//! Builds that stop and go on (`walkmask::pause`): a grid and a subgoal index built
//! with a pause at every chance are the same as those built at once, on random masks
//! with random areas and clearance radii, and the build did stop.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use proptest::prelude::*;
mod support;

use support::cases::{Case, KINDS};
use walkmask::pause::Pause;
use walkmask::subgoal::IndexPolicy;
use walkmask::{NavGrid, Pathfinder, Point, WalkMask};

const CASES: u32 = 192;

/// Pauses wherever it is asked (every `every`-th time), each pause giving the executor
/// back once.
struct Stutter {
    every: u32,
    asked: u32,
    paused: u32,
}

impl Pause for Stutter {
    fn due(&mut self) -> bool {
        self.asked += 1;
        self.asked.is_multiple_of(self.every)
    }

    async fn pause(&mut self) {
        self.paused += 1;
        let mut gave_back = false;
        std::future::poll_fn(|cx| {
            if gave_back {
                Poll::Ready(())
            } else {
                gave_back = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await
    }
}

/// Polls `build` to its end; returns its output and how many polls it took.
fn drive<T>(build: impl Future<Output = T>) -> (T, u32) {
    let mut build = pin!(build);
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(value) = build.as_mut().poll(&mut cx) {
            return (value, polls);
        }
    }
}

fn check(case: &Case, radius: f32, every: u32, seed: u64) -> Result<(), TestCaseError> {
    let mask = WalkMask::new(case.w, case.h, case.cells.clone()).expect("valid size");
    let at_once = NavGrid::with_clearance(mask.clone(), case.areas, radius).unwrap();
    let mut pause = Stutter {
        every,
        asked: 0,
        paused: 0,
    };
    let (stepped, polls) = drive(NavGrid::with_clearance_pausing(
        mask, case.areas, radius, &mut pause,
    ));
    let stepped = stepped.unwrap();
    // One question at least per row of each pass: a build that never asks fails here.
    prop_assert!(pause.asked >= case.h, "asked {} times", pause.asked);
    prop_assert_eq!(polls, pause.paused + 1);
    prop_assert_eq!(stepped.region_count(), at_once.region_count());
    prop_assert_eq!(stepped.walkable_count(), at_once.walkable_count());
    for y in 0..case.h {
        for x in 0..case.w {
            prop_assert_eq!(stepped.is_walkable(x, y), at_once.is_walkable(x, y));
            prop_assert_eq!(stepped.region(x, y), at_once.region(x, y));
        }
    }

    let index_at_once = at_once.build_index(IndexPolicy::Always);
    let mut pause = Stutter {
        every,
        asked: 0,
        paused: 0,
    };
    let (index_stepped, _) = drive(stepped.build_index_pausing(IndexPolicy::Always, &mut pause));
    prop_assert_eq!(index_stepped.is_some(), index_at_once.is_some());
    if let (Some(a), Some(b)) = (index_stepped, index_at_once) {
        prop_assert_eq!(a.subgoal_count(), b.subgoal_count());
        prop_assert_eq!(a.edge_count(), b.edge_count());
        prop_assert_eq!(a.memory_bytes(), b.memory_bytes());
        prop_assert!(pause.asked >= case.h, "asked {} times", pause.asked);
    }
    // Asked again, the index is the one built.
    let again = drive(stepped.build_index_pausing(IndexPolicy::Always, &mut pause)).0;
    prop_assert!(std::ptr::eq(
        again.map_or(std::ptr::null(), |i| i as *const _),
        stepped
            .subgoal_index()
            .map_or(std::ptr::null(), |i| i as *const _)
    ));

    // Queries on the two agree, index and all.
    let mut rng = seed | 1;
    let mut next = |n: u32| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as f32 + 0.5
    };
    let (mut a, mut b) = (Pathfinder::new(), Pathfinder::new());
    for _ in 0..4 {
        let start = Point::new(next(case.w), next(case.h));
        let goal = Point::new(next(case.w), next(case.h));
        let (pa, pb) = (
            a.find_path(&stepped, start, goal),
            b.find_path(&at_once, start, goal),
        );
        match (pa, pb) {
            (Ok(pa), Ok(pb)) => {
                prop_assert_eq!(pa.status, pb.status);
                prop_assert_eq!(pa.waypoints, pb.waypoints);
            }
            (pa, pb) => prop_assert_eq!(pa.is_err(), pb.is_err()),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(support::cases::config(CASES))]

    #[test]
    fn a_build_that_pauses_is_the_build_at_once(
        kind in 0..KINDS.len(),
        w in prop_oneof![1u32..=8, 1u32..=64],
        h in prop_oneof![1u32..=8, 1u32..=64],
        seed in any::<u64>(),
        density in 0u8..=100,
        radius in prop_oneof![Just(0.0f32), 0.0f32..4.0],
        every in prop_oneof![Just(1u32), 1u32..=7],
    ) {
        check(&Case::build(kind, w, h, seed, density), radius, every, seed)?;
    }
}

/// A large room, paused often: thousands of pauses, the same grid and index.
#[test]
fn a_large_room_built_in_slices_is_the_room_built_at_once() {
    let case = Case::build(5, 300, 200, 7, 3);
    check(&case, 2.5, 3, 7).unwrap();
}
