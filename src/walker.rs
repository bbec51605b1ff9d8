//! Walkers: the components a walking character carries.

use bevy::prelude::*;

use crate::facing::{FaceTarget, Facing};
use crate::request::{CarriesRequest, RequestId};
use crate::room::WalkAreas;

/// An entity that walks on a [`WalkRoom`](crate::WalkRoom)'s mask at a constant speed.
///
/// Its position is where its feet are: the x and y of its world position (its
/// `Transform` for a top-level entity; a walker may also be a child, of its room or of
/// anything else, and then walks in world space all the same; z is kept).
///
/// Required components: [`WalkState`], [`WalkHeading`], [`Facing`] (and `Transform`);
/// [`WalkmaskPlugin`](crate::WalkmaskPlugin) adds [`Avoidance`](crate::Avoidance)
/// and the state its crowds and walks keep.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{PlayerWalker, WalkAreas, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // The player: left clicks move it.
///     commands.spawn((Walker::new(240.0), PlayerWalker, Transform::from_xyz(0.0, -100.0, 1.0)));
///     // An NPC who never enters area 3 (the kitchen).
///     commands.spawn((Walker::new(120.0).with_areas(WalkAreas::only(&[1, 2])), Transform::default()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, Default)]
#[require(Transform, WalkState, WalkHeading, Facing)]
pub struct Walker {
    /// World units per second (across the screen, and every way unless
    /// [`vertical_speed`](Self::vertical_speed) is set).
    pub speed: f32,
    /// World units per second straight up or down the screen; `None` (the default):
    /// [`speed`](Self::speed). Set, the speed of a walk at an angle lies between the
    /// two on an ellipse (Adventure Game Studio's separate X and Y speeds): a
    /// character walking into the picture's depth can go slower than across it.
    pub vertical_speed: Option<f32>,
    /// The [`WalkRoom`](crate::WalkRoom) entity this walker is in. `None`: the only
    /// room, or with several rooms the one whose mask lies under the walker (the
    /// topmost by world z where masks overlap).
    #[entities]
    pub room: Option<Entity>,
    /// A further limit on the areas this walker may use (intersected with the room's
    /// enabled areas); `None` = no limit.
    pub areas: Option<WalkAreas>,
    /// How far (world units) its path keeps from walls, closed areas and solid
    /// [`WalkObstacle`](crate::WalkObstacle)s: a walker too wide for a doorway does
    /// not go through it. 0 (the default) lets it brush past them. Every point of its
    /// paths keeps at least `radius` minus half a mask pixel from the centre of every
    /// blocked pixel ([`walkmask::clearance`]). Negative, NaN or infinite radii make
    /// its requests unreachable (with a warning).
    pub radius: f32,
    /// Walk from mask pixel centre to pixel centre in the 8 grid directions, without
    /// cutting corners, ending at the centre of the pixel clicked
    /// ([`walkmask::PathOptions::grid_steps`]): tile-by-tile movement on a tile room
    /// with one pixel per tile. Default false: straight lines from corner to corner.
    pub grid_steps: bool,
}

impl Default for Walker {
    /// 200 world units per second, the room under it, no area limit.
    fn default() -> Self {
        Self::new(200.0)
    }
}

impl Walker {
    /// A walker moving `speed` world units per second, in the room under it, with no
    /// area limit.
    ///
    /// ```
    /// # use bevy_walkmask::Walker;
    /// assert_eq!(Walker::new(150.0).speed, 150.0);
    /// ```
    pub fn new(speed: f32) -> Self {
        Self {
            speed,
            vertical_speed: None,
            room: None,
            areas: None,
            radius: 0.0,
            grid_steps: false,
        }
    }

    /// Walks `speed` world units per second straight up or down the screen (see
    /// [`vertical_speed`](Self::vertical_speed)).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::Walker;
    /// let walker = Walker::new(120.0).with_vertical_speed(60.0);
    /// assert_eq!(walker.speed_towards(Vec2::X), 120.0);
    /// assert_eq!(walker.speed_towards(Vec2::NEG_Y), 60.0);
    /// let diagonal = walker.speed_towards(Vec2::ONE);
    /// assert!(diagonal > 60.0 && diagonal < 120.0);
    /// ```
    pub fn with_vertical_speed(mut self, speed: f32) -> Self {
        self.vertical_speed = Some(speed);
        self
    }

    /// World units per second walking in `direction` (any length): [`speed`](Self::speed),
    /// or with a [`vertical_speed`](Self::vertical_speed) a point of the ellipse
    /// through both. Negative, infinite or not-a-number speeds count as 0, and a
    /// zero or not-finite `direction` as across the screen.
    pub fn speed_towards(&self, direction: Vec2) -> f32 {
        let clean = |v: f32| if v.is_finite() { v.max(0.0) } else { 0.0 };
        let across = clean(self.speed);
        let Some(vertical) = self.vertical_speed.map(clean) else {
            return across;
        };
        if !direction.is_finite() || direction == Vec2::ZERO || vertical == across {
            return if direction.is_finite() && direction.x == 0.0 && direction.y != 0.0 {
                vertical
            } else {
                across
            };
        }
        // On the ellipse with half-axes `across` and `vertical`, along `direction`.
        let d = direction.normalize();
        let (a, b) = (d.x * vertical, d.y * across);
        let denominator = (a * a + b * b).sqrt();
        if denominator > 0.0 {
            across * vertical / denominator
        } else {
            0.0
        }
    }

    /// Puts the walker in the room `room`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::Walker;
    /// let room = Entity::PLACEHOLDER;
    /// assert_eq!(Walker::new(100.0).with_room(room).room, Some(room));
    /// ```
    pub fn with_room(mut self, room: Entity) -> Self {
        self.room = Some(room);
        self
    }

    /// Keeps the walker's paths `radius` world units off walls and obstacles (see
    /// [`Walker::radius`]).
    ///
    /// ```
    /// # use bevy_walkmask::Walker;
    /// assert_eq!(Walker::new(100.0).with_radius(12.0).radius, 12.0);
    /// ```
    pub fn with_radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self
    }

    /// Walks tile by tile (see [`Walker::grid_steps`]).
    ///
    /// ```
    /// # use bevy_walkmask::Walker;
    /// assert!(Walker::new(100.0).with_grid_steps().grid_steps);
    /// ```
    pub fn with_grid_steps(mut self) -> Self {
        self.grid_steps = true;
        self
    }

    /// Limits the walker to `areas` (on top of the room's enabled areas).
    ///
    /// ```
    /// # use bevy_walkmask::{WalkAreas, Walker};
    /// let npc = Walker::new(100.0).with_areas(WalkAreas::only(&[1]));
    /// assert!(!npc.areas.unwrap().contains(2));
    /// ```
    pub fn with_areas(mut self, areas: WalkAreas) -> Self {
        self.areas = Some(areas);
        self
    }
}

/// Marker: left clicks on a room send a [`WalkRequest`](crate::WalkRequest) for the
/// `PlayerWalker` walkers in that room (see [`ClickToWalk`](crate::ClickToWalk)).
///
/// Named so that a game's own `Player` component, imported beside the prelude, does
/// not shadow it (click-to-walk would then silently move no one).
///
/// ```
/// # use bevy::prelude::*;
/// use bevy_walkmask::{PlayerWalker, Walker};
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((Walker::new(200.0), PlayerWalker));
/// # }
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct PlayerWalker;

/// Marker: the walker gets a warm field while it stands, like a [`PlayerWalker`] (see
/// [`WalkTuning::warm_up`](crate::WalkTuning::warm_up)), for an NPC whose next walk
/// should start at once.
///
/// ```
/// # use bevy::prelude::*;
/// use bevy_walkmask::{KeepWarm, Walker};
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((Walker::new(120.0), KeepWarm));
/// # }
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct KeepWarm;

/// What a walker is doing.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkState, Walker};
///
/// fn log_states(walkers: Query<(Entity, &WalkState), (With<Walker>, Changed<WalkState>)>) {
///     for (entity, state) in &walkers {
///         info!("{entity}: {state:?}");
///     }
/// }
/// # bevy::ecs::system::assert_is_system(log_states);
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, PartialEq, Eq, Debug)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub enum WalkState {
    /// Standing, no request pending (also after [`stop_walking`](crate::WalkCommandsExt::stop_walking)).
    #[default]
    Idle,
    /// A path is being computed (or waits for the mask to load). A walker that is
    /// already walking stays [`Walking`](Self::Walking) while its next path is computed.
    Planning,
    /// Following a [`WalkPath`].
    Walking,
    /// The last walk ended at its destination (or the reachable point nearest to it).
    Arrived,
    /// The last request could not be answered with a path, or the walk was blocked
    /// (a re-plan found no way on).
    Unreachable,
}

/// The unit direction the walker is moving in, `Vec2::ZERO` when it is not moving.
/// To pick a walk or stand loop, [`Facing`] is usually what you want (4 or 8
/// directions, steady on diagonals, kept while standing).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkHeading;
///
/// fn face(mut walkers: Query<(&WalkHeading, &mut Sprite)>) {
///     for (heading, mut sprite) in &mut walkers {
///         if heading.0.x != 0.0 {
///             sprite.flip_x = heading.0.x < 0.0;
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(face);
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, PartialEq, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct WalkHeading(pub Vec2);

/// The path a walker is following, in world coordinates. Present while walking;
/// removed when the walk ends or stops. The plugin writes it; read it to draw or
/// inspect the walk.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkPath;
///
/// fn remaining(paths: Query<(&WalkPath, &Transform)>) {
///     for (path, transform) in &paths {
///         let _left: f32 = path.remaining_length(transform.translation.truncate());
///     }
/// }
/// # bevy::ecs::system::assert_is_system(remaining);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug)]
#[component(on_insert = crate::walk::saved::walk_path_inserted)]
pub struct WalkPath {
    /// The corners of the walk, the first one where it started.
    pub waypoints: Vec<Vec2>,
    /// Index of the waypoint the walker is heading to.
    pub next: usize,
    /// The destination that was asked for (the last waypoint differs when it was
    /// snapped to the nearest reachable point).
    pub target: Vec2,
    /// The request this walk answers.
    pub request: RequestId,
    /// What the walker faces when the walk ends at its end (see
    /// [`WalkRequest::face`](crate::WalkRequest::face)).
    pub face: Option<FaceTarget>,
}

impl WalkPath {
    /// Length still to walk from `position`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkPath;
    /// # use bevy_walkmask::RequestId;
    /// let path = WalkPath { waypoints: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0)], next: 1, target: Vec2::new(10.0, 5.0), request: RequestId::new(), face: None };
    /// assert_eq!(path.remaining_length(Vec2::new(4.0, 0.0)), 11.0);
    /// ```
    pub fn remaining_length(&self, position: Vec2) -> f32 {
        let rest = self.waypoints.get(self.next..).unwrap_or(&[]);
        let mut length = 0.0;
        let mut at = position;
        for &p in rest {
            length += at.distance(p);
            at = p;
        }
        length
    }

    /// The end of the walk.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkPath;
    /// # use bevy_walkmask::RequestId;
    /// let path = WalkPath { waypoints: vec![Vec2::ZERO, Vec2::X], next: 0, target: Vec2::X, request: RequestId::new(), face: None };
    /// assert_eq!(path.end(), Some(Vec2::X));
    /// ```
    pub fn end(&self) -> Option<Vec2> {
        self.waypoints.last().copied()
    }

    /// The point `distance` further along the walk from `position` (the walker's
    /// position on it), with the index of the waypoint after it; the end of the walk
    /// when less than `distance` is left.
    pub(crate) fn point_ahead(&self, position: Vec2, distance: f32) -> (Vec2, usize) {
        let mut at = position;
        let mut left = distance.max(0.0);
        for (i, &p) in self.waypoints.iter().enumerate().skip(self.next) {
            let d = at.distance(p);
            if d >= left && d > 0.0 {
                return (at + (p - at) * (left / d), i);
            }
            left -= d;
            at = p;
        }
        (at, self.waypoints.len())
    }
}

impl CarriesRequest for WalkPath {
    fn request(&self) -> RequestId {
        self.request
    }
}
