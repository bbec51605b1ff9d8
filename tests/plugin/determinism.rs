//! What the plugin promises under `AnswerTiming::AfterFrames(n)`: every answer lands
//! exactly `n` frames after its search starts, even when the search is restarted on
//! a new grid meanwhile; and two runs with the same inputs at the same frames give
//! the same answers, waypoints and positions frame by frame, in `Update` or in
//! `FixedUpdate`, however fast the pool's threads happen to be.

use crate::common;

use std::time::Duration;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{AnswerTiming, KeepWarm};
use common::{
    Kind, Log, add_log, add_mask, deterministic, headless_app, px, request, room_pixel, run,
    spawn_walker, wall_room_app,
};

/// The frame (counted from 1 after the request is written) in which `id` is answered.
fn answer_frame(app: &mut App, id: RequestId, max: usize) -> usize {
    for frame in 1..=max {
        app.update();
        if !app.world().resource::<Log>().kinds(id).is_empty() {
            return frame;
        }
    }
    panic!("{id} not answered in {max} frames");
}

/// A mask where area 2 is a band of the floor (x = 40..=44) that can be turned off.
fn banded(x: u32, y: u32) -> u8 {
    match room_pixel(x, y) {
        0 => 0,
        _ if (40..=44).contains(&x) => 2,
        _ => 1,
    }
}

/// A search restarted because the room's areas changed while it ran still lands when
/// it was due: `AfterFrames(3)` means three frames in every case.
#[test]
fn a_restarted_search_lands_when_it_was_due() {
    let due = |toggle_at: Option<usize>| {
        let mut app = headless_app(WalkmaskPlugin {
            answer_timing: AnswerTiming::AfterFrames(3),
            ..deterministic()
        });
        add_log(&mut app);
        let mask = add_mask(&mut app, 64, 48, banded);
        let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(2, 44));
        app.update();
        let id = request(&mut app, walker, px(60, 44));
        for frame in 1..=10 {
            if Some(frame) == toggle_at {
                app.world_mut()
                    .get_mut::<WalkRoom>(room)
                    .unwrap()
                    .disable_area(2);
            }
            app.update();
            let kinds = app.world().resource::<Log>().kinds(id);
            if let Some(first) = kinds.first() {
                return (frame, first.clone());
            }
        }
        panic!("not answered");
    };
    let (plain, _) = due(None);
    assert_eq!(
        plain, 4,
        "searched in the request's frame, answered 3 frames later"
    );
    let (restarted, answer) = due(Some(2));
    assert_eq!(
        restarted, plain,
        "a restart does not move the answer's frame"
    );
    // The answer is the one planned without area 2: the band splits the room, so the
    // destination beyond it snaps to this side.
    assert!(
        matches!(answer, Kind::Ready { snapped: true, .. }),
        "{answer:?}"
    );
}

/// A request that cannot be planned (the walker's radius is not a number) is
/// answered unreachable `n` frames after it was read, like every other answer.
#[test]
fn an_unreachable_answer_is_due_like_any_other() {
    let (mut app, _) = wall_room_app(WalkmaskPlugin {
        answer_timing: AnswerTiming::AfterFrames(2),
        ..deterministic()
    });
    app.update();
    let walker = spawn_walker(&mut app, Walker::new(60.0).with_radius(f32::NAN), px(2, 44));
    let id = request(&mut app, walker, px(10, 10));
    assert_eq!(answer_frame(&mut app, id, 10), 3);
    let kinds = app.world().resource::<Log>().kinds(id);
    assert!(matches!(kinds[..], [Kind::Unreachable]), "{kinds:?}");
}

/// What one frame of a run shows: every walker's position and state, and the
/// outcomes of that frame (their waypoints and positions), as exact bits.
#[derive(Debug, PartialEq)]
struct Frame {
    positions: Vec<(u32, u32, WalkState)>,
    outcomes: Vec<String>,
}

#[derive(Resource, Default)]
struct Seen(Vec<String>);

fn bits(points: &[Vec2]) -> Vec<(u32, u32)> {
    points
        .iter()
        .map(|p| (p.x.to_bits(), p.y.to_bits()))
        .collect()
}

/// The script's room is this many times 320 x 240, large enough that its subgoal
/// index takes a few frames to build.
const SCALE: f32 = 3.0;

/// A room of furniture (blocks every 36 pixels of the 320 x 240 script, scaled)
/// with a band of area 2 down the middle that the script turns off and on.
fn furniture(x: u32, y: u32) -> u8 {
    let (x, y) = ((x as f32 / SCALE) as u32, (y as f32 / SCALE) as u32);
    if x % 36 >= 26 && y % 36 >= 26 {
        0
    } else if (150..=165).contains(&x) && y > 30 {
        2
    } else {
        1
    }
}

/// Runs the script: three walkers (one of them solid), requests, a request every
/// frame for half a second, areas off and on, a teleport; `pause` sleeps between
/// frames so that background work finishes earlier than it does back to back.
fn scripted_run(fixed: bool, pause: Duration) -> Vec<Frame> {
    let plugin = WalkmaskPlugin {
        answer_timing: AnswerTiming::AfterFrames(2),
        warm_fields: true,
        ..deterministic()
    };
    let plugin = if fixed {
        plugin.in_schedule(FixedUpdate)
    } else {
        plugin
    };
    let mut app = headless_app(plugin);
    app.init_resource::<Seen>()
        .add_observer(|ev: On<PathReady>, mut seen: ResMut<Seen>| {
            seen.0
                .push(format!("ready {:?} {:?}", ev.snapped, bits(&ev.waypoints)));
        })
        .add_observer(|ev: On<PathReplanned>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("replanned {:?}", bits(&ev.waypoints)));
        })
        .add_observer(|ev: On<PathCancelled>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("cancelled {:?}", bits(&[ev.target])));
        })
        .add_observer(|ev: On<Arrived>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("arrived {:?}", bits(&[ev.position])));
        })
        .add_observer(|ev: On<WalkStopped>, mut seen: ResMut<Seen>| {
            seen.0.push(format!(
                "stopped {:?} {:?}",
                ev.reason,
                bits(&[ev.position])
            ));
        });
    let (w, h) = ((320.0 * SCALE) as u32, (240.0 * SCALE) as u32);
    let mask = add_mask(&mut app, w, h, furniture);
    let room = app
        .world_mut()
        .spawn(WalkRoom::new(mask).with_scale(1.0 / SCALE))
        .id();
    // Script coordinates: pixels of the 320 x 240 room, y down.
    let at = |x: f32, y: f32| Vec2::new(x - 160.0, 120.0 - y);
    let a = spawn_walker(
        &mut app,
        Walker::new(120.0).with_radius(3.0),
        at(10.0, 230.0),
    );
    let b = app
        .world_mut()
        .spawn((
            Walker::new(90.0).with_radius(3.0),
            WalkObstacle::circle(6.0),
            Transform::from_translation(at(300.0, 20.0).extend(1.0)),
        ))
        .id();
    let c = spawn_walker(&mut app, Walker::new(150.0), at(160.0, 10.0));
    // Warm fields are filled for them while they stand (ready or not when the next
    // request comes, depending on how fast the pool is).
    for walker in [a, b, c] {
        app.world_mut().entity_mut(walker).insert(KeepWarm);
    }
    let walkers = [a, b, c];
    let mut frames = Vec::new();
    for frame in 0..260u32 {
        match frame {
            0 => {
                request(&mut app, a, at(310.0, 15.0));
                request(&mut app, b, at(15.0, 225.0));
                request(&mut app, c, at(160.0, 230.0));
            }
            7 => {
                app.world_mut()
                    .get_mut::<WalkRoom>(room)
                    .unwrap()
                    .disable_area(2);
            }
            20 => {
                request(&mut app, c, at(40.0, 120.0));
            }
            40..=70 => {
                request(&mut app, a, at(200.0 + (frame - 40) as f32, 200.0));
            }
            90 => {
                app.world_mut().get_mut::<Transform>(c).unwrap().translation =
                    at(250.0, 120.0).extend(1.0);
            }
            120 => {
                app.world_mut()
                    .get_mut::<WalkRoom>(room)
                    .unwrap()
                    .enable_area(2);
            }
            150 => {
                request(&mut app, b, at(300.0, 220.0));
                request(&mut app, c, at(20.0, 20.0));
            }
            _ => {}
        }
        app.update();
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
        let world = app.world_mut();
        let positions = walkers
            .iter()
            .map(|&e| {
                let t = world.get::<Transform>(e).unwrap().translation;
                (
                    t.x.to_bits(),
                    t.y.to_bits(),
                    *world.get::<WalkState>(e).unwrap(),
                )
            })
            .collect();
        let outcomes = std::mem::take(&mut world.resource_mut::<Seen>().0);
        frames.push(Frame {
            positions,
            outcomes,
        });
    }
    let last = frames.last().unwrap();
    assert!(
        frames.iter().any(|f| !f.outcomes.is_empty()) && last.positions != frames[0].positions,
        "the script walked"
    );
    frames
}

fn assert_same_runs(fixed: bool) {
    let back_to_back = scripted_run(fixed, Duration::ZERO);
    let paced = scripted_run(fixed, Duration::from_millis(25));
    for (i, (x, y)) in back_to_back.iter().zip(&paced).enumerate() {
        assert_eq!(x, y, "fixed {fixed}: runs part at frame {i}");
    }
    let arrived = back_to_back
        .iter()
        .flat_map(|f| &f.outcomes)
        .filter(|o| o.starts_with("arrived"))
        .count();
    let summary: Vec<String> = back_to_back
        .iter()
        .flat_map(|f| &f.outcomes)
        .map(|o| o.chars().take(30).collect())
        .collect();
    assert!(
        arrived >= 2,
        "fixed {fixed}: {arrived} arrivals: {summary:#?}"
    );
}

#[test]
fn two_runs_with_the_same_inputs_walk_the_same_in_update() {
    assert_same_runs(false);
}

#[test]
fn two_runs_with_the_same_inputs_walk_the_same_in_fixed_update() {
    assert_same_runs(true);
}

/// Walkers in `FixedUpdate` move by the fixed time step: a walk of known length takes
/// the number of fixed steps it should, whatever the frame rate.
#[test]
fn walkers_in_fixed_update_move_by_the_fixed_step() {
    let mut app = headless_app(deterministic().in_schedule(FixedUpdate));
    app.insert_resource(Time::<Fixed>::from_hz(50.0));
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    app.world_mut().spawn(WalkRoom::new(mask));
    let walker = spawn_walker(&mut app, Walker::new(50.0), px(2, 44));
    app.update();
    // 40 units at 50 units a second: 0.8 s, 40 steps of 20 ms, about 50 frames of
    // 16 ms.
    request(&mut app, walker, px(42, 44));
    let mut frames = 0;
    while !app
        .world()
        .resource::<Log>()
        .has(walker, |k| matches!(k, Kind::Arrived(_)))
    {
        app.update();
        frames += 1;
        assert!(frames < 200, "arrives");
    }
    let steps = (frames as f32 * 0.016 / 0.02).round() as i32;
    assert!(
        (40..=42).contains(&steps),
        "{frames} frames, about {steps} fixed steps"
    );
}

/// Around a square block there are two paths of the same length, above and below.
/// A fill, the subgoal index and a warm field may each take another one; under
/// `AfterFrames` the answer does not depend on which of them is ready when the
/// request comes.
#[test]
fn a_tie_is_broken_the_same_way_however_fast_the_pool_is() {
    let block = |x: u32, y: u32| {
        let (dx, dy) = (x as i64 - 90, y as i64 - 45);
        let in_block = dx.abs() < 15 && dy.abs() < 15;
        let speck = x % 23 == 7 && y % 17 == 3;
        u8::from(!(in_block || speck))
    };
    let answer = |prepared: bool| {
        let mut app = headless_app(WalkmaskPlugin {
            answer_timing: AnswerTiming::AfterFrames(1),
            ..deterministic()
        });
        add_log(&mut app);
        let mask = add_mask(&mut app, 180, 90, block);
        app.world_mut().spawn(WalkRoom::new(mask));
        let start = Vec2::new(-87.5, 0.0);
        let walker = spawn_walker(&mut app, Walker::new(60.0), start);
        if prepared {
            // A walk to where it stands prepares the room's grid and builds its index
            // in the background, ready for the next request. Without it, the next
            // request's search starts before the index is there.
            request(&mut app, walker, start);
            run(&mut app, 3);
            std::thread::sleep(Duration::from_millis(200));
        }
        request(&mut app, walker, Vec2::new(87.5, 0.0));
        run(&mut app, 3);
        let ready = app.world().resource::<Log>().ready(walker);
        ready.last().unwrap().1.clone()
    };
    let cold = answer(false);
    let prepared = answer(true);
    assert_eq!(cold, prepared);
}
