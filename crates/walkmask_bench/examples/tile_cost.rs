//! What tile rooms cost, headless: building the walk grid of a 256 x 256 tile layer,
//! updating it when one tile changes, and the main thread's share of a frame with 50
//! monsters chasing a player across it.
//!
//! The layer has a wall on about one tile in five (fixed seed), a border and a
//! door. Printed:
//!
//! * the frame in which the layer's tiles are first read into a walk mask (main
//!   thread), and building the grid from it (`NavGrid::new`, which the plugin does on
//!   the task pool), each the median of 5;
//! * the frame in which one door tile changes (the mask updated in place);
//! * with 50 chasers and a player walking to a new random tile every 2 s: the plugin's
//!   main-thread span per frame (median, p99) over 20 s of 16 ms frames paced to wall
//!   time, and the fields filled.
//!
//! ```text
//! cargo run --release -p walkmask_bench --example tile_cost --features tilemap
//! ```

use std::time::{Duration, Instant};

use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::tilemap::{TileLayerGeometry, TileWalkRoom, WalkTileLayer};
use bevy_walkmask::{WarmFieldCache, walkmask};

const SIZE: u32 = 256;
const TILE: f32 = 16.0;
const MONSTERS: usize = 50;
const FRAME: Duration = Duration::from_millis(16);

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Texture index of each tile: 1 wall, 0 floor.
fn texture(x: u32, y: u32) -> u32 {
    let border = x == 0 || y == 0 || x == SIZE - 1 || y == SIZE - 1;
    let h = (x as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add((y as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
    let noise = (h >> 29).is_multiple_of(5);
    u32::from(border || (noise && (x, y) != (10, 10)))
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        InputPlugin,
        WalkmaskPlugin {
            warm_fields: false,
            ..default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app
}

/// Spawns the layer; returns it and the door tile.
fn spawn_layer(app: &mut App) -> (Entity, Entity) {
    let world = app.world_mut();
    let map = world.spawn_empty().id();
    let size = TilemapSize { x: SIZE, y: SIZE };
    let mut storage = TileStorage::empty(size);
    let mut door = Entity::PLACEHOLDER;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let position = TilePos { x, y };
            let tile = world
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(map),
                    texture_index: TileTextureIndex(texture(x, y)),
                    ..default()
                })
                .id();
            if (x, y) == (128, 128) {
                door = tile;
            }
            storage.set(&position, tile);
        }
    }
    world.entity_mut(map).insert((
        storage,
        size,
        TilemapGridSize { x: TILE, y: TILE },
        TilemapTileSize { x: TILE, y: TILE },
        TilemapType::Square,
        TilemapAnchor::Center,
        Transform::default(),
        WalkTileLayer::default().with_texture(0, 1),
    ));
    (map, door)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    // 1. Building the grid.
    let mut read = Vec::new();
    let mut grids = Vec::new();
    let mut toggles = Vec::new();
    for _ in 0..5 {
        let mut app = app();
        app.update();
        let (_, door) = spawn_layer(&mut app);
        let started = Instant::now();
        app.update();
        read.push(ms(started.elapsed()));
        let mut rooms = app.world_mut().query::<(&TileWalkRoom, &WalkRoom)>();
        let handle = rooms
            .single(app.world())
            .expect("one tile room")
            .1
            .mask
            .clone();
        let mask = app
            .world()
            .resource::<Assets<WalkMask>>()
            .get(&handle)
            .expect("the room's mask")
            .core()
            .clone();
        let started = Instant::now();
        let grid = walkmask::NavGrid::new(mask, walkmask::AreaSet::all());
        grids.push(ms(started.elapsed()));
        std::hint::black_box(grid);
        app.world_mut().entity_mut(door).insert(TileTextureIndex(1));
        let started = Instant::now();
        app.update();
        toggles.push(ms(started.elapsed()));
    }
    println!(
        "tile_cost: {SIZE} x {SIZE} tiles, one mask pixel per tile, profile {}",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!(
        "first frame with the layer (tiles read into the mask, main thread): median {:.2} ms",
        median(read)
    );
    println!(
        "NavGrid::new on the mask (the plugin runs it on the task pool): median {:.2} ms",
        median(grids)
    );
    println!(
        "frame in which one door tile changes (mask updated in place): median {:.2} ms",
        median(toggles)
    );

    // 2. Monsters.
    let mut app = app();
    app.update();
    let (layer, _) = spawn_layer(&mut app);
    app.update();
    let geometry = app
        .world_mut()
        .query::<(
            &TilemapSize,
            &TilemapGridSize,
            &TilemapTileSize,
            &TilemapAnchor,
            &GlobalTransform,
        )>()
        .get(app.world(), layer)
        .map(|(s, g, t, a, tr)| TileLayerGeometry::new(s, g, t, a, tr))
        .expect("the layer");
    let mut rng = Rng(0x51ed_270b_9a1c_3f07);
    let floor_tile = |rng: &mut Rng| loop {
        let (x, y) = (
            (rng.next() % SIZE as u64) as u32,
            (rng.next() % SIZE as u64) as u32,
        );
        if texture(x, y) == 0 {
            return geometry.tile_center(TilePos { x, y });
        }
    };
    let player_at = floor_tile(&mut rng);
    let player = app
        .world_mut()
        .spawn((
            Walker::new(120.0),
            PlayerWalker,
            Transform::from_translation(player_at.extend(1.0)),
        ))
        .id();
    for _ in 0..MONSTERS {
        let at = floor_tile(&mut rng);
        app.world_mut().spawn((
            Walker::new(60.0),
            WalkChase::new(player),
            Transform::from_translation(at.extend(1.0)),
        ));
    }
    #[derive(Resource, Default)]
    struct Span(Option<Instant>, Vec<Duration>);
    app.init_resource::<Span>().add_systems(
        Update,
        (
            (|mut span: ResMut<Span>| span.0 = Some(Instant::now())).before(WalkmaskSystems::Input),
            (|mut span: ResMut<Span>| {
                if let Some(started) = span.0.take() {
                    span.1.push(started.elapsed());
                }
            })
            .after(WalkmaskSystems::Move),
        ),
    );
    let frames = (20.0 / FRAME.as_secs_f64()) as usize;
    for frame in 0..frames {
        if frame.is_multiple_of(125) {
            let target = floor_tile(&mut rng);
            app.world_mut().commands().entity(player).walk_to(target);
        }
        let started = Instant::now();
        app.update();
        if let Some(rest) = FRAME.checked_sub(started.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let mut spans: Vec<f64> = app.world().resource::<Span>().1[125..]
        .iter()
        .copied()
        .map(ms)
        .collect();
    spans.sort_by(f64::total_cmp);
    let stats = app.world().resource::<WarmFieldCache>().stats();
    println!(
        "{MONSTERS} monsters chasing a walking player, {} frames after the first 125: plugin span median {:.3} ms, p99 {:.3} ms; {} fields filled, {} walks traced from them",
        spans.len(),
        spans[spans.len() / 2],
        spans[spans.len() * 99 / 100],
        stats.fills,
        stats.shared
    );
}
