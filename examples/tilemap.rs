//! A dungeon drawn with bevy_ecs_tilemap, walked like an image room.
//!
//! Click to walk (or use the arrow keys); `E` opens and closes the door in the middle
//! wall; 40 slimes chase you, all tracing one distance field from your tile
//! (`WalkChase`), filled again each time you step onto another tile. `D` shows the
//! walk mask, paths and fields.
//!
//! The tileset and the slime are drawn by the asset generator
//! (`cargo run --release -p walkmask_demo_assets -- assets/`).
//!
//! ```text
//! cargo run --example tilemap --features tilemap
//! ```

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_ecs_tilemap::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::tilemap::{TileLayerGeometry, WalkTileLayer};
use bevy_walkmask::{ClickInput, WarmFieldCache, background_searches};

/// The map in tiles.
const MAP: UVec2 = UVec2::new(40, 24);
/// Tile side in world units.
const TILE: f32 = 32.0;
/// Tileset indices.
const FLOOR: u32 = 0;
const WALL: u32 = 1;
const DOOR_CLOSED: u32 = 2;
const DOOR_OPEN: u32 = 3;
/// The door tile in the middle wall.
const DOOR: TilePos = TilePos { x: 20, y: 12 };
const SLIMES: usize = 40;

fn main() {
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "bevy_walkmask tile map".into(),
                        resolution: (1280, 720).into(),
                        ..default()
                    }),
                    ..default()
                })
                .set(ImagePlugin::default_nearest())
                // Path searches below the frame's threads (see the README).
                .set(TaskPoolPlugin {
                    task_pool_options: background_searches(TaskPoolOptions::default()),
                }),
        )
        .add_plugins((
            TilemapPlugin,
            WalkmaskPlugin {
                // Tile layers have no sprite to pick: clicks come from the cursor.
                click_input: ClickInput::Cursor,
                ..default()
            },
            WalkmaskDebugPlugin,
        ))
        .insert_resource(WalkmaskDebug { enabled: false })
        .insert_resource(ClearColor(Color::srgb(0.05, 0.05, 0.07)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                keys,
                steer_with_arrows.before(WalkmaskSystems::Move),
                (face_sprites, status_line).after(WalkmaskSystems::Move),
            ),
        )
        .run();
}

/// The door tile.
#[derive(Resource)]
struct Dungeon {
    door: Entity,
}

#[derive(Component)]
struct Status;

/// Which tiles are walls: the border, a middle wall with the door, and a few pillars
/// and half-walls.
fn tile_at(x: u32, y: u32) -> u32 {
    let border = x == 0 || y == 0 || x == MAP.x - 1 || y == MAP.y - 1;
    let middle = x == DOOR.x && y != DOOR.y;
    let left_rooms = y == 8 && (1..15).contains(&x) && x != 7;
    let right_rooms = x == 30 && (1..18).contains(&y) && y != 5;
    let pillars = (x % 6 == 3) && (y % 6 == 3) && x > 20 && x < 30;
    if (x, y) == (DOOR.x, DOOR.y) {
        DOOR_CLOSED
    } else if border || middle || left_rooms || right_rooms || pillars {
        WALL
    } else {
        FLOOR
    }
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    commands.spawn((
        Camera2d,
        WalkCamera,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::AutoMin {
                min_width: MAP.x as f32 * TILE,
                min_height: MAP.y as f32 * TILE + 40.0,
            },
            ..OrthographicProjection::default_2d()
        }),
    ));

    // The tile layer, with the walk table: floor and open door walkable.
    let size = TilemapSize { x: MAP.x, y: MAP.y };
    let layer = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    let mut door = Entity::PLACEHOLDER;
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
            if position == DOOR {
                door = tile;
            }
            storage.set(&position, tile);
        }
    }
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
    commands.insert_resource(Dungeon { door });

    let geometry = TileLayerGeometry::new(
        &size,
        &tile_size.into(),
        &tile_size,
        &TilemapAnchor::Center,
        &GlobalTransform::from(Transform::from_xyz(0.0, -20.0, 0.0)),
    );

    // The player: the demo's avatar, small, facing eight ways.
    let layout = layouts.add(TextureAtlasLayout::from_grid(
        UVec2::new(128, 256),
        5,
        5,
        None,
        None,
    ));
    let start = geometry.tile_center(TilePos { x: 4, y: 4 });
    let player = commands
        .spawn((
            Name::new("player"),
            Walker::new(160.0).with_radius(6.0),
            PlayerWalker,
            WalkInput::default(),
            Facing::eight(),
            Sprite::from_atlas_image(
                assets.load("sprites/avatar.png"),
                TextureAtlas { layout, index: 0 },
            ),
            Anchor(Vec2::new(0.0, -0.5 + 8.0 / 256.0)),
            Transform::from_translation(start.extend(5.0)).with_scale(Vec3::splat(0.22)),
        ))
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

    commands.spawn((
        Status,
        Text::new(""),
        TextFont {
            font_size: FontSize::Px(15.0),
            ..default()
        },
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(6.0),
            left: Val::Px(10.0),
            ..default()
        },
    ));
}

/// `E` opens or closes the door (its texture index, which the walk table reads);
/// `D` toggles the debug overlay; `Esc` quits.
fn keys(
    input: Res<ButtonInput<KeyCode>>,
    dungeon: Res<Dungeon>,
    mut textures: Query<&mut TileTextureIndex>,
    mut debug: ResMut<WalkmaskDebug>,
    mut exit: MessageWriter<AppExit>,
) {
    if input.just_pressed(KeyCode::KeyE)
        && let Ok(mut texture) = textures.get_mut(dungeon.door)
    {
        texture.0 = if texture.0 == DOOR_CLOSED {
            DOOR_OPEN
        } else {
            DOOR_CLOSED
        };
    }
    if input.just_pressed(KeyCode::KeyD) {
        debug.enabled = !debug.enabled;
    }
    if input.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
}

/// Arrow keys walk the player, sliding along walls.
fn steer_with_arrows(
    keys: Res<ButtonInput<KeyCode>>,
    mut players: Query<&mut WalkInput, With<PlayerWalker>>,
) {
    for mut input in &mut players {
        input.set_if_neq(WalkInput::from_arrow_keys(&keys));
    }
}

/// The player's atlas row from its facing (mirrored for the left), and sprites drawn
/// nearer the bottom of the screen over those above.
fn face_sprites(mut sprites: Query<(&mut Transform, &mut Sprite, Option<&Facing>), With<Walker>>) {
    for (mut transform, mut sprite, facing) in &mut sprites {
        transform.translation.z = 5.0 - transform.translation.y * 1e-3;
        let Some(facing) = facing else { continue };
        let (drawn, flip) = facing.direction.unmirrored();
        let row = match drawn {
            FacingDirection::Up => 1,
            FacingDirection::Right => 2,
            FacingDirection::DownRight => 3,
            FacingDirection::UpRight => 4,
            _ => 0,
        };
        sprite.flip_x = flip;
        if let Some(atlas) = sprite.texture_atlas.as_mut()
            && atlas.index != row * 5
        {
            atlas.index = row * 5;
        }
    }
}

fn status_line(
    dungeon: Res<Dungeon>,
    textures: Query<&TileTextureIndex>,
    fields: Res<WarmFieldCache>,
    mut text: Single<&mut Text, With<Status>>,
) {
    let open = textures.get(dungeon.door).is_ok_and(|t| t.0 == DOOR_OPEN);
    let stats = fields.stats();
    let line = format!(
        "Click or arrow keys to walk  |  E: {} the door  |  D: debug overlay  |  {SLIMES} slimes: {} fields filled, {} walks traced from them",
        if open { "close" } else { "open" },
        stats.fills,
        stats.shared,
    );
    if text.0 != line {
        text.0 = line;
    }
}
