//! Walk requests and their ids.

use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;

use crate::facing::FaceTarget;

/// Identifies one walk request. Every outcome of a request carries its id, so game
/// code can match answers to the requests it sent.
///
/// Ids come from a process-wide counter: [`RequestId::new`] never returns the same id
/// twice, nor one that a walk loaded from a save carries: when a [`WalkPath`] or an
/// [`Interacting`] is inserted (by a scene loaded through reflection, say), the
/// counter moves past its id, so a new request cannot be taken for the loaded one.
///
/// [`WalkPath`]: crate::WalkPath
/// [`Interacting`]: crate::Interacting
///
/// ```
/// use bevy_walkmask::RequestId;
/// let (a, b) = (RequestId::new(), RequestId::new());
/// assert_ne!(a, b);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Reflect)]
#[reflect(Clone, PartialEq, Hash, Debug)]
pub struct RequestId(u64);

static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

impl RequestId {
    /// A new id, never returned before in this process.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(NEXT_REQUEST.fetch_add(1, Ordering::Relaxed))
    }

    /// Makes every id handed out from now on come after this one (an id that came
    /// from elsewhere: a save).
    pub(crate) fn keep_later_ids_after(self) {
        NEXT_REQUEST.fetch_max(self.0.saturating_add(1), Ordering::Relaxed);
    }

    /// The id as a number (for logs).
    ///
    /// ```
    /// # use bevy_walkmask::RequestId;
    /// assert!(RequestId::new().get() > 0);
    /// ```
    pub fn get(self) -> u64 {
        self.0
    }
}

/// A component that carries the id of a request (see [`keep_ids_after_inserted`]).
pub(crate) trait CarriesRequest: Component {
    /// The request.
    fn request(&self) -> RequestId;
}

/// The insert hook of components that carry a request id: ids handed out after
/// a component was inserted with an id (new, or loaded from a save) come after it.
pub(crate) fn keep_ids_after_inserted<C: CarriesRequest>(
    world: bevy::ecs::world::DeferredWorld,
    context: bevy::ecs::lifecycle::HookContext,
) {
    if let Some(component) = world.get::<C>(context.entity) {
        component.request().keep_later_ids_after();
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "request #{}", self.0)
    }
}

/// How a walk gets to its target.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkRoute, WalkRequest};
///
/// // A cutscene: the ghost drifts through the wall to the window, by the fireplace.
/// let ghost = Entity::PLACEHOLDER;
/// let request = WalkRequest::new(ghost, Vec2::new(300.0, 40.0))
///     .with_route(WalkRoute::Anywhere { via: vec![Vec2::new(120.0, -20.0)] });
/// # let _ = request;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Clone, Debug, Default, PartialEq)]
pub enum WalkRoute {
    /// A path found on the walker's room's mask (the default).
    #[default]
    Pathfind,
    /// Straight lines from where the walker stands through `via` (world coordinates)
    /// to the target, ignoring the mask, its areas and obstacles (Adventure Game
    /// Studio's "anywhere" moves, for cutscenes). The walk is answered at once, with
    /// the same outcomes as any other ([`PathReady`](crate::PathReady), then
    /// [`Arrived`](crate::Arrived) or [`WalkStopped`](crate::WalkStopped)), and it is
    /// never re-planned. A non-finite point makes it
    /// [`PathUnreachable`](crate::PathUnreachable).
    Anywhere {
        /// Points to pass through before the target, in order.
        via: Vec<Vec2>,
    },
}

/// Asks `walker` to walk to `target` (world coordinates). Write it with a
/// `MessageWriter`, or use [`WalkCommandsExt::walk_to`](crate::WalkCommandsExt::walk_to)
/// and its relatives.
///
/// Every request gets exactly one answer, carrying its `id`:
/// [`PathReady`](crate::PathReady), [`PathUnreachable`](crate::PathUnreachable) or
/// [`PathCancelled`](crate::PathCancelled) (no answer only when the walker is
/// despawned first). A new request supersedes the walker's previous one: a request
/// still being planned is cancelled; a walker already walking keeps walking until the
/// new path is ready and then turns onto it without stopping.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{FaceTarget, FacingDirection, WalkRequest, Walker};
///
/// fn everyone_to_the_door(walkers: Query<Entity, With<Walker>>, mut requests: MessageWriter<WalkRequest>) {
///     for walker in &walkers {
///         let request = WalkRequest::new(walker, Vec2::new(300.0, -120.0))
///             .facing(FaceTarget::Direction(FacingDirection::Up));
///         info!("{walker} walks to the door ({})", request.id);
///         requests.write(request);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(everyone_to_the_door);
/// ```
#[derive(Message, Clone, Debug, PartialEq)]
pub struct WalkRequest {
    /// The walker.
    pub walker: Entity,
    /// Where to go, world coordinates.
    pub target: Vec2,
    /// The id its answer will carry ([`WalkRequest::new`] makes a fresh one).
    pub id: RequestId,
    /// What to face on arrival (set before [`Arrived`](crate::Arrived) is sent; a
    /// walk that stops early does not turn). `None`: keep the facing of the last step.
    pub face: Option<FaceTarget>,
    /// How to get there (default [`WalkRoute::Pathfind`]).
    pub route: WalkRoute,
}

impl WalkRequest {
    /// A request with a fresh id, found on the mask, keeping the last step's facing.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRequest;
    /// let a = WalkRequest::new(Entity::PLACEHOLDER, Vec2::ZERO);
    /// let b = WalkRequest::new(Entity::PLACEHOLDER, Vec2::ZERO);
    /// assert_ne!(a.id, b.id);
    /// ```
    pub fn new(walker: Entity, target: Vec2) -> Self {
        Self {
            walker,
            target,
            id: RequestId::new(),
            face: None,
            route: WalkRoute::Pathfind,
        }
    }

    /// Faces `face` on arrival (see [`WalkRequest::face`]).
    pub fn facing(mut self, face: FaceTarget) -> Self {
        self.face = Some(face);
        self
    }

    /// Gets there by `route`.
    pub fn with_route(mut self, route: WalkRoute) -> Self {
        self.route = route;
        self
    }
}
