//! Sequences of walker steps (feature `sequences`) and cutscenes: steps run in order,
//! each after the last one ended; a blocking sequence holds off the player's input;
//! a skip puts every walker of the scene at its destination with its final facing and
//! runs the remaining steps in order, every outcome sent exactly once.
//!
//! The usual 64 x 48 wall mask of `tests/common` (a wall at x = 30..=33 down to
//! y = 39), where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::sequence::*;
use common::{Kind, Log, Pace, assert_contract, position, px, spawn_walker, wall_room_app};

/// What the steps of a test's sequences did, in order, with the game time.
#[derive(Resource, Default)]
struct Trace(Vec<(String, f32)>);

/// A step of the game's own that writes `label` to the trace.
fn note(label: &'static str) -> impl FnMut(Entity, &mut World) -> bool + Send + Sync {
    move |_walker: Entity, world: &mut World| -> bool {
        let now = world.resource::<Time>().elapsed_secs();
        world.resource_mut::<Trace>().0.push((label.into(), now));
        true
    }
}

fn app(pace: Pace) -> App {
    let (mut app, _room) = wall_room_app(pace.plugin());
    app.init_resource::<Trace>();
    app
}

/// The requests `walker` made, in the order they were first heard of.
fn requests_of(app: &App, walker: Entity) -> Vec<RequestId> {
    let mut ids = Vec::new();
    for entry in &app.world().resource::<Log>().observed {
        if entry.entity == walker && !ids.contains(&entry.request) {
            ids.push(entry.request);
        }
    }
    ids
}

fn kinds(app: &App, id: RequestId) -> Vec<Kind> {
    app.world().resource::<Log>().kinds(id)
}

fn arrived_at(app: &App, id: RequestId) -> Option<Vec2> {
    kinds(app, id).into_iter().find_map(|kind| match kind {
        Kind::Arrived(at) => Some(at),
        _ => None,
    })
}

fn add_steps(app: &mut App, walker: Entity, steps: impl IntoBoxedActions) {
    app.world_mut().actions(walker).add(steps);
}

fn idle(app: &App, walker: Entity) -> bool {
    app.world()
        .get::<bevy_sequential_actions::CurrentAction>(walker)
        .is_some_and(|current| current.is_none())
        && app
            .world()
            .get::<bevy_sequential_actions::ActionQueue>(walker)
            .is_some_and(|queue| queue.is_empty())
}

use bevy_sequential_actions::IntoBoxedActions;

/// Walk, turn, wait, the game's step, and a walk round the wall: each starts when the
/// last has ended, the wait waits its time, and every walk is answered and ends once.
#[test]
fn a_sequence_runs_its_steps_in_order_each_after_the_last_ended() {
    for pace in Pace::BOTH {
        let mut app = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(120.0), px(10, 20));
        app.world_mut().entity_mut(walker).insert(Facing::four());
        let (first, second) = (px(20, 20), px(50, 20));
        add_steps(
            &mut app,
            walker,
            (
                WalkTo::new(first),
                Face::new(FacingDirection::Up),
                note("turned"),
                Wait::seconds(0.25),
                note("waited"),
                WalkTo::new(second).facing(FaceTarget::Direction(FacingDirection::Left)),
                note("done"),
            ),
        );
        let mut clock = pace.clock();
        let mut facing_when_turned = None;
        clock.until(&mut app, 600, |w| {
            if facing_when_turned.is_none() && !w.resource::<Trace>().0.is_empty() {
                facing_when_turned = w.get::<Facing>(walker).map(|f| f.direction);
            }
            w.resource::<Trace>().0.len() == 3
        });
        let ids = requests_of(&app, walker);
        assert_eq!(ids.len(), 2, "{pace:?}: two walks, {ids:?}");
        assert_contract(app.world().resource::<Log>(), &ids);
        let log = app.world().resource::<Log>();
        let first_end = log
            .observed
            .iter()
            .position(|e| e.request == ids[0] && e.kind.is_end())
            .unwrap();
        let second_start = log
            .observed
            .iter()
            .position(|e| e.request == ids[1])
            .unwrap();
        assert!(
            first_end < second_start,
            "{pace:?}: the second walk after the first"
        );
        assert_eq!(arrived_at(&app, ids[0]), Some(first), "{pace:?}");
        assert_eq!(arrived_at(&app, ids[1]), Some(second), "{pace:?}");
        assert_eq!(facing_when_turned, Some(FacingDirection::Up), "{pace:?}");
        let facing = app.world().get::<Facing>(walker).unwrap().direction;
        assert_eq!(
            facing,
            FacingDirection::Left,
            "{pace:?}: the last walk's facing"
        );
        let trace = &app.world().resource::<Trace>().0;
        let labels: Vec<&str> = trace.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["turned", "waited", "done"], "{pace:?}");
        let waited = trace[1].1 - trace[0].1;
        assert!(
            (0.25..0.25 + 0.05).contains(&waited),
            "{pace:?}: waited {waited} s of game time"
        );
        assert!(idle(&app, walker), "{pace:?}: the queue is empty");
    }
}

/// A scene of two walkers at `speed`, each with its sequence: the hero walks, waits
/// `wait` seconds, notes "hero waited", walks round the wall to face down and notes
/// "hero there"; the sidekick walks to face left. Returns `[hero, sidekick]`.
fn spawn_scene(app: &mut App, speed: f32, wait: f32) -> [Entity; 2] {
    let hero = spawn_walker(app, Walker::new(speed), px(5, 10));
    let sidekick = spawn_walker(app, Walker::new(speed), px(5, 30));
    for walker in [hero, sidekick] {
        app.world_mut().entity_mut(walker).insert(Facing::four());
    }
    add_steps(
        app,
        hero,
        (
            StartCutscene,
            WalkTo::new(px(20, 10)),
            Wait::seconds(wait),
            note("hero waited"),
            // Round the wall.
            WalkTo::new(px(55, 10)).facing(FaceTarget::Direction(FacingDirection::Down)),
            note("hero there"),
            EndCutscene,
        ),
    );
    add_steps(
        app,
        sidekick,
        (
            StartCutscene,
            WalkTo::new(px(50, 30)).facing(FaceTarget::Direction(FacingDirection::Left)),
            EndCutscene,
        ),
    );
    [hero, sidekick]
}

/// Two walkers in a scene and one walking in the background; the scene is skipped
/// while they walk. Both end at their destinations facing their last way, the step
/// after the skipped wait runs, the scene ends, every request is answered and ends
/// once, and the background walker walks on at its own pace.
#[test]
fn skipping_a_cutscene_finishes_every_walk_of_the_scene_and_runs_the_rest_in_order() {
    for pace in Pace::BOTH {
        let mut app = app(pace);
        let [hero, sidekick] = spawn_scene(&mut app, 40.0, 30.0);
        let passer = spawn_walker(&mut app, Walker::new(40.0), px(5, 44));
        add_steps(&mut app, passer, WalkTo::new(px(60, 44)));
        let mut clock = pace.clock();
        clock.frames(&mut app, 6);
        assert!(app.world().resource::<Cutscene>().is_running());
        let passer_before = position(&app, passer);
        app.world_mut().commands().skip_cutscene();
        let frames = clock.until(&mut app, 200, |w| !w.resource::<Cutscene>().is_running());
        if let Pace::Exact(n) = pace {
            // The walks under way end in the first frame; the hero's next walk starts
            // in that frame's `Last`, is answered `n` frames later and ends there, and
            // the scene's last step runs in the frame after.
            assert_eq!(frames, n as usize + 2, "{pace:?}");
        }
        assert!(frames <= 30, "{pace:?}: the skip took {frames} frames");
        let passer_walked = position(&app, passer).distance(passer_before);
        assert!(
            passer_walked <= 40.0 * 0.016 * (frames as f32 + 1.0) + 1e-3,
            "{pace:?}: the background walk is not skipped ({passer_walked})"
        );
        let (hero_ids, sidekick_ids) = (requests_of(&app, hero), requests_of(&app, sidekick));
        assert_eq!(hero_ids.len(), 2, "{pace:?}");
        assert_eq!(sidekick_ids.len(), 1, "{pace:?}");
        let log = app.world().resource::<Log>();
        assert_contract(log, &[hero_ids.clone(), sidekick_ids.clone()].concat());
        assert_eq!(arrived_at(&app, hero_ids[0]), Some(px(20, 10)), "{pace:?}");
        assert_eq!(arrived_at(&app, hero_ids[1]), Some(px(55, 10)), "{pace:?}");
        assert_eq!(
            arrived_at(&app, sidekick_ids[0]),
            Some(px(50, 30)),
            "{pace:?}"
        );
        assert_eq!(position(&app, hero), px(55, 10));
        assert_eq!(position(&app, sidekick), px(50, 30));
        let facing = |e| app.world().get::<Facing>(e).unwrap().direction;
        assert_eq!(facing(hero), FacingDirection::Down, "{pace:?}");
        assert_eq!(facing(sidekick), FacingDirection::Left, "{pace:?}");
        let labels: Vec<String> = app
            .world()
            .resource::<Trace>()
            .0
            .iter()
            .map(|t| t.0.clone())
            .collect();
        assert_eq!(labels, ["hero waited", "hero there"], "{pace:?}");
        assert!(
            !app.world().resource::<Cutscene>().is_skipping(),
            "{pace:?}"
        );
        // The next scene is not skipped.
        add_steps(
            &mut app,
            hero,
            (StartCutscene, WalkTo::new(px(60, 20)), EndCutscene),
        );
        clock.frames(&mut app, 10);
        assert!(app.world().resource::<Cutscene>().is_running(), "{pace:?}");
        assert!(position(&app, hero).distance(px(60, 20)) > 1.0, "{pace:?}");
    }
}

/// How a scene of the hero and the sidekick ended: where each stands and faces, the
/// game's own steps that ran, and where each of their walks arrived, in order.
#[derive(Debug, PartialEq)]
struct SceneEnd {
    positions: [Vec2; 2],
    facings: [FacingDirection; 2],
    labels: Vec<String>,
    arrivals: [Vec<Option<Vec2>>; 2],
}

/// Plays the scene of [`spawn_scene`], skipped after `skip_at` frames when given, to
/// its end; checks that every request was answered and ended once.
fn play_scene(pace: Pace, skip_at: Option<usize>) -> SceneEnd {
    let mut app = app(pace);
    let [hero, sidekick] = spawn_scene(&mut app, 60.0, 0.3);
    let mut clock = pace.clock();
    clock.frame(&mut app);
    if let Some(skip_at) = skip_at {
        clock.frames(&mut app, skip_at);
        app.world_mut().commands().skip_cutscene();
    }
    clock.until(&mut app, 2000, |w| !w.resource::<Cutscene>().is_running());
    // The walkers' last outcomes are sent.
    clock.frames(&mut app, 2);
    let ids = [requests_of(&app, hero), requests_of(&app, sidekick)];
    assert_contract(app.world().resource::<Log>(), &ids.concat());
    let facing = |e| app.world().get::<Facing>(e).unwrap().direction;
    SceneEnd {
        positions: [position(&app, hero), position(&app, sidekick)],
        facings: [facing(hero), facing(sidekick)],
        labels: app
            .world()
            .resource::<Trace>()
            .0
            .iter()
            .map(|t| t.0.clone())
            .collect(),
        arrivals: ids.map(|ids| ids.iter().map(|&id| arrived_at(&app, id)).collect()),
    }
}

/// A scene skipped at any frame, from its first to its last, ends as it ends played
/// through: every walker where it would stand, facing its last way, the game's steps
/// run in order, each walk arrived where it would have, every outcome sent once.
/// Every frame under `AfterFrames`; a few paced.
#[test]
fn a_cutscene_skipped_at_any_frame_ends_as_it_ends_played_through() {
    for pace in Pace::BOTH {
        let played = play_scene(pace, None);
        assert_eq!(
            played.positions,
            [px(55, 10), px(50, 30)],
            "{pace:?}: {played:?}"
        );
        let every = match pace {
            Pace::Exact(_) => 1,
            _ => 17,
        };
        // The scene lasts about 1.5 s: 90 frames.
        for skip_at in (0..100).step_by(every) {
            let skipped = play_scene(pace, Some(skip_at));
            assert_eq!(skipped, played, "{pace:?}: skipped after {skip_at} frames");
        }
    }
}

/// A click of the left button at `at`, pressed one frame and let go the next.
fn click(app: &mut App, clock: &mut common::FrameClock, window: Entity, at: Vec2) {
    common::put_cursor(app, window, at);
    common::left_button(app, window, true);
    clock.frame(app);
    common::left_button(app, window, false);
    clock.frame(app);
}

/// While the player's blocking sequence runs, clicks and the arrow keys' steering do
/// nothing, and the scene's walk goes on; once it has ended, a click walks again.
#[test]
fn a_blocking_sequence_holds_off_clicks_and_steering_until_it_ends() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(WalkmaskPlugin {
            click_input: ClickInput::Cursor,
            ..pace.plugin()
        });
        app.init_resource::<Trace>();
        let player = spawn_walker(&mut app, Walker::new(60.0), px(10, 20));
        app.world_mut().entity_mut(player).insert(PlayerWalker);
        let window = common::window_and_camera(&mut app);
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let scene_end = px(20, 44);
        add_steps(
            &mut app,
            player,
            (
                StartCutscene,
                WalkTo::new(scene_end),
                EndCutscene,
                note("over"),
            ),
        );
        clock.frames(&mut app, 3);
        click(&mut app, &mut clock, window, px(10, 5));
        app.world_mut()
            .entity_mut(player)
            .insert(WalkInput(Vec2::new(1.0, 0.0)));
        clock.until(&mut app, 600, |w| !w.resource::<Trace>().0.is_empty());
        assert_eq!(position(&app, player), scene_end, "{pace:?}");
        let ids = requests_of(&app, player);
        assert_eq!(ids.len(), 1, "{pace:?}: only the scene's walk, {ids:?}");
        assert_eq!(arrived_at(&app, ids[0]), Some(scene_end), "{pace:?}");
        // Over: steering and clicks work again.
        app.world_mut().entity_mut(player).remove::<WalkInput>();
        clock.frames(&mut app, 2);
        click(&mut app, &mut clock, window, px(10, 40));
        clock.until(&mut app, 600, |w| {
            w.get::<Transform>(player)
                .unwrap()
                .translation
                .truncate()
                .distance(px(10, 40))
                < 1e-3
        });
        let ids = requests_of(&app, player);
        assert_eq!(ids.len(), 2, "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// A scene's sequence cleared in mid-walk stops the walk (once, `Stopped`) and, its
/// queue dry, lets the player's clicks through again; a walker despawned in a scene
/// ends the scene with it.
#[test]
fn a_cleared_sequence_stops_its_walk_once_and_a_despawn_ends_the_scene() {
    for pace in Pace::BOTH {
        let mut app = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(40.0), px(5, 10));
        let other = spawn_walker(&mut app, Walker::new(40.0), px(5, 30));
        add_steps(
            &mut app,
            walker,
            (
                StartCutscene,
                WalkTo::new(px(25, 10)),
                note("never"),
                EndCutscene,
            ),
        );
        add_steps(
            &mut app,
            other,
            (StartCutscene, WalkTo::new(px(25, 30)), note("never either")),
        );
        let mut clock = pace.clock();
        clock.until(&mut app, 200, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Walking)
        });
        clock.frames(&mut app, 3);
        app.world_mut().actions(walker).clear();
        clock.frames(&mut app, 2);
        let ids = requests_of(&app, walker);
        assert_eq!(ids.len(), 1, "{pace:?}");
        assert!(
            matches!(
                kinds(&app, ids[0]).last(),
                Some(Kind::Stopped(StopReason::Stopped, _))
            ),
            "{pace:?}: {:?}",
            kinds(&app, ids[0])
        );
        assert!(app.world().get::<InCutscene>(walker).is_none(), "{pace:?}");
        assert!(
            app.world().resource::<Cutscene>().is_running(),
            "{pace:?}: the other"
        );
        let others = requests_of(&app, other);
        app.world_mut().entity_mut(other).despawn();
        clock.frames(&mut app, 2);
        assert!(!app.world().resource::<Cutscene>().is_running(), "{pace:?}");
        assert!(app.world().resource::<Trace>().0.is_empty(), "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &[ids, others].concat());
        let position_now = position(&app, walker);
        clock.frames(&mut app, 20);
        assert_eq!(position(&app, walker), position_now, "{pace:?}: stopped");
    }
}

/// A walk given through the world's queued commands, then the walker's sequence
/// cleared before they are applied: clearing stops the step's walk, the queued walk
/// starts while it does and is stopped with it, and the walker is left standing,
/// every request answered once.
#[test]
fn a_sequence_cleared_after_a_queued_walk_leaves_the_walker_standing() {
    for pace in Pace::BOTH {
        let mut app = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(40.0), px(5, 10));
        add_steps(&mut app, walker, (WalkTo::new(px(25, 10)), note("never")));
        let mut clock = pace.clock();
        clock.until(&mut app, 200, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Walking)
        });
        let world = app.world_mut();
        world.commands().entity(walker).walk_anywhere([], px(5, 40));
        world.actions(walker).clear();
        world.flush();
        clock.frames(&mut app, 3);
        let ids = requests_of(&app, walker);
        assert_eq!(ids.len(), 2, "{pace:?}: {ids:?}");
        assert_contract(app.world().resource::<Log>(), &ids);
        let world = app.world();
        assert!(world.get::<WalkPath>(walker).is_none(), "{pace:?}");
        assert_eq!(
            world.get::<WalkState>(walker),
            Some(&WalkState::Idle),
            "{pace:?}: standing, not walking with no walk"
        );
        let position_now = position(&app, walker);
        clock.frames(&mut app, 10);
        assert_eq!(position(&app, walker), position_now, "{pace:?}: stands");
    }
}
