//! Walking with the arrow keys or a gamepad's left stick (or d-pad), beside clicks.
//!
//! ```text
//! cargo run --example keyboard_and_gamepad
//! ```
//!
//! While a direction is held, the player walks that way and slides along walls
//! ([`WalkInput`]); a click still walks to the clicked point, and steering again
//! takes over from that walk (it ends as `Superseded`). The stick's length sets the
//! speed: half way is half speed. `F` turns the player towards the middle of the
//! room without walking (`face`).

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        // Before the walk moves, so the player turns the frame the key goes down.
        .add_systems(Update, (steer, turn).before(WalkmaskSystems::Move));
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn((
        Sprite::from_image(assets.load("rooms/lobby.png")),
        WalkRoom::new(assets.load("rooms/lobby.walk.png")),
    ));
    commands.spawn((
        Walker::new(400.0).with_radius(12.0),
        PlayerWalker,
        WalkInput::default(),
        Facing::eight(),
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
}

/// The held direction: the arrow keys, else the first gamepad's stick or d-pad.
fn steer(
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    mut players: Query<&mut WalkInput, With<PlayerWalker>>,
) {
    let mut direction = WalkInput::from_arrow_keys(&keys).0;
    if direction == Vec2::ZERO
        && let Some(gamepad) = gamepads.iter().next()
    {
        let stick = gamepad.left_stick();
        // A dead zone, so a stick at rest does not creep.
        direction = if stick.length() > 0.15 {
            stick
        } else {
            gamepad.dpad()
        };
    }
    for mut input in &mut players {
        input.set_if_neq(WalkInput(direction));
    }
}

/// `F`: face left or right, towards the side of the room the player is not on.
fn turn(
    keys: Res<ButtonInput<KeyCode>>,
    mut commands: Commands,
    players: Query<(Entity, &Transform), With<PlayerWalker>>,
) {
    if !keys.just_pressed(KeyCode::KeyF) {
        return;
    }
    for (player, transform) in &players {
        let way = if transform.translation.x < 0.0 {
            FacingDirection::Right
        } else {
            FacingDirection::Left
        };
        commands.entity(player).face(FaceTarget::Direction(way));
    }
}
