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
//! A layer is loaded like a walk mask (the same loader, decoding rules and hot
//! reload: a `*.walk.png` with a `.meta` saying `rule: Indexed` reads each pixel's
//! grey level as its id), and is the room's walk-mask size or smaller by a whole
//! factor ([`walkmask::layer::LayerScale`]).

pub mod exits;
pub mod hotspots;
pub mod regions;
#[cfg(feature = "walk_behinds")]
pub mod walk_behinds;

pub use exits::{
    Edge, ExitCommandsExt, RoomEdges, RoomExit, RoomExitRequested, SpawnPoint, WalkedOffEdge,
};
pub use hotspots::{
    Hotspot, HotspotClicks, HotspotCommandsExt, Interacting, InteractionArrived,
    InteractionCancelled, InteractionUnreachable, UnreachablePolicy, Verb, WalkHotspots,
    WalkPolicy,
};
pub use regions::{InRegion, Region, RegionEntered, RegionExited, WalkRegions};

use bevy::prelude::*;
use walkmask::layer::LayerScale;

use crate::asset::WalkMask;
use crate::room::MaskMapping;

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
