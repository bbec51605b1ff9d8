//! Hurried walks: a walk finished at once (the second click of a double click on an
//! exit) or walked faster to its end.

use bevy::prelude::*;

use super::job::{PathJob, WalkOnHold};
use super::movement::OffPath;
use crate::cutscene::{Cutscene, CutsceneCommandsExt, InCutscene};
use crate::placement::{Parents, parent_of, set_world_xy};
use crate::request::RequestId;
use crate::walker::{WalkPath, Walker};

/// How [`WalkCommandsExt::hurry`](crate::WalkCommandsExt::hurry) hurries a walk.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub enum Hurry {
    /// The walker is put at the end of its path as soon as the path is known, and
    /// the walk arrives there as usual (with [`Arrived`](crate::Arrived) and its
    /// facing).
    Skip,
    /// The walker walks the rest of the way this many times as fast (above 0;
    /// anything else counts as 1).
    Run(f32),
}

/// The walk of `request` is hurried: on the walker until that walk is no longer
/// its walk.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub(crate) struct Hurried {
    pub(crate) request: RequestId,
    pub(crate) how: Hurry,
}

impl Hurried {
    /// What the walker's speed is multiplied by.
    pub(crate) fn speed_factor(&self) -> f32 {
        match self.how {
            Hurry::Run(factor) if factor.is_finite() && factor > 0.0 => factor,
            _ => 1.0,
        }
    }
}

/// Hurries the walk `walker` is on or is being planned for (the newest request);
/// nothing for a walker without one.
pub(crate) fn hurry_walker(world: &mut World, walker: Entity, how: Hurry) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let request = entity
        .get::<PathJob>()
        .map(|job| job.pending.as_ref().map_or(job.request, |p| p.request))
        .or_else(|| entity.get::<WalkPath>().map(|path| path.request));
    if let Some(request) = request {
        entity.insert(Hurried { request, how });
    }
}

/// A hurried walker.
type HurriedWalker = (
    Entity,
    &'static Hurried,
    &'static mut Transform,
    Option<&'static ChildOf>,
    Option<&'static mut WalkPath>,
    Option<&'static PathJob>,
    Has<WalkOnHold>,
    Option<&'static OffPath>,
);

/// Puts walkers whose walk is skipped at its end (before walkers move, which then
/// ends the walk there), and forgets hurries of walks that are over. A walk on hold
/// waits for its new plan, and is skipped to that plan's end.
pub(crate) fn hurry_walks(
    mut commands: Commands,
    mut walkers: Query<HurriedWalker, With<Walker>>,
    parents: Parents,
) {
    for (entity, hurried, mut transform, child_of, path, job, held, off_path) in &mut walkers {
        let planned = job.is_some_and(|job| {
            job.request == hurried.request
                || job
                    .pending
                    .as_ref()
                    .is_some_and(|p| p.request == hurried.request)
        });
        let Some(mut path) = path.filter(|path| path.request == hurried.request) else {
            if !planned {
                commands.entity(entity).try_remove::<Hurried>();
            }
            continue;
        };
        // A walk on hold (its room changed under it, or game code moved it) may lead
        // through a gate that just shut: it is skipped once its new plan lands. A
        // walker turned or pushed off its path may not see the path from where it
        // stands: it is skipped once it is back on it.
        if hurried.how != Hurry::Skip || held || off_path.is_some_and(|o| o.0) {
            continue;
        }
        let len = path.waypoints.len();
        // Not there yet (on any leg, the last one too): put at the end, which the
        // walk then reaches at once.
        if let Some(&end) = path.waypoints.last()
            && path.next < len
            && end.is_finite()
        {
            let parent = parent_of(child_of, &parents);
            set_world_xy(&mut transform, parent, end);
            path.next = len - 1;
        }
    }
}

impl CutsceneCommandsExt for Commands<'_, '_> {
    fn skip_cutscene(&mut self) {
        self.queue(skip_cutscene);
    }
}

/// Starts skipping the running cutscene and hurries every walk in it (see
/// [`CutsceneCommandsExt::skip_cutscene`]).
pub(crate) fn skip_cutscene(world: &mut World) {
    let mut cutscene = world.resource_mut::<Cutscene>();
    if !cutscene.is_running() {
        return;
    }
    cutscene.skipping = true;
    let walkers: Vec<Entity> = world
        .query_filtered::<Entity, With<InCutscene>>()
        .iter(world)
        .collect();
    for walker in walkers {
        hurry_walker(world, walker, Hurry::Skip);
    }
}
