//! The walk lifecycle under both answer timings (exact frames, and real pacing with
//! answers applied when ready): requests sent every frame, steering into walls,
//! walkers moved by game code, hover answers beside moving obstacles, warm-ups,
//! scale maps without `.meta` files, and the last outcomes of removed walkers.
//!
//! The usual 64 x 48 wall mask (a wall at x = 30..=33 down to y = 39), where pixel
//! (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{FieldCacheStats, Hurry, KeepWarm, WarmFieldCache};
use common::{
    Kind, Log, Pace, assert_contract, create_generated_dir, deterministic, headless_app,
    left_button, load_mask, path_stays_on, pixel_of, position, put_cursor, px, request, room_pixel,
    run, spawn_walker, wait_for, wall_room_app, window_and_camera, write_grey_png,
};

fn on_wall(p: Vec2) -> bool {
    let (x, y) = pixel_of(p);
    room_pixel(x, y) == 0
}

fn heading(app: &App, walker: Entity) -> Vec2 {
    app.world().get::<WalkHeading>(walker).unwrap().0
}

fn state(app: &App, walker: Entity) -> WalkState {
    *app.world().get::<WalkState>(walker).unwrap()
}

/// A walker sent somewhere new every frame (press and hold, a chaser) walks: each
/// request waits for the search under way instead of dropping it, so answers land.
#[test]
fn a_request_every_frame_moves_the_walker_and_every_request_is_answered_once() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let start = px(2, 44);
        let walker = spawn_walker(&mut app, Walker::new(100.0), start);
        let mut clock = pace.clock();
        let mut ids = Vec::new();
        // 2.4 s of a target sliding right along the bottom, a pixel every 3 frames
        // (20 units a second, from 6 units ahead of the walker to 56).
        let target = |frame: u32| px(8 + frame / 3, 44);
        for frame in 0..150u32 {
            ids.push(request(&mut app, walker, target(frame)));
            clock.frame(&mut app);
        }
        let moved = position(&app, walker).distance(start);
        assert!(
            moved > 40.0,
            "{pace:?}: moved {moved} in 2.4 s behind a target 54 units away"
        );
        let last = target(149);
        clock.until(&mut app, 300, |w| {
            w.get::<WalkPath>(walker).is_none()
                && *w.get::<WalkState>(walker).unwrap() == WalkState::Arrived
        });
        assert!(position(&app, walker).distance(last) < 1e-3, "{pace:?}");
        let log = app.world().resource::<Log>();
        assert_contract(log, &ids);
        // Most requests were superseded while they waited; some were walked.
        let walked = ids
            .iter()
            .filter(|id| matches!(log.kinds(**id)[0], Kind::Ready { .. }))
            .count();
        assert!(walked >= 10, "{pace:?}: {walked} walked");
    }
}

/// With exact timing, a request that waited for the search under way is answered
/// exactly `n` frames after its own search starts, in the frame the one it waited
/// for lands: the same frames on every run.
#[test]
fn a_waiting_request_lands_at_an_exact_frame() {
    let (mut app, _) = wall_room_app(Pace::Exact(2).plugin());
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(4, 44));
    let first = request(&mut app, walker, px(14, 44));
    app.update(); // frame 1: first's search starts
    let second = request(&mut app, walker, px(16, 44));
    app.update(); // frame 2: second waits
    assert!(app.world().resource::<Log>().of(first).is_empty());
    app.update(); // frame 3: first lands; second's search starts
    let log = app.world().resource::<Log>();
    assert!(matches!(log.kinds(first)[..], [Kind::Ready { .. }]));
    assert!(log.of(second).is_empty());
    run(&mut app, 1); // frame 4: one poll
    assert!(app.world().resource::<Log>().of(second).is_empty());
    app.update(); // frame 5: second lands, superseding first's walk
    let log = app.world().resource::<Log>();
    assert!(matches!(log.kinds(second)[..], [Kind::Ready { .. }]));
    assert!(matches!(
        log.kinds(first)[..],
        [Kind::Ready { .. }, Kind::Stopped(StopReason::Superseded, _)]
    ));
}

/// A request far from the one under way drops that one's answer when it lands (the
/// walker never turns toward a place it was sent away from): cancelled, and the
/// walker walks straight to the newer target.
#[test]
fn a_far_request_drops_the_answer_it_waited_for() {
    for pace in Pace::BOTH {
        let mut plugin = pace.plugin();
        plugin.tuning.rerequest_join_distance = 16.0;
        let (mut app, _) = wall_room_app(plugin);
        let start = px(20, 44);
        let walker = spawn_walker(&mut app, Walker::new(100.0), start);
        let mut clock = pace.clock();
        let west = request(&mut app, walker, px(2, 44));
        clock.frame(&mut app);
        let east = request(&mut app, walker, px(60, 44));
        let mut positions = Vec::new();
        clock.until(&mut app, 400, |w| {
            positions.push(w.get::<Transform>(walker).unwrap().translation.x);
            w.resource::<Log>()
                .has(walker, |k| matches!(k, Kind::Arrived(_)))
        });
        let log = app.world().resource::<Log>();
        assert_contract(log, &[west, east]);
        if log.kinds(west) == vec![Kind::Cancelled] {
            assert!(
                positions.iter().all(|x| *x >= start.x - 1e-3),
                "{pace:?}: stepped west {positions:?}"
            );
        } else {
            // Paced, the first answer may land before the second request is read.
            assert_eq!(pace, Pace::Paced);
        }
        assert!(position(&app, walker).distance(px(60, 44)) < 1e-3);
    }
}

/// Steered flush against the wall, clicked away, and pushed into the wall again: the
/// walk is over and the walker stands (it does not stay `Planning` or `Walking`
/// with its old heading).
#[test]
fn a_walker_pushed_into_a_wall_after_a_click_stands() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(26, 10));
        let mut clock = pace.clock();
        let push = |app: &mut App, d: Vec2| {
            app.world_mut().entity_mut(walker).insert(WalkInput(d));
        };
        push(&mut app, Vec2::X);
        clock.frames(&mut app, 30);
        let flush = position(&app, walker);
        assert!(flush.x > px(29, 10).x - 0.6, "{pace:?}: at {flush}");
        push(&mut app, Vec2::ZERO);
        clock.frames(&mut app, 2);
        let id = request(&mut app, walker, px(5, 10));
        clock.frame(&mut app);
        push(&mut app, Vec2::X);
        clock.frames(&mut app, 10);
        push(&mut app, Vec2::ZERO);
        clock.frames(&mut app, 5);
        assert_eq!(state(&app, walker), WalkState::Idle, "{pace:?}");
        assert_eq!(heading(&app, walker), Vec2::ZERO, "{pace:?}");
        assert!(app.world().get::<WalkPath>(walker).is_none());
        assert!(!on_wall(position(&app, walker)));
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// `WalkInput` removed while the walker is steered: it stands.
#[test]
fn removing_walk_input_mid_steer_leaves_the_walker_standing() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 44));
        let mut clock = pace.clock();
        app.world_mut()
            .entity_mut(walker)
            .insert(WalkInput(Vec2::X));
        // Steered once its grid is ready (on the task pool: a few frames, more on a
        // loaded machine).
        clock.until(&mut app, 300, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Walking)
        });
        clock.frames(&mut app, 3);
        assert_eq!(state(&app, walker), WalkState::Walking, "{pace:?}");
        app.world_mut().entity_mut(walker).remove::<WalkInput>();
        clock.frames(&mut app, 2);
        assert_eq!(state(&app, walker), WalkState::Idle, "{pace:?}");
        assert_eq!(heading(&app, walker), Vec2::ZERO, "{pace:?}");
    }
}

/// Game code moves a walker mid-walk to the other side of the wall: it plans again
/// from there and never walks through the wall toward its old next corner.
#[test]
fn a_walker_moved_by_game_code_mid_walk_never_crosses_the_wall() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(150.0), px(10, 20));
        let mut clock = pace.clock();
        let target = px(50, 20);
        let id = request(&mut app, walker, target);
        clock.until(&mut app, 100, |w| w.get::<WalkPath>(walker).is_some());
        clock.frames(&mut app, 3);
        let moved_to = px(50, 5);
        app.world_mut()
            .get_mut::<Transform>(walker)
            .unwrap()
            .translation = moved_to.extend(1.0);
        let mut trail = vec![moved_to];
        clock.until(&mut app, 600, |w| {
            trail.push(w.get::<Transform>(walker).unwrap().translation.truncate());
            w.resource::<Log>()
                .has(walker, |k| matches!(k, Kind::Arrived(_)))
        });
        assert!(
            path_stays_on(&trail, |x, y| room_pixel(x, y) == 1),
            "{pace:?}: crossed the wall: {trail:?}"
        );
        assert!(position(&app, walker).distance(target) < 1e-3);
        let log = app.world().resource::<Log>();
        assert_contract(log, &[id]);
        assert!(
            !log.replanned(walker).is_empty(),
            "{pace:?}: re-planned from where it was put"
        );
    }
}

/// The hover answer for a pointer resting over the room comes while a solid
/// character walks nearby (obstacles move every frame).
#[test]
fn the_hover_answer_comes_while_a_solid_character_walks() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let player = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
        app.world_mut().entity_mut(player).insert(PlayerWalker);
        let guard = spawn_walker(&mut app, Walker::new(60.0), px(48, 44));
        app.world_mut()
            .entity_mut(guard)
            .insert(WalkObstacle::circle(2.0));
        let mut clock = pace.clock();
        let point = px(50, 20);
        let mut answered = false;
        // Back and forth, never arriving: each leg is at least 26 units, 27 frames,
        // and the guard turns every 15, so answers up to 12 frames late still find it
        // walking. The pointer comes to rest once the guard is on its way.
        for frame in 0..80 {
            if frame % 15 == 0 {
                let end = if frame % 30 == 0 { 8 } else { 60 };
                request(&mut app, guard, px(end, 44));
            }
            if frame == 20 {
                app.world_mut().resource_mut::<WalkHover>().point = Some(point);
            }
            clock.frame(&mut app);
            let hover = app.world().resource::<WalkHover>();
            answered |= hover.answer.as_ref().is_some_and(|a| a.point == point);
        }
        assert!(
            app.world().get::<WalkPath>(guard).is_some(),
            "{pace:?}: the guard walked all along"
        );
        assert!(answered, "{pace:?}: no hover answer in 60 frames");
    }
}

fn warm_app() -> (App, Entity, Entity) {
    let (mut app, _) = wall_room_app(WalkmaskPlugin {
        warm_fields: true,
        ..deterministic()
    });
    let player = spawn_walker(&mut app, Walker::new(100.0), px(10, 20));
    app.world_mut().entity_mut(player).insert(PlayerWalker);
    let npc = spawn_walker(&mut app, Walker::new(100.0), px(50, 20));
    (app, player, npc)
}

fn fields(app: &App) -> FieldCacheStats {
    app.world().resource::<WarmFieldCache>().stats()
}

/// Warm fields are filled for players by default, not for every NPC standing
/// around; a player's field that was dropped (evicted) is filled again while it
/// stands; `KeepWarm` asks for one for an NPC.
#[test]
fn warm_ups_are_for_players_and_come_back_after_eviction() {
    let (mut app, _player, npc) = warm_app();
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WarmFieldCache>().stats().fills >= 1
    });
    run(&mut app, 20);
    assert_eq!(fields(&app).fills, 1, "only the player's field");
    app.world().resource::<WarmFieldCache>().clear();
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WarmFieldCache>().stats().entries == 1
    });
    assert_eq!(fields(&app).fills, 2, "filled again");
    app.world_mut().entity_mut(npc).insert(KeepWarm);
    wait_for(&mut app, 100_000, |w| {
        w.resource::<WarmFieldCache>().stats().entries == 2
    });
}

/// A `*.scale.png` without a `.meta` file is read as grey levels, as scale maps are.
#[test]
fn a_scale_map_without_a_meta_file_keeps_its_grey_levels() {
    create_generated_dir();
    write_grey_png("generated/lifecycle_ramp.scale.png", (8, 4), |x, _| {
        (x * 30) as u8
    });
    let mut app = headless_app(deterministic());
    let handle = load_mask(&mut app, "generated/lifecycle_ramp.scale.png");
    let masks = app.world().resource::<Assets<WalkMask>>();
    let map = masks.get(&handle).unwrap();
    for x in 1..8 {
        assert_eq!(map.area_at(x, 2), Some((x * 30) as u8), "x = {x}");
    }
}

/// Removing `Walker` (or despawning) answers the open request and ends the open walk,
/// once, and leaves no walk state behind.
#[test]
fn removing_walker_closes_the_request_and_the_walk() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walking = spawn_walker(&mut app, Walker::new(100.0), px(10, 44));
        let planning = spawn_walker(&mut app, Walker::new(100.0), px(12, 44));
        let mut clock = pace.clock();
        let walk = request(&mut app, walking, px(60, 44));
        clock.until(&mut app, 100, |w| w.get::<WalkPath>(walking).is_some());
        let plan = request(&mut app, planning, px(60, 40));
        clock.frame(&mut app);
        app.world_mut().entity_mut(walking).remove::<Walker>();
        app.world_mut().entity_mut(planning).remove::<Walker>();
        clock.frames(&mut app, 5);
        let log = app.world().resource::<Log>();
        assert_contract(log, &[walk, plan]);
        assert!(matches!(
            log.kinds(walk)[..],
            [Kind::Ready { .. }, Kind::Stopped(StopReason::Removed, _)]
        ));
        match &log.kinds(plan)[..] {
            [Kind::Cancelled] => {}
            // Paced, its answer may have landed in that frame.
            [Kind::Ready { .. }, Kind::Stopped(StopReason::Removed, _)] => {
                assert_eq!(pace, Pace::Paced)
            }
            other => panic!("{pace:?}: {other:?}"),
        }
        assert!(app.world().get::<WalkPath>(walking).is_none());
        let stays = position(&app, walking);
        clock.frames(&mut app, 5);
        assert_eq!(position(&app, walking), stays, "no longer walks");
    }
}

/// A route through given points for an entity whose `Transform` was removed, and a
/// request for an entity that is gone, are answered.
#[test]
fn requests_that_cannot_start_are_answered() {
    let (mut app, _) = wall_room_app(deterministic());
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(10, 44));
    app.world_mut().entity_mut(walker).remove::<Transform>();
    let route = app
        .world_mut()
        .commands()
        .entity(walker)
        .walk_anywhere([px(20, 44)], px(30, 44));
    let gone = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(gone);
    let ghost = request(&mut app, gone, px(5, 5));
    app.world_mut().flush();
    run(&mut app, 3);
    let log = app.world().resource::<Log>();
    assert_eq!(log.kinds(route), vec![Kind::Unreachable]);
    assert_eq!(log.kinds(ghost), vec![Kind::Unreachable]);
}

/// Press and hold: while the left button stays down, the player walks toward the
/// cursor wherever it goes (round the wall), and stops following when it is let go.
#[test]
fn press_and_hold_walks_the_player_after_the_cursor() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(WalkmaskPlugin {
            click_input: ClickInput::Cursor,
            ..pace.plugin()
        });
        let player = spawn_walker(&mut app, Walker::new(150.0), px(10, 20));
        app.world_mut().entity_mut(player).insert(PlayerWalker);
        let window = window_and_camera(&mut app);
        let mut clock = pace.clock();
        clock.frame(&mut app);
        put_cursor(&mut app, window, px(12, 44));
        left_button(&mut app, window, true);
        clock.frames(&mut app, 20);
        // Held: the cursor sweeps along the bottom and up the far side of the wall.
        for x in 12..56u32 {
            put_cursor(&mut app, window, px(x, 44));
            clock.frame(&mut app);
        }
        for y in (10..44u32).rev() {
            put_cursor(&mut app, window, px(56, y));
            clock.frame(&mut app);
        }
        let end = px(56, 10);
        clock.until(&mut app, 300, |w| {
            w.get::<Transform>(player)
                .unwrap()
                .translation
                .truncate()
                .distance(end)
                < 1e-3
        });
        // Let go; the cursor moving on is not followed.
        left_button(&mut app, window, false);
        clock.frames(&mut app, 2);
        put_cursor(&mut app, window, px(60, 30));
        clock.frames(&mut app, 30);
        assert!(position(&app, player).distance(end) < 1e-3, "{pace:?}");
        let log = app.world().resource::<Log>();
        let ids: Vec<_> = log
            .both()
            .iter()
            .filter(|e| e.kind.is_answer())
            .map(|e| e.request)
            .collect();
        assert!(ids.len() > 10, "{pace:?}: {} requests", ids.len());
        assert_contract(log, &ids);
    }
}

/// The frames from a request under the wall (from the bottom left to the bottom
/// right, 58 units) until it arrives, hurried by `how` in the frame after the request (while
/// it is still being planned); the walker's end and the request's answers checked.
fn hurried_walk(pace: Pace, how: Option<Hurry>) -> usize {
    let (mut app, _) = wall_room_app(pace.plugin());
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
    let mut clock = pace.clock();
    clock.frame(&mut app);
    let target = px(60, 44);
    let id = request(&mut app, walker, target);
    clock.frame(&mut app);
    if let Some(how) = how {
        app.world_mut().commands().entity(walker).hurry(how);
    }
    let frames = clock.until(&mut app, 2000, |w| {
        w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
    });
    assert!(
        position(&app, walker).distance(target) < 1e-3,
        "{pace:?} {how:?}"
    );
    let log = app.world().resource::<Log>();
    assert_contract(log, &[id]);
    assert!(
        matches!(log.kinds(id)[..], [Kind::Ready { .. }, Kind::Arrived(_)]),
        "{pace:?} {how:?}: {:?}",
        log.kinds(id)
    );
    // A walk after a hurried one walks at the walker's own speed.
    let back = request(&mut app, walker, px(2, 44));
    let again = clock.until(&mut app, 2000, |w| {
        w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
    });
    assert!(again > 30, "{pace:?} {how:?}: back in {again} frames");
    assert_contract(app.world().resource::<Log>(), &[back]);
    frames
}

/// `hurry(Skip)` sent while the walk is still planned puts the walker at its end as
/// soon as the path lands, and the walk arrives there (exactly one answer and one
/// arrival); `hurry(Run(4))` walks it about four times as fast; the next walk is at
/// the usual speed.
#[test]
fn a_hurried_walk_is_skipped_or_run_to_its_end() {
    for pace in Pace::BOTH {
        let walked = hurried_walk(pace, None);
        let skipped = hurried_walk(pace, Some(Hurry::Skip));
        let run = hurried_walk(pace, Some(Hurry::Run(4.0)));
        // 58 units at 1.6 a frame: about 36 frames walked.
        assert!(walked > 30, "{pace:?}: walked in {walked}");
        match pace {
            // The answer lands 2 frames after its search starts; one more to arrive.
            Pace::Exact(n) => assert!(skipped <= n as usize + 2, "{pace:?}: skipped in {skipped}"),
            Pace::Paced => assert!(skipped <= 20, "{pace:?}: skipped in {skipped}"),
        }
        let expected = walked as f32 / 4.0;
        assert!(
            (run as f32) < expected + 6.0 && (run as f32) > expected - 6.0,
            "{pace:?}: run in {run}, walked in {walked}"
        );
    }
}

/// A gate (area 2, a full-height band at x = 40..=43) shut a pixel before a walker
/// walking through it reaches it: under both timings the walker never steps into
/// the gate while its new plan is made (it stands until the plan lands), and ends
/// short of it, its request answered once.
#[test]
fn a_gate_shut_ahead_of_a_walker_is_never_walked_into() {
    for pace in Pace::BOTH {
        let (mut app, room, walker) = gate_room(pace);
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let id = request(&mut app, walker, px(55, 20));
        let (mut shut, mut entered) = (false, false);
        for _ in 0..600 {
            clock.frame(&mut app);
            let x = pixel_of(position(&app, walker)).0;
            if !shut && x >= 39 {
                app.world_mut()
                    .get_mut::<WalkRoom>(room)
                    .unwrap()
                    .disable_area(2);
                shut = true;
            } else if shut {
                entered |= (40..=43).contains(&x);
            }
            if matches!(
                state(&app, walker),
                WalkState::Arrived | WalkState::Unreachable | WalkState::Idle
            ) {
                break;
            }
        }
        assert!(shut && !entered, "{pace:?}: walked into the shut gate");
        assert!(pixel_of(position(&app, walker)).0 < 40, "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// A room with a gate (area 2 at x = 40..=43) across it, and a walker at (30, 20).
fn gate_room(pace: Pace) -> (App, Entity, Entity) {
    let mut app = headless_app(pace.plugin());
    common::add_log(&mut app);
    let mask = common::add_mask(
        &mut app,
        64,
        48,
        |x, _| if (40..=43).contains(&x) { 2 } else { 1 },
    );
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(30, 20));
    (app, room, walker)
}

/// `hurry(Skip)` on a walk under way along a straight line (its one and last leg)
/// puts the walker at the end at once: it arrives within two frames.
#[test]
fn skipping_a_straight_walk_under_way_arrives_at_once() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let target = px(60, 44);
        let id = request(&mut app, walker, target);
        clock.until(&mut app, 300, |w| {
            w.get::<WalkPath>(walker)
                .is_some_and(|p| p.waypoints.len() == 2 && p.next == 1)
        });
        clock.frames(&mut app, 3);
        app.world_mut().commands().entity(walker).hurry(Hurry::Skip);
        let frames = clock.until(&mut app, 300, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert!(
            frames <= 2,
            "{pace:?}: arrived {frames} frames after the skip"
        );
        assert!(position(&app, walker).distance(target) < 1e-3, "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// Walkers spawned before the plugin is added (as a game may, in its own setup
/// before the plugins it adds last) get the state that avoidance and movement keep,
/// like those spawned after: all of them walk, and keep out of each other's way.
#[test]
fn walkers_spawned_before_the_plugin_was_added_walk_and_avoid_each_other() {
    use bevy::asset::AssetPlugin;
    use bevy::input::InputPlugin;
    use bevy::time::TimeUpdateStrategy;
    use bevy_walkmask::Avoidance;

    for pace in Pace::BOTH {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin::default(),
            InputPlugin,
            TransformPlugin,
        ))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_millis(16),
        ));
        let early = [px(2, 44), px(2, 40)]
            .map(|at| spawn_walker(&mut app, Walker::new(100.0).with_radius(2.0), at));
        app.add_plugins(pace.plugin());
        common::add_log(&mut app);
        let mask = common::add_mask(&mut app, 64, 48, room_pixel);
        app.world_mut().spawn(WalkRoom::new(mask));
        let late = spawn_walker(&mut app, Walker::new(100.0).with_radius(2.0), px(6, 44));
        let walkers = [early[0], early[1], late];
        for walker in walkers {
            let world = app.world();
            assert!(
                world.get::<Avoidance>(walker).is_some(),
                "{pace:?}: {walker} has no Avoidance"
            );
        }
        // All three to one point: they end round it, not on one another.
        let ids = walkers.map(|walker| request(&mut app, walker, px(20, 44)));
        let mut clock = pace.clock();
        clock.until(&mut app, 600, |w| {
            walkers
                .iter()
                .all(|&walker| *w.get::<WalkState>(walker).unwrap() == WalkState::Arrived)
        });
        assert_contract(app.world().resource::<Log>(), &ids);
        for (i, &a) in walkers.iter().enumerate() {
            assert!(position(&app, a).distance(px(20, 44)) < 12.0, "{pace:?}");
            for &b in &walkers[i + 1..] {
                let apart = position(&app, a).distance(position(&app, b));
                assert!(apart >= 0.9 * 4.0, "{pace:?}: {a} and {b} {apart} apart");
            }
        }
    }
}

/// `hurry(Skip)` in the frame a gate shuts just ahead of the walker does not put it
/// on the far side of the gate: the walk is on hold until its new plan lands, and is
/// skipped to that plan's end, short of the gate. (Before, the skip jumped across
/// the gate that had just shut.)
#[test]
fn skipping_a_walk_whose_gate_just_shut_stops_short_of_it() {
    for pace in Pace::BOTH {
        let (mut app, room, walker) = gate_room(pace);
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let id = request(&mut app, walker, px(55, 20));
        clock.until(&mut app, 300, |w| {
            pixel_of(w.get::<Transform>(walker).unwrap().translation.truncate()).0 >= 36
        });
        app.world_mut()
            .get_mut::<WalkRoom>(room)
            .unwrap()
            .disable_area(2);
        app.world_mut().commands().entity(walker).hurry(Hurry::Skip);
        let mut crossed = false;
        clock.until(&mut app, 300, |w| {
            let x = pixel_of(w.get::<Transform>(walker).unwrap().translation.truncate()).0;
            crossed |= x >= 40;
            w.get::<WalkPath>(walker).is_none()
        });
        clock.frames(&mut app, 3);
        assert!(!crossed, "{pace:?}: skipped across the shut gate");
        assert!(pixel_of(position(&app, walker)).0 < 40, "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// A room that drifts a unit a frame under a walk carries the walk with it (its
/// points keep their room pixels) instead of re-planning it every frame: no
/// `PathReplanned`, the walker ends at its destination in room pixels, and never
/// stands on the wall of the room where it is. (Before: 29 re-plans in 60 frames.)
#[test]
fn a_walk_in_a_drifting_room_moves_with_the_room_without_replans() {
    for pace in Pace::BOTH {
        let (mut app, room) = wall_room_app(pace.plugin());
        let walker = app
            .world_mut()
            .spawn((
                Walker::new(60.0),
                Transform::from_translation(px(2, 44).extend(1.0)),
                ChildOf(room),
            ))
            .id();
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let local = |app: &App| {
            let t = app.world().get::<Transform>(walker).unwrap().translation;
            t.truncate()
        };
        let mut drift = 0.0;
        let mut frames = 0;
        let mut id = None;
        loop {
            drift += 1.0;
            app.world_mut()
                .get_mut::<Transform>(room)
                .unwrap()
                .translation
                .x = drift;
            // Round the wall's foot (several corners), given where the room is now.
            id.get_or_insert_with(|| request(&mut app, walker, px(60, 4) + Vec2::X * drift));
            clock.frame(&mut app);
            frames += 1;
            // The walker is the room's child: its local position is in room units.
            let (x, y) = pixel_of(local(&app));
            assert!(room_pixel(x, y) == 1, "{pace:?}: on the wall at ({x}, {y})");
            if app.world().get::<WalkState>(walker) == Some(&WalkState::Arrived) {
                break;
            }
            assert!(frames < 600, "{pace:?}: never arrived");
        }
        let log = app.world().resource::<Log>();
        assert_eq!(log.replanned(walker).len(), 0, "{pace:?}");
        assert!(
            local(&app).distance(px(60, 4)) < 1e-2,
            "{pace:?}: {}",
            local(&app)
        );
        assert_contract(log, &[id.unwrap()]);
    }
}

/// A standing walker sent somewhere new every frame, each point farther from the
/// last than the join distance (a fast drag), starts walking: a search's answer is
/// walked while the newer request is planned, rather than dropped again and again.
#[test]
fn a_fast_drag_starts_a_standing_walker() {
    for pace in Pace::BOTH {
        let (mut app, _room) = wall_room_app(pace.plugin());
        app.world_mut()
            .resource_mut::<WalkTuning>()
            .rerequest_join_distance = 2.0;
        let walker = spawn_walker(&mut app, Walker::new(40.0), px(4, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let mut ids = Vec::new();
        let mut started = None;
        for frame in 0..120 {
            // Round three points 8 pixels apart, one a frame.
            let x = [12, 20, 28][frame % 3];
            ids.push(request(&mut app, walker, px(x, 44)));
            clock.frame(&mut app);
            if started.is_none() && position(&app, walker).distance(px(4, 44)) > 1.0 {
                started = Some(frame);
            }
        }
        let started = started.unwrap_or_else(|| panic!("{pace:?}: never started"));
        assert!(started < 30, "{pace:?}: started after {started} frames");
        clock.until(&mut app, 600, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}
