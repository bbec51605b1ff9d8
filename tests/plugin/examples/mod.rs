//! Every example of the ladder, run headless: the example's own plugin (the function
//! its `main` adds after `DefaultPlugins`) on `MinimalPlugins` with the repository's
//! `assets/` folder, a few hundred fixed 16 ms frames, and its walks asserted to
//! arrive. Each submodule includes one example file (`#[path]`), so an example that
//! stops compiling or stops walking fails here.

use std::time::Duration;

use bevy::app::Plugins;
use bevy::asset::AssetPlugin;
use bevy::image::ImagePlugin;
use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_walkmask::prelude::*;

#[cfg(all(feature = "ags", feature = "picking", feature = "debug_overlay"))]
mod ags_room;
mod companions;
mod crowd;
#[cfg(feature = "sequences")]
mod cutscene;
mod fixed_update;
#[cfg(feature = "picking")]
mod hotspots;
mod keyboard_and_gamepad;
mod minimal;
mod own_input;
#[cfg(feature = "sprites")]
mod regions;
mod scripted_walks;
#[cfg(feature = "tilemap")]
mod tilemap;
mod two_rooms;
#[cfg(feature = "walk_behinds")]
mod walk_behinds;

/// The repository's asset folder, which the examples load from.
const EXAMPLE_ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

/// A headless app running `example` (an example's plugin) as its `main` does, on
/// `MinimalPlugins` instead of `DefaultPlugins`: assets from `assets/`, images,
/// keyboard and mouse input, transforms; fixed 16 ms frames.
pub fn example_app<M>(example: impl Plugins<M>) -> App {
    example_app_with_sources(example, &[])
}

/// [`example_app`] with named asset sources (`name`, folder from the repository's
/// root), as the example's `main` registers them before `DefaultPlugins`.
pub fn example_app_with_sources<M>(example: impl Plugins<M>, sources: &[(&str, &str)]) -> App {
    let mut app = App::new();
    for (name, folder) in sources {
        app.register_asset_source(
            name.to_string(),
            bevy::asset::io::AssetSourceBuilder::platform_default(
                &format!("{}/{folder}", env!("CARGO_MANIFEST_DIR")),
                None,
            ),
        );
    }
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: EXAMPLE_ASSETS.into(),
            watch_for_changes_override: Some(false),
            ..default()
        },
        ImagePlugin::default(),
        InputPlugin,
        TransformPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app.add_plugins(example);
    app
}

/// Frames until `done` holds; fails naming `what` after `max` frames.
pub fn frames_until(
    app: &mut App,
    max: usize,
    what: &str,
    mut done: impl FnMut(&mut World) -> bool,
) {
    for _ in 0..max {
        app.update();
        if done(app.world_mut()) {
            return;
        }
    }
    panic!("{what}: not reached in {max} frames");
}

/// World position of `entity`.
pub fn position(app: &App, entity: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(entity)
        .expect("a transform")
        .translation
        .truncate()
}

/// The example's player walker (the one entity with `PlayerWalker`).
pub fn player(app: &mut App) -> Entity {
    app.world_mut()
        .query_filtered::<Entity, With<PlayerWalker>>()
        .single(app.world())
        .expect("one player walker")
}

/// Waits for every room's walk mask to load.
pub fn wait_for_rooms(app: &mut App) {
    frames_until(app, 20_000, "the rooms' walk masks load", |world| {
        let rooms: Vec<AssetId<WalkMask>> = world
            .query::<&WalkRoom>()
            .iter(world)
            .map(|room| room.mask.id())
            .collect();
        let masks = world.resource::<Assets<WalkMask>>();
        !rooms.is_empty() && rooms.iter().all(|id| masks.contains(*id))
    });
}

/// Outcomes of the requests sent by [`walk_and_arrive`] (`Arrived` positions).
#[derive(Resource, Default)]
struct ArrivedAt(Vec<(RequestId, Vec2)>);

/// Sends `walker` to `target` and waits for its `Arrived`; returns where it stopped.
pub fn walk_and_arrive(app: &mut App, walker: Entity, target: Vec2) -> Vec2 {
    if !app.world().contains_resource::<ArrivedAt>() {
        app.init_resource::<ArrivedAt>();
        app.add_observer(|arrived: On<Arrived>, mut log: ResMut<ArrivedAt>| {
            log.0.push((arrived.request, arrived.position));
        });
    }
    let request = WalkRequest::new(walker, target);
    let id = request.id;
    app.world_mut().write_message(request);
    let mut at = None;
    frames_until(app, 20_000, "the walk arrives", |world| {
        at = world
            .resource::<ArrivedAt>()
            .0
            .iter()
            .find(|(r, _)| *r == id)
            .map(|(_, p)| *p);
        at.is_some()
    });
    at.unwrap()
}

/// Presses `key` for one frame, as the keyboard would (a press, a frame, a release).
pub fn tap(app: &mut App, key: KeyCode) {
    key_event(app, key, true);
    app.update();
    key_event(app, key, false);
    app.update();
}

/// Sends the keyboard's message for `key` going down (`pressed`) or up; it takes
/// effect in the next frame.
pub fn key_event(app: &mut App, key: KeyCode, pressed: bool) {
    use bevy::input::ButtonState;
    use bevy::input::keyboard::{Key, KeyboardInput, NativeKey};
    app.world_mut().write_message(KeyboardInput {
        key_code: key,
        logical_key: Key::Unidentified(NativeKey::Unidentified),
        state: if pressed {
            ButtonState::Pressed
        } else {
            ButtonState::Released
        },
        text: None,
        repeat: false,
        window: Entity::PLACEHOLDER,
    });
}
