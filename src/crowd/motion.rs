//! What the crowd keeps for each walker from frame to frame, and what it proposes to
//! the walk lifecycle: a velocity to take instead of the path's, a free spot to end
//! on, a re-plan, or a tile step to wait for.

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::prelude::*;

use crate::request::RequestId;

/// What avoidance proposes to the walk lifecycle for one walker, and what it keeps
/// from frame to frame.
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub(crate) struct CrowdMotion {
    /// Where the walker stood at the last avoidance step (world), to measure how fast
    /// it really moved.
    pub(super) last: Option<Vec2>,
    /// The velocity (world units per second) to take this frame instead of following
    /// the path (walking) or standing still; `None`: no neighbour is in the way.
    pub(crate) avoided: Option<Vec2>,
    /// A free spot claimed for the end of the walk that answers its request.
    pub(crate) spot: Option<ArrivalSpot>,
    /// The shortest walk left to the end of that walk so far (world units), and for
    /// which request.
    pub(super) best_remaining: Option<(RequestId, f32)>,
    /// The walk left at the last avoidance step, and for which request: a change by
    /// more than the walker moved is a new path (see [`CrowdMotion::measure_progress`]).
    pub(super) last_remaining: Option<(RequestId, f32)>,
    /// The corners after the start of the path whose progress is measured: a path
    /// planned again that goes on through the same corners is the same way (see
    /// [`CrowdMotion::measure_progress`]).
    pub(super) way: Vec<Vec2>,
    /// Seconds since the walk left last got shorter.
    pub(super) stalled: f32,
    /// Blocked for [`REPLAN_STALLED_SECONDS`] on the walk that answers this request:
    /// plan it again from where it is.
    pub(crate) replan: Option<RequestId>,
    /// Re-plans of the walk that answers this request that led no nearer its end.
    pub(super) stalled_replans: Option<(RequestId, u8)>,
    /// Still blocked after [`STALLED_REPLANS`] such re-plans: the walk that answers
    /// this request ends [`Blocked`](crate::StopReason::Blocked) where it is.
    pub(crate) gave_up: Option<RequestId>,
    /// A tile-step walker waits this frame: the tile it steps into is taken.
    pub(crate) hold: bool,
    /// A tile-step walker waited `TILE_WAIT_SECONDS` for its next tile: its walk ends
    /// blocked.
    pub(crate) blocked: bool,
    /// The tile (mask pixel) a tile-step walker reserved to step into.
    pub(super) tile: Option<(u32, u32)>,
    /// Seconds a tile-step walker has waited for its next tile.
    pub(super) waited: f32,
    /// Where a tile-step walker backed off to, to let another pass.
    #[entities]
    pub(super) refuge: Option<Refuge>,
    /// Its place in the crowd's order, the order walkers joined the crowd in (0: not
    /// placed yet). Walkers are solved in this order, the same in a game saved and
    /// loaded back, where their entities are others.
    pub(super) order: u64,
    /// The walker as the crowd gathered it at the end of the last frame (its part
    /// of the velocities being solved for the next): loaded back, the first frame's
    /// velocities are solved from it.
    #[entities]
    pub(super) gathered: Option<Gathered>,
}

/// A walker as the crowd gathered it (see [`CrowdMotion::gathered`]).
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub(crate) struct Gathered {
    /// Its room (walkers avoid each other only within one).
    pub(super) room: Option<Entity>,
    pub(super) position: Vec2,
    /// Its velocity as measured, and the one its walk asks for.
    pub(super) velocity: Vec2,
    pub(super) preferred: Vec2,
    pub(super) radius: f32,
    pub(super) max_speed: f32,
    pub(super) remaining: f32,
    pub(super) layers: u32,
    pub(super) priority: u8,
    pub(super) standing: bool,
    pub(super) blocked: bool,
    pub(super) walking: bool,
    pub(super) solve: bool,
    pub(super) on_path: bool,
    /// The frame's time step.
    pub(super) dt: f32,
}

impl MapEntities for Gathered {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.room = self.room.map(|room| mapper.get_mapped(room));
    }
}

impl CrowdMotion {
    /// Starts a frame's proposals for a walker whose walk answers `walk` (`None`:
    /// it has none). A re-plan is proposed for one frame; a give-up stands until the
    /// walk it gives up on ends. The walk lifecycle skips a walker held that frame (a
    /// plan that could not be joined to where it got to, planned again from there): a
    /// give-up dropped then would let it walk on, be held back and planned again for
    /// ever.
    pub(super) fn start_step(&mut self, walk: Option<RequestId>) {
        self.replan = None;
        self.gave_up = self.gave_up.filter(|&request| walk == Some(request));
    }

    /// Measures the progress of the walk that answers `request`, with `remaining`
    /// world units left after the walker `moved` this far since the last step (`dt`
    /// seconds ago), on a path whose corners after its start are `corners`: stalled
    /// for [`REPLAN_STALLED_SECONDS`] it asks for a re-plan ([`CrowdMotion::replan`]),
    /// and stalled that long again after [`STALLED_REPLANS`] re-plans it gives up
    /// ([`CrowdMotion::gave_up`]).
    ///
    /// Progress is the walk left getting shorter by a quarter of the walker's `radius`
    /// than it ever was on the way it walks. A new path (a re-plan landed: the walk
    /// left changed by more than the walker moved) is never progress itself: one that
    /// goes another way (other corners) starts the measure again from it; one that
    /// goes on through the same corners, planned again from a little further back or
    /// ahead, keeps the best so far. Either way the stall goes on. So a walker pushed
    /// back each time it nears a corner, and planned again onto a path a little
    /// shorter or longer each time, still gives up, however far it gets along each
    /// new path before it is pushed back.
    pub(super) fn measure_progress(
        &mut self,
        request: RequestId,
        remaining: f32,
        corners: &[Vec2],
        moved: f32,
        radius: f32,
        dt: f32,
    ) {
        let new_path = self.last_remaining.is_some_and(|(last_request, last)| {
            last_request == request && (remaining - last).abs() > moved + 0.05 * radius + 0.01
        });
        self.last_remaining = Some((request, remaining));
        match self.best_remaining {
            Some((best_request, best)) if best_request == request && new_path => {
                if goes_on_through(&self.way, corners) {
                    self.best_remaining = Some((request, best.min(remaining)));
                } else {
                    self.best_remaining = Some((request, remaining));
                    self.way.clear();
                    self.way.extend_from_slice(corners);
                }
                self.stalled += dt;
            }
            Some((best_request, best))
                if best_request == request && remaining > best - 0.25 * radius =>
            {
                self.stalled += dt;
            }
            best => {
                // Got nearer on the same walk: the re-plans it took were no dead end.
                if best.is_some_and(|(best_request, _)| best_request == request)
                    || self.stalled_replans.is_some_and(|(r, _)| r != request)
                {
                    self.stalled_replans = None;
                }
                if best.is_none_or(|(best_request, _)| best_request != request) {
                    self.way.clear();
                    self.way.extend_from_slice(corners);
                }
                self.best_remaining = Some((request, remaining));
                self.stalled = 0.0;
            }
        }
        if self.stalled >= REPLAN_STALLED_SECONDS {
            let replans = match self.stalled_replans {
                Some((stalled_request, n)) if stalled_request == request => n,
                _ => 0,
            };
            if replans < STALLED_REPLANS {
                self.replan = Some(request);
                self.stalled_replans = Some((request, replans + 1));
            } else {
                self.gave_up = Some(request);
            }
            // The re-plan asked for starts the measure again only if it goes
            // another way.
            self.stalled = 0.0;
        }
    }
}

/// Whether a path whose corners after its start are `corners` goes on through the
/// corners `way` ends with (the same way, planned again from further along it).
fn goes_on_through(way: &[Vec2], corners: &[Vec2]) -> bool {
    corners.len() <= way.len()
        && way[way.len() - corners.len()..]
            .iter()
            .zip(corners)
            .all(|(a, b)| a.distance_squared(*b) < 1e-6)
}

/// A walker whose walk got no shorter for this long no longer gives way to those it
/// leads ([`walkmask::crowd::Agent::blocked`]).
pub(super) const BLOCKED_SECONDS: f32 = 0.5;
/// A walker whose walk got no shorter for this long beside its claimed spot stands
/// where it is (a crowd's outer edge).
pub(super) const STAND_STALLED_SECONDS: f32 = 1.0;
/// A walker whose walk got no shorter for this long is planned again from where it
/// is (another way may be open).
pub(super) const REPLAN_STALLED_SECONDS: f32 = 3.0;
/// A walker blocked for [`REPLAN_STALLED_SECONDS`] again after this many re-plans
/// that led it no nearer gives up: its walk ends blocked, rather than wait for ever.
pub(super) const STALLED_REPLANS: u8 = 1;

/// Where a walker stands at the end of its walk instead of the end itself.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub(crate) struct ArrivalSpot {
    /// The request whose walk it ends.
    pub(crate) request: RequestId,
    /// The end of the walk it was claimed for (world): a walk planned again to
    /// another end drops it.
    pub(crate) end: Vec2,
    /// The spot (world).
    pub(crate) at: Vec2,
    /// The walker stands where it is: the walk ends here.
    pub(crate) here: bool,
}

/// Where a tile-step walker backed off to, to let another pass in a corridor one
/// tile wide: it waits there until the other's way no longer crosses the tiles it
/// backed off along.
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub(crate) struct Refuge {
    /// The walk it backed off in.
    pub(super) request: RequestId,
    /// The refuge (world centre of its tile).
    pub(super) at: Vec2,
    /// The walker it makes way for.
    pub(super) passing: Entity,
    /// The tiles it backed off along, from where it met the other to the refuge.
    pub(super) route: Route,
    /// Seconds waited there.
    pub(super) waited: f32,
}

impl MapEntities for Refuge {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.passing = mapper.get_mapped(self.passing);
    }
}

/// Tiles (mask pixels) walked one after the other.
pub(super) type Route = Vec<(u32, u32)>;

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f32 = 1.0 / 60.0;

    /// The corners of a path after its start.
    const WAY: [Vec2; 2] = [Vec2::new(10.0, 0.0), Vec2::new(10.0, 20.0)];

    /// Steps `motion` for `seconds` standing still with `remaining` left, and says
    /// whether it gave up.
    fn stand(motion: &mut CrowdMotion, request: RequestId, remaining: f32, seconds: f32) -> bool {
        for _ in 0..(seconds / DT).round() as u32 {
            motion.start_step(Some(request));
            motion.measure_progress(request, remaining, &WAY, 0.0, 2.0, DT);
            if motion.gave_up == Some(request) {
                return true;
            }
        }
        false
    }

    #[test]
    fn a_walker_replanned_onto_a_shorter_path_it_cannot_walk_still_gives_up() {
        // Pushed back each time it nears a corner, the walker is planned again from
        // where it stands, onto one path a little shorter than the last and then onto
        // the longer one again: the shorter path is not progress.
        let request = RequestId::new();
        let mut motion = CrowdMotion::default();
        let mut gave_up = false;
        for _ in 0..20 {
            gave_up |= stand(&mut motion, request, 31.28, 1.0);
            gave_up |= stand(&mut motion, request, 30.59, 0.05);
            if gave_up {
                break;
            }
        }
        assert!(gave_up, "{motion:?}");
    }

    #[test]
    fn a_walker_that_walks_its_new_path_is_not_stalled() {
        let request = RequestId::new();
        let mut motion = CrowdMotion::default();
        let mut remaining = 40.0;
        for frame in 0..2000 {
            // A re-plan lands every 100 frames onto a path 3 units longer.
            let moved = if frame % 100 == 99 {
                remaining += 3.0;
                0.0
            } else {
                remaining -= 0.01;
                0.01
            };
            // Each another way round (an obstacle that moved, a gate shut).
            let way = [
                Vec2::new(10.0, ((frame + 1) / 100) as f32),
                Vec2::new(10.0, 20.0),
            ];
            motion.measure_progress(request, remaining, &way, moved, 2.0, DT);
            assert_eq!(motion.gave_up, None, "frame {frame}");
            assert_eq!(motion.replan, None, "frame {frame}");
        }
    }

    #[test]
    fn a_walker_pushed_back_and_replanned_onto_the_same_way_gives_up() {
        // Each time, it walks a unit along its new path (half a radius: progress on
        // that path), is pushed back a unit, and is planned again from there onto
        // the same corners.
        let request = RequestId::new();
        let mut motion = CrowdMotion::default();
        let mut seconds = 0.0;
        while motion.gave_up.is_none() && seconds < 60.0 {
            let mut remaining = 31.0;
            for _ in 0..30 {
                motion.start_step(Some(request));
                motion.measure_progress(request, remaining, &WAY, 0.0, 2.0, DT);
                remaining -= 1.0 / 30.0;
                seconds += DT;
            }
            motion.measure_progress(request, 31.0 + 0.5, &WAY[1..], 0.0, 2.0, DT);
            seconds += DT;
        }
        assert_eq!(
            motion.gave_up,
            Some(request),
            "after {seconds} s: {motion:?}"
        );
        assert!(
            seconds < 2.0 * REPLAN_STALLED_SECONDS + 1.0,
            "after {seconds} s"
        );
    }

    #[test]
    fn a_give_up_stands_through_a_held_frame_until_its_walk_ends() {
        let request = RequestId::new();
        let mut motion = CrowdMotion::default();
        assert!(stand(&mut motion, request, 30.0, 10.0), "{motion:?}");
        // Held the frame after (its progress not measured), it still gives up.
        motion.start_step(Some(request));
        assert_eq!(motion.gave_up, Some(request));
        assert_eq!(motion.replan, None);
        // Another walk, or none, is not given up on.
        motion.start_step(Some(RequestId::new()));
        assert_eq!(motion.gave_up, None);
        assert!(stand(&mut motion, request, 30.0, 10.0));
        motion.start_step(None);
        assert_eq!(motion.gave_up, None);
    }
}
