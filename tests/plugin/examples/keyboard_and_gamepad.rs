//! `examples/keyboard_and_gamepad.rs`: a held arrow key walks the player that way
//! and takes over from a walk; releasing it stops; `F` turns without walking.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/keyboard_and_gamepad.rs"]
mod example;

#[test]
fn arrow_keys_steer_the_player_and_take_over_from_a_walk() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    // A first short walk, which has the room's grid built: steering waits for it.
    let start = walk_and_arrive(&mut app, player, Vec2::new(-500.0, -170.0));

    // Right arrow held for 30 frames (16 ms each) at 400 units a second.
    key_event(&mut app, KeyCode::ArrowRight, true);
    for _ in 0..30 {
        app.update();
    }
    let moved = position(&app, player) - start;
    assert!(moved.x > 150.0 && moved.y.abs() < 1.0, "moved {moved}");
    key_event(&mut app, KeyCode::ArrowRight, false);
    app.update();
    let stopped = position(&app, player);
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(position(&app, player), stopped, "released: stands");
    assert_eq!(
        app.world().get::<Facing>(player).unwrap().direction,
        FacingDirection::Right
    );

    // A walk to the left, then the up arrow: the walk ends, superseded.
    let stopped_reasons = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = stopped_reasons.clone();
    app.add_observer(move |stopped: On<WalkStopped>| {
        seen.lock().unwrap().push(stopped.reason);
    });
    let request = WalkRequest::new(player, Vec2::new(-700.0, -150.0));
    app.world_mut().write_message(request);
    frames_until(&mut app, 5_000, "the walk is under way", |world| {
        world.get::<WalkState>(player) == Some(&WalkState::Walking)
    });
    key_event(&mut app, KeyCode::ArrowUp, true);
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        *stopped_reasons.lock().unwrap(),
        vec![StopReason::Superseded]
    );
    key_event(&mut app, KeyCode::ArrowUp, false);
    app.update();

    // `F` at the left of the room: faces right, without a step.
    let here = position(&app, player);
    assert!(here.x < 0.0);
    tap(&mut app, KeyCode::KeyF);
    assert_eq!(
        app.world().get::<Facing>(player).unwrap().direction,
        FacingDirection::Right
    );
    assert_eq!(position(&app, player), here);
}
