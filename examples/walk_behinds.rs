//! Walk-behinds and depth: the player walks behind the lobby's pillars, and grows as
//! it comes toward the camera.
//!
//! `cargo run --example walk_behinds` (needs a display).
//!
//! Controls: click to walk; walk between a pillar and the back wall, then in front
//! of the pillar.
//!
//! The picture is flat, so the pillars must be drawn again over a player who walks
//! behind them. `lobby.behind.walk.png` paints them (ids 1 and 2, at the picture's
//! size); `WalkBehinds` cuts those pixels out of `lobby.png` into sprites, children
//! of the room, each with a baseline: the row of the picture (room pixels, y down)
//! where the pillar stands on the floor. Everything with a `Baseline` is then drawn in the order of the baselines,
//! lower in front: the player's is its feet (`Baseline::Feet`), so above a pillar's
//! baseline it is behind the pillar, below it in front. `DepthSorting` says over
//! which z values they are spread, in front of the room's picture.
//!
//! `WalkScaling` on the room scales walkers with a `DepthScale` by where their feet
//! are: here from the lobby's scale map, `lobby.scale.png`, a grey image (0.8 at
//! black, 1.8 at white) painted to match the picture's perspective. With
//! `with_speed(true)` the player's speed follows its size.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin: the walkmask plugin, the room and the player.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        // The default, spelled out: sorted entities get z from 1 (farthest back) to
        // 100 (in front); the room's picture stays at z 0, behind them all.
        .insert_resource(DepthSorting {
            enabled: true,
            back: 1.0,
            front: 100.0,
        })
        .add_systems(Startup, setup);
}

/// Where both pillars stand on the floor: row 657 of the picture.
pub const PILLAR_BASELINE: f32 = 657.0;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
    let picture = assets.load("rooms/lobby.png");
    commands.spawn((
        Sprite::from_image(picture.clone()),
        WalkRoom::new(assets.load("rooms/lobby.walk.png")),
        // The pillars, cut from the picture and sorted at their baselines.
        WalkBehinds::new(assets.load("rooms/lobby.behind.walk.png"), picture)
            .with_walk_behind(1, PILLAR_BASELINE)
            .with_walk_behind(2, PILLAR_BASELINE),
        // Grey 0 is scale 0.8, grey 255 scale 1.8.
        WalkScaling::default().with_map(assets.load("rooms/lobby.scale.png"), 0.8, 1.8),
    ));
    commands.spawn((
        Walker::new(250.0),
        PlayerWalker,
        // Its size (and speed) follow the room's scale where its feet are.
        DepthScale::default().with_speed(true),
        // Sorted by its feet among the walk-behinds.
        Baseline::Feet,
        // A person 230 pixels tall at scale 1, as the scale map was painted for.
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(56.0, 230.0)),
        Anchor::BOTTOM_CENTER, // feet on the walk point
        Transform::from_xyz(-500.0, -150.0, 0.0),
    ));
}
