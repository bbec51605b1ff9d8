//! Each walker's velocity among its neighbours, solved off the main thread.
//!
//! At the end of a frame [`gather_crowd`](super::avoid::gather_crowd) takes the
//! walkers where they stand after moving, and the velocities they will take next
//! frame are solved on Bevy's [`ComputeTaskPool`] while the rest of the frame (and
//! rendering) runs; [`take_velocities`] collects them at the start of the next
//! frame's movement, waiting for the task only if it has not finished. The answer is
//! the same as solving it in the frame (the positions are the same), so it does not
//! depend on timing; a walker that game code moved in between, or that started or
//! ended a walk, walks that one frame as planned.
//!
//! On the web, where the pool runs its tasks on the main thread, the velocities are
//! solved at once at the end of the frame.

use std::ops::Range;

use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use bevy::tasks::{ComputeTaskPool, Task, block_on};
use walkmask::crowd::{Agent, AvoidanceParams, Avoider, Vector};

use super::avoid::CrowdMotion;
use crate::placement::{Parents, walker_xy};
use crate::walker::WalkPath;

/// A walking walker is turned aside when the velocity avoidance gives it differs from
/// the one it wants by more than this share of its speed; less is walked as planned.
const DEFLECTED: f32 = 0.05;

/// What one walker wants, beside its [`Agent`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Want {
    /// The velocity its walk asks for (world units per second).
    pub(super) preferred: Vector,
    /// Its speed.
    pub(super) max_speed: f32,
    /// Walking its path (else standing or steered).
    pub(super) walking: bool,
    /// Solved (steered walkers are not: they go where they are pushed).
    pub(super) solve: bool,
}

/// What a velocity was solved for: the walker, where it stood and whether it was
/// walking a path. It is taken only if both still hold (a walk that changed to
/// another way keeps it for the one frame: it still keeps clear of the neighbours).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SolveKey {
    pub(super) entity: Entity,
    pub(super) position: Vec2,
    pub(super) on_path: bool,
}

/// One frame's avoidance problem, and its answer once solved: moved into the task and
/// back, so that its buffers are reused frame after frame.
#[derive(Default)]
pub(crate) struct CrowdSolve {
    /// The walkers, room by room.
    pub(super) agents: Vec<Agent>,
    pub(super) wants: Vec<Want>,
    pub(super) keys: Vec<SolveKey>,
    /// The walkers of each room, as ranges of `agents`.
    pub(super) rooms: Vec<Range<usize>>,
    pub(super) params: AvoidanceParams,
    /// The frame's time step, taken as the next one's.
    pub(super) dt: f32,
    avoider: Avoider,
    /// The velocity each walker takes instead of its walk's, when turned aside.
    velocities: Vec<Option<Vec2>>,
    solved: bool,
}

impl CrowdSolve {
    /// Empties the problem, keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.agents.clear();
        self.wants.clear();
        self.keys.clear();
        self.rooms.clear();
        self.velocities.clear();
        self.solved = false;
    }

    /// Solves every walker's velocity among the others of its room.
    fn solve(&mut self) {
        self.velocities.clear();
        self.velocities.resize(self.agents.len(), None);
        for range in &self.rooms {
            let agents = &self.agents[range.clone()];
            let mut params = self.params;
            params.max_radius = agents.iter().map(|a| a.radius).fold(0.0, f32::max);
            // Cells about two footprints across: neighbours are looked for ring by ring.
            self.avoider
                .prepare(agents, (4.0 * params.max_radius).max(1.0));
            for (i, want) in self.wants[range.clone()].iter().enumerate() {
                if !want.solve {
                    continue;
                }
                // A standing walker steps aside at half its speed, and minds only those
                // close enough to touch it soon.
                let avoided = if want.walking {
                    self.avoider.velocity(
                        agents,
                        i,
                        want.preferred,
                        want.max_speed,
                        self.dt,
                        &params,
                    )
                } else {
                    let near = AvoidanceParams {
                        max_range: 2.0 * (agents[i].radius + params.max_radius),
                        ..params
                    };
                    self.avoider.velocity(
                        agents,
                        i,
                        want.preferred,
                        0.5 * want.max_speed,
                        self.dt,
                        &near,
                    )
                };
                if avoided.neighbours == 0 {
                    continue;
                }
                let v = Vec2::new(avoided.velocity.x, avoided.velocity.y);
                let preferred = Vec2::new(want.preferred.x, want.preferred.y);
                let moved = if want.walking {
                    v.distance(preferred) > DEFLECTED * want.max_speed.max(1e-3)
                } else {
                    v.length() > 0.05 * want.max_speed
                };
                if moved {
                    self.velocities[range.start + i] = Some(v);
                }
            }
        }
        self.solved = true;
    }
}

/// The avoidance solve between two frames: started by
/// [`gather_crowd`](super::avoid::gather_crowd), taken by [`take_velocities`].
#[derive(Resource, Default)]
pub(crate) struct CrowdVelocities {
    #[cfg(not(target_arch = "wasm32"))]
    task: Option<Task<CrowdSolve>>,
    /// The last problem, solved or not (its buffers).
    done: Option<CrowdSolve>,
}

impl CrowdVelocities {
    /// The buffers for a new problem, emptied (a solve still running is dropped).
    pub(super) fn buffers(&mut self) -> CrowdSolve {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.task = None;
        }
        let mut solve = self.done.take().unwrap_or_default();
        solve.clear();
        solve
    }

    /// Solves `problem` for the next frame: on the compute pool, or at once on the web.
    pub(super) fn start(&mut self, mut problem: CrowdSolve) {
        if problem.keys.is_empty() {
            self.done = Some(problem);
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.task = Some(ComputeTaskPool::get().spawn(async move {
                problem.solve();
                problem
            }));
        }
        #[cfg(target_arch = "wasm32")]
        {
            problem.solve();
            self.done = Some(problem);
        }
    }

    /// The solved problem, waiting for its task if it has not finished.
    fn finish(&mut self) -> Option<&CrowdSolve> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(task) = self.task.take() {
            self.done = Some(block_on(task));
        }
        self.done.as_ref().filter(|solve| solve.solved)
    }
}

/// A walker as [`take_velocities`] checks it.
type SolvedWalker = (
    &'static mut CrowdMotion,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
);

/// Hands each walker the velocity solved for it (see the module), before walkers move.
pub(crate) fn take_velocities(
    mut crowd: ResMut<CrowdVelocities>,
    mut walkers: Query<SolvedWalker>,
    parents: Parents,
) {
    let Some(solve) = crowd.finish() else {
        return;
    };
    for (key, velocity) in solve.keys.iter().zip(&solve.velocities) {
        let Ok((mut motion, transform, child_of, path)) = walkers.get_mut(key.entity) else {
            continue;
        };
        let still = walker_xy(transform, child_of, &parents) == key.position
            && on_path(path) == key.on_path;
        let avoided = velocity.filter(|_| still);
        if motion.avoided != avoided {
            motion.bypass_change_detection().avoided = avoided;
        }
    }
    if let Some(solve) = crowd.done.as_mut() {
        solve.solved = false;
    }
}

/// Whether a walker has a path with a corner left to walk to.
pub(super) fn on_path(path: Option<&WalkPath>) -> bool {
    path.is_some_and(|path| path.next < path.waypoints.len())
}
