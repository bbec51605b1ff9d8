//! Facing: 4 and 8 directions following the movement with hysteresis, facing a
//! direction or a point on arrival, turning a standing walker.
//!
//! Headless app of `tests/common`. Walks that must follow exact lines use
//! `WalkRoute::Anywhere` (straight lines through given points); walks on the mask use
//! the usual 64 x 48 wall mask (a wall at x = 30..=33 down to y = 39), where pixel
//! (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, deterministic, position, px, request, run, run_until, spawn_walker, wall_room_app,
};

/// Facing changes seen after spawning, per walker, in order.
#[derive(Resource, Default)]
struct Turns(Vec<(Entity, FacingDirection)>);

fn record_turns(mut turns: ResMut<Turns>, facings: Query<(Entity, Ref<Facing>), Changed<Facing>>) {
    for (entity, facing) in &facings {
        if !facing.is_added() {
            turns.0.push((entity, facing.direction));
        }
    }
}

fn app() -> App {
    let (mut app, _) = wall_room_app(deterministic());
    app.init_resource::<Turns>()
        .add_systems(PostUpdate, record_turns);
    app
}

/// Spawns `walker` with `facing` at world position `at`.
fn spawn_facing(app: &mut App, walker: Walker, facing: Facing, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((walker, facing, Transform::from_translation(at.extend(1.0))))
        .id()
}

fn facing(app: &App, walker: Entity) -> FacingDirection {
    app.world().get::<Facing>(walker).unwrap().direction
}

fn turns(app: &App, walker: Entity) -> Vec<FacingDirection> {
    let turns = &app.world().resource::<Turns>().0;
    turns
        .iter()
        .filter(|(e, _)| *e == walker)
        .map(|&(_, d)| d)
        .collect()
}

/// Points from `from` in segments of `length`, alternating between the angles `a` and
/// `b` (degrees), `count` segments.
fn zigzag(from: Vec2, a: f32, b: f32, length: f32, count: usize) -> Vec<Vec2> {
    let mut at = from;
    (0..count)
        .map(|i| {
            let angle = if i % 2 == 0 { a } else { b };
            at += Vec2::from_angle(angle.to_radians()) * length;
            at
        })
        .collect()
}

/// Walks `walker` through `points` ignoring the mask and runs until it arrives.
fn walk_through(app: &mut App, walker: Entity, points: Vec<Vec2>) -> RequestId {
    let (via, target) = points.split_at(points.len() - 1);
    let via = via.to_vec();
    let target = target[0];
    let mut commands = app.world_mut().commands();
    let id = commands.entity(walker).walk_anywhere(via, target);
    app.world_mut().flush();
    run_until(app, 2_000, |w| {
        w.resource::<Log>()
            .of(id)
            .iter()
            .any(|e| matches!(e.kind, Kind::Arrived(_)))
    });
    id
}

/// A walk zigzagging across the 45 degree border between Right and Up (segments at 38
/// and 52 degrees) turns a 4-direction walker once, from Down to its first sector, and
/// never back and forth; with no hysteresis the same walk flickers at every corner.
#[test]
fn four_directions_do_not_flicker_on_a_diagonal() {
    let mut app = app();
    let steady = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
    let twitchy = spawn_facing(
        &mut app,
        Walker::new(60.0),
        Facing::four().with_hysteresis(0.0),
        px(4, 44),
    );
    let start = position(&app, steady);
    let points = zigzag(start, 38.0, 52.0, 4.0, 12);
    walk_through(&mut app, steady, points.clone());
    walk_through(&mut app, twitchy, points);
    assert_eq!(turns(&app, steady), vec![FacingDirection::Right]);
    let flickers = turns(&app, twitchy);
    assert!(flickers.len() >= 10, "{flickers:?}");
    assert!(
        flickers
            .iter()
            .all(|d| matches!(d, FacingDirection::Right | FacingDirection::Up))
    );
}

/// The same with 8 directions across the 22.5 degree border between Right and
/// UpRight (segments at 16 and 29 degrees).
#[test]
fn eight_directions_do_not_flicker_on_a_border() {
    let mut app = app();
    let walker = spawn_facing(&mut app, Walker::new(60.0), Facing::eight(), px(4, 44));
    let start = position(&app, walker);
    walk_through(&mut app, walker, zigzag(start, 16.0, 29.0, 4.0, 12));
    assert_eq!(turns(&app, walker), vec![FacingDirection::Right]);
}

/// A walk straight in each of the eight directions faces it with 8 directions; with 4
/// directions, clear diagonals (past the hysteresis) face the straight direction
/// nearer the movement.
#[test]
fn walking_faces_the_direction_walked() {
    let mut app = app();
    for direction in FacingDirection::ALL {
        let facing_away = Facing::eight().towards(opposite(direction));
        let walker = spawn_facing(&mut app, Walker::new(80.0), facing_away, px(16, 24));
        let from = position(&app, walker);
        walk_through(&mut app, walker, vec![from + direction.vector() * 6.0]);
        assert_eq!(facing(&app, walker), direction);
    }
    for (degrees, expected) in [
        (30.0, FacingDirection::Right),
        (70.0, FacingDirection::Up),
        (160.0, FacingDirection::Left),
        (-110.0, FacingDirection::Down),
    ] {
        let walker = spawn_walker(&mut app, Walker::new(80.0), px(16, 24));
        let from = position(&app, walker);
        let step = Vec2::from_angle(f32::to_radians(degrees)) * 6.0;
        walk_through(&mut app, walker, vec![from + step]);
        assert_eq!(facing(&app, walker), expected, "{degrees} degrees");
    }
}

/// The direction half a turn away (so that every walk must turn the walker).
fn opposite(direction: FacingDirection) -> FacingDirection {
    FacingDirection::ALL[(direction.index() + 4) % 8]
}

/// A walk round the wall asked to face a point on arrival faces it when `Arrived` is
/// sent (an observer of `Arrived` sees the new facing); a direction on arrival works
/// the same, and a 4-direction walker asked for a diagonal faces a straight direction
/// next to it.
#[test]
fn a_walk_faces_a_point_or_a_direction_on_arrival() {
    let mut app = app();
    #[derive(Resource, Default)]
    struct SeenOnArrival(Vec<(Entity, FacingDirection)>);
    app.init_resource::<SeenOnArrival>().add_observer(
        |ev: On<Arrived>, facings: Query<&Facing>, mut seen: ResMut<SeenOnArrival>| {
            seen.0
                .push((ev.entity, facings.get(ev.entity).unwrap().direction));
        },
    );
    let eight = spawn_facing(&mut app, Walker::new(120.0), Facing::eight(), px(10, 20));
    let four = spawn_walker(&mut app, Walker::new(120.0), px(10, 30));
    // Round the wall to (50, 20), then look at a point up and to the left of it; the
    // last step of the walk goes up and right, so only the request can turn it.
    let look_at = px(40, 10);
    let mut commands = app.world_mut().commands();
    let a = commands
        .entity(eight)
        .walk_to_facing(px(50, 20), FaceTarget::Point(look_at));
    let b = commands
        .entity(four)
        .walk_to_facing(px(50, 30), FaceTarget::Direction(FacingDirection::DownLeft));
    app.world_mut().flush();
    run_until(&mut app, 2_000, |w| {
        let log = w.resource::<Log>();
        [a, b].iter().all(|&id| {
            log.of(id)
                .iter()
                .any(|e| matches!(e.kind, Kind::Arrived(_)))
        })
    });
    assert_eq!(facing(&app, eight), FacingDirection::UpLeft);
    let four_way = facing(&app, four);
    assert!(
        matches!(four_way, FacingDirection::Down | FacingDirection::Left),
        "{four_way:?}"
    );
    let seen = &app.world().resource::<SeenOnArrival>().0;
    assert!(seen.contains(&(eight, FacingDirection::UpLeft)), "{seen:?}");
    assert!(seen.contains(&(four, four_way)), "{seen:?}");
    // Standing afterwards keeps the facing.
    run(&mut app, 10);
    assert_eq!(facing(&app, eight), FacingDirection::UpLeft);
}

/// A walk that is stopped early does not turn to its arrival facing; a standing walker
/// turns at once when told to, towards a direction or a point.
#[test]
fn standing_walkers_turn_and_stopped_walks_do_not() {
    let mut app = app();
    let walker = spawn_facing(&mut app, Walker::new(60.0), Facing::eight(), px(10, 20));
    let mut commands = app.world_mut().commands();
    commands
        .entity(walker)
        .walk_to_facing(px(20, 20), FaceTarget::Direction(FacingDirection::Up));
    app.world_mut().flush();
    run(&mut app, 5);
    app.world_mut().commands().entity(walker).stop_walking();
    run(&mut app, 2);
    assert_eq!(facing(&app, walker), FacingDirection::Right);

    app.world_mut()
        .commands()
        .entity(walker)
        .face(FaceTarget::Direction(FacingDirection::DownLeft));
    run(&mut app, 1);
    assert_eq!(facing(&app, walker), FacingDirection::DownLeft);
    let at = position(&app, walker);
    app.world_mut()
        .commands()
        .entity(walker)
        .face(FaceTarget::Point(at + Vec2::new(0.0, 10.0)));
    run(&mut app, 1);
    assert_eq!(facing(&app, walker), FacingDirection::Up);
    // A point where the walker stands gives no direction: the facing stays.
    app.world_mut()
        .commands()
        .entity(walker)
        .face(FaceTarget::Point(at));
    run(&mut app, 1);
    assert_eq!(facing(&app, walker), FacingDirection::Up);
}

/// A standing walker with a turn time turns in place through every direction between
/// the one it faces and its first step's, one each `turn_seconds` (16 ms frames), and
/// only then sets off; once walking it turns as it goes, and its walk arrives once.
/// 8 directions half a turn round (counter-clockwise), 4 directions a quarter turn
/// each way. Under both paces.
#[test]
fn a_walker_with_a_turn_time_turns_in_place_before_it_walks() {
    use common::{Pace, assert_contract};
    let cases = [
        // (facing, start, target, the turns in place)
        (
            Facing::eight().towards(FacingDirection::Right),
            px(20, 30),
            px(5, 30),
            vec![
                FacingDirection::UpRight,
                FacingDirection::Up,
                FacingDirection::UpLeft,
                FacingDirection::Left,
            ],
        ),
        (
            Facing::four(),
            px(10, 40),
            px(10, 10),
            vec![FacingDirection::Right, FacingDirection::Up],
        ),
        (
            Facing::four().towards(FacingDirection::Up),
            px(10, 20),
            px(25, 20),
            vec![FacingDirection::Right],
        ),
    ];
    for pace in Pace::BOTH {
        for (facing, start, target, expected) in cases.clone() {
            let (mut app, _) = wall_room_app(pace.plugin());
            app.init_resource::<Turns>()
                .add_systems(PostUpdate, record_turns);
            let turn = 0.1;
            let walker = spawn_facing(
                &mut app,
                Walker::new(60.0),
                facing.with_turn_seconds(turn),
                start,
            );
            let mut clock = pace.clock();
            clock.frames(&mut app, 3);
            let id = request(&mut app, walker, target);
            // Frames from the walk's path to the walker's first step.
            let mut planned = None;
            let mut set_off = None;
            for frame in 0..2_000 {
                clock.frame(&mut app);
                let has_path = app.world().get::<WalkPath>(walker).is_some();
                if has_path && planned.is_none() {
                    planned = Some(frame);
                }
                if position(&app, walker) != start {
                    set_off = Some(frame);
                    break;
                }
            }
            let (planned, set_off) = (planned.unwrap(), set_off.expect("sets off"));
            let in_place = turns(&app, walker);
            assert_eq!(
                in_place, expected,
                "{pace:?}: the turns before the first step"
            );
            // Each turn waits its 0.1 s (6.25 frames of 16 ms): the last turn, and the
            // step, come in the frame its time is up.
            let least = (expected.len() as f32 * turn / 0.016).ceil() as usize;
            let frames = set_off + 1 - planned;
            match pace {
                Pace::Exact(_) => assert_eq!(frames, least, "{pace:?}: frames to set off"),
                Pace::Paced => assert!(
                    (least..=least + 1).contains(&frames),
                    "{pace:?}: {frames} frames to set off, {least} expected"
                ),
            }
            run_until(&mut app, 2_000, |world| {
                world.get::<WalkPath>(walker).is_none()
            });
            assert!(position(&app, walker).distance(target) < 0.5);
            assert_contract(app.world().resource::<Log>(), &[id]);
            assert!(
                app.world()
                    .resource::<Log>()
                    .both()
                    .iter()
                    .any(|e| e.request == id && matches!(e.kind, Kind::Arrived(_))),
                "{pace:?}: arrived"
            );
        }
    }
}

/// A walk cycle's frame changes each time the walker has walked one stride times its
/// scale, at every speed and scale (feet that do not slide), and shows no frame
/// while the walker stands. Under both paces.
#[test]
fn a_walk_cycle_shows_the_next_frame_each_stride_at_every_speed_and_scale() {
    use common::Pace;
    for pace in Pace::BOTH {
        // At most a stride (scaled) a frame: the cycle shows every frame.
        for speed in [20.0, 60.0] {
            for scale in [1.0, 0.5] {
                let (mut app, _) = wall_room_app(pace.plugin());
                let start = px(3, 44);
                let walker = spawn_walker(&mut app, Walker::new(speed), start);
                let stride = 2.0;
                app.world_mut()
                    .entity_mut(walker)
                    .insert(WalkCycle::new(4, stride));
                app.world_mut().get_mut::<Transform>(walker).unwrap().scale = Vec3::splat(scale);
                let mut clock = pace.clock();
                clock.frames(&mut app, 3);
                let cycle = |app: &App| app.world().get::<WalkCycle>(walker).unwrap().frame();
                assert_eq!(cycle(&app), None, "standing");
                let target = px(25, 44);
                request(&mut app, walker, target);
                // Where the walker stood at each change of frame.
                let mut changes: Vec<(Option<u16>, Vec2)> = Vec::new();
                for _ in 0..3_000 {
                    clock.frame(&mut app);
                    let frame = cycle(&app);
                    if changes.last().is_none_or(|&(last, _)| last != frame) {
                        changes.push((frame, position(&app, walker)));
                    }
                    if frame.is_none() && changes.len() > 1 {
                        break;
                    }
                }
                let walking: Vec<_> = changes.iter().filter(|(f, _)| f.is_some()).collect();
                assert!(walking.len() >= 10, "{pace:?} {speed} {scale}: {changes:?}");
                // One frame a stride (scaled), give or take a frame's step.
                let step = speed * 0.016;
                for pair in walking.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    assert_eq!(
                        b.0,
                        Some((a.0.unwrap() + 1) % 4),
                        "{pace:?} {speed} {scale}: frames in order"
                    );
                    let walked = a.1.distance(b.1);
                    assert!(
                        (walked - stride * scale).abs() <= step + 1e-3,
                        "{pace:?} speed {speed}, scale {scale}: {walked} walked in a frame of the cycle"
                    );
                }
                assert_eq!(changes.last().unwrap().0, None, "stands at the end");
                assert!(position(&app, walker).distance(target) < 0.5);
            }
        }
    }
}
