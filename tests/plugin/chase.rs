//! Chasers (`WalkChase`): every chaser of a target traces one field from the target's
//! pixel, re-aimed only when the target enters a new pixel; they stop when it goes.
//!
//! Headless app of `tests/common`, the usual 64 x 48 wall mask (a wall at
//! x = 30..=33 down to y = 39), where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::WarmFieldCache;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, Pace, add_log, add_mask, deterministic, headless_app, path_stays_on, px, room_pixel,
    run, spawn_walker, wall_room_app,
};

fn app() -> App {
    wall_room_app(deterministic()).0
}

fn ready_count(app: &App) -> usize {
    app.world()
        .resource::<Log>()
        .observed
        .iter()
        .filter(|e| matches!(e.kind, Kind::Ready { .. }))
        .count()
}

/// Five chasers (fewer than a crowd) share one field per target pixel; a target that
/// stays on its pixel re-aims no one; every walk stays off the wall and ends at the
/// target.
#[test]
fn chasers_share_one_field_per_target_pixel() {
    let mut app = app();
    let prey = spawn_walker(&mut app, Walker::new(10.0), px(50, 10));
    let hunters: Vec<Entity> = (0..5)
        .map(|i| {
            let hunter = spawn_walker(&mut app, Walker::new(30.0), px(5 + i, 20));
            app.world_mut()
                .entity_mut(hunter)
                .insert(WalkChase::new(prey));
            hunter
        })
        .collect();
    run(&mut app, 2);
    let stats = app.world().resource::<WarmFieldCache>().stats();
    assert_eq!((stats.fills, stats.shared), (1, 5));
    assert_eq!(ready_count(&app), 5);
    let log = app.world().resource::<Log>();
    for &hunter in &hunters {
        let (target, path, _) = log.ready(hunter)[0].clone();
        assert_eq!(target, px(50, 10));
        assert_eq!(*path.last().unwrap(), px(50, 10));
        assert!(path_stays_on(&path, |x, y| room_pixel(x, y) == 1));
    }
    // The prey stays on its pixel: no one is re-aimed.
    run(&mut app, 10);
    assert_eq!(ready_count(&app), 5);
    // It steps onto the next pixel: one more field, five more walks.
    app.world_mut()
        .entity_mut(prey)
        .insert(Transform::from_translation(px(51, 10).extend(1.0)));
    run(&mut app, 2);
    let stats = app.world().resource::<WarmFieldCache>().stats();
    assert_eq!((stats.fills, stats.shared), (2, 10));
    assert_eq!(ready_count(&app), 10);
}

/// When the target is despawned, its chasers stop where they are.
#[test]
fn chasers_stop_when_their_target_goes() {
    let mut app = app();
    let prey = spawn_walker(&mut app, Walker::new(10.0), px(50, 10));
    let hunter = spawn_walker(&mut app, Walker::new(30.0), px(5, 20));
    app.world_mut()
        .entity_mut(hunter)
        .insert(WalkChase::new(prey));
    run(&mut app, 5);
    assert_eq!(
        *app.world().get::<WalkState>(hunter).unwrap(),
        WalkState::Walking
    );
    app.world_mut().despawn(prey);
    run(&mut app, 2);
    assert_eq!(
        *app.world().get::<WalkState>(hunter).unwrap(),
        WalkState::Idle
    );
    let log = app.world().resource::<Log>();
    assert!(log.has(hunter, |k| matches!(
        k,
        Kind::Stopped(StopReason::Stopped, _)
    )));
}

/// A 64 x 48 room whose gate (area 2, x = 40..=43, floor to ceiling) is closed.
fn gated_room(app: &mut App) -> Entity {
    let mask = add_mask(
        app,
        64,
        48,
        |x, _| if (40..=43).contains(&x) { 2 } else { 1 },
    );
    app.world_mut()
        .spawn(WalkRoom::new(mask).with_areas(WalkAreas::only(&[1])))
        .id()
}

/// Chasers whose walks are re-planned because their room changed (a gate opens) share
/// one field for the re-plan too, not a search each.
#[test]
fn chasers_replanned_by_a_room_change_share_one_field() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let room = gated_room(&mut app);
    let prey = spawn_walker(&mut app, Walker::new(10.0), px(55, 20));
    for i in 0..5 {
        let hunter = spawn_walker(&mut app, Walker::new(5.0), px(5 + i, 20));
        app.world_mut()
            .entity_mut(hunter)
            .insert(WalkChase::new(prey));
    }
    run(&mut app, 2);
    let before = app.world().resource::<WarmFieldCache>().stats();
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .enable_area(2);
    run(&mut app, 2);
    let after = app.world().resource::<WarmFieldCache>().stats();
    let replanned = app
        .world()
        .resource::<Log>()
        .observed
        .iter()
        .filter(|e| matches!(e.kind, Kind::Replanned { snapped: false, .. }))
        .count();
    assert_eq!(replanned, 5);
    assert_eq!(
        (after.fills - before.fills, after.shared - before.shared),
        (1, 5)
    );
}

/// Chasers that stand at the closed gate nearest their target (it stands beyond it)
/// walk on to it once the gate opens, though the target has not moved.
#[test]
fn chasers_stopped_by_a_closed_gate_go_on_when_it_opens() {
    for pace in Pace::BOTH {
        let mut clock = pace.clock();
        let mut app = headless_app(pace.plugin());
        add_log(&mut app);
        let room = gated_room(&mut app);
        let prey = spawn_walker(&mut app, Walker::new(10.0), px(55, 20));
        let hunters: Vec<Entity> = (0..3)
            .map(|i| {
                let hunter = spawn_walker(&mut app, Walker::new(60.0), px(30 + i, 18 + 2 * i));
                app.world_mut()
                    .entity_mut(hunter)
                    .insert(WalkChase::new(prey));
                hunter
            })
            .collect();
        // They walk to the gate and stand there.
        clock.frames(&mut app, 120);
        for &hunter in &hunters {
            assert!(app.world().get::<WalkPath>(hunter).is_none());
            assert!(common::position(&app, hunter).x < px(40, 0).x);
        }
        app.world_mut()
            .get_mut::<WalkRoom>(room)
            .unwrap()
            .enable_area(2);
        clock.frames(&mut app, 120);
        for &hunter in &hunters {
            let at = common::position(&app, hunter);
            assert!(
                at.distance(px(55, 20)) < 1.0,
                "{pace:?}: a chaser stands at {at}"
            );
        }
    }
}
