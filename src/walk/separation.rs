//! Walkers that overlap after moving are pushed apart.
//!
//! Avoidance ([`crate::crowd`]) turns walkers aside by velocity, which keeps them
//! apart as long as every one can take the velocity it was given. In a queue at a
//! door, along a wall that turns a step, at a corner reached within a frame or
//! behind a walker that stopped giving way, they can still come closer than their
//! radii allow. After the frame's moves this pass pushes every pair that overlaps
//! apart, along the line between them (or across it where a wall stops that: two side
//! by side in a gap too narrow for both step past each other), sliding along walls
//! ([`walkmask::steer::slide`]), so a push never crosses a blocked pixel: the one of
//! lower [`Avoidance::priority`] all the way, two of equal priority half way each. A
//! walker pushed off its path finds its way back to it as one turned aside by
//! avoidance does ([`OffPath`]); a walk through given points (a cutscene's route) is
//! never pushed; steered walkers are pushed only by each other.

use bevy::prelude::*;

use super::job::{GivenRoute, on_given_route};
use super::membership::CurrentRoom;
use super::movement::{OffPath, StepFrom};
use super::replan::Placed;
use super::timing::PlanClock;
use crate::crowd::Avoidance;
use crate::crowd::grids::WalkerGrids;
use crate::placement::{Parents, parent_of, set_world_xy, world_position};
use crate::steering::Steered;
use crate::tuning::WalkTuning;
use crate::walker::{PlayerWalker, WalkPath, Walker};

/// Overlaps below this share of the two radii are left alone.
const TOLERANCE: f32 = 0.02;
/// Rounds of pushes a frame: a push can press a walker onto a third one, or onto a
/// wall, which then passes the push back.
const ROUNDS: usize = 3;
/// A walker that slides less than this share of its push is pinned.
const PINNED: f32 = 0.5;

/// A walker that may be pushed apart from others.
type SeparatedWalker = (
    Entity,
    &'static Walker,
    &'static Avoidance,
    &'static CurrentRoom,
    &'static mut Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    Option<&'static GivenRoute>,
    Has<PlayerWalker>,
    Has<Steered>,
    Option<&'static mut OffPath>,
    Option<&'static mut Placed>,
    Option<&'static StepFrom>,
);

/// One walker of the frame's pass.
#[derive(Clone, Copy)]
struct Body {
    entity: Entity,
    /// [`Body::sweep_key`] of its room and `at`.
    key: u64,
    at: Vec2,
    radius: f32,
    layers: u32,
    /// Who gives way: lower moves; `None`: never pushed (on a given route, or pinned
    /// against a wall this frame).
    rank: Option<u16>,
    push: Vec2,
    /// Pinned against a wall this frame (its `rank` taken away).
    pinned: bool,
    /// For a pinned body, the step across the line to each other pinned body it
    /// overlaps, the two of a pair opposite ways: two side by side in a gap too narrow
    /// for both step past each other.
    sidestep: Vec2,
    moved: bool,
    /// Moved or pinned by the last round's pushes: only pairs with such a body are
    /// pushed differently in the next round.
    moved_last: bool,
    /// Where the frame's move set off in a straight line ([`StepFrom`]: where it
    /// stood before the frame's moves, or the last corner it passed this frame):
    /// however many rounds push it, it ends on a straight clear line from here.
    origin: Vec2,
}

impl Body {
    /// The order the sweep walks bodies in: by room (its [`Body::room_key`]), then
    /// by x (`x` finite).
    fn sweep_key(room: u64, x: f32) -> u64 {
        // The float's bits, made to order as the floats do (`f32::total_cmp`).
        let bits = x.to_bits();
        let x = if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        };
        room << 32 | u64::from(x)
    }

    /// A room as the high half of [`Body::sweep_key`]: no room first (an entity's
    /// index is never `u32::MAX`).
    fn room_part(room: Option<Entity>) -> u64 {
        room.map_or(0, |room| u64::from(room.index_u32()) + 1)
    }

    /// The body's room as [`Body::room_part`] gave it: two bodies meet only within
    /// one.
    fn room_key(&self) -> u64 {
        self.key >> 32
    }
}

/// The pass's buffers, kept from frame to frame.
#[derive(Default)]
pub(crate) struct SeparationWork {
    bodies: Vec<Body>,
    /// The bodies' sweep keys and indices, sorted (cheaper to sort than bodies).
    order: Vec<(u64, u32)>,
    /// Last frame's walkers in sweep order. Walkers move little in a frame, so this
    /// frame's walkers in that order are sorted again in a pass or two, whatever
    /// order the query gives them in (which changes as walkers start and end walks).
    last_order: Vec<Entity>,
    /// For each entity index, the index of its body this frame (`u32::MAX`: none);
    /// every entry is `u32::MAX` between frames.
    body_of: Vec<u32>,
    /// The bodies in sweep order.
    sorted: Vec<Body>,
}

/// Pushes apart every two walkers of a room that overlap after the frame's moves (see
/// the module docs). Runs after [`super::movement::move_walkers`].
pub(crate) fn keep_walkers_apart(
    tuning: Res<WalkTuning>,
    mut walkers: Query<SeparatedWalker>,
    avoiding: Query<(&Walker, &Avoidance)>,
    parents: Parents,
    mut grids: WalkerGrids,
    mut work: Local<SeparationWork>,
    clock: Res<PlanClock>,
) {
    // Nothing to part unless two walkers with a radius avoid each other.
    if !tuning.avoidance
        || avoiding
            .iter()
            .filter(|(walker, avoidance)| avoidance.enabled && walker.radius > 0.0)
            .nth(1)
            .is_none()
    {
        return;
    }
    grids.new_frame();
    let work = &mut *work;
    work.bodies.clear();
    for (
        entity,
        walker,
        avoidance,
        current,
        transform,
        child_of,
        path,
        given,
        player,
        steered,
        _,
        _,
        step_from,
    ) in &walkers
    {
        let radius = walker.radius;
        if !avoidance.enabled || walker.grid_steps || !(radius.is_finite() && radius > 0.0) {
            continue;
        }
        let at = world_position(transform, parent_of(child_of, &parents)).truncate();
        if !at.is_finite() {
            continue;
        }
        let rank = if on_given_route(path, given) {
            None
        } else if steered {
            Some(u16::from(u8::MAX) + 1)
        } else {
            Some(u16::from(avoidance.priority_of(player)))
        };
        work.bodies.push(Body {
            entity,
            key: Body::sweep_key(Body::room_part(current.get()), at.x),
            at,
            radius,
            layers: avoidance.layers,
            rank,
            push: Vec2::ZERO,
            pinned: false,
            sidestep: Vec2::ZERO,
            moved: false,
            moved_last: false,
            // Moved this frame: from where the move set off; else from here.
            origin: step_from
                .and_then(|from| from.this_frame(&clock))
                .unwrap_or(at),
        });
    }
    if work.bodies.len() < 2 {
        return;
    }
    // Sorted by room, then x, once: a push moves a walker less than a radius, so a
    // sweep wide enough for that finds every pair in later rounds too.
    work.order_bodies();
    work.sorted.clear();
    work.sorted
        .extend(work.order.iter().map(|&(_, i)| work.bodies[i as usize]));
    std::mem::swap(&mut work.bodies, &mut work.sorted);
    let widest = work.bodies.iter().map(|b| b.radius).fold(0.0f32, f32::max);
    let mut moved = false;
    for round in 0..ROUNDS {
        if round > 0 {
            // Pushes moved a few by less than a radius: the order is nearly right, and
            // sorted again the sweep stays as narrow as in the first round.
            sort_nearly_sorted(&mut work.bodies);
        }
        let any = if round == 0 {
            push_apart(&mut work.bodies, widest)
        } else {
            push_apart_moved(&mut work.bodies, widest)
        };
        if !any {
            break;
        }
        moved = true;
        for body in &mut work.bodies {
            body.moved_last = false;
            // A pinned body only steps aside.
            let push = if body.pinned {
                body.sidestep
            } else {
                body.push
            };
            if push == Vec2::ZERO {
                continue;
            }
            let Ok((_, walker, ..)) = walkers.get(body.entity) else {
                continue;
            };
            let to = grids.of(walker, body.at).and_then(|grid| {
                let to = grid.slide(body.at, push)?;
                // Only where the move set off from sees (pushed again after a push,
                // or after a step this frame), so the frame's move never cuts a
                // wall's corner.
                (body.origin == body.at || grid.sees(body.origin, to)).then_some(to)
            });
            let wanted = push.length();
            let mut went = 0.0;
            if let Some(to) = to
                && to != body.at
            {
                went = to.distance(body.at);
                body.at = to;
                body.key = Body::sweep_key(body.room_key(), to.x);
                body.moved = true;
                body.moved_last = true;
            }
            // Pinned against a wall (or standing where its grid blocks): for the rest
            // of the frame it holds its place, and whoever pressed it takes the push.
            if went < wanted * PINNED && body.rank.is_some() {
                body.rank = None;
                body.pinned = true;
                body.moved_last = true;
            }
            body.push = Vec2::ZERO;
            body.sidestep = Vec2::ZERO;
        }
    }
    if !moved {
        return;
    }
    for body in work.bodies.iter().filter(|b| b.moved) {
        let Ok((.., mut transform, child_of, _, _, _, _, off_path, placed, _)) =
            walkers.get_mut(body.entity)
        else {
            continue;
        };
        let parent = parent_of(child_of, &parents);
        set_world_xy(&mut transform, parent, body.at);
        // Pushed off its path: it looks for its next corner again (and is planned
        // again if it no longer sees it), and the move is the plugin's, not game code's.
        if let Some(mut off_path) = off_path {
            off_path.0 = true;
        }
        if let Some(mut placed) = placed {
            placed.set_if_neq(Placed(transform.translation.truncate()));
        }
    }
}

/// No body, in [`SeparationWork::body_of`].
const NO_BODY: u32 = u32::MAX;

/// At most this many walkers new since last frame are sorted into last frame's
/// order one by one; more, and the order is sorted afresh.
const FEW_NEW: usize = 16;

impl SeparationWork {
    /// Puts `bodies` in sweep order ([`Body::sweep_key`]), starting from last frame's
    /// order.
    fn order_bodies(&mut self) {
        for (i, body) in self.bodies.iter().enumerate() {
            let index = body.entity.index_u32() as usize;
            if index >= self.body_of.len() {
                self.body_of.resize(index + 1, NO_BODY);
            }
            self.body_of[index] = i as u32;
        }
        // Last frame's walkers that are here still, in last frame's order.
        self.order.clear();
        for entity in &self.last_order {
            let Some(slot) = self.body_of.get_mut(entity.index_u32() as usize) else {
                continue;
            };
            if *slot != NO_BODY && self.bodies[*slot as usize].entity == *entity {
                self.order.push((self.bodies[*slot as usize].key, *slot));
                *slot = NO_BODY;
            }
        }
        // Then the new ones.
        let known = self.order.len();
        for (i, body) in self.bodies.iter().enumerate() {
            let slot = &mut self.body_of[body.entity.index_u32() as usize];
            if *slot != NO_BODY {
                self.order.push((body.key, i as u32));
                *slot = NO_BODY;
            }
        }
        if self.order.len() - known > FEW_NEW {
            self.order.sort_unstable();
        } else {
            insertion_sort(&mut self.order, |&(key, _)| key);
        }
        self.last_order.clear();
        self.last_order.extend(
            self.order
                .iter()
                .map(|&(_, i)| self.bodies[i as usize].entity),
        );
    }
}

/// Adds to each body the push that takes it out of its overlaps (sweeping each room
/// along x, `bodies` sorted by [`Body::sweep_key`]: a pair is looked at while the
/// second lies less than `widest` plus the first's radius to the right). Whether any
/// body is to move.
fn push_apart(bodies: &mut [Body], widest: f32) -> bool {
    let mut any = false;
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            let (a, b) = (&bodies[i], &bodies[j]);
            if b.room_key() != a.room_key() || b.at.x - a.at.x > a.radius + widest {
                break;
            }
            any |= push_pair(bodies, i, j);
        }
    }
    any
}

/// [`push_apart`] after a round of pushes: only pairs with a body that round moved
/// or pinned, the others being as they were.
fn push_apart_moved(bodies: &mut [Body], widest: f32) -> bool {
    let mut any = false;
    for i in 0..bodies.len() {
        if !bodies[i].moved_last {
            continue;
        }
        // To the right, every pair; to the left, those whose other body did not move
        // (its own sweep to the right finds the others).
        for j in i + 1..bodies.len() {
            let (a, b) = (&bodies[i], &bodies[j]);
            if b.room_key() != a.room_key() || b.at.x - a.at.x > a.radius + widest {
                break;
            }
            any |= push_pair(bodies, i, j);
        }
        for j in (0..i).rev() {
            let (a, b) = (&bodies[j], &bodies[i]);
            if b.room_key() != a.room_key() || b.at.x - a.at.x > 2.0 * widest {
                break;
            }
            if !a.moved_last {
                any |= push_pair(bodies, j, i);
            }
        }
    }
    any
}

/// Adds to bodies `i` and `j` (`i` before `j` in the sweep) the push that takes them
/// apart, if they overlap. Whether they do and either may move.
fn push_pair(bodies: &mut [Body], i: usize, j: usize) -> bool {
    let (a, b) = (&bodies[i], &bodies[j]);
    let reach = a.radius + b.radius;
    if (b.at.y - a.at.y).abs() >= reach || a.layers & b.layers == 0 {
        return false;
    }
    let gap = b.at - a.at;
    let distance = gap.length();
    if distance >= reach * (1.0 - TOLERANCE) {
        return false;
    }
    // Share of the push each takes.
    let (share_a, share_b) = match (a.rank, b.rank) {
        (None, None) if a.pinned && b.pinned => return sidestep_pair(bodies, i, j),
        (None, None) => return false,
        (None, Some(_)) => (0.0, 1.0),
        (Some(_), None) => (1.0, 0.0),
        (Some(ra), Some(rb)) if ra > rb => (0.0, 1.0),
        (Some(ra), Some(rb)) if ra < rb => (1.0, 0.0),
        _ => (0.5, 0.5),
    };
    // Two on one point part along the order of their entities.
    let direction = if distance > 1e-4 {
        gap / distance
    } else {
        Vec2::X
    };
    let overlap = reach - distance;
    bodies[i].push -= direction * overlap * share_a;
    bodies[j].push += direction * overlap * share_b;
    true
}

/// Adds to two overlapping bodies pinned against walls (`i` before `j` in the sweep)
/// half a step each across the line between them, opposite ways: pushed along it they
/// press into their walls, so they step past each other. Always true.
fn sidestep_pair(bodies: &mut [Body], i: usize, j: usize) -> bool {
    let gap = bodies[j].at - bodies[i].at;
    let distance = gap.length();
    let across = if distance > 1e-4 {
        (gap / distance).perp()
    } else {
        Vec2::Y
    };
    let step = across * (bodies[i].radius + bodies[j].radius - distance) * 0.5;
    bodies[i].sidestep -= step;
    bodies[j].sidestep += step;
    true
}

/// Sorts `bodies` by [`Body::sweep_key`] when only a few are out of place.
fn sort_nearly_sorted(bodies: &mut [Body]) {
    insertion_sort(bodies, |body| body.key);
}

/// Sorts `items` by `key` with an insertion sort: each item out of place is carried to
/// its place and the rest are passed once, so a nearly sorted slice takes a pass.
fn insertion_sort<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > key(&items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(entity: Entity, x: f32) -> Body {
        Body {
            entity,
            key: Body::sweep_key(0, x),
            at: Vec2::new(x, 0.0),
            radius: 1.0,
            layers: 1,
            rank: Some(0),
            push: Vec2::ZERO,
            pinned: false,
            sidestep: Vec2::ZERO,
            moved: false,
            moved_last: false,
            origin: Vec2::new(x, 0.0),
        }
    }

    /// The bodies' entities in the order `order_bodies` left them.
    fn ordered(work: &mut SeparationWork, bodies: &[(u32, f32)]) -> Vec<u32> {
        work.bodies = bodies
            .iter()
            .map(|&(index, x)| body(Entity::from_raw_u32(index).unwrap(), x))
            .collect();
        work.order_bodies();
        assert!(work.body_of.iter().all(|&slot| slot == NO_BODY));
        work.order
            .iter()
            .map(|&(_, i)| work.bodies[i as usize].entity.index_u32())
            .collect()
    }

    #[test]
    fn bodies_are_ordered_by_x_whatever_order_they_come_in_and_whoever_is_new() {
        let mut work = SeparationWork::default();
        assert_eq!(
            ordered(&mut work, &[(3, 5.0), (1, 1.0), (2, 3.0)]),
            vec![1, 2, 3]
        );
        // Another order, two passing each other, one gone and two new.
        assert_eq!(
            ordered(&mut work, &[(7, 0.5), (3, 2.0), (2, 2.5), (9, 9.0)]),
            vec![7, 3, 2, 9]
        );
        // Many new at once: sorted afresh.
        let many: Vec<(u32, f32)> = (0..40).map(|i| (100 + i, (40 - i) as f32)).collect();
        let order = ordered(&mut work, &many);
        assert_eq!(order, (0..40).rev().map(|i| 100 + i).collect::<Vec<_>>());
    }
}
