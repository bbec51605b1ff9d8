//! Walkers that see each other: local avoidance while walking
//! ([`walkmask::crowd`]'s ORCA, solved every frame on the async compute pool) and free
//! spots on arrival, for every walker with a [`radius`](crate::Walker::radius).
//!
//! This module proposes; the walk lifecycle moves. At the end of each frame, after
//! walkers moved, one system gathers the walkers of each room, claims a free spot
//! beside an occupied destination for each walker nearing one, and starts solving the
//! velocity each walking walker takes among its neighbours next frame (and the nudge
//! a standing one takes out of their way). At the start of the next frame's movement
//! those velocities are taken; `walk::movement` walks them through
//! [`walkmask::steer::slide`] on the walker's grid, so that a walker is never pushed
//! onto a blocked pixel, and re-plans a walker pushed out of sight of its next corner.

pub(crate) mod avoid;
pub(crate) mod grids;
pub(crate) mod motion;
pub(crate) mod tiles;
pub(crate) mod velocities;

pub use tiles::TILE_WAIT_SECONDS;

use bevy::prelude::*;

/// How a walker keeps out of other walkers' way. Every [`Walker`](crate::Walker)
/// has one (a required component); it acts for walkers with a
/// [`radius`](crate::Walker::radius) above zero, while
/// [`WalkTuning::avoidance`](crate::WalkTuning::avoidance) is on.
///
/// Walking walkers steer round each other by velocity (optimal reciprocal collision
/// avoidance: each takes half of the turn, or all of it against a walker of higher
/// [`priority`](Self::priority)); a standing walker steps a little aside for a
/// walker that comes through; walkers sent to a point someone already stands on
/// (or is heading for) stand on the nearest free spot beside it instead, seen from
/// the point. Their paths are still planned as if alone (solid
/// [`WalkObstacle`](crate::WalkObstacle)s aside). Walkers that walk tile by tile
/// ([`Walker::grid_steps`](crate::Walker::grid_steps)), with or without a radius,
/// hold one tile each and are not turned aside (others avoid them): a walker
/// reserves the tile it steps into before it leaves its own and waits while another
/// holds it (the one nearest the end of its walk goes first). Two that meet head-on
/// in a corridor one tile wide do not wait for ever: the one farther from its end
/// backs off to the nearest tile off the other's way, lets it pass and walks on. One
/// that waited [`TILE_WAIT_SECONDS`] with nowhere to back off to stops, its walk
/// ended [`Blocked`](crate::StopReason::Blocked).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{Avoidance, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // A guard nobody pushes aside, who avoids only the walkers of layer 2.
///     commands.spawn((
///         Walker::new(100.0).with_radius(10.0),
///         Avoidance::default().with_priority(250).with_layers(0b10),
///     ));
///     // A ghost: walks through everyone.
///     commands.spawn((Walker::new(100.0).with_radius(10.0), Avoidance::off()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct Avoidance {
    /// Whether the walker avoids others and others avoid it. Default true.
    pub enabled: bool,
    /// Who gives way: a walker never turns aside for one of lower priority (which
    /// then turns aside all the way), and two of equal priority each turn half way.
    /// `None` (the default): [`Avoidance::PLAYER_PRIORITY`] for a
    /// [`PlayerWalker`](crate::PlayerWalker), [`Avoidance::DEFAULT_PRIORITY`]
    /// otherwise, so that a crowd parts for the player.
    pub priority: Option<u8>,
    /// Two walkers avoid each other when their layers share a bit. Default 1.
    pub layers: u32,
    /// Stand beside an occupied destination instead of on it. Default true.
    pub spread_on_arrival: bool,
    /// The space (world units) kept between walkers standing side by side on
    /// arrival. `None` (the default): a fifth of the radius.
    pub arrival_gap: Option<f32>,
}

impl Default for Avoidance {
    fn default() -> Self {
        Self {
            enabled: true,
            priority: None,
            layers: 1,
            spread_on_arrival: true,
            arrival_gap: None,
        }
    }
}

impl Avoidance {
    /// The priority of a walker that names none.
    pub const DEFAULT_PRIORITY: u8 = 100;
    /// The priority of a [`PlayerWalker`](crate::PlayerWalker) that names none.
    pub const PLAYER_PRIORITY: u8 = 200;

    /// The priority the walker has: [`priority`](Self::priority), else
    /// [`PLAYER_PRIORITY`](Self::PLAYER_PRIORITY) for a player and
    /// [`DEFAULT_PRIORITY`](Self::DEFAULT_PRIORITY) for anyone else.
    pub(crate) fn priority_of(&self, player: bool) -> u8 {
        self.priority.unwrap_or(if player {
            Self::PLAYER_PRIORITY
        } else {
            Self::DEFAULT_PRIORITY
        })
    }

    /// No avoidance: the walker walks through others, and they through it.
    ///
    /// ```
    /// # use bevy_walkmask::Avoidance;
    /// assert!(!Avoidance::off().enabled);
    /// ```
    pub fn off() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// With priority `priority` (see [`Avoidance::priority`]).
    ///
    /// ```
    /// # use bevy_walkmask::Avoidance;
    /// assert_eq!(Avoidance::default().with_priority(7).priority, Some(7));
    /// ```
    pub fn with_priority(mut self, priority: u8) -> Self {
        self.priority = Some(priority);
        self
    }

    /// On layers `layers` (see [`Avoidance::layers`]).
    ///
    /// ```
    /// # use bevy_walkmask::Avoidance;
    /// assert_eq!(Avoidance::default().with_layers(0b101).layers, 0b101);
    /// ```
    pub fn with_layers(mut self, layers: u32) -> Self {
        self.layers = layers;
        self
    }

    /// Stands on its destination even when someone is there (see
    /// [`Avoidance::spread_on_arrival`]).
    ///
    /// ```
    /// # use bevy_walkmask::Avoidance;
    /// assert!(!Avoidance::default().exact_arrival().spread_on_arrival);
    /// ```
    pub fn exact_arrival(mut self) -> Self {
        self.spread_on_arrival = false;
        self
    }

    /// Keeps `gap` world units between walkers standing side by side on arrival.
    ///
    /// ```
    /// # use bevy_walkmask::Avoidance;
    /// assert_eq!(Avoidance::default().with_arrival_gap(3.0).arrival_gap, Some(3.0));
    /// ```
    pub fn with_arrival_gap(mut self, gap: f32) -> Self {
        self.arrival_gap = Some(gap);
        self
    }
}
