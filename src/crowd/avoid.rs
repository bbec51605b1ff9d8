//! The crowd at the end of each frame: the walkers of each room gathered, free spots
//! claimed for walkers nearing an occupied destination, and the velocities they take
//! next frame handed to [`velocities`](super::velocities) to solve.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use walkmask::Point;
use walkmask::crowd::{Agent, NeighbourGrid, SpotScratch, Vector};

use super::Avoidance;
use super::grids::WalkerGrids;
use super::motion::{ArrivalSpot, BLOCKED_SECONDS, CrowdMotion, Gathered, STAND_STALLED_SECONDS};
use super::velocities::{CrowdVelocities, SolveKey, Want, avoidance_params, on_path};
use crate::placement::{Parents, walker_xy};
use crate::request::RequestId;
use crate::steering::Steered;
use crate::tuning::WalkTuning;
use crate::walk::job::{GivenRoute, WalkOnHold, on_given_route};
use crate::walk::membership::CurrentRoom;
use crate::walk::speed::{SpeedFactors, speed_factor};
use crate::walker::{PlayerWalker, WalkPath, Walker};

/// One walker as gathered this frame.
#[derive(Clone, Copy)]
struct Entry {
    /// Walkers avoid each other only within one room.
    room: Option<Entity>,
    agent: Agent,
    want: Want,
    key: SolveKey,
    /// Its claimed spot (world), counted as taken by others.
    claimed: Option<Vec2>,
    /// Walking with no spot yet: the request, the end of the walk, and the walk left.
    claim: Option<(RequestId, Vec2, f32)>,
    /// The request, the destination asked for and the end of the walk, when its walk
    /// has got no shorter for [`STAND_STALLED_SECONDS`].
    stalled_at: Option<(RequestId, Vec2, Vec2)>,
    gap: f32,
    /// Its place in the crowd's order ([`CrowdMotion::order`]).
    order: u64,
}

/// Buffers kept from frame to frame.
#[derive(Default)]
pub(crate) struct CrowdWork {
    entries: Vec<Entry>,
    /// The entries' sort keys and indices, and the entries in that order.
    order: Vec<(u64, u32)>,
    sorted: Vec<Entry>,
    spots: SpotScratch,
    taken: Taken,
    /// Where walkers stand (indexed, for the walkers blocked against them).
    standing: Taken,
    taken_mask: Vec<(Point, f32)>,
    /// The place in the crowd's order the next walker to join it takes.
    next_order: u64,
}

/// The spots taken in a room this frame (where walkers stand, and spots claimed),
/// with a grid over them for the question "is anyone near this point?".
#[derive(Default)]
struct Taken {
    discs: Vec<(Vec2, f32)>,
    positions: Vec<Vector>,
    grid: NeighbourGrid,
    /// Discs the grid holds (claims added later are looked through one by one).
    indexed: usize,
    /// The largest finite radius, and whether any radius is not finite.
    largest: f32,
    unbounded: bool,
    /// Crowd extents worked out this frame, by end (its bits): (discs then,
    /// footprint, extent).
    extents: HashMap<(u32, u32), (usize, f32, f32)>,
    scratch: Vec<(f32, f32)>,
}

impl Taken {
    fn clear(&mut self) {
        self.discs.clear();
        self.extents.clear();
        self.indexed = 0;
        self.largest = 0.0;
        self.unbounded = false;
    }

    fn push(&mut self, at: Vec2, radius: f32) {
        self.discs.push((at, radius));
        if radius.is_finite() {
            self.largest = self.largest.max(radius);
        } else {
            self.unbounded = true;
        }
    }

    /// Builds the grid over the discs so far.
    fn index(&mut self, cell: f32) {
        self.positions.clear();
        self.positions
            .extend(self.discs.iter().map(|(p, _)| Vector::new(p.x, p.y)));
        self.grid.build(&self.positions, cell);
        self.indexed = self.discs.len();
    }

    /// Whether a disc comes within `reach` of `p` (closer than `reach` plus its
    /// radius).
    fn near(&self, p: Vec2, reach: f32) -> bool {
        let v = Vector::new(p.x, p.y);
        self.grid
            .any_within(&self.positions, v, reach + self.largest, |j| {
                self.discs[j].0.distance(p) < reach + self.discs[j].1
            })
            || self.discs[self.indexed..]
                .iter()
                .any(|&(at, r)| at.distance(p) < reach + r)
    }

    /// An upper bound of [`extent`](Self::extent) for any end, without looking at
    /// where the discs are: a crowd reaches out at most a disc's diameter and a
    /// footprint further with each disc (see [`cluster_extent`]).
    fn extent_bound(&self, footprint: f32) -> f32 {
        if self.unbounded {
            return f32::INFINITY;
        }
        self.discs.len() as f32 * (2.0 * self.largest + footprint)
    }

    /// [`cluster_extent`] round `end`, once per end and frame (again after claims).
    fn extent(&mut self, end: Vec2, footprint: f32) -> f32 {
        if !self.near(end, footprint) {
            return 0.0;
        }
        let len = self.discs.len();
        let key = (end.x.to_bits(), end.y.to_bits());
        if let Some(&(n, f, extent)) = self.extents.get(&key)
            && n == len
            && f == footprint
        {
            return extent;
        }
        let extent = self.cluster_extent_near(end, footprint);
        self.extents.insert(key, (len, footprint, extent));
        extent
    }

    /// [`cluster_extent`] round `end`, looking only at the discs near it: those
    /// within a reach that grows until the crowd found cannot reach past it (a disc
    /// joins at most `footprint` plus its radius beyond the extent so far).
    fn cluster_extent_near(&mut self, end: Vec2, footprint: f32) -> f32 {
        if self.unbounded || !footprint.is_finite() || !end.is_finite() {
            return cluster_extent(&self.discs, end, footprint, &mut self.scratch);
        }
        let v = Vector::new(end.x, end.y);
        let mut reach = 2.0 * (footprint + 2.0 * self.largest);
        loop {
            self.scratch.clear();
            let (discs, scratch) = (&self.discs, &mut self.scratch);
            self.grid.any_within(&self.positions, v, reach, |j| {
                let (at, r) = discs[j];
                scratch.push((at.distance(end), r));
                false
            });
            scratch.extend(
                discs[self.indexed..]
                    .iter()
                    .map(|&(at, r)| (at.distance(end), r))
                    .filter(|&(d, _)| d <= reach),
            );
            let extent = extent_of_sorted(scratch, footprint);
            let needed = extent + footprint + self.largest;
            if needed <= reach || scratch.len() == discs.len() {
                return extent;
            }
            reach = needed.max(2.0 * reach);
        }
    }
}

/// A walker as avoidance reads it.
type CrowdWalker = (
    Entity,
    (
        &'static Walker,
        &'static CurrentRoom,
        Option<&'static GivenRoute>,
    ),
    &'static Avoidance,
    &'static mut CrowdMotion,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    SpeedFactors,
    Has<PlayerWalker>,
    Has<Steered>,
    Has<WalkOnHold>,
);

/// At the end of the frame, after walkers moved: gathers the walkers of each room,
/// claims free spots for those nearing an occupied destination, and starts solving
/// the velocities they take next frame ([`CrowdVelocities`]; see [`Avoidance`]).
pub(crate) fn gather_crowd(
    time: Res<Time>,
    tuning: Res<WalkTuning>,
    mut walkers: Query<CrowdWalker>,
    parents: Parents,
    mut grids: WalkerGrids,
    mut work: Local<CrowdWork>,
    mut velocities: ResMut<CrowdVelocities>,
) {
    let dt = time.delta_secs();
    grids.new_frame();
    let work = &mut *work;
    work.entries.clear();
    // Walkers join the crowd's order after every walker in it (loaded ones too).
    for (.., motion, _, _, _, _, _, _, _) in &walkers {
        work.next_order = work.next_order.max(motion.order + 1);
    }
    for (
        entity,
        (walker, current, given),
        avoidance,
        mut motion,
        transform,
        child_of,
        path,
        depth,
        player,
        steered,
        held,
    ) in &mut walkers
    {
        let motion = motion.bypass_change_detection();
        // This frame's velocity is walked; next frame's is solved below.
        motion.avoided = None;
        motion.gathered = None;
        if motion.order == 0 {
            motion.order = work.next_order;
            work.next_order += 1;
        }
        let position = walker_xy(transform, child_of, &parents);
        let measured = match motion.last {
            Some(last) if dt > 0.0 => (position - last) / dt,
            _ => Vec2::ZERO,
        };
        let moved = motion
            .last
            .map_or(f32::INFINITY, |last| position.distance(last));
        motion.last = Some(position);
        let radius = walker.radius;
        let active = tuning.avoidance
            && avoidance.enabled
            && radius.is_finite()
            && radius > 0.0
            && position.is_finite()
            && dt > 0.0;
        // A walk that reached its end this frame ends when the frame's commands run.
        let on_path = on_path(path);
        let walking = on_path && !held && !steered;
        // A walk through given points (a cutscene's, an exit's walk-off) is never
        // turned aside: the others give way to it.
        let scripted = on_given_route(path, given);
        if !active {
            motion.spot = None;
            continue;
        }
        let speed = if walker.speed.is_finite() {
            walker.speed.max(0.0)
        } else {
            0.0
        } * speed_factor(depth);
        // A teleport is not a velocity.
        let measured = if measured.is_finite() {
            measured.clamp_length_max(speed * 2.0)
        } else {
            Vec2::ZERO
        };
        let mut preferred = Vec2::ZERO;
        let mut claim = None;
        let mut remaining = 0.0;
        motion.start_step(path.map(|path| path.request));
        if let Some(path) = path.filter(|_| walking && !scripted) {
            // A spot for another request, or for an end the walk no longer has.
            if motion.spot.is_some_and(|spot| {
                spot.request != path.request
                    || path
                        .waypoints
                        .last()
                        .is_none_or(|&last| last != spot.end && last != spot.at)
            }) {
                motion.spot = None;
            }
            if let Some(&next) = path.waypoints.get(path.next) {
                let to = next - position;
                let last = path.next + 1 >= path.waypoints.len();
                // Slows down onto the end rather than overshoot it within a frame.
                let pace = if last {
                    speed.min(to.length() / dt)
                } else {
                    speed
                };
                preferred = to.normalize_or_zero() * pace;
            }
            remaining = path.remaining_length(position);
            let len = path.waypoints.len();
            if let Some(&end) = path.waypoints.last()
                && avoidance.spread_on_arrival
                && !walker.grid_steps
                && motion.spot.is_none()
                && path.next < len
            {
                claim = Some((path.request, end, remaining));
            }
            if walker.grid_steps {
                // Tile-step walkers wait for tiles instead (`super::tiles`).
                motion.stalled = 0.0;
            } else {
                let corners = path.waypoints.get(1..).unwrap_or(&[]);
                motion.measure_progress(path.request, remaining, corners, moved, radius, dt);
            }
        } else {
            motion.spot = None;
            // Held while its walk is planned again from where it got to: the walk goes
            // on, and so does the measure of how far it got (paused).
            if !(held && on_path) {
                motion.best_remaining = None;
                motion.last_remaining = None;
                motion.stalled = 0.0;
            }
        }
        let priority = if steered || scripted {
            u8::MAX
        } else {
            avoidance.priority_of(player)
        };
        let gap = avoidance
            .arrival_gap
            .filter(|gap| gap.is_finite() && *gap >= 0.0)
            .unwrap_or(radius * 0.2);
        work.entries.push(Entry {
            room: current.get(),
            agent: Agent {
                position: Vector::new(position.x, position.y),
                velocity: Vector::new(measured.x, measured.y),
                radius,
                priority,
                standing: !walking && !steered,
                remaining,
                blocked: motion.stalled >= BLOCKED_SECONDS,
                layers: avoidance.layers,
                id: motion.order as u32,
            },
            want: Want {
                preferred: Vector::new(preferred.x, preferred.y),
                max_speed: speed,
                walking,
                // Tile-step walkers keep to their tiles: others avoid them.
                solve: !steered && !walker.grid_steps && !scripted,
            },
            key: SolveKey {
                entity,
                position,
                on_path,
            },
            claimed: motion.spot.map(|spot| spot.at),
            claim,
            stalled_at: path
                .filter(|_| {
                    walking
                        && !scripted
                        && avoidance.spread_on_arrival
                        && motion.stalled >= STAND_STALLED_SECONDS
                })
                .and_then(|path| Some((path.request, path.target, *path.waypoints.last()?))),
            gap,
            order: motion.order,
        });
        let e = work.entries.last().expect("just pushed");
        motion.gathered = Some(Gathered::of(e.room, &e.agent, &e.want, on_path, dt));
    }
    // Room by room, in the crowd's order (sorted by key: an entry is large to move).
    work.order.clear();
    work.order.extend(
        work.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (crowd_order_key(e.room, e.order), i as u32)),
    );
    work.order.sort_unstable();
    work.sorted.clear();
    work.sorted
        .extend(work.order.iter().map(|&(.., i)| work.entries[i as usize]));
    std::mem::swap(&mut work.entries, &mut work.sorted);
    let mut solve = velocities.buffers();
    solve.params = avoidance_params(&tuning);
    solve.dt = dt;
    for e in &work.entries {
        solve.agents.push(e.agent);
        solve.wants.push(e.want);
        solve.keys.push(e.key);
    }
    let mut start = 0;
    while start < work.entries.len() {
        let room = work.entries[start].room;
        let end = start
            + work.entries[start..]
                .iter()
                .take_while(|e| e.room == room)
                .count();
        solve.rooms.push(start..end);
        claim_spots(work, &solve.agents, start..end, &mut walkers, &mut grids);
        start = end;
    }
    velocities.start(solve);
}

/// Claims free spots for the walkers `range` of `work.entries` (one room), whose
/// agents are `agents[range]`.
fn claim_spots(
    work: &mut CrowdWork,
    agents: &[Agent],
    range: std::ops::Range<usize>,
    walkers: &mut Query<CrowdWalker>,
    grids: &mut WalkerGrids,
) {
    let entries = &work.entries[range.clone()];
    let agents = &agents[range];
    let max_radius = agents.iter().map(|a| a.radius).fold(0.0, f32::max);
    // Spots taken: where walkers stand, and spots claimed.
    work.taken.clear();
    work.standing.clear();
    for e in entries {
        if e.agent.standing {
            let at = Vec2::new(e.agent.position.x, e.agent.position.y);
            work.taken.push(at, e.agent.radius);
            work.standing.push(at, e.agent.radius);
        }
        if let Some(at) = e.claimed {
            work.taken.push(at, e.agent.radius);
        }
    }
    work.taken.index((4.0 * max_radius).max(1.0));
    work.standing.index((4.0 * max_radius).max(1.0));
    for e in entries {
        if !e.want.solve || (e.stalled_at.is_none() && e.claim.is_none()) {
            continue;
        }
        let position = e.key.position;
        let radius = e.agent.radius;
        if let Some((request, target, end)) = e.stalled_at {
            // Blocked at the edge of the crowd round its destination: this is its spot.
            let footprint = 2.0 * radius + e.gap;
            let extent = work.taken.extent(target, footprint);
            // Against someone standing there, not merely in a queue.
            let touching = work.standing.near(position, radius + 2.0 * e.gap + 1e-4);
            // A walker with a spot claimed was at the crowd's edge already; those
            // standing may since have been nudged away from the destination itself,
            // which then no longer measures where the crowd's edge is.
            if touching
                && (e.claimed.is_some() || position.distance(target) <= extent + footprint)
                && let Ok((_, _, _, mut motion, ..)) = walkers.get_mut(e.key.entity)
            {
                motion.bypass_change_detection().spot = Some(ArrivalSpot {
                    request,
                    end,
                    at: position,
                    here: true,
                });
                work.taken.push(position, radius);
                continue;
            }
        }
        let Some((request, end, distance)) = e.claim else {
            continue;
        };
        // Claimed late, once at the edge of those standing or heading there, so that
        // the first to arrive stand nearest.
        let footprint = 2.0 * radius + e.gap;
        let near_enough = 2.0 * radius + max_radius + e.want.max_speed * 0.25;
        // Most are far from their end and from any crowd there: that is told without
        // looking for one.
        if distance > near_enough + work.taken.extent_bound(footprint)
            || distance > near_enough + work.taken.extent(end, footprint)
        {
            continue;
        }
        // Looked up only for the few near their end.
        let Ok((_, (walker, ..), _, mut motion, ..)) = walkers.get_mut(e.key.entity) else {
            continue;
        };
        let motion = motion.bypass_change_detection();
        let mut spot = ArrivalSpot {
            request,
            end,
            at: end,
            here: false,
        };
        if work.taken.near(end, radius + e.gap)
            && let Some(grid) = grids.of(walker, position)
            && let Some(at) = grid.free_spot(
                end,
                position,
                radius,
                e.gap,
                &work.taken.discs,
                &mut work.taken_mask,
                &mut work.spots,
            )
        {
            spot.at = at;
        }
        motion.spot = Some(spot);
        work.taken.push(spot.at, radius);
    }
}

/// How far from `end` the discs of `taken` reach that touch one another out from it
/// (within `footprint` of the last): the edge of the crowd standing round `end`.
fn cluster_extent(
    taken: &[(Vec2, f32)],
    end: Vec2,
    footprint: f32,
    scratch: &mut Vec<(f32, f32)>,
) -> f32 {
    scratch.clear();
    scratch.extend(taken.iter().map(|&(at, r)| (at.distance(end), r)));
    extent_of_sorted(scratch, footprint)
}

/// The extent of the crowd among discs given as (distance from the end, radius):
/// sorted by distance, they join while each comes within `footprint` of the crowd
/// so far (see [`cluster_extent`]).
fn extent_of_sorted(discs: &mut [(f32, f32)], footprint: f32) -> f32 {
    discs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut extent = 0.0f32;
    for &(d, r) in discs.iter() {
        if d - r > extent + footprint {
            break;
        }
        extent = extent.max(d + r);
    }
    extent
}

/// The order [`gather_crowd`] hands walkers to the solve in: by room (no room first),
/// then by walker, both by entity index (live entities have distinct indices, and an
/// index is never `u32::MAX`).
pub(super) fn crowd_order_key(room: Option<Entity>, order: u64) -> u64 {
    let room = room.map_or(0, |room| u64::from(room.index_u32()) + 1);
    room << 40 | (order & ((1 << 40) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift).
    fn next(seed: &mut u32) -> f32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 17;
        *seed ^= *seed << 5;
        (*seed % 10_000) as f32 / 10_000.0
    }

    #[test]
    fn the_extent_near_an_end_is_the_extent_over_every_disc() {
        let mut seed = 12345u32;
        for case in 0..300 {
            let mut taken = Taken::default();
            let n = 1 + (next(&mut seed) * 200.0) as usize;
            // Clusters and strays over a 200 x 200 field, radii 0.5 to 6.
            for _ in 0..n {
                let at = Vec2::new(next(&mut seed), next(&mut seed)) * 200.0;
                taken.push(at, 0.5 + next(&mut seed) * 5.5);
            }
            let indexed = n - (next(&mut seed) * n as f32 * 0.3) as usize;
            let late: Vec<_> = taken.discs.drain(indexed..).collect();
            taken.index(4.0 * taken.largest);
            for (at, r) in late {
                taken.push(at, r);
            }
            for _ in 0..20 {
                let end = Vec2::new(next(&mut seed), next(&mut seed)) * 200.0;
                let footprint = next(&mut seed) * 14.0;
                let mut scratch = Vec::new();
                let all = cluster_extent(&taken.discs, end, footprint, &mut scratch);
                let near = taken.cluster_extent_near(end, footprint);
                assert_eq!(near, all, "case {case}: end {end}, footprint {footprint}");
            }
        }
    }
}
