//! The hover answer (`WalkHover`): traced from the player's warm field when it has
//! one, from a query on the pool when not; either way the same walk a click there
//! starts.
//!
//! Headless app of `tests/common` (no window: the tests write the hover point), the
//! usual 64 x 48 wall mask (a wall at x = 30..=33 down to y = 39), where pixel
//! (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{HoverSource, WarmFieldCache};
use common::{
    Log, Pace, deterministic, px, request, run, run_until, spawn_walker, wait_for, wall_room_app,
};

fn app(warm_fields: bool) -> (App, Entity) {
    app_with(WalkmaskPlugin {
        warm_fields,
        ..deterministic()
    })
}

/// The wall room with `plugin` and a player standing left of the wall.
fn app_with(plugin: WalkmaskPlugin) -> (App, Entity) {
    let (mut app, _) = wall_room_app(plugin);
    let player = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
    app.world_mut().entity_mut(player).insert(PlayerWalker);
    (app, player)
}

fn hover_at(app: &mut App, point: Option<Vec2>) {
    app.world_mut().resource_mut::<WalkHover>().point = point;
}

fn answer(app: &App) -> Option<bevy_walkmask::HoverAnswer> {
    app.world().resource::<WalkHover>().answer.clone()
}

/// The walk a request to `target` gets.
fn walk_to(app: &mut App, walker: Entity, target: Vec2) -> (Vec<Vec2>, bool) {
    let id = request(app, walker, target);
    run_until(app, 100, |w| !w.resource::<Log>().of(id).is_empty());
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, path, snapped) = ready.last().unwrap().clone();
    (path, snapped)
}

fn same_path(a: &[Vec2], b: &[Vec2]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.distance(*q) < 1e-3)
}

/// With a warm field, the answer is traced in the frame the point is set, and it is
/// the walk a click there starts; a blocked point snaps, and so does one outside the
/// mask; without a point there is no answer.
#[test]
fn a_warm_field_answers_the_hover_point_at_once_with_the_walk_a_click_gets() {
    let (mut app, player) = app(true);
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WarmFieldCache>().stats().fills == 1
    });
    let target = px(50, 20);
    hover_at(&mut app, Some(target));
    app.update();
    let hovered = answer(&app).expect("answered in the frame");
    assert_eq!(hovered.source, HoverSource::WarmField);
    assert_eq!(hovered.walker, player);
    assert!(hovered.reaches_point());
    let path = hovered.path.clone().unwrap();
    assert_eq!(*path.last().unwrap(), target);
    let length: f32 = path.windows(2).map(|w| w[0].distance(w[1])).sum();
    assert!((hovered.length - length).abs() < 1e-3);
    assert!(
        hovered.length > px(10, 20).distance(target),
        "round the wall"
    );

    let wall = px(31, 10);
    hover_at(&mut app, Some(wall));
    app.update();
    let blocked = answer(&app).unwrap();
    assert_eq!(blocked.source, HoverSource::WarmField);
    assert!(blocked.snapped && !blocked.reaches_point());
    assert_ne!(blocked.path.as_ref().unwrap().last(), Some(&wall));

    // Outside the mask of the only room, a click walks to the mask's edge: snapped.
    hover_at(&mut app, Some(Vec2::new(500.0, 0.0)));
    app.update();
    let outside = answer(&app).unwrap();
    assert!(outside.snapped && outside.path.is_some());
    hover_at(&mut app, None);
    app.update();
    assert_eq!(answer(&app), None);

    let (walked, snapped) = walk_to(&mut app, player, target);
    assert!(!snapped);
    assert!(same_path(&walked, &path), "{walked:?} vs {path:?}");
}

/// Without warm fields the answer comes from a query on the pool, a frame or more
/// later, and matches the walk a click gets too; the blocked point's answer matches
/// its snapped walk.
#[test]
fn without_warm_fields_a_query_answers_the_hover_point() {
    let (mut app, player) = app(false);
    run(&mut app, 2);
    for target in [px(50, 20), px(31, 10)] {
        hover_at(&mut app, Some(target));
        wait_for(&mut app, 100_000, |w| {
            w.resource::<WalkHover>()
                .answer
                .as_ref()
                .is_some_and(|a| a.point == target)
        });
        let hovered = answer(&app).unwrap();
        assert_eq!(hovered.source, HoverSource::Query);
        let (walked, snapped) = walk_to(&mut app, player, target);
        assert_eq!(hovered.snapped, snapped);
        let path = hovered.path.unwrap();
        assert!(same_path(&walked, &path), "{walked:?} vs {path:?}");
        // Back to where it stood, for the next point.
        app.world_mut().commands().entity(player).stop_walking();
        app.world_mut()
            .entity_mut(player)
            .insert(Transform::from_translation(px(10, 20).extend(1.0)));
        run(&mut app, 2);
    }
}

/// No player, no answer; the answer follows the first player; while it walks there
/// is no answer, and one comes back when it stands.
#[test]
fn the_answer_is_for_the_player() {
    let (mut app, player) = app(false);
    app.world_mut().entity_mut(player).remove::<PlayerWalker>();
    hover_at(&mut app, Some(px(12, 20)));
    run(&mut app, 5);
    assert_eq!(answer(&app), None);
    app.world_mut().entity_mut(player).insert(PlayerWalker);
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WalkHover>().answer.is_some()
    });
    assert_eq!(answer(&app).unwrap().walker, player);
    request(&mut app, player, px(50, 44));
    run(&mut app, 2);
    assert_eq!(
        *app.world().get::<WalkState>(player).unwrap(),
        WalkState::Walking
    );
    assert_eq!(answer(&app), None);
    run_until(&mut app, 1_000, |w| {
        *w.get::<WalkState>(player).unwrap() == WalkState::Arrived
    });
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WalkHover>().answer.is_some()
    });
}

/// A walk longer than `WalkTuning::hover_trace_pixels` is not traced in the frame the
/// pointer moves: once the pointer rests, it is traced from the warm field on the
/// pool, and answers with the same walk as a short trace does. Under both paces
/// (hover answers do not follow `AnswerTiming`; paced, the pool works between frames
/// as in a game).
#[test]
fn a_long_walk_is_traced_on_the_pool_once_the_pointer_rests() {
    for pace in Pace::BOTH {
        let (mut app, _) = app_with(WalkmaskPlugin {
            warm_fields: true,
            ..pace.plugin()
        });
        let mut clock = pace.clock();
        clock.until(&mut app, 100_000, |w| {
            w.resource::<WarmFieldCache>().stats().fills == 1
        });
        let target = px(50, 20);
        hover_at(&mut app, Some(target));
        clock.frame(&mut app);
        let in_frame = answer(&app).expect("a short walk is answered in the frame");
        hover_at(&mut app, None);
        clock.frame(&mut app);
        assert_eq!(answer(&app), None, "{pace:?}");

        // The walk round the wall is some 60 pixels.
        app.world_mut()
            .resource_mut::<WalkTuning>()
            .hover_trace_pixels = 10;
        hover_at(&mut app, Some(target));
        clock.frame(&mut app);
        assert_eq!(
            answer(&app),
            None,
            "{pace:?}: no trace of a long walk in the frame"
        );
        clock.until(&mut app, 100, |w| {
            w.resource::<WalkHover>().answer.is_some()
        });
        let pooled = answer(&app).unwrap();
        assert_eq!(pooled.source, HoverSource::WarmField, "{pace:?}");
        assert_eq!(pooled.point, target);
        assert!(same_path(
            pooled.path.as_deref().unwrap(),
            in_frame.path.as_deref().unwrap()
        ));

        // A pointer that sweeps on every frame starts no long trace.
        let before = app.world().resource::<WalkHover>().answer.clone();
        for x in 40..50 {
            hover_at(&mut app, Some(px(x, 30)));
            clock.frame(&mut app);
            assert_eq!(
                app.world().resource::<WalkHover>().answer,
                before,
                "{pace:?}"
            );
        }
    }
}

/// Over a hotspot that a click walks to, the answer is the walk to its walk-to point
/// (the walk the click starts), and names the hotspot; over a hotspot whose click
/// verb does not walk, the walk to the point itself. (Before, the answer was the
/// walk to the pointer even over a hotspot.)
#[cfg(feature = "picking")]
#[test]
fn over_a_hotspot_the_answer_is_the_walk_to_its_walk_to_point() {
    let (mut app, _) = app(false);
    app.insert_resource(ClickToWalk::new(ClickInput::Picking));
    let layer = common::add_mask(&mut app, 64, 48, |x, y| {
        u8::from((50..=55).contains(&x) && (15..=25).contains(&y))
    });
    let room = app
        .world_mut()
        .query_filtered::<Entity, With<WalkRoom>>()
        .single(app.world())
        .unwrap();
    app.world_mut()
        .entity_mut(room)
        .insert(WalkHotspots::new(layer));
    let statue = app
        .world_mut()
        .spawn((
            Hotspot::new(1, "statue").with_walk_to(common::pixel_centre(40, 40)),
            ChildOf(room),
        ))
        .id();
    let over = px(52, 20);
    hover_at(&mut app, Some(over));
    run_until(&mut app, 200, |w| {
        w.resource::<WalkHover>()
            .answer
            .as_ref()
            .is_some_and(|a| a.point == over)
    });
    let hovered = answer(&app).unwrap();
    assert_eq!(hovered.hotspot, Some(statue));
    assert_eq!(*hovered.path.unwrap().last().unwrap(), px(40, 40));
    // A look-only primary verb: the walk goes to the point.
    app.world_mut()
        .get_mut::<Hotspot>(statue)
        .unwrap()
        .verbs
        .push((Verb::INTERACT, WalkPolicy::FaceOnly));
    hover_at(&mut app, Some(px(53, 20)));
    run_until(&mut app, 200, |w| {
        w.resource::<WalkHover>()
            .answer
            .as_ref()
            .is_some_and(|a| a.point == px(53, 20))
    });
    let hovered = answer(&app).unwrap();
    assert_eq!(*hovered.path.unwrap().last().unwrap(), px(53, 20));
}
