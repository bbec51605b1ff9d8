//! The plugin in a Bevy build without `multi_threaded` (this crate tested alone:
//! `cargo test -p bevy_walkmask_single_threaded`). There the task pools run a task on
//! the thread that spawns it, inside `spawn`; the plugin must give the same answers,
//! and (as its documentation says) answer a request in the frame it is planned even
//! with `AnswerTiming::WhenReady`.
//!
//! Set `WALKMASK_EXPECT_SINGLE_THREADED=1` to make the tests fail if Bevy turns out to
//! be multi-threaded (CI does, for the standalone run).

#[path = "../../../tests/common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{AnswerTiming, PlannerStatus};
use common::{Kind, Log, add_log, add_mask, headless_app, position, px, request, room_pixel, run};

/// Whether the async compute pool runs tasks inside `spawn` (no `multi_threaded`).
/// Told by the thread the task ran on: a finished-at-once check would race with a
/// pool thread that happens to run a tiny task before `spawn` returns.
fn runs_tasks_inside_spawn() -> bool {
    let here = std::thread::current().id();
    let task =
        AsyncComputeTaskPool::get().spawn(async move { std::thread::current().id() == here });
    bevy::tasks::block_on(task)
}

fn app(timing: AnswerTiming) -> App {
    let mut app = headless_app(WalkmaskPlugin {
        answer_timing: timing,
        warm_fields: false,
        ..default()
    });
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    app.world_mut().spawn(WalkRoom::new(mask));
    app.update();
    app
}

#[test]
fn requests_are_answered_in_the_frame_they_are_planned() {
    let mut app = app(AnswerTiming::WhenReady);
    let single = runs_tasks_inside_spawn();
    println!("task pool runs tasks inside spawn: {single}");
    if std::env::var_os("WALKMASK_EXPECT_SINGLE_THREADED").is_some() {
        assert!(single, "expected a Bevy build without multi_threaded");
    }
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(400.0),
            Transform::from_translation(px(10, 10).extend(1.0)),
        ))
        .id();
    let id = request(&mut app, walker, px(50, 10));
    app.update();
    if single {
        let log = app.world().resource::<Log>();
        assert!(
            matches!(log.of(id)[..], [e] if matches!(e.kind, Kind::Ready { .. })),
            "answered in the same frame: {:?}",
            log.of(id)
        );
    }
    for _ in 0..2000 {
        if app
            .world()
            .resource::<Log>()
            .has(walker, |k| matches!(k, Kind::Arrived(_)))
        {
            break;
        }
        app.update();
    }
    assert!(position(&app, walker).distance(px(50, 10)) < 1e-3);
    let (_, waypoints, _) = app.world().resource::<Log>().ready(walker)[0].clone();
    assert!(waypoints.len() > 2, "round the wall");
    assert!(common::path_stays_on(&waypoints, |x, y| room_pixel(x, y) == 1));
}

#[test]
fn every_request_gets_one_answer_without_threads() {
    let mut app = app(AnswerTiming::WhenReady);
    let walkers: Vec<Entity> = (0..20)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Walker::new(300.0),
                    Transform::from_translation(px(2 + i, 5).extend(1.0)),
                ))
                .id()
        })
        .collect();
    let mut ids = Vec::new();
    for frame in 0..200u32 {
        for (i, &walker) in walkers.iter().enumerate() {
            if (frame + i as u32).is_multiple_of(7) {
                ids.push(request(
                    &mut app,
                    walker,
                    px((frame * 13 + i as u32 * 5) % 64, (frame * 7) % 48),
                ));
            }
        }
        app.update();
    }
    for _ in 0..2000 {
        app.update();
        if walkers
            .iter()
            .all(|&w| app.world().get::<WalkPath>(w).is_none())
        {
            break;
        }
    }
    run(&mut app, 2);
    let log = app.world().resource::<Log>();
    for id in &ids {
        let answers = log.of(*id).iter().filter(|e| e.kind.is_answer()).count();
        assert_eq!(answers, 1, "{id}: {:?}", log.of(*id));
    }
    assert_eq!(app.world().resource::<PlannerStatus>().tasks_in_flight(), 0);
}
