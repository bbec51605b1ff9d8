//! Helpers shared by the headless integration tests (`tests/plugin.rs`,
//! `tests/warm.rs`): mask files under `tests/assets/generated/`, the headless app
//! (MinimalPlugins + AssetPlugin rooted at `tests/assets` + InputPlugin +
//! TransformPlugin + the walkmask plugin, fixed 16 ms frames), bounded update loops,
//! and the pixel <-> world mapping of the 64 x 48 test masks.
//!
//! Each test binary writes its own mask files (distinct names), keeps its own outcome
//! log, and uses only some of these helpers.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy::asset::LoadState;
use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_walkmask::prelude::*;

// ---------------------------------------------------------------- test masks

/// Root of the test asset folder (the `AssetPlugin` file path).
pub const ASSET_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");

/// Width and height of the usual test masks.
pub const MASK_SIZE: (u32, u32) = (64, 48);

/// Path of `name` inside [`ASSET_ROOT`].
pub fn asset_file(name: &str) -> PathBuf {
    Path::new(ASSET_ROOT).join(name)
}

/// Creates `tests/assets/generated/`, where the tests write their masks.
pub fn create_generated_dir() {
    std::fs::create_dir_all(asset_file("generated")).unwrap();
}

/// Area id of the room mask's pixel: 1 walkable, 0 wall (a wall at x = 30..=33 from
/// the top down to y = 39).
pub fn room_pixel(x: u32, y: u32) -> u8 {
    u8::from(!((30..=33).contains(&x) && y <= 39))
}

/// A `w` x `h` PNG whose grey level is `f(x, y)`.
pub fn write_grey_png(name: &str, (w, h): (u32, u32), f: impl Fn(u32, u32) -> u8) {
    let image = image::GrayImage::from_fn(w, h, |x, y| image::Luma([f(x, y)]));
    image.save(asset_file(name)).expect("write test mask");
}

/// Writes `<png>.meta`, which loads the mask `png` with the indexed rule.
pub fn write_indexed_meta(png: &str) {
    std::fs::write(
        asset_file(&format!("{png}.meta")),
        r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "bevy_walkmask::asset::WalkMaskLoader",
        settings: (rule: Indexed),
    ),
)
"#,
    )
    .unwrap();
}

/// World position of the centre of mask pixel (px, py) (64 x 48 mask, scale 1, room
/// at the origin).
pub fn px(x: u32, y: u32) -> Vec2 {
    Vec2::new(x as f32 + 0.5 - 32.0, 24.0 - (y as f32 + 0.5))
}

/// Mask pixel under a world position.
pub fn pixel_of(world: Vec2) -> (u32, u32) {
    (
        (world.x + 32.0).floor() as u32,
        (24.0 - world.y).floor() as u32,
    )
}

/// Whether every segment of `path` stays on pixels that `walkable` accepts (sampled
/// every 0.1 units).
pub fn path_stays_on(path: &[Vec2], walkable: impl Fn(u32, u32) -> bool) -> bool {
    path.windows(2).all(|w| {
        let steps = (w[0].distance(w[1]) / 0.1).ceil().max(1.0) as usize;
        (0..=steps).all(|i| {
            let p = w[0].lerp(w[1], i as f32 / steps as f32);
            let (x, y) = pixel_of(p);
            walkable(x, y)
        })
    })
}

// ---------------------------------------------------------------- app

/// The headless app with `plugin`, stepped by fixed 16 ms frames. The caller writes
/// its masks and adds its log.
pub fn headless_app(plugin: WalkmaskPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: ASSET_ROOT.into(),
            ..default()
        },
        InputPlugin,
        TransformPlugin,
        plugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app
}

/// Updates until `pred` holds; panics after `max` updates.
pub fn run_until(app: &mut App, max: usize, mut pred: impl FnMut(&mut World) -> bool) -> usize {
    for i in 0..max {
        app.update();
        if pred(app.world_mut()) {
            return i + 1;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("condition not reached after {max} updates");
}

/// Runs `n` updates.
pub fn run(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Loads the mask at `path`, waiting at most `max` updates for it.
pub fn load_mask_within(app: &mut App, path: &str, max: usize) -> Handle<WalkMask> {
    let handle: Handle<WalkMask> = app.world().resource::<AssetServer>().load(path.to_owned());
    wait_loaded_within(app, &handle, max);
    handle
}

/// Updates until the mask `handle` is loaded; panics if loading fails or takes more
/// than `max` updates.
pub fn wait_loaded_within(app: &mut App, handle: &Handle<WalkMask>, max: usize) {
    run_until(app, max, |w| {
        match w.resource::<AssetServer>().load_state(handle) {
            LoadState::Failed(e) => panic!("load failed: {e}"),
            _ => w.resource::<Assets<WalkMask>>().contains(handle),
        }
    });
}

/// Spawns `walker` at world position `at`.
pub fn spawn_walker(app: &mut App, walker: Walker, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((walker, Transform::from_translation(at.extend(1.0))))
        .id()
}

/// Asks `walker` to walk to `target`.
pub fn request(app: &mut App, walker: Entity, target: Vec2) {
    app.world_mut()
        .write_message(WalkRequest { walker, target });
}

/// World position of `entity`.
pub fn position(app: &App, entity: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(entity)
        .unwrap()
        .translation
        .truncate()
}
