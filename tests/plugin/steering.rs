//! Direct walking (`WalkInput`): the walker moves in the pushed direction, slides
//! along walls, never crosses a blocked pixel, and takes over from a walk.
//!
//! Headless app of `tests/common`, the usual 64 x 48 wall mask (a wall at
//! x = 30..=33 down to y = 39), where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, deterministic, path_stays_on, position, px, request, room_pixel, run, run_until,
    spawn_walker, wall_room_app,
};

fn app() -> App {
    wall_room_app(deterministic()).0
}

fn steer(app: &mut App, walker: Entity, direction: Vec2) {
    app.world_mut()
        .entity_mut(walker)
        .insert(WalkInput(direction));
}

/// Runs `frames` updates and returns the walker's position after each.
fn track(app: &mut App, walker: Entity, frames: usize) -> Vec<Vec2> {
    (0..frames)
        .map(|_| {
            app.update();
            position(app, walker)
        })
        .collect()
}

/// Pushed up and right at the wall, the walker walks to it, then slides up along it
/// to the top of the room, never crossing a wall pixel; pushed head-on it stops.
#[test]
fn a_push_into_a_wall_slides_along_it_and_never_crosses_it() {
    let mut app = app();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(24, 30));
    let start = position(&app, walker);
    steer(&mut app, walker, Vec2::new(1.0, 1.0).normalize());
    let mut trail = vec![start];
    trail.extend(track(&mut app, walker, 120));
    assert!(path_stays_on(&trail, |x, y| room_pixel(x, y) == 1));
    let end = *trail.last().unwrap();
    // The wall's left side is world x = -2; the top of the room is y = 24.
    assert!(end.x <= -2.0 && end.x > -2.1, "{end}");
    assert!(end.y > 23.0, "slid only to {end}");
    assert_eq!(
        app.world().get::<Facing>(walker).unwrap().direction,
        FacingDirection::Up
    );
    // In the corner it can go no further: it stands (no walk loop on the spot).
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Idle
    );
    assert_eq!(
        app.world().get::<WalkHeading>(walker).unwrap().0,
        Vec2::ZERO
    );

    steer(&mut app, walker, Vec2::X);
    let head_on = track(&mut app, walker, 20);
    assert!(
        head_on.windows(2).all(|w| (w[0] - w[1]).length() < 1e-3),
        "{head_on:?}"
    );
    steer(&mut app, walker, Vec2::ZERO);
    run(&mut app, 1);
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Idle
    );
    assert_eq!(
        app.world().get::<WalkHeading>(walker).unwrap().0,
        Vec2::ZERO
    );
}

/// At full push a steered walker moves at its speed; a push longer than 1 counts as 1.
/// (It starts once its grid is ready, built on the task pool.)
#[test]
fn a_steered_walker_moves_at_its_speed() {
    let mut app = app();
    let walker = spawn_walker(&mut app, Walker::new(62.5), px(5, 44));
    let start = position(&app, walker);
    steer(&mut app, walker, Vec2::new(5.0, 0.0));
    common::wait_for(&mut app, 100_000, |w| {
        w.get::<Transform>(walker).unwrap().translation.truncate() != start
    });
    let before = position(&app, walker);
    run(&mut app, 10);
    let moved = position(&app, walker) - before;
    assert!((moved - Vec2::new(10.0, 0.0)).length() < 1e-3, "{moved}");
}

/// The walk of request `id` was answered and then ended by steering.
fn assert_superseded(app: &App, walker: Entity, id: RequestId) {
    let kinds = app.world().resource::<Log>().kinds(id);
    assert!(
        matches!(
            kinds[..],
            [Kind::Ready { .. }, Kind::Stopped(StopReason::Superseded, _)]
        ),
        "{kinds:?}"
    );
    assert!(app.world().get::<WalkPath>(walker).is_none());
}

/// Steering takes over a walk in progress (WalkStopped: Superseded), also one
/// answered in the frame it starts.
#[test]
fn steering_takes_over_from_a_walk() {
    let mut app = app();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(10, 44));
    let walk = request(&mut app, walker, px(50, 44));
    run(&mut app, 5);
    steer(&mut app, walker, Vec2::Y);
    run(&mut app, 1);
    assert_superseded(&app, walker, walk);
    let waiting = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_to(px(50, 44));
    app.world_mut().flush();
    run_until(&mut app, 10, |w| {
        !w.resource::<Log>().of(waiting).is_empty()
    });
    run(&mut app, 1);
    assert_superseded(&app, walker, waiting);
}

/// A solid obstacle in the way: the steered walker keeps out of its footprint (slides
/// round it) and keeps walking; one that covers the walker does not hold it.
#[test]
fn a_steered_walker_slides_round_solid_obstacles_and_out_of_one_covering_it() {
    let mut app = app();
    // Just below the walker's line: it meets the guard above its centre and slides
    // up round it.
    let guard_at = px(16, 30) - Vec2::new(0.0, 2.0);
    app.world_mut().spawn((
        WalkObstacle::circle(4.0),
        Transform::from_translation(guard_at.extend(0.0)),
    ));
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 30));
    steer(&mut app, walker, Vec2::X);
    let trail = track(&mut app, walker, 60);
    let nearest = trail
        .iter()
        .map(|p| p.distance(guard_at))
        .fold(f32::INFINITY, f32::min);
    assert!(nearest >= 4.0, "came within {nearest} of the guard");
    let end = *trail.last().unwrap();
    assert!(end.x > guard_at.x + 4.0, "stuck behind the guard at {end}");
    assert!(path_stays_on(&trail, |x, y| room_pixel(x, y) == 1));

    // Now the guard stands on the walker: it walks out.
    let covered = px(40, 20);
    app.world_mut().spawn((
        WalkObstacle::circle(4.0),
        Transform::from_translation(covered.extend(0.0)),
    ));
    let trapped = spawn_walker(&mut app, Walker::new(60.0), covered);
    steer(&mut app, trapped, Vec2::Y);
    run(&mut app, 30);
    assert!(position(&app, trapped).distance(covered) > 5.0);
}
