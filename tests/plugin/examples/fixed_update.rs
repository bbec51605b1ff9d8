//! `examples/fixed_update.rs`: the replay gives the same positions, step for step, on
//! two runs, and its walks arrive where the script sends them.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/fixed_update.rs"]
mod example;

use example::{Replay, SCRIPT, START};

/// Runs the replay until 300 fixed steps are played; returns the trace.
fn replay() -> Vec<Vec2> {
    let mut app = example_app(example::example);
    frames_until(&mut app, 20_000, "300 steps played", |world| {
        world.resource::<Replay>().step >= 300
    });
    let mut trace = app.world().resource::<Replay>().trace.clone();
    trace.truncate(300);
    trace
}

#[test]
fn the_replay_is_the_same_on_every_run() {
    let first = replay();
    let second = replay();
    assert_eq!(first, second, "two runs of the same script");
    // The first walk reaches its point, the replaced one never starts, and the last
    // walk brings the player back.
    let reached = |p: Vec2| first.iter().any(|q| q.distance(p) < 1.0);
    assert!(reached(SCRIPT[0].1), "the first walk arrives");
    assert!(
        !reached(SCRIPT[1].1),
        "the second walk is replaced before it starts"
    );
    assert!(reached(SCRIPT[2].1), "the third walk arrives");
    assert!(
        first.last().unwrap().distance(START) < 1.0,
        "back at the start"
    );
    // Nothing moves before the first request's answer, two steps after it.
    assert!(
        first[..=SCRIPT[0].0 as usize + 1]
            .iter()
            .all(|p| *p == START)
    );
    assert_ne!(
        first[SCRIPT[0].0 as usize + 2],
        START,
        "walking from step 7"
    );
}
