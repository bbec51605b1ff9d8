//! Headless integration tests of the plugin: MinimalPlugins + AssetPlugin (rooted at
//! `tests/assets`) + InputPlugin + TransformPlugin + WalkmaskPlugin, fixed 16 ms
//! frames, bounded update loops (helpers shared with the `warm` tests live in
//! `tests/common`).
//!
//! The test masks are written by [`write_masks`] into `tests/assets/generated/`
//! (ignored by git) when the tests start:
//!
//! * `room.walk.png` (luma rule): 64 x 48, open floor with a wall at x = 30..=33
//!   from the top down to y = 39; the way round is the gap at y = 40..=47.
//! * `gate.walk.png` + `.meta` (indexed rule): area 1 at x < 40, a gate column of
//!   area 2 at x = 40..=43, area 1 again at x >= 44; area 3 at x < 40, y >= 40.
//! * `gate_plain.walk.png`: the same pixels without a `.meta` file.
//! * `open.walk.png` (luma rule): 64 x 48, all walkable.
//! * `corrupt.walk.png`: not an image.
//!
//! With scale 1 and the room at the origin, pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use std::sync::Once;

use bevy::asset::LoadState;
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{AnswerTiming, NavGridCache, PlannerStatus, walkmask};
use common::{
    Kind, LOAD_UPDATES, Log, MASK_SIZE, add_log, add_mask, asset_file, create_generated_dir,
    deterministic, headless_app, load_mask, path_stays_on, pixel_of, position, px, request,
    room_pixel, run, run_until, spawn_walker, wait_for, wait_loaded, write_grey_png,
    write_indexed_meta,
};

// ---------------------------------------------------------------- test masks

/// Area id of the gate mask's pixel.
fn gate_pixel(x: u32, y: u32) -> u8 {
    match x {
        40..=43 => 2,
        0..=39 if y >= 40 => 3,
        _ => 1,
    }
}

/// Writes the test masks once per test run.
fn write_masks() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        create_generated_dir();
        write_grey_png("generated/room.walk.png", MASK_SIZE, |x, y| {
            room_pixel(x, y) * 255
        });
        write_grey_png("generated/open.walk.png", MASK_SIZE, |_, _| 255);
        write_grey_png("generated/gate.walk.png", MASK_SIZE, gate_pixel);
        write_grey_png("generated/gate_plain.walk.png", MASK_SIZE, gate_pixel);
        write_indexed_meta("generated/gate.walk.png");
        std::fs::write(
            asset_file("generated/corrupt.walk.png"),
            b"\x89PNG\r\n\x1a\nthis is not really a png file",
        )
        .unwrap();
    });
}

// ---------------------------------------------------------------- app

fn app_with(plugin: WalkmaskPlugin) -> App {
    write_masks();
    let mut app = headless_app(plugin);
    #[cfg(feature = "debug_overlay")]
    app.add_plugins(WalkmaskDebugPlugin); // no gizmos, no images here: must be harmless
    add_log(&mut app);
    app
}

fn test_app() -> App {
    app_with(deterministic())
}

fn spawn_room(app: &mut App, room: WalkRoom) -> Entity {
    app.world_mut().spawn(room).id()
}

/// The default test app with the mask at `path` loaded into a room at the origin;
/// returns the app and the room.
fn room_app(path: &str) -> (App, Entity) {
    let mut app = test_app();
    let mask = load_mask(&mut app, path);
    let room = spawn_room(&mut app, WalkRoom::new(mask));
    (app, room)
}

fn state(app: &App, entity: Entity) -> WalkState {
    *app.world().get::<WalkState>(entity).unwrap()
}

fn arrived(entity: Entity) -> impl FnMut(&mut World) -> bool {
    move |w| {
        w.resource::<Log>()
            .has(entity, |k| matches!(k, Kind::Arrived(_)))
    }
}

fn unreachable(entity: Entity) -> impl FnMut(&mut World) -> bool {
    move |w| w.resource::<Log>().has(entity, |k| *k == Kind::Unreachable)
}

fn walking(entity: Entity) -> impl FnMut(&mut World) -> bool {
    move |w| w.get::<WalkState>(entity) == Some(&WalkState::Walking)
}

/// The open room with a walker of `speed` at pixel (5, 24) that has started walking
/// to pixel (60, 24) and taken three more steps; returns the app and the walker.
fn walking_across_the_open_room(speed: f32) -> (App, Entity) {
    let (mut app, _) = room_app("generated/open.walk.png");
    let walker = spawn_walker(&mut app, Walker::new(speed), px(5, 24));
    request(&mut app, walker, px(60, 24));
    run_until(&mut app, 100, walking(walker));
    run(&mut app, 3);
    (app, walker)
}

// ---------------------------------------------------------------- tests

#[test]
fn mask_asset_loads_with_default_meta_and_builder_settings() {
    let mut app = test_app();
    let room = load_mask(&mut app, "generated/room.walk.png");
    let gate_meta = load_mask(&mut app, "generated/gate.walk.png");
    let gate_builder: Handle<WalkMask> = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut WalkMaskLoaderSettings| s.rule = walkmask::DecodeRule::Indexed)
        .load("generated/gate_plain.walk.png");
    wait_loaded(&mut app, &gate_builder);

    let masks = app.world().resource::<Assets<WalkMask>>();
    let room = masks.get(&room).unwrap();
    assert_eq!(room.size(), UVec2::new(64, 48));
    for (x, y) in [(0, 0), (31, 10), (31, 45), (63, 47)] {
        assert_eq!(
            room.area_at(x, y),
            Some(room_pixel(x, y)),
            "room pixel {x},{y}"
        );
    }
    for gate in [
        masks.get(&gate_meta).unwrap(),
        masks.get(&gate_builder).unwrap(),
    ] {
        for (x, y) in [(10, 10), (41, 10), (50, 45), (10, 45)] {
            assert_eq!(
                gate.area_at(x, y),
                Some(gate_pixel(x, y)),
                "gate pixel {x},{y}"
            );
        }
    }
}

#[test]
fn without_picking_a_left_click_walks_the_player_around_the_wall_to_the_clicked_point() {
    let mut app = app_with(WalkmaskPlugin {
        click_input: ClickInput::Cursor,
        ..deterministic()
    });
    let mask = load_mask(&mut app, "generated/room.walk.png");
    spawn_room(&mut app, WalkRoom::new(mask));
    let start = px(12, 14);
    let player = app
        .world_mut()
        .spawn((
            Walker::new(200.0),
            PlayerWalker,
            Transform::from_translation(start.extend(1.0)),
        ))
        .id();
    // A walker without `PlayerWalker` must not follow clicks.
    let npc = spawn_walker(&mut app, Walker::new(200.0), px(5, 5));

    // 1280 x 720 window, 2D camera at the origin.
    let window = common::window_and_camera(&mut app);
    app.update();

    // The centre of pixel (52, 34), beyond the wall.
    let target = px(52, 34);
    let cursor = Vec2::new(640.0 + target.x, 360.0 - target.y);
    app.world_mut()
        .get_mut::<Window>(window)
        .unwrap()
        .set_cursor_position(Some(cursor));
    app.world_mut().write_message(MouseButtonInput {
        button: MouseButton::Left,
        state: ButtonState::Pressed,
        window,
    });
    app.update();
    app.world_mut().write_message(MouseButtonInput {
        button: MouseButton::Left,
        state: ButtonState::Released,
        window,
    });

    run_until(&mut app, 300, arrived(player));
    let log = app.world().resource::<Log>();
    let ready = log.ready(player);
    assert_eq!(ready.len(), 1);
    let (requested, waypoints, snapped) = &ready[0];
    assert!(
        requested.distance(target) < 1e-3,
        "clicked {requested}, expected {target}"
    );
    assert!(!snapped);
    assert!(waypoints.len() > 2, "must go round the wall: {waypoints:?}");
    assert!(waypoints[0].distance(start) < 1e-3);
    assert!(waypoints.last().unwrap().distance(target) < 1e-3);
    assert!(path_stays_on(waypoints, |x, y| room_pixel(x, y) == 1));
    assert!(position(&app, player).distance(target) < 1e-3);
    assert_eq!(state(&app, player), WalkState::Arrived);
    assert_eq!(
        app.world().get::<WalkHeading>(player).unwrap().0,
        Vec2::ZERO
    );
    assert!(app.world().get::<WalkPath>(player).is_none());
    // The NPC got nothing.
    assert!(!log.both().iter().any(|e| e.entity == npc));
    assert_eq!(position(&app, npc), px(5, 5));
}

#[test]
fn click_on_a_wall_walks_to_the_nearest_reachable_point() {
    let (mut app, _) = room_app("generated/room.walk.png");
    let walker = spawn_walker(&mut app, Walker::new(200.0), px(10, 10));
    let target = px(31, 10); // inside the wall, 2 pixels from its left face
    request(&mut app, walker, target);
    run_until(&mut app, 300, arrived(walker));

    let log = app.world().resource::<Log>();
    let ready = log.ready(walker);
    assert_eq!(ready.len(), 1);
    let (_, waypoints, snapped) = &ready[0];
    assert!(snapped);
    let end = *waypoints.last().unwrap();
    let (ex, ey) = pixel_of(end);
    assert_eq!(room_pixel(ex, ey), 1, "ends on a walkable pixel");
    assert!(
        end.distance(target) <= 2.0,
        "end {end} is the nearest, target {target}"
    );
    assert_eq!((ex, ey), (29, 10));
    assert!(position(&app, walker).distance(end) < 1e-3);
    let arrived_at = log
        .both()
        .iter()
        .find_map(|e| match e.kind {
            Kind::Arrived(p) if e.entity == walker => Some(p),
            _ => None,
        })
        .unwrap();
    assert!(arrived_at.distance(end) < 1e-3);
}

#[test]
fn a_walker_standing_on_a_blocked_pixel_steps_onto_the_nearest_walkable_one() {
    let (mut app, _) = room_app("generated/room.walk.png");
    // Inside the wall (columns 30..=33), nearest to its left face; slow, so that
    // walking out of the wall would take many frames.
    let walker = spawn_walker(&mut app, Walker::new(20.0), px(31, 10));
    request(&mut app, walker, px(20, 10));
    run_until(&mut app, 300, walking(walker));
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, waypoints, _) = &ready[0];
    assert_eq!(
        pixel_of(waypoints[0]),
        (29, 10),
        "the nearest walkable pixel"
    );
    assert!(path_stays_on(waypoints, |x, y| room_pixel(x, y) == 1));
    for _ in 0..30 {
        let (x, y) = pixel_of(position(&app, walker));
        assert_eq!(room_pixel(x, y), 1, "never inside the wall, at ({x}, {y})");
        run(&mut app, 1);
    }
}

#[test]
fn targets_outside_the_mask_are_clamped_and_snapped_and_nan_is_unreachable() {
    let (mut app, _) = room_app("generated/room.walk.png");
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(40, 20));
    request(&mut app, walker, Vec2::new(1000.0, px(40, 20).y));
    run_until(&mut app, 300, arrived(walker));
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, waypoints, snapped) = &ready[0];
    assert!(snapped);
    assert_eq!(pixel_of(*waypoints.last().unwrap()), (63, 20));

    request(&mut app, walker, Vec2::new(f32::NAN, 0.0));
    request(&mut app, walker, Vec2::new(0.0, f32::INFINITY));
    run(&mut app, 3);
    let log = app.world().resource::<Log>();
    assert_eq!(
        Log::count(log.both(), walker, |e| e.kind == Kind::Unreachable),
        2
    );
    assert_eq!(state(&app, walker), WalkState::Unreachable);
    // A walk request for an entity that is gone still gets its one answer.
    let ghost = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(ghost);
    let id = request(&mut app, ghost, Vec2::ZERO);
    run(&mut app, 3);
    let log = app.world().resource::<Log>();
    log.both();
    assert_eq!(log.kinds(id), vec![Kind::Unreachable]);
}

#[test]
fn enabling_the_gate_area_changes_the_path() {
    let mut app = test_app();
    let mask = load_mask(&mut app, "generated/gate.walk.png");
    let room = spawn_room(
        &mut app,
        WalkRoom::new(mask).with_areas(WalkAreas::only(&[1, 3])),
    );
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(10, 20));
    let target = px(55, 20);
    request(&mut app, walker, target);
    run_until(&mut app, 300, arrived(walker));
    let (_, before, snapped) = app.world().resource::<Log>().ready(walker)[0].clone();
    assert!(snapped, "the gate is closed");
    assert_eq!(pixel_of(*before.last().unwrap()), (39, 20));

    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .enable_area(2);
    request(&mut app, walker, target);
    run_until(&mut app, 300, |w| {
        w.resource::<Log>()
            .observed
            .iter()
            .filter(|e| e.entity == walker && matches!(e.kind, Kind::Arrived(_)))
            .count()
            == 2
    });
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, after, snapped) = &ready[1];
    assert!(!snapped, "the gate is open");
    assert!(after.last().unwrap().distance(target) < 1e-3);
    assert!(position(&app, walker).distance(target) < 1e-3);
    app.world().resource::<Log>().both();
}

#[test]
fn closing_the_gate_mid_walk_replans_and_stops_at_the_gate() {
    let (mut app, room) = room_app("generated/gate.walk.png");
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
    request(&mut app, walker, px(55, 20));
    run_until(&mut app, 300, |w| {
        w.resource::<Log>()
            .has(walker, |k| matches!(k, Kind::Ready { .. }))
    });
    assert!(
        pixel_of(position(&app, walker)).0 < 30,
        "still far from the gate"
    );

    // The gate (area 2) closes while the walker is on its way through it.
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .disable_area(2);
    run_until(&mut app, 600, arrived(walker));
    let log = app.world().resource::<Log>();
    assert_eq!(log.ready(walker).len(), 1, "one request, one answer");
    let replanned = log.replanned(walker);
    assert_eq!(replanned.len(), 1, "the room change re-plans the walk");
    assert!(
        replanned[0].2,
        "the new path is snapped short of the closed gate"
    );
    let (x, _) = pixel_of(position(&app, walker));
    assert!(x <= 39, "the walker stopped before the gate, at x = {x}");
    app.world().resource::<Log>().both();
}

#[test]
fn with_snapping_off_a_closed_gate_is_unreachable() {
    let mut app = app_with(WalkmaskPlugin {
        snap_to_reachable: false,
        ..default()
    });
    let mask = load_mask(&mut app, "generated/gate.walk.png");
    let room = spawn_room(
        &mut app,
        WalkRoom::new(mask).with_areas(WalkAreas::only(&[1])),
    );
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(10, 20));
    let target = px(55, 20);
    request(&mut app, walker, target);
    run_until(&mut app, 300, unreachable(walker));
    assert_eq!(state(&app, walker), WalkState::Unreachable);
    assert_eq!(position(&app, walker), px(10, 20));
    // Outside the mask is unreachable too when snapping is off.
    request(&mut app, walker, Vec2::new(-500.0, 0.0));
    run_until(&mut app, 300, |w| {
        Log::count(&w.resource::<Log>().observed, walker, |e| {
            e.kind == Kind::Unreachable
        }) == 2
    });

    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .set_area(2, true);
    request(&mut app, walker, target);
    run_until(&mut app, 300, arrived(walker));
    let (_, path, snapped) = app.world().resource::<Log>().ready(walker)[0].clone();
    assert!(!snapped);
    assert!(path_stays_on(&path, |x, y| gate_pixel(x, y) <= 2 && gate_pixel(x, y) >= 1));
    app.world().resource::<Log>().both();
}

#[test]
fn walker_area_limits_are_respected() {
    let (mut app, _) = room_app("generated/gate.walk.png");
    let target = px(10, 45); // in area 3
    let npc = spawn_walker(
        &mut app,
        Walker::new(400.0).with_areas(WalkAreas::only(&[1, 2])),
        px(10, 20),
    );
    let anyone = spawn_walker(&mut app, Walker::new(400.0), px(12, 20));
    request(&mut app, npc, target);
    request(&mut app, anyone, target);
    run_until(&mut app, 300, |w| arrived(npc)(w) && arrived(anyone)(w));
    let log = app.world().resource::<Log>();
    let (_, npc_path, npc_snapped) = log.ready(npc)[0].clone();
    assert!(npc_snapped);
    assert_eq!(pixel_of(*npc_path.last().unwrap()), (10, 39));
    assert!(path_stays_on(&npc_path, |x, y| gate_pixel(x, y) != 3));
    let (_, path, snapped) = log.ready(anyone)[0].clone();
    assert!(!snapped);
    assert!(path.last().unwrap().distance(target) < 1e-3);
    log.both();
}

#[test]
fn a_new_request_cancels_the_one_in_flight_and_each_gets_one_outcome() {
    let (mut app, _) = room_app("generated/room.walk.png");
    let walker = spawn_walker(&mut app, Walker::new(200.0), px(10, 10));
    let (first, second, third) = (px(50, 10), px(10, 40), px(20, 20));

    // Two requests in one frame: the first is superseded before it starts.
    request(&mut app, walker, first);
    request(&mut app, walker, second);
    // Another one a frame later, while the second may still be computing (multi
    // threaded) or already walking (single threaded): one outcome each either way.
    app.update();
    app.world_mut().commands().entity(walker).walk_to(third);
    app.world_mut().flush();
    run_until(&mut app, 400, arrived(walker));
    run(&mut app, 2);

    let log = app.world().resource::<Log>();
    let entries = log.both();
    let outcomes_for = |target: Vec2| {
        Log::count(entries, walker, |e| {
            e.target == target && e.kind.is_answer()
        })
    };
    assert_eq!(outcomes_for(first), 1, "{entries:#?}");
    assert_eq!(outcomes_for(second), 1, "{entries:#?}");
    assert_eq!(outcomes_for(third), 1, "{entries:#?}");
    assert!(
        entries
            .iter()
            .any(|e| e.target == first && e.kind == Kind::Cancelled)
    );
    assert!(log.ready(walker).iter().any(|(t, _, _)| *t == third));
    let arrivals: Vec<Vec2> = entries
        .iter()
        .filter_map(|e| match e.kind {
            Kind::Arrived(p) => Some(p),
            _ => None,
        })
        .collect();
    // The walk to `second` may or may not have ended before the path to `third` was
    // ready; the last walk ends at `third`.
    assert!(!arrivals.is_empty() && arrivals.len() <= 2, "{arrivals:?}");
    assert!(arrivals.last().unwrap().distance(third) < 1e-3);
    assert!(
        arrivals
            .iter()
            .all(|p| p.distance(third) < 1e-3 || p.distance(second) < 1e-3)
    );
    assert!(position(&app, walker).distance(third) < 1e-3);
}

#[test]
fn a_new_path_while_walking_continues_smoothly() {
    let (mut app, walker) = walking_across_the_open_room(200.0);
    // 200 units/s * 16 ms = 3.2 units a frame at most.
    let step = 200.0 * 0.016 + 1e-3;
    let mut last = position(&app, walker);
    request(&mut app, walker, px(5, 5));
    for _ in 0..200 {
        app.update();
        let now = position(&app, walker);
        assert!(now.distance(last) <= step, "jumped from {last} to {now}");
        last = now;
        if arrived(walker)(app.world_mut()) {
            break;
        }
    }
    assert!(position(&app, walker).distance(px(5, 5)) < 1e-3);
    let ready = app.world().resource::<Log>().ready(walker);
    assert_eq!(ready.len(), 2);
    // The second walk started where the walker stood, not back at its first start.
    assert!(ready[1].1[0].x > px(5, 24).x + 5.0);
}

#[test]
fn stop_walking_stops_without_arrived() {
    let (mut app, walker) = walking_across_the_open_room(100.0);
    app.world_mut().commands().entity(walker).stop_walking();
    app.world_mut().flush();
    app.update();
    let stopped_at = position(&app, walker);
    run(&mut app, 20);
    assert_eq!(position(&app, walker), stopped_at);
    assert_eq!(state(&app, walker), WalkState::Idle);
    assert_eq!(
        app.world().get::<WalkHeading>(walker).unwrap().0,
        Vec2::ZERO
    );
    let log = app.world().resource::<Log>();
    assert!(!log.has(walker, |k| matches!(k, Kind::Arrived(_))));
    // A stop right after a request (same command queue) cancels it.
    let to = px(60, 40);
    app.world_mut().commands().entity(walker).walk_to(to);
    app.world_mut().commands().entity(walker).stop_walking();
    app.world_mut().flush();
    run(&mut app, 5);
    let log = app.world().resource::<Log>();
    assert_eq!(
        Log::count(log.both(), walker, |e| e.target == to),
        1,
        "exactly one outcome"
    );
    assert!(log.has(walker, |k| *k == Kind::Cancelled));
    assert_eq!(state(&app, walker), WalkState::Idle);
    assert_eq!(position(&app, walker), stopped_at);
}

/// Despawns the walker named in `DespawnNow` between planning and polling.
#[derive(Resource)]
struct DespawnNow(Option<Entity>);

/// A walker despawned with its request in flight, or mid-walk, gets its last outcomes
/// (the request cancelled, the walk stopped as removed) and nothing after them.
#[test]
fn despawning_a_walker_closes_its_request_and_walk_once() {
    let mut app = test_app();
    app.insert_resource(DespawnNow(None)).add_systems(
        Update,
        (|mut commands: Commands, mut now: ResMut<DespawnNow>| {
            if let Some(e) = now.0.take() {
                commands.entity(e).despawn();
            }
        })
        .after(WalkmaskSystems::Plan)
        .before(WalkmaskSystems::Poll),
    );
    let mask = load_mask(&mut app, "generated/room.walk.png");
    spawn_room(&mut app, WalkRoom::new(mask));
    let doomed = spawn_walker(&mut app, Walker::new(200.0), px(10, 10));
    let later = spawn_walker(&mut app, Walker::new(200.0), px(12, 10));
    let survivor = spawn_walker(&mut app, Walker::new(200.0), px(14, 10));
    let doomed_id = request(&mut app, doomed, px(50, 40));
    request(&mut app, survivor, px(50, 40));
    app.world_mut().resource_mut::<DespawnNow>().0 = Some(doomed);
    app.update(); // task spawned in Plan, walker despawned before Poll
    let later_id = request(&mut app, later, px(50, 40));
    run(&mut app, 2); // answered and walking
    assert!(app.world().get::<WalkPath>(later).is_some());
    app.world_mut().despawn(later);
    run_until(&mut app, 300, arrived(survivor));
    run(&mut app, 5);
    let log = app.world().resource::<Log>();
    log.both();
    assert_eq!(log.kinds(doomed_id), vec![Kind::Cancelled]);
    let kinds = log.kinds(later_id);
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(matches!(kinds[0], Kind::Ready { .. }), "{kinds:?}");
    assert!(
        matches!(kinds[1], Kind::Stopped(StopReason::Removed, p) if p.is_nan() || p.is_finite()),
        "{kinds:?}"
    );
}

#[test]
fn a_corrupt_mask_fails_to_load_and_requests_are_unreachable() {
    let mut app = test_app();
    let handle: Handle<WalkMask> = app
        .world()
        .resource::<AssetServer>()
        .load("generated/corrupt.walk.png");
    wait_for(&mut app, LOAD_UPDATES, |w| {
        matches!(
            w.resource::<AssetServer>().load_state(&handle),
            LoadState::Failed(_)
        )
    });
    let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&handle) else {
        unreachable!()
    };
    assert!(error.to_string().contains("corrupt.walk.png"), "{error}");
    spawn_room(&mut app, WalkRoom::new(handle));
    let walker = spawn_walker(&mut app, Walker::new(200.0), Vec2::ZERO);
    request(&mut app, walker, Vec2::new(5.0, 5.0));
    run_until(&mut app, 50, unreachable(walker));
    assert_eq!(state(&app, walker), WalkState::Unreachable);
    app.world().resource::<Log>().both();
}

#[test]
fn a_mask_file_over_the_loaders_byte_limit_fails_without_being_read_whole() {
    let mut app = test_app();
    let size = std::fs::metadata(asset_file("generated/room.walk.png"))
        .unwrap()
        .len();
    let load = |app: &mut App, limit: u64| -> Handle<WalkMask> {
        app.world()
            .resource::<AssetServer>()
            .load_builder()
            .with_settings(move |s: &mut WalkMaskLoaderSettings| s.max_alloc_bytes = Some(limit))
            .load("generated/room.walk.png")
    };
    let refused = load(&mut app, size - 1);
    wait_for(&mut app, LOAD_UPDATES, |w| {
        matches!(
            w.resource::<AssetServer>().load_state(&refused),
            LoadState::Failed(_)
        )
    });
    let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&refused)
    else {
        unreachable!()
    };
    assert!(
        error.to_string().contains("larger than the limit"),
        "{error}"
    );
    // With room for the file and its decoding, the same file loads.
    let mut app = test_app();
    let loaded = load(&mut app, size + (1 << 20));
    wait_loaded(&mut app, &loaded);
}

#[test]
fn requests_wait_for_the_mask_and_fail_without_a_room() {
    let mut app = test_app();
    // No room at all.
    let lost = spawn_walker(&mut app, Walker::new(200.0), Vec2::ZERO);
    request(&mut app, lost, Vec2::new(5.0, 5.0));
    run_until(&mut app, 50, unreachable(lost));
    // A room whose mask is still loading: the request waits, then walks.
    let handle: Handle<WalkMask> = app
        .world()
        .resource::<AssetServer>()
        .load("generated/room.walk.png");
    let room = spawn_room(&mut app, WalkRoom::new(handle));
    let walker = spawn_walker(&mut app, Walker::new(400.0).with_room(room), px(10, 10));
    request(&mut app, walker, px(12, 30));
    wait_for(&mut app, LOAD_UPDATES, arrived(walker));
    // A walker pointing at an entity that is not a room.
    let nowhere = spawn_walker(&mut app, Walker::new(200.0).with_room(lost), Vec2::ZERO);
    request(&mut app, nowhere, Vec2::ZERO);
    run_until(&mut app, 50, unreachable(nowhere));
    app.world().resource::<Log>().both();
}

#[test]
fn reloading_the_mask_file_mid_walk_replans() {
    let mut app = test_app();
    let path = "generated/reload.walk.png";
    write_grey_png(path, MASK_SIZE, |_, _| 255);
    let mask = load_mask(&mut app, path);
    spawn_room(&mut app, WalkRoom::new(mask.clone()));
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(5, 20));
    let target = px(60, 20);
    request(&mut app, walker, target);
    run_until(&mut app, 100, walking(walker));
    assert_eq!(app.world().resource::<Log>().ready(walker)[0].1.len(), 2);
    run(&mut app, 2);

    // A wall appears across the way, with a gap at the bottom.
    let wall = |x: u32, y: u32| u8::from(!((40..=42).contains(&x) && y < 44)) * 255;
    write_grey_png(path, MASK_SIZE, wall);
    app.world().resource::<AssetServer>().reload(path);
    wait_for(&mut app, LOAD_UPDATES, |w| {
        w.resource::<Log>().replanned(walker).len() == 1
    });
    let (replanned_to, waypoints, _) = app.world().resource::<Log>().replanned(walker)[0].clone();
    assert_eq!(replanned_to, target);
    assert!(
        waypoints.len() > 2,
        "goes round the new wall: {waypoints:?}"
    );
    assert!(path_stays_on(&waypoints, |x, y| wall(x, y) == 255));
    run_until(&mut app, 600, arrived(walker));
    assert!(position(&app, walker).distance(target) < 1e-3);
    app.world().resource::<Log>().both();
}

#[test]
fn replacing_the_mask_in_assets_replans_and_refreshes_the_grid_cache() {
    let mut app = test_app();
    let mask = load_mask(&mut app, "generated/open.walk.png");
    spawn_room(&mut app, WalkRoom::new(mask.clone()));
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(5, 20));
    let target = px(60, 20);
    request(&mut app, walker, target);
    run_until(&mut app, 100, walking(walker));
    let wall = |x: u32, y: u32| u8::from(!((40..=42).contains(&x) && y > 4));
    let new = walkmask::WalkMask::from_fn(64, 48, wall).unwrap();
    *app.world_mut()
        .resource_mut::<Assets<WalkMask>>()
        .get_mut(&mask)
        .unwrap() = WalkMask::new(new);
    run_until(&mut app, 300, |w| {
        w.resource::<Log>().replanned(walker).len() == 1
    });
    let (_, waypoints, _) = app.world().resource::<Log>().replanned(walker)[0].clone();
    assert!(path_stays_on(&waypoints, |x, y| wall(x, y) == 1));
    run_until(&mut app, 600, arrived(walker));
    let stats = app.world().resource::<NavGridCache>().stats();
    assert_eq!(
        stats.entries, 1,
        "the old pixels' grid was dropped: {stats:?}"
    );
    assert_eq!(stats.misses, 2);
}

#[test]
fn prepared_grids_are_reused_between_requests() {
    let (mut app, _) = room_app("generated/room.walk.png");
    let a = spawn_walker(&mut app, Walker::new(400.0), px(10, 10));
    let b = spawn_walker(&mut app, Walker::new(400.0), px(50, 10));
    let c = spawn_walker(
        &mut app,
        Walker::new(400.0).with_areas(WalkAreas::only(&[1])),
        px(50, 12),
    );
    request(&mut app, a, px(50, 40));
    run_until(&mut app, 300, arrived(a));
    request(&mut app, b, px(10, 40));
    request(&mut app, c, px(12, 40));
    run_until(&mut app, 300, |w| arrived(b)(w) && arrived(c)(w));
    let stats = app.world().resource::<NavGridCache>().stats();
    // `c` limits itself to area 1, which is every area of this mask, so all three
    // share one grid.
    assert_eq!(stats.misses, 1, "{stats:?}");
    assert_eq!(stats.hits, 2, "{stats:?}");
    assert_eq!(stats.entries, 1);
    // Labels (4 bytes a pixel with a border), open bits, edges and the index.
    assert!(
        (66 * 50 * 4..66 * 50 * 8).contains(&stats.bytes),
        "{stats:?}"
    );
}

/// Each prepared grid gets a subgoal index, built on the task pool after the grid;
/// a request answered with it walks as far as the same request answered by the fill
/// before the index was ready, and stays off the wall. With `search_index` off no
/// index is built.
#[test]
fn prepared_grids_get_a_search_index_that_requests_use() {
    for search_index in [true, false] {
        let (mut app, _) = common::wall_room_app(WalkmaskPlugin {
            search_index,
            ..deterministic()
        });
        let length = |app: &App, walker: Entity| {
            let (_, waypoints, _) = app.world().resource::<Log>().ready(walker)[0].clone();
            assert!(path_stays_on(&waypoints, |x, y| room_pixel(x, y) == 1));
            waypoints
                .windows(2)
                .map(|w| w[0].distance(w[1]))
                .sum::<f32>()
        };
        let ready =
            |walker: Entity| move |w: &mut World| !w.resource::<Log>().ready(walker).is_empty();
        let filled = spawn_walker(&mut app, Walker::new(1.0), px(10, 10));
        request(&mut app, filled, px(50, 10));
        run_until(&mut app, 100, ready(filled));
        let indexed = |w: &mut World| w.resource::<NavGridCache>().stats().indexed;
        if search_index {
            wait_for(&mut app, LOAD_UPDATES, |w| indexed(w) == 1);
            let stats = app.world().resource::<NavGridCache>().stats();
            assert!(stats.index_bytes > 0, "{stats:?}");
            assert!(stats.last_index_build.is_some(), "{stats:?}");
        } else {
            run(&mut app, 20);
            assert_eq!(indexed(app.world_mut()), 0);
            let stats = app.world().resource::<NavGridCache>().stats();
            assert_eq!(stats.last_index_build, None, "{stats:?}");
        }
        // The grid build was timed either way.
        let stats = app.world().resource::<NavGridCache>().stats();
        assert!(stats.last_grid_build.is_some(), "{stats:?}");
        let searched = spawn_walker(&mut app, Walker::new(1.0), px(10, 10));
        request(&mut app, searched, px(50, 10));
        run_until(&mut app, 100, ready(searched));
        let (a, b) = (length(&app, filled), length(&app, searched));
        assert!(a > 45.0, "goes round the wall: {a}");
        assert!((a - b).abs() <= 0.01 * a, "fill {a} vs index {b}");
    }
}

/// Searches wait for the subgoal index the grid's build starts (or build it), so
/// none is answered by a fill of the whole mask while the index build waits on the
/// pool behind them: a crowd sent off together into a large room, answered as soon
/// as each search is ready, gets every answer with the index built.
#[test]
fn a_crowd_sent_off_together_is_answered_with_the_index_built() {
    // 1024 x 768, walls every 64 px with a gap at the top or the bottom in turn, so
    // walks go round them and the index pays.
    let wall = |x: u32, y: u32| {
        let in_wall = x % 64 >= 60;
        let gap = if (x / 64).is_multiple_of(2) {
            y >= 720
        } else {
            y < 48
        };
        u8::from(!in_wall || gap)
    };
    let mut app = headless_app(WalkmaskPlugin {
        answer_timing: AnswerTiming::WhenReady,
        warm_fields: false,
        ..default()
    });
    add_log(&mut app);
    let mask = add_mask(&mut app, 1024, 768, wall);
    // The mask's centre at the origin: pixel (x, y) is world (x - 512, 384 - y).
    app.world_mut().spawn(WalkRoom::new(mask));
    let at = |x: u32, y: u32| Vec2::new(x as f32 - 512.0 + 0.5, 384.0 - y as f32 - 0.5);
    let walkers: Vec<Entity> = (0..24u32)
        .map(|i| {
            let walker = spawn_walker(
                &mut app,
                Walker::new(1.0),
                at(20 + 64 * (i % 4), 100 + 20 * i),
            );
            request(&mut app, walker, at(1000 - 64 * (i % 6), 700 - 25 * i));
            walker
        })
        .collect();
    let answered = |w: &mut World| {
        let log = w.resource::<Log>();
        walkers
            .iter()
            .filter(|&&walker| !log.ready(walker).is_empty())
            .count()
    };
    let mut frames = 0;
    while answered(app.world_mut()) < walkers.len() {
        app.update();
        frames += 1;
        assert!(frames < 20_000, "not every walker was answered");
        if answered(app.world_mut()) > 0 {
            let stats = app.world().resource::<NavGridCache>().stats();
            assert_eq!(
                stats.indexed, 1,
                "an answer came before the index: {stats:?}"
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // The planner's own count says the same: every walker searched, none filled.
    let status = app.world().resource::<PlannerStatus>();
    assert!(status.searches_run() >= walkers.len() as u64);
    assert_eq!(status.searches_filled(), 0);
    assert!(status.longest_search() > std::time::Duration::ZERO);
    for &walker in &walkers {
        let (_, waypoints, _) = app.world().resource::<Log>().ready(walker)[0].clone();
        let to_pixel = |p: Vec2| ((p.x + 512.0).floor() as u32, (384.0 - p.y).floor() as u32);
        assert!(waypoints.windows(2).all(|w| {
            (0..=64).all(|k| {
                let (x, y) = to_pixel(w[0].lerp(w[1], k as f32 / 64.0));
                wall(x, y) == 1
            })
        }));
    }
}

/// The planner counts the searches a fill answered: without a subgoal index, a walk
/// round a wall is one; a straight walk is a search that fills nothing.
#[test]
fn the_planner_counts_searches_that_filled() {
    let mut app = headless_app(WalkmaskPlugin {
        search_index: false,
        ..common::deterministic()
    });
    add_log(&mut app);
    // 64 x 48, a wall at x = 30..34 open below y = 40.
    let mask = add_mask(&mut app, 64, 48, |x, y| {
        u8::from(!(30..34).contains(&x) || y >= 40)
    });
    app.world_mut().spawn(WalkRoom::new(mask));
    let at = |x: f32, y: f32| Vec2::new(x - 32.0, 24.0 - y);
    let walker = spawn_walker(&mut app, Walker::new(1.0), at(10.5, 10.5));
    request(&mut app, walker, at(10.5, 30.5));
    common::run_until(&mut app, 500, |w| {
        !w.resource::<Log>().ready(walker).is_empty()
    });
    let status = app.world().resource::<PlannerStatus>().clone();
    assert_eq!((status.searches_run(), status.searches_filled()), (1, 0));
    request(&mut app, walker, at(50.5, 10.5));
    common::run_until(&mut app, 500, |w| {
        w.resource::<Log>().ready(walker).len() == 2
    });
    assert_eq!((status.searches_run(), status.searches_filled()), (2, 1));
}

#[cfg(feature = "debug_overlay")]
#[test]
fn the_debug_overlay_tints_the_mask_and_follows_the_toggle() {
    let mut app = test_app();
    app.init_asset::<Image>();
    let mask = load_mask(&mut app, "generated/gate.walk.png");
    let room = spawn_room(&mut app, WalkRoom::new(mask.clone()).with_scale(2.0));
    run(&mut app, 2);
    let children: Vec<Entity> = app
        .world()
        .get::<Children>(room)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    assert_eq!(children.len(), 1);
    let overlay = children[0];
    let sprite = app.world().get::<Sprite>(overlay).unwrap();
    assert_eq!(sprite.custom_size, Some(Vec2::new(128.0, 96.0)));
    let image = app
        .world()
        .resource::<Assets<Image>>()
        .get(&sprite.image)
        .unwrap();
    assert_eq!(image.width(), 64);
    let data = image.data.as_ref().unwrap();
    let pixel = |x: usize, y: usize| &data[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4];
    assert_ne!(
        pixel(10, 10)[..3],
        pixel(41, 10)[..3],
        "areas 1 and 2 differ"
    );
    assert_eq!(pixel(10, 10)[3], 89, "alpha 0.35");
    let before = data.to_vec();
    assert_eq!(
        app.world().get::<Visibility>(overlay),
        Some(&Visibility::Inherited)
    );

    app.world_mut().resource_mut::<WalkmaskDebug>().enabled = false;
    run(&mut app, 1);
    assert_eq!(
        app.world().get::<Visibility>(overlay),
        Some(&Visibility::Hidden)
    );
    // Disabling an area re-tints its pixels, in the same image, and only those.
    let handle = app.world().get::<Sprite>(overlay).unwrap().image.clone();
    app.world_mut().resource_mut::<WalkmaskDebug>().enabled = true;
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .disable_area(2);
    run(&mut app, 1);
    let image_data = |app: &App| {
        let sprite = app.world().get::<Sprite>(overlay).unwrap();
        assert_eq!(sprite.image, handle, "repainted in place, not rebuilt");
        let images = app.world().resource::<Assets<Image>>();
        images.get(&sprite.image).unwrap().data.clone().unwrap()
    };
    let data = image_data(&app);
    let gate = &data[(10 * 64 + 41) * 4..(10 * 64 + 41) * 4 + 4];
    assert_eq!(gate[0], gate[1], "disabled areas are grey");
    let mask = app
        .world()
        .resource::<Assets<WalkMask>>()
        .get(&mask)
        .unwrap();
    for (i, &area) in mask.core().areas().iter().enumerate() {
        let (now, was) = (&data[i * 4..i * 4 + 4], &before[i * 4..i * 4 + 4]);
        if area == 2 {
            assert_eq!(now, gate, "pixel {i} of area 2");
        } else {
            assert_eq!(now, was, "pixel {i} of area {area} changed");
        }
    }
    // And enabling it again gives back the first picture.
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .enable_area(2);
    run(&mut app, 1);
    assert!(image_data(&app) == before, "the first picture again");
}

/// The command sync points of a frame are few, since each costs main-thread time
/// whether or not anything is queued: the count of `ApplyDeferred` points in the
/// plugin's schedule (`Update` here; the headless app adds none of its own) is held
/// at or under today's.
#[test]
fn a_frame_has_few_sync_points() {
    let (mut app, _) = room_app("generated/room.walk.png");
    app.update();
    let schedules = app.world().resource::<Schedules>();
    let update = schedules.get(Update).unwrap();
    let apply_deferred = std::any::TypeId::of::<bevy::ecs::schedule::ApplyDeferred>();
    let (mut systems, mut syncs) = (0, 0);
    for (_, system) in update.systems().unwrap() {
        systems += 1;
        syncs += usize::from(system.system_type() == apply_deferred);
    }
    println!("{systems} systems in Update, {syncs} of them sync points");
    // Tile layers' rooms are built and applied before rooms are placed.
    let most = SYNC_POINTS + usize::from(cfg!(feature = "tilemap"));
    assert!(syncs <= most, "{syncs} sync points in {systems} systems");
}

/// `ApplyDeferred` points in `Update` today (see `a_frame_has_few_sync_points`).
const SYNC_POINTS: usize = 3;
