//! A crowd: 300 walkers follow the player round the lobby, or go where the player
//! clicks. `cargo run --release --example crowd`
//!
//! Click to walk; the crowd follows. `F` switches between following the player (to
//! the player's feet every half second) and going to the clicked point. With 300
//! walkers sent to one point, one field is filled on the task pool and every walker
//! traces it; members have a radius, so they avoid each other as they walk and stand
//! side by side where they arrive ([`Avoidance`](bevy_walkmask::Avoidance)).

use std::time::Duration;

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::time::common_conditions::on_timer;
use bevy_walkmask::WarmFieldCache;
use bevy_walkmask::prelude::*;

/// Walkers in the crowd.
pub const CROWD: usize = 300;
/// Radius of a member's footprint (world units).
pub const MEMBER_RADIUS: f32 = 6.0;
/// Seconds between the crowd's new destinations while following.
const FOLLOW_PERIOD: f32 = 0.5;

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .insert_resource(Crowd {
            follow: true,
            timer: Timer::from_seconds(FOLLOW_PERIOD, TimerMode::Repeating),
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                spawn_crowd.run_if(not(any_with_component::<Member>)),
                lead.before(WalkmaskSystems::Plan),
                report.run_if(on_timer(Duration::from_secs(2))),
            ),
        );
}

/// What the crowd does: follow the player, or go where the player was sent.
#[derive(Resource)]
pub struct Crowd {
    /// Following the player (true) or going where it clicks.
    pub follow: bool,
    timer: Timer,
}

/// A member of the crowd.
#[derive(Component)]
pub struct Member;

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
        Walker::new(300.0).with_radius(10.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.95, 0.3, 0.2), Vec2::new(22.0, 70.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_xyz(0.0, -300.0, 30.0),
    ));
}

/// Once the mask is loaded, the crowd stands in rows on the lobby's floor (area 1).
fn spawn_crowd(mut commands: Commands, rooms: Query<&WalkRoom>, masks: Res<Assets<WalkMask>>) {
    let Some(mask) = rooms.iter().find_map(|room| masks.get(&room.mask)) else {
        return;
    };
    let core = mask.core();
    let (w, h) = (core.width(), core.height());
    let floor = (0..h)
        .step_by(17)
        .flat_map(|y| (0..w).step_by(23).map(move |x| (x, y)));
    let spots = floor.filter(|&(x, y)| core.area_at(x, y) == Some(1));
    for (i, (x, y)) in spots.take(CROWD).enumerate() {
        let at = Vec2::new(x as f32 - w as f32 / 2.0, h as f32 / 2.0 - y as f32);
        commands.spawn((
            Member,
            Walker::new(140.0 + (i % 8) as f32 * 10.0).with_radius(MEMBER_RADIUS),
            Sprite::from_color(
                Color::hsl(i as f32 * 137.5 % 360.0, 0.55, 0.6),
                Vec2::new(10.0, 30.0),
            ),
            Anchor::BOTTOM_CENTER,
            Transform::from_translation(at.extend(20.0)),
        ));
    }
}

/// Sends the whole crowd to one point: the player's feet every `FOLLOW_PERIOD`, or the
/// point the player was sent to. `F` switches between the two.
fn lead(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut crowd: ResMut<Crowd>,
    player: Single<(Entity, &Transform), With<PlayerWalker>>,
    members: Query<Entity, With<Member>>,
    mut requests: ParamSet<(MessageReader<WalkRequest>, MessageWriter<WalkRequest>)>,
) {
    let (player, feet) = *player;
    if keys.just_pressed(KeyCode::KeyF) {
        crowd.follow = !crowd.follow;
    }
    let clicked = requests
        .p0()
        .read()
        .filter(|r| r.walker == player)
        .map(|r| r.target)
        .last();
    let following = crowd.follow && crowd.timer.tick(time.delta()).just_finished();
    let target = match (crowd.follow, clicked) {
        (true, _) if following => feet.translation.truncate(),
        (false, Some(clicked)) => clicked,
        _ => return,
    };
    let mut writer = requests.p1();
    for member in &members {
        writer.write(WalkRequest::new(member, target));
    }
}

fn report(fields: Res<WarmFieldCache>, members: Query<&WalkState, With<Member>>) {
    let walking = members.iter().filter(|s| **s == WalkState::Walking).count();
    let stats = fields.stats();
    info!(
        "{walking} of {} walking; fields filled {}, walks traced from a shared field {}",
        members.iter().count(),
        stats.fills,
        stats.shared
    );
}
