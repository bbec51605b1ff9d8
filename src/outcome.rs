//! What happens to requests and walks: the events the plugin sends.
//!
//! The contract:
//! * every [`WalkRequest`](crate::WalkRequest) gets exactly one answer, carrying its
//!   id: [`PathReady`], [`PathUnreachable`] or [`PathCancelled`];
//! * every walk that started with [`PathReady`] ends exactly once: [`Arrived`] at its
//!   end, or [`WalkStopped`] (stopped, superseded by a newer request's path, or
//!   blocked);
//! * in between, a walk may be re-planned any number of times, each reported by
//!   [`PathReplanned`] (an area closed, the mask or the room changed, the walker's
//!   area limit or room changed);
//! * a walker that is despawned, or loses its [`Walker`](crate::Walker) component,
//!   has its open request answered [`PathCancelled`] and its open walk ended
//!   [`WalkStopped`] ([`StopReason::Removed`]), and then gets nothing more;
//! * a request for an entity that does not exist or is not a walker is answered
//!   [`PathUnreachable`].
//!
//! Each event is both an [`EntityEvent`] on the walker (observe it) and a [`Message`]
//! (read it with a `MessageReader`).

use bevy::prelude::*;

use crate::request::RequestId;

/// The answer to a request: a path was found and the walker starts following it.
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
    /// The request answered.
    pub request: RequestId,
    /// The requested destination.
    pub target: Vec2,
    /// The walk in world coordinates, from the walker's position to the end.
    pub waypoints: Vec<Vec2>,
    /// Whether the end differs from `target`: the destination was blocked, outside the
    /// mask or not reachable, and the walk ends at the reachable point nearest to it.
    pub snapped: bool,
}

/// The answer to a request: no path. The target is not a finite point, the entity is
/// not a walker, the walker's room or mask is missing or failed to load, nothing is
/// walkable near the walker, or (with snapping off) the destination cannot be reached.
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
    /// The request answered.
    pub request: RequestId,
    /// The requested destination.
    pub target: Vec2,
}

/// The answer to a request that was dropped before its path was ready: a newer request
/// superseded it, or the walker was stopped.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathCancelled;
///
/// fn setup(mut commands: Commands) {
///     commands.add_observer(|ev: On<PathCancelled>| debug!("{} to {} dropped", ev.request, ev.target));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct PathCancelled {
    /// The walker.
    pub entity: Entity,
    /// The request answered.
    pub request: RequestId,
    /// The requested destination.
    pub target: Vec2,
}

/// A walk in progress got a new path, because what the walker may use changed (an
/// area opened or closed, the mask was reloaded, the room moved, the walker's area
/// limit or room changed). Not an answer: the request was answered by its
/// [`PathReady`] already.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathReplanned;
///
/// fn setup(mut commands: Commands) {
///     commands.add_observer(|ev: On<PathReplanned>| debug!("{} re-planned ({} corners)", ev.entity, ev.waypoints.len()));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct PathReplanned {
    /// The walker.
    pub entity: Entity,
    /// The request whose walk this is.
    pub request: RequestId,
    /// The requested destination.
    pub target: Vec2,
    /// The rest of the walk in world coordinates, from the walker's position.
    pub waypoints: Vec<Vec2>,
    /// Whether the end differs from `target` (see [`PathReady::snapped`]).
    pub snapped: bool,
}

/// A walk ended at its end.
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
    /// The request whose walk ended.
    pub request: RequestId,
    /// Where it stands, world coordinates.
    pub position: Vec2,
}

/// Why a walk ended before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub enum StopReason {
    /// [`stop_walking`](crate::WalkCommandsExt::stop_walking).
    Stopped,
    /// A newer request was answered (with a path, or with [`PathUnreachable`], which
    /// leaves the walker standing).
    Superseded,
    /// A re-plan found no way on (an area closed around the walker, or with snapping
    /// off the destination closed); the walker stands where it was.
    Blocked,
    /// The walker was despawned or lost its [`Walker`](crate::Walker) component.
    Removed,
}

/// A walk ended before its end.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{StopReason, WalkStopped};
///
/// fn setup(mut commands: Commands) {
///     commands.add_observer(|ev: On<WalkStopped>| {
///         if ev.reason == StopReason::Blocked {
///             info!("{} can't go on", ev.entity);
///         }
///     });
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct WalkStopped {
    /// The walker.
    pub entity: Entity,
    /// The request whose walk ended.
    pub request: RequestId,
    /// Where it stands, world coordinates.
    pub position: Vec2,
    /// Why.
    pub reason: StopReason,
}

/// One event to send.
pub(crate) enum Outcome {
    Ready(PathReady),
    Unreachable(PathUnreachable),
    Cancelled(PathCancelled),
    Replanned(PathReplanned),
    Arrived(Arrived),
    Stopped(WalkStopped),
}

/// Writes the event as a message and triggers it on the walker.
pub(crate) fn emit(world: &mut World, outcome: Outcome) {
    macro_rules! send {
        ($event:expr) => {{
            let event = $event;
            world.write_message(event.clone());
            world.trigger(event);
        }};
    }
    match outcome {
        Outcome::Ready(ev) => send!(ev),
        Outcome::Unreachable(ev) => send!(ev),
        Outcome::Cancelled(ev) => send!(ev),
        Outcome::Replanned(ev) => send!(ev),
        Outcome::Arrived(ev) => send!(ev),
        Outcome::Stopped(ev) => send!(ev),
    }
}

/// Registers the messages.
pub(crate) fn add_messages(app: &mut App) {
    app.add_message::<PathReady>()
        .add_message::<PathUnreachable>()
        .add_message::<PathCancelled>()
        .add_message::<PathReplanned>()
        .add_message::<Arrived>()
        .add_message::<WalkStopped>()
        .register_type::<StopReason>();
}
