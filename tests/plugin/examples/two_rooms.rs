//! `examples/two_rooms.rs`: the lobby's garden path takes the player into the garden,
//! at its spawn point, and the garden's path takes it back.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/two_rooms.rs"]
mod example;

/// Every `RoomExitRequested`, as (walker, to, spawn point).
#[derive(Resource, Default)]
struct Exits(Vec<(Entity, String, String)>);

fn room_named(app: &mut App, name: &str) -> Entity {
    app.world_mut()
        .query_filtered::<(Entity, &Name), With<WalkRoom>>()
        .iter(app.world())
        .find(|(_, n)| n.as_str() == name)
        .map(|(entity, _)| entity)
        .unwrap_or_else(|| panic!("no room called {name}"))
}

/// The exit hotspot of `room`.
fn exit_of(app: &mut App, room: Entity) -> Entity {
    app.world_mut()
        .query_filtered::<(Entity, &ChildOf), With<RoomExit>>()
        .iter(app.world())
        .find(|(_, child_of)| child_of.parent() == room)
        .map(|(entity, _)| entity)
        .expect("the room has an exit")
}

fn current_room(world: &World, walker: Entity) -> Option<Entity> {
    world.get::<CurrentRoom>(walker).and_then(CurrentRoom::get)
}

fn camera_x(app: &mut App) -> f32 {
    app.world_mut()
        .query_filtered::<&Transform, With<Camera2d>>()
        .single(app.world())
        .unwrap()
        .translation
        .x
}

/// Takes the player out through `room`'s exit and waits until it is in `to`.
fn go_through_exit(app: &mut App, player: Entity, room: Entity, to: Entity) {
    let exit = exit_of(app, room);
    app.world_mut()
        .commands()
        .entity(player)
        .interact(exit, Verb::INTERACT);
    frames_until(app, 20_000, "the player changes room", |world| {
        current_room(world, player) == Some(to)
    });
    // The camera follows in the frame after.
    app.update();
}

#[test]
fn the_exits_take_the_player_into_the_garden_and_back() {
    let mut app = example_app(example::example);
    app.init_resource::<Exits>().add_observer(
        |exit: On<RoomExitRequested>, mut exits: ResMut<Exits>| {
            exits
                .0
                .push((exit.entity, exit.to.clone(), exit.spawn.clone()));
        },
    );
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    let (lobby, garden) = (
        room_named(&mut app, "lobby"),
        room_named(&mut app, "garden"),
    );
    frames_until(&mut app, 100, "the player is in the lobby", |world| {
        current_room(world, player) == Some(lobby)
    });

    go_through_exit(&mut app, player, lobby, garden);
    let exits = &app.world().resource::<Exits>().0;
    assert_eq!(
        exits,
        &[(player, "garden".into(), "from the lobby".into())],
        "one exit"
    );
    // The garden's spawn point, room pixel (110, 760), with the garden at x = 2400.
    let at = position(&app, player);
    assert!(
        at.distance(Vec2::new(1550.0, -220.0)) < 0.5,
        "came in at {at}"
    );
    assert_eq!(
        app.world().get::<Walker>(player).unwrap().room,
        Some(garden)
    );
    let facing = app.world().get::<Facing>(player).unwrap().direction;
    assert_eq!(facing, FacingDirection::Right);
    assert_eq!(camera_x(&mut app), example::GARDEN.x);

    // It walks in the garden as in any room: to the pond's near side.
    let to = Vec2::new(2360.0, -300.0);
    let arrived = walk_and_arrive(&mut app, player, to);
    assert!(arrived.distance(to) < 1.0, "arrived at {arrived}");
    assert_eq!(current_room(app.world(), player), Some(garden));

    go_through_exit(&mut app, player, garden, lobby);
    assert_eq!(app.world().resource::<Exits>().0.len(), 2, "two exits");
    // The lobby's spawn point, room pixel (1850, 540).
    let at = position(&app, player);
    assert!(at.distance(Vec2::new(890.0, 0.0)) < 0.5, "came in at {at}");
    assert_eq!(camera_x(&mut app), 0.0);
}
