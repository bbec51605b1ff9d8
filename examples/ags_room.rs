//! An Adventure Game Studio room, brought over as it is: room 3 of AGS's own test game
//! as AGS 3.6.3 compiled it (`testdata/ags/3.6.3/room3.crm`), loaded as a room.
//!
//! `cargo run --example ags_room` (needs a display). Click to walk: the player walks
//! the room's walkable areas (two small squares, as AGS's test painted them); point
//! at a hotspot to see its name, as AGS names it.
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

/// The example itself, as a plugin (the `ags` asset source is the app's).
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        .add_systems(Update, put_the_player_on_the_floor)
        .add_observer(name_on_hover)
        .add_observer(
            |_: On<Pointer<Out>>, mut caption: Query<&mut Text, With<Caption>>| {
                if let Ok(mut text) = caption.single_mut() {
                    text.0.clear();
                }
            },
        );
}

/// The AGS room.
#[derive(Component)]
pub struct AgsRoom;

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
    commands.spawn((
        Name::new("room3"),
        AgsRoom,
        FromRoomFile(assets.load("ags://3.6.3/room3.crm")),
    ));
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
}

/// AGS rooms have no spawn points (characters are placed by the game): once the
/// room's walk mask has loaded, the player stands in the middle of walkable area 1.
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
    let Some((top, bottom)) = mask.area_rows(1) else {
        return;
    };
    let y = (top + bottom) / 2;
    let row: Vec<u32> = (0..mask.width())
        .filter(|&x| mask.area_at(x, y) == Some(1))
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
