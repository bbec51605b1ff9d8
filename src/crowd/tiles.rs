//! One walker per tile: walkers that walk tile by tile
//! ([`Walker::grid_steps`](crate::Walker::grid_steps)) reserve the tile they step
//! into before they leave their own, and wait while it is taken. Two that meet
//! head-on (each waiting for the other's tile) do not wait for ever: one backs off
//! to the nearest tile off the other's way, lets it pass and walks on.

use std::collections::VecDeque;

use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;

use super::Avoidance;
use super::grids::{WalkerGrid, WalkerGrids};
use super::motion::{CrowdMotion, Refuge, Route};
use crate::placement::{Parents, walker_xy};
use crate::request::RequestId;
use crate::tuning::WalkTuning;
use crate::walk::job::WalkOnHold;
use crate::walk::membership::CurrentRoom;
use crate::walk::movement::report_detour;
use crate::walker::{PlayerWalker, WalkPath, Walker};

/// The default of [`WalkTuning::tile_wait_seconds`]: a tile-step walker that has
/// waited this long for a tile stops (its walk ends
/// [`Blocked`](crate::StopReason::Blocked)): one sent onto a tile someone stands on,
/// or two meeting head-on in a corridor one tile wide where neither can back off
/// (no free tile off the other's way within 16 steps).
pub const TILE_WAIT_SECONDS: f32 = 3.0;

/// A walker backed off to a refuge waits there at most this long for the other to
/// pass before it walks on.
const REFUGE_WAIT_SECONDS: f32 = 10.0;

/// How far (tiles, stepping along rows and columns) a walker looks for a refuge.
const REFUGE_SEARCH_TILES: u32 = 16;

/// How many tiles of the other walker's way ahead a refuge must keep off.
const PASSING_WAY_TILES: usize = 256;

/// A tile: the walker's room ([`CurrentRoom`]) and the mask pixel.
type Tile = (Option<Entity>, (u32, u32));

/// A tile-step walker as [`reserve_tiles`] reads it.
type TileWalker = (
    Entity,
    (&'static Walker, &'static CurrentRoom, Has<PlayerWalker>),
    &'static Avoidance,
    &'static mut CrowdMotion,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static mut WalkPath>,
    Has<WalkOnHold>,
);

/// What is kept from frame to frame.
#[derive(Default)]
pub(crate) struct TileWork {
    taken: HashMap<Tile, Entity>,
    /// Walking walkers: (walk left, entity, the tile it is on, the tile it steps into).
    walking: Vec<(f32, Entity, Tile, Tile)>,
    /// Walkers waiting in a refuge: (walker, the one it makes way for, its route).
    in_refuge: Vec<(Entity, Entity, Route)>,
    /// Of those, the ones to wait on this frame.
    keep_waiting: HashSet<Entity>,
    /// Pairs met head-on this frame: (the one that backs off, the other).
    head_on: Vec<(Entity, Entity)>,
    /// Where each walking walker is in `walking`.
    walking_at: HashMap<Entity, usize>,
    /// Walks given a detour this frame, reported once the frame's commands run.
    detoured: Vec<(Entity, RequestId)>,
    /// Scratch for the other's way, and the search for a refuge.
    way: HashSet<(u32, u32)>,
    search: HashMap<(u32, u32), (u32, u32)>,
    queue: VecDeque<((u32, u32), u32)>,
    /// The last pass met a tile-step walker: some walker may still hold a tile, wait
    /// or keep a refuge, which the next pass clears if none steps by tiles any more.
    tile_state_left: bool,
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
    mut commands: Commands,
) {
    let dt = time.delta_secs();
    grids.new_frame();
    let work = &mut *work;
    let stepping = tuning.avoidance
        && walkers
            .iter()
            .any(|(_, (walker, ..), avoidance, ..)| walker.grid_steps && avoidance.enabled);
    // Most rooms have no tile-step walker: nothing to reserve and, once the state of
    // the last ones is cleared, nothing to clear.
    if !stepping && !work.tile_state_left {
        return;
    }
    work.tile_state_left = stepping;
    work.taken.clear();
    work.walking.clear();
    work.head_on.clear();
    wait_in_refuges(work, &mut walkers, &parents, &mut grids, dt);
    for (entity, (walker, current, _), avoidance, mut motion, transform, child_of, path, held) in
        &mut walkers
    {
        let motion = motion.bypass_change_detection();
        motion.hold = false;
        motion.blocked = false;
        if !(walker.grid_steps && avoidance.enabled && tuning.avoidance) {
            motion.tile = None;
            motion.refuge = None;
            continue;
        }
        let position = walker_xy(transform, child_of, &parents);
        let Some(grid) = grids.of(walker, position) else {
            continue;
        };
        let Some(here) = grid.pixel_under(position) else {
            continue;
        };
        let here = (current.get(), here);
        work.taken.insert(here, entity);
        if work.keep_waiting.contains(&entity) {
            motion.hold = true;
            motion.tile = None;
            continue;
        }
        // The tile it is about to enter: three quarters of a tile ahead on its way
        // (its corners may lie many tiles apart), never past the next corner.
        let next = path
            .filter(|_| !held)
            .and_then(|path| Some((*path.waypoints.get(path.next)?, path)))
            .and_then(|(corner, path)| {
                let to = corner - position;
                let ahead = position + to.clamp_length_max(grid.pixel() * 0.75);
                Some((path, grid.pixel_under(ahead)?))
            });
        match next {
            Some((path, next)) => {
                let next = (current.get(), next);
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
    work.walking_at.clear();
    work.walking_at
        .extend(work.walking.iter().enumerate().map(|(i, w)| (w.1, i)));
    for (i, &(_, entity, here, next)) in work.walking.iter().enumerate() {
        let Ok((.., mut motion, _, _, _, _)) = walkers.get_mut(entity) else {
            continue;
        };
        let motion = motion.bypass_change_detection();
        let holder = work.taken.get(&next).copied();
        let free = next == here || holder.is_none_or(|holder| holder == entity);
        if free {
            work.taken.insert(next, entity);
            motion.tile = (next != here).then_some(next.1);
            motion.waited = 0.0;
            continue;
        }
        motion.hold = true;
        motion.waited += dt;
        motion.blocked = motion.waited >= tuning.tile_wait_seconds;
        // Head-on: the holder waits for this walker's tile. The one farther from the
        // end of its walk (later in this order) backs off.
        if let Some(holder) = holder
            && let Some(&at) = work.walking_at.get(&holder)
            && work.walking[at].3 == here
        {
            let pair = if at < i {
                (entity, holder)
            } else {
                (holder, entity)
            };
            if !work.head_on.contains(&pair) {
                work.head_on.push(pair);
            }
        }
    }
    let head_on = std::mem::take(&mut work.head_on);
    for &(yields, other) in &head_on {
        // The other backs off when this one has nowhere to go.
        if !back_off(work, &mut walkers, &parents, &mut grids, yields, other) {
            back_off(work, &mut walkers, &parents, &mut grids, other, yields);
        }
    }
    work.head_on = head_on;
    // The walk lifecycle reports the new paths (`PathReplanned`).
    for (walker, request) in work.detoured.drain(..) {
        commands.queue(move |world: &mut World| report_detour(world, walker, request));
    }
}

/// Decides which walkers standing in their refuge wait on this frame: those whose
/// other walker's way still crosses the tiles they backed off along, for at most
/// [`REFUGE_WAIT_SECONDS`]. A refuge is forgotten once left, or when the walk changed.
fn wait_in_refuges(
    work: &mut TileWork,
    walkers: &mut Query<TileWalker>,
    parents: &Parents,
    grids: &mut WalkerGrids,
    dt: f32,
) {
    work.in_refuge.clear();
    work.keep_waiting.clear();
    for (entity, (walker, ..), _, motion, transform, child_of, path, _) in walkers.iter() {
        let Some(refuge) = &motion.refuge else {
            continue;
        };
        // On the refuge's tile, its centre passed (a step carries on round a corner).
        let position = walker_xy(transform, child_of, parents);
        let there = path.is_some_and(|path| {
            path.request == refuge.request
                && !path.waypoints[path.next.min(path.waypoints.len())..].contains(&refuge.at)
        }) && grids
            .of(walker, position)
            .and_then(|grid| grid.pixel_under(position))
            .is_some_and(|tile| refuge.route.last() == Some(&tile));
        if there && refuge.waited < REFUGE_WAIT_SECONDS {
            work.in_refuge
                .push((entity, refuge.passing, refuge.route.clone()));
        }
    }
    for (entity, passing, route) in std::mem::take(&mut work.in_refuge) {
        if way_ahead(walkers, parents, grids, passing, &mut work.way)
            && route.iter().any(|tile| work.way.contains(tile))
        {
            work.keep_waiting.insert(entity);
        }
    }
    for (entity, .., mut motion, _, _, path, _) in walkers.iter_mut() {
        let Some(refuge) = &motion.refuge else {
            continue;
        };
        if work.keep_waiting.contains(&entity) {
            if let Some(refuge) = &mut motion.bypass_change_detection().refuge {
                refuge.waited += dt;
            }
            continue;
        }
        // On its way there: the refuge is still ahead on the same walk.
        let on_the_way = path.is_some_and(|path| {
            path.request == refuge.request
                && path.waypoints[path.next.min(path.waypoints.len())..].contains(&refuge.at)
        });
        if !on_the_way {
            motion.bypass_change_detection().refuge = None;
        }
    }
}

/// Fills `way` with the tiles of `walker`'s way ahead (at most
/// [`PASSING_WAY_TILES`]); `false` when it has none (not walking, or gone).
fn way_ahead(
    walkers: &Query<TileWalker>,
    parents: &Parents,
    grids: &mut WalkerGrids,
    walker: Entity,
    way: &mut HashSet<(u32, u32)>,
) -> bool {
    way.clear();
    let Ok((_, (w, ..), _, _, transform, child_of, Some(path), _)) = walkers.get(walker) else {
        return false;
    };
    let position = walker_xy(transform, child_of, parents);
    let Some(grid) = grids.of(w, position) else {
        return false;
    };
    let Some(rest) = path
        .waypoints
        .get(path.next..)
        .filter(|rest| !rest.is_empty())
    else {
        return false;
    };
    // Sampled a quarter of a tile apart along each leg.
    let step = grid.pixel() * 0.25;
    let mut from = position;
    'legs: for &to in rest {
        let length = from.distance(to);
        let samples = (length / step)
            .ceil()
            .clamp(1.0, 4.0 * PASSING_WAY_TILES as f32) as u32;
        for k in 0..=samples {
            if let Some(tile) = grid.pixel_under(from.lerp(to, k as f32 / samples as f32)) {
                way.insert(tile);
                if way.len() >= PASSING_WAY_TILES {
                    break 'legs;
                }
            }
        }
        from = to;
    }
    true
}

/// Backs `yields` off from `other`, met head-on: to the nearest tile (stepping along
/// rows and columns, through tiles no one holds) off the other's way ahead, where it
/// waits for the other to pass before it walks back and on. `false` when there is no
/// such tile within [`REFUGE_SEARCH_TILES`], or a player walker would have to back
/// off for a lower priority.
fn back_off(
    work: &mut TileWork,
    walkers: &mut Query<TileWalker>,
    parents: &Parents,
    grids: &mut WalkerGrids,
    yields: Entity,
    other: Entity,
) -> bool {
    let (Ok(a), Ok(b)) = (walkers.get(yields), walkers.get(other)) else {
        return false;
    };
    // As avoidance ranks walkers: the player above others unless told otherwise.
    if a.2.priority_of(a.1.2) > b.2.priority_of(b.1.2) {
        return false;
    }
    let ((walker, current, _), position) = (a.1, walker_xy(a.4, a.5, parents));
    let room = current.get();
    let Some(grid) = grids.of(walker, position).cloned() else {
        return false;
    };
    let Some(here) = grid.pixel_under(position) else {
        return false;
    };
    if !way_ahead(walkers, parents, grids, other, &mut work.way) {
        return false;
    }
    let Some(route) = refuge_route(work, &grid, room, yields, here) else {
        return false;
    };
    let Ok((.., mut motion, _, _, Some(mut path), _)) = walkers.get_mut(yields) else {
        return false;
    };
    // Out along the route to the refuge, back the same way to where it stood, and on.
    let refuge = *route.last().expect("a route holds its refuge");
    let at = grid.pixel_centre(refuge);
    let out = route[1..].iter().map(|&tile| grid.pixel_centre(tile));
    let back = route[1..route.len() - 1]
        .iter()
        .rev()
        .map(|&tile| grid.pixel_centre(tile))
        .chain([position]);
    let detour: Vec<Vec2> = out.chain(back).collect();
    let next = path.next.min(path.waypoints.len());
    path.waypoints.splice(next..next, detour);
    let motion = motion.bypass_change_detection();
    motion.hold = false;
    motion.blocked = false;
    motion.waited = 0.0;
    motion.tile = None;
    motion.refuge = Some(Refuge {
        request: path.request,
        at,
        passing: other,
        route,
        waited: 0.0,
    });
    work.detoured.push((yields, path.request));
    debug!("walker {yields}: backs off to tile {refuge:?} to let {other} pass");
    true
}

/// The tiles from `here` (first) to the nearest tile off `work.way` that no other
/// walker holds, stepping along rows and columns; `None` within
/// [`REFUGE_SEARCH_TILES`] steps.
fn refuge_route(
    work: &mut TileWork,
    grid: &WalkerGrid,
    room: Option<Entity>,
    walker: Entity,
    here: (u32, u32),
) -> Option<Route> {
    work.search.clear();
    work.queue.clear();
    work.search.insert(here, here);
    work.queue.push_back((here, 0));
    while let Some((tile, steps)) = work.queue.pop_front() {
        if tile != here && !work.way.contains(&tile) {
            let mut route = vec![tile];
            let mut at = tile;
            while at != here {
                at = work.search[&at];
                route.push(at);
            }
            route.reverse();
            return Some(route);
        }
        if steps >= REFUGE_SEARCH_TILES {
            continue;
        }
        let (x, y) = tile;
        let around = [
            x.checked_sub(1).map(|x| (x, y)),
            x.checked_add(1).map(|x| (x, y)),
            y.checked_sub(1).map(|y| (x, y)),
            y.checked_add(1).map(|y| (x, y)),
        ];
        for step in around.into_iter().flatten() {
            let free = work
                .taken
                .get(&(room, step))
                .is_none_or(|&holder| holder == walker);
            if free && grid.walkable(step) && !work.search.contains_key(&step) {
                work.search.insert(step, tile);
                work.queue.push_back((step, steps + 1));
            }
        }
    }
    None
}
