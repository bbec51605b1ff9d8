//! What a plan depends on ([`PlanBasis`]): the walker's room, the mask's pixels, the
//! areas it may use and where the mask lies; found for a walker at a position.

use bevy::asset::LoadState;
use bevy::prelude::*;
use walkmask::AreaSet;

use super::grid_cache::GridKey;
use crate::asset::WalkMask;
use crate::room::{MaskMapping, RoomLookup, WalkRoom, room_of};
use crate::walker::Walker;

/// What a plan depends on: where the walker is (its room), which pixels (the mask's
/// revision, or the blocked copy's while regions block), which areas it may use (only
/// those in the mask), and where the mask lies.
/// A walk is re-planned exactly when this changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlanBasis {
    pub(crate) room: Entity,
    pub(crate) key: GridKey,
    pub(crate) mapping: MaskMapping,
}

/// Why no basis can be had now.
pub(crate) enum NoBasis {
    /// The mask is still loading: wait.
    Loading,
    /// It will not work: the reason, for the log.
    Failed(String),
}

/// Read access to rooms and masks, for systems.
pub(crate) type Rooms<'w, 's> =
    Query<'w, 's, (Entity, &'static WalkRoom, &'static GlobalTransform)>;

/// The basis of a walker at `position` now.
pub(crate) fn current_basis<'m>(
    walker: &Walker,
    position: Vec2,
    rooms: &Rooms,
    masks: &'m Assets<WalkMask>,
    server: Option<&AssetServer>,
) -> Result<(PlanBasis, &'m WalkMask), NoBasis> {
    let room_entity = match room_of(walker.room, position, rooms.iter(), masks) {
        RoomLookup::Found(room) => room,
        RoomLookup::NotARoom(room) => {
            return Err(NoBasis::Failed(format!("its room {room} has no WalkRoom")));
        }
        RoomLookup::NoRoom => {
            // Rooms still loading may turn out to lie under the walker.
            let loading = rooms.iter().any(|(_, room, _)| {
                server.is_some_and(|s| matches!(s.load_state(&room.mask), LoadState::Loading))
            });
            return Err(if loading {
                NoBasis::Loading
            } else {
                NoBasis::Failed(format!(
                    "it names no room and stands over no room's mask (at {position})"
                ))
            });
        }
    };
    let (_, room, room_transform) = rooms.get(room_entity).expect("found above");
    let Some(mask) = masks.get(room.walk_mask()) else {
        let state = server.map_or(LoadState::NotLoaded, |s| s.load_state(&room.mask));
        return Err(match state {
            LoadState::Loading => NoBasis::Loading,
            LoadState::Failed(error) => {
                NoBasis::Failed(format!("the room's walk mask failed to load: {error}"))
            }
            LoadState::NotLoaded | LoadState::Loaded => {
                NoBasis::Failed("the room's walk mask is missing".into())
            }
        });
    };
    let mapping = room.mapping(room_transform, mask.size());
    if !mapping.is_valid() {
        return Err(NoBasis::Failed(format!(
            "the room's placement cannot be used (scale {}, transform {:?})",
            room.scale,
            room_transform.affine()
        )));
    }
    let areas = walker_areas(walker, room);
    let Some(clearance) = clearance_pixels(walker.radius, &mapping) else {
        return Err(NoBasis::Failed(format!(
            "its radius {} is not a finite number of world units at least 0",
            walker.radius
        )));
    };
    Ok((
        PlanBasis {
            room: room_entity,
            key: GridKey::new(room.walk_mask().id(), mask, areas, clearance),
            mapping,
        },
        mask,
    ))
}

/// A walker's radius in mask pixels (measured along the mask's finer axis, so that
/// it keeps at least `radius` world units both ways); `None` when it cannot be used.
pub(crate) fn clearance_pixels(radius: f32, mapping: &MaskMapping) -> Option<f32> {
    if !(radius.is_finite() && radius >= 0.0) {
        return None;
    }
    // The mapping was checked valid: the pixel size is finite and not zero.
    Some(radius / mapping.pixel_size().min_element())
}

/// The areas a walker may use in a room.
pub(crate) fn walker_areas(walker: &Walker, room: &WalkRoom) -> AreaSet {
    let room_areas = room.areas.to_area_set();
    match walker.areas {
        Some(limit) => room_areas.intersection(&limit.to_area_set()),
        None => room_areas,
    }
}
