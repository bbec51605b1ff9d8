//! A cutscene: the butler comes to the guest, says his line, and both walk off to
//! dinner, each a sequence of steps; `Escape` skips it.
//!
//! ```text
//! cargo run --example cutscene
//! ```
//!
//! Each walker gets its steps with `commands.actions(walker).add(..)` (the
//! `sequences` feature): walks, turns, waits and steps of the game's own, each
//! starting when the last one has ended. Both sequences begin with
//! [`StartCutscene`], so the player's clicks are ignored until they end. `Escape`
//! skips the scene: every walk ends at its destination facing its last way, the
//! waits end, and the steps after them run in order. `C` plays it again; between
//! scenes, click to walk.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;
use bevy_walkmask::sequence::*;

/// Where the guest starts the scene.
pub const GUEST_START: Vec2 = Vec2::new(-500.0, -150.0);
/// Where the butler starts the scene.
pub const BUTLER_START: Vec2 = Vec2::new(540.0, -160.0);
/// Where the two meet.
pub const MEET: Vec2 = Vec2::new(0.0, -180.0);
/// Where the guest ends the scene.
pub const GUEST_END: Vec2 = Vec2::new(520.0, -140.0);
/// Where the butler ends the scene.
pub const BUTLER_END: Vec2 = Vec2::new(560.0, -200.0);

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, (setup, play_scene).chain())
        .add_systems(Update, (keys, show_hint));
}

/// The butler.
#[derive(Component, Debug)]
pub struct Butler;

/// The line of dialogue on screen.
#[derive(Component, Debug)]
pub struct Caption;

/// The hint at the top of the screen.
#[derive(Component, Debug)]
struct Hint;

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
        PlayerWalker,
        body(Walker::new(300.0), Color::srgb(0.9, 0.3, 0.2), GUEST_START),
    ));
    commands.spawn((
        Butler,
        body(Walker::new(240.0), Color::srgb(0.2, 0.3, 0.8), BUTLER_START),
    ));
    let text = |node: Node| (Text::default(), TextLayout::justify(Justify::Center), node);
    commands.spawn((
        Caption,
        text(Node {
            position_type: PositionType::Absolute,
            bottom: px(40.0),
            width: percent(100.0),
            ..default()
        }),
    ));
    commands.spawn((
        Hint,
        text(Node {
            position_type: PositionType::Absolute,
            top: px(12.0),
            width: percent(100.0),
            ..default()
        }),
    ));
}

/// A walker drawn as a box standing on its feet at `at`.
fn body(walker: Walker, color: Color, at: Vec2) -> impl Bundle {
    (
        walker,
        Facing::four().with_turn_seconds(0.05),
        Sprite::from_color(color, Vec2::new(30.0, 90.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_translation(at.extend(1.0)),
    )
}

/// A step of the game's own: shows `line` as the caption (nothing while the scene is
/// skipped), or clears it.
fn say(line: &'static str) -> impl FnMut(Entity, &mut World) -> bool + Send + Sync {
    move |_speaker: Entity, world: &mut World| -> bool {
        let line = if world.resource::<Cutscene>().is_skipping() {
            ""
        } else {
            line
        };
        let mut captions = world.query_filtered::<&mut Text, With<Caption>>();
        for mut text in captions.iter_mut(world) {
            text.0 = line.into();
        }
        true // over at once: the next step starts
    }
}

/// Gives the guest and the butler their steps.
fn play_scene(
    mut commands: Commands,
    guest: Single<Entity, With<PlayerWalker>>,
    butler: Single<Entity, With<Butler>>,
) {
    let (guest, butler) = (*guest, *butler);
    commands.actions(guest).add((
        StartCutscene,
        WalkTo::new(MEET).facing(FaceTarget::Direction(FacingDirection::Right)),
        Wait::seconds(2.5),
        WalkTo::new(GUEST_END).facing(FaceTarget::Direction(FacingDirection::Up)),
        EndCutscene,
    ));
    commands.actions(butler).add((
        StartCutscene,
        WalkTo::new(MEET + Vec2::new(90.0, 0.0))
            .facing(FaceTarget::Direction(FacingDirection::Left)),
        say("Dinner is served, sir."),
        Wait::seconds(2.0),
        say(""),
        WalkTo::new(BUTLER_END).facing(FaceTarget::Direction(FacingDirection::Left)),
        EndCutscene,
    ));
}

/// `Escape` skips the scene; `C` puts the two back where they started and plays it
/// again, when none runs.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    cutscene: Res<Cutscene>,
    mut commands: Commands,
    mut cast: Query<(&mut Transform, Has<Butler>), With<Walker>>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        commands.skip_cutscene();
    }
    if keys.just_pressed(KeyCode::KeyC) && !cutscene.is_running() {
        for (mut transform, butler) in &mut cast {
            let start = if butler { BUTLER_START } else { GUEST_START };
            transform.translation = start.extend(1.0);
        }
        commands.run_system_cached(play_scene);
    }
}

/// What the keys do, at the top of the screen.
fn show_hint(cutscene: Res<Cutscene>, mut hint: Single<&mut Text, With<Hint>>) {
    let line = if cutscene.is_running() {
        "Escape: skip the scene"
    } else {
        "Click to walk. C: play the scene again"
    };
    if hint.0 != line {
        hint.0 = line.into();
    }
}
