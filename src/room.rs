//! Rooms: a walk mask placed in the world, and the areas enabled in it.

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
/// The mask is centred on the room entity's [`GlobalTransform`] translation (like a
/// `Sprite` at the same `Transform`), with `scale` world units per mask pixel (2.0 =
/// a half-resolution mask under a full-resolution background) and a further
/// `offset`. Mask rows grow downwards, world `y` grows upwards:
///
/// ```text
/// mask pixel (px, py) -> world = room.xy + offset + ((px - w/2) * scale, (h/2 - py) * scale)
/// ```
///
/// The room's rotation and scale are ignored by this mapping.
///
/// `areas` are the areas enabled in this room right now (open a gate with
/// [`enable_area`](Self::enable_area)). Any change to a room (areas, mask, scale,
/// offset) makes its walkers re-plan from where they stand to their current target,
/// so a gate closing mid-walk stops them at the gate; mutate a room only when
/// something really changes (each change restarts paths still being computed).
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
#[require(Transform, Visibility)]
pub struct WalkRoom {
    /// The walk mask.
    pub mask: Handle<WalkMask>,
    /// World units per mask pixel. Must be positive and finite.
    pub scale: f32,
    /// Added to the room's translation to place the mask's centre.
    pub offset: Vec2,
    /// Areas enabled in this room.
    pub areas: WalkAreas,
}

impl WalkRoom {
    /// A room over `mask`, one world unit per pixel, every area enabled.
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
        }
    }

    /// Sets the world units per mask pixel.
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

    /// Sets the offset of the mask's centre from the room's translation.
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

    /// The mapping between this room's mask (of `size` pixels) and the world.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// let map = room.mapping(&GlobalTransform::IDENTITY, UVec2::new(100, 50));
    /// assert_eq!(map.world_size(), Vec2::new(200.0, 100.0));
    /// ```
    pub fn mapping(&self, room: &GlobalTransform, size: UVec2) -> MaskMapping {
        MaskMapping {
            center: room.translation().truncate() + self.offset,
            scale: self.scale,
            size,
        }
    }

    /// World position -> mask point (pixels, y down). The result may lie outside the
    /// mask.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// use bevy_walkmask::walkmask::Point;
    /// let room = WalkRoom::new(Handle::default());
    /// let p = room.world_to_mask(&GlobalTransform::IDENTITY, UVec2::new(64, 48), Vec2::new(0.0, 24.0));
    /// assert_eq!(p, Point::new(32.0, 0.0)); // top centre
    /// ```
    pub fn world_to_mask(&self, room: &GlobalTransform, size: UVec2, world: Vec2) -> Point {
        self.mapping(room, size).world_to_mask(world)
    }

    /// Mask point (pixels, y down) -> world position.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRoom;
    /// use bevy_walkmask::walkmask::Point;
    /// let room = WalkRoom::new(Handle::default()).with_scale(2.0);
    /// let room_at = GlobalTransform::from_xyz(10.0, 0.0, 0.0);
    /// let w = room.mask_to_world(&room_at, UVec2::new(64, 48), Point::new(0.0, 48.0));
    /// assert_eq!(w, Vec2::new(10.0 - 64.0, -48.0)); // bottom-left corner
    /// ```
    pub fn mask_to_world(&self, room: &GlobalTransform, size: UVec2, p: Point) -> Vec2 {
        self.mapping(room, size).mask_to_world(p)
    }
}

/// The placement of a mask in the world: its centre, world units per pixel and size.
/// Plain data, so path tasks can convert their answers without touching the ECS.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::MaskMapping;
/// use bevy_walkmask::walkmask::Point;
///
/// let map = MaskMapping { center: Vec2::ZERO, scale: 1.0, size: UVec2::new(4, 2) };
/// let p = Point::new(3.5, 0.5);
/// assert_eq!(map.mask_to_world(p), Vec2::new(1.5, 0.5));
/// assert_eq!(map.world_to_mask(map.mask_to_world(p)), p);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct MaskMapping {
    /// World position of the mask's centre.
    pub center: Vec2,
    /// World units per mask pixel.
    pub scale: f32,
    /// Mask size in pixels.
    pub size: UVec2,
}

impl MaskMapping {
    /// World position -> mask point (pixels, y down).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping { center: Vec2::ZERO, scale: 2.0, size: UVec2::new(10, 10) };
    /// assert_eq!(map.world_to_mask(Vec2::new(-10.0, 10.0)).x, 0.0);
    /// ```
    pub fn world_to_mask(&self, world: Vec2) -> Point {
        let half = self.size.as_vec2() * 0.5;
        let local = (world - self.center) / self.scale;
        Point::new(local.x + half.x, half.y - local.y)
    }

    /// Mask point (pixels, y down) -> world position.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// use bevy_walkmask::walkmask::Point;
    /// let map = MaskMapping { center: Vec2::ZERO, scale: 2.0, size: UVec2::new(10, 10) };
    /// assert_eq!(map.mask_to_world(Point::new(5.0, 5.0)), Vec2::ZERO);
    /// ```
    pub fn mask_to_world(&self, p: Point) -> Vec2 {
        let half = self.size.as_vec2() * 0.5;
        self.center + Vec2::new(p.x - half.x, half.y - p.y) * self.scale
    }

    /// The mask's size in world units.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping { center: Vec2::ZERO, scale: 0.5, size: UVec2::new(10, 4) };
    /// assert_eq!(map.world_size(), Vec2::new(5.0, 2.0));
    /// ```
    pub fn world_size(&self) -> Vec2 {
        self.size.as_vec2() * self.scale
    }

    /// Whether the mapping can be used: positive finite scale, finite centre, non-empty
    /// mask.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// let map = MaskMapping { center: Vec2::ZERO, scale: 0.0, size: UVec2::new(10, 4) };
    /// assert!(!map.is_valid());
    /// ```
    pub fn is_valid(&self) -> bool {
        self.scale.is_finite()
            && self.scale > 0.0
            && self.center.is_finite()
            && self.size.x > 0
            && self.size.y > 0
    }

    /// `p` moved inside `[0, width) x [0, height)`, and whether it had to move.
    /// `None` for NaN or infinite coordinates.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::MaskMapping;
    /// use bevy_walkmask::walkmask::Point;
    /// let map = MaskMapping { center: Vec2::ZERO, scale: 1.0, size: UVec2::new(10, 4) };
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
}
