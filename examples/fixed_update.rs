//! A replay: walks requested at fixed steps and answered exactly two steps later,
//! so the same inputs give the same walk on every run and every machine.
//!
//! ```text
//! cargo run --example fixed_update
//! ```
//!
//! The plugin runs in `FixedUpdate` at 30 steps a second
//! ([`WalkmaskPlugin::in_schedule`]) with [`AnswerTiming::AfterFrames`], and the game
//! gives its inputs at fixed steps too: here a recorded script of clicks, played from
//! the first step with the room loaded. Every 30 steps the log prints a checksum of the positions so far; run it
//! twice (or on two machines) and the checksums agree. `R` plays the replay again.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::AnswerTiming;
use bevy_walkmask::prelude::*;

/// Where the player stands when the replay starts.
pub const START: Vec2 = Vec2::new(-500.0, -150.0);

/// The recorded inputs: at this step, walk to this point. The third one comes while
/// the second walk is still being planned, and replaces it.
pub const SCRIPT: [(u32, Vec2); 4] = [
    (5, Vec2::new(540.0, -160.0)),
    (120, Vec2::new(0.0, -460.0)),
    (121, Vec2::new(-300.0, -420.0)),
    (230, START),
];

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    let plugin = WalkmaskPlugin {
        answer_timing: AnswerTiming::AfterFrames(2),
        ..default()
    };
    app.add_plugins(plugin.in_schedule(FixedUpdate))
        .insert_resource(Time::<Fixed>::from_hz(30.0))
        .init_resource::<Replay>()
        .add_systems(Startup, setup)
        .add_systems(Update, restart)
        .add_systems(
            FixedUpdate,
            (
                play.before(WalkmaskSystems::Plan),
                record.after(WalkmaskSystems::Move),
            )
                // Step 0 is the first step with the room loaded, however long
                // loading took on this machine.
                .run_if(room_loaded),
        );
}

fn room_loaded(rooms: Query<&WalkRoom>, masks: Res<Assets<WalkMask>>) -> bool {
    !rooms.is_empty() && rooms.iter().all(|room| masks.contains(&room.mask))
}

/// The replay's step count and the player's position after every step.
#[derive(Resource, Default)]
pub struct Replay {
    /// Fixed steps played.
    pub step: u32,
    /// The player's position after each step.
    pub trace: Vec<Vec2>,
}

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
        Walker::new(300.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.9, 0.3, 0.2), Vec2::new(30.0, 90.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_translation(START.extend(1.0)),
    ));
}

/// Sends the script's walk for this step, if any.
fn play(
    mut replay: ResMut<Replay>,
    player: Single<Entity, With<PlayerWalker>>,
    mut commands: Commands,
) {
    for (_, to) in SCRIPT.iter().filter(|(step, _)| *step == replay.step) {
        commands.entity(*player).walk_to(*to);
    }
    replay.step += 1;
}

/// Keeps the player's position, and logs a checksum of the positions every 30 steps.
fn record(mut replay: ResMut<Replay>, player: Single<&Transform, With<PlayerWalker>>) {
    replay.trace.push(player.translation.truncate());
    if replay.step.is_multiple_of(30) {
        let checksum = replay.trace.iter().fold(0u64, |sum, p| {
            sum.rotate_left(7) ^ u64::from(p.x.to_bits()) ^ u64::from(p.y.to_bits()) << 32
        });
        info!("step {}: checksum {checksum:016x}", replay.step);
    }
}

/// `R`: back to the start, and the replay from step 0.
fn restart(
    keys: Res<ButtonInput<KeyCode>>,
    mut replay: ResMut<Replay>,
    player: Single<(Entity, &mut Transform), With<PlayerWalker>>,
    mut commands: Commands,
) {
    if keys.just_pressed(KeyCode::KeyR) {
        let (entity, mut transform) = player.into_inner();
        commands.entity(entity).stop_walking();
        transform.translation = START.extend(1.0);
        *replay = Replay::default();
    }
}
