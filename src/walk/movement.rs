//! Moving walkers along their paths.

use bevy::prelude::*;

use super::end::block_walker;
use super::job::{
    GivenRoute, JobKind, PathJob, PlannedOn, WalkOnHold, on_given_route, queue_replan,
};
use super::replan::Placed;
use super::speed::{SpeedFactors, speed_factor};
use super::stats::count_and_emit;
use super::timing::PlanClock;
use crate::chase::WalkChase;
use crate::crowd::grids::WalkerGrids;
use crate::crowd::motion::{ArrivalSpot, CrowdMotion};
use crate::facing::{Facing, follow_step, turn};
use crate::outcome::{Arrived, Outcome};
use crate::placement::{Parents, parent_of, set_world_xy, world_position};
use crate::steering::Steered;
use crate::walker::{WalkHeading, WalkPath, WalkState, Walker};

/// Where each walker stands, and where the plugin last left it.
type Placements<'w, 's> = Query<'w, 's, (&'static Transform, &'static mut Placed), With<Walker>>;

/// A walker on its way.
type MovingWalker = (
    Entity,
    &'static Walker,
    &'static mut Transform,
    Option<&'static ChildOf>,
    &'static mut WalkPath,
    &'static mut WalkHeading,
    SpeedFactors,
    Option<&'static mut Facing>,
    Has<WalkOnHold>,
    &'static CrowdMotion,
    &'static mut OffPath,
    Option<&'static PathJob>,
    Has<WalkChase>,
    Option<&'static GivenRoute>,
    (&'static mut TurnClock, &'static mut StepFrom),
);

/// Whether a walker was turned off its path (by avoidance) and has not reached a
/// corner of it since: it may not see the path's next corner in a straight line, so
/// it walks there through [`WalkerGrid::slide`], never straight through a wall, until
/// it reaches it (or its walk is planned again).
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub(crate) struct OffPath(pub(super) bool);

/// Where the frame's move of a walker that moved set off in a straight line: where
/// it stood, or the last corner of its path it passed on the way. Written by each
/// system that moves a walker along its way (walking, steering, nudging), and read
/// by [`keep_walkers_apart`](super::separation::keep_walkers_apart) when written
/// this frame: a push then ends only where this point sees, so the frame's move,
/// seen from where the walker stood before it, never cuts a wall's corner.
///
/// Stamped with the plan frame it was written in (not told by change detection: a
/// walker loaded back, whose every component counts as changed in the first frame,
/// has not moved for that).
#[derive(Component, Default, Clone, Copy, Debug)]
pub(crate) struct StepFrom {
    at: Vec2,
    /// The [`PlanClock`] frame it was written in (0: never; frames count from 1).
    frame: u64,
}

impl StepFrom {
    /// Notes that the walker's move this frame set off from `at`.
    pub(crate) fn set(&mut self, at: Vec2, clock: &PlanClock) {
        *self = Self {
            at,
            frame: clock.frame,
        };
    }

    /// Where the walker's move this frame set off from, if it moved (finite).
    pub(crate) fn this_frame(&self, clock: &PlanClock) -> Option<Vec2> {
        (self.frame != 0 && self.frame == clock.frame && self.at.is_finite()).then_some(self.at)
    }
}

/// Seconds a walker turning before it walks ([`Facing::turn_seconds`]) has spent on
/// the direction it turns to next (saved: a walker loaded in mid-turn turns on).
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub(crate) struct TurnClock(f32);

/// Moves every walker with a [`WalkPath`] at its constant speed, corner to corner,
/// carrying leftover distance around corners; ends the walk with [`Arrived`]. A
/// walker that avoidance turns aside ([`CrowdMotion`]) takes the velocity it was
/// given instead, sliding along walls, and is planned again from where it got to when
/// that takes it out of sight of its next corner; one given a free spot beside its
/// destination ends its walk there.
///
/// Then remembers where every walker stands after the plugin moved it (see
/// [`Placed`]), so that a move by game code is told apart next frame.
pub(crate) fn move_walkers(
    mut commands: Commands,
    time: Res<Time>,
    mut walkers: ParamSet<(Query<MovingWalker>, Placements)>,
    parents: Parents,
    mut grids: WalkerGrids,
    clock: Res<PlanClock>,
) {
    let dt = time.delta_secs();
    grids.new_frame();
    for (
        entity,
        walker,
        mut transform,
        child_of,
        mut path,
        mut heading,
        depth,
        mut facing,
        held,
        motion,
        mut off_path,
        job,
        chaser,
        given,
        (mut turn_clock, mut step_from),
    ) in &mut walkers.p0()
    {
        let planning = job.is_some();
        // Planning nothing but this walk again (no newer request waits): giving up
        // on it drops that re-plan too.
        let only_replanning = job.is_none_or(|job| {
            job.kind == JobKind::Replan && job.request == path.request && job.pending.is_none()
        });
        // A walk through given points goes its way: no avoidance, slides, tile waits
        // or re-plans.
        let scripted = on_given_route(Some(&path), given);
        if !scripted && (held || motion.hold) {
            // Moved by game code: it stands until its new path lands; or waits for
            // the tile it steps into.
            heading.set_if_neq(WalkHeading(Vec2::ZERO));
            if motion.blocked {
                commands.queue(move |world: &mut World| block_walker(world, entity));
            }
            continue;
        }
        let parent = parent_of(child_of, &parents);
        let start = world_position(&transform, parent).truncate();
        if let Some(spot) = motion
            .spot
            .filter(|spot| spot.request == path.request && !scripted)
        {
            take_spot(&mut path, spot, start, |a, b| {
                grids.of(walker, start).is_some_and(|grid| grid.sees(a, b))
            });
        }
        let mut pos = start;
        let next_before = path.next;
        let factor = speed_factor(depth);
        // The speed towards the next corner (the same every way unless the walker
        // has a vertical speed).
        let toward_next = path
            .waypoints
            .get(path.next)
            .map_or(Vec2::ZERO, |&goal| goal - start);
        let speed = walker.speed_towards(toward_next) * factor;
        let mut direction = heading.0;
        // Back on its way once it sees its next corner: it walks straight there.
        if off_path.0
            && motion.avoided.is_none()
            && path.waypoints.get(path.next).is_none_or(|&goal| {
                grids
                    .of(walker, start)
                    .is_some_and(|grid| grid.sees(start, goal))
            })
        {
            off_path.0 = false;
        }
        // Off the path: the velocity avoidance gave, or toward the next corner, through
        // the grid.
        let wanted = motion.avoided.filter(|_| !scripted).or_else(|| {
            let goal = *path.waypoints.get(path.next)?;
            let to = goal - start;
            let distance = to.length();
            (off_path.0 && !scripted)
                .then(|| to.normalize_or_zero() * speed.min(distance / dt.max(1e-6)))
        });
        if motion.replan == Some(path.request) && !planning && !scripted {
            debug!("walker {entity}: blocked, re-planning");
            queue_replan(&mut commands, entity, &path, chaser);
        }
        if motion.gave_up == Some(path.request) && only_replanning && !scripted {
            debug!("walker {entity}: still blocked after re-planning, stopping");
            heading.set_if_neq(WalkHeading(Vec2::ZERO));
            let request = path.request;
            commands.queue(move |world: &mut World| {
                if world.get::<WalkPath>(entity).map(|p| p.request) == Some(request) {
                    block_walker(world, entity);
                }
            });
            continue;
        }
        // Standing, it turns in place to face its first step before it sets off.
        if heading.0 == Vec2::ZERO
            && !off_path.0
            && motion.avoided.is_none()
            && let Some(facing) = facing.as_mut()
            && let Some(goal) = path.waypoints[path.next.min(path.waypoints.len())..]
                .iter()
                .find(|&&corner| corner != start)
            && let Some(aim) = facing.turn_before(*goal - start)
        {
            turn_clock.0 += dt;
            // (A hair early rather than a frame late for the sums' rounding.)
            if turn_clock.0 + 1e-5 >= facing.turn_seconds {
                turn_clock.0 -= facing.turn_seconds;
                facing.step_towards(aim);
            }
            if facing.direction != aim {
                continue;
            }
        }
        if turn_clock.0 != 0.0 {
            turn_clock.0 = 0.0;
        }
        // Standing on a pixel its grid blocks (its room moved under it, a gate shut
        // on it), it cannot slide: it walks its path as planned, whose first corner
        // is where a walk from here steps off to.
        let slid = match wanted {
            Some(velocity) => match grids.of(walker, start) {
                None => {
                    // No grid yet: it waits rather than walk blind.
                    heading.set_if_neq(WalkHeading(Vec2::ZERO));
                    continue;
                }
                Some(grid) => grid
                    .slide(start, velocity * dt)
                    .map(|to| (velocity, to, grid)),
            },
            None => None,
        };
        if slid.is_none() {
            off_path.0 = false;
        }
        if let Some((velocity, to, grid)) = slid {
            pos = to;
            if to != start {
                direction = (to - start).normalize_or(direction);
            }
            // The corners reached, each exactly: back on the path.
            let reach = (speed * dt).max(grid.pixel() * 0.5);
            let mut on_path = false;
            while let Some(&goal) = path.waypoints.get(path.next) {
                if pos.distance(goal) > reach || !grid.sees(pos, goal) {
                    break;
                }
                pos = goal;
                on_path = true;
                path.next += 1;
            }
            off_path.0 = motion.avoided.is_some() || !on_path;
            // It looks for its corner again only when a wall turned or stopped its
            // step: a wall that comes between a walker and its corner turns its next
            // step toward it, and until then its steps are legal all the same.
            let step = velocity * dt;
            let walled = (to - start).distance(step) > 0.1 * step.length() + 1e-4;
            if let Some(&goal) = path.waypoints.get(path.next)
                && walled
                && !planning
                && !grid.sees(pos, goal)
            {
                debug!("walker {entity}: turned out of sight of its way, re-planning");
                queue_replan(&mut commands, entity, &path, chaser);
            }
        } else if walker.vertical_speed.is_some() {
            follow_path_timed(&mut path, &mut pos, &mut direction, dt, |to| {
                walker.speed_towards(to) * factor
            });
        } else {
            follow_path(&mut path, &mut pos, &mut direction, speed * dt);
        }
        if pos != start {
            set_world_xy(&mut transform, parent, pos);
            // (The last corner passed; a skipped corrupt waypoint is passed too.)
            let from = path.waypoints[next_before..path.next]
                .iter()
                .rev()
                .find(|corner| corner.is_finite())
                .copied()
                .unwrap_or(start);
            step_from.set(from, &clock);
            if let Some(mut facing) = facing {
                follow_step(&mut facing, direction);
            }
        }
        if path.next >= path.waypoints.len() {
            if heading.0 != Vec2::ZERO {
                heading.0 = Vec2::ZERO;
            }
            commands.queue(move |world: &mut World| finish_walk(world, entity, pos));
        } else if heading.0 != direction {
            heading.0 = direction;
        }
    }
    for (transform, mut placed) in &mut walkers.p1() {
        placed.set_if_neq(Placed(transform.translation.truncate()));
    }
}

/// Walks `budget` world units along `path` from `pos`, corner to corner, carrying
/// what is left round corners; `direction` is the last direction walked.
fn follow_path(path: &mut WalkPath, pos: &mut Vec2, direction: &mut Vec2, mut budget: f32) {
    while let Some(&goal) = path.waypoints.get(path.next) {
        let to = goal - *pos;
        let distance = to.length();
        if !distance.is_finite() {
            // A corrupt waypoint: skip it rather than teleport.
            path.next += 1;
            continue;
        }
        if distance <= budget {
            if distance > 0.0 {
                *direction = to / distance;
            }
            *pos = goal;
            budget -= distance;
            path.next += 1;
        } else {
            *direction = to / distance;
            *pos += *direction * budget;
            break;
        }
    }
}

/// [`follow_path`] for a walker whose speed depends on the way it walks: walks
/// `seconds` along `path` from `pos`, each leg at `speed` (world units per second)
/// towards it.
fn follow_path_timed(
    path: &mut WalkPath,
    pos: &mut Vec2,
    direction: &mut Vec2,
    mut seconds: f32,
    speed: impl Fn(Vec2) -> f32,
) {
    while let Some(&goal) = path.waypoints.get(path.next) {
        let to = goal - *pos;
        let distance = to.length();
        if !distance.is_finite() {
            path.next += 1;
            continue;
        }
        if distance == 0.0 {
            path.next += 1;
            continue;
        }
        let along = to / distance;
        let speed = speed(to);
        let reach = speed * seconds;
        // A walker that cannot walk this way (a speed of 0, or not a number).
        if reach.is_nan() || reach <= 0.0 {
            break;
        }
        *direction = along;
        if distance <= reach {
            *pos = goal;
            seconds -= distance / speed;
            path.next += 1;
        } else {
            *pos += along * reach;
            break;
        }
    }
}

/// Makes `spot` the end of `path` (claimed for its end, which the walker at
/// `position` has not reached): in place of the end when `sees` says the spot is seen
/// from where the last leg starts, else after the end (the spot is always seen from
/// the end); or at once, the rest of the walk dropped, when the walker is to stand
/// where it is.
fn take_spot(
    path: &mut WalkPath,
    spot: ArrivalSpot,
    position: Vec2,
    sees: impl FnOnce(Vec2, Vec2) -> bool,
) {
    let len = path.waypoints.len();
    let Some(&last) = path.waypoints.last() else {
        return;
    };
    if last == spot.at || last != spot.end || path.next >= len {
        return; // taken already, or claimed for another end
    }
    if spot.here {
        path.waypoints.truncate(path.next);
        path.next = path.waypoints.len();
        path.waypoints.push(spot.at);
        return;
    }
    let leg_start = if path.next + 1 < len {
        path.waypoints[len - 2]
    } else {
        position
    };
    if sees(leg_start, spot.at) {
        path.waypoints[len - 1] = spot.at;
    } else {
        path.waypoints.push(spot.at);
    }
}

/// A standing walker that avoidance moves out of someone's way.
type NudgedWalker = (
    Entity,
    Ref<'static, Walker>,
    Mut<'static, Transform>,
    Option<&'static ChildOf>,
    &'static CrowdMotion,
    &'static mut StepFrom,
);

/// Moves standing walkers (no path, not steered) that avoidance nudges aside, sliding
/// along walls, and those that stand where their grid blocks (a region that began to
/// block under them, a wall they are too wide to stand beside) off it, at their
/// speed, straight to where a walk from there would start
/// ([`WalkerGrid::step_off`](crate::crowd::grids::WalkerGrid::step_off)); their
/// state, heading and facing stay.
pub(crate) fn nudge_standing_walkers(
    (time, clock): (Res<Time>, Res<PlanClock>),
    mut walkers: Query<NudgedWalker, (Without<WalkPath>, Without<Steered>)>,
    rooms: Query<Ref<crate::room::WalkRoom>>,
    masks: Res<Assets<crate::asset::WalkMask>>,
    parents: Parents,
    mut grids: WalkerGrids,
    mut stepping: Local<bevy::ecs::entity::EntityHashSet>,
) {
    let dt = time.delta_secs();
    grids.new_frame();
    // Where a standing walker may stand is looked at again only when it, its room or
    // its mask changed, or while it steps off or waits for its grid.
    let rooms_changed = masks.is_changed() || rooms.iter().any(|room| room.is_changed());
    stepping.retain(|&entity| walkers.contains(entity));
    for (entity, walker, mut transform, child_of, motion, mut step_from) in &mut walkers {
        let look = motion.avoided.is_some()
            || rooms_changed
            || walker.is_changed()
            || transform.is_changed()
            || stepping.contains(&entity);
        if !look {
            continue;
        }
        let parent = parent_of(child_of, &parents);
        let start = world_position(&transform, parent).truncate();
        let Some(grid) = grids.of(&walker, start) else {
            // Its grid is still being built: it is looked at again next frame.
            stepping.insert(entity);
            continue;
        };
        let to = if let Some(velocity) = motion.avoided {
            grid.slide(start, velocity * dt)
        } else {
            None
        };
        let to = to.or_else(|| {
            let off = grid.step_off(start);
            if off.is_some() {
                stepping.insert(entity);
            } else {
                stepping.remove(&entity);
            }
            let off = off?;
            let speed = if walker.speed.is_finite() {
                walker.speed.max(0.0)
            } else {
                0.0
            };
            Some(start.move_towards(off, speed * dt))
        });
        if let Some(to) = to
            && to != start
        {
            set_world_xy(&mut transform, parent, to);
            step_from.set(start, &clock);
        }
    }
}

/// Ends a walk that reached its last waypoint.
fn finish_walk(world: &mut World, walker: Entity, position: Vec2) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    let finished = entity
        .get::<WalkPath>()
        .is_some_and(|path| path.next >= path.waypoints.len());
    if !finished {
        return;
    }
    let Some(path) = entity.take::<WalkPath>() else {
        return;
    };
    entity.remove::<(PlannedOn, WalkOnHold)>();
    if let Some(face) = path.face {
        turn(&mut entity, face, position);
    }
    // A request still being planned keeps the walker in `Planning`; a re-plan of the
    // walk that just ended has nothing left to do.
    let state = match entity.get::<PathJob>() {
        Some(job) if job.request != path.request => WalkState::Planning,
        Some(_) => match entity.take::<PathJob>().and_then(|job| job.pending_job()) {
            // A request waited for the re-plan of the walk that just ended.
            Some(next) => {
                entity.insert(next);
                WalkState::Planning
            }
            None => WalkState::Arrived,
        },
        None => WalkState::Arrived,
    };
    entity.insert(state);
    count_and_emit(
        world,
        Outcome::Arrived(Arrived {
            entity: walker,
            request: path.request,
            position,
        }),
    );
}

/// Reports a detour that the crowd put into `walker`'s walk of `request` (a tile
/// walker backing off into a refuge and back): [`PathReplanned`](crate::PathReplanned)
/// with the rest of the walk, as for any new path of a walk under way.
pub(crate) fn report_detour(world: &mut World, walker: Entity, request: crate::RequestId) {
    let Some(position) = crate::placement::entity_world_xy(world, walker) else {
        return;
    };
    let Some(path) = world
        .get::<WalkPath>(walker)
        .filter(|path| path.request == request)
    else {
        return;
    };
    let rest = path.waypoints.get(path.next..).unwrap_or(&[]);
    let waypoints = std::iter::once(position)
        .chain(rest.iter().copied())
        .collect();
    let event = crate::PathReplanned {
        entity: walker,
        request,
        target: path.target,
        snapped: path.waypoints.last() != Some(&path.target),
        waypoints,
    };
    count_and_emit(world, Outcome::Replanned(event));
}
