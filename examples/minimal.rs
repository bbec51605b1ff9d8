//! The least code that uses the plugin: a room from an asset, a player sprite, click
//! to walk.
//!
//! `cargo run --example minimal` (needs a display). The room is the 1920 x 1080
//! lobby in `assets/rooms/`: `lobby.png` is the picture, `lobby.walk.png` its walk
//! mask (same size, so one world unit per mask pixel).

use bevy::prelude::*;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin: the walkmask plugin and the room.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup);
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    // Show the whole 1920 x 1080 room in the default 1280 x 720 window.
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
        Walker::new(400.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        bevy::sprite::Anchor::BOTTOM_CENTER, // feet on the walk point
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
}
