//! Your own input: the plugin reads no clicks ([`ClickInput::Off`]); the game turns
//! mouse clicks and touches into points on the floor, decides what to do with them,
//! and sends [`WalkRequest`]s itself.
//!
//! ```text
//! cargo run --example own_input
//! ```
//!
//! Here the game's rule is that a click on a blocked pixel is refused (the player
//! shakes their head in the log) instead of walking to the nearest reachable point,
//! and that `Tab` locks input, as a cutscene would. Any other rule fits in
//! `walk_on_floor_clicks`: a verb menu, a double click to run, a touch that must be held.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::window::PrimaryWindow;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin {
        click_input: ClickInput::Off,
        ..default()
    })
    .add_message::<FloorClick>()
    .init_resource::<InputLocked>()
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (pointer_to_floor_clicks, walk_on_floor_clicks, lock).chain(),
    );
}

/// The game's own input event: a click or touch on the floor, in world coordinates.
#[derive(Message, Clone, Copy, Debug)]
pub struct FloorClick(pub Vec2);

/// Whether the player's input is ignored (`Tab`).
#[derive(Resource, Default)]
pub struct InputLocked(pub bool);

/// Clicks refused by the game's rule, for the log (and the example's test).
#[derive(Component, Default)]
pub struct Refused(pub Vec<Vec2>);

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
    ));
    commands.spawn((
        Walker::new(400.0),
        PlayerWalker,
        Refused::default(),
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_xyz(-500.0, -150.0, 1.0),
    ));
}

/// Left clicks and new touches, through the camera, as [`FloorClick`]s.
fn pointer_to_floor_clicks(
    buttons: Res<ButtonInput<MouseButton>>,
    touches: Res<Touches>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut clicks: MessageWriter<FloorClick>,
) {
    let (camera, camera_at) = *camera;
    let mut screen_points: Vec<Vec2> = touches.iter_just_pressed().map(|t| t.position()).collect();
    if buttons.just_pressed(MouseButton::Left) {
        screen_points.extend(window.cursor_position());
    }
    for screen in screen_points {
        if let Ok(world) = camera.viewport_to_world_2d(camera_at, screen) {
            clicks.write(FloorClick(world));
        }
    }
}

/// The game's rule: walk to walkable points, refuse the others, nothing while locked.
fn walk_on_floor_clicks(
    mut clicks: MessageReader<FloorClick>,
    locked: Res<InputLocked>,
    query: WalkQuery,
    mut player: Single<(Entity, &mut Refused), With<PlayerWalker>>,
    mut requests: MessageWriter<WalkRequest>,
) {
    for FloorClick(point) in clicks.read().copied() {
        if locked.0 {
            continue;
        }
        let walkable = query
            .walker(player.0)
            .and_then(|view| view.is_walkable(point));
        match walkable {
            Ok(true) => {
                requests.write(WalkRequest::new(player.0, point));
            }
            Ok(false) => {
                info!("I can't stand there ({point})");
                player.1.0.push(point);
            }
            Err(not_yet) => debug!("click ignored: {not_yet}"),
        }
    }
}

/// `Tab` locks and unlocks the player's input.
fn lock(keys: Res<ButtonInput<KeyCode>>, mut locked: ResMut<InputLocked>) {
    if keys.just_pressed(KeyCode::Tab) {
        locked.0 = !locked.0;
        info!("input {}", if locked.0 { "locked" } else { "unlocked" });
    }
}
