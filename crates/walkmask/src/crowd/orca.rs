//! The ORCA half-planes and the linear program that picks a velocity among them.
//!
//! A [`Line`] allows the velocities on its left (seen along its direction). Two
//! agents' velocity obstacle for a time horizon `tau` is the set of relative
//! velocities that bring them into contact within `tau`: a cone cut off by a disc.
//! [`agent_line`] takes the smallest change `u` of the relative velocity that leaves
//! it, and allows the velocities past `share * u` from the current one. [`solve`]
//! finds the velocity nearest to the preferred one within all the lines and a speed
//! limit; when no velocity satisfies every line (a dense crowd), it takes the one that
//! violates the worst of them least, keeping the hard lines (walls, agents that never
//! give way) satisfied.

use std::ops::{Add, Mul, Neg, Sub};

/// Below this, two directions are parallel and a length is zero.
const EPSILON: f32 = 1e-5;

/// A 2D vector (a velocity or an offset), in the units of the caller.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vector {
    /// x component.
    pub x: f32,
    /// y component.
    pub y: f32,
}

impl Vector {
    /// The zero vector.
    pub const ZERO: Self = Self::new(0.0, 0.0);

    /// The vector `(x, y)`.
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// Dot product.
    pub fn dot(self, other: Self) -> f32 {
        self.x * other.x + self.y * other.y
    }

    /// The 2D cross product (determinant of the two as columns): positive when
    /// `other` lies to the left of `self` (counter-clockwise in a y-up frame).
    pub fn det(self, other: Self) -> f32 {
        self.x * other.y - self.y * other.x
    }

    /// Squared length.
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// Length.
    pub fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// This vector at unit length; zero stays zero.
    pub fn normalize_or_zero(self) -> Self {
        let length = self.length();
        if length > EPSILON && length.is_finite() {
            self * (1.0 / length)
        } else {
            Self::ZERO
        }
    }

    /// Whether both components are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// The same vector at most `max` long.
    pub fn clamp_length(self, max: f32) -> Self {
        let length_squared = self.length_squared();
        if length_squared > max * max {
            self * (max / length_squared.sqrt())
        } else {
            self
        }
    }

    /// Turned a quarter counter-clockwise (in a y-up frame).
    pub fn perp(self) -> Self {
        Self::new(-self.y, self.x)
    }
}

impl Add for Vector {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self::new(self.x + other.x, self.y + other.y)
    }
}

impl Sub for Vector {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        Self::new(self.x - other.x, self.y - other.y)
    }
}

impl Mul<f32> for Vector {
    type Output = Self;
    fn mul(self, factor: f32) -> Self {
        Self::new(self.x * factor, self.y * factor)
    }
}

impl Neg for Vector {
    type Output = Self;
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y)
    }
}

/// A directed line in velocity space: the allowed velocities `v` are those on its
/// left, `direction.det(v - point) >= 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Line {
    /// A point on the line.
    pub point: Vector,
    /// Its direction, unit length.
    pub direction: Vector,
}

impl Line {
    /// How far `v` lies on the forbidden side (negative: allowed).
    pub fn violation(&self, v: Vector) -> f32 {
        self.direction.det(self.point - v)
    }
}

/// One side of a pair of agents, as [`agent_line`] reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Position.
    pub position: Vector,
    /// Current velocity.
    pub velocity: Vector,
    /// Radius.
    pub radius: f32,
}

/// The ORCA half-plane for agent `me` against `other`: the velocities that keep the
/// two apart for `tau` (seconds, > 0) if `other` keeps its velocity and takes
/// `1 - share` of the correction. `share` is `me`'s part (0.5 each by default; 1
/// against something that does not give way). Agents that already overlap get the
/// line that separates them within `dt` (the step, seconds, > 0). `tie` breaks the
/// symmetry of two agents at the same place with the same velocity: an angle
/// (radians) that `me` moves along; the two sides of a pair pass angles half a turn
/// apart, so that they part.
pub fn agent_line(me: &Body, other: &Body, tau: f32, dt: f32, share: f32, tie: f32) -> Line {
    let relative_position = other.position - me.position;
    let relative_velocity = me.velocity - other.velocity;
    let distance_squared = relative_position.length_squared();
    let combined = me.radius + other.radius;
    let combined_squared = combined * combined;
    let (direction, u);
    if distance_squared > combined_squared {
        let inv_tau = 1.0 / tau;
        // From the cut-off disc's centre to the relative velocity.
        let w = relative_velocity - relative_position * inv_tau;
        let w_length_squared = w.length_squared();
        let dot = w.dot(relative_position);
        if dot < 0.0 && dot * dot > combined_squared * w_length_squared {
            // Nearest to the cut-off disc.
            let w_length = w_length_squared.sqrt();
            let unit_w = w * (1.0 / w_length);
            direction = Vector::new(unit_w.y, -unit_w.x);
            u = unit_w * (combined * inv_tau - w_length);
        } else {
            // Nearest to one of the cone's legs.
            let leg = (distance_squared - combined_squared).sqrt();
            let (px, py) = (relative_position.x, relative_position.y);
            direction = if relative_position.det(w) > 0.0 {
                Vector::new(px * leg - py * combined, px * combined + py * leg)
                    * (1.0 / distance_squared)
            } else {
                -Vector::new(px * leg + py * combined, -px * combined + py * leg)
                    * (1.0 / distance_squared)
            };
            u = direction * relative_velocity.dot(direction) - relative_velocity;
        }
    } else {
        // Overlapping: leave each other within one step.
        let inv_dt = 1.0 / dt;
        let w = relative_velocity - relative_position * inv_dt;
        let w_length = w.length();
        let unit_w = if w_length > EPSILON {
            w * (1.0 / w_length)
        } else {
            // Same place, same velocity: part along the tie's angle.
            let (sin, cos) = tie.sin_cos();
            Vector::new(cos, sin)
        };
        direction = Vector::new(unit_w.y, -unit_w.x);
        u = unit_w * (combined * inv_dt - w_length);
    }
    Line {
        point: me.velocity + u * share,
        direction,
    }
}

/// Reusable buffers for [`solve`].
#[derive(Clone, Debug, Default)]
pub struct LineScratch {
    projected: Vec<Line>,
}

/// Whether [`solve`] met every line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solved {
    /// The velocity satisfies every line.
    Feasible,
    /// No velocity satisfied every line: it satisfies the first `hard` ones (when they
    /// alone can be met) and violates the others as little as it can.
    Relaxed,
}

/// The velocity within `max_speed` that satisfies every line and is nearest to
/// `preferred`; the first `hard` lines are never relaxed. See [`Solved`].
pub fn solve(
    lines: &[Line],
    hard: usize,
    max_speed: f32,
    preferred: Vector,
    scratch: &mut LineScratch,
) -> (Vector, Solved) {
    let hard = hard.min(lines.len());
    let (failed, velocity) = program_2d(lines, max_speed, preferred, false);
    if failed == lines.len() {
        return (velocity, Solved::Feasible);
    }
    let velocity = program_3d(lines, hard, failed, max_speed, velocity, scratch);
    (velocity, Solved::Relaxed)
}

/// The best velocity on line `i` within the speed disc and lines `..i`: nearest to
/// `optimal`, or furthest along it when `direction` (then `optimal` has unit length).
fn program_1d(
    lines: &[Line],
    i: usize,
    radius: f32,
    optimal: Vector,
    direction: bool,
) -> Option<Vector> {
    // Measured from the line's point nearest the origin: a point far along the line
    // (two nearly parallel lines meet far away) would cancel out the disc's radius.
    let line = Line {
        point: lines[i].point - lines[i].direction * lines[i].point.dot(lines[i].direction),
        direction: lines[i].direction,
    };
    let offset = line.direction.det(line.point);
    let discriminant = radius * radius - offset * offset;
    if discriminant < 0.0 {
        return None; // the speed disc lies wholly on the forbidden side
    }
    let root = discriminant.sqrt();
    let mut left = -root;
    let mut right = root;
    for other in &lines[..i] {
        let denominator = line.direction.det(other.direction);
        let numerator = other.direction.det(line.point - other.point);
        if denominator.abs() <= EPSILON {
            // Parallel lines.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            right = right.min(t);
        } else {
            left = left.max(t);
        }
        if left > right {
            return None;
        }
    }
    let t = if direction {
        if optimal.dot(line.direction) > 0.0 {
            right
        } else {
            left
        }
    } else {
        line.direction.dot(optimal - line.point).clamp(left, right)
    };
    Some(line.point + line.direction * t)
}

/// Lines added one by one, the velocity moved onto a line it breaks. Returns the
/// index of the first line no velocity could meet (`lines.len()` when all are met)
/// and the velocity so far.
fn program_2d(lines: &[Line], radius: f32, optimal: Vector, direction: bool) -> (usize, Vector) {
    let mut velocity = if direction {
        optimal * radius
    } else {
        optimal.clamp_length(radius)
    };
    for (i, line) in lines.iter().enumerate() {
        if line.violation(velocity) > 0.0 {
            match program_1d(lines, i, radius, optimal, direction) {
                Some(better) => velocity = better,
                None => return (i, velocity),
            }
        }
    }
    (lines.len(), velocity)
}

/// The velocity that minimises the largest violation of the soft lines from
/// `begin` on, keeping the first `hard` lines met.
fn program_3d(
    lines: &[Line],
    hard: usize,
    begin: usize,
    radius: f32,
    mut velocity: Vector,
    scratch: &mut LineScratch,
) -> Vector {
    let mut worst = 0.0f32;
    for i in begin.max(hard)..lines.len() {
        let line = lines[i];
        if line.violation(velocity) <= worst {
            continue;
        }
        let projected = &mut scratch.projected;
        projected.clear();
        projected.extend_from_slice(&lines[..hard]);
        for other in &lines[hard..i] {
            let determinant = line.direction.det(other.direction);
            let point = if line.direction.dot(other.direction) < 0.0 {
                // Facing lines: the points broken equally by both lie on a line
                // along `other.direction - line.direction`; it is placed by its
                // point nearest the origin, as where the two lines meet may lie far
                // away when they are nearly opposite, and its rounding there would
                // move the answer off the speed disc.
                let along = other.direction - line.direction;
                let length = along.length();
                let offset =
                    (other.direction.det(other.point) - line.direction.det(line.point)) / length;
                Vector::new(-along.y, along.x) * (offset / length)
            } else if determinant.abs() <= EPSILON {
                continue; // same direction: the other is met wherever line i is
            } else {
                line.point
                    + line.direction * (other.direction.det(line.point - other.point) / determinant)
            };
            projected.push(Line {
                point,
                direction: (other.direction - line.direction).normalize_or_zero(),
            });
        }
        let (failed, better) = program_2d(
            projected,
            radius,
            Vector::new(-line.direction.y, line.direction.x),
            true,
        );
        // In principle it always succeeds; rounding may make it fail, and then the
        // velocity so far stands.
        if failed == projected.len() {
            velocity = better;
        }
        worst = line.violation(velocity);
    }
    velocity
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(x: f32, y: f32, vx: f32, vy: f32, r: f32) -> Body {
        Body {
            position: Vector::new(x, y),
            velocity: Vector::new(vx, vy),
            radius: r,
        }
    }

    #[test]
    fn head_on_pair_turns_aside() {
        let a = body(0.0, 0.0, 1.0, 0.0, 1.0);
        let b = body(10.0, 0.0, -1.0, 0.0, 1.0);
        let line = agent_line(&a, &b, 10.0, 0.1, 0.5, 0.0);
        let mut scratch = LineScratch::default();
        let (v, solved) = solve(&[line], 0, 1.0, Vector::new(1.0, 0.0), &mut scratch);
        assert_eq!(solved, Solved::Feasible);
        assert!(v.y.abs() > 1e-3, "{v:?}");
        assert!(line.violation(v) <= 1e-5);
    }

    #[test]
    fn nearly_opposite_lines_keep_to_the_speed_limit() {
        // No velocity meets both; where they meet lies about 400 units away.
        let lines = [
            Line {
                point: Vector::new(0.417_719_4, -4.733_933_4),
                direction: Vector::new(-0.814_474_1, 0.580_199_9),
            },
            Line {
                point: Vector::new(3.895_123_7, 4.735_321_5),
                direction: Vector::new(0.813_676_06, -0.581_318_56),
            },
        ];
        let max_speed = 2.466_632_8;
        let mut scratch = LineScratch::default();
        let (v, solved) = solve(&lines, 0, max_speed, Vector::ZERO, &mut scratch);
        assert_eq!(solved, Solved::Relaxed);
        assert!(
            v.length() <= max_speed * (1.0 + 1e-5),
            "{v:?}: {}",
            v.length()
        );
        // Broken equally by both, as little as the speed limit allows.
        let (a, b) = (lines[0].violation(v), lines[1].violation(v));
        assert!((a - b).abs() < 1e-3, "{a} vs {b}");
    }

    #[test]
    fn far_apart_agents_keep_their_velocity() {
        let a = body(0.0, 0.0, 1.0, 0.0, 1.0);
        let b = body(0.0, 50.0, 1.0, 0.0, 1.0);
        let line = agent_line(&a, &b, 2.0, 0.1, 0.5, 0.0);
        let mut scratch = LineScratch::default();
        let (v, _) = solve(&[line], 0, 2.0, Vector::new(1.0, 0.0), &mut scratch);
        assert!((v - Vector::new(1.0, 0.0)).length() < 1e-5);
    }

    #[test]
    fn coincident_agents_part_opposite_ways() {
        let a = body(3.0, 3.0, 0.0, 0.0, 1.0);
        let b = a;
        let la = agent_line(&a, &b, 1.0, 0.1, 0.5, 1.0);
        let lb = agent_line(&b, &a, 1.0, 0.1, 0.5, 1.0 + std::f32::consts::PI);
        let mut scratch = LineScratch::default();
        let (va, _) = solve(&[la], 0, 20.0, Vector::ZERO, &mut scratch);
        let (vb, _) = solve(&[lb], 0, 20.0, Vector::ZERO, &mut scratch);
        assert!(va.length() > 1.0 && vb.length() > 1.0);
        assert!(va.dot(vb) < 0.0, "{va:?} {vb:?}");
    }
}
