//! The walk lifecycle at its edges: answers that land late, re-plans, exactly one
//! answer per request, room transforms, several rooms, clicks through picking.
//!
//! Headless app of `tests/common` (frame-exact answers unless a test asks for a
//! latency with `AnswerTiming::AfterFrames`). Masks are made in code and added to
//! `Assets<WalkMask>`, so nothing waits for files.
//!
//! The usual mask is 64 x 48 with a wall at x = 30..=33 from the top down to y = 39
//! (the way round is the gap at y = 40..=47). With scale 1 and the room at the
//! origin, pixel (px, py) is world (px - 32, 24 - py).

use crate::common;
#[cfg(feature = "picking")]
use crate::picking;

#[cfg(feature = "picking")]
use bevy::picking::events::{Click, Pointer};
#[cfg(feature = "picking")]
use bevy::picking::pointer::PointerButton;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{AnswerTiming, PlannerStatus};
use common::{
    Kind, Log, add_log, add_mask, deterministic, headless_app, path_stays_on, pixel_of, position,
    px, request, room_pixel, run, run_until, spawn_walker,
};
#[cfg(feature = "picking")]
use picking::click;

fn app_with(plugin: WalkmaskPlugin) -> App {
    let mut app = headless_app(plugin);
    add_log(&mut app);
    app
}

/// The app with the wall mask in a room at the origin.
fn wall_room(plugin: WalkmaskPlugin) -> (App, Entity, Handle<WalkMask>) {
    let mut app = app_with(plugin);
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    let room = app.world_mut().spawn(WalkRoom::new(mask.clone())).id();
    (app, room, mask)
}

fn with_latency(frames: u32) -> WalkmaskPlugin {
    WalkmaskPlugin {
        answer_timing: AnswerTiming::AfterFrames(frames),
        ..deterministic()
    }
}

/// The rest of `walker`'s walk from where it stands, if it walks.
fn remaining(app: &App, walker: Entity) -> Option<Vec<Vec2>> {
    let path = app.world().get::<WalkPath>(walker)?;
    let mut rest = vec![position(app, walker)];
    rest.extend_from_slice(&path.waypoints[path.next.min(path.waypoints.len())..]);
    Some(rest)
}

fn wall_free(x: u32, y: u32) -> bool {
    room_pixel(x, y) == 1
}

/// A walker 2 frames from the end of its walk asks for a point straight ahead; the
/// answer lands 6 frames later, after the old walk ended. The walker must not jump
/// back to where it was when it asked (x never decreases).
#[test]
fn an_answer_landing_after_the_walk_ended_never_moves_the_walker_backwards() {
    let (mut app, _, _) = wall_room(with_latency(6));
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(36, 44));
    request(&mut app, walker, px(56, 44));
    run(&mut app, 1);
    // 6.4 units a frame: walk until less than two frames are left.
    run_until(&mut app, 100, |w| {
        let p = w.get::<Transform>(walker).unwrap().translation.x;
        px(56, 44).x - p < 12.0
    });
    request(&mut app, walker, px(62, 44));
    let mut last = position(&app, walker).x;
    for _ in 0..30 {
        app.update();
        let x = position(&app, walker).x;
        assert!(x >= last - 1e-4, "moved backwards from x = {last} to {x}");
        last = x;
    }
    assert!(position(&app, walker).distance(px(62, 44)) < 1e-3);
    let log = app.world().resource::<Log>();
    assert_eq!(log.ready(walker).len(), 2);
    assert_eq!(
        Log::count(log.both(), walker, |e| matches!(e.kind, Kind::Arrived(_))),
        2
    );
}

/// A walker walking right under the wall asks for a point up on the left; the answer
/// lands 4 frames later, when the walker has passed the wall's right face. The walk
/// it follows must never cut through the wall, in any frame.
#[test]
fn a_path_landing_mid_walk_joins_where_the_walker_is_without_cutting_a_corner() {
    for latency in [1, 2, 4, 8] {
        let (mut app, _, _) = wall_room(with_latency(latency));
        let walker = spawn_walker(&mut app, Walker::new(400.0), px(10, 44));
        request(&mut app, walker, px(60, 44));
        run_until(&mut app, 100, |w| {
            w.get::<Transform>(walker).unwrap().translation.x > px(25, 44).x
        });
        let target = px(10, 5);
        request(&mut app, walker, target);
        for frame in 0..200 {
            app.update();
            if let Some(rest) = remaining(&app, walker) {
                assert!(
                    path_stays_on(&rest, wall_free),
                    "latency {latency}, frame {frame}: the walk {rest:?} crosses the wall"
                );
            }
            let (x, y) = pixel_of(position(&app, walker));
            assert!(wall_free(x, y), "inside the wall at ({x}, {y})");
        }
        assert!(
            position(&app, walker).distance(target) < 1e-3,
            "latency {latency}: arrived"
        );
    }
}

/// A room of area 1 with a gate column of area 2 at x = 40..=43; a walker at pixel
/// (10, 20) walking to (55, 20) through the gate, which closes 5 frames into the walk.
/// Returns the app, the walker and its request.
fn gate_closes_mid_walk(plugin: WalkmaskPlugin) -> (App, Entity, RequestId) {
    let mut app = app_with(plugin);
    let mask = add_mask(
        &mut app,
        64,
        48,
        |x, _| if (40..=43).contains(&x) { 2 } else { 1 },
    );
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
    let id = request(&mut app, walker, px(55, 20));
    run(&mut app, 5);
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .disable_area(2);
    (app, walker, id)
}

/// Closing an area mid-walk re-plans: the request keeps its one answer, the re-plan is
/// a `PathReplanned`, and the walk ends once.
#[test]
fn a_replan_is_not_a_second_answer() {
    let (mut app, _walker, id) = gate_closes_mid_walk(deterministic());
    run_until(&mut app, 600, |w| {
        w.resource::<Log>().of(id).iter().any(|e| e.kind.is_end())
    });
    let log = app.world().resource::<Log>();
    let kinds: Vec<&Kind> = log.of(id).iter().map(|e| &e.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| k.is_answer()).count(),
        1,
        "{kinds:?}"
    );
    assert!(matches!(kinds[0], Kind::Ready { snapped: false, .. }));
    assert!(matches!(kinds[1], Kind::Replanned { snapped: true, .. }));
    assert!(matches!(kinds[2], Kind::Arrived(_)));
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    log.both();
}

/// With snapping off, closing the only way re-plans into nothing: the walk ends with
/// `WalkStopped { reason: Blocked }`, not a `PathUnreachable` for an answered request.
#[test]
fn a_replan_that_finds_no_way_stops_the_walk_as_blocked() {
    let (mut app, walker, id) = gate_closes_mid_walk(WalkmaskPlugin {
        snap_to_reachable: false,
        ..deterministic()
    });
    run(&mut app, 3);
    let log = app.world().resource::<Log>();
    let kinds: Vec<&Kind> = log.of(id).iter().map(|e| &e.kind).collect();
    assert!(
        matches!(
            kinds[..],
            [Kind::Ready { .. }, Kind::Stopped(StopReason::Blocked, _)]
        ),
        "{kinds:?}"
    );
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Unreachable
    );
    let stood = position(&app, walker);
    run(&mut app, 10);
    assert_eq!(position(&app, walker), stood, "a blocked walker stands");
}

/// 100 walkers, 1,000 requests in one frame, then requests every frame for 600 frames
/// with area toggles, mask replacements, stops and re-requests in between: every id
/// gets exactly one answer, every walk that started ends at most once (exactly once
/// by the end), and no task is left behind.
#[test]
fn a_storm_of_requests_gets_exactly_one_answer_each() {
    for timing in [AnswerTiming::AfterFrames(0), AnswerTiming::AfterFrames(2)] {
        let mut app = app_with(WalkmaskPlugin {
            answer_timing: timing,
            ..deterministic()
        });
        let gate = |x: u32, y: u32| match (x, y) {
            (30..=33, 0..=39) => 0,
            (40..=43, _) => 2,
            _ => 1,
        };
        let mask = add_mask(&mut app, 64, 48, gate);
        let room = app.world_mut().spawn(WalkRoom::new(mask.clone())).id();
        let walkers: Vec<Entity> = (0..100)
            .map(|i| {
                spawn_walker(
                    &mut app,
                    Walker::new(300.0),
                    px(1 + i % 28, 1 + i / 28 * 10),
                )
            })
            .collect();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u32| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as u32
        };
        let mut ids = Vec::new();
        for i in 0..1000 {
            let walker = walkers[i % walkers.len()];
            ids.push(request(&mut app, walker, px(next(64), next(48))));
        }
        for frame in 0..600 {
            for _ in 0..next(6) {
                let walker = walkers[next(100) as usize];
                let target = if next(50) == 0 {
                    Vec2::new(f32::NAN, 0.0)
                } else {
                    px(next(64), next(48))
                };
                ids.push(request(&mut app, walker, target));
            }
            if next(20) == 0 {
                let walker = walkers[next(100) as usize];
                app.world_mut().commands().entity(walker).stop_walking();
            }
            if next(15) == 0 {
                let walker = walkers[next(100) as usize];
                ids.push(
                    app.world_mut()
                        .commands()
                        .entity(walker)
                        .walk_to(px(next(64), 44)),
                );
            }
            if frame % 37 == 0 {
                let open = next(2) == 0;
                app.world_mut()
                    .get_mut::<WalkRoom>(room)
                    .unwrap()
                    .set_area(2, open);
            }
            if frame % 97 == 50 {
                let shift = next(3);
                let new = bevy_walkmask::walkmask::WalkMask::from_fn(64, 48, |x, y| {
                    gate(x, (y + shift) % 48)
                })
                .unwrap();
                *app.world_mut()
                    .resource_mut::<Assets<WalkMask>>()
                    .get_mut(&mask)
                    .unwrap() = WalkMask::new(new);
            }
            app.world_mut().flush();
            app.update();
        }
        // Let everything finish.
        run_until(&mut app, 2000, |w| {
            w.resource::<PlannerStatus>().tasks_in_flight() == 0
                && walkers.iter().all(|&e| w.get::<WalkPath>(e).is_none())
        });
        run(&mut app, 3);
        let log = app.world().resource::<Log>();
        let entries = log.both();
        let mut answers = std::collections::HashMap::new();
        let mut ends = std::collections::HashMap::new();
        let mut readies = std::collections::HashSet::new();
        for e in entries {
            if e.kind.is_answer() {
                *answers.entry(e.request).or_insert(0) += 1;
            }
            if e.kind.is_end() {
                *ends.entry(e.request).or_insert(0) += 1;
            }
            if matches!(e.kind, Kind::Ready { .. }) {
                readies.insert(e.request);
            }
        }
        assert!(ids.len() > 2000, "{}", ids.len());
        for id in &ids {
            assert_eq!(
                answers.get(id),
                Some(&1),
                "{timing:?}: {id} answers: {:?}",
                log.of(*id)
            );
        }
        assert_eq!(answers.len(), ids.len(), "no answers for unknown ids");
        for id in &readies {
            assert_eq!(
                ends.get(id),
                Some(&1),
                "{timing:?}: {id} ends: {:?}",
                log.of(*id)
            );
        }
        assert!(ends.keys().all(|id| readies.contains(id)));
        let status = app.world().resource::<PlannerStatus>();
        assert_eq!(status.tasks_in_flight(), 0);
    }
}

/// Writes that change nothing (an area set to the value it has, an area the mask does
/// not contain) must not restart plans or re-plan walks; real changes (the walker's
/// area limit, the walker's room, the room's placement) must.
#[test]
fn replans_follow_real_changes_only() {
    let (mut app, room, _) = wall_room(with_latency(3));
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 10));
    let id = request(&mut app, walker, px(50, 10));
    // Touch the room every frame while the plan runs and while walking.
    for _ in 0..40 {
        let mut r = app.world_mut().get_mut::<WalkRoom>(room).unwrap();
        r.set_area(1, true);
        r.disable_area(9); // absent from the mask
        app.update();
    }
    let log = app.world().resource::<Log>();
    assert!(
        matches!(log.of(id)[0].kind, Kind::Ready { .. }),
        "the plan was not starved"
    );
    assert!(
        log.replanned(walker).is_empty(),
        "{:?}",
        log.replanned(walker)
    );

    // The walker's own area limit changes: re-plan.
    app.world_mut().get_mut::<Walker>(walker).unwrap().areas = Some(WalkAreas::only(&[1, 3]));
    run(&mut app, 5);
    assert_eq!(
        app.world().resource::<Log>().replanned(walker).len(),
        0,
        "same usable areas"
    );
    app.world_mut().get_mut::<Walker>(walker).unwrap().areas = Some(WalkAreas::only(&[3]));
    run(&mut app, 5);
    assert!(
        app.world().resource::<Log>().has(walker, |k| matches!(
            k,
            Kind::Stopped(StopReason::Blocked, _)
        )),
        "no area left: the re-plan finds nothing walkable"
    );

    // The room moves: the walk moves with it (its points keep their room pixels),
    // and nothing is re-planned while the walker still sees its way on.
    app.world_mut().get_mut::<Walker>(walker).unwrap().areas = None;
    let walker2 = spawn_walker(&mut app, Walker::new(50.0), px(10, 44));
    let target = px(50, 44);
    request(&mut app, walker2, target);
    run(&mut app, 6);
    app.world_mut()
        .get_mut::<Transform>(room)
        .unwrap()
        .translation
        .y += 0.25;
    run(&mut app, 6);
    let replans = app.world().resource::<Log>().replanned(walker2);
    assert_eq!(replans.len(), 0, "the room moved: {replans:?}");
    let moved = target + Vec2::new(0.0, 0.25);
    let path = app.world().get::<WalkPath>(walker2).unwrap();
    assert!(path.target.distance(moved) < 1e-3, "{:?}", path.target);
    run(&mut app, 80);
    let end = position(&app, walker2);
    assert!(end.distance(moved) < 1e-3, "the same room point: {end}");
}

/// A rotated, scaled room: paths are planned in the room's own space, so every point
/// of the walk maps back to a walkable mask pixel, and the walker arrives at the
/// clicked world point. A walker parented to the room walks in world space.
#[test]
fn rooms_with_rotation_and_scale_and_walkers_parented_to_them() {
    let mut app = app_with(deterministic());
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    let room_transform = Transform::from_xyz(100.0, -50.0, 0.0)
        .with_rotation(Quat::from_rotation_z(0.6))
        .with_scale(Vec3::new(2.0, 1.5, 1.0));
    let room = app
        .world_mut()
        .spawn((WalkRoom::new(mask), room_transform))
        .id();
    run(&mut app, 1);
    let to_world = |p: Vec2| room_transform.transform_point(p.extend(0.0)).truncate();
    let to_local = |w: Vec2| {
        room_transform
            .compute_affine()
            .inverse()
            .transform_point3(w.extend(0.0))
            .truncate()
    };
    // A top-level walker, and a walker that is a child of the room (local transform).
    let free = spawn_walker(&mut app, Walker::new(300.0), to_world(px(10, 10)));
    let child = app
        .world_mut()
        .spawn((
            Walker::new(300.0),
            Transform::from_translation(px(12, 10).extend(1.0)),
            ChildOf(room),
        ))
        .id();
    run(&mut app, 1);
    let target = to_world(px(50, 10));
    request(&mut app, free, target);
    request(&mut app, child, target);
    run_until(&mut app, 600, |w| {
        let log = w.resource::<Log>();
        log.has(free, |k| matches!(k, Kind::Arrived(_)))
            && log.has(child, |k| matches!(k, Kind::Arrived(_)))
    });
    let log = app.world().resource::<Log>();
    for walker in [free, child] {
        let (_, waypoints, snapped) = log.ready(walker)[0].clone();
        assert!(!snapped);
        assert!(waypoints.len() > 2, "goes round the wall");
        let local: Vec<Vec2> = waypoints.iter().map(|&w| to_local(w)).collect();
        assert!(path_stays_on(&local, wall_free), "{walker}: {local:?}");
        let world = app
            .world()
            .get::<GlobalTransform>(walker)
            .unwrap()
            .translation()
            .truncate();
        assert!(
            world.distance(target) < 1e-2,
            "{walker} at {world}, target {target}"
        );
    }
    // The child walked in world space: its local transform is the target in room space.
    let local = app
        .world()
        .get::<Transform>(child)
        .unwrap()
        .translation
        .truncate();
    assert!(local.distance(px(50, 10)) < 1e-2, "child local {local}");
}

/// Two rooms side by side and walkers that name none: each is in the room under it,
/// plans in it, and is warmed up in it.
#[test]
fn walkers_in_two_rooms_use_the_room_under_them() {
    let mut app = app_with(WalkmaskPlugin {
        warm_fields: true,
        ..deterministic()
    });
    let left = add_mask(&mut app, 64, 48, room_pixel);
    let right = add_mask(&mut app, 64, 48, |_, _| 1);
    app.world_mut()
        .spawn((WalkRoom::new(left), Transform::from_xyz(-100.0, 0.0, 0.0)));
    app.world_mut()
        .spawn((WalkRoom::new(right), Transform::from_xyz(100.0, 0.0, 0.0)));
    let in_left = spawn_walker(
        &mut app,
        Walker::new(400.0),
        Vec2::new(-100.0, 0.0) + px(10, 10),
    );
    let in_right = spawn_walker(
        &mut app,
        Walker::new(400.0),
        Vec2::new(100.0, 0.0) + px(10, 10),
    );
    // Warm fields are for players and walkers that ask for them.
    for walker in [in_left, in_right] {
        app.world_mut()
            .entity_mut(walker)
            .insert(bevy_walkmask::KeepWarm);
    }
    request(&mut app, in_left, Vec2::new(-100.0, 0.0) + px(50, 10));
    request(&mut app, in_right, Vec2::new(100.0, 0.0) + px(50, 10));
    run_until(&mut app, 300, |w| {
        let log = w.resource::<Log>();
        log.has(in_left, |k| matches!(k, Kind::Arrived(_)))
            && log.has(in_right, |k| matches!(k, Kind::Arrived(_)))
    });
    let log = app.world().resource::<Log>();
    assert!(
        log.ready(in_left)[0].1.len() > 2,
        "round the left room's wall"
    );
    assert_eq!(
        log.ready(in_right)[0].1.len(),
        2,
        "straight across the open room"
    );
    // Both get warmed up where they stand.
    common::wait_for(&mut app, common::LOAD_UPDATES, |w| {
        w.resource::<bevy_walkmask::WarmFieldCache>().stats().fills >= 2
    });
}

/// Picking clicks: a primary click on a room (or bubbling up from its child) walks the
/// players in that room there; other rooms' players, other buttons, clicks on other
/// entities and clicks a hotspot keeps to itself do nothing.
#[cfg(feature = "picking")]
#[test]
fn picking_clicks_walk_the_players_in_the_clicked_room() {
    let mut app = app_with(deterministic());
    let left = add_mask(&mut app, 64, 48, room_pixel);
    let right = add_mask(&mut app, 64, 48, |_, _| 1);
    let left_room = app
        .world_mut()
        .spawn((WalkRoom::new(left), Transform::from_xyz(-100.0, 0.0, 0.0)))
        .id();
    let right_room = app
        .world_mut()
        .spawn((WalkRoom::new(right), Transform::from_xyz(100.0, 0.0, 0.0)))
        .id();
    let left_origin = Vec2::new(-100.0, 0.0);
    let player_left = app
        .world_mut()
        .spawn((
            Walker::new(400.0),
            PlayerWalker,
            Transform::from_translation((left_origin + px(10, 10)).extend(1.0)),
        ))
        .id();
    let player_right = app
        .world_mut()
        .spawn((
            Walker::new(400.0),
            PlayerWalker,
            Transform::from_translation((Vec2::new(100.0, 0.0) + px(10, 10)).extend(1.0)),
        ))
        .id();
    let npc = spawn_walker(&mut app, Walker::new(400.0), left_origin + px(12, 12));
    // A hotspot child of the left room that keeps its clicks, and a plain child.
    let hotspot = app
        .world_mut()
        .spawn((Transform::default(), ChildOf(left_room)))
        .observe(|mut click: On<Pointer<Click>>| click.propagate(false))
        .id();
    let decoration = app
        .world_mut()
        .spawn((Transform::default(), ChildOf(left_room)))
        .id();
    let stranger = app.world_mut().spawn(Transform::default()).id();
    run(&mut app, 1);

    click(
        &mut app,
        hotspot,
        left_origin + px(50, 10),
        PointerButton::Primary,
    );
    click(
        &mut app,
        left_room,
        left_origin + px(50, 10),
        PointerButton::Secondary,
    );
    click(
        &mut app,
        stranger,
        left_origin + px(50, 10),
        PointerButton::Primary,
    );
    run(&mut app, 3);
    assert!(app.world().resource::<Log>().observed.is_empty());

    let target = left_origin + px(50, 10);
    click(&mut app, decoration, target, PointerButton::Primary);
    run_until(&mut app, 300, |w| {
        w.resource::<Log>()
            .has(player_left, |k| matches!(k, Kind::Arrived(_)))
    });
    let log = app.world().resource::<Log>();
    assert_eq!(log.ready(player_left).len(), 1);
    assert!(log.ready(player_left)[0].1.len() > 2, "round the wall");
    assert!(position(&app, player_left).distance(target) < 1e-3);
    assert!(
        !log.has(player_right, |_| true),
        "the other room's player stays"
    );
    assert!(!log.has(npc, |_| true), "not a player");
    // With click to walk off, nothing happens.
    app.world_mut().resource_mut::<ClickToWalk>().enabled = false;
    click(
        &mut app,
        right_room,
        Vec2::new(100.0, 0.0),
        PointerButton::Primary,
    );
    run(&mut app, 3);
    assert!(!app.world().resource::<Log>().has(player_right, |_| true));
}

/// A picking click walks to where the button came up. Bevy gives a click the hit of
/// the frame before the release, so a pointer that moved in that frame (a tap, a
/// click at the end of a quick move) walked to where the pointer was a frame earlier.
/// A release off the room keeps the hit.
#[cfg(feature = "picking")]
#[test]
fn a_picking_click_walks_to_where_the_button_came_up() {
    let mut app = app_with(deterministic());
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    let player = app
        .world_mut()
        .spawn((
            Walker::new(400.0),
            PlayerWalker,
            Transform::from_translation(px(10, 10).extend(1.0)),
        ))
        .id();
    let window = common::window_and_camera(&mut app);
    let camera = app
        .world_mut()
        .query_filtered::<Entity, With<Camera2d>>()
        .single(app.world())
        .unwrap();
    run(&mut app, 1);

    let (hit, released) = (px(20, 20), px(50, 30));
    picking::click_released(&mut app, room, hit, camera, window, released);
    run(&mut app, 2);
    let ready = app.world().resource::<Log>().ready(player);
    assert_eq!(ready.len(), 1);
    assert!(ready[0].0.distance(released) < 1e-3, "{:?}", ready[0].0);

    // Let go off the room (the window shows more than the room): the hit it had.
    picking::click_released(&mut app, room, hit, camera, window, Vec2::new(300.0, 0.0));
    run(&mut app, 2);
    let ready = app.world().resource::<Log>().ready(player);
    assert_eq!(ready.len(), 2);
    assert_eq!(ready[1].0, hit);
}

/// Revisions come from a counter: a mask made after another is dropped never takes
/// its revision (a buffer address could be reused).
#[test]
fn mask_revisions_are_never_reused() {
    let mut seen = std::collections::HashSet::new();
    for i in 0..2000u32 {
        let mask =
            bevy_walkmask::walkmask::WalkMask::from_fn(8, 8, |x, _| u8::from(x != i % 8)).unwrap();
        let asset = WalkMask::new(mask);
        assert!(
            seen.insert(asset.revision()),
            "revision {} repeated",
            asset.revision()
        );
    }
}

/// A room spawned with a transform in the same frame as a request (before Bevy has
/// propagated its `GlobalTransform`) is already where its transform puts it: the walk
/// starts where the walker stands and goes round the wall, instead of the walker
/// being moved onto a mask placed at the origin.
#[test]
fn a_room_spawned_in_the_frame_of_a_request_is_where_its_transform_says() {
    let mut app = app_with(deterministic());
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    // Past start-up, whose own propagation would place the room.
    run(&mut app, 1);
    let origin = Vec2::new(500.0, 300.0);
    app.world_mut().spawn((
        WalkRoom::new(mask),
        Transform::from_translation(origin.extend(0.0)).with_scale(Vec3::splat(2.0)),
    ));
    let at = origin + px(10, 20) * 2.0;
    let walker = spawn_walker(&mut app, Walker::new(50.0), at);
    let target = origin + px(50, 20) * 2.0;
    request(&mut app, walker, target);
    app.update();
    let ready = app.world().resource::<Log>().ready(walker);
    assert_eq!(ready.len(), 1);
    let path = &ready[0].1;
    assert_eq!(path[0], at, "the walk starts where the walker stands");
    assert_eq!(*path.last().unwrap(), target);
    let local: Vec<Vec2> = path.iter().map(|&p| (p - origin) / 2.0).collect();
    assert!(path_stays_on(&local, wall_free));
    assert!(position(&app, walker).distance(at) < 2.0);
}
