//! Walkers, walk requests and their outcomes.

use bevy::prelude::*;

use crate::room::WalkAreas;

/// An entity that walks on a [`WalkRoom`](crate::WalkRoom)'s mask at a constant speed.
///
/// Its position is its `Transform` translation (x, y; z is kept), in world units.
/// Walkers are expected to be top-level entities (or children of parents with an
/// identity transform), so that the translation is the world position.
///
/// Required components: [`WalkState`], [`Heading`] (and `Transform`).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{Player, WalkAreas, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // The player: left clicks move it.
///     commands.spawn((Walker::new(240.0), Player, Transform::from_xyz(0.0, -100.0, 1.0)));
///     // An NPC who never enters area 3 (the kitchen).
///     commands.spawn((Walker::new(120.0).with_areas(WalkAreas::only(&[1, 2])), Transform::default()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, Default)]
#[require(Transform, WalkState, Heading)]
pub struct Walker {
    /// World units per second.
    pub speed: f32,
    /// The [`WalkRoom`](crate::WalkRoom) entity this walker is in; `None` = the single
    /// `WalkRoom` in the world.
    pub room: Option<Entity>,
    /// A further limit on the areas this walker may use (intersected with the room's
    /// enabled areas); `None` = no limit.
    pub areas: Option<WalkAreas>,
}

impl Default for Walker {
    /// 200 world units per second, the single room, no area limit.
    fn default() -> Self {
        Self::new(200.0)
    }
}

impl Walker {
    /// A walker moving `speed` world units per second, in the single room, with no
    /// area limit.
    ///
    /// ```
    /// # use bevy_walkmask::Walker;
    /// assert_eq!(Walker::new(150.0).speed, 150.0);
    /// ```
    pub fn new(speed: f32) -> Self {
        Self {
            speed,
            room: None,
            areas: None,
        }
    }

    /// Puts the walker in the room `room`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::Walker;
    /// let room = Entity::PLACEHOLDER;
    /// assert_eq!(Walker::new(100.0).with_room(room).room, Some(room));
    /// ```
    pub fn with_room(mut self, room: Entity) -> Self {
        self.room = Some(room);
        self
    }

    /// Limits the walker to `areas` (on top of the room's enabled areas).
    ///
    /// ```
    /// # use bevy_walkmask::{WalkAreas, Walker};
    /// let npc = Walker::new(100.0).with_areas(WalkAreas::only(&[1]));
    /// assert!(!npc.areas.unwrap().contains(2));
    /// ```
    pub fn with_areas(mut self, areas: WalkAreas) -> Self {
        self.areas = Some(areas);
        self
    }
}

/// Marker: left clicks on the room send a [`WalkRequest`] for this walker (when
/// [`WalkmaskSettings::click_to_walk`](crate::WalkmaskSettings::click_to_walk) is on).
///
/// ```
/// # use bevy::prelude::*;
/// use bevy_walkmask::{Player, Walker};
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((Walker::new(200.0), Player));
/// # }
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct Player;

/// What a walker is doing.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkState, Walker};
///
/// fn log_states(walkers: Query<(Entity, &WalkState), (With<Walker>, Changed<WalkState>)>) {
///     for (entity, state) in &walkers {
///         info!("{entity}: {state:?}");
///     }
/// }
/// # bevy::ecs::system::assert_is_system(log_states);
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, PartialEq, Eq, Debug)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub enum WalkState {
    /// Standing, no request pending (also after [`stop_walking`](WalkCommandsExt::stop_walking)).
    #[default]
    Idle,
    /// A path is being computed (or waits for the mask to load). A walker that is
    /// already walking stays [`Walking`](Self::Walking) while its next path is computed.
    Planning,
    /// Following a [`WalkPath`].
    Walking,
    /// The last walk ended at its destination (or the reachable point nearest to it).
    Arrived,
    /// The last request could not be answered with a path.
    Unreachable,
}

/// The unit direction the walker is moving in, `Vec2::ZERO` when it is not moving.
/// Use it to pick a walk animation.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::Heading;
///
/// fn face(mut walkers: Query<(&Heading, &mut Sprite)>) {
///     for (heading, mut sprite) in &mut walkers {
///         if heading.0.x != 0.0 {
///             sprite.flip_x = heading.0.x < 0.0;
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(face);
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, PartialEq, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct Heading(pub Vec2);

/// The path a walker is following, in world coordinates. Present while walking;
/// removed when the walk ends or stops.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkPath;
///
/// fn remaining(paths: Query<(&WalkPath, &Transform)>) {
///     for (path, transform) in &paths {
///         let _left: f32 = path.remaining_length(transform.translation.truncate());
///     }
/// }
/// # bevy::ecs::system::assert_is_system(remaining);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug)]
pub struct WalkPath {
    /// The corners of the walk, the first one where it started.
    pub waypoints: Vec<Vec2>,
    /// Index of the waypoint the walker is heading to.
    pub next: usize,
    /// The destination that was asked for (the last waypoint differs when it was
    /// snapped to the nearest reachable point).
    pub target: Vec2,
}

impl WalkPath {
    /// Length still to walk from `position`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkPath;
    /// let path = WalkPath { waypoints: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0)], next: 1, target: Vec2::new(10.0, 5.0) };
    /// assert_eq!(path.remaining_length(Vec2::new(4.0, 0.0)), 11.0);
    /// ```
    pub fn remaining_length(&self, position: Vec2) -> f32 {
        let rest = self.waypoints.get(self.next..).unwrap_or(&[]);
        let mut length = 0.0;
        let mut at = position;
        for &p in rest {
            length += at.distance(p);
            at = p;
        }
        length
    }

    /// The end of the walk.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkPath;
    /// let path = WalkPath { waypoints: vec![Vec2::ZERO, Vec2::X], next: 0, target: Vec2::X };
    /// assert_eq!(path.end(), Some(Vec2::X));
    /// ```
    pub fn end(&self) -> Option<Vec2> {
        self.waypoints.last().copied()
    }
}

/// Asks `walker` to walk to `target` (world coordinates). Write it with a
/// `MessageWriter`, or use [`WalkCommandsExt::walk_to`].
///
/// A new request supersedes the walker's previous one: a path still being computed
/// is cancelled ([`PathCancelled`]); a walker already walking keeps walking until the
/// new path is ready, then continues from where it is. Every request ends in exactly
/// one of [`PathReady`], [`PathUnreachable`] or [`PathCancelled`] (none when the
/// walker is despawned first).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkRequest, Walker};
///
/// fn everyone_to_the_door(walkers: Query<Entity, With<Walker>>, mut requests: MessageWriter<WalkRequest>) {
///     for walker in &walkers {
///         requests.write(WalkRequest { walker, target: Vec2::new(300.0, -120.0) });
///     }
/// }
/// # bevy::ecs::system::assert_is_system(everyone_to_the_door);
/// ```
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct WalkRequest {
    /// The walker.
    pub walker: Entity,
    /// Where to go, world coordinates.
    pub target: Vec2,
}

/// A path was found for a request. The walker starts following it.
///
/// Triggered on the walker (observe it with `On<PathReady>`) and written as a message.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathReady;
///
/// fn setup(mut commands: Commands) {
///     commands.add_observer(|ready: On<PathReady>| {
///         info!("{} walks {} corners (snapped: {})", ready.entity, ready.waypoints.len(), ready.snapped);
///     });
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct PathReady {
    /// The walker.
    pub entity: Entity,
    /// The requested destination.
    pub target: Vec2,
    /// The walk in world coordinates, from the walker's position to the end.
    pub waypoints: Vec<Vec2>,
    /// Whether the end differs from `target`: the destination was blocked, outside the
    /// mask or not reachable, and the walk ends at the reachable point nearest to it.
    pub snapped: bool,
}

/// No path for a request: the target is not a finite point, the walker's room or mask
/// is missing or failed to load, nothing is walkable near the walker, or (with
/// snapping off) the destination cannot be reached.
///
/// Triggered on the walker and written as a message.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathUnreachable;
///
/// fn shrug(mut unreachable: MessageReader<PathUnreachable>) {
///     for ev in unreachable.read() {
///         info!("{} can't get to {}", ev.entity, ev.target);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(shrug);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct PathUnreachable {
    /// The walker.
    pub entity: Entity,
    /// The requested destination.
    pub target: Vec2,
}

/// A request was cancelled before its path was ready: a newer request superseded it,
/// or the walker was stopped.
///
/// Triggered on the walker and written as a message.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathCancelled;
///
/// fn setup(mut commands: Commands) {
///     commands.add_observer(|ev: On<PathCancelled>| debug!("request to {} dropped", ev.target));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct PathCancelled {
    /// The walker.
    pub entity: Entity,
    /// The requested destination.
    pub target: Vec2,
}

/// A walk ended: the walker reached the end of its path (not sent when the walk is
/// stopped or superseded).
///
/// Triggered on the walker and written as a message.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{Arrived, Walker};
///
/// fn spawn(mut commands: Commands) {
///     commands
///         .spawn(Walker::new(100.0))
///         .observe(|ev: On<Arrived>| info!("arrived at {}", ev.position));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct Arrived {
    /// The walker.
    pub entity: Entity,
    /// Where it stands, world coordinates.
    pub position: Vec2,
}

/// Walk commands on an entity.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkCommandsExt, Walker};
///
/// fn script(mut commands: Commands, walkers: Query<Entity, With<Walker>>) {
///     for walker in &walkers {
///         commands.entity(walker).walk_to(Vec2::new(120.0, -40.0));
///     }
/// }
/// fn freeze(mut commands: Commands, walkers: Query<Entity, With<Walker>>) {
///     for walker in &walkers {
///         commands.entity(walker).stop_walking();
///     }
/// }
/// # bevy::ecs::system::assert_is_system(script);
/// # bevy::ecs::system::assert_is_system(freeze);
/// ```
pub trait WalkCommandsExt {
    /// Requests a walk to `target` (world coordinates). It behaves like a
    /// [`WalkRequest`] but takes effect when the command is applied, in order with the
    /// entity's other commands (so `walk_to` then `stop_walking` leaves the walker
    /// standing); no `WalkRequest` message is written.
    fn walk_to(&mut self, target: Vec2) -> &mut Self;

    /// Stops the walker where it stands: the path is dropped, a request in flight gets
    /// [`PathCancelled`], the state becomes [`WalkState::Idle`] and no [`Arrived`] is
    /// sent.
    fn stop_walking(&mut self) -> &mut Self;
}

impl WalkCommandsExt for EntityCommands<'_> {
    fn walk_to(&mut self, target: Vec2) -> &mut Self {
        let walker = self.id();
        self.commands()
            .queue(move |world: &mut World| crate::plan::accept_request(world, walker, target));
        self
    }

    fn stop_walking(&mut self) -> &mut Self {
        let walker = self.id();
        self.commands()
            .queue(move |world: &mut World| crate::plan::stop_walker(world, walker));
        self
    }
}
