//! Each walker's velocity among its neighbours, solved off the main thread.
//!
//! At the end of a frame `gather_crowd` takes the
//! walkers where they stand after moving, and the velocities they will take next
//! frame are solved on Bevy's [`AsyncComputeTaskPool`] (beside the path searches,
//! and below the frame's threads with [`background_searches`](crate::background_searches)),
//! while the rest of the frame and rendering run; [`take_velocities`] collects them
//! at the start of the next frame's movement. A solve still queued or running then
//! (behind a long search) is dropped and the same problem, kept as a copy, is solved
//! in the frame: the frame never waits for the pool, and the answer is the same
//! either way, as it would be solved in the frame (the positions are the same), so
//! it does not depend on timing. A walker that game code moved in between, or that
//! started or ended a walk, walks that one frame as planned.
//!
//! The solve is not on the [`ComputeTaskPool`](bevy::tasks::ComputeTaskPool), the
//! pool that runs the frame's systems: waking its thread at the end of a frame took
//! the core from the frame's own work for as long as the solve ran.
//!
//! On the web, where the pool runs its tasks on the main thread, the velocities are
//! solved at once at the end of the frame.

use std::ops::Range;

use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on};
use walkmask::crowd::{Agent, AvoidanceParams, Avoider, Vector};

use super::avoid::crowd_order_key;
use super::motion::{CrowdMotion, Gathered};
use crate::placement::{Parents, walker_xy};
use crate::tuning::WalkTuning;
use crate::walker::{WalkPath, Walker};

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

    /// Makes this problem a copy of `other`'s (not its answer), keeping the buffers.
    #[cfg(not(target_arch = "wasm32"))]
    fn copy_problem(&mut self, other: &CrowdSolve) {
        self.clear();
        self.agents.extend_from_slice(&other.agents);
        self.wants.extend_from_slice(&other.wants);
        self.keys.extend_from_slice(&other.keys);
        self.rooms.extend(other.rooms.iter().cloned());
        self.params = other.params;
        self.dt = other.dt;
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
/// `gather_crowd`, taken by [`take_velocities`].
#[derive(Resource, Default)]
pub(crate) struct CrowdVelocities {
    #[cfg(not(target_arch = "wasm32"))]
    task: Option<Task<CrowdSolve>>,
    /// A copy of the problem on `task`, solved in the frame if the task is late.
    #[cfg(not(target_arch = "wasm32"))]
    spare: Option<CrowdSolve>,
    /// The last problem, solved or not (its buffers).
    done: Option<CrowdSolve>,
    /// Walkers gathered at the end of the last frame and gone since (despawned, or
    /// their crowd state removed), with their place in the crowd's order: a solve
    /// made from what walkers were gathered as (after a load) counts them, as the
    /// solve under way in the game saved did.
    departed: Vec<(u64, Gathered)>,
}

impl CrowdVelocities {
    /// The buffers for a new problem, emptied (a solve still running is dropped;
    /// walkers gone since the last gather are forgotten).
    pub(super) fn buffers(&mut self) -> CrowdSolve {
        self.departed.clear();
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.task = None;
        }
        let mut solve = self.done.take().unwrap_or_default();
        solve.clear();
        solve
    }

    /// Solves `problem` for the next frame: on a task, or at once on the web.
    pub(super) fn start(&mut self, mut problem: CrowdSolve) {
        if problem.keys.is_empty() {
            self.done = Some(problem);
            return;
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let spare = self.spare.get_or_insert_with(CrowdSolve::default);
            spare.copy_problem(&problem);
            self.task = Some(AsyncComputeTaskPool::get().spawn(async move {
                work_span!("walkmask: crowd velocities");
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

    /// The solved problem: from its task when that has finished, else solved here
    /// from the copy (the same answer) and the task dropped.
    fn finish(&mut self) -> Option<&CrowdSolve> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(task) = self.task.take() {
            if task.is_finished() {
                self.done = Some(block_on(task));
            } else {
                // Dropping the task cancels it; its buffers are made anew.
                trace!("crowd velocities late on the pool: solved in the frame");
                let mut spare = self.spare.take().unwrap_or_default();
                spare.solve();
                self.done = Some(spare);
            }
        }
        self.done.as_ref().filter(|solve| solve.solved)
    }
}

/// A walker that is despawned or stops being a walker: if it was gathered at the end
/// of the last frame, it is kept for a solve made from what walkers were gathered as
/// ([`CrowdVelocities::departed`]), and forgotten by the crowd.
pub(crate) fn note_departed(
    removed: On<Remove, Walker>,
    mut motions: Query<&mut CrowdMotion>,
    crowd: Option<ResMut<CrowdVelocities>>,
) {
    let Ok(mut motion) = motions.get_mut(removed.entity) else {
        return;
    };
    let Some(gathered) = motion.gathered.take() else {
        return;
    };
    if let Some(mut crowd) = crowd {
        crowd.departed.push((motion.order, gathered));
    }
}

impl Gathered {
    /// `agent` and `want` as gathered in a frame of `dt` seconds, in `room`.
    pub(super) fn of(
        room: Option<Entity>,
        agent: &Agent,
        want: &Want,
        on_path: bool,
        dt: f32,
    ) -> Self {
        Self {
            room,
            position: Vec2::new(agent.position.x, agent.position.y),
            velocity: Vec2::new(agent.velocity.x, agent.velocity.y),
            preferred: Vec2::new(want.preferred.x, want.preferred.y),
            radius: agent.radius,
            max_speed: want.max_speed,
            remaining: agent.remaining,
            layers: agent.layers,
            priority: agent.priority,
            standing: agent.standing,
            blocked: agent.blocked,
            walking: want.walking,
            solve: want.solve,
            on_path,
            dt,
        }
    }

    /// The agent, want and key of `entity`, at `order` in the crowd.
    fn parts(&self, entity: Entity, order: u64) -> (Agent, Want, SolveKey) {
        let agent = Agent {
            position: Vector::new(self.position.x, self.position.y),
            velocity: Vector::new(self.velocity.x, self.velocity.y),
            radius: self.radius,
            priority: self.priority,
            standing: self.standing,
            remaining: self.remaining,
            blocked: self.blocked,
            layers: self.layers,
            id: order as u32,
        };
        let want = Want {
            preferred: Vector::new(self.preferred.x, self.preferred.y),
            max_speed: self.max_speed,
            walking: self.walking,
            solve: self.solve,
        };
        let key = SolveKey {
            entity,
            position: self.position,
            on_path: self.on_path,
        };
        (agent, want, key)
    }
}

/// The avoidance parameters `tuning` sets.
pub(super) fn avoidance_params(tuning: &WalkTuning) -> AvoidanceParams {
    AvoidanceParams {
        time_horizon: tuning.avoidance_time_horizon,
        max_neighbours: tuning.avoidance_neighbours,
        ..AvoidanceParams::default()
    }
}

/// A walker as [`take_velocities`] checks it.
type SolvedWalker = (
    Entity,
    &'static mut CrowdMotion,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static WalkPath>,
    Has<Walker>,
);

/// Hands each walker the velocity solved for it (see the module), before walkers move.
///
/// With no solve under way while walkers were gathered (a game loaded back: the
/// saved game's solve went with it), the velocities are solved here from what the
/// walkers were gathered as, as the saved game would have solved them.
pub(crate) fn take_velocities(
    mut crowd: ResMut<CrowdVelocities>,
    mut walkers: Query<SolvedWalker>,
    parents: Parents,
    tuning: Res<WalkTuning>,
    mut gathered: Local<Vec<(u64, Entity, Gathered)>>,
) {
    if crowd.finish().is_none() {
        gathered.clear();
        gathered.extend(walkers.iter().filter_map(|(entity, motion, .., walker)| {
            let saved = motion.gathered.filter(|_| walker)?;
            Some((crowd_order_key(saved.room, motion.order), entity, saved))
        }));
        // Those gone since they were gathered count too (no velocity is handed to
        // them).
        gathered.extend(crowd.departed.drain(..).map(|(order, saved)| {
            (
                crowd_order_key(saved.room, order),
                Entity::PLACEHOLDER,
                saved,
            )
        }));
        if gathered.is_empty() {
            return;
        }
        gathered.sort_unstable_by_key(|(key, ..)| *key);
        let mut problem = crowd.buffers();
        problem.params = avoidance_params(&tuning);
        problem.dt = gathered[0].2.dt;
        let mut start = 0;
        for (i, &(key, entity, saved)) in gathered.iter().enumerate() {
            let (agent, want, solve_key) = saved.parts(entity, key & ((1 << 40) - 1));
            problem.agents.push(agent);
            problem.wants.push(want);
            problem.keys.push(solve_key);
            if i + 1 == gathered.len() || gathered[i + 1].2.room != saved.room {
                problem.rooms.push(start..i + 1);
                start = i + 1;
            }
        }
        problem.solve();
        crowd.done = Some(problem);
    }
    let Some(solve) = crowd.done.as_ref().filter(|solve| solve.solved) else {
        return;
    };
    // Every walker gathered was left with no velocity (`gather_crowd`): only those
    // turned aside are looked up.
    for (key, velocity) in solve.keys.iter().zip(&solve.velocities) {
        let Some(velocity) = *velocity else {
            continue;
        };
        let Ok((_, mut motion, transform, child_of, path, _)) = walkers.get_mut(key.entity) else {
            continue;
        };
        let still = walker_xy(transform, child_of, &parents) == key.position
            && on_path(path) == key.on_path;
        if still {
            motion.bypass_change_detection().avoided = Some(velocity);
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// A ring of walkers all heading for its centre: most are turned aside.
    fn ring(count: usize) -> CrowdSolve {
        let mut solve = CrowdSolve::default();
        for i in 0..count {
            let angle = i as f32 / count as f32 * std::f32::consts::TAU;
            let at = Vec2::from_angle(angle) * 40.0;
            let preferred = -at.normalize() * 50.0;
            solve.agents.push(Agent {
                position: Vector::new(at.x, at.y),
                velocity: Vector::new(preferred.x, preferred.y),
                radius: 6.0,
                priority: 1,
                standing: false,
                remaining: 40.0,
                blocked: false,
                layers: 1,
                id: i as u32,
            });
            solve.wants.push(Want {
                preferred: Vector::new(preferred.x, preferred.y),
                max_speed: 50.0,
                walking: true,
                solve: true,
            });
            solve.keys.push(SolveKey {
                entity: Entity::from_raw_u32(i as u32 + 1).unwrap(),
                position: at,
                on_path: true,
            });
        }
        solve.rooms.push(0..count);
        solve.params = AvoidanceParams::default();
        solve.dt = 1.0 / 60.0;
        solve
    }

    #[test]
    fn a_late_solve_made_in_the_frame_gives_the_same_velocities() {
        let mut pool = ring(24);
        let mut spare = CrowdSolve::default();
        // A spare used before keeps nothing of its last problem.
        spare.copy_problem(&ring(5));
        spare.solve();
        spare.copy_problem(&pool);
        pool.solve();
        spare.solve();
        assert!(pool.velocities.iter().filter(|v| v.is_some()).count() >= 12);
        assert_eq!(pool.velocities, spare.velocities);
    }

    #[test]
    fn the_answer_is_the_same_whether_the_task_ran_or_not() {
        bevy::tasks::AsyncComputeTaskPool::get_or_init(bevy::tasks::TaskPool::new);
        let mut expected = ring(24);
        expected.solve();
        let mut crowd = CrowdVelocities::default();
        let mut problem = crowd.buffers();
        problem.copy_problem(&ring(24));
        crowd.start(problem);
        // Whether the task has run or not, the answer is the same.
        let solved = crowd.finish().expect("solved");
        assert_eq!(solved.velocities, expected.velocities);
        assert!(crowd.task.is_none());
    }
}
