//! One frame of local avoidance for a set of agents.

use super::neighbours::NeighbourGrid;
use super::orca::{Body, Line, LineScratch, Solved, Vector, agent_line, solve};

/// One walker (or something walkers avoid) as the avoidance sees it, in the caller's
/// units (world units and seconds, or mask pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    /// Where it stands.
    pub position: Vector,
    /// How fast it actually moved last (not what it wanted).
    pub velocity: Vector,
    /// Radius of its footprint.
    pub radius: f32,
    /// Who gives way: an agent never adjusts for one of lower priority, and takes the
    /// whole correction against one of higher priority.
    pub priority: u8,
    /// Standing (arrived, waiting): it takes a tenth of the correction against a
    /// walking agent of the same priority, which takes the rest.
    pub standing: bool,
    /// How far it still has to walk (any unit, the same for all agents; ignored while
    /// standing): of two walking agents of equal priority, the one with clearly less
    /// left to walk leads (takes less of the correction), so that a crowd at a door
    /// files through it, the one nearest its end first, instead of jamming.
    pub remaining: f32,
    /// It has made no headway for a while (the caller decides how long): when it
    /// leads, it stops giving way to the agent it leads, which gives way all the way,
    /// so that a jam at a door clears.
    pub blocked: bool,
    /// Agents avoid each other when their layers share a bit.
    pub layers: u32,
    /// A number unique to the agent (an entity's index): breaks ties, so that two
    /// agents at one place part in opposite directions.
    pub id: u32,
}

/// The part of the correction `me` takes against `other` (0 to 1; the other takes
/// the rest), or `None` when `me` does not adjust for `other` at all (lower
/// priority, or no common layer). Between equals: a tenth for a standing agent
/// against a walking one; between walking ones, a fifth for the one that leads (the
/// one clearly nearer its end, see [`Agent::remaining`], else the lower id) and four
/// fifths for the other, or none and all when the leader is [`Agent::blocked`]; half
/// between standing ones.
pub fn share(me: &Agent, other: &Agent) -> Option<f32> {
    if me.layers & other.layers == 0 || me.priority > other.priority {
        return None;
    }
    if me.priority < other.priority {
        return Some(1.0);
    }
    if !me.standing && !other.standing {
        let leads = leads(me, other);
        if leads && me.blocked {
            return None;
        }
        if !leads && other.blocked {
            return Some(1.0);
        }
    }
    Some(match (me.standing, other.standing) {
        (true, false) => 0.1,
        (false, true) => 0.9,
        (true, true) => 0.5,
        (false, false) => {
            if leads(me, other) {
                0.2
            } else {
                0.8
            }
        }
    })
}

/// Of two walking agents, one whose walk left is shorter by this many times the sum of
/// their radii leads.
const LEAD: f32 = 0.5;

/// Whether walking agent `me` leads `other`: clearly nearer its end, or about as near
/// and with the lower id. Never both ways: no symmetric standoff at a door.
fn leads(me: &Agent, other: &Agent) -> bool {
    let ahead = other.remaining - me.remaining;
    let clearly = LEAD * (me.radius + other.radius);
    if ahead > clearly {
        true
    } else if ahead < -clearly {
        false
    } else {
        me.id < other.id
    }
}

/// How far ahead and how widely agents look (in the caller's units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceParams {
    /// Seconds ahead within which two agents must not meet (ORCA's τ). Longer: they
    /// turn aside earlier and more gently, and crowds flow less freely.
    pub time_horizon: f32,
    /// Neighbours taken into account, nearest first.
    pub max_neighbours: usize,
    /// The largest radius of any agent: neighbours are looked for within
    /// `speed * time_horizon + radius + max_radius`.
    pub max_radius: f32,
    /// A cap on that distance.
    pub max_range: f32,
    /// The turn (radians, counter-clockwise in the agents' frame) given to a wanted
    /// velocity when neighbours are near: agents meeting head-on then all pass on
    /// the same side.
    pub pass_side_turn: f32,
}

impl Default for AvoidanceParams {
    /// τ = 1 s, 8 neighbours, a 2° turn.
    fn default() -> Self {
        Self {
            time_horizon: 1.0,
            max_neighbours: 8,
            max_radius: 0.0,
            max_range: f32::INFINITY,
            pass_side_turn: 2f32.to_radians(),
        }
    }
}

/// What [`Avoider::velocity`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Avoided {
    /// The velocity to take.
    pub velocity: Vector,
    /// Neighbours it adjusted for (0: the wanted velocity, unchanged).
    pub neighbours: usize,
    /// Whether it satisfies every neighbour (see [`Solved`]).
    pub solved: Solved,
}

/// Reusable buffers for avoidance queries.
#[derive(Clone, Debug, Default)]
pub struct Avoider {
    grid: NeighbourGrid,
    positions: Vec<Vector>,
    near: Vec<(f32, usize)>,
    lines: Vec<Line>,
    scratch: LineScratch,
}

impl Avoider {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Prepares the neighbour search over `agents` (once a frame, before
    /// [`Avoider::velocity`]); `cell` is the grid's cell size, about the usual
    /// search distance.
    pub fn prepare(&mut self, agents: &[Agent], cell: f32) {
        self.positions.clear();
        self.positions.extend(agents.iter().map(|a| a.position));
        self.grid.build(&self.positions, cell);
    }

    /// The velocity agent `me` of `agents` (as last [prepared](Avoider::prepare))
    /// takes: the one nearest to `preferred`, at most `max_speed`, that keeps it off
    /// its neighbours for the time horizon, each neighbour doing its
    /// [`share`]. `dt` is the step (seconds). All agents are read as they were at the
    /// start of the step, so the order in which agents are solved does not matter.
    pub fn velocity(
        &mut self,
        agents: &[Agent],
        me: usize,
        preferred: Vector,
        max_speed: f32,
        dt: f32,
        params: &AvoidanceParams,
    ) -> Avoided {
        let unchanged = Avoided {
            velocity: preferred,
            neighbours: 0,
            solved: Solved::Feasible,
        };
        let Some(agent) = agents.get(me) else {
            return unchanged;
        };
        let tau = params.time_horizon;
        let usable = tau > 0.0
            && dt > 0.0
            && max_speed >= 0.0
            && max_speed.is_finite()
            && agent.position.is_finite()
            && preferred.is_finite();
        if !usable {
            return unchanged;
        }
        let range = (max_speed * tau + agent.radius + params.max_radius).min(params.max_range);
        let mut near = std::mem::take(&mut self.near);
        self.grid.nearest(
            &self.positions,
            me,
            range,
            params.max_neighbours,
            |j| share(agent, &agents[j]).is_some(),
            &mut near,
        );
        self.lines.clear();
        let body = |a: &Agent| Body {
            position: a.position,
            velocity: if a.velocity.is_finite() {
                a.velocity
            } else {
                Vector::ZERO
            },
            radius: a.radius.max(0.0),
        };
        let mine = body(agent);
        for &(_, j) in &near {
            let other = &agents[j];
            let Some(part) = share(agent, other) else {
                continue;
            };
            // The lower id's angle and the higher's, half a turn apart.
            let tie = tie_angle(agent.id, other.id);
            self.lines
                .push(agent_line(&mine, &body(other), tau, dt, part, tie));
        }
        self.near = near;
        if self.lines.is_empty() {
            return unchanged;
        }
        let (sin, cos) = params.pass_side_turn.sin_cos();
        let turned = Vector::new(
            preferred.x * cos - preferred.y * sin,
            preferred.x * sin + preferred.y * cos,
        );
        let (velocity, solved) = solve(&self.lines, 0, max_speed, turned, &mut self.scratch);
        Avoided {
            velocity: if velocity.is_finite() {
                velocity
            } else {
                Vector::ZERO
            },
            neighbours: self.lines.len(),
            solved,
        }
    }
}

/// The angle agent `me` parts along from `other` when they stand on one spot with
/// one velocity: from a hash of the pair, and half a turn further for the higher id.
fn tie_angle(me: u32, other: u32) -> f32 {
    let (low, high) = if me <= other {
        (me, other)
    } else {
        (other, me)
    };
    let mut h = (u64::from(low) << 32 | u64::from(high)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    let angle = (h >> 40) as f32 / (1u64 << 24) as f32 * std::f32::consts::TAU;
    if me <= other {
        angle
    } else {
        angle + std::f32::consts::PI
    }
}
