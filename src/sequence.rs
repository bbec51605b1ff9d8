//! Sequences of walker steps for scripts (feature `sequences`): walk there, face that
//! way, wait, act on a hotspot, enter a room, run the game's own step, one after the
//! other, each starting when the last one ended.
//!
//! The steps are actions of [bevy-sequential-actions](bevy_sequential_actions), which
//! keeps a queue of them on each entity (its *agent*) and starts the next when the
//! current one is finished. Every [`Walker`](crate::Walker) is an agent
//! ([`SequentialActions`]): `commands.actions(walker).add(..)` queues its steps.
//! [`WalkmaskPlugin`](crate::WalkmaskPlugin) adds [`SequentialActionsPlugin`] when
//! the app has none yet (add yours before it, if you add one). A walk step is over
//! when its request ends ([`RequestEnded`], however it ended), an interaction when it
//! ends ([`InteractionArrived`](crate::InteractionArrived) or a sibling); the outcomes
//! are sent as for any other walk, exactly once each.
//!
//! A sequence that starts with [`StartCutscene`] is **blocking**: the player's clicks
//! and steering are ignored until its [`EndCutscene`] (or until its queue runs dry,
//! whichever comes first), and [`skip_cutscene`](crate::CutsceneCommandsExt::skip_cutscene)
//! finishes it at once: each walk of the scene ends at its destination with its final
//! facing, waits end, and the steps after them run in order. Any other sequence runs
//! in the **background**, and a click on its walker starts a walk that takes over
//! (the step's walk ends `Superseded`, and the sequence goes on).
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_walkmask::prelude::*;
//! use bevy_walkmask::sequence::*;
//!
//! fn open_the_door(mut commands: Commands, player: Single<Entity, With<PlayerWalker>>) {
//!     commands.actions(*player).add((
//!         StartCutscene,
//!         WalkTo::new(Vec2::new(120.0, -40.0)),
//!         Face::new(FacingDirection::Left),
//!         Wait::seconds(0.5),
//!         // The game's own step: any closure given the walker and the world.
//!         |_walker: Entity, world: &mut World| -> bool {
//!             if !world.resource::<Cutscene>().is_skipping() {
//!                 info!("It's locked.");
//!             }
//!             true // done: the next step starts
//!         },
//!         WalkTo::new(Vec2::new(0.0, -60.0)).facing(FaceTarget::Direction(FacingDirection::Down)),
//!         EndCutscene,
//!     ));
//! }
//! # bevy::ecs::system::assert_is_system(open_the_door);
//! ```

use bevy::prelude::*;
pub use bevy_sequential_actions::{
    self, Action, ActionsProxy, ManageActions, SequentialActions, SequentialActionsPlugin,
};
use bevy_sequential_actions::{ActionQueue, CurrentAction, StopReason};

use crate::cutscene::{InCutscene, skips_walks_of};
use crate::facing::{FaceTarget, face_now};
use crate::layers::exits::enter_room;
use crate::layers::hotspots::{Interacting, Verb, start_interaction};
use crate::outcome::{RequestEnded, RequestOutcome};
use crate::request::{RequestId, WalkRequest, WalkRoute};
use crate::walk::accept::accept_request;
use crate::walk::end::stop_walker;

/// A step that walks the walker to a point and is over when the walk's request ends,
/// however it ends (arrived, stopped, superseded, unreachable).
#[derive(Clone, Debug)]
pub struct WalkTo {
    target: Vec2,
    face: Option<FaceTarget>,
    route: WalkRoute,
    request: Option<RequestId>,
}

impl WalkTo {
    /// Walk to `target` (world), round what the mask blocks.
    pub fn new(target: Vec2) -> Self {
        Self {
            target,
            face: None,
            route: WalkRoute::Pathfind,
            request: None,
        }
    }

    /// Walk straight through `via` to `target` (world), whatever the mask says: a
    /// cutscene route ([`WalkRoute::Anywhere`]).
    pub fn anywhere(via: impl IntoIterator<Item = Vec2>, target: Vec2) -> Self {
        Self {
            route: WalkRoute::Anywhere {
                via: via.into_iter().collect(),
            },
            ..Self::new(target)
        }
    }

    /// Turn this way at the end of the walk.
    pub fn facing(mut self, face: FaceTarget) -> Self {
        self.face = Some(face);
        self
    }
}

impl Action for WalkTo {
    fn is_finished(&self, agent: Entity, world: &World) -> bool {
        self.request
            .is_none_or(|request| ended(world, agent, request).is_some())
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        let mut request = WalkRequest::new(agent, self.target).with_route(self.route.clone());
        if let Some(face) = self.face {
            request = request.facing(face);
        }
        self.request = Some(request.id);
        if let Ok(mut entity) = world.get_entity_mut(agent) {
            entity.insert(AwaitedRequest {
                request: request.id,
                outcome: None,
            });
        }
        accept_request(world, request);
        self.is_finished(agent, world)
    }

    fn on_stop(&mut self, agent: Option<Entity>, world: &mut World, reason: StopReason) {
        let (Some(agent), Some(request)) = (agent, self.request.take()) else {
            return;
        };
        let open = world
            .get::<AwaitedRequest>(agent)
            .is_some_and(|awaited| awaited.request == request && awaited.outcome.is_none());
        if open && reason != StopReason::Finished {
            // Cancelled or paused: the walk stops (a paused step walks again when it
            // resumes).
            stop_walker(world, agent);
        }
        if let Ok(mut entity) = world.get_entity_mut(agent)
            && entity
                .get::<AwaitedRequest>()
                .is_some_and(|awaited| awaited.request == request)
        {
            entity.remove::<AwaitedRequest>();
        }
    }
}

/// A step that turns the walker and is over at once.
#[derive(Clone, Copy, Debug)]
pub struct Face(pub FaceTarget);

impl Face {
    /// Turn to face `direction`.
    pub fn new(direction: crate::FacingDirection) -> Self {
        Self(FaceTarget::Direction(direction))
    }

    /// Turn towards `point` (world).
    pub fn towards(point: Vec2) -> Self {
        Self(FaceTarget::Point(point))
    }
}

impl Action for Face {
    fn is_finished(&self, _agent: Entity, _world: &World) -> bool {
        true
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        face_now(world, agent, self.0);
        true
    }

    fn on_stop(&mut self, _agent: Option<Entity>, _world: &mut World, _reason: StopReason) {}
}

/// A step that waits, by the app's [`Time`]; over at once while the walker's
/// cutscene is skipped.
#[derive(Clone, Copy, Debug)]
pub struct Wait {
    seconds: f32,
    until: Option<f64>,
}

impl Wait {
    /// Wait this many seconds (nothing for a count that is not above zero).
    pub fn seconds(seconds: f32) -> Self {
        Self {
            seconds: if seconds.is_finite() {
                seconds.max(0.0)
            } else {
                0.0
            },
            until: None,
        }
    }
}

impl Action for Wait {
    fn is_finished(&self, agent: Entity, world: &World) -> bool {
        let now = world.resource::<Time>().elapsed_secs_f64();
        self.until.is_none_or(|until| now >= until) || skips_walks_of(world, agent)
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        let now = world.resource::<Time>().elapsed_secs_f64();
        self.until = Some(now + f64::from(self.seconds));
        self.is_finished(agent, world)
    }

    fn on_stop(&mut self, _agent: Option<Entity>, world: &mut World, reason: StopReason) {
        // A paused wait waits what was left of it when it resumes.
        if let (StopReason::Paused, Some(until)) = (reason, self.until) {
            let now = world.resource::<Time>().elapsed_secs_f64();
            self.seconds = (until - now).max(0.0) as f32;
        }
        self.until = None;
    }
}

/// A step that acts on a hotspot with a verb (walking there as the hotspot's policy
/// for the verb says, [`HotspotCommandsExt::interact`](crate::HotspotCommandsExt::interact)),
/// over when the interaction ends, however it ends.
#[derive(Clone, Debug)]
pub struct Interact {
    hotspot: Entity,
    verb: Verb,
    request: Option<RequestId>,
}

impl Interact {
    /// Act on `hotspot` with `verb`.
    pub fn new(hotspot: Entity, verb: impl Into<Verb>) -> Self {
        Self {
            hotspot,
            verb: verb.into(),
            request: None,
        }
    }
}

impl Action for Interact {
    fn is_finished(&self, agent: Entity, world: &World) -> bool {
        match (self.request, world.get::<Interacting>(agent)) {
            (Some(request), Some(interacting)) => interacting.request != request,
            _ => true,
        }
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        start_interaction(world, agent, self.hotspot, self.verb.clone(), None);
        // A verb done without walking has already ended; a walk there has begun.
        self.request = world
            .get::<Interacting>(agent)
            .filter(|interacting| interacting.hotspot == self.hotspot)
            .map(|interacting| interacting.request);
        self.is_finished(agent, world)
    }

    fn on_stop(&mut self, agent: Option<Entity>, world: &mut World, reason: StopReason) {
        let (Some(agent), Some(_)) = (agent, self.request) else {
            return;
        };
        if reason != StopReason::Finished && !self.is_finished(agent, world) {
            // Its walk stops, which cancels the interaction.
            stop_walker(world, agent);
        }
        self.request = None;
    }
}

/// A step that puts the walker in a room at a spawn point
/// ([`ExitCommandsExt::enter_room`](crate::ExitCommandsExt::enter_room)), over at once.
#[derive(Clone, Debug)]
pub struct EnterRoom {
    room: Entity,
    spawn: String,
}

impl EnterRoom {
    /// Enter `room` at its spawn point named `spawn`.
    pub fn new(room: Entity, spawn: impl Into<String>) -> Self {
        Self {
            room,
            spawn: spawn.into(),
        }
    }
}

impl Action for EnterRoom {
    fn is_finished(&self, _agent: Entity, _world: &World) -> bool {
        true
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        enter_room(world, agent, self.room, &self.spawn);
        true
    }

    fn on_stop(&mut self, _agent: Option<Entity>, _world: &mut World, _reason: StopReason) {}
}

/// A step that makes the walker take part in a cutscene ([`InCutscene`]): the
/// sequence blocks the player's input from here to its [`EndCutscene`], or until its
/// queue runs dry.
#[derive(Clone, Copy, Debug, Default)]
pub struct StartCutscene;

impl Action for StartCutscene {
    fn is_finished(&self, _agent: Entity, _world: &World) -> bool {
        true
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        if let Ok(mut entity) = world.get_entity_mut(agent) {
            entity.insert((InCutscene, SceneOfSequence));
        }
        true
    }

    fn on_stop(&mut self, _agent: Option<Entity>, _world: &mut World, _reason: StopReason) {}
}

/// A step that ends the walker's part in a cutscene.
#[derive(Clone, Copy, Debug, Default)]
pub struct EndCutscene;

impl Action for EndCutscene {
    fn is_finished(&self, _agent: Entity, _world: &World) -> bool {
        true
    }

    fn on_start(&mut self, agent: Entity, world: &mut World) -> bool {
        if let Ok(mut entity) = world.get_entity_mut(agent) {
            entity.remove::<(InCutscene, SceneOfSequence)>();
        }
        true
    }

    fn on_stop(&mut self, _agent: Option<Entity>, _world: &mut World, _reason: StopReason) {}
}

/// The request a walker's current walk step waits for, and how it ended.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct AwaitedRequest {
    request: RequestId,
    outcome: Option<RequestOutcome>,
}

/// The walker's [`InCutscene`] came from a [`StartCutscene`] step: it leaves the
/// scene when its queue runs dry.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct SceneOfSequence;

/// How `request` of `walker`'s walk step ended, once it has.
fn ended(world: &World, walker: Entity, request: RequestId) -> Option<RequestOutcome> {
    world
        .get::<AwaitedRequest>(walker)
        .filter(|awaited| awaited.request == request)
        .and_then(|awaited| awaited.outcome)
}

/// Notes the end of the request a walk step waits for.
pub(crate) fn note_step_ended(ended: On<RequestEnded>, mut awaited: Query<&mut AwaitedRequest>) {
    if let Ok(mut awaited) = awaited.get_mut(ended.entity)
        && awaited.request == ended.request
    {
        awaited.outcome = Some(ended.outcome);
    }
}

/// Walkers whose sequence started a cutscene and whose queue ran dry (cleared, or
/// without an [`EndCutscene`]) leave the scene, so the player is not locked out.
pub(crate) fn leave_scenes_of_finished_sequences(
    mut commands: Commands,
    walkers: Query<(Entity, &CurrentAction, &ActionQueue), With<SceneOfSequence>>,
) {
    for (walker, current, queue) in &walkers {
        if current.is_none() && queue.is_empty() {
            commands
                .entity(walker)
                .try_remove::<(InCutscene, SceneOfSequence)>();
        }
    }
}
