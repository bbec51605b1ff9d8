//! Cutscene moves (`WalkRoute::Anywhere`): straight lines through given points that ignore
//! the mask, with the usual outcomes; and scripts that chain walk, face and notify
//! through those outcomes.
//!
//! Headless app of `tests/common`, the usual 64 x 48 wall mask (a wall at
//! x = 30..=33 down to y = 39), where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, deterministic, pixel_of, position, px, request, room_pixel, run, run_until,
    spawn_walker, wall_room_app,
};

fn app() -> (App, Entity) {
    wall_room_app(deterministic())
}

fn kinds(app: &App, id: RequestId) -> Vec<Kind> {
    app.world().resource::<Log>().kinds(id)
}

fn arrived(w: &mut World, id: RequestId) -> bool {
    w.resource::<Log>()
        .of(id)
        .iter()
        .any(|e| matches!(e.kind, Kind::Arrived(_)))
}

/// Straight through the wall: the walk is answered at once with exactly the straight
/// line, crosses the wall's pixels on the way, arrives exactly at the target, and
/// gets one answer and one end.
#[test]
fn an_anywhere_move_goes_straight_through_the_wall() {
    let (mut app, _) = app();
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
    let from = position(&app, walker);
    let target = px(50, 20);
    let id = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_anywhere([], target);
    app.world_mut().flush();
    assert_eq!(
        kinds(&app, id),
        vec![Kind::Ready {
            waypoints: vec![from, target],
            snapped: false
        }],
        "answered when the command is applied"
    );
    let mut crossed_wall = false;
    run_until(&mut app, 600, |w| {
        let at = w.get::<Transform>(walker).unwrap().translation.truncate();
        let (x, y) = pixel_of(at);
        crossed_wall |= room_pixel(x, y) == 0;
        arrived(w, id)
    });
    assert!(crossed_wall, "the walk went round the wall");
    assert_eq!(position(&app, walker), target);
    assert_eq!(
        kinds(&app, id),
        vec![
            Kind::Ready {
                waypoints: vec![from, target],
                snapped: false
            },
            Kind::Arrived(target)
        ]
    );
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Arrived
    );
    app.world().resource::<Log>().both();
}

/// Through given points in order, even outside every room: no mask is needed.
#[test]
fn an_anywhere_move_passes_its_points_in_order_even_outside_any_room() {
    let (mut app, _) = app();
    let walker = spawn_walker(&mut app, Walker::new(200.0), Vec2::new(500.0, 500.0));
    let via = vec![Vec2::new(520.0, 500.0), Vec2::new(520.0, 540.0)];
    let target = Vec2::new(480.0, 540.0);
    let id = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_anywhere(via.clone(), target);
    app.world_mut().flush();
    let route = [Vec2::new(500.0, 500.0), via[0], via[1], target];
    let mut frames = 0;
    run_until(&mut app, 600, |w| {
        let at = w.get::<Transform>(walker).unwrap().translation.truncate();
        let off = route
            .windows(2)
            .map(|s| Segment2d::new(s[0], s[1]).closest_point(at).distance(at))
            .fold(f32::INFINITY, f32::min);
        assert!(off < 1e-3, "{at} is off the route");
        frames += 1;
        arrived(w, id)
    });
    let ready = app.world().resource::<Log>().ready(walker);
    assert_eq!(ready[0].1, route.to_vec());
    assert_eq!(position(&app, walker), target);
    // 100 units at 200 a second in 16 ms frames: 32 frames of walking, after the
    // app's first update (whose time step is zero).
    assert_eq!(frames, 33);
}

/// An anywhere move supersedes a walk in progress (WalkStopped: Superseded) and a
/// request still being planned (PathCancelled); a closed area under it does not
/// re-plan it.
#[test]
fn an_anywhere_move_supersedes_like_any_request_and_is_never_replanned() {
    let (mut app, room) = app();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(10, 44));
    let first = request(&mut app, walker, px(50, 44));
    run(&mut app, 5);
    let target = px(50, 10);
    let second = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_anywhere([], target);
    app.world_mut().flush();
    assert!(
        matches!(
            kinds(&app, first)[..],
            [Kind::Ready { .. }, Kind::Stopped(StopReason::Superseded, _)]
        ),
        "{:?}",
        kinds(&app, first)
    );
    run(&mut app, 3);
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .disable_area(1);
    run_until(&mut app, 2_000, |w| arrived(w, second));
    let seen = kinds(&app, second);
    assert!(
        matches!(seen[..], [Kind::Ready { .. }, Kind::Arrived(_)]),
        "{seen:?}"
    );
    assert_eq!(position(&app, walker), target);

    // A request still waiting to be planned is cancelled by an anywhere move.
    let mut commands = app.world_mut().commands();
    let pending = commands.entity(walker).walk_to(px(10, 44));
    let third = commands.entity(walker).walk_anywhere([], px(40, 40));
    app.world_mut().flush();
    assert_eq!(kinds(&app, pending), vec![Kind::Cancelled]);
    assert!(matches!(kinds(&app, third)[..], [Kind::Ready { .. }]));
}

/// A non-finite point anywhere in the route is answered unreachable, and nothing
/// moves.
#[test]
fn a_non_finite_point_in_an_anywhere_move_is_unreachable() {
    let (mut app, _) = app();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(10, 20));
    let from = position(&app, walker);
    let id = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_anywhere([Vec2::new(f32::NAN, 0.0)], px(20, 20));
    app.world_mut().flush();
    run(&mut app, 10);
    assert_eq!(kinds(&app, id), vec![Kind::Unreachable]);
    assert_eq!(position(&app, walker), from);
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Unreachable
    );
}

/// The script's steps, as an observer sees them.
#[derive(Resource, Default)]
struct Script {
    steps: Vec<String>,
    second: Option<RequestId>,
}

/// A script: walk round the wall facing the window, and when that walk arrives,
/// glide through the wall (an anywhere move) facing the camera; each step starts from
/// the previous step's `Arrived`, which carries the request id it waits for.
#[test]
fn scripts_chain_walk_face_and_notify_through_outcomes() {
    let (mut app, _) = app();
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(150.0),
            Facing::eight(),
            Transform::from_translation(px(10, 20).extend(1.0)),
        ))
        .id();
    app.init_resource::<Script>();
    let first = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_to_facing(px(50, 20), FaceTarget::Direction(FacingDirection::Up));
    app.world_mut().flush();
    app.add_observer(
        move |ev: On<Arrived>,
              facings: Query<&Facing>,
              mut script: ResMut<Script>,
              mut commands: Commands| {
            let facing = facings.get(ev.entity).unwrap().direction;
            if ev.request == first {
                script
                    .steps
                    .push(format!("at the window facing {facing:?}"));
                let id = commands.entity(ev.entity).walk_with(px(10, 10), |request| {
                    request
                        .with_route(WalkRoute::Anywhere { via: vec![] })
                        .facing(FaceTarget::Direction(FacingDirection::Down))
                });
                script.second = Some(id);
            } else if Some(ev.request) == script.second {
                script
                    .steps
                    .push(format!("through the wall facing {facing:?}"));
            }
        },
    );
    run_until(&mut app, 2_000, |w| w.resource::<Script>().steps.len() == 2);
    assert_eq!(
        app.world().resource::<Script>().steps,
        vec![
            "at the window facing Up".to_string(),
            "through the wall facing Down".to_string()
        ]
    );
    assert_eq!(position(&app, walker), px(10, 10));
}
