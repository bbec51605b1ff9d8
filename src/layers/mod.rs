//! Room layers beside the walk mask: images of ids that say what is where in a room
//! rather than where walkers may go.
//!
//! * [`regions`]: a region layer ([`WalkRegions`]) and the [`RegionEntered`] and
//!   [`RegionExited`] events of every walker that crosses one.
//! * [`hotspots`]: a hotspot layer ([`WalkHotspots`]) whose ids are [`Hotspot`]
//!   entities: picked by the pointer, and walked to before they are acted on
//!   ([`InteractionArrived`]).
//! * [`exits`]: room edges ([`RoomEdges`], [`WalkedOffEdge`]), exit hotspots
//!   ([`RoomExit`], [`RoomExitRequested`]) and spawn points ([`SpawnPoint`],
//!   [`ExitCommandsExt::enter_room`]).
//! * `walk_behinds` (cargo feature `walk_behinds`): parts of the room's picture cut
//!   out by a layer and drawn over the characters behind them, sorted by
//!   [`Baseline`](crate::Baseline).
//!
//! A layer is a [`WalkMask`] asset whose pixels are ids: name it `*.ids.png` and
//! [`IdLayerLoader`](crate::asset::IdLayerLoader) reads a palette PNG's indices or a
//! grey PNG's levels as ids, with no `.meta` (a `*.walk.png` with a `.meta` saying
//! `rule: Indexed` does the same). It is the room's walk-mask size or smaller by a
//! whole factor ([`walkmask::layer::LayerScale`]).

pub mod exits;
pub mod hotspots;
pub mod regions;
#[cfg(feature = "walk_behinds")]
pub mod walk_behinds;

pub use exits::{
    Edge, EnteringRoom, ExitCommandsExt, LeavingBy, RoomEdges, RoomExit, RoomExitRequested,
    SpawnPoint, WalkedOffEdge,
};
pub use hotspots::{
    Hotspot, HotspotClicks, HotspotCommandsExt, Interacting, InteractionArrived,
    InteractionCancelled, InteractionUnreachable, UnreachablePolicy, Verb, WalkHotspots,
    WalkPolicy,
};
#[cfg(feature = "sprites")]
pub use regions::TintedByRegion;
pub use regions::{
    InRegion, Region, RegionEntered, RegionExited, RegionTint, WalkRegions, WhileInRegion,
};

use bevy::prelude::*;
use walkmask::layer::LayerScale;

use crate::asset::WalkMask;
use crate::room::MaskMapping;

/// Something wrong with a room's layers, found by
/// [`RoomView::check_layers`](crate::RoomView::check_layers): a report for the
/// room's author, while the game is being made.
#[derive(Clone, Debug, PartialEq)]
pub enum LayerProblem {
    /// A layer cannot be placed over the walk mask (its size is no whole fraction of
    /// the mask's), or a walk-behind layer is not its picture's size.
    Unusable {
        /// Which layer: "hotspots", "regions" or "walk-behinds".
        layer: &'static str,
        /// Why.
        why: String,
    },
    /// A layer decoded as a walk mask (by brightness, alpha or a channel: ids 0 and 1
    /// only) rather than as ids: name it `*.ids.png`
    /// ([`IdLayerLoader`](crate::asset::IdLayerLoader)) or give it `rule: Indexed`
    /// in its `.meta`.
    NotReadAsIds {
        /// Which layer: "hotspots", "regions" or "walk-behinds".
        layer: &'static str,
    },
    /// A [`Hotspot`] whose id has no pixel in the hotspot layer: it can never be
    /// pointed at.
    HotspotWithoutPixels {
        /// The hotspot.
        hotspot: Entity,
        /// Its id.
        id: u8,
    },
    /// Pixels of the hotspot layer whose id no [`Hotspot`] of the room has.
    PixelsWithoutHotspot {
        /// The id.
        id: u8,
        /// One of its pixels (layer pixels).
        pixel: UVec2,
    },
    /// A named region with no pixel in the region layer.
    RegionWithoutPixels {
        /// Its id.
        id: u8,
    },
    /// A hotspot's walk-to point on a blocked pixel (for a walker of the radius
    /// asked about) or off the mask.
    WalkToNotWalkable {
        /// The hotspot.
        hotspot: Entity,
        /// The point (room pixels, as [`Hotspot::walk_to`](crate::Hotspot::walk_to)
        /// gives it).
        point: Vec2,
    },
    /// A hotspot's walk-to point that a walker coming in at a spawn point cannot
    /// reach.
    WalkToUnreachable {
        /// The hotspot.
        hotspot: Entity,
        /// The point (room pixels, as [`Hotspot::walk_to`](crate::Hotspot::walk_to)
        /// gives it).
        point: Vec2,
        /// The spawn point.
        spawn: Entity,
    },
    /// A spawn point on a blocked pixel or off the mask.
    SpawnPointNotWalkable {
        /// The spawn point.
        spawn: Entity,
        /// Where it is ([`SpawnPoint::at`](crate::SpawnPoint::at), room pixels).
        point: Vec2,
    },
    /// Pixels of the walk-behind layer whose id has no baseline: never drawn.
    WalkBehindWithoutBaseline {
        /// The id.
        id: u8,
        /// One of its pixels.
        pixel: UVec2,
    },
}

impl std::fmt::Display for LayerProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unusable { layer, why } => write!(f, "the {layer} layer cannot be used: {why}"),
            Self::NotReadAsIds { layer } => write!(
                f,
                "the {layer} layer was decoded as a walk mask (ids 0 and 1 only): name it *.ids.png or give it rule: Indexed in its .meta"
            ),
            Self::HotspotWithoutPixels { hotspot, id } => {
                write!(
                    f,
                    "hotspot {hotspot} (id {id}) has no pixel in the hotspot layer"
                )
            }
            Self::PixelsWithoutHotspot { id, pixel } => write!(
                f,
                "hotspot layer id {id} (at pixel {}, {}) belongs to no Hotspot",
                pixel.x, pixel.y
            ),
            Self::RegionWithoutPixels { id } => {
                write!(f, "region {id} has no pixel in the region layer")
            }
            Self::WalkToNotWalkable { hotspot, point } => {
                write!(
                    f,
                    "hotspot {hotspot}'s walk-to point {point} (room pixels) is not walkable"
                )
            }
            Self::WalkToUnreachable {
                hotspot,
                point,
                spawn,
            } => write!(
                f,
                "hotspot {hotspot}'s walk-to point {point} (room pixels) cannot be reached from spawn point {spawn}"
            ),
            Self::SpawnPointNotWalkable { spawn, point } => {
                write!(
                    f,
                    "spawn point {spawn} at {point} (room pixels) is not walkable"
                )
            }
            Self::WalkBehindWithoutBaseline { id, pixel } => write!(
                f,
                "walk-behind id {id} (at pixel {}, {}) has no baseline",
                pixel.x, pixel.y
            ),
        }
    }
}

/// For each id of `layer`, one of its pixels (the first in row order).
pub(crate) fn first_pixels(layer: &walkmask::WalkMask) -> [Option<UVec2>; 256] {
    let mut first = [None; 256];
    let width = layer.width().max(1) as usize;
    for (i, &id) in layer.areas().iter().enumerate() {
        let slot = &mut first[id as usize];
        if slot.is_none() {
            *slot = Some(UVec2::new((i % width) as u32, (i / width) as u32));
        }
    }
    first
}

/// The image `layer` and how it lies over a walk mask of `mask_size` pixels:
/// `Ok(None)` while it loads, an error when it is no whole fraction of the mask.
pub(crate) fn placed_layer<'a>(
    layer: &Handle<WalkMask>,
    masks: &'a Assets<WalkMask>,
    mask_size: UVec2,
) -> Result<Option<(&'a walkmask::WalkMask, LayerScale)>, String> {
    let Some(layer) = masks.get(layer) else {
        return Ok(None);
    };
    let scale = LayerScale::between(mask_size.into(), layer.size().into())?;
    Ok(Some((layer.core(), scale)))
}

/// [`placed_layer`] for a system that uses `room`'s layer every frame: a layer that
/// does not fit is `None`, with a warning (saying that `what` is ignored) the first
/// time for that room and layer.
pub(crate) fn placed_layer_or_warn<'a>(
    room: Entity,
    layer: &Handle<WalkMask>,
    masks: &'a Assets<WalkMask>,
    mask_size: UVec2,
    warned: &mut Vec<(Entity, AssetId<WalkMask>)>,
    what: &str,
) -> Option<(&'a walkmask::WalkMask, LayerScale)> {
    match placed_layer(layer, masks, mask_size) {
        Ok(placed) => {
            let key = (room, layer.id());
            if placed.is_some()
                && masks.get(layer).is_some_and(|mask| !mask.reads_ids())
                && !warned.contains(&key)
            {
                warned.push(key);
                warn!(
                    "room {room}: {what} decoded as a walk mask (ids 0 and 1 only): name it *.ids.png or give it rule: Indexed in its .meta"
                );
            }
            placed
        }
        Err(why) => {
            let key = (room, layer.id());
            if !warned.contains(&key) {
                warned.push(key);
                warn!("room {room}: {what} ignored: {why}");
            }
            None
        }
    }
}

/// The id of `layer` (placed over a walk mask of `mask_size` pixels lying in the
/// world by `mapping`) under world point `world`; `None` while the layer loads, when
/// it fits no whole fraction of the mask, or off the layer.
pub(crate) fn layer_id_at(
    layer: &Handle<WalkMask>,
    masks: &Assets<WalkMask>,
    mask_size: UVec2,
    mapping: &MaskMapping,
    world: Vec2,
) -> Option<u8> {
    let (layer, scale) = placed_layer(layer, masks, mask_size).ok()??;
    let (x, y) = scale.to_layer(mapping.world_to_mask(world)).pixel()?;
    layer.area_at(x, y)
}
