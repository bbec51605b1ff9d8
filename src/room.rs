//! Rooms: a walk mask placed in the world, and the areas enabled in it.

use bevy::math::Affine2;
use bevy::prelude::*;
use walkmask::{AreaSet, Point};

use crate::asset::WalkMask;

/// A set of enabled walkable area ids (1..=255), reflectable and cheap to copy.
///
/// It wraps [`walkmask::AreaSet`]. Area 0 means "blocked" and is never enabled.
/// The default is every area.
///
/// ```
/// use bevy_walkmask::WalkAreas;
///
/// let mut areas = WalkAreas::only(&[1]);
/// assert!(areas.contains(1) && !areas.contains(2));
/// areas.insert(2); // the gate opens
/// assert!(areas.contains(2));
/// assert_eq!(WalkAreas::default(), WalkAreas::all());
/// ```
#[derive(Reflect, Clone, Copy, PartialEq, Eq, Hash)]
#[reflect(Default, Clone, PartialEq, Debug)]
pub struct WalkAreas {
    bits: [u64; 4],
}

impl WalkAreas {
    /// Every area 1..=255 enabled.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// assert!(WalkAreas::all().contains(255) && !WalkAreas::all().contains(0));
    /// ```
    pub const fn all() -> Self {
        Self::from_area_set(AreaSet::all())
    }

    /// No area enabled: nothing is walkable.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// assert!(WalkAreas::none().is_empty());
    /// ```
    pub const fn none() -> Self {
        Self::from_area_set(AreaSet::none())
    }

    /// Exactly the listed areas (0 is ignored).
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// let areas = WalkAreas::only(&[1, 3]);
    /// assert_eq!(areas.iter().collect::<Vec<_>>(), vec![1, 3]);
    /// ```
    pub fn only(ids: &[u8]) -> Self {
        Self::from_area_set(AreaSet::only(ids))
    }

    /// Whether `id` is enabled. Always false for 0.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// assert!(WalkAreas::only(&[7]).contains(7));
    /// ```
    #[inline]
    pub const fn contains(&self, id: u8) -> bool {
        self.to_area_set().contains(id)
    }

    /// Enables `id` (0 is ignored).
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// let mut areas = WalkAreas::none();
    /// areas.insert(4);
    /// assert!(areas.contains(4));
    /// ```
    pub fn insert(&mut self, id: u8) {
        self.update(|set| set.insert(id));
    }

    /// Disables `id`.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// let mut areas = WalkAreas::all();
    /// areas.remove(2);
    /// assert!(!areas.contains(2) && areas.contains(1));
    /// ```
    pub fn remove(&mut self, id: u8) {
        self.update(|set| set.remove(id));
    }

    /// Enables or disables `id`.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// let mut areas = WalkAreas::all();
    /// areas.set(2, false);
    /// assert!(!areas.contains(2));
    /// ```
    pub fn set(&mut self, id: u8, enabled: bool) {
        self.update(|set| set.set(id, enabled));
    }

    /// The areas enabled in both sets.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// let room = WalkAreas::only(&[1, 2]);
    /// let npc = WalkAreas::only(&[1, 3]);
    /// assert_eq!(room.intersection(&npc), WalkAreas::only(&[1]));
    /// ```
    pub fn intersection(&self, other: &WalkAreas) -> WalkAreas {
        Self::from_area_set(self.to_area_set().intersection(&other.to_area_set()))
    }

    /// Whether no area is enabled.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// assert!(!WalkAreas::all().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.to_area_set().is_empty()
    }

    /// The enabled ids in increasing order.
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// assert_eq!(WalkAreas::all().iter().count(), 255);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (1..=255u8).filter(|&id| self.contains(id))
    }

    /// The same set as the core's [`AreaSet`].
    ///
    /// ```
    /// # use bevy_walkmask::WalkAreas;
    /// use bevy_walkmask::walkmask::AreaSet;
    /// assert_eq!(WalkAreas::only(&[2]).to_area_set(), AreaSet::only(&[2]));
    /// ```
    pub const fn to_area_set(&self) -> AreaSet {
        AreaSet::from_bits(self.bits)
    }

    /// The set holding exactly the areas of the core's `set`.
    const fn from_area_set(set: AreaSet) -> Self {
        Self { bits: set.bits() }
    }

    fn update(&mut self, change: impl FnOnce(&mut AreaSet)) {
        let mut set = self.to_area_set();
        change(&mut set);
        *self = Self::from_area_set(set);
    }
}

impl Default for WalkAreas {
    /// Every area.
    fn default() -> Self {
        Self::all()
    }
}

impl std::fmt::Debug for WalkAreas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl From<AreaSet> for WalkAreas {
    fn from(set: AreaSet) -> Self {
        Self::from_area_set(set)
    }
}

impl From<WalkAreas> for AreaSet {
    fn from(areas: WalkAreas) -> Self {
        areas.to_area_set()
    }
}

impl FromIterator<u8> for WalkAreas {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        Self::from_area_set(iter.into_iter().collect())
    }
}

/// A walkable room: a [`WalkMask`] asset placed in the world.
///
/// The mask lies in the room entity's local space, centred on its origin (like a
/// `Sprite` on the same entity), `scale` local units per mask pixel (2.0 = a
/// half-resolution mask under a full-resolution background), moved by `offset`; the
/// room's whole [`GlobalTransform`] (translation, rotation about z, scale) then places
/// it in the world, exactly as it places the room's sprite and its children. Mask rows
/// grow downwards, `y` grows upwards:
///
/// ```text
/// mask pixel (px, py) -> room-local = offset + ((px - w/2) * scale, (h/2 - py) * scale)
///                     -> world      = room GlobalTransform * room-local
/// ```
///
/// `areas` are the areas enabled in this room right now (open a gate with
/// [`enable_area`](Self::enable_area)). When what a walker may use changes (an area
/// that occurs in the mask is enabled or disabled, the mask, scale or offset changes,
/// or the room moves), its walkers re-plan from where they stand and report
/// [`PathReplanned`](crate::PathReplanned); writes that change nothing (enabling an
/// area that is already enabled, or one the mask does not contain) cost nothing.
///
/// With the `picking` feature, `WalkRoom` requires [`bevy::picking::Pickable`],
/// so a left click on the room's sprite (or a child's) walks the [`PlayerWalker`](crate::PlayerWalker)
/// walkers in this room there.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkAreas, WalkMask, WalkRoom};
///
/// fn spawn_room(mut commands: Commands, assets: Res<AssetServer>) {
///     let mask: Handle<WalkMask> = assets.load("rooms/lobby.walk.png");
///     commands.spawn((
///         Sprite::from_image(assets.load("rooms/lobby.png")),
///         WalkRoom::new(mask).with_areas(WalkAreas::only(&[1])), // area 2 opens later
///     ));
/// }
/// # bevy::ecs::system::assert_is_system(spawn_room);
/// ```
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component, Clone, Debug)]
#[cfg_attr(
    feature = "picking",
    require(Transform, Visibility, bevy::picking::Pickable)
)]
#[cfg_attr(not(feature = "picking"), require(Transform, Visibility))]
pub struct WalkRoom {
    /// The walk mask.
    pub mask: Handle<WalkMask>,
    /// Room-local units per mask pixel. Must be positive and finite.
    pub scale: f32,
    /// Where the mask's centre lies in the room's local space.
    pub offset: Vec2,
    /// Areas enabled in this room.
    pub areas: WalkAreas,
    /// The mask as walkers see it while regions of the room block the way
    /// ([`Region::blocks`](crate::Region::blocks)): `mask` with their pixels blocked,
    /// made by the plugin; `None` while none blocks.
    #[reflect(ignore)]
    pub(crate) walkable: Option<Handle<WalkMask>>,
}

impl WalkRoom {
    /// A room over `mask`, one unit per pixel, every area enabled.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let room = WalkRoom::new(Handle::default());
    /// assert_eq!(room.scale, 1.0);
    /// ```
    pub fn new(mask: Handle<WalkMask>) -> Self {
        Self {
            mask,
            scale: 1.0,
            offset: Vec2::ZERO,
            areas: WalkAreas::all(),
            walkable: None,
        }
    }

    /// The mask walkers walk on: [`mask`](Self::mask), or, while regions of the
    /// room block the way, the plugin's copy of it with their pixels blocked.
    pub(crate) fn walk_mask(&self) -> &Handle<WalkMask> {
        self.walkable.as_ref().unwrap_or(&self.mask)
    }

    /// Sets the room-local units per mask pixel.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// assert_eq!(room.scale, 2.0);
    /// ```
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// Sets where the mask's centre lies in the room's local space.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let room = WalkRoom::new(Handle::default()).with_offset(Vec2::new(0.0, -40.0));
    /// assert_eq!(room.offset.y, -40.0);
    /// ```
    pub fn with_offset(mut self, offset: Vec2) -> Self {
        self.offset = offset;
        self
    }

    /// Sets the enabled areas.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{WalkAreas, WalkRoom};
    /// let room = WalkRoom::new(Handle::default()).with_areas(WalkAreas::only(&[1]));
    /// assert!(!room.areas.contains(2));
    /// ```
    pub fn with_areas(mut self, areas: WalkAreas) -> Self {
        self.areas = areas;
        self
    }

    /// Enables area `id`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::{WalkAreas, WalkRoom};
    /// let mut room = WalkRoom::new(Handle::default()).with_areas(WalkAreas::only(&[1]));
    /// room.enable_area(2);
    /// assert!(room.areas.contains(2));
    /// ```
    pub fn enable_area(&mut self, id: u8) {
        self.areas.insert(id);
    }

    /// Disables area `id`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let mut room = WalkRoom::new(Handle::default());
    /// room.disable_area(2);
    /// assert!(!room.areas.contains(2));
    /// ```
    pub fn disable_area(&mut self, id: u8) {
        self.areas.remove(id);
    }

    /// Enables or disables area `id`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let mut room = WalkRoom::new(Handle::default());
    /// room.set_area(3, false);
    /// assert!(!room.areas.contains(3));
    /// ```
    pub fn set_area(&mut self, id: u8, on: bool) {
        self.areas.set(id, on);
    }

    /// The mask point at room pixel `pixel`. Room pixels are the room's own units
    /// from the walk mask's top-left corner, x right and y down: the picture's pixels
    /// when the picture is drawn one unit per pixel, whatever the mask's resolution
    /// (a half-resolution mask with `scale` 2 keeps them).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// use bevy_walkmask::walkmask::Point;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// assert_eq!(room.room_pixel_to_mask(Vec2::new(972.0, 470.0)), Point::new(486.0, 235.0));
    /// assert_eq!(room.mask_to_room_pixel(Point::new(486.0, 235.0)), Vec2::new(972.0, 470.0));
    /// ```
    pub fn room_pixel_to_mask(&self, pixel: Vec2) -> Point {
        Point::new(pixel.x / self.scale, pixel.y / self.scale)
    }

    /// The room pixel at mask point `p` (see [`WalkRoom::room_pixel_to_mask`]).
    pub fn mask_to_room_pixel(&self, p: Point) -> Vec2 {
        Vec2::new(p.x, p.y) * self.scale
    }

    /// The world point of room pixel `pixel` (see [`WalkRoom::room_pixel_to_mask`])
    /// through `mapping`, this room's placement ([`WalkRoom::mapping`]); `None` when
    /// the mapping cannot be used or the point is not a number.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// // A 100 x 50 mask under 200 x 100 room pixels, centred on (10, 0).
    /// let map = room.mapping(&GlobalTransform::from_xyz(10.0, 0.0, 0.0), UVec2::new(100, 50));
    /// assert_eq!(room.room_pixel_to_world(&map, Vec2::new(0.0, 0.0)), Some(Vec2::new(-90.0, 50.0)));
    /// assert_eq!(room.world_to_room_pixel(&map, Vec2::new(10.0, 0.0)), Some(Vec2::new(100.0, 50.0)));
    /// assert_eq!(room.room_pixel_to_world(&map, Vec2::NAN), None);
    /// ```
    pub fn room_pixel_to_world(&self, mapping: &MaskMapping, pixel: Vec2) -> Option<Vec2> {
        if !mapping.is_valid() || !pixel.is_finite() {
            return None;
        }
        let at = mapping.mask_to_world(self.room_pixel_to_mask(pixel));
        at.is_finite().then_some(at)
    }

    /// The room pixel at world point `world` through `mapping`, this room's
    /// placement ([`WalkRoom::mapping`]); `None` when the mapping cannot be used or
    /// the point is not a number. The reverse of [`WalkRoom::room_pixel_to_world`].
    pub fn world_to_room_pixel(&self, mapping: &MaskMapping, world: Vec2) -> Option<Vec2> {
        if !mapping.is_valid() || !world.is_finite() {
            return None;
        }
        let at = self.mask_to_room_pixel(mapping.world_to_mask(world));
        at.is_finite().then_some(at)
    }

    /// The mapping between this room's mask (of `size` pixels) and the world, for a
    /// room placed at `room`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// use bevy_walkmask::walkmask::Point;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// let map = room.mapping(&GlobalTransform::IDENTITY, UVec2::new(100, 50));
    /// assert_eq!(map.mask_to_world(Point::new(0.0, 0.0)), Vec2::new(-100.0, 50.0));
    /// ```
    pub fn mapping(&self, room: &GlobalTransform, size: UVec2) -> MaskMapping {
        let half = size.as_vec2() * 0.5;
        // mask -> room-local: flip y, centre, scale, offset.
        let local = Affine2::from_cols(
            Vec2::new(self.scale, 0.0),
            Vec2::new(0.0, -self.scale),
            self.offset + Vec2::new(-half.x, half.y) * self.scale,
        );
        let room = room.affine();
        let room_xy = Affine2::from_cols(
            room.matrix3.x_axis.truncate(),
            room.matrix3.y_axis.truncate(),
            room.translation.truncate(),
        );
        MaskMapping {
            mask_to_world: room_xy * local,
            size,
        }
    }
}

/// The placement of a mask in the world: an affine map from mask points (pixels, y
/// down) to world points (x, y), and the mask's size. Plain data, so path tasks can
/// convert their answers without touching the ECS. An affine map keeps straight
/// lines straight, so a walk that is legal on the mask is legal in the world.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::MaskMapping;
/// use bevy_walkmask::walkmask::Point;
///
/// let map = MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(4, 2));
/// let p = Point::new(3.5, 0.5);
/// assert_eq!(map.mask_to_world(p), Vec2::new(1.5, 0.5));
/// assert_eq!(map.world_to_mask(map.mask_to_world(p)), p);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct MaskMapping {
    /// Mask point -> world point.
    pub mask_to_world: Affine2,
    /// Mask size in pixels.
    pub size: UVec2,
}

impl MaskMapping {
    /// An unrotated mask centred on `center`, `scale` world units per pixel.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// use bevy_walkmask::walkmask::Point;
    /// let map = MaskMapping::centered(Vec2::new(10.0, 0.0), 2.0, UVec2::new(10, 10));
    /// assert_eq!(map.mask_to_world(Point::new(5.0, 5.0)), Vec2::new(10.0, 0.0));
    /// ```
    pub fn centered(center: Vec2, scale: f32, size: UVec2) -> Self {
        WalkRoom {
            scale,
            ..WalkRoom::new(Handle::default())
        }
        .mapping(&GlobalTransform::from_translation(center.extend(0.0)), size)
    }

    /// World position -> mask point (pixels, y down). The result may lie outside the
    /// mask; it is NaN when the mapping is not invertible (see [`is_valid`](Self::is_valid)).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping::centered(Vec2::ZERO, 2.0, UVec2::new(10, 10));
    /// assert_eq!(map.world_to_mask(Vec2::new(-10.0, 10.0)).x, 0.0);
    /// ```
    pub fn world_to_mask(&self, world: Vec2) -> Point {
        let p = self.mask_to_world.inverse().transform_point2(world);
        Point::new(p.x, p.y)
    }

    /// Mask point (pixels, y down) -> world position.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// use bevy_walkmask::walkmask::Point;
    /// let map = MaskMapping::centered(Vec2::ZERO, 2.0, UVec2::new(10, 10));
    /// assert_eq!(map.mask_to_world(Point::new(0.0, 10.0)), Vec2::new(-10.0, -10.0));
    /// ```
    pub fn mask_to_world(&self, p: Point) -> Vec2 {
        self.mask_to_world.transform_point2(Vec2::new(p.x, p.y))
    }

    /// World units per mask pixel along the mask's x and y axes.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping::centered(Vec2::ZERO, 0.5, UVec2::new(10, 4));
    /// assert_eq!(map.pixel_size(), Vec2::splat(0.5));
    /// ```
    pub fn pixel_size(&self) -> Vec2 {
        Vec2::new(
            self.mask_to_world.matrix2.x_axis.length(),
            self.mask_to_world.matrix2.y_axis.length(),
        )
    }

    /// Whether the mapping can be used: finite, invertible (no zero scale, no room
    /// turned edge-on to the camera), and a non-empty mask.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// assert!(!MaskMapping::centered(Vec2::ZERO, 0.0, UVec2::new(10, 4)).is_valid());
    /// assert!(MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(10, 4)).is_valid());
    /// ```
    pub fn is_valid(&self) -> bool {
        let det = self.mask_to_world.matrix2.determinant();
        self.mask_to_world.is_finite()
            && det.is_finite()
            && det.abs() > f32::MIN_POSITIVE
            && self.mask_to_world.inverse().is_finite()
            && self.size.x > 0
            && self.size.y > 0
    }

    /// Whether the world point lies over the mask.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(10, 4));
    /// assert!(map.covers(Vec2::new(4.0, 1.0)) && !map.covers(Vec2::new(6.0, 0.0)));
    /// ```
    pub fn covers(&self, world: Vec2) -> bool {
        let p = self.world_to_mask(world);
        p.is_finite()
            && p.x >= 0.0
            && p.y >= 0.0
            && p.x < self.size.x as f32
            && p.y < self.size.y as f32
    }

    /// `p` moved inside `[0, width) x [0, height)`, and whether it had to move.
    /// `None` for NaN or infinite coordinates.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// use bevy_walkmask::walkmask::Point;
    /// let map = MaskMapping::centered(Vec2::ZERO, 1.0, UVec2::new(10, 4));
    /// let (p, moved) = map.clamp_to_mask(Point::new(-3.0, 2.0)).unwrap();
    /// assert!(moved && p.x == 0.0 && p.y == 2.0);
    /// assert!(map.clamp_to_mask(Point::new(f32::NAN, 0.0)).is_none());
    /// ```
    pub fn clamp_to_mask(&self, p: Point) -> Option<(Point, bool)> {
        if !p.is_finite() || self.size.x == 0 || self.size.y == 0 {
            return None;
        }
        let max_x = (self.size.x as f32).next_down();
        let max_y = (self.size.y as f32).next_down();
        let q = Point::new(p.x.clamp(0.0, max_x), p.y.clamp(0.0, max_y));
        Some((q, q != p))
    }

    /// The mask point of world position `world`, clamped onto the mask
    /// ([`clamp_to_mask`](Self::clamp_to_mask) of [`world_to_mask`](Self::world_to_mask)).
    pub(crate) fn clamped_mask_point(&self, world: Vec2) -> Option<(Point, bool)> {
        self.clamp_to_mask(self.world_to_mask(world))
    }

    /// The mask pixel under world position `world`, or the nearest one on the mask's
    /// edge when it lies outside.
    pub(crate) fn pixel_under(&self, world: Vec2) -> Option<(u32, u32)> {
        self.clamped_mask_point(world).and_then(|(p, _)| p.pixel())
    }
}

/// Which room a walker is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoomLookup {
    /// This room.
    Found(Entity),
    /// The walker names an entity that is not a room.
    NotARoom(Entity),
    /// The walker names no room and stands over no room's mask (or the masks it might
    /// stand over are not loaded yet).
    NoRoom,
}

/// The world point of `pixel` (room pixels, see [`WalkRoom::room_pixel_to_mask`]) in
/// `room` as its transforms place it now, once its mask is loaded.
pub(crate) fn room_pixel_to_world(world: &World, room: Entity, pixel: Vec2) -> Option<Vec2> {
    let walk_room = world.get::<WalkRoom>(room)?;
    let mask = world
        .get_resource::<Assets<WalkMask>>()?
        .get(&walk_room.mask)?;
    // From the transforms as they are now: the room may have been spawned or moved
    // earlier in the frame.
    let global = crate::placement::composed_affine(world, room)
        .map(GlobalTransform::from)
        .unwrap_or_default();
    walk_room.room_pixel_to_world(&walk_room.mapping(&global, mask.size()), pixel)
}

/// The room of a walker standing at `position` (world): the room it names, else the
/// only room, else the room whose mask lies under it (the one drawn on top, by world
/// z, when masks overlap).
pub(crate) fn room_of<'a>(
    named: Option<Entity>,
    position: Vec2,
    rooms: impl IntoIterator<Item = (Entity, &'a WalkRoom, &'a GlobalTransform)>,
    masks: &Assets<WalkMask>,
) -> RoomLookup {
    choose_room(
        named,
        rooms.into_iter().map(|(entity, room, transform)| {
            let covers = move || {
                masks.get(&room.mask).is_some_and(|mask| {
                    let mapping = room.mapping(transform, mask.size());
                    mapping.is_valid() && mapping.covers(position)
                })
            };
            (entity, transform.translation().z, covers)
        }),
    )
}

/// The rule of [`room_of`] over rooms given as entity, world z and whether the
/// room's mask covers the walker (asked only when it matters). One pass, no
/// allocation: this runs for every walker on its way, every frame.
fn choose_room(
    named: Option<Entity>,
    mut rooms: impl Iterator<Item = (Entity, f32, impl FnOnce() -> bool)>,
) -> RoomLookup {
    if let Some(named) = named {
        return if rooms.any(|(entity, ..)| entity == named) {
            RoomLookup::Found(named)
        } else {
            RoomLookup::NotARoom(named)
        };
    }
    let mut count = 0;
    let mut last = None;
    // The covering room on top: highest world z, then the lowest entity.
    let mut best: Option<(f32, Entity)> = None;
    for (entity, z, covers) in rooms {
        count += 1;
        last = Some(entity);
        let above = |(best_z, best_entity): (f32, Entity)| {
            z > best_z || (z == best_z && entity < best_entity)
        };
        if best.is_none_or(above) && covers() {
            best = Some((z, entity));
        }
    }
    match (count, last, best) {
        (1, Some(only), _) => RoomLookup::Found(only),
        (_, _, Some((_, entity))) => RoomLookup::Found(entity),
        _ => RoomLookup::NoRoom,
    }
}

/// The rooms with their placements worked out once, for looking up the rooms of
/// many walkers in one frame ([`room_of`]'s rule).
#[derive(Default)]
pub(crate) struct RoomIndex {
    rooms: Vec<IndexedRoom>,
}

/// A room of a [`RoomIndex`].
struct IndexedRoom {
    entity: Entity,
    z: f32,
    /// World -> mask, and the mask's size; `None` while its mask is not loaded or
    /// its placement cannot be inverted.
    to_mask: Option<(Affine2, Vec2)>,
}

impl RoomIndex {
    /// Indexes `rooms` as they stand now (a loaded mask and a valid placement each,
    /// or none). Whether the same room entities, in the same order, were indexed
    /// before.
    pub(crate) fn rebuild<'a>(
        &mut self,
        rooms: impl IntoIterator<Item = (Entity, &'a WalkRoom, &'a GlobalTransform)>,
        masks: &Assets<WalkMask>,
    ) -> bool {
        let before: Vec<Entity> = self.rooms.iter().map(|room| room.entity).collect();
        self.rooms.clear();
        self.rooms
            .extend(rooms.into_iter().map(|(entity, room, transform)| {
                IndexedRoom {
                    entity,
                    z: transform.translation().z,
                    to_mask: masks
                        .get(&room.mask)
                        .map(|mask| room.mapping(transform, mask.size()))
                        .filter(MaskMapping::is_valid)
                        .map(|mapping| (mapping.mask_to_world.inverse(), mapping.size.as_vec2())),
                }
            }));
        self.rooms.iter().map(|room| room.entity).eq(before)
    }

    /// How many rooms it holds.
    pub(crate) fn len(&self) -> usize {
        self.rooms.len()
    }

    /// The room of a walker naming `named` at `position` (world), by [`room_of`]'s
    /// rule; `position` is asked for only when the rule needs it (no room named,
    /// more than one room).
    pub(crate) fn room_of(
        &self,
        named: Option<Entity>,
        position: impl FnOnce() -> Vec2,
    ) -> RoomLookup {
        if let (None, [only]) = (named, self.rooms.as_slice()) {
            return RoomLookup::Found(only.entity);
        }
        let position = if named.is_none() {
            position()
        } else {
            Vec2::NAN
        };
        choose_room(
            named,
            self.rooms.iter().map(|room| {
                let covers = move || {
                    room.to_mask.is_some_and(|(to_mask, size)| {
                        let p = to_mask.transform_point2(position);
                        p.is_finite() && p.x >= 0.0 && p.y >= 0.0 && p.x < size.x && p.y < size.y
                    })
                };
                (room.entity, room.z, covers)
            }),
        )
    }
}

/// Brings rooms' `GlobalTransform`s up to date before planning: a room spawned or
/// moved earlier in the frame (Bevy propagates transforms only after `Update`) is
/// then placed where its `Transform` and its parents' say, so no walk is planned on
/// a mask still placed at the origin or where the room was.
pub(crate) fn place_rooms(
    helper: bevy::transform::helper::TransformHelper,
    mut rooms: Query<(Entity, &mut GlobalTransform), With<WalkRoom>>,
) {
    for (entity, mut global) in &mut rooms {
        if let Ok(now) = helper.compute_global_transform(entity)
            && now != *global
        {
            *global = now;
        }
    }
}

/// A room whose parts are still coming (a room made from a room file that has not
/// loaded yet): walkers sent into it wait, as they do for a room whose mask is
/// loading. Added by [`FromRoomFile`](crate::room_file::FromRoomFile) and taken away
/// once the file is applied.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoomPending;
