//! Regions: parts of the room that colour, slow or stop the walkers in them.
//!
//! `cargo run --example regions` (needs a display).
//!
//! Controls: click to walk; `B` ropes the rug off (it blocks the way: walks go round
//! it) and opens it again.
//!
//! The lobby's region layer, `lobby.regions.walk.png`, is an image of ids a quarter
//! of the room's size (its `.meta` reads the grey levels as ids): 1 is the rug, 2 the
//! garden past the gate. `WalkRegions` names them and says what each does to the
//! walkers in it: the rug lights them warmly, fading in over its edge; the garden
//! tints them with daylight and slows them down (wet grass). The player carries
//! `TintedByRegion`, so its sprite takes its region's colour. Every walker that
//! crosses a region's edge gets `RegionEntered` or `RegionExited`, logged here.

use bevy::prelude::*;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin: the walkmask plugin, the room and its regions.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        .add_systems(Update, rope_off_the_rug)
        .add_observer(log_entered)
        .add_observer(log_exited);
}

/// The rug's id in the region layer.
pub const RUG: u8 = 1;
/// The garden's id in the region layer.
pub const GARDEN: u8 = 2;

/// The player's own colour: its sprite's colour outside the regions.
pub const PLAYER_COLOUR: Color = Color::srgb(0.9, 0.9, 0.9);

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
        WalkRegions::new(assets.load("rooms/lobby.regions.walk.png"))
            .with_region(RUG, "rug")
            .with_tint(RUG, Color::srgb(1.0, 0.7, 0.5))
            .with_fade(RUG, 6.0)
            .with_region(GARDEN, "garden")
            .with_tint(GARDEN, Color::srgb(0.85, 1.0, 0.8))
            .with_light(GARDEN, 1.1)
            .with_speed(GARDEN, 0.6),
    ));
    commands.spawn((
        // Its feet keep 10 units off walls, and off the rug while it is roped off.
        Walker::new(300.0).with_radius(10.0),
        PlayerWalker,
        Sprite::from_color(Color::WHITE, Vec2::new(30.0, 90.0)),
        // The sprite's colour is this base times the region's tint.
        TintedByRegion {
            base: PLAYER_COLOUR,
        },
        bevy::sprite::Anchor::BOTTOM_CENTER, // feet on the walk point
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
}

/// `B` ropes the rug off, or opens it again: while it blocks, its pixels are walls,
/// and walks across it (even those under way) go round it.
fn rope_off_the_rug(keys: Res<ButtonInput<KeyCode>>, mut regions: Single<&mut WalkRegions>) {
    if keys.just_pressed(KeyCode::KeyB) {
        let roped_off = !regions.blocking().contains(RUG);
        regions.set_blocking(RUG, roped_off);
        info!(
            "the rug is {}",
            if roped_off { "roped off" } else { "open" }
        );
    }
}

/// The name a room's regions give `region`.
fn name(rooms: &Query<&WalkRegions>, room: Entity, region: u8) -> String {
    let name = rooms.get(room).ok().and_then(|r| r.name(region));
    name.unwrap_or("a region").to_string()
}

fn log_entered(entered: On<RegionEntered>, rooms: Query<&WalkRegions>) {
    let region = name(&rooms, entered.room, entered.region);
    info!("{} entered the {region}", entered.entity);
}

fn log_exited(exited: On<RegionExited>, rooms: Query<&WalkRegions>) {
    let region = name(&rooms, exited.room, exited.region);
    info!("{} left the {region}", exited.entity);
}
