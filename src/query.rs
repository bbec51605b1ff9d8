//! Questions game code asks about a room without moving anyone: [`WalkQuery`].
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_walkmask::{WalkAreas, WalkQuery};
//!
//! #[derive(Resource)]
//! struct Exit { room: Entity, door: Vec2, player: Entity }
//!
//! fn can_leave(query: WalkQuery, exit: Res<Exit>) {
//!     let Ok(view) = query.walker(exit.player) else { return };
//!     let from = view.position().unwrap_or_default();
//!     // With the gate (area 2) closed, whatever the room says now.
//!     let gate_closed = query.room(exit.room).map(|room| room.with_areas(WalkAreas::only(&[1])));
//!     match gate_closed.and_then(|room| room.is_reachable(from, exit.door)) {
//!         Ok(reachable) => info!("the exit is reachable with the gate closed: {reachable}"),
//!         Err(why) => debug!("not answered yet: {why}"),
//!     }
//! }
//! # bevy::ecs::system::assert_is_system(can_leave);
//! ```

use std::sync::{Arc, Mutex};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use walkmask::los::last_clear_point;
use walkmask::snap::nearest_walkable;
use walkmask::{AreaSet, NavGrid, Point};

use crate::asset::WalkMask;
use crate::layers::exits::SpawnPoint;
use crate::layers::hotspots::HotspotLookup;
use crate::layers::{InRegion, WalkRegions};
use crate::layers::{LayerProblem, first_pixels, layer_id_at, placed_layer};
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{Rooms, clearance_pixels, walker_areas};
use crate::plan::grid_cache::GridKey;
use crate::plan::worker::{InFlight, PlanOutput, PlanQuery, Planner};
use crate::room::{MaskMapping, RoomLookup, WalkAreas, WalkRoom, room_of};
use crate::walker::Walker;

/// Why a [`WalkQuery`] could not answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WalkQueryError {
    /// The entity is not a [`WalkRoom`].
    #[error("{0} is not a WalkRoom")]
    NotARoom(Entity),
    /// The entity is not a [`Walker`].
    #[error("{0} is not a Walker")]
    NotAWalker(Entity),
    /// The walker names no room and stands over none.
    #[error("the walker is in no room")]
    NoRoom,
    /// The room's mask is not loaded (yet, or it failed).
    #[error("the room's walk mask is not loaded")]
    MaskNotLoaded,
    /// The room's placement or the radius cannot be used (zero or non-finite scale,
    /// a negative or non-finite radius).
    #[error("the room's placement or the radius cannot be used")]
    Unusable,
    /// A point given is not finite.
    #[error("a point is not finite")]
    NotFinite,
    /// The grid this question needs (for these areas and radius) is being prepared on
    /// the async compute pool: ask again in a later frame. Grids that walkers use are
    /// ready after their first walk; [`RoomView::prepare`] asks for one ahead.
    #[error("the grid for these areas and radius is being prepared")]
    Preparing,
}

/// Identifies a path asked for with [`RoomView::find_path`]; its
/// [`PathQueryAnswer`] carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct PathQueryId(u64);

impl PathQueryId {
    /// The id as a number (for logs).
    pub fn get(self) -> u64 {
        self.0
    }
}

/// The answer to [`RoomView::find_path`], sent in [`WalkmaskSystems::Poll`](crate::WalkmaskSystems::Poll)
/// of the frame its task finishes: both a [`Message`] and a global [`Event`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::PathQueryAnswer;
///
/// fn read(mut answers: MessageReader<PathQueryAnswer>) {
///     for answer in answers.read() {
///         match &answer.path {
///             Some(path) => info!("{:?}: {} corners, {:.0} long", answer.id, path.len(), answer.length()),
///             None => info!("{:?}: no way", answer.id),
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(read);
/// ```
#[derive(Event, Message, Clone, Debug, PartialEq)]
pub struct PathQueryAnswer {
    /// The query answered.
    pub id: PathQueryId,
    /// The room asked about.
    pub room: Entity,
    /// Where the path was asked from (world).
    pub from: Vec2,
    /// Where to (world).
    pub to: Vec2,
    /// The path in world coordinates, from `from` (or the walkable point nearest it,
    /// when `from` is blocked) to `to` (or, when `to` cannot be reached, the
    /// reachable point nearest it: see `snapped`); `None` when there is none (nothing
    /// walkable, the room or its mask went away, or snapping is off and `to` cannot
    /// be reached).
    pub path: Option<Vec<Vec2>>,
    /// Whether the path ends elsewhere than `to`.
    pub snapped: bool,
}

impl PathQueryAnswer {
    /// Length of the path in world units (0 without one).
    pub fn length(&self) -> f32 {
        self.path
            .as_deref()
            .unwrap_or(&[])
            .windows(2)
            .map(|w| w[0].distance(w[1]))
            .sum()
    }
}

/// Path queries under way.
#[derive(Resource, Default, Clone)]
pub(crate) struct PathQueries(Arc<Mutex<Vec<PendingPath>>>);

struct PendingPath {
    id: PathQueryId,
    room: Entity,
    /// The grid it was asked on: the answer is `None` when the room no longer has
    /// that mask, or the mask's pixels changed.
    key: GridKey,
    from: Vec2,
    to: Vec2,
    task: Task<PlanOutput>,
    _in_flight: InFlight,
}

/// Answers path queries whose task finished.
pub(crate) fn poll_path_queries(
    mut commands: Commands,
    queries: Res<PathQueries>,
    rooms: Query<&WalkRoom>,
    masks: Res<Assets<WalkMask>>,
) {
    let mut pending = queries.0.lock().unwrap_or_else(|e| e.into_inner());
    pending.retain_mut(|query| {
        let Some(output) = check_ready(&mut query.task) else {
            return true;
        };
        let same_mask = rooms.get(query.room).is_ok_and(|room| {
            room.walk_mask().id() == query.key.mask
                && masks
                    .get(room.walk_mask())
                    .is_some_and(|mask| mask.revision() == query.key.revision)
        });
        let (path, snapped) = match output {
            PlanOutput::Path(path) if same_mask => (Some(path.waypoints), path.snapped),
            PlanOutput::Path(_) | PlanOutput::Unreachable => (None, false),
        };
        let answer = PathQueryAnswer {
            id: query.id,
            room: query.room,
            from: query.from,
            to: query.to,
            path,
            snapped,
        };
        commands.queue(move |world: &mut World| {
            world.write_message(answer.clone());
            world.trigger(answer);
        });
        false
    });
}

/// Questions about rooms, in world coordinates, without moving anyone: walkability,
/// areas, nearest walkable points, straight-line traces, reachability (instant, from
/// the grid's region labels) and paths (on the async compute pool, answered by
/// [`PathQueryAnswer`]). Pick the room with [`WalkQuery::room`] (its enabled areas,
/// radius 0) or [`WalkQuery::walker`] (the walker's room, areas and radius), then ask
/// the [`RoomView`].
///
/// Nothing here blocks the main thread: a question that needs a grid not yet
/// prepared (an area set or radius no walker has used) starts preparing it and
/// answers [`WalkQueryError::Preparing`] until it is ready.
#[derive(SystemParam)]
pub struct WalkQuery<'w, 's> {
    rooms: Rooms<'w, 's>,
    walkers: Query<
        'w,
        's,
        (
            &'static Walker,
            &'static Transform,
            Option<&'static ChildOf>,
        ),
    >,
    parents: Parents<'w, 's>,
    regions: Query<'w, 's, &'static WalkRegions>,
    hotspot_layers: Query<'w, 's, &'static crate::layers::WalkHotspots>,
    in_regions: Query<'w, 's, &'static InRegion>,
    hotspots: HotspotLookup<'w, 's>,
    spawn_points: Query<'w, 's, (Entity, &'static SpawnPoint, &'static ChildOf)>,
    #[cfg(feature = "walk_behinds")]
    walk_behinds: Query<'w, 's, &'static crate::layers::walk_behinds::WalkBehinds>,
    masks: Res<'w, Assets<WalkMask>>,
    planner: Res<'w, Planner>,
    paths: Res<'w, PathQueries>,
}

impl<'w, 's> WalkQuery<'w, 's> {
    /// The room and region `walker` is in (region 0: none), as of its last move;
    /// `None` when it is in no room with a [`WalkRegions`] layer, or is no walker.
    /// Regions of one layer never overlap (one id per pixel), so there is one.
    pub fn region_of(&self, walker: Entity) -> Option<(Entity, u8)> {
        self.in_regions
            .get(walker)
            .ok()
            .map(|in_region| (in_region.room, in_region.region))
    }

    /// The room `room`, with its enabled areas, for a walker of radius 0.
    pub fn room(&self, room: Entity) -> Result<RoomView<'_, 'w, 's>, WalkQueryError> {
        let (_, walk_room, transform) = self
            .rooms
            .get(room)
            .map_err(|_| WalkQueryError::NotARoom(room))?;
        self.view(
            room,
            walk_room,
            transform,
            walk_room.areas.to_area_set(),
            0.0,
        )
        .map(|view| RoomView {
            position: None,
            ..view
        })
    }

    /// The room `walker` is in, as that walker sees it: its room's enabled areas
    /// limited to its own, and its radius.
    pub fn walker(&self, walker: Entity) -> Result<RoomView<'_, 'w, 's>, WalkQueryError> {
        let (walker_component, transform, child_of) = self
            .walkers
            .get(walker)
            .map_err(|_| WalkQueryError::NotAWalker(walker))?;
        let position = walker_xy(transform, child_of, &self.parents);
        let room = match room_of(
            walker_component.room,
            position,
            self.rooms.iter(),
            &self.masks,
        ) {
            RoomLookup::Found(room) => room,
            RoomLookup::NotARoom(room) => return Err(WalkQueryError::NotARoom(room)),
            RoomLookup::NoRoom => return Err(WalkQueryError::NoRoom),
        };
        let (_, walk_room, room_transform) = self
            .rooms
            .get(room)
            .map_err(|_| WalkQueryError::NotARoom(room))?;
        let areas = walker_areas(walker_component, walk_room);
        let mut view = self.view(
            room,
            walk_room,
            room_transform,
            areas,
            walker_component.radius,
        )?;
        view.position = Some(position);
        Ok(view)
    }

    fn view<'q>(
        &'q self,
        room: Entity,
        walk_room: &'q WalkRoom,
        transform: &GlobalTransform,
        areas: AreaSet,
        radius: f32,
    ) -> Result<RoomView<'q, 'w, 's>, WalkQueryError> {
        let mask = self
            .masks
            .get(walk_room.walk_mask())
            .ok_or(WalkQueryError::MaskNotLoaded)?;
        let painted = self.masks.get(&walk_room.mask).unwrap_or(mask);
        let mapping = walk_room.mapping(transform, mask.size());
        if !mapping.is_valid() {
            return Err(WalkQueryError::Unusable);
        }
        Ok(RoomView {
            query: self,
            room,
            mask_id: walk_room.walk_mask().id(),
            mask,
            painted,
            mapping,
            walk_room,
            areas,
            radius,
            position: None,
        })
    }
}

/// One room as a walker sees it (areas and radius), from [`WalkQuery`]. Points are
/// world coordinates.
pub struct RoomView<'q, 'w, 's> {
    query: &'q WalkQuery<'w, 's>,
    room: Entity,
    mask_id: AssetId<WalkMask>,
    /// The mask as painted (`mask` is as walkers see it: blocking regions blocked).
    painted: &'q WalkMask,
    mask: &'q WalkMask,
    mapping: MaskMapping,
    /// The room's component: room pixels map through it and `mapping`.
    walk_room: &'q WalkRoom,
    areas: AreaSet,
    radius: f32,
    position: Option<Vec2>,
}

impl RoomView<'_, '_, '_> {
    /// The room entity.
    pub fn room(&self) -> Entity {
        self.room
    }

    /// Where the walker stands, for a view from [`WalkQuery::walker`].
    pub fn position(&self) -> Option<Vec2> {
        self.position
    }

    /// How the mask lies in the world.
    pub fn mapping(&self) -> MaskMapping {
        self.mapping
    }

    /// The world point of room pixel `pixel` (x right, y down from the top-left
    /// corner, one per picture pixel: [`WalkRoom::room_pixel_to_mask`]) as the room
    /// is placed now; `None` for a point that is not a number. For game code that
    /// walks a character to a place in the picture.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::prelude::*;
    ///
    /// /// Walks the player to the foot of the stairs, at (1210, 655) in the picture.
    /// fn to_the_stairs(mut commands: Commands, query: WalkQuery, player: Single<Entity, With<PlayerWalker>>, room: Single<Entity, With<WalkRoom>>) {
    ///     let Ok(view) = query.room(*room) else { return };
    ///     if let Some(stairs) = view.room_pixel_to_world(Vec2::new(1210.0, 655.0)) {
    ///         commands.entity(*player).walk_to(stairs);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(to_the_stairs);
    /// ```
    pub fn room_pixel_to_world(&self, pixel: Vec2) -> Option<Vec2> {
        self.walk_room.room_pixel_to_world(&self.mapping, pixel)
    }

    /// The room pixel at world point `world` as the room is placed now (the reverse
    /// of [`RoomView::room_pixel_to_world`]).
    pub fn world_to_room_pixel(&self, world: Vec2) -> Option<Vec2> {
        self.walk_room.world_to_room_pixel(&self.mapping, world)
    }

    /// The same room with exactly `areas` enabled (whatever the room says now): "is
    /// the exit reachable with the gate closed".
    pub fn with_areas(mut self, areas: WalkAreas) -> Self {
        self.areas = areas.to_area_set();
        self
    }

    /// The same room for a walker of `radius` world units (see
    /// [`Walker::radius`](crate::Walker::radius)).
    pub fn with_radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self
    }

    /// The area id painted at `point` (enabled or not, blocked by a region or not; 0
    /// where nothing is);
    /// `None` outside the mask or for a non-finite point.
    pub fn area_at(&self, point: Vec2) -> Option<u8> {
        let (x, y) = self.mapping.world_to_mask(point).pixel()?;
        self.painted.core().area_at(x, y)
    }

    /// The region of the room's [`WalkRegions`] layer at `point`: `Some(0)` where
    /// there is none or it is disabled; `None` when the room has no region layer, it
    /// is still loading or is no whole fraction of the mask, or `point` is off the
    /// layer or not finite.
    pub fn region_at(&self, point: Vec2) -> Option<u8> {
        let regions = self.query.regions.get(self.room).ok()?;
        let id = layer_id_at(
            &regions.layer,
            &self.query.masks,
            self.mask.size(),
            &self.mapping,
            point,
        )?;
        Some(if regions.is_enabled(id) { id } else { 0 })
    }

    /// The name of region `id` of the room's [`WalkRegions`]: the one the component
    /// gives it, else the one its layer's loader settings give it
    /// ([`WalkMask::name`](crate::WalkMask::name)); `None` when neither does (or the
    /// room has no region layer).
    pub fn region_name(&self, id: u8) -> Option<&str> {
        let regions = self.query.regions.get(self.room).ok()?;
        regions
            .name(id)
            .filter(|name| !name.is_empty())
            .or_else(|| self.query.masks.get(&regions.layer)?.name(id))
    }

    /// The enabled [`Hotspot`](crate::Hotspot) of the room's
    /// [`WalkHotspots`](crate::WalkHotspots) layer at `point`; `None` on the floor,
    /// where the hotspot with that id is disabled or missing, when the room has no
    /// hotspot layer or it is still loading, or for a point off the layer or not
    /// finite.
    pub fn hotspot_at(&self, point: Vec2) -> Option<Entity> {
        self.query.hotspots.in_room(self.room, point)
    }

    /// What is wrong with the room's layers, for a walker of this view's areas and
    /// radius: hotspots without pixels and hotspot pixels without hotspots, named
    /// regions without pixels, walk-behind pixels without a baseline, walk-to points
    /// and spawn points that are not walkable, walk-to points that a walker coming
    /// in at a spawn point cannot reach, layers that do not fit. Layers still loading
    /// are left out; [`WalkQueryError::Preparing`] while the grid is prepared.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::WalkQuery;
    ///
    /// fn report(query: WalkQuery, rooms: Query<Entity, With<bevy_walkmask::WalkRoom>>) {
    ///     for room in &rooms {
    ///         let problems = query.room(room).and_then(|view| view.with_radius(14.0).check_layers());
    ///         for problem in problems.iter().flatten() {
    ///             warn!("room {room}: {problem}");
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(report);
    /// ```
    pub fn check_layers(&self) -> Result<Vec<LayerProblem>, WalkQueryError> {
        let mut problems = Vec::new();
        let mut layers = Vec::new();
        if let Ok(hotspots) = self.query.hotspot_layers.get(self.room) {
            layers.push(("hotspots", &hotspots.layer));
        }
        if let Ok(regions) = self.query.regions.get(self.room) {
            layers.push(("regions", &regions.layer));
        }
        #[cfg(feature = "walk_behinds")]
        if let Ok(behinds) = self.query.walk_behinds.get(self.room) {
            layers.push(("walk-behinds", &behinds.layer));
        }
        for (layer, handle) in layers {
            if self
                .query
                .masks
                .get(handle)
                .is_some_and(|mask| !mask.reads_ids())
            {
                problems.push(LayerProblem::NotReadAsIds { layer });
            }
        }
        let walk_tos = self.query.hotspots.check(self.room, &mut problems);
        if let Ok(regions) = self.query.regions.get(self.room) {
            match placed_layer(&regions.layer, &self.query.masks, self.mask.size()) {
                Ok(Some((layer, _))) => {
                    let first = first_pixels(layer);
                    problems.extend(
                        regions
                            .regions
                            .iter()
                            .filter(|r| !r.name.is_empty() && first[r.id as usize].is_none())
                            .map(|r| LayerProblem::RegionWithoutPixels { id: r.id }),
                    );
                }
                Ok(None) => {}
                Err(why) => problems.push(LayerProblem::Unusable {
                    layer: "regions",
                    why,
                }),
            }
        }
        #[cfg(feature = "walk_behinds")]
        if let Ok(behinds) = self.query.walk_behinds.get(self.room)
            && let Some(layer) = self.query.masks.get(&behinds.layer)
        {
            let first = first_pixels(layer.core());
            for (id, pixel) in first.iter().enumerate().skip(1) {
                if let Some(pixel) = *pixel
                    && !behinds.baselines.iter().any(|(b, _)| *b as usize == id)
                {
                    problems.push(LayerProblem::WalkBehindWithoutBaseline {
                        id: id as u8,
                        pixel,
                    });
                }
            }
        }
        let walkable = |p: Vec2| match self.is_walkable(p) {
            Err(WalkQueryError::NotFinite) => Ok(false),
            other => other,
        };
        let mut spawns = Vec::new();
        for (spawn, spawn_point, child_of) in &self.query.spawn_points {
            if child_of.parent() != self.room {
                continue;
            }
            let point = spawn_point.at;
            let in_world = self.walk_room.room_pixel_to_world(&self.mapping, point);
            if let Some(in_world) = in_world
                && walkable(in_world)?
            {
                spawns.push((spawn, in_world));
            } else {
                problems.push(LayerProblem::SpawnPointNotWalkable { spawn, point });
            }
        }
        for (hotspot, point) in walk_tos {
            let Some(in_world) = self.walk_room.room_pixel_to_world(&self.mapping, point) else {
                problems.push(LayerProblem::WalkToNotWalkable { hotspot, point });
                continue;
            };
            if !walkable(in_world)? {
                problems.push(LayerProblem::WalkToNotWalkable { hotspot, point });
                continue;
            }
            for &(spawn, from) in &spawns {
                if !self.is_reachable(from, in_world)? {
                    problems.push(LayerProblem::WalkToUnreachable {
                        hotspot,
                        point,
                        spawn,
                    });
                }
            }
        }
        Ok(problems)
    }

    /// Whether a walker of this view's areas and radius may stand at `point`.
    /// Outside the mask: `false`.
    pub fn is_walkable(&self, point: Vec2) -> Result<bool, WalkQueryError> {
        let p = self.mask_point(point)?;
        if self.radius == 0.0 {
            // No clearance: the mask (blocking regions blocked) and the areas say
            // it, no grid needed.
            let area = p.pixel().and_then(|(x, y)| self.mask.core().area_at(x, y));
            return Ok(area.is_some_and(|area| area != 0 && self.areas.contains(area)));
        }
        let grid = self.grid()?;
        Ok(p.pixel().is_some_and(|(x, y)| grid.is_walkable(x, y)))
    }

    /// The centre of the walkable pixel nearest `point` (`point` itself when it is
    /// walkable); `None` when nothing is walkable.
    pub fn nearest_walkable(&self, point: Vec2) -> Result<Option<Vec2>, WalkQueryError> {
        let p = self.mask_point(point)?;
        let grid = self.grid()?;
        if p.pixel().is_some_and(|(x, y)| grid.is_walkable(x, y)) {
            return Ok(Some(point));
        }
        Ok(nearest_walkable(&grid, p).map(|(x, y)| {
            self.mapping
                .mask_to_world(Point::new(x as f32 + 0.5, y as f32 + 0.5))
        }))
    }

    /// The last point on the straight line from `from` towards `to` that a walker
    /// reaches without crossing a blocked pixel (`to` itself when the whole line is
    /// clear; Adventure Game Studio's trace); `None` when `from` is not walkable.
    pub fn last_clear_point(&self, from: Vec2, to: Vec2) -> Result<Option<Vec2>, WalkQueryError> {
        let (a, b) = (self.mask_point(from)?, self.mask_point(to)?);
        let grid = self.grid()?;
        Ok(last_clear_point(&grid, a, b).map(|p| {
            if p == b {
                to
            } else {
                self.mapping.mask_to_world(p)
            }
        }))
    }

    /// Whether a walker standing at `from` can walk to exactly `to` (both walkable and
    /// connected), from the grid's region labels: no search. A `from` on a blocked
    /// pixel counts from the walkable pixel nearest it, where a walker would step.
    pub fn is_reachable(&self, from: Vec2, to: Vec2) -> Result<bool, WalkQueryError> {
        let (a, b) = (self.mask_point(from)?, self.mask_point(to)?);
        let grid = self.grid()?;
        let Some(goal) = grid.region_at(b) else {
            return Ok(false);
        };
        let start = match grid.region_at(a) {
            Some(region) => Some(region),
            None => nearest_walkable(&grid, a).and_then(|(x, y)| grid.region(x, y)),
        };
        Ok(start == Some(goal))
    }

    /// Asks for the grid of this view to be prepared (on the async compute pool) if it
    /// is not; `true` when it is ready now.
    pub fn prepare(&self) -> Result<bool, WalkQueryError> {
        match self.grid() {
            Ok(_) => Ok(true),
            Err(WalkQueryError::Preparing) => Ok(false),
            Err(other) => Err(other),
        }
    }

    /// Asks for a path from `from` to `to`, computed on the async compute pool like a
    /// walk (the same finishing steps, snapping as the plugin is set, no obstacles)
    /// and answered by a [`PathQueryAnswer`] carrying the returned id, in a later
    /// frame. Non-finite points are an error at once.
    pub fn find_path(&self, from: Vec2, to: Vec2) -> Result<PathQueryId, WalkQueryError> {
        let start = self.mask_point(from)?;
        let goal = self.mask_point(to)?;
        let (Some((start, _)), Some((goal, clamped))) = (
            self.mapping.clamp_to_mask(start),
            self.mapping.clamp_to_mask(goal),
        ) else {
            return Err(WalkQueryError::NotFinite);
        };
        let key = self.key()?;
        let query = PlanQuery {
            key,
            mask: self.mask.core().clone(),
            start,
            goal,
            clamped,
            mapping: self.mapping,
            obstacles: Vec::new(),
            share_destination: false,
            grid_steps: false,
        };
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = PathQueryId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let planner = self.query.planner.clone();
        let in_flight = InFlight::new(&planner.planning);
        let task = AsyncComputeTaskPool::get().spawn(async move { planner.plan(query).await });
        let mut pending = self.query.paths.0.lock().unwrap_or_else(|e| e.into_inner());
        pending.push(PendingPath {
            id,
            room: self.room,
            key,
            from,
            to,
            task,
            _in_flight: in_flight,
        });
        Ok(id)
    }

    fn mask_point(&self, world: Vec2) -> Result<Point, WalkQueryError> {
        if !world.is_finite() {
            return Err(WalkQueryError::NotFinite);
        }
        Ok(self.mapping.world_to_mask(world))
    }

    fn key(&self) -> Result<GridKey, WalkQueryError> {
        let clearance =
            clearance_pixels(self.radius, &self.mapping).ok_or(WalkQueryError::Unusable)?;
        Ok(GridKey::new(self.mask_id, self.mask, self.areas, clearance))
    }

    /// The prepared grid, or [`WalkQueryError::Preparing`] (starting to prepare it).
    fn grid(&self) -> Result<NavGrid, WalkQueryError> {
        self.query
            .planner
            .main_thread_grid(self.key()?, self.mask.core())
            .ok_or(WalkQueryError::Preparing)
    }
}
