//! `WalkStats` and `WalkmaskDiagnosticsPlugin`: requests counted once each by how
//! they ended, answer latency in frames (exact under `AfterFrames(2)`, bounded when
//! paced), and the planner's numbers in Bevy's `DiagnosticsStore`.
//!
//! Headless app of `tests/common`, the 64 x 48 wall mask (a wall at x = 30..=33 from
//! the top down to y = 39).

use bevy::diagnostic::DiagnosticsStore;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{WalkStats, WalkmaskDiagnosticsPlugin};

use crate::common;
use common::{Kind, Log, Pace, assert_contract, px, request, spawn_walker, wall_room_app};

fn stats(app: &App) -> WalkStats {
    app.world().resource::<WalkStats>().clone()
}

fn values(app: &App, path: &bevy::diagnostic::DiagnosticPath) -> Vec<f64> {
    app.world()
        .resource::<DiagnosticsStore>()
        .get(path)
        .unwrap_or_else(|| panic!("{path} is registered"))
        .values()
        .copied()
        .collect()
}

/// Three walks round the wall, one to a pixel inside it (snapped), one request
/// superseded by the next and one for a walker that does not exist: each request is
/// counted once by how it ended, and the latency of the paths is two frames exactly
/// under `AfterFrames(2)`, at most a second's frames paced.
#[test]
fn requests_are_counted_once_each_with_their_answer_frames() {
    for pace in Pace::BOTH {
        let (mut app, _room) = wall_room_app(pace.plugin());
        app.add_plugins(WalkmaskDiagnosticsPlugin);
        let mut clock = pace.clock();
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(10, 10));
        clock.frames(&mut app, 2);
        assert_eq!(stats(&app), WalkStats::default(), "{pace:?}");

        let mut ids = vec![request(&mut app, walker, px(50, 10))];
        // Superseded in the same frame: cancelled.
        ids.push(request(&mut app, walker, px(50, 20)));
        let ghost = Entity::from_raw_u32(9_999).unwrap();
        ids.push(request(&mut app, ghost, px(5, 5)));
        clock.frame(&mut app);
        // The walk's request waits for its search: exactly two frames under
        // `AfterFrames(2)`; paced, its answer may already have landed.
        let waiting = stats(&app).waiting;
        match pace {
            Pace::Exact(_) => assert_eq!(waiting, 1, "{pace:?}: the walk in flight"),
            Pace::Paced => assert!(waiting <= 1, "{pace:?}: {waiting} waiting"),
        }
        clock.until(&mut app, 600, |world| {
            world.resource::<WalkStats>().waiting == 0
                && world.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        ids.push(request(&mut app, walker, px(31, 10))); // in the wall: snapped
        clock.until(&mut app, 600, |world| {
            world.resource::<WalkStats>().waiting == 0
                && world.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });

        let log = app.world().resource::<Log>();
        assert_contract(log, &ids);
        let count = |pred: fn(&Kind) -> bool| {
            ids.iter()
                .filter(|id| log.kinds(**id).first().is_some_and(pred))
                .count() as u64
        };
        let s = stats(&app);
        assert_eq!(
            s.answered,
            count(|k| matches!(k, Kind::Ready { .. })),
            "{pace:?}"
        );
        assert_eq!(s.answered, 2, "{pace:?}: {s:?}");
        assert_eq!(s.cancelled, 1, "{pace:?}: {s:?}");
        assert_eq!(s.unreachable, 1, "{pace:?}: {s:?}");
        assert_eq!(s.waiting, 0, "{pace:?}");
        match pace {
            Pace::Exact(n) => {
                assert_eq!(s.answer_frames, 2 * u64::from(n), "{pace:?}: {s:?}");
                assert_eq!(s.max_answer_frames, u64::from(n), "{pace:?}: {s:?}");
                assert_eq!(
                    values(&app, &WalkmaskDiagnosticsPlugin::ANSWER_FRAMES),
                    vec![f64::from(n); 2],
                    "{pace:?}: one measurement a frame with an answer"
                );
            }
            Pace::Paced => {
                // A second at most, even on a loaded machine (the first answer
                // waits for the room's grid); the store holds what was counted.
                assert!(s.max_answer_frames <= 60, "{pace:?}: {s:?}");
                let measured = values(&app, &WalkmaskDiagnosticsPlugin::ANSWER_FRAMES);
                assert_eq!(measured.len(), 2, "{pace:?}: {measured:?}");
                assert_eq!(measured.iter().sum::<f64>(), s.answer_frames as f64);
                assert_eq!(
                    measured.iter().copied().fold(0.0, f64::max),
                    s.max_answer_frames as f64
                );
            }
        }
        assert_eq!(s.mean_answer_frames(), Some(s.answer_frames as f64 / 2.0));
    }
}

/// The planner's numbers reach the store every frame: a grid built for the first
/// walk (and none for the second on the same grid), its bytes, the walker walking,
/// nothing waiting once answered.
#[test]
fn the_planner_reports_to_the_diagnostics_store() {
    let pace = Pace::Exact(2);
    let (mut app, _room) = wall_room_app(pace.plugin());
    app.add_plugins(WalkmaskDiagnosticsPlugin);
    let mut clock = pace.clock();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(10, 10));
    clock.frames(&mut app, 2);
    request(&mut app, walker, px(50, 10));
    clock.frames(&mut app, 3);
    let builds: f64 = values(&app, &WalkmaskDiagnosticsPlugin::GRID_BUILDS)
        .iter()
        .sum();
    assert_eq!(builds, 1.0, "one grid for the room");
    let walking = values(&app, &WalkmaskDiagnosticsPlugin::WALKING);
    assert_eq!(walking.last(), Some(&1.0));
    let grid_bytes = values(&app, &WalkmaskDiagnosticsPlugin::GRID_BYTES);
    assert!(
        grid_bytes.last().is_some_and(|b| *b >= 64.0 * 48.0),
        "{grid_bytes:?}"
    );
    assert_eq!(
        values(&app, &WalkmaskDiagnosticsPlugin::REQUESTS_WAITING).last(),
        Some(&0.0)
    );
    clock.until(&mut app, 600, |world| {
        world.get::<WalkState>(walker) == Some(&WalkState::Arrived)
    });
    request(&mut app, walker, px(10, 10));
    clock.frames(&mut app, 3);
    let builds: f64 = values(&app, &WalkmaskDiagnosticsPlugin::GRID_BUILDS)
        .iter()
        .sum();
    assert_eq!(builds, 1.0, "the second walk reuses the grid");
    assert_eq!(
        values(&app, &WalkmaskDiagnosticsPlugin::WALKING).last(),
        Some(&1.0)
    );
}
