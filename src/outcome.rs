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
//!   [`PathUnreachable`];
//! * every request ends exactly once, whichever of these ends it, with
//!   [`RequestEnded`] right after the event that ended it: follow a request to its
//!   end there (scripts, interactions and exits do).
//!
//! Each event is both an [`EntityEvent`] on the walker (observe it) and a [`Message`]
//! (read it with a `MessageReader`), for two kinds of reader: an observer runs at
//! once, inside the frame's command flush, so a script can start its next step in
//! the same frame (and an observer on one walker hears only that walker); a message
//! is read by ordinary systems in their order, later in the frame or the next (a
//! status line, a log, a replay recorder). They are the same event twice: react to
//! any one outcome through one of them, not both, or the game acts twice.
//!
//! # The walk lifecycle
//!
//! A walker is in one of these states ([`WalkState`](crate::WalkState) shows it; `job` is the walker's
//! request or re-plan under way, `walk` its [`WalkPath`](crate::WalkPath), `waiting` the newest request
//! that arrived while the job's search ran):
//!
//! ```text
//!            request                   answer: path
//!   Idle ─────────────▶ Planning ───────────────────▶ Walking ──── last waypoint ───▶ Arrived
//!  Arrived               (job)   ─── answer: none ─▶ Unreachable    (walk)   ── Arrived event
//! Unreachable                                                        │ ▲
//!                                                                    │ │ re-plan lands
//!                                      area, mask, room, obstacle,   ▼ │ (PathReplanned)
//!                                      moved by game code ──▶ Walking + job (re-plan)
//! ```
//!
//! | state | input | next | outcomes |
//! |---|---|---|---|
//! | no job | request | job (search starts in `Plan`) | — |
//! | job not started | request | the new job | old request: `PathCancelled` |
//! | job searching | request | job, the request waiting (replacing any waiting one) | replaced waiting request: `PathCancelled` |
//! | job searching | its answer lands, waiting request near its target (within [`WalkTuning::rerequest_join_distance`](crate::WalkTuning::rerequest_join_distance)), or the walker stands and its target lies nearer the waiting one's than the walker does | answer applied, then the waiting request's job | as for the answer below |
//! | job searching | its answer lands, waiting request far otherwise | the waiting request's job | job's request: `PathCancelled` |
//! | request job | answer: path | Walking | `PathReady`; a walk in progress: `WalkStopped` (`Superseded`) first |
//! | request job | answer: none | Unreachable | `PathUnreachable`; a walk in progress: `WalkStopped` (`Superseded`) |
//! | re-plan job | answer: path | Walking | `PathReplanned` |
//! | re-plan job | answer: none | Unreachable | `WalkStopped` (`Blocked`) |
//! | any job | answer cannot be joined to where the walker got to | the job again, from further ahead (8 tries, then as "none") | — |
//! | Walking | last waypoint reached | Arrived (or Planning if a request's job runs) | `Arrived` |
//! | Walking | room, mask, areas or walker settings change; a solid obstacle enters or leaves the path | Walking + re-plan job | — |
//! | Walking | moved by game code | Walking + re-plan job; stands until it lands | — |
//! | Walking | held back by other walkers, no nearer its end for 3 s, then again for 3 s after a re-plan | Unreachable | `WalkStopped` (`Blocked`) |
//! | any | route through given points ([`WalkRoute::Anywhere`](crate::WalkRoute::Anywhere)) | Walking (no job) | job's requests: `PathCancelled`; walk: `WalkStopped` (`Superseded`); `PathReady` |
//! | any | `stop_walking` | Idle | job's requests: `PathCancelled`; walk: `WalkStopped` (`Stopped`) |
//! | any | steering input not zero | Walking while it moves, else Idle | job's requests: `PathCancelled`; walk: `WalkStopped` (`Superseded`) |
//! | steered | input zero or `WalkInput` removed | Idle | — |
//! | any | request with a point not finite | Unreachable | job's requests: `PathCancelled`; walk: `WalkStopped`; `PathUnreachable` |
//! | any | `Walker` removed or despawned | — | job's requests: `PathCancelled`; walk: `WalkStopped` (`Removed`) |
//! | not a walker | request | — | `PathUnreachable` |
//!
//! So every request gets exactly one answer, every walk that started ends exactly
//! once, and at most one search per walker runs at a time: a walker sent somewhere
//! new every frame (a held button, a chaser) gets the newest answer its searches can
//! give rather than none.

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
    /// off the destination closed), other walkers kept it from its end (it got no
    /// nearer for 3 seconds, and again after a re-plan), or a tile-step walker waited
    /// too long for its next tile; the walker stands where it was.
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

/// How a request ended, in [`RequestEnded`].
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub enum RequestOutcome {
    /// Its walk reached its end ([`Arrived`]).
    Arrived {
        /// Where the walker stands, world coordinates.
        position: Vec2,
    },
    /// Its walk ended before its end ([`WalkStopped`]).
    Stopped {
        /// Why.
        reason: StopReason,
        /// Where the walker stands, world coordinates.
        position: Vec2,
    },
    /// It was answered with no path ([`PathUnreachable`]).
    Unreachable,
    /// It was dropped before its path was ready ([`PathCancelled`]).
    Cancelled,
}

/// A request is over: sent exactly once for every request, right after the event
/// that ended it ([`Arrived`], [`WalkStopped`], [`PathUnreachable`] or
/// [`PathCancelled`]), so that code that waits for a request (a script's step, an
/// interaction, an exit's walk-off) follows it to its end in one place, whatever the
/// end. An [`EntityEvent`] on the walker and a [`Message`], like the others.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn walk_then_say(mut commands: Commands, player: Single<Entity, With<PlayerWalker>>) {
///     let walk = commands.entity(*player).walk_to(Vec2::new(40.0, -20.0));
///     commands.entity(*player).observe(move |ended: On<RequestEnded>| {
///         if ended.request == walk {
///             match ended.outcome {
///                 RequestOutcome::Arrived { .. } => info!("here I am"),
///                 _ => info!("I couldn't get there"),
///             }
///         }
///     });
/// }
/// # bevy::ecs::system::assert_is_system(walk_then_say);
/// ```
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq)]
pub struct RequestEnded {
    /// The walker (or the entity that was asked to walk).
    pub entity: Entity,
    /// The request.
    pub request: RequestId,
    /// How it ended.
    pub outcome: RequestOutcome,
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
    let ended = |entity, request, outcome| RequestEnded {
        entity,
        request,
        outcome,
    };
    let end = match outcome {
        Outcome::Ready(ev) => {
            send!(ev);
            None
        }
        Outcome::Replanned(ev) => {
            send!(ev);
            None
        }
        Outcome::Unreachable(ev) => {
            let end = ended(ev.entity, ev.request, RequestOutcome::Unreachable);
            send!(ev);
            Some(end)
        }
        Outcome::Cancelled(ev) => {
            let end = ended(ev.entity, ev.request, RequestOutcome::Cancelled);
            send!(ev);
            Some(end)
        }
        Outcome::Arrived(ev) => {
            let position = ev.position;
            let end = ended(ev.entity, ev.request, RequestOutcome::Arrived { position });
            send!(ev);
            Some(end)
        }
        Outcome::Stopped(ev) => {
            let (reason, position) = (ev.reason, ev.position);
            let end = ended(
                ev.entity,
                ev.request,
                RequestOutcome::Stopped { reason, position },
            );
            send!(ev);
            Some(end)
        }
    };
    if let Some(end) = end {
        send!(end);
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
        .add_message::<RequestEnded>()
        .register_type::<StopReason>()
        .register_type::<RequestOutcome>();
}
