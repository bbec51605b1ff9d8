//! Warm-ups: walkers standing still get the distance field from their pixel filled
//! on the async compute pool (see [`WarmFieldCache`](super::WarmFieldCache)).

use std::sync::atomic::Ordering;

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};

use super::grid_cache::GridKey;
use super::job::{PathJob, Rooms, current_basis};
use super::worker::{InFlight, Planner};
use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::walker::{WalkPath, WalkState, Walker};

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
}

/// At most this many warm-up tasks run (or wait to run) at once, so that a path
/// task queued on the async compute pool waits for at most one fill.
const MAX_WARMING: usize = 1;

/// A walker that may be standing still.
type StandingWalker = (
    Entity,
    &'static Walker,
    &'static Transform,
    Option<&'static ChildOf>,
    &'static WalkState,
    Option<&'static mut WarmUp>,
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
) {
    if !planner.warm {
        return;
    }
    for (entity, walker, transform, child_of, state, mut warm) in &mut walkers {
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
            continue;
        }
        // Path tasks share the pool with warm-ups: keep at most a few fills ahead of
        // them; the others start in a later frame.
        if planner.warming.load(Ordering::Relaxed) >= MAX_WARMING {
            continue;
        }
        let warming = InFlight::new(&planner.warming);
        let worker = planner.clone();
        let pixels = mask.core().clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let _warming = warming;
            worker.warm_up(key.grid, &pixels, key.pixel)
        });
        let task = Some(task);
        match warm {
            // Dropping the old task cancels it.
            Some(mut warm) => *warm = WarmUp { key, task },
            None => {
                commands.entity(entity).try_insert(WarmUp { key, task });
            }
        }
    }
}
