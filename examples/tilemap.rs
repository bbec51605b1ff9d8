//! A dungeon drawn with bevy_ecs_tilemap, walked like an image room.
//!
//! Click to walk; `E` opens and closes the door in the middle wall; 40 slimes chase
//! you, all tracing one distance field from your tile (`WalkChase`), filled again
//! each time you step onto another tile.
//!
//! ```text
//! cargo run --example tilemap --features tilemap
//! ```

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_ecs_tilemap::prelude::*;
use bevy_walkmask::ClickInput;
use bevy_walkmask::prelude::*;
use bevy_walkmask::tilemap::{TileLayerGeometry, WalkTileLayer};

/// The map in tiles, and a tile's side in world units.
const MAP: UVec2 = UVec2::new(40, 24);
const TILE: f32 = 32.0;
/// Tileset indices.
const FLOOR: u32 = 0;
const WALL: u32 = 1;
const DOOR_CLOSED: u32 = 2;
const DOOR_OPEN: u32 = 3;
/// The door tile in the middle wall.
pub const DOOR: TilePos = TilePos { x: 20, y: 12 };
const SLIMES: usize = 40;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(ImagePlugin::default_nearest()),
            TilemapPlugin,
            example,
        ))
        .run();
}

/// The example itself, as a plugin (bevy_ecs_tilemap's `TilemapPlugin` draws it).
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin {
        // Tile layers have no sprite to pick: clicks come from the cursor.
        click_input: ClickInput::Cursor,
        ..default()
    })
    .add_systems(Startup, setup)
    .add_systems(Update, door);
}

/// The door tile's entity.
#[derive(Resource)]
pub struct Dungeon(pub Entity);

/// Which tiles are walls: the border, a middle wall with the door, a half-wall and
/// pillars.
fn tile_at(x: u32, y: u32) -> u32 {
    let border = x == 0 || y == 0 || x == MAP.x - 1 || y == MAP.y - 1;
    let walls = (x == DOOR.x) || (y == 8 && x < 15 && x != 7) || (x % 6 == 3 && y % 6 == 3);
    match (x, y) {
        (20, 12) => DOOR_CLOSED,
        _ if border || walls => WALL,
        _ => FLOOR,
    }
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn(Camera2d);

    // The tile layer, with the walk table: floor and open door walkable.
    let size = TilemapSize { x: MAP.x, y: MAP.y };
    let layer = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..MAP.y {
        for x in 0..MAP.x {
            let position = TilePos { x, y };
            let tile = commands
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(layer),
                    texture_index: TileTextureIndex(tile_at(x, y)),
                    ..default()
                })
                .id();
            storage.set(&position, tile);
        }
    }
    commands.insert_resource(Dungeon(storage.get(&DOOR).expect("the door tile")));
    let tile_size = TilemapTileSize { x: TILE, y: TILE };
    commands.entity(layer).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            size,
            storage,
            texture: TilemapTexture::Single(assets.load("tiles/dungeon.png")),
            tile_size,
            anchor: TilemapAnchor::Center,
            transform: Transform::from_xyz(0.0, -20.0, 0.0),
            ..default()
        },
        WalkTileLayer::default()
            .with_texture(FLOOR, 1)
            .with_texture(DOOR_OPEN, 1),
    ));

    let placed = GlobalTransform::from(Transform::from_xyz(0.0, -20.0, 0.0));
    let geometry = TileLayerGeometry::new(
        &size,
        &tile_size.into(),
        &tile_size,
        &TilemapAnchor::Center,
        &placed,
    );

    // The player, on tile (4, 4).
    let start = geometry.tile_center(TilePos { x: 4, y: 4 });
    let sprite = Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(14.0, 28.0));
    let at = Transform::from_translation(start.extend(5.0));
    let walker = Walker::new(160.0).with_radius(6.0);
    let player = commands
        .spawn((walker, PlayerWalker, sprite, Anchor::BOTTOM_CENTER, at))
        .id();

    // The slimes, in the rooms on the right, slower than the player.
    for i in 0..SLIMES {
        let (x, y) = (32 + (i % 7) as u32, 2 + (i / 7) as u32 * 3);
        let at = geometry.tile_center(TilePos { x, y });
        commands.spawn((
            Walker::new(55.0 + (i % 5) as f32 * 8.0).with_radius(4.0),
            WalkChase::new(player),
            Sprite::from_image(assets.load("sprites/slime.png")),
            Anchor(Vec2::new(0.0, -0.5 + 2.0 / 32.0)),
            Transform::from_translation(at.extend(4.0)),
        ));
    }
}

/// `E` opens or closes the door (its texture index, which the walk table reads).
fn door(
    input: Res<ButtonInput<KeyCode>>,
    dungeon: Res<Dungeon>,
    mut textures: Query<&mut TileTextureIndex>,
) {
    if input.just_pressed(KeyCode::KeyE)
        && let Ok(mut texture) = textures.get_mut(dungeon.0)
    {
        let open = texture.0 == DOOR_CLOSED;
        texture.0 = if open { DOOR_OPEN } else { DOOR_CLOSED };
    }
}
