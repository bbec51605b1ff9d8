//! Hotspots: things in the room the player points at, walks up to and acts on.
//!
//! `cargo run --example hotspots` (needs a display).
//!
//! Controls: point at the bell on the desk, the painting or the bench to see its
//! name; left click walks up to it and uses it; right click looks at it from where
//! the player stands; a click on the floor walks there.
//!
//! The lobby's hotspot layer, `lobby.hotspots.walk.png`, is an image of ids a quarter
//! of the room's size (its `.meta` reads the grey levels as ids). `WalkHotspots`
//! gives it to the room, and each id that matters gets a `Hotspot` entity, a child of
//! the room, saying where the player stands to use it, which way it then faces, and
//! how each verb is done. The pointer picks hotspots as it picks sprites
//! (`Pointer<Over>`, `Pointer<Out>`); a left click is `Verb::INTERACT`, a right click
//! `Verb::LOOK`. When the player gets there (for a look: at once, without walking)
//! the hotspot receives `InteractionArrived`.

use bevy::prelude::*;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin: the walkmask plugin, the room and its hotspots.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup);
}

/// One hotspot of the lobby's layer, and what the player says about it.
struct Spot {
    /// Its id: the grey level of its pixels in the layer.
    id: u8,
    name: &'static str,
    /// Where the player stands to use it (room pixels, y down).
    walk_to: Vec2,
    /// Which way the player faces there.
    facing: FacingDirection,
    used: &'static str,
    looked_at: &'static str,
}

static SPOTS: [Spot; 3] = [
    Spot {
        id: 1,
        name: "bell",
        walk_to: Vec2::new(972.0, 470.0),
        facing: FacingDirection::Up,
        used: "Ding! Nobody comes to the desk.",
        looked_at: "A brass bell on the reception desk.",
    },
    Spot {
        id: 2,
        name: "painting",
        walk_to: Vec2::new(330.0, 450.0),
        facing: FacingDirection::Up,
        used: "You straighten the painting. It was straight.",
        looked_at: "Green hills under a summer sky.",
    },
    Spot {
        id: 4,
        name: "bench",
        walk_to: Vec2::new(1700.0, 960.0),
        facing: FacingDirection::Up,
        used: "You sit a moment and watch the sky.",
        looked_at: "A garden bench, freshly varnished.",
    },
];

/// The line of text at the top of the window: the hotspot under the pointer, or
/// what the player said last.
#[derive(Component)]
pub struct Caption;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
    let room = commands
        .spawn((
            Sprite::from_image(assets.load("rooms/lobby.png")),
            WalkRoom::new(assets.load("rooms/lobby.walk.png")),
            WalkHotspots::new(assets.load("rooms/lobby.hotspots.walk.png")),
        ))
        .id();
    for spot in &SPOTS {
        commands
            .spawn((
                Hotspot::new(spot.id, spot.name)
                    .with_walk_to(spot.walk_to)
                    .with_face(FaceTarget::Direction(spot.facing))
                    // Looking is done from where the player stands.
                    .with_verb(Verb::LOOK, WalkPolicy::FaceOnly),
                ChildOf(room),
            ))
            // The player got there (or looked): it acts.
            .observe(
                move |arrived: On<InteractionArrived>, mut caption: CaptionText| {
                    let line = if arrived.verb == Verb::LOOK {
                        spot.looked_at
                    } else {
                        spot.used
                    };
                    info!("{} the {}: {line}", arrived.verb, spot.name);
                    caption.0 = line.into();
                },
            )
            .observe(move |_: On<Pointer<Over>>, mut caption: CaptionText| {
                caption.0 = format!("{}: click to use, right-click to look", spot.name);
            })
            .observe(|_: On<Pointer<Out>>, mut caption: CaptionText| caption.0.clear());
    }
    commands.spawn((
        Walker::new(400.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        bevy::sprite::Anchor::BOTTOM_CENTER, // feet on the walk point
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
    commands.spawn((
        Caption,
        Text::new("Point at the bell, the painting or the bench"),
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(12.0),
            top: Val::Px(12.0),
            padding: UiRect::all(Val::Px(6.0)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.6)),
    ));
}

/// The caption's text, for the observers that write it.
type CaptionText<'w, 's> = Single<'w, 's, &'static mut Text, With<Caption>>;
