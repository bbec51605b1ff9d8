//! A crowd in the demo lobby: 300 walkers follow the player around, or go where the
//! player clicks, sharing one distance field per destination.
//!
//! ```text
//! cargo run --release --example crowd
//! ```
//!
//! Click to walk; the crowd follows. `F` switches between following the player
//! (everyone is sent to the player's feet every half second) and going to the clicked
//! point, `D` toggles the debug overlay, `Esc` quits. The status line shows the
//! frame time, how many distance fields were filled and how many walks were traced
//! from a shared one: with 300 walkers sent to one point, one field is filled on the
//! task pool and every walker traces it, instead of 300 searches. Members have a
//! radius, so they avoid each other as they walk and stand side by side where they
//! arrive ([`Avoidance`](bevy_walkmask::Avoidance)); the status line counts the
//! pairs that overlap.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{WarmFieldCache, background_searches};

/// Size of the room picture in pixels (= world units).
const ROOM: Vec2 = Vec2::new(1920.0, 1080.0);
/// Walkers in the crowd.
const CROWD: usize = 300;
/// Radius of a crowd member's footprint (world units): members avoid each other and
/// stand side by side where they arrive.
const MEMBER_RADIUS: f32 = 6.0;
/// Seconds between the crowd's new destinations while following.
const FOLLOW_PERIOD: f32 = 0.5;

fn main() {
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "bevy_walkmask crowd".into(),
                        resolution: (1280, 720).into(),
                        ..default()
                    }),
                    ..default()
                })
                // Path searches below the frame's threads (see the README).
                .set(TaskPoolPlugin {
                    task_pool_options: background_searches(TaskPoolOptions::default()),
                }),
        )
        .add_plugins((WalkmaskPlugin::default(), WalkmaskDebugPlugin))
        .insert_resource(WalkmaskDebug { enabled: false })
        .insert_resource(ClearColor(Color::srgb(0.08, 0.07, 0.09)))
        .insert_resource(Crowd {
            follow: true,
            timer: 0.0,
            spawned: false,
            frame_ms: 16.0,
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                spawn_crowd,
                keys,
                lead.before(WalkmaskSystems::Plan),
                status_line.after(WalkmaskSystems::Poll),
            ),
        )
        .run();
}

/// What the crowd does.
#[derive(Resource)]
struct Crowd {
    /// Following the player (true) or going where it clicks.
    follow: bool,
    timer: f32,
    spawned: bool,
    /// Smoothed frame time.
    frame_ms: f32,
}

/// A member of the crowd.
#[derive(Component)]
struct Member;

#[derive(Component)]
struct StatusText;

#[derive(Resource)]
struct Lobby(Handle<WalkMask>);

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        WalkCamera,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::AutoMin {
                min_width: ROOM.x,
                min_height: ROOM.y,
            },
            ..OrthographicProjection::default_2d()
        }),
    ));
    let mask: Handle<WalkMask> = assets.load("rooms/lobby.walk.png");
    commands.insert_resource(Lobby(mask.clone()));
    commands.spawn((
        Sprite::from_image(assets.load("rooms/lobby.png")),
        // Every area enabled: the garden gate is open.
        WalkRoom::new(mask),
    ));
    commands.spawn((
        Name::new("player"),
        Walker::new(300.0).with_radius(10.0),
        PlayerWalker,
        Sprite::from_color(Color::srgb(0.95, 0.3, 0.2), Vec2::new(22.0, 70.0)),
        Anchor::BOTTOM_CENTER,
        Transform::from_xyz(0.0, -300.0, 30.0),
    ));
    commands.spawn((
        StatusText,
        Text::new(""),
        TextFont::from_font_size(17.0),
        TextColor(Color::srgb(0.96, 0.92, 0.84)),
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(10.0),
            bottom: Val::Px(10.0),
            padding: UiRect::axes(Val::Px(10.0), Val::Px(6.0)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.05, 0.04, 0.06, 0.72)),
    ));
}

/// Once the mask is loaded, the crowd stands on walkable pixels spread over the lobby.
fn spawn_crowd(
    mut commands: Commands,
    mut crowd: ResMut<Crowd>,
    lobby: Res<Lobby>,
    masks: Res<Assets<WalkMask>>,
) {
    if crowd.spawned {
        return;
    }
    let Some(mask) = masks.get(&lobby.0) else {
        return;
    };
    let core = mask.core();
    let (w, h) = (core.width(), core.height());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut placed = 0;
    while placed < CROWD {
        let (x, y) = ((next() % w as u64) as u32, (next() % h as u64) as u32);
        if core.area_at(x, y).is_none_or(|a| a != 1) {
            continue;
        }
        let at = Vec2::new(
            x as f32 + 0.5 - w as f32 / 2.0,
            h as f32 / 2.0 - y as f32 - 0.5,
        );
        let hue = (placed as f32 * 137.5) % 360.0;
        commands.spawn((
            Member,
            Walker::new(140.0 + (next() % 80) as f32).with_radius(MEMBER_RADIUS),
            Sprite::from_color(Color::hsl(hue, 0.55, 0.6), Vec2::new(10.0, 30.0)),
            Anchor::BOTTOM_CENTER,
            Transform::from_translation(at.extend(20.0 - at.y * 1e-3)),
        ));
        placed += 1;
    }
    crowd.spawned = true;
}

fn keys(
    input: Res<ButtonInput<KeyCode>>,
    mut crowd: ResMut<Crowd>,
    mut debug: ResMut<WalkmaskDebug>,
    mut exit: MessageWriter<AppExit>,
) {
    if input.just_pressed(KeyCode::KeyF) {
        crowd.follow = !crowd.follow;
    }
    if input.just_pressed(KeyCode::KeyD) {
        debug.enabled = !debug.enabled;
    }
    if input.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
}

/// Sends the whole crowd to one point: the player's feet every `FOLLOW_PERIOD`, or the
/// point the player was sent to.
fn lead(
    time: Res<Time>,
    mut crowd: ResMut<Crowd>,
    players: Query<(Entity, &Transform), With<PlayerWalker>>,
    members: Query<Entity, With<Member>>,
    mut requests: ParamSet<(MessageReader<WalkRequest>, MessageWriter<WalkRequest>)>,
) {
    let Ok((player, feet)) = players.single() else {
        return;
    };
    let clicked = requests
        .p0()
        .read()
        .filter(|r| r.walker == player)
        .map(|r| r.target)
        .last();
    crowd.timer -= time.delta_secs();
    let target = if crowd.follow {
        if crowd.timer > 0.0 {
            return;
        }
        crowd.timer = FOLLOW_PERIOD;
        feet.translation.truncate()
    } else {
        let Some(target) = clicked else {
            return;
        };
        target
    };
    let mut writer = requests.p1();
    for member in &members {
        writer.write(WalkRequest::new(member, target));
    }
}

fn status_line(
    time: Res<Time>,
    mut crowd: ResMut<Crowd>,
    fields: Res<WarmFieldCache>,
    members: Query<(&WalkState, &Transform), With<Member>>,
    mut texts: Query<&mut Text, With<StatusText>>,
) {
    let dt = time.delta_secs() * 1e3;
    crowd.frame_ms += (dt - crowd.frame_ms) * 0.05;
    let walking = members
        .iter()
        .filter(|(s, _)| **s == WalkState::Walking)
        .count();
    // Members closer than 0.9 x the sum of their radii.
    let feet: Vec<Vec2> = members
        .iter()
        .map(|(_, t)| t.translation.truncate())
        .collect();
    let overlapping = feet
        .iter()
        .enumerate()
        .map(|(i, a)| {
            feet[i + 1..]
                .iter()
                .filter(|b| a.distance(**b) < 0.9 * 2.0 * MEMBER_RADIUS)
                .count()
        })
        .sum::<usize>();
    let stats = fields.stats();
    let line = format!(
        "{}  |  {} walkers, {} walking, {} pairs overlapping  |  frame {:.1} ms  |  fields filled {}, walks traced from a shared field {}  |  F: follow / go where clicked  D: overlay",
        if crowd.follow {
            "following the player"
        } else {
            "going where clicked"
        },
        members.iter().count(),
        walking,
        overlapping,
        crowd.frame_ms,
        stats.fills,
        stats.shared,
    );
    for mut text in &mut texts {
        if text.0 != line {
            text.0 = line.clone();
        }
    }
}
