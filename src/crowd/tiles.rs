//! One walker per tile: walkers that walk tile by tile
//! ([`Walker::grid_steps`](crate::Walker::grid_steps)) reserve the tile they step
//! into before they leave their own, and wait while it is taken.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::Avoidance;
use super::avoid::{CrowdMotion, WalkerGrids};
use crate::placement::{Parents, walker_xy};
use crate::tuning::WalkTuning;
use crate::walk::job::WalkOnHold;
use crate::walker::{WalkPath, Walker};

/// A tile-step walker that has waited this long for a tile stops (its walk ends
/// [`Blocked`](crate::StopReason::Blocked)): two walkers meeting head-on in a
/// corridor one tile wide, or one sent onto a tile someone stands on.
pub const TILE_WAIT_SECONDS: f32 = 3.0;

/// A tile: the walker's room (as it names it) and the mask pixel.
type Tile = (Option<Entity>, (u32, u32));

/// A tile-step walker as [`reserve_tiles`] reads it.
type TileWalker = (
    Entity,
    &'static Walker,
    &'static Avoidance,
    &'static mut CrowdMotion,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    Has<WalkOnHold>,
);

/// What is kept from frame to frame.
#[derive(Default)]
pub(crate) struct TileWork {
    taken: HashMap<Tile, Entity>,
    /// Walking walkers: (walk left, entity, the tile it is on, the tile it steps into).
    walking: Vec<(f32, Entity, Tile, Tile)>,
}

/// Each frame, before walkers move: every tile-step walker (with avoidance on)
/// holds the tile it stands on; walking ones, the one nearest the end of its walk
/// first, reserve the tile they step into next, or wait while another holds it.
pub(crate) fn reserve_tiles(
    time: Res<Time>,
    tuning: Res<WalkTuning>,
    mut walkers: Query<TileWalker>,
    parents: Parents,
    mut grids: WalkerGrids,
    mut work: Local<TileWork>,
) {
    let dt = time.delta_secs();
    grids.new_frame();
    let work = &mut *work;
    work.taken.clear();
    work.walking.clear();
    for (entity, walker, avoidance, mut motion, transform, child_of, path, held) in &mut walkers {
        let motion = motion.bypass_change_detection();
        motion.hold = false;
        motion.blocked = false;
        if !(walker.grid_steps && avoidance.enabled && tuning.avoidance) {
            motion.tile = None;
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let Some(grid) = grids.of(walker, position) else {
            continue;
        };
        let Some(here) = grid.pixel_under(position) else {
            continue;
        };
        let here = (walker.room, here);
        work.taken.insert(here, entity);
        // The tile it is about to enter: three quarters of a tile ahead on its way
        // (its corners may lie many tiles apart), never past the next corner.
        let next = path
            .filter(|_| !held)
            .and_then(|path| Some((path, *path.waypoints.get(path.next)?)))
            .and_then(|(path, corner)| {
                let to = corner - position;
                let ahead = position + to.clamp_length_max(grid.pixel() * 0.75);
                Some((path, grid.pixel_under(ahead)?))
            });
        match next {
            Some((path, next)) => {
                let next = (walker.room, next);
                if motion.tile.is_some_and(|reserved| reserved == next.1) {
                    work.taken.insert(next, entity);
                } else {
                    motion.tile = None;
                }
                work.walking
                    .push((path.remaining_length(position), entity, here, next));
            }
            None => {
                motion.tile = None;
                motion.waited = 0.0;
            }
        }
    }
    work.walking
        .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for &(_, entity, here, next) in &work.walking {
        let Ok((.., mut motion, _, _, _, _)) = walkers.get_mut(entity) else {
            continue;
        };
        let motion = motion.bypass_change_detection();
        let free = next == here || work.taken.get(&next).is_none_or(|&holder| holder == entity);
        if free {
            work.taken.insert(next, entity);
            motion.tile = (next != here).then_some(next.1);
            motion.waited = 0.0;
        } else {
            motion.hold = true;
            motion.waited += dt;
            motion.blocked = motion.waited >= TILE_WAIT_SECONDS;
        }
    }
}
