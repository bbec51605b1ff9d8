//! Ways out of a room and in: edges walkers walk off, exit hotspots, spawn points.
//!
//! * [`RoomEdges`] on a room: a walker whose feet cross one of its lines from inside
//!   gets [`WalkedOffEdge`] (whatever moved it). A walker first seen outside an edge
//!   gets nothing until it has come in.
//! * [`RoomExit`] on a [`Hotspot`](crate::Hotspot): once a walker's interaction with
//!   it arrives, the walker walks on to [`RoomExit::walk_off`] if there is one (off
//!   screen, ignoring the mask), then [`RoomExitRequested`] says where the game should
//!   take it.
//! * [`SpawnPoint`]s, children of a room at a room pixel, are where walkers come in:
//!   [`ExitCommandsExt::enter_room`] stops a walker, puts it in the room at the named
//!   spawn point and turns it.

use bevy::prelude::*;

use super::hotspots::InteractionArrived;
use crate::asset::WalkMask;
use crate::facing::{FaceTarget, FacingDirection, turn};
use crate::outcome::{RequestEnded, RequestOutcome};
use crate::placement::{Parents, composed_affine, set_world_xy, walker_xy};
use crate::request::{RequestId, WalkRequest, WalkRoute};
use crate::room::{MaskMapping, RoomPending, WalkRoom, room_pixel_to_world};
use crate::walk::accept::accept_request;
use crate::walk::end::stop_walker;
use crate::walk::hurry::{Hurried, Hurry};
use crate::walk::membership::CurrentRoom;
use crate::walker::Walker;

/// One of a room's four edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Clone, Debug, PartialEq, Hash)]
pub enum Edge {
    /// The line at [`RoomEdges::left`].
    Left,
    /// The line at [`RoomEdges::right`].
    Right,
    /// The line at [`RoomEdges::top`].
    Top,
    /// The line at [`RoomEdges::bottom`].
    Bottom,
}

/// A room's edges: lines (a column or a row of room pixels: x right, y down from the
/// walk mask's top-left corner, one per picture pixel, see
/// [`WalkRoom::room_pixel_to_mask`]) that walkers walk off the room across, wherever
/// the room is drawn. An edge left `None` is not there.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         WalkRoom::new(assets.load("rooms/street.walk.png")),
///         // A 1920-pixel-wide street: off it 20 pixels from either side.
///         RoomEdges::default().with_left(20.0).with_right(1900.0),
///     ));
///     commands.add_observer(|off: On<WalkedOffEdge>| info!("{} left by the {:?} edge", off.entity, off.edge));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct RoomEdges {
    /// Walkers whose feet are left of this room-pixel x are off the left edge.
    pub left: Option<f32>,
    /// Walkers whose feet are right of this room-pixel x are off the right edge.
    pub right: Option<f32>,
    /// Walkers whose feet are above this room-pixel y (a smaller y) are off the top
    /// edge.
    pub top: Option<f32>,
    /// Walkers whose feet are below this room-pixel y (a larger y) are off the bottom
    /// edge.
    pub bottom: Option<f32>,
}

impl RoomEdges {
    /// With the left edge at room-pixel x `x`.
    pub fn with_left(mut self, x: f32) -> Self {
        self.left = Some(x);
        self
    }

    /// With the right edge at room-pixel x `x`.
    pub fn with_right(mut self, x: f32) -> Self {
        self.right = Some(x);
        self
    }

    /// With the top edge at room-pixel y `y`.
    pub fn with_top(mut self, y: f32) -> Self {
        self.top = Some(y);
        self
    }

    /// With the bottom edge at room-pixel y `y`.
    pub fn with_bottom(mut self, y: f32) -> Self {
        self.bottom = Some(y);
        self
    }

    /// The edge a walker with its feet at room pixel `p` is off, if any (left and
    /// right before top and bottom).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{Edge, RoomEdges};
    /// let edges = RoomEdges::default().with_left(10.0).with_bottom(500.0);
    /// assert_eq!(edges.off(Vec2::new(9.0, 200.0)), Some(Edge::Left));
    /// assert_eq!(edges.off(Vec2::new(100.0, 501.0)), Some(Edge::Bottom));
    /// assert_eq!(edges.off(Vec2::new(100.0, 200.0)), None);
    /// ```
    pub fn off(&self, p: Vec2) -> Option<Edge> {
        if self.left.is_some_and(|x| p.x < x) {
            Some(Edge::Left)
        } else if self.right.is_some_and(|x| p.x > x) {
            Some(Edge::Right)
        } else if self.top.is_some_and(|y| p.y < y) {
            Some(Edge::Top)
        } else if self.bottom.is_some_and(|y| p.y > y) {
            Some(Edge::Bottom)
        } else {
            None
        }
    }
}

/// A walker walked off a room's edge: an [`EntityEvent`] on the walker and a
/// [`Message`].
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkedOffEdge {
    /// The walker.
    pub entity: Entity,
    /// The room.
    pub room: Entity,
    /// The edge.
    pub edge: Edge,
}

/// Which side of its room's edges a walker was on last frame (added by the plugin).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct EdgeSide {
    room: Entity,
    off: Option<Edge>,
}

/// A walker as [`track_edges`] follows it.
type EdgeWalker = (
    Entity,
    &'static CurrentRoom,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static EdgeSide>,
);

/// Follows walkers across their room's edges (after walkers moved) and sends
/// [`WalkedOffEdge`] for every crossing from inside. Run only while some room has
/// [`RoomEdges`]; a room whose mask is not loaded has no edges yet.
pub(crate) fn track_edges(
    mut commands: Commands,
    walkers: Query<EdgeWalker>,
    edges: Query<(&RoomEdges, &WalkRoom, &GlobalTransform)>,
    masks: Res<Assets<WalkMask>>,
    parents: Parents,
) {
    // The last room's edges and placement (walkers of a room often come in a row).
    type Placed<'a> = (Entity, RoomEdges, Option<(&'a WalkRoom, MaskMapping)>);
    let mut placed: Option<Placed> = None;
    for (entity, current, transform, child_of, side) in &walkers {
        let position = walker_xy(transform, child_of, &parents);
        let Some(room) = current.get() else {
            continue;
        };
        if placed.as_ref().is_none_or(|(last, ..)| *last != room) {
            placed = edges.get(room).ok().map(|(room_edges, walk_room, global)| {
                let mapping = masks
                    .get(&walk_room.mask)
                    .map(|mask| (walk_room, walk_room.mapping(global, mask.size())));
                (room, *room_edges, mapping)
            });
        }
        let Some((_, room_edges, Some((walk_room, mapping)))) = &placed else {
            continue;
        };
        // The feet in room pixels.
        let Some(feet) = walk_room.world_to_room_pixel(mapping, position) else {
            continue;
        };
        let off = room_edges.off(feet);
        let now = EdgeSide { room, off };
        if side == Some(&now) {
            continue;
        }
        if let (Some(edge), Some(before)) = (off, side)
            && before.room == room
            && before.off.is_none()
        {
            let event = WalkedOffEdge { entity, room, edge };
            commands.queue(move |world: &mut World| {
                world.write_message(event);
                world.trigger(event);
            });
        }
        commands.entity(entity).try_insert(now);
    }
}

/// Makes a [`Hotspot`](crate::Hotspot) an exit: a walker that walks to it and gets
/// to its walk-to point (a verb done [`WalkPolicy::WalkThenAct`](crate::WalkPolicy),
/// the default) walks on to `walk_off`, if given, then gets [`RoomExitRequested`].
/// Verbs done without walking (give the exit `Verb::LOOK` as
/// [`WalkPolicy::FaceOnly`](crate::WalkPolicy) to look at it) and walks that end out
/// of reach do not leave; a walk to it skipped with [`Hurry::Skip`] leaves at once.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn door(mut commands: Commands, room: Entity) {
///     commands.spawn((
///         // Room pixels: the door's threshold, then off the picture's right side.
///         Hotspot::new(5, "door").with_walk_to(Vec2::new(1860.0, 600.0)),
///         RoomExit::new("garden", "from the lobby").with_walk_off(Vec2::new(1980.0, 600.0)),
///         ChildOf(room),
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct RoomExit {
    /// Where it leads: the game's name for the room.
    pub to: String,
    /// The spawn point there ([`SpawnPoint::name`]).
    pub spawn: String,
    /// A point to walk on to before leaving, through walls and off the mask (out of
    /// the picture), in room pixels (x right, y down from the walk mask's top-left
    /// corner, one per picture pixel, see [`WalkRoom::room_pixel_to_mask`]; a point
    /// off the picture is fine), or `None` to leave from the walk-to point.
    pub walk_off: Option<Vec2>,
}

impl RoomExit {
    /// An exit to the room the game calls `to`, coming in at spawn point `spawn`.
    pub fn new(to: impl Into<String>, spawn: impl Into<String>) -> Self {
        Self {
            to: to.into(),
            spawn: spawn.into(),
            walk_off: None,
        }
    }

    /// Walks on to `point` (room pixels, see [`RoomExit::walk_off`]) before leaving.
    pub fn with_walk_off(mut self, point: Vec2) -> Self {
        self.walk_off = Some(point);
        self
    }
}

/// A walker went through a [`RoomExit`]: the game changes room (and calls
/// [`ExitCommandsExt::enter_room`]). An [`EntityEvent`] on the walker and a
/// [`Message`].
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct RoomExitRequested {
    /// The walker.
    pub entity: Entity,
    /// The exit hotspot.
    pub exit: Entity,
    /// [`RoomExit::to`].
    pub to: String,
    /// [`RoomExit::spawn`].
    pub spawn: String,
}

/// A walker walking off through an exit, on the exit's walk-off route (added by the
/// plugin when the walk-off starts, removed when it ends; saved with the walker, so
/// a walk-off loaded back still leaves by its exit).
///
/// The walk-off is a route through given points ([`WalkRoute::Anywhere`]):
/// it goes on from wherever the walker stands, walls or not, and ends with
/// [`RoomExitRequested`] on arrival. A game that moves a leaving walker itself
/// (a knock-back, a teleport) stops it first.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::LeavingBy;
///
/// // Who is on the way out, and by which exit.
/// fn leaving(walkers: Query<(Entity, &LeavingBy)>) {
///     for (walker, leaving) in &walkers {
///         info!("{walker} leaves by {} ({})", leaving.exit(), leaving.request());
///     }
/// }
/// # bevy::ecs::system::assert_is_system(leaving);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct LeavingBy {
    #[entities]
    exit: Entity,
    request: RequestId,
}

impl LeavingBy {
    /// The exit hotspot the walker leaves by.
    pub fn exit(&self) -> Entity {
        self.exit
    }

    /// The request of the walk-off (its outcomes carry it).
    pub fn request(&self) -> RequestId {
        self.request
    }
}

/// Sends [`RoomExitRequested`] for `walker` through `exit`.
fn request_exit(world: &mut World, walker: Entity, exit: Entity) {
    let Some(room_exit) = world.get::<RoomExit>(exit).cloned() else {
        return;
    };
    let event = RoomExitRequested {
        entity: walker,
        exit,
        to: room_exit.to,
        spawn: room_exit.spawn,
    };
    world.write_message(event.clone());
    if world.get_entity(walker).is_ok() {
        world.trigger(event);
    }
}

/// An interaction with an exit arrived: walk off, or leave at once. Only a walk
/// that got to the exit's walk-to point leaves by it ([`InteractionArrived::at_walk_to`]):
/// a verb done without walking (a look) or a walk that ended out of reach acts
/// where the walker stands. A walk skipped to its end ([`Hurry::Skip`]) leaves at
/// once, without the walk-off.
pub(crate) fn leave_through_exit(
    arrived: On<InteractionArrived>,
    exits: Query<&RoomExit>,
    hurried: Query<&Hurried>,
    mut commands: Commands,
) {
    let Ok(room_exit) = exits.get(arrived.hotspot) else {
        return;
    };
    if !arrived.at_walk_to {
        return;
    }
    let (walker, exit) = (arrived.walker, arrived.hotspot);
    let skipped = hurried.get(walker).is_ok_and(|hurried| {
        hurried.how == Hurry::Skip && Some(hurried.request) == arrived.request
    });
    let walk_off = room_exit.walk_off.filter(|_| !skipped);
    commands.queue(move |world: &mut World| {
        // In the world as the exit's room is placed now.
        let room = world.get::<ChildOf>(exit).map(ChildOf::parent);
        let walk_off = walk_off
            .zip(room)
            .and_then(|(pixel, room)| room_pixel_to_world(world, room, pixel));
        let Some(point) = walk_off else {
            request_exit(world, walker, exit);
            return;
        };
        let request =
            WalkRequest::new(walker, point).with_route(WalkRoute::Anywhere { via: Vec::new() });
        let Ok(mut entity) = world.get_entity_mut(walker) else {
            return;
        };
        entity.insert(LeavingBy {
            exit,
            request: request.id,
        });
        accept_request(world, request);
    });
}

/// The walk off an exit ended: at its end, the exit is requested; any other end
/// (another request, a stop, no path) drops it.
pub(crate) fn walk_off_ended(
    ev: On<RequestEnded>,
    leaving: Query<&LeavingBy>,
    mut commands: Commands,
) {
    let Ok(leaving) = leaving.get(ev.entity) else {
        return;
    };
    if leaving.request != ev.request {
        return;
    }
    let (walker, exit, request) = (ev.entity, leaving.exit, ev.request);
    let arrived = matches!(ev.outcome, RequestOutcome::Arrived { .. });
    commands.queue(move |world: &mut World| {
        if let Ok(mut entity) = world.get_entity_mut(walker)
            && entity
                .get::<LeavingBy>()
                .is_some_and(|l| l.request == request)
        {
            entity.remove::<LeavingBy>();
        }
        if arrived {
            request_exit(world, walker, exit);
        }
    });
}

/// Where walkers come into a room: a child of the room at a room pixel (x right, y
/// down from the walk mask's top-left corner, one per picture pixel, see
/// [`WalkRoom::room_pixel_to_mask`]), mapped through the room's placement when a
/// walker comes in.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{FacingDirection, SpawnPoint};
///
/// fn gate(mut commands: Commands, garden: Entity) {
///     commands.spawn((
///         SpawnPoint::new("from the lobby", Vec2::new(110.0, 760.0))
///             .facing(FacingDirection::Right),
///         ChildOf(garden),
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct SpawnPoint {
    /// Its name, as exits name it ([`RoomExit::spawn`]).
    pub name: String,
    /// Where walkers come in (room pixels).
    pub at: Vec2,
    /// The direction a walker faces when it comes in here.
    pub facing: Option<FacingDirection>,
}

impl SpawnPoint {
    /// A spawn point named `name` at room pixel `at`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::SpawnPoint;
    /// let door = SpawnPoint::new("door", Vec2::new(1850.0, 540.0));
    /// assert_eq!(door.at, Vec2::new(1850.0, 540.0));
    /// ```
    pub fn new(name: impl Into<String>, at: Vec2) -> Self {
        Self {
            name: name.into(),
            at,
            facing: None,
        }
    }

    /// Walkers coming in here face `direction`.
    pub fn facing(mut self, direction: FacingDirection) -> Self {
        self.facing = Some(direction);
        self
    }
}

/// A walker sent into a room whose walk mask is not loaded yet: it comes in at the
/// spawn point once the mask is (added and removed by the plugin; saved with the
/// walker).
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct EnteringRoom {
    /// The room.
    #[entities]
    pub room: Entity,
    /// The spawn point's name.
    pub spawn: String,
}

/// Room changes.
pub trait ExitCommandsExt {
    /// Stops the walker and puts it in `room` at the [`SpawnPoint`] named `spawn`
    /// (a child of `room`), facing the spawn point's direction: its
    /// [`Walker::room`](crate::Walker::room) becomes `room`. A room without such a
    /// spawn point leaves the walker where it is, with a warning. While the room's
    /// walk mask is loading, the walker stands where it is ([`EnteringRoom`]) and
    /// comes in once the mask is loaded.
    fn enter_room(&mut self, room: Entity, spawn: impl Into<String>) -> &mut Self;
}

impl ExitCommandsExt for EntityCommands<'_> {
    fn enter_room(&mut self, room: Entity, spawn: impl Into<String>) -> &mut Self {
        let (walker, spawn) = (self.id(), spawn.into());
        self.commands().queue(move |world: &mut World| {
            enter_room(world, walker, room, &spawn);
        });
        self
    }
}

/// Moves `walker` to world `at` in `room`. A walker parented to another room leaves
/// it (it would be despawned with it) and keeps its world z; one parented to
/// anything else stays there.
pub(crate) fn place_in_room(world: &mut World, walker: Entity, room: Entity, at: Vec2) {
    let parent = world.get::<ChildOf>(walker).map(ChildOf::parent);
    if let Some(parent) = parent
        && parent != room
        && world.get::<WalkRoom>(parent).is_some()
    {
        let Some(z) = composed_affine(world, walker).map(|a| a.translation.z) else {
            return;
        };
        let Ok(mut entity) = world.get_entity_mut(walker) else {
            return;
        };
        entity.remove::<ChildOf>();
        if let Some(mut transform) = entity.get_mut::<Transform>() {
            transform.translation = at.extend(z);
        }
        return;
    }
    // Under its parent as it is now (which may have been spawned this frame too).
    let parent = parent
        .and_then(|parent| composed_affine(world, parent))
        .map(GlobalTransform::from);
    if let Some(mut transform) = world.get_mut::<Transform>(walker) {
        set_world_xy(&mut transform, parent.as_ref(), at);
    }
}

/// Puts `walker` in `room` at its spawn point `spawn` (see
/// [`ExitCommandsExt::enter_room`]).
pub(crate) fn enter_room(world: &mut World, walker: Entity, room: Entity, spawn: &str) {
    let mut points = world.query::<(Entity, &SpawnPoint, &ChildOf)>();
    let found = points
        .iter(world)
        .find(|(_, point, child_of)| child_of.parent() == room && point.name == spawn)
        .map(|(_, point, _)| (point.at, point.facing));
    if found.is_none() && world.get::<RoomPending>(room).is_some() {
        // Its spawn points are still coming (a room file loading): wait for them.
        if let Ok(mut entity) = world.get_entity_mut(walker) {
            entity.insert(EnteringRoom {
                room,
                spawn: spawn.to_string(),
            });
        }
        return;
    }
    if let Ok(mut entity) = world.get_entity_mut(walker) {
        entity.remove::<EnteringRoom>();
    }
    let Some((pixel, facing)) = found else {
        warn!("{walker} stays where it is: room {room} has no spawn point named {spawn:?}");
        return;
    };
    if world.get::<Walker>(walker).is_none() {
        return;
    }
    stop_walker(world, walker);
    if let Some(mut settings) = world.get_mut::<Walker>(walker) {
        settings.room = Some(room);
    }
    // The spawn point's place as the room is placed now (it may have been spawned or
    // moved earlier in the frame).
    if !pixel.is_finite() {
        warn!("{walker} stays where it is: spawn point {spawn:?} of room {room} is at {pixel}");
        return;
    }
    let Some(at) = room_pixel_to_world(world, room, pixel) else {
        // The mask is loading (or the room is placed where nothing can stand).
        if let Ok(mut entity) = world.get_entity_mut(walker) {
            entity.insert(EnteringRoom {
                room,
                spawn: spawn.to_string(),
            });
        }
        return;
    };
    place_in_room(world, walker, room, at);
    if let (Some(direction), Ok(mut entity)) = (facing, world.get_entity_mut(walker)) {
        turn(&mut entity, FaceTarget::Direction(direction), at);
    }
}

/// Brings in the walkers waiting for a room's mask ([`EnteringRoom`]) once it is
/// loaded; a walker whose room is gone stays where it is. Runs only while one waits.
pub(crate) fn enter_loaded_rooms(world: &mut World) {
    let mut waiting = world.query::<(Entity, &EnteringRoom)>();
    let ready: Vec<(Entity, Entity, String)> = waiting
        .iter(world)
        .filter(|(_, entering)| {
            world.get::<RoomPending>(entering.room).is_none()
                && world.get::<WalkRoom>(entering.room).is_none_or(|room| {
                    world
                        .get_resource::<Assets<WalkMask>>()
                        .is_some_and(|masks| masks.contains(&room.mask))
                })
        })
        .map(|(walker, entering)| (walker, entering.room, entering.spawn.clone()))
        .collect();
    for (walker, room, spawn) in ready {
        // (An observer of a walker brought in before may have despawned this one.)
        if world.get_entity(walker).is_err() {
            continue;
        }
        if world.get::<WalkRoom>(room).is_none() {
            world.entity_mut(walker).remove::<EnteringRoom>();
            warn!("{walker} stays where it is: room {room}, which it was entering, is gone");
            continue;
        }
        enter_room(world, walker, room, &spawn);
        if let Ok(mut entity) = world.get_entity_mut(walker)
            && entity.take::<EnteringRoom>().is_some()
        {
            warn!("{walker} stays where it is: room {room} is placed where nothing can stand");
        }
    }
}
