//! Walk commands on an entity: `commands.entity(e).walk_to(p)`, `stop_walking()`.

use bevy::prelude::*;

use super::job::{accept_request, stop_walker};
use crate::request::{RequestId, WalkRequest};

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
    fn walk_to(&mut self, target: Vec2) -> RequestId;

    /// Stops the walker where it stands: a request in flight gets
    /// [`PathCancelled`](crate::PathCancelled), a walk in progress ends with
    /// [`WalkStopped`](crate::WalkStopped) (reason [`Stopped`](crate::StopReason::Stopped)),
    /// and the state becomes [`WalkState::Idle`](crate::WalkState::Idle).
    fn stop_walking(&mut self) -> &mut Self;
}

impl WalkCommandsExt for EntityCommands<'_> {
    fn walk_to(&mut self, target: Vec2) -> RequestId {
        let request = WalkRequest::new(self.id(), target);
        self.commands()
            .queue(move |world: &mut World| accept_request(world, request));
        request.id
    }

    fn stop_walking(&mut self) -> &mut Self {
        let walker = self.id();
        self.commands()
            .queue(move |world: &mut World| stop_walker(world, walker));
        self
    }
}
