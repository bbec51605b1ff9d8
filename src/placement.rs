//! Walker positions in world space, for walkers at the top level or parented to any
//! entity (their room, a vehicle, ...).
//!
//! The plugin reads and writes a walker's world x and y through its parent's
//! `GlobalTransform` (the parent as of the last transform propagation), so a walker
//! parented to a room walks in world space like any other.

use bevy::prelude::*;

/// World position of an entity with `transform` under `parent` (its parent's global
/// transform, `None` at the top level).
pub(crate) fn world_position(transform: &Transform, parent: Option<&GlobalTransform>) -> Vec3 {
    match parent {
        Some(parent) => parent.transform_point(transform.translation),
        None => transform.translation,
    }
}

/// Moves an entity with `transform` under `parent` so that its world x and y are `xy`
/// (its world z is kept).
pub(crate) fn set_world_xy(transform: &mut Transform, parent: Option<&GlobalTransform>, xy: Vec2) {
    match parent {
        Some(parent) => {
            let world = parent.transform_point(transform.translation);
            let local = parent
                .affine()
                .inverse()
                .transform_point3(xy.extend(world.z));
            if local.is_finite() {
                transform.translation = local;
            }
        }
        None => {
            transform.translation.x = xy.x;
            transform.translation.y = xy.y;
        }
    }
}

/// The global transform of `entity`'s parent, if it has one.
pub(crate) fn parent_transform(world: &World, entity: Entity) -> Option<GlobalTransform> {
    let parent = world.get::<ChildOf>(entity)?.parent();
    world.get::<GlobalTransform>(parent).copied()
}

/// World x and y of `entity` (from its `Transform` and its parent's).
pub(crate) fn entity_world_xy(world: &World, entity: Entity) -> Option<Vec2> {
    let transform = world.get::<Transform>(entity)?;
    let parent = parent_transform(world, entity);
    Some(world_position(transform, parent.as_ref()).truncate())
}

/// Moves `entity` to world x and y `xy`.
pub(crate) fn set_entity_world_xy(world: &mut World, entity: Entity, xy: Vec2) {
    let parent = parent_transform(world, entity);
    if let Some(mut transform) = world.get_mut::<Transform>(entity) {
        set_world_xy(&mut transform, parent.as_ref(), xy);
    }
}

/// Read access to walkers' parents, for systems.
pub(crate) type Parents<'w, 's> = Query<'w, 's, &'static GlobalTransform>;

/// The global transform of a walker's parent in a system, from its optional `ChildOf`.
pub(crate) fn parent_of<'a>(
    child_of: Option<&ChildOf>,
    parents: &'a Parents,
) -> Option<&'a GlobalTransform> {
    child_of.and_then(|c| parents.get(c.parent()).ok())
}

/// World x and y of a walker in a system: its transform and optional `ChildOf`.
pub(crate) fn walker_xy(
    transform: &Transform,
    child_of: Option<&ChildOf>,
    parents: &Parents,
) -> Vec2 {
    world_position(transform, parent_of(child_of, parents)).truncate()
}

/// `entity`'s world transform composed from its own and its ancestors' `Transform`s
/// now, rather than read from `GlobalTransform`s that are only brought up to date
/// after `Update` (an entity spawned or moved earlier in the frame).
pub(crate) fn composed_affine(world: &World, entity: Entity) -> Option<bevy::math::Affine3A> {
    let mut affine = world.get::<Transform>(entity)?.compute_affine();
    let mut at = entity;
    // A hierarchy is a tree: its depth is bounded by the number of entities.
    while let Some(parent) = world.get::<ChildOf>(at).map(ChildOf::parent) {
        let Some(transform) = world.get::<Transform>(parent) else {
            break;
        };
        affine = transform.compute_affine() * affine;
        at = parent;
    }
    Some(affine)
}
