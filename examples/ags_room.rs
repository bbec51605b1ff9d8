//! Adventure Game Studio rooms, brought over as they are, from AGS's own test games
//! (`testdata/ags`): room 3 as AGS 3.6.3 compiles it (room format 36306), the same
//! room as AGS 3.6.2 compiled it (format 33), and room 1 of the AGS 4 test game, an
//! AGS 4 room folder (`Rooms/1`, `data.xml` and its PNG masks).
//!
//! `cargo run --example ags_room` (needs a display). Click to walk: the player walks
//! the room's walkable areas (two small squares, as AGS's test painted them; the AGS
//! 4 room has none); point at a hotspot to see its name, as AGS names it; `N` shows
//! the next room.
//!
//! One handle makes the whole room: `FromRoomFile(assets.load("…/room3.crm"))` gives
//! the entity its picture, walk mask, hotspots (children named as in AGS) and
//! regions. `walkmask ags-room room3.crm -o assets/rooms` writes the same room as a
//! room file and images to edit; `walkmask lint` checks it.

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;

fn main() {
    App::new()
        // AGS's test rooms, kept with the repository's test data.
        .register_asset_source(
            "ags",
            AssetSourceBuilder::platform_default("testdata/ags", None),
        )
        // The floor and hotspots drawn over the picture (AGS's test room is black).
        .add_plugins((DefaultPlugins, WalkmaskDebugPlugin, example))
        .run();
}

/// The rooms, in the order `N` shows them: the asset and what it is.
pub const ROOMS: [(&str, &str); 3] = [
    (
        "ags://3.6.3/room3.crm",
        "room 3, compiled by AGS 3.6.3 (room format 36306)",
    ),
    (
        "ags://3.6.2/room3.crm",
        "room 3, compiled by AGS 3.6.2 (room format 33)",
    ),
    (
        "ags://4.0/Rooms/1/data.xml",
        "room 1, an AGS 4 room folder (no walkable areas painted)",
    ),
];

/// The example itself, as a plugin (the `ags` asset source is the app's).
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .init_resource::<Shown>()
        .add_systems(Startup, setup)
        .add_systems(Update, (next_room, put_the_player_on_the_floor, show_title))
        .add_observer(name_on_hover)
        .add_observer(
            |_: On<Pointer<Out>>, mut caption: Query<&mut Text, With<Caption>>| {
                if let Ok(mut text) = caption.single_mut() {
                    text.0.clear();
                }
            },
        );
}

/// The AGS room shown.
#[derive(Component)]
pub struct AgsRoom;

/// Which of [`ROOMS`] is shown.
#[derive(Resource, Default)]
pub struct Shown(pub usize);

/// The line of text at the bottom: the room shown.
#[derive(Component)]
pub struct Title;

/// The line of text at the top: the hotspot under the pointer.
#[derive(Component)]
pub struct Caption;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    // The room is 640 x 400: shown at twice its size.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 0.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn((AgsRoom, FromRoomFile(assets.load(ROOMS[0].0))));
    commands.spawn((
        Walker::new(120.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(8.0, 24.0)),
        bevy::sprite::Anchor::BOTTOM_CENTER,
        Transform::from_xyz(0.0, 0.0, 1.0),
        Visibility::Hidden,
    ));
    commands.spawn((
        Caption,
        Text::new(""),
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(10.0),
            top: Val::Px(10.0),
            ..default()
        },
    ));
    commands.spawn((
        Title,
        Text::new(""),
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(10.0),
            bottom: Val::Px(10.0),
            ..default()
        },
    ));
}

/// `N`: the next room in place of this one; the player waits, hidden, until it is
/// put on the new room's floor.
fn next_room(
    keys: Res<ButtonInput<KeyCode>>,
    mut shown: ResMut<Shown>,
    rooms: Query<Entity, With<AgsRoom>>,
    player: Query<Entity, With<PlayerWalker>>,
    mut caption: Query<&mut Text, With<Caption>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    if !keys.just_pressed(KeyCode::KeyN) {
        return;
    }
    if let Ok(mut text) = caption.single_mut() {
        text.0.clear();
    }
    for room in &rooms {
        commands.entity(room).despawn();
    }
    shown.0 = (shown.0 + 1) % ROOMS.len();
    commands.spawn((AgsRoom, FromRoomFile(assets.load(ROOMS[shown.0].0))));
    for player in &player {
        commands
            .entity(player)
            .stop_walking()
            .insert(Visibility::Hidden);
    }
}

/// The room shown, and how to show the next.
fn show_title(shown: Res<Shown>, mut title: Query<&mut Text, With<Title>>) {
    if let Ok(mut text) = title.single_mut() {
        let line = format!("{}  |  N: next room", ROOMS[shown.0].1);
        if text.0 != line {
            text.0 = line;
        }
    }
}

/// AGS rooms have no spawn points (characters are placed by the game): once the
/// room's walk mask has loaded, the player stands in the middle of its first
/// walkable area (and stays hidden in a room without one).
fn put_the_player_on_the_floor(
    rooms: Query<(&WalkRoom, &GlobalTransform), With<AgsRoom>>,
    masks: Res<Assets<WalkMask>>,
    mut player: Query<(&mut Transform, &mut Visibility), With<PlayerWalker>>,
) {
    let Ok((room, placed)) = rooms.single() else {
        return;
    };
    let Ok((mut transform, mut visibility)) = player.single_mut() else {
        return;
    };
    if *visibility != Visibility::Hidden {
        return;
    }
    let Some(mask) = masks.get(&room.mask) else {
        return;
    };
    let Some((area, (top, bottom))) = (1..=255u8).find_map(|id| Some((id, mask.area_rows(id)?)))
    else {
        return;
    };
    let y = (top + bottom) / 2;
    let row: Vec<u32> = (0..mask.width())
        .filter(|&x| mask.area_at(x, y) == Some(area))
        .collect();
    let Some(&x) = row.get(row.len() / 2) else {
        return;
    };
    let mapping = room.mapping(placed, mask.size());
    let at = mapping.mask_to_world(bevy_walkmask::walkmask::Point::new(
        x as f32 + 0.5,
        y as f32 + 0.5,
    ));
    transform.translation = at.extend(1.0);
    *visibility = Visibility::Inherited;
}

/// The name of the hotspot under the pointer, as the AGS room names it.
fn name_on_hover(
    over: On<Pointer<Over>>,
    hotspots: Query<&Hotspot>,
    mut caption: Query<&mut Text, With<Caption>>,
) {
    if let (Ok(hotspot), Ok(mut text)) = (hotspots.get(over.entity), caption.single_mut()) {
        text.0 = hotspot.name.clone();
    }
}
