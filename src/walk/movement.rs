//! Moving walkers along their paths.

use bevy::prelude::*;

use super::job::{PathJob, PlannedOn, WalkOnHold};
use super::replan::Placed;
use crate::facing::{Facing, follow_step, turn};
use crate::outcome::{Arrived, Outcome, emit};
use crate::placement::{Parents, parent_of, set_world_xy, world_position};
use crate::scaling::DepthScale;
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

/// Where each walker stands, and where the plugin last left it.
type Placements<'w, 's> = Query<'w, 's, (&'static Transform, &'static mut Placed), With<Walker>>;

/// A walker on its way.
type MovingWalker = (
    Entity,
    &'static Walker,
    &'static mut Transform,
    Option<&'static ChildOf>,
    &'static mut WalkPath,
    &'static mut WalkHeading,
    Option<&'static DepthScale>,
    Option<&'static mut Facing>,
    Has<WalkOnHold>,
);

/// Moves every walker with a [`WalkPath`] at its constant speed, corner to corner,
/// carrying leftover distance around corners; ends the walk with [`Arrived`].
///
/// Then remembers where every walker stands after the plugin moved it (see
/// [`Placed`]), so that a move by game code is told apart next frame.
pub(crate) fn move_walkers(
    mut commands: Commands,
    time: Res<Time>,
    mut walkers: ParamSet<(Query<MovingWalker>, Placements)>,
    parents: Parents,
) {
    let dt = time.delta_secs();
    for (entity, walker, mut transform, child_of, mut path, mut heading, depth, facing, held) in
        &mut walkers.p0()
    {
        if held {
            // Moved by game code: it stands until its new path lands.
            heading.set_if_neq(WalkHeading(Vec2::ZERO));
            continue;
        }
        let parent = parent_of(child_of, &parents);
        let start = world_position(&transform, parent).truncate();
        let mut pos = start;
        let speed = if walker.speed.is_finite() {
            walker.speed.max(0.0)
        } else {
            0.0
        };
        let speed = speed * depth.map_or(1.0, DepthScale::speed_factor);
        let mut budget = speed * dt;
        let mut direction = heading.0;
        while let Some(&goal) = path.waypoints.get(path.next) {
            let to = goal - pos;
            let distance = to.length();
            if !distance.is_finite() {
                // A corrupt waypoint: skip it rather than teleport.
                path.next += 1;
                continue;
            }
            if distance <= budget {
                if distance > 0.0 {
                    direction = to / distance;
                }
                pos = goal;
                budget -= distance;
                path.next += 1;
            } else {
                direction = to / distance;
                pos += direction * budget;
                break;
            }
        }
        if pos != start {
            set_world_xy(&mut transform, parent, pos);
            if let Some(mut facing) = facing {
                follow_step(&mut facing, direction);
            }
        }
        if path.next >= path.waypoints.len() {
            if heading.0 != Vec2::ZERO {
                heading.0 = Vec2::ZERO;
            }
            commands.queue(move |world: &mut World| finish_walk(world, entity, pos));
        } else if heading.0 != direction {
            heading.0 = direction;
        }
    }
    for (transform, mut placed) in &mut walkers.p1() {
        placed.set_if_neq(Placed(transform.translation.truncate()));
    }
}

/// Ends a walk that reached its last waypoint.
fn finish_walk(world: &mut World, walker: Entity, position: Vec2) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let finished = entity
        .get::<WalkPath>()
        .is_some_and(|path| path.next >= path.waypoints.len());
    if !finished {
        return;
    }
    let Some(path) = entity.take::<WalkPath>() else {
        return;
    };
    entity.remove::<(PlannedOn, WalkOnHold)>();
    if let Some(face) = path.face {
        turn(&mut entity, face, position);
    }
    // A request still being planned keeps the walker in `Planning`; a re-plan of the
    // walk that just ended has nothing left to do.
    let state = match entity.get::<PathJob>() {
        Some(job) if job.request != path.request => WalkState::Planning,
        Some(_) => match entity.take::<PathJob>().and_then(|job| job.pending_job()) {
            // A request waited for the re-plan of the walk that just ended.
            Some(next) => {
                entity.insert(next);
                WalkState::Planning
            }
            None => WalkState::Arrived,
        },
        None => WalkState::Arrived,
    };
    entity.insert(state);
    emit(
        world,
        Outcome::Arrived(Arrived {
            entity: walker,
            request: path.request,
            position,
        }),
    );
}
