//! Facing: which way a character looks, in 4 or 8 screen directions, for picking its
//! walk and stand loops.
//!
//! Every [`Walker`](crate::Walker) has a [`Facing`] (4 directions unless the game
//! inserts [`Facing::eight`]). While it walks, the plugin turns it to the direction
//! of its movement ([`WalkHeading`](crate::WalkHeading)), with hysteresis: the facing changes
//! only once the movement is more than `hysteresis_degrees` past the border between
//! two directions, so a walk along a diagonal does not flicker between two loops. A
//! request can ask to face a direction or a point on arrival ([`FaceTarget`],
//! [`WalkRequest::facing`](crate::WalkRequest::facing)), and a standing walker can be
//! turned ([`WalkCommandsExt::face`](crate::WalkCommandsExt::face)) or its `Facing`
//! written directly.

use std::f32::consts::TAU;

use bevy::prelude::*;

/// A direction on the screen (Bevy 2D: y up). `Down` faces the camera.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::FacingDirection;
///
/// assert_eq!(FacingDirection::nearest(Vec2::new(1.0, 0.9), 8), Some(FacingDirection::UpRight));
/// assert_eq!(FacingDirection::nearest(Vec2::new(1.0, 0.9), 4), Some(FacingDirection::Right));
/// assert_eq!(FacingDirection::UpLeft.mirrored(), FacingDirection::UpRight);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Clone, Debug, Default, PartialEq, Hash)]
pub enum FacingDirection {
    /// Towards +x.
    Right,
    /// Towards +x and +y.
    UpRight,
    /// Towards +y (away from the camera in a side-on room).
    Up,
    /// Towards -x and +y.
    UpLeft,
    /// Towards -x.
    Left,
    /// Towards -x and -y.
    DownLeft,
    /// Towards -y (facing the camera). The default.
    #[default]
    Down,
    /// Towards +x and -y.
    DownRight,
}

impl FacingDirection {
    /// All eight, counter-clockwise from [`Right`](Self::Right).
    pub const ALL: [FacingDirection; 8] = [
        Self::Right,
        Self::UpRight,
        Self::Up,
        Self::UpLeft,
        Self::Left,
        Self::DownLeft,
        Self::Down,
        Self::DownRight,
    ];

    /// The four straight ones, counter-clockwise from [`Right`](Self::Right).
    pub const FOUR: [FacingDirection; 4] = [Self::Right, Self::Up, Self::Left, Self::Down];

    /// Position in [`ALL`](Self::ALL): 0 for `Right`, counting counter-clockwise.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Angle from +x, counter-clockwise, in radians (0 to 7/4 pi).
    pub fn angle(self) -> f32 {
        self.index() as f32 * TAU / 8.0
    }

    /// The unit vector of the direction.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::FacingDirection;
    /// assert!(FacingDirection::Up.vector().abs_diff_eq(Vec2::Y, 1e-6));
    /// ```
    pub fn vector(self) -> Vec2 {
        UNIT_VECTORS[self.index()]
    }

    /// Whether it is one of the four diagonals.
    pub const fn is_diagonal(self) -> bool {
        self.index() % 2 == 1
    }

    /// The direction mirrored left to right (for sprites drawn facing one way and
    /// flipped for the other).
    pub const fn mirrored(self) -> Self {
        Self::ALL[(12 - self.index()) % 8]
    }

    /// For sprite sheets drawn only facing right, up and down: the direction to draw
    /// (one of `Down`, `DownRight`, `Right`, `UpRight`, `Up`) and whether to flip it
    /// horizontally.
    ///
    /// ```
    /// # use bevy_walkmask::FacingDirection;
    /// assert_eq!(FacingDirection::UpLeft.unmirrored(), (FacingDirection::UpRight, true));
    /// assert_eq!(FacingDirection::Down.unmirrored(), (FacingDirection::Down, false));
    /// ```
    pub const fn unmirrored(self) -> (Self, bool) {
        if self.is_leftward() {
            (self.mirrored(), true)
        } else {
            (self, false)
        }
    }

    /// Whether it points left of the screen's vertical (`Left`, `UpLeft`, `DownLeft`).
    pub const fn is_leftward(self) -> bool {
        matches!(self, Self::Left | Self::UpLeft | Self::DownLeft)
    }

    /// The direction among `count` (4 or 8; any other count is taken as 8) nearest to
    /// `vector`; `None` for a zero or non-finite vector. Ties go counter-clockwise.
    pub fn nearest(vector: Vec2, count: u8) -> Option<Self> {
        if !vector.is_finite() || vector == Vec2::ZERO {
            return None;
        }
        let step = TAU / f32::from(sector_count(count));
        let turns = (vector.to_angle() / step).round() as i32;
        let sectors = i32::from(sector_count(count));
        let sector = turns.rem_euclid(sectors) as usize;
        Some(Self::ALL[sector * (8 / sectors as usize)])
    }
}

/// 4 or 8.
fn sector_count(count: u8) -> u8 {
    if count == 4 { 4 } else { 8 }
}

/// Which way a character faces, and how its facing follows its movement.
///
/// Required by [`Walker`](crate::Walker) (4 directions, facing the camera, 10 degrees
/// of hysteresis); insert your own to change that.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{Facing, FacingDirection, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // An 8-direction character, looking left at first.
///     commands.spawn((Walker::new(200.0), Facing::eight().towards(FacingDirection::Left)));
/// }
///
/// fn pick_loop(walkers: Query<&Facing, Changed<Facing>>) {
///     for facing in &walkers {
///         info!("now facing {:?}", facing.direction);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// # bevy::ecs::system::assert_is_system(pick_loop);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct Facing {
    /// The direction faced now. With 4 directions, never a diagonal.
    pub direction: FacingDirection,
    /// 4 or 8 (any other number counts as 8).
    pub directions: u8,
    /// How far (degrees) the movement must go past the border between the current
    /// direction's sector and the next before the facing turns. 0 turns at the
    /// border; at most a quarter of a sector is useful (11.25 with 8 directions).
    pub hysteresis_degrees: f32,
    /// Seconds a standing walker takes to turn by one direction before it sets off
    /// (Adventure Game Studio's "turn before walking"): it turns in place through
    /// every direction between the one it faces and its first step's, the shorter
    /// way round, one each `turn_seconds`, and walks once it faces its way. 0 (the
    /// default) sets off at once, turning as it goes.
    pub turn_seconds: f32,
    /// How much a movement's vertical part counts when the direction is chosen
    /// (Adventure Game Studio's face-direction ratio): below 1, a walk into the
    /// picture's depth that is steep on screen but short in the room shows the side
    /// loop; above 1, the up and down loops come sooner. 1 (the default) takes the
    /// movement as it is on screen; 0, negative or not a number counts as 1.
    pub perspective: f32,
    /// Where the directions' sectors meet, when they are not all as wide (Adventure
    /// Creator's direction angles): a character with only a few frames of its up and
    /// down loops shows its side loop over a wider arc. `None` (the default): every
    /// sector as wide.
    pub borders: Option<SectorBorders>,
}

/// Where the sectors of the directions meet, in degrees above (and, mirrored, below)
/// the horizontal, the same on both sides of the screen. Borders out of order or not
/// strictly between 0 and 90 count as even sectors.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_walkmask::{Facing, FacingDirection, SectorBorders};
/// // The up and down loops only within 30 degrees of the vertical.
/// let mut facing = Facing::four()
///     .with_hysteresis(0.0)
///     .with_borders(SectorBorders::four(60.0));
/// facing.face_vector(Vec2::from_angle(55f32.to_radians()));
/// assert_eq!(facing.direction, FacingDirection::Right);
/// facing.face_vector(Vec2::from_angle(65f32.to_radians()));
/// assert_eq!(facing.direction, FacingDirection::Up);
/// ```
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Clone, Debug, PartialEq)]
pub struct SectorBorders {
    /// With 4 directions, where the side sectors (`Left`, `Right`) end and the up and
    /// down ones begin (45 when even); with 8, where the side sectors end and the
    /// diagonal ones begin (22.5 when even).
    pub side: f32,
    /// With 8 directions, where the diagonal sectors end and the up and down ones
    /// begin (67.5 when even); not used with 4.
    pub diagonal: f32,
}

impl SectorBorders {
    /// For 4 directions: the side loops up to `side` degrees above and below the
    /// horizontal, the up and down loops beyond.
    pub fn four(side: f32) -> Self {
        Self {
            side,
            diagonal: 67.5,
        }
    }

    /// For 8 directions: the side loops up to `side` degrees, the diagonal ones up to
    /// `diagonal`, the up and down loops beyond.
    pub fn eight(side: f32, diagonal: f32) -> Self {
        Self { side, diagonal }
    }

    /// The angle (radians, 0 to a quarter turn) above the horizontal in the sectors as
    /// drawn for `angle` above the horizontal in these sectors, with `sectors` 4 or 8;
    /// `None` when the borders are invalid (the angle stays).
    fn even_angle(&self, sectors: u8, angle: f32) -> Option<f32> {
        let q = std::f32::consts::FRAC_PI_2;
        let valid = |b: f32| b.is_finite() && b > 0.0 && b < 90.0;
        // (border as given, where it lies when even), in radians.
        let (from, to): (&[f32], &[f32]) = if sectors == 4 {
            if !valid(self.side) {
                return None;
            }
            (&[0.0, self.side.to_radians(), q], &[0.0, q / 2.0, q])
        } else {
            if !valid(self.side) || !valid(self.diagonal) || self.side >= self.diagonal {
                return None;
            }
            (
                &[0.0, self.side.to_radians(), self.diagonal.to_radians(), q],
                &[0.0, q / 4.0, 3.0 * q / 4.0, q],
            )
        };
        let i = (1..from.len())
            .find(|&i| angle <= from[i])
            .unwrap_or(from.len() - 1);
        let t = (angle - from[i - 1]) / (from[i] - from[i - 1]);
        Some(to[i - 1] + t.clamp(0.0, 1.0) * (to[i] - to[i - 1]))
    }
}

impl Default for Facing {
    /// [`Facing::four`].
    fn default() -> Self {
        Self::four()
    }
}

/// Hysteresis of [`Facing::four`] and [`Facing::eight`], in degrees.
pub const DEFAULT_HYSTERESIS_DEGREES: f32 = 10.0;

impl Facing {
    /// Four directions (`Right`, `Up`, `Left`, `Down`), facing `Down`.
    pub fn four() -> Self {
        Self {
            direction: FacingDirection::Down,
            directions: 4,
            hysteresis_degrees: DEFAULT_HYSTERESIS_DEGREES,
            turn_seconds: 0.0,
            perspective: 1.0,
            borders: None,
        }
    }

    /// Eight directions, facing `Down`.
    pub fn eight() -> Self {
        Self {
            directions: 8,
            ..Self::four()
        }
    }

    /// Faces `direction` (see [`Facing::turn_to`] for a diagonal with 4 directions).
    pub fn towards(mut self, direction: FacingDirection) -> Self {
        self.turn_to(direction);
        self
    }

    /// Sets the hysteresis (degrees, see [`Facing::hysteresis_degrees`]).
    pub fn with_hysteresis(mut self, degrees: f32) -> Self {
        self.hysteresis_degrees = degrees;
        self
    }

    /// Turns before walking, `seconds` a direction (see [`Facing::turn_seconds`]).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::{Facing, Walker};
    ///
    /// fn spawn(mut commands: Commands) {
    ///     // Facing away from a walk behind it, turns twice (0.2 s) before setting off.
    ///     commands.spawn((Walker::new(200.0), Facing::four().with_turn_seconds(0.1)));
    /// }
    /// # bevy::ecs::system::assert_is_system(spawn);
    /// ```
    pub fn with_turn_seconds(mut self, seconds: f32) -> Self {
        self.turn_seconds = seconds;
        self
    }

    /// Sets how much a movement's vertical part counts (see [`Facing::perspective`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{Facing, FacingDirection};
    /// // 50 degrees up on screen: the up loop, unless vertical movement counts half.
    /// let step = Vec2::from_angle(50f32.to_radians());
    /// let mut flat = Facing::four().with_hysteresis(0.0);
    /// let mut deep = flat.with_perspective(0.5);
    /// flat.follow(step);
    /// deep.follow(step);
    /// assert_eq!((flat.direction, deep.direction), (FacingDirection::Up, FacingDirection::Right));
    /// ```
    pub fn with_perspective(mut self, ratio: f32) -> Self {
        self.perspective = ratio;
        self
    }

    /// Sets where the directions' sectors meet (see [`SectorBorders`]).
    pub fn with_borders(mut self, borders: SectorBorders) -> Self {
        self.borders = Some(borders);
        self
    }

    /// `vector` as the facing weighs it: its vertical part times
    /// [`perspective`](Self::perspective), then turned so that the
    /// [`borders`](Self::borders) fall where even sectors meet.
    fn weighed(&self, vector: Vec2) -> Vec2 {
        let vector =
            if self.perspective.is_finite() && self.perspective > 0.0 && self.perspective != 1.0 {
                Vec2::new(vector.x, vector.y * self.perspective)
            } else {
                vector
            };
        let Some(borders) = self.borders else {
            return vector;
        };
        if !vector.is_finite() || vector == Vec2::ZERO {
            return vector;
        }
        let above = vector.y.abs().atan2(vector.x.abs());
        match borders.even_angle(sector_count(self.directions), above) {
            Some(even) => {
                let (sin, cos) = even.sin_cos();
                Vec2::new(cos.copysign(vector.x), sin.copysign(vector.y)) * vector.length()
            }
            None => vector,
        }
    }

    /// Turns one direction towards `target`, the shorter way round (counter-clockwise
    /// when both ways are as long); returns whether the facing changed. With 4
    /// directions a diagonal target counts as the straight direction it turns to.
    ///
    /// ```
    /// # use bevy_walkmask::{Facing, FacingDirection};
    /// let mut facing = Facing::four().towards(FacingDirection::Right);
    /// assert!(facing.step_towards(FacingDirection::Left));
    /// assert_eq!(facing.direction, FacingDirection::Up);
    /// assert!(facing.step_towards(FacingDirection::Left));
    /// assert!(!facing.step_towards(FacingDirection::Left));
    /// assert_eq!(facing.direction, FacingDirection::Left);
    /// ```
    pub fn step_towards(&mut self, target: FacingDirection) -> bool {
        let mut aim = *self;
        aim.turn_to(target);
        let target = aim.direction;
        let from = self.direction.index();
        let around = (target.index() + 8 - from) % 8;
        if around == 0 {
            return false;
        }
        // With 4 directions a step is a quarter turn, from a straight direction; from
        // a diagonal (set by hand), an eighth, onto a straight one.
        let stride = if sector_count(self.directions) == 4 && !self.direction.is_diagonal() {
            2
        } else {
            1
        };
        let next = if around <= 4 {
            (from + stride) % 8
        } else {
            (from + 8 - stride) % 8
        };
        self.direction = FacingDirection::ALL[next];
        true
    }

    /// Whether a standing walker turns before it steps towards `step` (it has a
    /// [`turn_seconds`](Self::turn_seconds) and does not face that way), and the
    /// direction it turns to.
    pub(crate) fn turn_before(&self, step: Vec2) -> Option<FacingDirection> {
        if !(self.turn_seconds.is_finite() && self.turn_seconds > 0.0) {
            return None;
        }
        let mut aim = *self;
        let target = FacingDirection::nearest(self.weighed(step), self.directions)?;
        aim.turn_to(target);
        (aim.direction != self.direction).then_some(aim.direction)
    }

    /// Faces `direction` at once. With 4 directions a diagonal is replaced by the
    /// nearer straight direction of the current facing's side: `UpRight` turns a walker
    /// that faces `Right` or `Down` to `Right`, else to `Up`.
    ///
    /// ```
    /// # use bevy_walkmask::{Facing, FacingDirection};
    /// let mut facing = Facing::four().towards(FacingDirection::Up);
    /// facing.turn_to(FacingDirection::UpRight);
    /// assert_eq!(facing.direction, FacingDirection::Up);
    /// ```
    pub fn turn_to(&mut self, direction: FacingDirection) {
        let direction = if sector_count(self.directions) == 4 && direction.is_diagonal() {
            let i = direction.index();
            let (ccw, cw) = (
                FacingDirection::ALL[(i + 1) % 8],
                FacingDirection::ALL[i - 1],
            );
            let from = self.direction.angle();
            if angle_between(ccw.angle(), from) < angle_between(cw.angle(), from) {
                ccw
            } else {
                cw
            }
        } else {
            direction
        };
        if self.direction != direction {
            self.direction = direction;
        }
    }

    /// Faces the direction nearest `vector` (its vertical part weighed by
    /// [`perspective`](Self::perspective)) at once (no hysteresis); a zero or
    /// non-finite vector changes nothing. Returns whether the facing changed.
    pub fn face_vector(&mut self, vector: Vec2) -> bool {
        match FacingDirection::nearest(self.weighed(vector), self.directions) {
            Some(direction) if direction != self.direction => {
                self.direction = direction;
                true
            }
            _ => false,
        }
    }

    /// Follows a movement direction, with hysteresis: keeps the current direction
    /// while `vector` is within half a sector plus [`hysteresis_degrees`](Self::hysteresis_degrees)
    /// of it, else faces the nearest direction. Returns whether the facing changed.
    /// The vertical part of `vector` is weighed by [`perspective`](Self::perspective).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{Facing, FacingDirection};
    /// let mut facing = Facing::four().towards(FacingDirection::Right);
    /// // 50 degrees: past the 45 degree border, but within the 10 degree hysteresis.
    /// assert!(!facing.follow(Vec2::from_angle(50f32.to_radians())));
    /// assert!(facing.follow(Vec2::from_angle(60f32.to_radians())));
    /// assert_eq!(facing.direction, FacingDirection::Up);
    /// ```
    pub fn follow(&mut self, vector: Vec2) -> bool {
        let vector = self.weighed(vector);
        if self.well_inside_own_sector(vector) {
            return false;
        }
        self.follow_by_angle(vector)
    }

    /// Whether `vector` points well inside the sector of the direction faced (by a
    /// margin far above rounding), where [`follow`](Self::follow) keeps the facing:
    /// the common case, a walk straight on, decided without an arctangent.
    fn well_inside_own_sector(&self, vector: Vec2) -> bool {
        const MARGIN: f32 = 1e-4;
        let sectors = sector_count(self.directions);
        if sectors == 4 && self.direction.is_diagonal() {
            return false;
        }
        // The cosine of half a sector: 45 degrees with 4 directions, 22.5 with 8.
        let cos_half_sector = if sectors == 4 {
            std::f32::consts::FRAC_1_SQRT_2
        } else {
            0.923_879_5
        };
        let along = vector.dot(self.direction.vector());
        along.is_finite() && along > (cos_half_sector + MARGIN) * vector.length()
    }

    /// [`follow`](Self::follow), from the angle of `vector`.
    fn follow_by_angle(&mut self, vector: Vec2) -> bool {
        let Some(nearest) = FacingDirection::nearest(vector, self.directions) else {
            return false;
        };
        if nearest == self.direction {
            return false;
        }
        let half_sector = TAU / f32::from(sector_count(self.directions)) / 2.0;
        let hysteresis = if self.hysteresis_degrees.is_finite() {
            self.hysteresis_degrees.to_radians().clamp(0.0, half_sector)
        } else {
            0.0
        };
        let off = angle_between(vector.to_angle(), self.direction.angle());
        let allowed_direction = sector_count(self.directions) == 8 || !self.direction.is_diagonal();
        if allowed_direction && off <= half_sector + hysteresis {
            return false;
        }
        self.direction = nearest;
        true
    }
}

/// The unit vector of each of [`FacingDirection::ALL`], exact on the axes.
const UNIT_VECTORS: [Vec2; 8] = {
    const D: f32 = std::f32::consts::FRAC_1_SQRT_2;
    [
        Vec2::new(1.0, 0.0),
        Vec2::new(D, D),
        Vec2::new(0.0, 1.0),
        Vec2::new(-D, D),
        Vec2::new(-1.0, 0.0),
        Vec2::new(-D, -D),
        Vec2::new(0.0, -1.0),
        Vec2::new(D, -D),
    ]
};

/// The absolute difference of two angles, in 0..=pi.
fn angle_between(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(TAU);
    d.min(TAU - d)
}

/// What to face at the end of a walk, or when turned: a direction, or a point in the
/// world (the direction from the walker to it, the nearest of its 4 or 8).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{FaceTarget, FacingDirection, PlayerWalker, WalkCommandsExt};
///
/// fn to_the_counter(mut commands: Commands, player: Single<Entity, With<PlayerWalker>>) {
///     let clerk = Vec2::new(240.0, -80.0);
///     // Walk to the counter, then look at the clerk.
///     commands.entity(*player).walk_to_facing(clerk + Vec2::new(-60.0, 0.0), FaceTarget::Point(clerk));
///     // Or look out of the window, wherever the walk ends.
///     # let _ = FaceTarget::Direction(FacingDirection::Up);
/// }
/// # bevy::ecs::system::assert_is_system(to_the_counter);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Clone, Debug, PartialEq)]
pub enum FaceTarget {
    /// This direction.
    Direction(FacingDirection),
    /// Towards this point (world coordinates).
    Point(Vec2),
}

impl FaceTarget {
    /// Turns `facing` for a walker standing at `position`. A point at the walker's own
    /// position, or not finite, leaves it as it is.
    pub fn apply(self, facing: &mut Facing, position: Vec2) {
        match self {
            FaceTarget::Direction(direction) => facing.turn_to(direction),
            FaceTarget::Point(point) => {
                facing.face_vector(point - position);
            }
        }
    }
}

/// Turns `entity` (standing at `position`) to `face`, giving it a [`Facing`] if it
/// has none; writes the component only when the facing changes.
pub(crate) fn turn(entity: &mut EntityWorldMut, face: FaceTarget, position: Vec2) {
    let mut facing = entity.get::<Facing>().copied().unwrap_or_default();
    face.apply(&mut facing, position);
    if entity.get::<Facing>() != Some(&facing) {
        entity.insert(facing);
    }
}

/// Turns `entity` to `face` from where it stands now ([`turn`]); nothing for an
/// entity that is gone or has no position.
pub(crate) fn face_now(world: &mut World, entity: Entity, face: FaceTarget) {
    let Some(position) = crate::placement::entity_world_xy(world, entity) else {
        return;
    };
    if let Ok(mut entity) = world.get_entity_mut(entity) {
        turn(&mut entity, face, position);
    }
}

/// Turns `facing` towards a step taken in `direction` (with hysteresis), writing the
/// component only when the facing changes.
pub(crate) fn follow_step(facing: &mut Mut<Facing>, direction: Vec2) {
    let mut next = **facing;
    if next.follow(direction) {
        **facing = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_directions_vector_points_at_its_angle() {
        for direction in FacingDirection::ALL {
            let by_angle = Vec2::from_angle(direction.angle());
            assert!(
                direction.vector().abs_diff_eq(by_angle, 1e-6),
                "{direction:?}"
            );
        }
    }

    /// Turning one direction at a time never skips one: from every direction to
    /// every other, 4 and 8 directions, each step is one sector and the turn ends
    /// facing the target in at most half a turn.
    #[test]
    fn turning_steps_through_every_direction_between() {
        for directions in [4u8, 8] {
            let sectors = usize::from(directions);
            for from in FacingDirection::ALL {
                for to in FacingDirection::ALL {
                    let mut facing = Facing {
                        directions,
                        ..Facing::four()
                    }
                    .towards(from);
                    let mut aim = facing;
                    aim.turn_to(to);
                    let mut steps = 0;
                    loop {
                        let before = facing.direction;
                        if !facing.step_towards(to) {
                            break;
                        }
                        steps += 1;
                        let apart = (facing.direction.index() + 8 - before.index()) % 8;
                        assert!(
                            apart == 8 / sectors || apart == 8 - 8 / sectors,
                            "{directions} directions, {from:?} to {to:?}: {before:?} -> {:?}",
                            facing.direction
                        );
                        assert!(steps <= sectors / 2, "{from:?} to {to:?} never ends");
                    }
                    assert_eq!(facing.direction, aim.direction, "{from:?} to {to:?}");
                }
            }
        }
    }

    /// A perspective ratio is the same as scaling the movement's vertical part, for
    /// following, facing and turning before walking; a bad ratio counts as 1.
    #[test]
    fn perspective_weighs_the_vertical_part() {
        for ratio in [0.25, 0.5, 2.0] {
            for directions in [4, 8] {
                for degrees in (0..360).step_by(7) {
                    let step = Vec2::from_angle((degrees as f32).to_radians()) * 3.0;
                    let scaled = Vec2::new(step.x, step.y * ratio);
                    let plain = Facing {
                        directions,
                        ..Facing::four()
                    };
                    let deep = plain.with_perspective(ratio);
                    let (mut a, mut b) = (deep, plain);
                    assert_eq!(a.follow(step), b.follow(scaled));
                    assert_eq!(a.direction, b.direction, "{ratio} {degrees}");
                    let (mut a, mut b) = (deep, plain);
                    a.face_vector(step);
                    b.face_vector(scaled);
                    assert_eq!(a.direction, b.direction, "{ratio} {degrees}");
                    let turning = |f: Facing| f.with_turn_seconds(0.1);
                    assert_eq!(
                        turning(deep).turn_before(step),
                        turning(plain).turn_before(scaled)
                    );
                }
            }
        }
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let step = Vec2::new(1.0, 3.0);
            let (mut a, mut b) = (Facing::eight().with_perspective(bad), Facing::eight());
            a.face_vector(step);
            b.face_vector(step);
            assert_eq!(a.direction, b.direction, "{bad}");
        }
    }

    /// Custom borders: every movement faces the direction whose sector, as the borders
    /// draw it, holds the movement's angle, for 4 and 8 directions, following and
    /// facing alike; even or invalid borders change nothing.
    #[test]
    fn sector_borders_set_where_each_direction_begins() {
        use FacingDirection::*;
        let cases = [
            (4u8, SectorBorders::four(60.0)),
            (4, SectorBorders::four(20.0)),
            (8, SectorBorders::eight(15.0, 50.0)),
            (8, SectorBorders::eight(35.0, 80.0)),
        ];
        for (directions, borders) in cases {
            let facing = Facing {
                directions,
                ..Facing::four()
            }
            .with_hysteresis(0.0)
            .with_borders(borders);
            for tenth in 0..3600 {
                let degrees = tenth as f32 / 10.0;
                // Folded into the quarter above the horizontal on the right.
                let folded = match degrees {
                    d if d <= 90.0 => d,
                    d if d <= 180.0 => 180.0 - d,
                    d if d <= 270.0 => d - 180.0,
                    d => 360.0 - d,
                };
                let near_border = [borders.side, borders.diagonal]
                    .iter()
                    .take(usize::from(directions / 4))
                    .any(|b| (folded - b).abs() < 0.2);
                if near_border {
                    continue;
                }
                let (right, up) = (!(90.0..=270.0).contains(&degrees), degrees < 180.0);
                let side = if right { Right } else { Left };
                let vertical = if up { Up } else { Down };
                let diagonal = match (right, up) {
                    (true, true) => UpRight,
                    (false, true) => UpLeft,
                    (false, false) => DownLeft,
                    (true, false) => DownRight,
                };
                let expected = if folded < borders.side {
                    side
                } else if directions == 8 && folded < borders.diagonal {
                    diagonal
                } else {
                    vertical
                };
                let vector = Vec2::from_angle(degrees.to_radians()) * 5.0;
                let mut faced = facing;
                faced.face_vector(vector);
                assert_eq!(
                    faced.direction, expected,
                    "{directions} {borders:?} {degrees}"
                );
                let mut followed = facing.towards(expected.mirrored());
                followed.follow(vector);
                assert_eq!(
                    followed.direction, expected,
                    "{directions} {borders:?} {degrees}"
                );
            }
        }
        // Even borders, and invalid ones, which count as even.
        for borders in [
            SectorBorders::eight(22.5, 67.5),
            SectorBorders::eight(90.0, 67.5),
            SectorBorders::eight(70.0, 30.0),
            SectorBorders::eight(f32::NAN, 67.5),
        ] {
            for degrees in (0..360).step_by(3) {
                let vector = Vec2::from_angle((degrees as f32).to_radians());
                let (mut a, mut b) = (Facing::eight().with_borders(borders), Facing::eight());
                a.face_vector(vector);
                b.face_vector(vector);
                assert_eq!(a.direction, b.direction, "{borders:?} {degrees}");
            }
        }
    }

    /// The shortcut for a walk straight on never decides otherwise than the angle:
    /// every direction faced, 4 and 8 directions, several hysteresis settings, and
    /// movements all round (many on and beside the sectors' borders).
    #[test]
    fn following_decides_as_the_angle_does() {
        let mut checked_inside = 0;
        for directions in [4, 8] {
            for hysteresis_degrees in [0.0, 10.0, 11.25, 45.0, f32::NAN] {
                for direction in FacingDirection::ALL {
                    let facing = Facing {
                        direction,
                        directions,
                        hysteresis_degrees,
                        turn_seconds: 0.0,
                        perspective: 1.0,
                        borders: None,
                    };
                    for step in 0..=14_400 {
                        let degrees = step as f32 * 0.025;
                        for length in [1e-3, 1.0, 350.0] {
                            let vector = Vec2::from_angle(degrees.to_radians()) * length;
                            let (mut fast, mut slow) = (facing, facing);
                            let turned = fast.follow(vector);
                            assert_eq!(
                                turned,
                                slow.follow_by_angle(vector),
                                "{facing:?} following {vector} ({degrees} degrees)"
                            );
                            assert_eq!(fast.direction, slow.direction);
                            checked_inside += usize::from(facing.well_inside_own_sector(vector));
                        }
                    }
                }
                for vector in [Vec2::ZERO, Vec2::NAN, Vec2::new(f32::INFINITY, 1.0)] {
                    let mut facing = Facing::eight();
                    assert!(!facing.follow(vector));
                }
            }
        }
        assert!(checked_inside > 100_000);
    }
}
