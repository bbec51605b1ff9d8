//! `examples/cutscene.rs`: the butler's and the guest's sequences play to their end,
//! the caption says the butler's line, and `Escape` skips the scene, leaving both
//! where and how the scene leaves them; `C` plays it again.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/cutscene.rs"]
mod example;

use example::{BUTLER_END, Butler, Caption, GUEST_END, GUEST_START, MEET};

fn cast(app: &mut App) -> (Entity, Entity) {
    let world = app.world_mut();
    let butler = world
        .query_filtered::<Entity, With<Butler>>()
        .single(world)
        .expect("one butler");
    (player(app), butler)
}

fn caption(app: &mut App) -> String {
    let world = app.world_mut();
    world
        .query_filtered::<&Text, With<Caption>>()
        .single(world)
        .expect("one caption")
        .0
        .clone()
}

fn facing(app: &App, walker: Entity) -> FacingDirection {
    app.world().get::<Facing>(walker).unwrap().direction
}

fn running(world: &mut World) -> bool {
    world.resource::<Cutscene>().is_running()
}

/// Both end where the scene leaves them, facing its last ways.
fn assert_scene_end(app: &mut App) {
    let (guest, butler) = cast(app);
    assert!(position(app, guest).distance(GUEST_END) < 1.0);
    assert!(position(app, butler).distance(BUTLER_END) < 1.0);
    assert_eq!(facing(app, guest), FacingDirection::Up);
    assert_eq!(facing(app, butler), FacingDirection::Left);
    assert_eq!(caption(app), "");
}

#[test]
fn the_scene_plays_to_its_end_with_the_butler_s_line() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    assert!(running(app.world_mut()), "the scene starts at once");
    let mut said = false;
    for _ in 0..20_000 {
        app.update();
        said |= caption(&mut app) == "Dinner is served, sir.";
        if !running(app.world_mut()) {
            break;
        }
    }
    assert!(said, "the caption showed the line");
    assert_scene_end(&mut app);
}

#[test]
fn escape_skips_the_scene_and_c_plays_it_again() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    // Frames run back to back: the room's grid takes many of them to build.
    frames_until(&mut app, 20_000, "the guest walks", |world| {
        let guest = world
            .query_filtered::<&WalkState, With<PlayerWalker>>()
            .single(world)
            .unwrap();
        *guest == WalkState::Walking
    });
    tap(&mut app, KeyCode::Escape);
    // The guest jumps from where it stood to the meeting point and on to its end,
    // never walking in between. (Searches take many frames run back to back.)
    let (guest, _) = cast(&mut app);
    let from = position(&app, guest);
    for frame in 0.. {
        assert!(frame < 20_000, "the skipped scene ends");
        app.update();
        let at = position(&app, guest);
        assert!(
            [from, MEET, GUEST_END].iter().any(|p| p.distance(at) < 1.0),
            "frame {frame}: the guest walks at {at}"
        );
        if !running(app.world_mut()) {
            break;
        }
    }
    assert_scene_end(&mut app);
    tap(&mut app, KeyCode::KeyC);
    assert!(running(app.world_mut()), "playing again");
    let (guest, _) = cast(&mut app);
    assert!(position(&app, guest).distance(GUEST_START) < 20.0);
}
