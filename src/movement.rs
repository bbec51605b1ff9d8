//! Moving walkers along their paths.

use bevy::prelude::*;

use crate::plan::{Outcome, PathJob, emit};
use crate::walker::{Arrived, Heading, WalkPath, WalkState, Walker};

/// Moves every walker with a [`WalkPath`] at its constant speed, corner to corner,
/// carrying leftover distance around corners; ends the walk with [`Arrived`].
pub(crate) fn move_walkers(
    mut commands: Commands,
    time: Res<Time>,
    mut walkers: Query<(Entity, &Walker, &mut Transform, &mut WalkPath, &mut Heading)>,
) {
    let dt = time.delta_secs();
    for (entity, walker, mut transform, mut path, mut heading) in &mut walkers {
        let start = transform.translation.truncate();
        let mut pos = start;
        let speed = if walker.speed.is_finite() {
            walker.speed.max(0.0)
        } else {
            0.0
        };
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
            transform.translation.x = pos.x;
            transform.translation.y = pos.y;
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
    entity.remove::<WalkPath>();
    // A request still being planned keeps the walker in `Planning`.
    let state = if entity.contains::<PathJob>() {
        WalkState::Planning
    } else {
        WalkState::Arrived
    };
    entity.insert(state);
    emit(
        world,
        Outcome::Arrived(Arrived {
            entity: walker,
            position,
        }),
    );
}
