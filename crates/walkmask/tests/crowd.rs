//! Local avoidance and arrival spots (`walkmask::crowd`) over random inputs: the
//! linear program's answer meets its lines and is the nearest such velocity (against a
//! sampled oracle); two agents that take their halves never meet within the time
//! horizon; a step of a whole crowd keeps agents that were apart apart, does not depend
//! on the agents' order, and, through `steer::slide`, never puts a walker on a blocked
//! pixel; free spots are walkable, seen from the goal and clear of each other.

mod support;

use proptest::prelude::*;
use walkmask::crowd::orca::{Body, Line, LineScratch, Solved, agent_line, solve};
use walkmask::crowd::{Agent, AvoidanceParams, Avoider, SpotScratch, Vector, free_spot, share};
use walkmask::los::line_of_sight;
use walkmask::steer::slide;
use walkmask::{AreaSet, NavGrid, Point, WalkMask};

use support::cases::{Scenario, scenario};
use support::check_segment_strict;

/// Cases per property.
const CASES: u32 = 2000;

fn config() -> ProptestConfig {
    support::cases::config(CASES)
}

fn vector() -> impl Strategy<Value = Vector> {
    (-10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y)| Vector::new(x, y))
}

fn line() -> impl Strategy<Value = Line> {
    (vector(), 0.0f32..std::f32::consts::TAU).prop_map(|(point, angle)| Line {
        point: point * 0.5,
        direction: Vector::new(angle.cos(), angle.sin()),
    })
}

/// A crowd of `n` agents in a 60 x 60 square, walking or standing, priorities 0 or 1.
fn crowd(n: usize) -> impl Strategy<Value = Vec<Agent>> {
    proptest::collection::vec(
        (
            (0.0f32..60.0, 0.0f32..60.0),
            vector(),
            1.0f32..4.0,
            0u8..2,
            any::<bool>(),
        ),
        1..n,
    )
    .prop_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(
                |(i, ((x, y), velocity, radius, priority, standing))| Agent {
                    position: Vector::new(x, y),
                    velocity: if standing { Vector::ZERO } else { velocity },
                    radius,
                    priority,
                    standing,
                    remaining: x + y,
                    blocked: x > 30.0,
                    layers: 1,
                    id: i as u32,
                },
            )
            .collect()
    })
}

/// A walking agent of radius 1 and priority 1.
fn walking(position: Vector, velocity: Vector, id: u32) -> Agent {
    Agent {
        position,
        velocity,
        radius: 1.0,
        priority: 1,
        standing: false,
        remaining: 0.0,
        blocked: false,
        layers: 1,
        id,
    }
}

proptest! {
    #![proptest_config(config())]

    /// A feasible answer meets every line, keeps to the speed limit, and no sampled
    /// velocity that meets every line is nearer to the preferred one.
    #[test]
    fn the_program_picks_the_nearest_allowed_velocity(
        lines in proptest::collection::vec(line(), 0..6),
        preferred in vector(),
        max_speed in 0.5f32..8.0,
    ) {
        let mut scratch = LineScratch::default();
        let (v, solved) = solve(&lines, 0, max_speed, preferred, &mut scratch);
        prop_assert!(v.is_finite());
        prop_assert!(v.length() <= max_speed * (1.0 + 1e-4) + 1e-4);
        let allowed = |u: Vector| lines.iter().all(|l| l.violation(u) <= 1e-4);
        let samples = 120;
        let mut best_sampled = f32::INFINITY;
        let mut any_allowed = false;
        for i in 0..=samples {
            for j in 0..=samples {
                let u = Vector::new(
                    -max_speed + 2.0 * max_speed * i as f32 / samples as f32,
                    -max_speed + 2.0 * max_speed * j as f32 / samples as f32,
                );
                if u.length() <= max_speed && lines.iter().all(|l| l.violation(u) <= 0.0) {
                    any_allowed = true;
                    best_sampled = best_sampled.min((u - preferred).length());
                }
            }
        }
        match solved {
            Solved::Feasible => {
                prop_assert!(allowed(v), "{v:?} breaks a line");
                prop_assert!((v - preferred).length() <= best_sampled + 1e-3);
            }
            Solved::Relaxed => {
                // The allowed set (if any) is too thin for the samples to matter:
                // the answer breaks no line by more than a cell.
                let worst = lines.iter().map(|l| l.violation(v)).fold(0.0f32, f32::max);
                let cell = 2.0 * max_speed / samples as f32;
                prop_assert!(!any_allowed || worst <= cell * 1.5 + 1e-3, "{worst} with a sample allowed");
                for i in 0..=samples {
                    for j in 0..=samples {
                        let u = Vector::new(
                            -max_speed + cell * i as f32,
                            -max_speed + cell * j as f32,
                        );
                        if u.length() <= max_speed {
                            let w = lines.iter().map(|l| l.violation(u)).fold(0.0f32, f32::max);
                            prop_assert!(worst <= w + cell * 1.5 + 1e-3, "{worst} vs {w} at {u:?}");
                        }
                    }
                }
            }
        }
    }

    /// Two agents apart that each take half of the correction, when both programs are
    /// feasible, keep apart for the whole time horizon.
    #[test]
    fn a_pair_taking_halves_never_meets_within_the_horizon(
        a in (vector(), vector(), 0.5f32..3.0),
        b in (vector(), vector(), 0.5f32..3.0),
        preferred_a in vector(),
        preferred_b in vector(),
    ) {
        let tau = 2.0;
        let (a, b) = (
            Body { position: a.0 * 3.0, velocity: a.1, radius: a.2 },
            Body { position: b.0 * 3.0, velocity: b.1, radius: b.2 },
        );
        let combined = a.radius + b.radius;
        prop_assume!((b.position - a.position).length() > combined + 1e-2);
        let mut scratch = LineScratch::default();
        let la = agent_line(&a, &b, tau, 0.1, 0.5, 0.0);
        let lb = agent_line(&b, &a, tau, 0.1, 0.5, std::f32::consts::PI);
        let (va, sa) = solve(&[la], 0, 20.0, preferred_a, &mut scratch);
        let (vb, sb) = solve(&[lb], 0, 20.0, preferred_b, &mut scratch);
        prop_assume!(sa == Solved::Feasible && sb == Solved::Feasible);
        for step in 0..=200 {
            let t = tau * step as f32 / 200.0;
            let d = ((b.position + vb * t) - (a.position + va * t)).length();
            prop_assert!(d >= combined - 1e-2, "they meet at t = {t}: {d} < {combined}");
        }
    }

    /// One step of a whole crowd: agents that were apart, whose programs were both
    /// feasible, are still apart after it; solving the agents in reverse order gives
    /// the same velocities.
    #[test]
    fn a_crowd_step_keeps_apart_agents_apart(agents in crowd(40)) {
        crowd_step_keeps_apart(&agents)?;
    }

    /// Avoidance steps taken through `steer::slide` on random masks: every step is a
    /// legal segment and ends on a walkable pixel.
    #[test]
    fn avoidance_through_slide_stays_on_walkable_pixels(
        s in scenario(),
        others in proptest::collection::vec((0.0f32..1.0, 0.0f32..1.0, vector()), 1..8),
    ) {
        let Scenario { case, start, goal, .. } = s;
        let grid = case.grid();
        if grid.region_at(start).is_none() {
            prop_assert_eq!(slide(&grid, start, (1.0, 0.0)), None);
            return Ok(());
        }
        let (w, h) = (grid.width() as f32, grid.height() as f32);
        let mut agents = vec![walking(Vector::new(start.x, start.y), Vector::ZERO, 0)];
        for (k, (fx, fy, v)) in others.iter().enumerate() {
            agents.push(walking(Vector::new(fx * w, fy * h), *v, k as u32 + 1));
        }
        let mut avoider = Avoider::new();
        let params = AvoidanceParams { max_radius: 1.0, ..AvoidanceParams::default() };
        let mut at = start;
        for _ in 0..20 {
            agents[0].position = Vector::new(at.x, at.y);
            avoider.prepare(&agents, 8.0);
            let preferred = Vector::new(goal.x - at.x, goal.y - at.y).clamp_length(4.0);
            let v = avoider.velocity(&agents, 0, preferred, 4.0, 0.25, &params).velocity;
            let to = slide(&grid, at, (v.x * 0.25, v.y * 0.25)).expect("on a walkable pixel");
            prop_assert!(grid.region_at(to).is_some(), "{to:?} is blocked");
            prop_assert!(check_segment_strict(&grid, at, to).is_ok(), "{at:?} -> {to:?}");
            agents[0].velocity = Vector::new((to.x - at.x) / 0.25, (to.y - at.y) / 0.25);
            at = to;
        }
    }

    /// Spots claimed one after another round one goal: each walkable, seen from the
    /// goal, clear of every earlier one by the gap; the first is the goal itself.
    #[test]
    fn free_spots_are_walkable_visible_and_apart(
        s in scenario(),
        radius in 0.5f32..3.0,
        claims in 1usize..25,
    ) {
        let Scenario { case, goal, start, .. } = s;
        let grid = case.grid();
        let gap = 0.5;
        let mut taken: Vec<(Point, f32)> = Vec::new();
        let mut scratch = SpotScratch::default();
        if grid.region_at(goal).is_none() {
            prop_assert_eq!(free_spot(&grid, goal, start, radius, gap, &taken, 30.0, &mut scratch), None);
            return Ok(());
        }
        for k in 0..claims {
            let Some(spot) = free_spot(&grid, goal, start, radius, gap, &taken, 30.0, &mut scratch) else {
                break;
            };
            if k == 0 {
                prop_assert_eq!(spot, goal);
            }
            prop_assert!(grid.region_at(spot).is_some());
            prop_assert!(line_of_sight(&grid, goal, spot));
            for &(other, r) in &taken {
                prop_assert!(spot.distance(other) >= radius + r + gap - 1e-3,
                    "{spot:?} is {} from {other:?}", spot.distance(other));
            }
            taken.push((spot, radius));
        }
    }
}

/// In an open room, thirty claims round one point all succeed, the nearest first.
#[test]
fn thirty_spots_round_a_point_in_an_open_room() {
    let grid = NavGrid::new(
        WalkMask::from_fn(200, 200, |_, _| 1).unwrap(),
        AreaSet::all(),
    );
    let goal = Point::new(100.5, 100.5);
    let mut scratch = SpotScratch::default();
    let mut taken: Vec<(Point, f32)> = Vec::new();
    for _ in 0..30 {
        let spot = free_spot(&grid, goal, goal, 6.0, 1.0, &taken, 90.0, &mut scratch)
            .expect("room for thirty");
        taken.push((spot, 6.0));
    }
    let farthest = taken
        .iter()
        .map(|(p, _)| p.distance(goal))
        .fold(0.0, f32::max);
    // Thirty footprints of 13 fit on the first four rings (ideal hexagonal packing
    // needs three): the farthest at most 13 x (1 + 3 x 0.87) from the point.
    assert!(
        farthest <= 13.0 * (1.0 + 3.0 * 0.87) + 1e-3,
        "spread to {farthest}"
    );
}

/// The property of [`a_crowd_step_keeps_apart_agents_apart`]: one step of `agents`
/// keeps those that were apart apart, in either order of solving.
fn crowd_step_keeps_apart(agents: &[Agent]) -> Result<(), TestCaseError> {
    let dt = 0.05;
    let params = AvoidanceParams {
        max_radius: 4.0,
        ..AvoidanceParams::default()
    };
    let mut avoider = Avoider::new();
    avoider.prepare(agents, 16.0);
    let answers: Vec<_> = (0..agents.len())
        .map(|i| {
            let preferred = if agents[i].standing {
                Vector::ZERO
            } else {
                agents[i].velocity
            };
            avoider.velocity(agents, i, preferred, 10.0, dt, &params)
        })
        .collect();
    let mut reversed: Vec<_> = agents.iter().rev().copied().collect();
    for (i, a) in reversed.iter_mut().enumerate() {
        a.id = (agents.len() - 1 - i) as u32;
    }
    let mut again = Avoider::new();
    again.prepare(&reversed, 16.0);
    for (i, answer) in answers.iter().enumerate() {
        let r = agents.len() - 1 - i;
        let preferred = if agents[i].standing {
            Vector::ZERO
        } else {
            agents[i].velocity
        };
        let other = again.velocity(&reversed, r, preferred, 10.0, dt, &params);
        prop_assert!(
            (other.velocity - answer.velocity).length() <= 1e-4,
            "agent {i}: {:?} vs {:?}",
            answer.velocity,
            other.velocity
        );
    }
    for i in 0..agents.len() {
        for j in i + 1..agents.len() {
            let (a, b) = (&agents[i], &agents[j]);
            let combined = a.radius + b.radius;
            let before = (b.position - a.position).length();
            let (ai, aj) = (&answers[i], &answers[j]);
            // Only pairs both saw (each within the other's eight nearest), each of
            // which adjusts for the other: not one of higher priority, nor a blocked
            // leader, which leaves the one it leads out of its program.
            let both_feasible = ai.solved == Solved::Feasible && aj.solved == Solved::Feasible;
            let eight_or_fewer = agents.len() <= 9;
            let each_adjusts = share(a, b).is_some() && share(b, a).is_some();
            if before > combined + 1e-2 && both_feasible && eight_or_fewer && each_adjusts {
                let after =
                    ((b.position + aj.velocity * dt) - (a.position + ai.velocity * dt)).length();
                prop_assert!(after >= combined - 1e-2, "{i} and {j}: {before} -> {after}");
            }
        }
    }
    Ok(())
}

/// Three walking agents, all blocked: 0 leads 1, which leads 2. A blocked leader
/// leaves the one it leads out of its program ([`share`] is `None`), as a walker of
/// higher priority does, so nothing holds 1 and 2 apart when 0 turns 1 aside (they
/// come from 4.00 to 3.81 apart, 3.91 needed); 0 and 1, and 0 and 2, are held apart.
#[test]
fn a_blocked_leader_is_not_held_off_the_one_it_leads() {
    let agent = |id: u32, (x, y): (f32, f32), (vx, vy): (f32, f32), radius: f32, remaining| Agent {
        position: Vector::new(x, y),
        velocity: Vector::new(vx, vy),
        radius,
        priority: 1,
        standing: false,
        remaining,
        blocked: true,
        layers: 1,
        id,
    };
    let agents = [
        agent(0, (45.121593, 13.416659), (4.476715, 0.0), 1.0, 58.538254),
        agent(
            1,
            (52.604954, 19.369108),
            (-3.7881908, -6.2733088),
            2.5126333,
            71.97406,
        ),
        agent(
            2,
            (49.90525, 22.325766),
            (0.0, -6.958486),
            1.3986591,
            72.23102,
        ),
    ];
    assert_eq!(share(&agents[1], &agents[2]), None);
    assert_eq!(share(&agents[2], &agents[1]), Some(1.0));
    crowd_step_keeps_apart(&agents).unwrap();
}
