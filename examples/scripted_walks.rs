//! Walking from code: a butler goes his round of the lobby, one step after another.
//!
//! ```text
//! cargo run --example scripted_walks
//! ```
//!
//! Each step starts when the last one's request ends ([`RequestEnded`]), however it
//! ended: a walk (`walk_to`), a walk that turns him to face the room at its end
//! (`walk_to_facing`), a pause, and a cutscene route that goes straight through the
//! furniture (`walk_anywhere`: the mask is not asked). `Space` skips the walk under
//! way (`Hurry::Skip`), `S` stops him where he stands (`stop_walking`); either way
//! the round goes on with the next step.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_walkmask::prelude::*;

/// Where the butler starts, and where his round ends.
pub const HOME: Vec2 = Vec2::new(-500.0, -150.0);

fn main() {
    App::new().add_plugins((DefaultPlugins, example)).run();
}

/// The example itself, as a plugin.
pub fn example(app: &mut App) {
    app.add_plugins(WalkmaskPlugin::default())
        .add_systems(Startup, setup)
        .add_systems(Update, (next_step, keys));
}

/// One step of a round.
#[derive(Clone, Debug)]
pub enum Step {
    /// Walk to a point.
    Walk(Vec2),
    /// Walk to a point, then face this way.
    WalkThenFace(Vec2, FacingDirection),
    /// Stand for this many seconds.
    Pause(f32),
    /// Straight through these points to the last one, whatever the mask says.
    Cutscene(Vec<Vec2>, Vec2),
}

/// The steps of a walker's round, and the request it waits for.
#[derive(Component, Debug)]
pub struct Round {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The step to start next.
    pub next: usize,
    /// The request under way, or `None` when the next step may start.
    pub waiting_for: Option<RequestId>,
    /// Seconds left of a pause.
    pub pause: f32,
    /// How each request of the round ended, in order.
    pub ended: Vec<RequestOutcome>,
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
    let steps = vec![
        Step::Walk(Vec2::new(540.0, -160.0)),
        Step::WalkThenFace(Vec2::new(0.0, -460.0), FacingDirection::Up),
        Step::Pause(1.0),
        Step::Cutscene(vec![Vec2::new(0.0, -150.0)], HOME),
    ];
    commands
        .spawn((
            Walker::new(300.0),
            Facing::four(),
            Round {
                steps,
                next: 0,
                waiting_for: None,
                pause: 0.0,
                ended: Vec::new(),
            },
            Sprite::from_color(Color::srgb(0.2, 0.3, 0.8), Vec2::new(30.0, 90.0)),
            Anchor::BOTTOM_CENTER,
            Transform::from_translation(HOME.extend(1.0)),
        ))
        // The step under way is over, whatever its end: the next one may start.
        .observe(|ended: On<RequestEnded>, mut rounds: Query<&mut Round>| {
            if let Ok(mut round) = rounds.get_mut(ended.entity)
                && round.waiting_for == Some(ended.request)
            {
                info!("{} ended: {:?}", ended.request, ended.outcome);
                round.waiting_for = None;
                round.ended.push(ended.outcome);
            }
        });
}

/// Starts each walker's next step once the last one is over.
fn next_step(time: Res<Time>, mut commands: Commands, mut rounds: Query<(Entity, &mut Round)>) {
    for (walker, mut round) in &mut rounds {
        if round.waiting_for.is_some() {
            continue;
        }
        if round.pause > 0.0 {
            round.pause -= time.delta_secs();
            continue;
        }
        let Some(step) = round.steps.get(round.next).cloned() else {
            continue; // the round is over
        };
        round.next += 1;
        let mut walker = commands.entity(walker);
        round.waiting_for = match step {
            Step::Walk(to) => Some(walker.walk_to(to)),
            Step::WalkThenFace(to, way) => {
                Some(walker.walk_to_facing(to, FaceTarget::Direction(way)))
            }
            Step::Pause(seconds) => {
                round.pause = seconds;
                None
            }
            Step::Cutscene(via, to) => Some(walker.walk_anywhere(via, to)),
        };
    }
}

/// `Space` skips the walk under way, `S` stops it.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut commands: Commands,
    walkers: Query<Entity, With<Round>>,
) {
    for walker in &walkers {
        if keys.just_pressed(KeyCode::Space) {
            commands.entity(walker).hurry(Hurry::Skip);
        }
        if keys.just_pressed(KeyCode::KeyS) {
            commands.entity(walker).stop_walking();
        }
    }
}
