//! Companions: a dog at the player's heels and a friend a little behind, each a
//! walker that follows another ([`WalkFollow`]).
//!
//! ```text
//! cargo run --example companions
//! ```
//!
//! Click to walk. The dog keeps close to the player and sets off at once; the friend
//! follows the dog, lets it get farther and takes a moment before setting off. All
//! three have a radius and keep apart. `F` tells the friend to wait where she is, or
//! to come along again (removing and inserting her `WalkFollow`).

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        .add_systems(Update, wait_or_come);
}

/// The friend, who follows the dog; `F` tells her to wait or to come along.
#[derive(Component, Debug)]
pub struct Friend {
    /// How she follows when she comes along.
    pub follow: WalkFollow,
}

/// The dog's way of following the player: close, at once.
pub fn dog_follows(player: Entity) -> WalkFollow {
    WalkFollow::new(player)
        .with_distance(40.0)
        .with_slack(10.0)
        .with_delay(0.0)
}

/// The friend's way of following the dog: farther, after a moment.
pub fn friend_follows(dog: Entity) -> WalkFollow {
    WalkFollow::new(dog)
        .with_distance(60.0)
        .with_slack(40.0)
        .with_delay(0.5)
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
    let player = commands
        .spawn(body(
            Walker::new(400.0).with_radius(14.0),
            Color::srgb(0.9, 0.3, 0.2),
            Vec2::new(30.0, 90.0),
            Vec2::new(-500.0, -150.0),
        ))
        .insert(PlayerWalker)
        .id();
    let dog = commands
        .spawn(body(
            Walker::new(450.0).with_radius(10.0),
            Color::srgb(0.55, 0.4, 0.25),
            Vec2::new(36.0, 24.0),
            Vec2::new(-560.0, -170.0),
        ))
        .insert(dog_follows(player))
        .id();
    let follow = friend_follows(dog);
    commands
        .spawn(body(
            Walker::new(300.0).with_radius(14.0),
            Color::srgb(0.3, 0.5, 0.9),
            Vec2::new(28.0, 80.0),
            Vec2::new(-640.0, -140.0),
        ))
        .insert((follow, Friend { follow }));
}

/// A walker drawn as a box standing on its feet at `at` (room units).
fn body(walker: Walker, color: Color, size: Vec2, at: Vec2) -> impl Bundle {
    (
        walker,
        Facing::default(),
        Sprite::from_color(color, size),
        Anchor::BOTTOM_CENTER,
        Transform::from_translation(at.extend(1.0)),
    )
}

/// `F`: the friend waits where she is, or comes along again.
fn wait_or_come(
    keys: Res<ButtonInput<KeyCode>>,
    friend: Single<(Entity, &Friend, Has<WalkFollow>)>,
    mut commands: Commands,
) {
    if !keys.just_pressed(KeyCode::KeyF) {
        return;
    }
    let (entity, friend, following) = *friend;
    if following {
        // No longer following, and standing where she is now.
        commands
            .entity(entity)
            .remove::<WalkFollow>()
            .stop_walking();
    } else {
        commands.entity(entity).insert(friend.follow);
    }
}
