//! `examples/own_input.rs`: the game's own floor clicks walk the player to walkable
//! points, are refused on blocked ones, and are ignored while input is locked.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/own_input.rs"]
mod example;

use example::{FloorClick, InputLocked, Refused};

#[test]
fn floor_clicks_walk_refuse_or_wait_as_the_game_says() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    // No window here: the pointer system waits for one, and the test clicks the floor.
    let to = Vec2::new(300.0, -250.0);
    app.world_mut().write_message(FloorClick(to));
    frames_until(&mut app, 5_000, "the walk arrives", |world| {
        world.get::<WalkState>(player) == Some(&WalkState::Arrived)
    });
    assert!(position(&app, player).distance(to) < 1.0);

    // The top of the picture is wall: refused, and the player does not move.
    let wall = Vec2::new(0.0, 500.0);
    app.world_mut().write_message(FloorClick(wall));
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(app.world().get::<Refused>(player).unwrap().0, vec![wall]);
    assert!(position(&app, player).distance(to) < 1.0);

    // Locked: a walkable click does nothing; unlocked, it walks.
    tap(&mut app, KeyCode::Tab);
    assert!(app.world().resource::<InputLocked>().0);
    let back = Vec2::new(-500.0, -150.0);
    app.world_mut().write_message(FloorClick(back));
    for _ in 0..30 {
        app.update();
    }
    assert!(position(&app, player).distance(to) < 1.0, "locked: stands");
    tap(&mut app, KeyCode::Tab);
    app.world_mut().write_message(FloorClick(back));
    frames_until(&mut app, 5_000, "the walk back arrives", |world| {
        world
            .get::<Transform>(player)
            .is_some_and(|t| t.translation.truncate().distance(back) < 1.0)
    });
}
