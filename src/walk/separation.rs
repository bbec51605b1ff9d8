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
    Option<Ref<'static, StepFrom>>,
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
    /// The walkers gathered last frame, in the order gathered: while the same walkers
    /// come in the same order, last frame's `order` is nearly right.
    gathered: Vec<Entity>,
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
                .filter(|from| from.is_changed() && from.0.is_finite())
                .map_or(at, |from| from.0),
        });
    }
    if work.bodies.len() < 2 {
        return;
    }
    // Sorted by room, then x, once: a push moves a walker less than a radius, so a
    // sweep wide enough for that finds every pair in later rounds too.
    let same_walkers = work.gathered.len() == work.bodies.len()
        && work
            .gathered
            .iter()
            .zip(&work.bodies)
            .all(|(&entity, body)| entity == body.entity);
    if same_walkers {
        // Walkers move little in a frame: last frame's order, with this frame's keys,
        // is sorted again in a pass or two.
        for (key, i) in &mut work.order {
            *key = work.bodies[*i as usize].key;
        }
        insertion_sort(&mut work.order, |&(key, _)| key);
    } else {
        work.order.clear();
        work.order.extend(
            work.bodies
                .iter()
                .enumerate()
                .map(|(i, body)| (body.key, i as u32)),
        );
        work.order.sort_unstable();
        work.gathered.clear();
        work.gathered
            .extend(work.bodies.iter().map(|body| body.entity));
    }
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
