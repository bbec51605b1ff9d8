//! Warm-ups: walkers standing still get the distance field from their pixel filled
//! on the async compute pool (see [`WarmFieldCache`](super::WarmFieldCache)).

use std::sync::atomic::Ordering;

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};

use super::job::PathJob;
use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{Rooms, current_basis};
use crate::plan::grid_cache::GridKey;
use crate::plan::worker::{InFlight, Planner};
use crate::tuning::{WalkTuning, WarmUpWalkers};
use crate::walker::{KeepWarm, PlayerWalker, WalkPath, WalkState, Walker};

/// What a warm-up was started for: the grid and the walker's pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WarmKey {
    grid: GridKey,
    pixel: (u32, u32),
}

/// The warm-up of a walker standing still: the key it was started for and its task
/// while it runs.
#[derive(Component)]
pub(crate) struct WarmUp {
    key: WarmKey,
    task: Option<Task<()>>,
    /// The field was seen in the cache after the task ended: if it goes (another
    /// field evicted it), a player's is filled again, once.
    filled: bool,
    /// It was filled again once already: fields that evict each other (a budget
    /// too small for the walkers warmed) do not take turns for ever.
    refilled: bool,
}

/// A walker that may be standing still.
type StandingWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    &'static WalkState,
    Option<&'static mut WarmUp>,
    Has<PlayerWalker>,
    Has<KeepWarm>,
);

/// Starts a warm-up task for walkers standing still whose (grid, pixel) has none yet;
/// a walker that moved, or whose areas or mask changed, gets a new one (the old task
/// is dropped).
pub(crate) fn warm_fields(
    mut commands: Commands,
    mut walkers: Query<StandingWalker, (Without<PathJob>, Without<WalkPath>)>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    planner: Res<Planner>,
    tuning: Res<WalkTuning>,
) {
    if !planner.warm {
        return;
    }
    for (entity, walker, transform, child_of, state, mut warm, player, keep_warm) in &mut walkers {
        if tuning.warm_up == WarmUpWalkers::Players && !player && !keep_warm {
            if warm.is_some() {
                commands.entity(entity).try_remove::<WarmUp>();
            }
            continue;
        }
        if !matches!(
            state,
            WalkState::Idle | WalkState::Arrived | WalkState::Unreachable
        ) {
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let Ok((basis, mask)) = current_basis(walker, position, &rooms, &masks, None) else {
            continue;
        };
        let mapping = basis.mapping;
        let Some(pixel) = mapping.pixel_under(position) else {
            continue;
        };
        let key = WarmKey {
            grid: basis.key,
            pixel,
        };
        if let Some(warm) = warm.as_mut()
            && warm.key == key
        {
            if warm
                .task
                .as_mut()
                .is_some_and(|task| check_ready(task).is_some())
            {
                warm.task = None;
            }
            if warm.task.is_some() || !player || warm.refilled || !evicted(&planner, warm, mask) {
                continue;
            }
        }
        // Path tasks share the pool with warm-ups: keep at most a few fills ahead of
        // them; the others start in a later frame.
        if planner.warming.load(Ordering::Relaxed) >= tuning.max_warming {
            continue;
        }
        let warming = InFlight::new(&planner.warming);
        let worker = planner.clone();
        let pixels = mask.core().clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let _warming = warming;
            worker.warm_up(key.grid, &pixels, key.pixel).await
        });
        let task = Some(task);
        let refill = warm.as_ref().is_some_and(|warm| warm.key == key);
        let started = WarmUp {
            key,
            task,
            filled: false,
            refilled: refill,
        };
        match warm {
            // Dropping the old task cancels it.
            Some(mut warm) => *warm = started,
            None => {
                commands.entity(entity).try_insert(started);
            }
        }
    }
}

/// Whether the field of a finished warm-up was in the cache and has gone since
/// (evicted by other fields). A field never seen there (a budget too small for it, a
/// blocked pixel) is not filled again and again.
fn evicted(planner: &Planner, warm: &mut WarmUp, mask: &WalkMask) -> bool {
    let Some(grid) = planner
        .cache
        .ready_or_build_async(warm.key.grid, mask.core())
    else {
        return false;
    };
    let cached = planner.fields.peek(&grid, warm.key.pixel).is_some();
    let gone = warm.filled && !cached;
    warm.filled = cached;
    gone
}

/// Drops the warm-up of an entity that is no longer a walker.
pub(crate) fn forget(entity: &mut EntityWorldMut) {
    entity.remove::<WarmUp>();
}
