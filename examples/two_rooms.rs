//! Two rooms and the ways between them: exit hotspots and spawn points.
//!
//! `cargo run --example two_rooms` (needs a display).
//!
//! Controls: click to walk; click the garden path at the lobby's right edge (past the
//! gate) to go out into the garden, and the path at the garden's left edge to come
//! back.
//!
//! Both rooms are in the world at once, side by side, and the camera shows the one
//! the player is in (its `CurrentRoom`). A way out is a `Hotspot` with a `RoomExit`:
//! a click on it walks the player to its walk-to point and on out of the picture
//! (`with_walk_off`), and then the player gets `RoomExitRequested`, naming the room
//! and the spawn point it leads to. The game changes room: here `enter_room` puts the
//! player at the `SpawnPoint` of that name, a child of the other room.

use bevy::prelude::*;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin: the walkmask plugin, the rooms and the change of
/// room.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        .add_systems(Update, show_the_players_room)
        .add_observer(change_room);
}

/// Where the garden lies: its centre, beside the lobby (which is at the origin).
pub const GARDEN: Vec2 = Vec2::new(2400.0, 0.0);

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
    let lobby = spawn_room(&mut commands, &assets, "lobby", Vec2::ZERO);
    let garden = spawn_room(&mut commands, &assets, "garden", GARDEN);

    // The lobby's way out: the garden path (hotspot 5 of its layer). Points in a
    // room are room pixels (x right, y down, as in an image editor), wherever the
    // room is drawn; walking off goes past the picture's edge.
    commands.spawn((
        Hotspot::new(5, "garden path").with_walk_to(Vec2::new(1872.0, 540.0)),
        RoomExit::new("garden", "from the lobby").with_walk_off(Vec2::new(1982.0, 540.0)),
        ChildOf(lobby),
    ));
    commands.spawn((
        SpawnPoint::new("from the garden", Vec2::new(1850.0, 540.0)).facing(FacingDirection::Left),
        ChildOf(lobby),
    ));
    // The garden's way back: the path at its left edge (hotspot 1 of its layer).
    commands.spawn((
        Hotspot::new(1, "path to the lobby").with_walk_to(Vec2::new(70.0, 760.0)),
        RoomExit::new("lobby", "from the garden").with_walk_off(Vec2::new(-60.0, 760.0)),
        ChildOf(garden),
    ));
    commands.spawn((
        SpawnPoint::new("from the lobby", Vec2::new(110.0, 760.0)).facing(FacingDirection::Right),
        ChildOf(garden),
    ));

    commands.spawn((
        Walker::new(400.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        bevy::sprite::Anchor::BOTTOM_CENTER, // feet on the walk point
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
}

/// A room called `name` centred at `at`: its picture, walk mask and hotspot layer
/// (`rooms/<name>.png`, `.walk.png`, `.hotspots.walk.png`). The exits name rooms by
/// their `Name`.
fn spawn_room(commands: &mut Commands, assets: &AssetServer, name: &str, at: Vec2) -> Entity {
    commands
        .spawn((
            Name::new(name.to_string()),
            Sprite::from_image(assets.load(format!("rooms/{name}.png"))),
            WalkRoom::new(assets.load(format!("rooms/{name}.walk.png"))),
            WalkHotspots::new(assets.load(format!("rooms/{name}.hotspots.walk.png"))),
            Transform::from_translation(at.extend(0.0)),
        ))
        .id()
}

/// The player went out through an exit: it comes into the room the exit leads to,
/// at the spawn point the exit names.
fn change_room(
    exit: On<RoomExitRequested>,
    rooms: Query<(Entity, &Name), With<WalkRoom>>,
    mut commands: Commands,
) {
    let Some((room, _)) = rooms.iter().find(|(_, name)| name.as_str() == exit.to) else {
        warn!("no room called {}", exit.to);
        return;
    };
    info!("into the {}, {}", exit.to, exit.spawn);
    commands
        .entity(exit.entity)
        .enter_room(room, exit.spawn.clone());
}

/// The camera shows the room the player is in, whenever that changes.
fn show_the_players_room(
    player: Single<&CurrentRoom, (With<PlayerWalker>, Changed<CurrentRoom>)>,
    rooms: Query<&GlobalTransform, With<WalkRoom>>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    if let Some(room) = player.get().and_then(|room| rooms.get(room).ok()) {
        let z = camera.translation.z;
        camera.translation = room.translation().truncate().extend(z);
    }
}
