//! Re-planning: walks and running plans follow changes to what a walker may use and
//! to where its mask lies; unloaded masks are forgotten.

use bevy::asset::AssetLoadFailedEvent;
use bevy::prelude::*;

use super::job::{PathJob, PlannedOn, WalkOnHold, queue_replan};
use super::saved::{RequestInFlight, loaded_search};
use crate::asset::WalkMask;
use crate::chase::WalkChase;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{NoBasis, PlanBasis, Rooms, current_basis};
use crate::plan::worker::Planner;
use crate::room::WalkRoom;
use crate::walker::{WalkPath, Walker};

/// A walker whose plan may need redoing.
type PlannedWalker = (
    Entity,
    Ref<'static, Walker>,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static mut PathJob>,
    Option<&'static WalkPath>,
    Option<&'static PlannedOn>,
    Has<WalkChase>,
    Option<&'static mut Placed>,
    &'static RequestInFlight,
);

/// A room whose `WalkRoom` or placement changed.
type ChangedRoom = (
    With<WalkRoom>,
    Or<(Changed<WalkRoom>, Changed<GlobalTransform>)>,
);

/// Where the plugin last left a walker: its local x and y after
/// [`WalkmaskSystems::Move`](crate::WalkmaskSystems::Move). Saved with the walker: a
/// walker that game code moves between a load and the first frame after it is told
/// from one the load put where it was saved.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub(crate) struct Placed(pub(crate) Vec2);

/// Every new walker is placed where it is (unless it was loaded with where the plugin
/// left it).
pub(crate) fn place_new_walker(
    added: On<Add, Walker>,
    walkers: Query<&Transform>,
    mut commands: Commands,
) {
    if let Ok(transform) = walkers.get(added.entity) {
        commands
            .entity(added.entity)
            .try_insert_if_new(Placed(transform.translation.truncate()));
    }
}

/// Whether game code moved the walker since the plugin last placed it (a teleport, a
/// knock-back): by more than a mask pixel of its plan, so that a game rounding
/// positions to whole pixels does not count. Then `placed` is updated.
fn moved_by_game(
    placed: &mut Placed,
    here: Vec2,
    job: Option<&PathJob>,
    planned_on: Option<&PlannedOn>,
) -> bool {
    if placed.0 == here {
        return false;
    }
    let basis = planned_on
        .map(|planned| planned.0)
        .or_else(|| job.and_then(|job| job.running_basis().copied()));
    // Local units: a walker's parent may scale them, which only makes this threshold
    // coarser or finer by that scale.
    let pixel = basis.map_or(0.0, |basis| basis.mapping.pixel_size().min_element());
    let moved = placed.0.distance(here) > pixel;
    if moved {
        placed.0 = here;
    }
    moved
}

/// Compares each walker's plan with what it depends on now ([`PlanBasis`](super::job::PlanBasis):
/// room, mask pixels, usable areas that occur in the mask, placement of the mask):
/// a running plan whose basis changed starts again; a walk whose basis changed is
/// re-planned from where the walker stands (reported by
/// [`PathReplanned`](crate::PathReplanned), or [`WalkStopped`](crate::WalkStopped)
/// when no way is left). Writes to rooms that change nothing re-plan nothing.
///
/// The basis is only looked at when something it depends on may have changed: a
/// room (its `WalkRoom` or placement), a mask's pixels, the walker's settings, or,
/// with several rooms, where the walker is.
#[allow(clippy::too_many_arguments)]
pub(crate) fn replan_changed(
    mut commands: Commands,
    mut walkers: Query<PlannedWalker>,
    parents: Parents,
    rooms: Rooms,
    changed_rooms: Query<(), ChangedRoom>,
    mut mask_events: MessageReader<AssetEvent<WalkMask>>,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
) {
    // A mask written through `Assets::get_mut` changes its revision at once, and its
    // event comes after this frame: searches on its old pixels start over now.
    let rooms_changed =
        !changed_rooms.is_empty() || mask_events.read().count() > 0 || masks.is_changed();
    let several_rooms = rooms.iter().nth(1).is_some();
    for (
        entity,
        walker,
        transform,
        child_of,
        mut job,
        path,
        planned_on,
        chaser,
        placed,
        in_flight,
    ) in &mut walkers
    {
        if job.is_none() && path.is_none() {
            continue;
        }
        // Moved by game code: plan again from where it is, and stand until that plan
        // lands rather than walk on to a waypoint that may lie behind a wall. Walks
        // through given points (`WalkRoute::Anywhere`) just go on.
        if let Some(mut placed) = placed
            && moved_by_game(
                &mut placed,
                transform.translation.truncate(),
                job.as_deref(),
                planned_on,
            )
        {
            if let Some(job) = job.as_mut() {
                job.restart_from_here();
            }
            if let Some(path) = path
                && planned_on.is_some()
            {
                commands.entity(entity).try_insert(WalkOnHold);
                queue_replan(&mut commands, entity, path, chaser);
            }
            continue;
        }
        if !rooms_changed && !several_rooms && !walker.is_changed() {
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let (now, now_mask) =
            match current_basis(&walker, position, &rooms, &masks, server.as_deref()) {
                Ok((basis, mask)) => (Some(basis), Some(mask)),
                Err(NoBasis::Loading | NoBasis::Failed(_)) => (None, None),
            };
        // A walk on into pixels the change blocked (a gate shut, a region that
        // blocks now) stands until its new plan lands.
        let hold = |path: &WalkPath| {
            now.zip(now_mask)
                .is_some_and(|(now, mask)| crosses_blocked(mask, &now, position, path))
        };
        match job {
            Some(mut job) => {
                // Same request, new pixels, areas or room: start over (dropping the
                // task). A room that only moved keeps the search: its answer is in
                // mask pixels, and the walk it gives is re-planned if need be.
                if job.running_basis().is_some_and(|basis| {
                    now.is_none_or(|now| (now.room, now.key) != (basis.room, basis.key))
                }) {
                    job.restart();
                    if path.is_some_and(hold) {
                        commands.entity(entity).try_insert(WalkOnHold);
                    }
                }
                // A search loaded back to run again (not started yet here) whose
                // room, areas or mask pixels changed since it started is planned
                // anew, as a running one is.
                if job.resumed
                    && loaded_search(in_flight)
                        .is_some_and(|saved| saved.basis_changed(now.as_ref().zip(now_mask)))
                {
                    job.resumed = false;
                    if path.is_some_and(hold) {
                        commands.entity(entity).try_insert(WalkOnHold);
                    }
                }
            }
            None => {
                let (Some(path), Some(PlannedOn(basis))) = (path, planned_on) else {
                    continue;
                };
                if Some(*basis) != now {
                    // Only the room's placement changed (a room that drifts, a ship
                    // that rocks): the walk moves with the room, in room pixels, as
                    // long as the walker still sees its way on from where it stands.
                    if let (Some(now), Some(mask)) = (now, now_mask)
                        && (now.room, now.key) == (basis.room, basis.key)
                        && now.mapping.is_valid()
                        && basis.mapping.is_valid()
                    {
                        let from = now.mapping.world_to_mask(position);
                        let rest = path.waypoints.get(path.next..).unwrap_or(&[]);
                        let corners = rest.iter().map(|&p| basis.mapping.world_to_mask(p));
                        if !crosses_blocked_from(mask, &now, from, corners) {
                            let (old, request) = (*basis, path.request);
                            commands.queue(move |world: &mut World| {
                                move_walk_with_room(world, entity, request, old, now);
                            });
                            continue;
                        }
                    }
                    debug!(
                        "walker {entity}: its room or mask changed, re-planning to {}",
                        path.target
                    );
                    if hold(path) {
                        commands.entity(entity).try_insert(WalkOnHold);
                    }
                    queue_replan(&mut commands, entity, path, chaser);
                }
            }
        }
    }
}

/// Whether the rest of `path`, from `from` (world), passes over a pixel of `mask`
/// that `basis` does not let its walker use (blocked, or an area it may not enter).
pub(super) fn crosses_blocked(
    mask: &WalkMask,
    basis: &PlanBasis,
    from: Vec2,
    path: &WalkPath,
) -> bool {
    let rest = path.waypoints.get(path.next..).unwrap_or(&[]);
    crosses_blocked_from(
        mask,
        basis,
        basis.mapping.world_to_mask(from),
        rest.iter().map(|&p| basis.mapping.world_to_mask(p)),
    )
}

/// Whether the legs from mask point `from` through `corners` (mask points) pass over
/// a pixel of `mask` that `basis` does not let its walker use.
fn crosses_blocked_from(
    mask: &WalkMask,
    basis: &PlanBasis,
    from: walkmask::Point,
    corners: impl IntoIterator<Item = walkmask::Point>,
) -> bool {
    let allowed = basis.key.areas.lookup_table();
    let mut ids = Vec::new();
    let mut at = from;
    for to in corners {
        walkmask::layer::ids_along(mask.core(), at, to, &mut ids);
        if ids.iter().any(|&id| !allowed[id as usize]) {
            return true;
        }
        at = to;
    }
    false
}

/// Moves the walk of `request` with its room, whose placement went from `old` to
/// `now` (same room, pixels and areas): its points keep their room pixels, and it is
/// planned on `now` from here on. Nothing is re-planned or reported.
fn move_walk_with_room(
    world: &mut World,
    walker: Entity,
    request: crate::request::RequestId,
    old: PlanBasis,
    now: PlanBasis,
) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if entity.get::<PlannedOn>().map(|p| p.0) != Some(old)
        || entity
            .get::<WalkPath>()
            .is_none_or(|p| p.request != request)
    {
        return;
    }
    let carry = |p: Vec2| now.mapping.mask_to_world(old.mapping.world_to_mask(p));
    if let Some(mut path) = entity.get_mut::<WalkPath>() {
        for p in path.waypoints.iter_mut() {
            *p = carry(*p);
        }
        path.target = carry(path.target);
        if let Some(crate::facing::FaceTarget::Point(p)) = &mut path.face {
            *p = carry(*p);
        }
    }
    entity.insert(PlannedOn(now));
}

/// Logs masks that failed to load, and drops what was prepared for masks that were
/// changed or unloaded (their grids and warm fields).
pub(crate) fn forget_changed_masks(
    mut events: MessageReader<AssetEvent<WalkMask>>,
    mut failures: MessageReader<AssetLoadFailedEvent<WalkMask>>,
    masks: Res<Assets<WalkMask>>,
    planner: Res<Planner>,
) {
    for failure in failures.read() {
        error!(
            "'{}' failed to load ({}): rooms with it as their walk mask answer walk requests with PathUnreachable; as a scale map or a layer of ids it is not used",
            failure.path, failure.error
        );
    }
    let mut forgot = false;
    for event in events.read() {
        if let AssetEvent::Modified { id } | AssetEvent::Removed { id } = *event {
            let current = masks.get(id).map(WalkMask::revision);
            planner.cache.forget_mask(id, current);
            forgot = true;
        }
    }
    if forgot {
        planner.fields.keep_grids(&planner.cache.grid_ids());
    }
}
