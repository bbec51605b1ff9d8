//! Regions: parts of a room that tell the game when a walker enters or leaves them (a
//! rug that tints, a doorway that plays a sound, a puddle that slows).
//!
//! Give a room a region layer with [`WalkRegions`]; every [`Walker`] in that room then
//! gets [`RegionEntered`] and [`RegionExited`] as it crosses regions, whatever moves
//! it (walks, steering, avoidance, cutscene routes, game code):
//!
//! * the move of each frame is followed pixel by pixel through the layer, so a fast
//!   walker that crosses a region one pixel wide within a frame still enters it and
//!   leaves it, in order;
//! * a walker that appears in a region (spawned there, the layer just loaded, moved
//!   into the room) enters it; a walker moved by game code further than it could walk
//!   in a frame is taken there at once, without the regions in between;
//! * a disabled region emits nothing: disabling it takes the walkers inside out of it
//!   (one [`RegionExited`] each, so that entries and exits stay paired), enabling it
//!   again takes those inside into it;
//! * [`InRegion`] on the walker says which region it is in now;
//! * a region can emit [`WhileInRegion`] every frame a walker is in it
//!   ([`WalkRegions::with_while_inside`]), slow walkers down
//!   ([`WalkRegions::with_speed`]) and tint and light them
//!   ([`WalkRegions::with_tint`], [`WalkRegions::with_light`], faded in from the
//!   region's edge with [`WalkRegions::with_fade`]): walkers inside get a
//!   [`RegionTint`], and those with `TintedByRegion` (cargo feature `sprites`) have
//!   their sprite coloured by it.

use bevy::prelude::*;
use walkmask::Point;
use walkmask::layer::{LayerScale, depth_inside, id_at, ids_along};

use super::placed_layer_or_warn;
use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::room::WalkRoom;
use crate::scaling::{AreaScale, RegionScale, RegionSpeed};
use crate::walk::membership::CurrentRoom;
use crate::walk::speed::{SpeedFactors, speed_factor};
use crate::walker::Walker;

/// A room's region layer: an image of region ids, one per pixel (0: no region),
/// with names and switches.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         WalkRoom::new(assets.load("rooms/lobby.walk.png")),
///         WalkRegions::new(assets.load("rooms/lobby.regions.walk.png"))
///             .with_region(1, "rug")
///             .with_region(2, "doorway"),
///     ));
///     commands.add_observer(|entered: On<RegionEntered>, rooms: Query<&WalkRegions>| {
///         let name = rooms.get(entered.room).ok().and_then(|r| r.name(entered.region));
///         info!("{} entered {:?}", entered.entity, name);
///     });
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct WalkRegions {
    /// The layer, loaded like a walk mask ([`WalkMask`]): the room's walk-mask size
    /// or smaller by a whole factor.
    pub layer: Handle<WalkMask>,
    /// Names and switches of the regions, by id. An id of the layer listed nowhere
    /// is a region without a name, enabled.
    pub regions: Vec<Region>,
}

/// One region of a [`WalkRegions`] layer.
#[derive(Reflect, Clone, Debug, PartialEq)]
pub struct Region {
    /// Its id: the pixel value of the layer (1 to 255).
    pub id: u8,
    /// Its name.
    pub name: String,
    /// Whether it emits events; a disabled region is as if it were not there.
    pub enabled: bool,
    /// The factor walkers' speed is multiplied by inside it (a puddle that slows,
    /// a carpet of ice): above 0; anything else counts as 1. Default 1.
    pub speed: f32,
    /// The colour walkers inside are tinted with (their colour is multiplied by
    /// it): white, the default, leaves them as they are.
    pub tint: Color,
    /// How bright walkers inside are: their colour is multiplied by it (0.5 for a
    /// shadow, 1.5 for a lamp's pool). Default 1; a value that is not finite or is
    /// below 0 counts as 1.
    pub light: f32,
    /// Over how many layer pixels from the region's edge its tint and light fade in
    /// (0, the default: at full strength at once; at most 64).
    pub fade: f32,
    /// Whether walkers in it get a [`WhileInRegion`] every frame. Default off.
    pub while_inside: bool,
    /// Whether it blocks the way while it is enabled (a fallen tree, a wet floor
    /// sign): its pixels are blocked in the room's walk grid as a disabled area's
    /// are, and walks that crossed it are planned again. A walker standing in it
    /// steps out of it at its speed, to the nearest walkable pixel (as any walker
    /// standing on a blocked pixel does). Default off.
    pub blocks: bool,
    /// How walkers with a [`DepthScale`](crate::DepthScale) scale inside it (a
    /// [`AreaScale::Linear`] rule runs between the region's top and bottom rows): it
    /// wins over the room's [`WalkScaling`](crate::WalkScaling). Default `None`.
    pub scale: Option<AreaScale>,
}

impl Region {
    /// A region named `name`, enabled, with no effects.
    pub fn new(id: u8, name: impl Into<String>) -> Self {
        Self {
            id,
            name: name.into(),
            enabled: true,
            speed: 1.0,
            tint: Color::WHITE,
            light: 1.0,
            fade: 0.0,
            while_inside: false,
            blocks: false,
            scale: None,
        }
    }

    /// Whether it changes walkers' colour.
    fn colours(&self) -> bool {
        self.tint != Color::WHITE || self.usable_light() != 1.0
    }

    fn usable_light(&self) -> f32 {
        if self.light.is_finite() && self.light >= 0.0 {
            self.light
        } else {
            1.0
        }
    }

    /// The colour a walker `depth` layer pixels inside the region is multiplied by.
    fn colour_at(&self, depth: f32) -> Color {
        let strength = if self.fade > 0.0 && self.fade.is_finite() {
            (depth / self.fade.min(64.0)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let full = self.tint.to_linear() * self.usable_light();
        let full = LinearRgba { alpha: 1.0, ..full };
        Color::LinearRgba(LinearRgba::WHITE.mix(&full, strength))
    }
}

impl WalkRegions {
    /// Regions from `layer`, none named yet.
    pub fn new(layer: Handle<WalkMask>) -> Self {
        Self {
            layer,
            regions: Vec::new(),
        }
    }

    /// Names region `id` (enabled).
    pub fn with_region(mut self, id: u8, name: impl Into<String>) -> Self {
        self.region_mut(id).name = name.into();
        self
    }

    /// Region `id`'s entry, listed now if it was not (no name, enabled, speed 1).
    fn region_mut(&mut self, id: u8) -> &mut Region {
        let i = match self.regions.iter().position(|r| r.id == id) {
            Some(i) => i,
            None => {
                self.regions.push(Region::new(id, ""));
                self.regions.len() - 1
            }
        };
        &mut self.regions[i]
    }

    /// Walkers in region `id` walk at `factor` times their speed (see
    /// [`Region::speed`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRegions;
    /// let regions = WalkRegions::new(Handle::default()).with_region(3, "puddle").with_speed(3, 0.5);
    /// assert_eq!(regions.speed(3), 0.5);
    /// assert_eq!(regions.speed(1), 1.0);
    /// ```
    pub fn with_speed(mut self, id: u8, factor: f32) -> Self {
        self.region_mut(id).speed = factor;
        self
    }

    /// Walkers in region `id` are tinted `colour` (see [`Region::tint`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRegions;
    /// let rug = WalkRegions::new(Handle::default())
    ///     .with_region(1, "rug")
    ///     .with_tint(1, Color::srgb(1.0, 0.8, 0.7))
    ///     .with_fade(1, 6.0);
    /// assert_eq!(rug.regions[0].fade, 6.0);
    /// ```
    pub fn with_tint(mut self, id: u8, colour: Color) -> Self {
        self.region_mut(id).tint = colour;
        self
    }

    /// Walkers in region `id` are lit `light` times as brightly (see
    /// [`Region::light`]).
    pub fn with_light(mut self, id: u8, light: f32) -> Self {
        self.region_mut(id).light = light;
        self
    }

    /// Region `id`'s tint and light fade in over `pixels` layer pixels from its edge
    /// (see [`Region::fade`]).
    pub fn with_fade(mut self, id: u8, pixels: f32) -> Self {
        self.region_mut(id).fade = pixels;
        self
    }

    /// Walkers with a [`DepthScale`](crate::DepthScale) scale by `rule` in region
    /// `id` (see [`Region::scale`]).
    pub fn with_scale(mut self, id: u8, rule: AreaScale) -> Self {
        self.region_mut(id).scale = Some(rule);
        self
    }

    /// Region `id` blocks the way (see [`Region::blocks`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkRegions;
    /// let mut regions = WalkRegions::new(Handle::default()).with_region(4, "fallen tree").with_blocking(4);
    /// assert!(regions.blocking().contains(4));
    /// regions.set_blocking(4, false); // cleared away
    /// assert!(regions.blocking().is_empty());
    /// ```
    pub fn with_blocking(mut self, id: u8) -> Self {
        self.region_mut(id).blocks = true;
        self
    }

    /// Makes region `id` block the way or not (see [`Region::blocks`]). Writes that
    /// change nothing change nothing.
    pub fn set_blocking(&mut self, id: u8, blocks: bool) {
        if !blocks && !self.regions.iter().any(|r| r.id == id) {
            return;
        }
        self.region_mut(id).blocks = blocks;
    }

    /// The regions that block the way now: enabled, with [`Region::blocks`].
    pub fn blocking(&self) -> walkmask::AreaSet {
        let mut set = walkmask::AreaSet::none();
        for region in self.regions.iter().filter(|r| r.enabled && r.blocks) {
            set.insert(region.id);
        }
        set
    }

    /// Walkers in region `id` get a [`WhileInRegion`] every frame.
    pub fn with_while_inside(mut self, id: u8) -> Self {
        self.region_mut(id).while_inside = true;
        self
    }

    /// Region `id`'s entry, if it is listed and enabled.
    fn enabled_region(&self, id: u8) -> Option<&Region> {
        self.regions.iter().find(|r| r.id == id && r.enabled)
    }

    /// The speed factor of region `id` (1 for none, a disabled one, or one without
    /// a usable factor).
    pub fn speed(&self, id: u8) -> f32 {
        if !self.is_enabled(id) {
            return 1.0;
        }
        self.regions
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.speed)
            .filter(|f| f.is_finite() && *f > 0.0)
            .unwrap_or(1.0)
    }

    /// The name of region `id`, if it has one.
    pub fn name(&self, id: u8) -> Option<&str> {
        self.regions
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.name.as_str())
    }

    /// Whether region `id` emits events (id 0, no region, never does).
    pub fn is_enabled(&self, id: u8) -> bool {
        id != 0
            && self
                .regions
                .iter()
                .find(|r| r.id == id)
                .is_none_or(|r| r.enabled)
    }

    /// Turns region `id` on or off (see the [module](self) for what walkers inside
    /// get). Writes that change nothing change nothing.
    pub fn set_enabled(&mut self, id: u8, enabled: bool) {
        // An id listed nowhere is enabled already.
        if enabled && !self.regions.iter().any(|r| r.id == id) {
            return;
        }
        self.region_mut(id).enabled = enabled;
    }
}

/// The region a walker is in: added by the plugin to walkers in a room with
/// [`WalkRegions`], kept up to date every frame after walkers move.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component)]
pub struct InRegion {
    /// The room.
    #[entities]
    pub room: Entity,
    /// The region's id, 0 when it is in none.
    pub region: u8,
    /// Where it stood when last seen (world).
    #[reflect(ignore)]
    pub(crate) at: Vec2,
}

/// A walker entered a region: an [`EntityEvent`] on the walker and a [`Message`].
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionEntered {
    /// The walker.
    pub entity: Entity,
    /// The room whose [`WalkRegions`] it is.
    pub room: Entity,
    /// The region's id ([`WalkRegions::name`] has its name).
    pub region: u8,
}

/// A walker left a region: an [`EntityEvent`] on the walker and a [`Message`].
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionExited {
    /// The walker.
    pub entity: Entity,
    /// The room whose [`WalkRegions`] it is.
    pub room: Entity,
    /// The region's id.
    pub region: u8,
}

/// A walker is in a region whose [`Region::while_inside`] is on: every frame it is,
/// after walkers moved (standing or walking). An [`EntityEvent`] on the walker and a
/// [`Message`].
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WhileInRegion {
    /// The walker.
    pub entity: Entity,
    /// The room whose [`WalkRegions`] it is.
    pub room: Entity,
    /// The region's id.
    pub region: u8,
}

/// The colour a walker's region gives it (tint and light, faded in from the
/// region's edge): added by the plugin to walkers in a region that colours them,
/// removed when they leave. Multiply a sprite's or material's colour by it, or add
/// `TintedByRegion` to a walker with a `Sprite` to have the plugin do so.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component)]
pub struct RegionTint(pub Color);

/// Colours the walker's [`Sprite`] by its [`RegionTint`] (cargo feature `sprites`): the sprite's colour is
/// `base` multiplied by the tint (`base` alone outside colouring regions). Set `base`
/// rather than the sprite's colour while this is on.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{TintedByRegion, Walker};
///
/// fn spawn(mut commands: Commands) {
///     commands.spawn((Walker::new(100.0), Sprite::default(), TintedByRegion::default()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[cfg(feature = "sprites")]
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component)]
pub struct TintedByRegion {
    /// The sprite's own colour.
    pub base: Color,
}

#[cfg(feature = "sprites")]
impl Default for TintedByRegion {
    fn default() -> Self {
        Self { base: Color::WHITE }
    }
}

/// Colours the sprites of walkers with [`TintedByRegion`] (after [`track_regions`]).
#[cfg(feature = "sprites")]
pub(crate) fn tint_sprites(
    mut walkers: Query<(&TintedByRegion, Option<&RegionTint>, &mut Sprite)>,
) {
    for (tinted, tint, mut sprite) in &mut walkers {
        let colour = match tint {
            Some(tint) => {
                let (base, tint) = (tinted.base.to_linear(), tint.0.to_linear());
                Color::LinearRgba(LinearRgba {
                    red: base.red * tint.red,
                    green: base.green * tint.green,
                    blue: base.blue * tint.blue,
                    alpha: base.alpha,
                })
            }
            None => tinted.base,
        };
        if sprite.color != colour {
            sprite.color = colour;
        }
    }
}

/// What a room's blocked copy of its mask was made from: the mask and its pixels,
/// the layer and its pixels, and the blocking ids.
type BlockedFrom = (AssetId<WalkMask>, u64, AssetId<WalkMask>, u64, [u64; 4]);

/// How many blocked copies of its mask a room keeps (the latest ones): a gate that
/// opens and shuts again reuses its copy, and the grids prepared for it.
const KEPT_BLOCKED_COPIES: usize = 4;

/// Keeps each room's walk mask as walkers see it ([`WalkRoom`]'s blocked copy) in
/// step with its blocking regions: made when a region starts blocking (or the mask
/// or the layer change under blocking regions), dropped when none blocks. A new copy
/// changes the room, so walks re-plan as for an area toggle. The last few copies of
/// each room are kept: going back to a set of blocking regions seen lately takes
/// its copy (and its prepared grids) again instead of copying the mask anew.
pub(crate) fn block_regions(
    mut rooms: Query<(Entity, &mut WalkRoom, Option<&WalkRegions>)>,
    mut masks: ResMut<Assets<WalkMask>>,
    mut made: Local<Vec<(Entity, BlockedFrom)>>,
    mut kept: Local<Vec<(Entity, BlockedFrom, Handle<WalkMask>)>>,
    mut warned: Local<Vec<(Entity, AssetId<WalkMask>)>>,
) {
    for (room, mut walk_room, regions) in &mut rooms {
        let wanted = regions.and_then(|regions| {
            let blocking = regions.blocking();
            if blocking.is_empty() {
                return None;
            }
            let mask = masks.get(&walk_room.mask)?;
            let (layer, scale) = placed_layer_or_warn(
                room,
                &regions.layer,
                &masks,
                mask.size(),
                &mut warned,
                "its blocking regions are",
            )?;
            let from = (
                walk_room.mask.id(),
                mask.revision(),
                regions.layer.id(),
                masks.get(&regions.layer)?.revision(),
                blocking.bits(),
            );
            Some((from, mask.core(), layer, scale, blocking))
        });
        let entry = made.iter().position(|(e, _)| *e == room);
        match wanted {
            None => {
                if walk_room.walkable.is_some() {
                    walk_room.walkable = None;
                }
                if let Some(i) = entry {
                    made.swap_remove(i);
                }
            }
            Some((from, mask, layer, scale, blocking)) => {
                let current = entry.is_some_and(|i| made[i].1 == from)
                    && walk_room
                        .walkable
                        .as_ref()
                        .is_some_and(|copy| masks.contains(copy));
                if current {
                    continue;
                }
                let again = kept
                    .iter()
                    .position(|(r, f, handle)| *r == room && *f == from && masks.contains(handle));
                let handle = match again {
                    Some(i) => {
                        // Most recently used last.
                        let entry = kept.remove(i);
                        let handle = entry.2.clone();
                        kept.push(entry);
                        handle
                    }
                    None => {
                        let blocked = walkmask::layer::block_ids(mask, layer, scale, &blocking);
                        let handle = masks.add(WalkMask::new(blocked));
                        kept.push((room, from, handle.clone()));
                        let of_room = kept.iter().filter(|(r, ..)| *r == room).count();
                        if of_room > KEPT_BLOCKED_COPIES
                            && let Some(oldest) = kept.iter().position(|(r, ..)| *r == room)
                        {
                            kept.remove(oldest);
                        }
                        handle
                    }
                };
                walk_room.walkable = Some(handle);
                match entry {
                    Some(i) => made[i].1 = from,
                    None => made.push((room, from)),
                }
            }
        }
    }
    made.retain(|(room, _)| rooms.contains(*room));
    kept.retain(|(room, ..)| rooms.contains(*room));
}

/// What becomes of a walker's [`InRegion`] this frame: applied with the frame's
/// crossings, so that it always agrees with the events sent.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PresenceChange {
    None,
    /// Now in this region of this room (0: none).
    Region(Entity, u8),
    /// Seen in a room with a region layer for the first time.
    Enter(InRegion),
    /// In no room with a region layer any more.
    Leave,
}

/// One region change, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Crossing {
    Entered(RegionEntered),
    Exited(RegionExited),
}

/// A room's region layer as placed this frame.
struct Seen<'a> {
    room: Entity,
    regions: &'a WalkRegions,
    layer: &'a walkmask::WalkMask,
    scale: LayerScale,
    mapping: crate::room::MaskMapping,
}

impl Seen<'_> {
    /// A world point in layer pixels.
    fn layer_point(&self, world: Vec2) -> Point {
        self.scale.to_layer(self.mapping.world_to_mask(world))
    }
}

/// Moves of more than this many frames' walking are jumps (game code placed the
/// walker), not walks through the regions in between.
const JUMP_FRAMES: f32 = 4.0;

/// A walker as [`track_regions`] follows it.
type RegionWalker = (
    Entity,
    (&'static Walker, &'static CurrentRoom),
    &'static Transform,
    Option<&'static ChildOf>,
    SpeedFactors,
    Option<&'static mut InRegion>,
    Option<&'static mut RegionTint>,
    Option<&'static mut RegionScale>,
);

/// Follows every walker through its room's regions (after walkers moved) and emits
/// the crossings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn track_regions(
    mut commands: Commands,
    mut walkers: Query<RegionWalker>,
    tracked: Query<(), With<InRegion>>,
    parents: Parents,
    rooms: Query<(Entity, &WalkRoom, &GlobalTransform)>,
    regions: Query<&WalkRegions>,
    masks: Res<Assets<WalkMask>>,
    time: Res<Time>,
    mut ids: Local<Vec<u8>>,
    mut crossings: Local<Vec<Crossing>>,
    mut warned: Local<Vec<(Entity, AssetId<WalkMask>)>>,
) {
    // No region layers and no walker in one: nothing to follow.
    if regions.is_empty() && tracked.is_empty() {
        return;
    }
    let dt = time.delta_secs();
    for (entity, (walker, current), transform, child_of, depth, presence, tint, region_scale) in
        &mut walkers
    {
        let position = walker_xy(transform, child_of, &parents);
        let room = current.get();
        // The room's layer, placed over its walk mask.
        let seen = room.and_then(|room| {
            let (_, walk_room, global) = rooms.get(room).ok()?;
            let regions = regions.get(room).ok()?;
            let mask = masks.get(&walk_room.mask)?;
            let (layer, scale) = placed_layer_or_warn(
                room,
                &regions.layer,
                &masks,
                mask.size(),
                &mut warned,
                "its region layer is",
            )?;
            let mapping = walk_room.mapping(global, mask.size());
            mapping.is_valid().then_some(Seen {
                room,
                regions,
                layer,
                scale,
                mapping,
            })
        });
        crossings.clear();
        let mut presence_now = PresenceChange::None;
        let mut region_speed = 1.0;
        // The region it is in now, with its layer and where it stands on it.
        let mut now: Option<(&Seen, u8)> = None;
        // Region 0 is no region: going there or coming from there is no crossing.
        let cross = |crossings: &mut Vec<Crossing>, room: Entity, region: u8, entered: bool| {
            if region != 0 {
                crossings.push(if entered {
                    Crossing::Entered(RegionEntered {
                        entity,
                        room,
                        region,
                    })
                } else {
                    Crossing::Exited(RegionExited {
                        entity,
                        room,
                        region,
                    })
                });
            }
        };
        match (presence, seen.as_ref()) {
            (Some(mut presence), Some(seen)) if presence.room == seen.room => {
                let speed = if walker.speed.is_finite() {
                    walker.speed.max(0.0)
                } else {
                    0.0
                } * speed_factor(depth);
                let jumped = position.distance(presence.at) > speed * dt * JUMP_FRAMES + 2.0;
                let here = seen.layer_point(position);
                ids.clear();
                if jumped {
                    ids.push(id_at(seen.layer, here));
                } else {
                    ids_along(seen.layer, seen.layer_point(presence.at), here, &mut ids);
                }
                let mut region = presence.region;
                for &id in ids.iter() {
                    let id = if seen.regions.is_enabled(id) { id } else { 0 };
                    if id != region {
                        cross(&mut crossings, seen.room, region, false);
                        cross(&mut crossings, seen.room, id, true);
                        region = id;
                    }
                }
                region_speed = seen.regions.speed(region);
                now = Some((seen, region));
                // Changed only when the region does, together with the events.
                if presence.region != region {
                    presence_now = PresenceChange::Region(seen.room, region);
                }
                presence.bypass_change_detection().at = position;
            }
            (presence, seen) => {
                // Left its room (or the room lost its layer), or seen in one for the
                // first time.
                let tracked = presence.is_some();
                if let Some(presence) = presence {
                    cross(&mut crossings, presence.room, presence.region, false);
                }
                match seen {
                    Some(seen) => {
                        let id = id_at(seen.layer, seen.layer_point(position));
                        let region = if seen.regions.is_enabled(id) { id } else { 0 };
                        region_speed = seen.regions.speed(region);
                        now = Some((seen, region));
                        cross(&mut crossings, seen.room, region, true);
                        presence_now = PresenceChange::Enter(InRegion {
                            room: seen.room,
                            region,
                            at: position,
                        });
                    }
                    // In no room with a layer now; nothing to do for one never in any.
                    None if tracked => presence_now = PresenceChange::Leave,
                    None => {}
                }
            }
        }
        // The region's colour and its every-frame event.
        let mut colour = None;
        let mut inside = None;
        let mut scale = None;
        if let Some((seen, id)) = now
            && let Some(region) = seen.regions.enabled_region(id)
        {
            if let Some(rule) = region.scale {
                let rows = masks.get(&seen.regions.layer).and_then(|l| l.area_rows(id));
                scale = rule.at(rows, seen.layer_point(position).y);
            }
            if region.colours() {
                let depth = if region.fade > 0.0 {
                    depth_inside(seen.layer, seen.layer_point(position), region.fade)
                } else {
                    0.0
                };
                colour = Some(region.colour_at(depth));
            }
            if region.while_inside {
                inside = Some(WhileInRegion {
                    entity,
                    room: seen.room,
                    region: id,
                });
            }
        }
        match (colour, tint) {
            (Some(colour), Some(mut tint)) => {
                if tint.0 != colour {
                    tint.0 = colour;
                }
            }
            (Some(colour), None) => {
                commands.entity(entity).try_insert(RegionTint(colour));
            }
            (None, Some(_)) => {
                commands.entity(entity).try_remove::<RegionTint>();
            }
            (None, None) => {}
        }
        // The region's scale, kept on every walker in a room with regions (so that
        // entering a region with a rule takes effect in the same frame).
        match (region_scale, now.is_some()) {
            (Some(mut kept), _) if kept.0 != scale => kept.0 = scale,
            (Some(_), true) => {}
            (Some(_), false) => {
                commands.entity(entity).try_remove::<RegionScale>();
            }
            (None, true) => {
                commands.entity(entity).try_insert(RegionScale(scale));
            }
            (None, false) => {}
        }
        // The region's speed factor, kept on the walker only where it is not 1.
        let had = depth.1.map(|r| r.0);
        if region_speed != 1.0 && had != Some(region_speed) {
            commands
                .entity(entity)
                .try_insert(RegionSpeed(region_speed));
        } else if region_speed == 1.0 && had.is_some() {
            commands.entity(entity).try_remove::<RegionSpeed>();
        }
        if !crossings.is_empty() || presence_now != PresenceChange::None {
            let happened: Vec<Crossing> = crossings.drain(..).collect();
            commands.queue(move |world: &mut World| {
                // A walker removed or despawned earlier in this frame's commands (by an
                // observer of its arrival) got its exit from the region it was in when
                // it went ([`region_walker_removed`]): this frame's crossings go with it.
                let Ok(mut walker) = world.get_entity_mut(entity) else {
                    return;
                };
                if !walker.contains::<Walker>() {
                    return;
                }
                match presence_now {
                    PresenceChange::None => {}
                    PresenceChange::Region(room, region) => {
                        if let Some(mut presence) = walker.get_mut::<InRegion>()
                            && presence.room == room
                        {
                            presence.region = region;
                        }
                    }
                    PresenceChange::Enter(presence) => {
                        walker.insert(presence);
                    }
                    PresenceChange::Leave => {
                        walker.remove::<InRegion>();
                    }
                }
                for crossing in happened {
                    match crossing {
                        Crossing::Entered(event) => {
                            world.write_message(event);
                            world.trigger(event);
                        }
                        Crossing::Exited(event) => {
                            world.write_message(event);
                            world.trigger(event);
                        }
                    }
                }
            });
        }
        if let Some(event) = inside {
            commands.queue(move |world: &mut World| {
                world.write_message(event);
                world.trigger(event);
            });
        }
    }
}

/// A walker removed or despawned inside a region leaves it: [`RegionExited`], so
/// that every [`RegionEntered`] is paired (observers of a despawned walker itself
/// are gone with it; global observers and readers get it). Its [`InRegion`] goes
/// with its other walking state.
pub(crate) fn region_walker_removed(
    removed: On<Remove, Walker>,
    walkers: Query<&InRegion>,
    mut commands: Commands,
) {
    let Ok(presence) = walkers.get(removed.entity) else {
        return;
    };
    if presence.region == 0 {
        return;
    }
    let event = RegionExited {
        entity: removed.entity,
        room: presence.room,
        region: presence.region,
    };
    commands.queue(move |world: &mut World| {
        world.write_message(event);
        world.trigger(event);
    });
}
