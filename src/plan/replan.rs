//! Re-planning: walks and running plans follow changes to what a walker may use and
//! to where its mask lies; unloaded masks are forgotten.

use bevy::asset::AssetLoadFailedEvent;
use bevy::prelude::*;

use super::job::{NoBasis, PathJob, PlannedOn, Rooms, current_basis, queue_replan};
use super::worker::Planner;
use crate::asset::WalkMask;
use crate::chase::WalkChase;
use crate::placement::{Parents, walker_xy};
use crate::walker::{WalkPath, Walker};

/// A walker whose plan may need redoing.
type PlannedWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static mut PathJob>,
    Option<&'static WalkPath>,
    Option<&'static PlannedOn>,
    Has<WalkChase>,
);

/// Compares each walker's plan with what it depends on now ([`PlanBasis`](super::job::PlanBasis):
/// room, mask pixels, usable areas that occur in the mask, placement of the mask):
/// a running plan whose basis changed starts again; a walk whose basis changed is
/// re-planned from where the walker stands (reported by
/// [`PathReplanned`](crate::PathReplanned), or [`WalkStopped`](crate::WalkStopped)
/// when no way is left). Writes to rooms that change nothing re-plan nothing.
pub(crate) fn replan_changed(
    mut commands: Commands,
    mut walkers: Query<PlannedWalker>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    server: Option<Res<AssetServer>>,
) {
    for (entity, walker, transform, child_of, job, path, planned_on, chaser) in &mut walkers {
        if job.is_none() && path.is_none() {
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let now = match current_basis(walker, position, &rooms, &masks, server.as_deref()) {
            Ok((basis, _)) => Some(basis),
            Err(NoBasis::Loading | NoBasis::Failed(_)) => None,
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
                }
            }
            None => {
                let (Some(path), Some(PlannedOn(basis))) = (path, planned_on) else {
                    continue;
                };
                if Some(*basis) != now {
                    debug!(
                        "walker {entity}: its room or mask changed, re-planning to {}",
                        path.target
                    );
                    queue_replan(&mut commands, entity, path, chaser);
                }
            }
        }
    }
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
            "walk mask '{}' failed to load ({}); walk requests in rooms using it are answered with PathUnreachable",
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
