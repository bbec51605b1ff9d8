//! Walk commands on an entity: `commands.entity(e).walk_to(p)`, `stop_walking()`.

use bevy::prelude::*;

use super::accept::accept_request;
use super::end::stop_walker;
use super::hurry::{Hurry, hurry_walker};
use crate::facing::{FaceTarget, face_now};
use crate::request::{RequestId, WalkRequest, WalkRoute};

/// Walk commands on an entity.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkCommandsExt, Walker};
///
/// fn script(mut commands: Commands, walkers: Query<Entity, With<Walker>>) {
///     for walker in &walkers {
///         let id = commands.entity(walker).walk_to(Vec2::new(120.0, -40.0));
///         info!("{walker} walks ({id})");
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
    /// Requests a walk to `target` (world coordinates) and returns the id its answer
    /// will carry. It behaves like a [`WalkRequest`] but takes effect when the command
    /// is applied, in order with the entity's other commands (so `walk_to` then
    /// `stop_walking` leaves the walker standing, its request cancelled); no
    /// `WalkRequest` message is written.
    fn walk_to(&mut self, target: Vec2) -> RequestId {
        self.walk_with(target, |request| request)
    }

    /// Like [`walk_to`](Self::walk_to), then faces `face` on arrival (before
    /// [`Arrived`](crate::Arrived) is sent, so its observers see the new facing).
    fn walk_to_facing(&mut self, target: Vec2, face: FaceTarget) -> RequestId {
        self.walk_with(target, |request| request.facing(face))
    }

    /// A cutscene move: straight lines from where the walker stands through `via` to
    /// `target`, ignoring the mask ([`WalkRoute::Anywhere`]). `walk_anywhere([], p)` goes
    /// straight to `p`.
    fn walk_anywhere(&mut self, via: impl IntoIterator<Item = Vec2>, target: Vec2) -> RequestId {
        let via = via.into_iter().collect();
        self.walk_with(target, |request| {
            request.with_route(WalkRoute::Anywhere { via })
        })
    }

    /// Requests a walk to `target` made by `build` from [`WalkRequest::new`] (to set
    /// several options at once); the walker and id stay those of the new request.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{FaceTarget, FacingDirection, WalkRoute, WalkCommandsExt};
    /// fn cutscene(mut commands: Commands, butler: Single<Entity, With<Name>>) {
    ///     commands.entity(*butler).walk_with(Vec2::new(0.0, 80.0), |request| {
    ///         request
    ///             .with_route(WalkRoute::Anywhere { via: vec![Vec2::new(-40.0, 0.0)] })
    ///             .facing(FaceTarget::Direction(FacingDirection::Down))
    ///     });
    /// }
    /// # bevy::ecs::system::assert_is_system(cutscene);
    /// ```
    fn walk_with(
        &mut self,
        target: Vec2,
        build: impl FnOnce(WalkRequest) -> WalkRequest,
    ) -> RequestId;

    /// Turns the walker (any entity: one without a [`Facing`](crate::Facing) gets one) to `face` now.
    /// A walker that is walking turns back to its movement at its next step: to turn
    /// at the end of a walk, ask for it in the request
    /// ([`walk_to_facing`](Self::walk_to_facing)).
    fn face(&mut self, face: FaceTarget) -> &mut Self;

    /// Stops the walker where it stands: a request in flight gets
    /// [`PathCancelled`](crate::PathCancelled), a walk in progress ends with
    /// [`WalkStopped`](crate::WalkStopped) (reason [`Stopped`](crate::StopReason::Stopped)),
    /// and the state becomes [`WalkState::Idle`](crate::WalkState::Idle).
    fn stop_walking(&mut self) -> &mut Self;

    /// Hurries the walker's walk (the one under way, or the newest request being
    /// planned): [`Hurry::Skip`] puts it at the walk's end as soon as the path is
    /// known, and the walk arrives there as usual; [`Hurry::Run`] walks the rest of
    /// the way faster. Over when that walk is (a new request walks at the usual
    /// speed); a walker with no walk is not changed.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::{Hurry, PlayerWalker, WalkCommandsExt};
    ///
    /// fn skip_on_escape(keys: Res<ButtonInput<KeyCode>>, player: Single<Entity, With<PlayerWalker>>, mut commands: Commands) {
    ///     if keys.just_pressed(KeyCode::Escape) {
    ///         commands.entity(*player).hurry(Hurry::Skip);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(skip_on_escape);
    /// ```
    fn hurry(&mut self, how: Hurry) -> &mut Self;
}

impl WalkCommandsExt for EntityCommands<'_> {
    fn walk_with(
        &mut self,
        target: Vec2,
        build: impl FnOnce(WalkRequest) -> WalkRequest,
    ) -> RequestId {
        let fresh = WalkRequest::new(self.id(), target);
        let (walker, id) = (fresh.walker, fresh.id);
        let request = WalkRequest {
            walker,
            id,
            ..build(fresh)
        };
        self.commands()
            .queue(move |world: &mut World| accept_request(world, request));
        id
    }

    fn face(&mut self, face: FaceTarget) -> &mut Self {
        let entity = self.id();
        self.commands()
            .queue(move |world: &mut World| face_now(world, entity, face));
        self
    }

    fn stop_walking(&mut self) -> &mut Self {
        let walker = self.id();
        self.commands()
            .queue(move |world: &mut World| stop_walker(world, walker));
        self
    }

    fn hurry(&mut self, how: Hurry) -> &mut Self {
        let walker = self.id();
        self.commands()
            .queue(move |world: &mut World| hurry_walker(world, walker, how));
        self
    }
}
