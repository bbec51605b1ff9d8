//! Rooms made of [`bevy_ecs_tilemap`] tile layers (cargo feature
//! `tilemap`).
//!
//! Put a [`WalkTileLayer`] on a tile layer (the entity with the `TileStorage`). The
//! plugin reads which tiles are walkable (a [`TileWalk`] on the tile, else the
//! layer's table by `TileTextureIndex`, else [`WalkTileLayer::default_area`]; absent
//! or invisible tiles are [`WalkTileLayer::missing_area`], blocked by default) into a
//! walk mask of `pixels_per_tile` x `pixels_per_tile` mask pixels per tile, and keeps
//! a [`WalkRoom`] over it on a child of the layer ([`TileWalkRoom`]), placed exactly
//! over the tiles through the layer's `GlobalTransform`, grid size and anchor.
//! Everything that works on image rooms then works on the tile room: clicks, walkers,
//! areas, obstacles, queries, warm fields, the debug overlay.
//!
//! When tiles change (a door's `TileWalk` or texture index, a tile shown or hidden,
//! spawned or despawned) only those tiles are written into a copy of the mask, and
//! walkers re-plan as they do when areas change. Only square maps are supported: a
//! layer of another `TilemapType` is reported with an error and gets no room.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_ecs_tilemap::prelude::*;
//! use bevy_walkmask::tilemap::{TileWalk, WalkTileLayer};
//!
//! fn make_walkable(mut commands: Commands, layers: Query<Entity, With<TileStorage>>) {
//!     for layer in &layers {
//!         // Floor tiles are texture 0 (area 1), door tiles texture 3 (area 2, which
//!         // game state opens and closes); everything else is wall.
//!         commands.entity(layer).insert(WalkTileLayer::default().with_texture(0, 1).with_texture(3, 2));
//!     }
//! }
//! # bevy::ecs::system::assert_is_system(make_walkable);
//! ```

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex, TileVisible};

use crate::asset::WalkMask;
use crate::room::WalkRoom;

/// Marks a tile layer as walkable ground and says how its tiles map to areas.
/// Removing it (or despawning the layer) despawns its room.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug, PartialEq)]
pub struct WalkTileLayer {
    /// Area of tiles by texture index (0 = blocked), for tiles without a [`TileWalk`].
    pub textures: HashMap<u32, u8>,
    /// Area of present, visible tiles that have neither a [`TileWalk`] nor an entry
    /// in `textures`. Default 0 (blocked).
    pub default_area: u8,
    /// Area where there is no tile, or it is invisible. Default 0 (blocked).
    pub missing_area: u8,
    /// Mask pixels per tile along each axis (1 to 16; default 1). More gives paths
    /// that hug walls closer and finer walker radii, at `pixels_per_tile²` times the
    /// grid's memory and fill time.
    pub pixels_per_tile: u32,
}

impl Default for WalkTileLayer {
    fn default() -> Self {
        Self {
            textures: HashMap::new(),
            default_area: 0,
            missing_area: 0,
            pixels_per_tile: 1,
        }
    }
}

impl WalkTileLayer {
    /// Tiles with texture `index` are in `area` (0 = blocked).
    pub fn with_texture(mut self, index: u32, area: u8) -> Self {
        self.textures.insert(index, area);
        self
    }

    /// Tiles with neither a [`TileWalk`] nor a texture entry are in `area`.
    pub fn with_default_area(mut self, area: u8) -> Self {
        self.default_area = area;
        self
    }

    /// `pixels` mask pixels per tile along each axis (clamped to 1..=16).
    pub fn with_pixels_per_tile(mut self, pixels: u32) -> Self {
        self.pixels_per_tile = pixels;
        self
    }

    fn resolution(&self) -> u32 {
        self.pixels_per_tile.clamp(1, 16)
    }

    /// The area of one tile.
    fn area_of(&self, tile: Option<TileView>) -> u8 {
        match tile {
            Some((_, _, _, Some(visible), _)) if !visible.0 => self.missing_area,
            Some((_, _, Some(walk), _, _)) => walk.area,
            Some((_, Some(texture), _, _, _)) => self
                .textures
                .get(&texture.0)
                .copied()
                .unwrap_or(self.default_area),
            Some(_) => self.default_area,
            None => self.missing_area,
        }
    }
}

/// The area a tile belongs to (0 = blocked), over its layer's texture table.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default, Reflect)]
#[reflect(Component, Default, Debug, PartialEq)]
pub struct TileWalk {
    /// The area id (0 = blocked).
    pub area: u8,
}

/// The child of a [`WalkTileLayer`] that carries its [`WalkRoom`]. Give walkers this
/// entity as their room (`Walker::with_room`) when several rooms overlap; toggle
/// areas on its `WalkRoom`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
pub struct TileWalkRoom {
    /// The tile layer.
    #[entities]
    pub layer: Entity,
}

/// What the plugin knows of a layer: its room child and the tile count it was built
/// for.
#[derive(Component)]
pub(crate) struct TileRoomState {
    room: Entity,
    built_for: (UVec2, u32),
}

/// A tile as the mask sees it.
type TileView<'a> = (
    &'a TilePos,
    Option<&'a TileTextureIndex>,
    Option<&'a TileWalk>,
    Option<&'a TileVisible>,
    Option<&'a TilemapId>,
);

/// A layer as the mask sees it.
type LayerView = (
    Entity,
    Ref<'static, WalkTileLayer>,
    Ref<'static, TileStorage>,
    Ref<'static, TilemapSize>,
    Ref<'static, TilemapGridSize>,
    Option<Ref<'static, TilemapTileSize>>,
    Option<Ref<'static, TilemapType>>,
    Option<Ref<'static, TilemapAnchor>>,
    Option<&'static TileRoomState>,
);

/// Tiles whose walkability may have changed.
type ChangedTiles<'w, 's> = Query<
    'w,
    's,
    TileView<'static>,
    Or<(
        Changed<TilePos>,
        Changed<TileTextureIndex>,
        Changed<TileWalk>,
        Changed<TileVisible>,
    )>,
>;

/// Builds and updates the masks and rooms of tile layers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sync_tile_rooms(
    mut commands: Commands,
    layers: Query<LayerView>,
    tiles: Query<(Entity, TileView<'static>)>,
    changed: ChangedTiles,
    mut removed: RemovedComponents<TilePos>,
    rooms: Query<&WalkRoom>,
    mut masks: ResMut<Assets<WalkMask>>,
    mut reported: Local<Vec<Entity>>,
) {
    // Layers with a changed tile (removed tiles: their layer is not known any more,
    // so every layer is checked).
    let any_removed = removed.read().count() > 0;
    let mut touched: HashMap<Entity, Vec<TilePos>> = HashMap::new();
    for (pos, _, _, _, map) in &changed {
        if let Some(map) = map {
            touched.entry(map.0).or_default().push(*pos);
        }
    }
    for (layer, settings, storage, size, grid, tile_size, map_type, anchor, state) in &layers {
        let map_type = map_type.as_deref().copied().unwrap_or_default();
        if map_type != TilemapType::Square {
            if !reported.contains(&layer) {
                error!(
                    "tile layer {layer}: only square tile maps can be walked (this one is {map_type:?}); it gets no walk room"
                );
                reported.push(layer);
            }
            continue;
        }
        let k = settings.resolution();
        let dims = UVec2::new(size.x, size.y);
        let geometry_changed = settings.is_changed()
            || grid.is_changed()
            || size.is_changed()
            || anchor.as_ref().is_some_and(|a| a.is_changed())
            || tile_size.as_ref().is_some_and(|t| t.is_changed());
        let structure_changed = storage.is_changed() || any_removed;
        let room_mask = state
            .and_then(|s| rooms.get(s.room).ok())
            .map(|room| room.mask.clone());
        let fresh = state.is_none_or(|s| s.built_for != (dims, k)) || room_mask.is_none();
        let tiles_changed = touched.get(&layer);
        if !fresh && !geometry_changed && !structure_changed && tiles_changed.is_none() {
            continue;
        }
        let area = |pos: &TilePos| {
            let tile = storage
                .get(pos)
                .and_then(|entity| tiles.get(entity).ok())
                .map(|(_, tile)| tile);
            settings.area_of(tile)
        };
        let (w, h) = (size.x.saturating_mul(k), size.y.saturating_mul(k));
        let old = room_mask
            .as_ref()
            .and_then(|handle| masks.get(handle))
            .filter(|mask| !fresh && mask.size() == UVec2::new(w, h));
        let cells = match (old, tiles_changed) {
            // A few tiles changed: write into a copy just those whose area did; when
            // none did (an animated texture), nothing changes.
            (Some(old), Some(positions)) if !structure_changed && !geometry_changed => {
                let areas = old.core().areas();
                let changed: Vec<(&TilePos, u8)> = positions
                    .iter()
                    .map(|pos| (pos, area(pos)))
                    .filter(|&(pos, area)| tile_area(areas, w, size.y, k, pos) != Some(area))
                    .collect();
                if changed.is_empty() {
                    continue;
                }
                let mut cells = areas.to_vec();
                for (pos, area) in changed {
                    paint_tile(&mut cells, w, size.y, k, pos, area);
                }
                cells
            }
            _ => {
                // Every tile at once: one pass over the tiles in storage order (their
                // components side by side in memory), not a look-up per position.
                let mut cells = vec![settings.area_of(None); w as usize * h as usize];
                for (entity, tile) in &tiles {
                    let (pos, .., map) = tile;
                    if map.is_some_and(|map| map.0 == layer) && storage.get(pos) == Some(entity) {
                        paint_tile(&mut cells, w, size.y, k, pos, settings.area_of(Some(tile)));
                    }
                }
                cells
            }
        };
        let mask = match walkmask::WalkMask::new(w, h, cells) {
            Ok(mask) => WalkMask::new(mask),
            Err(error) => {
                error!("tile layer {layer}: its walk mask cannot be made: {error}");
                continue;
            }
        };
        let anchor = anchor.as_deref().copied().unwrap_or_default();
        let tile_size = tile_size.as_deref().copied().unwrap_or(TilemapTileSize {
            x: grid.x,
            y: grid.y,
        });
        let placement = room_transform(&size, &grid, &tile_size, &anchor, k);
        match (state, room_mask) {
            (Some(state), Some(handle)) if masks.get(&handle).is_some() => {
                // A tile that changed but not its walkability (an animated texture)
                // leaves the mask, its grids and every walk alone.
                let same = masks.get(&handle).is_some_and(|existing| {
                    existing.size() == mask.size() && existing.core().areas() == mask.core().areas()
                });
                if !same && let Some(mut existing) = masks.get_mut(&handle) {
                    *existing = mask;
                }
                commands.entity(state.room).try_insert(placement);
                commands.entity(layer).try_insert(TileRoomState {
                    room: state.room,
                    built_for: (dims, k),
                });
            }
            _ => {
                let handle = masks.add(mask);
                let room = commands
                    .spawn((
                        WalkRoom::new(handle),
                        TileWalkRoom { layer },
                        placement,
                        ChildOf(layer),
                    ))
                    .id();
                commands.entity(layer).try_insert(TileRoomState {
                    room,
                    built_for: (dims, k),
                });
            }
        }
    }
}

/// Despawns the room of a layer that stops being walkable ground (its walkers' walks
/// end as they do when any room goes away), and the plugin's record of it.
pub(crate) fn forget_tile_layer(
    removed: On<Remove, WalkTileLayer>,
    layers: Query<&TileRoomState>,
    mut commands: Commands,
) {
    let Ok(state) = layers.get(removed.entity) else {
        return;
    };
    if let Ok(mut room) = commands.get_entity(state.room) {
        room.try_despawn();
    }
    if let Ok(mut layer) = commands.get_entity(removed.entity) {
        layer.try_remove::<TileRoomState>();
    }
}

/// Writes `area` into the `k` x `k` mask pixels of tile `pos` (mask row 0 is the top
/// row of tiles; tile y = 0 is the bottom row).
fn paint_tile(cells: &mut [u8], width: u32, rows_of_tiles: u32, k: u32, pos: &TilePos, area: u8) {
    let Some(start) = tile_start(width, rows_of_tiles, k, pos) else {
        return;
    };
    for dy in 0..k as usize {
        let row = start + dy * width as usize;
        cells[row..row + k as usize].fill(area);
    }
}

/// The area a tile has in `cells` (its first pixel), `None` when it is off the mask.
fn tile_area(cells: &[u8], width: u32, rows_of_tiles: u32, k: u32, pos: &TilePos) -> Option<u8> {
    tile_start(width, rows_of_tiles, k, pos).and_then(|i| cells.get(i).copied())
}

/// Index in a mask `width` pixels wide of the top-left pixel of the tile at `pos`
/// (`k` pixels a side; tile rows count up, mask rows down); `None` off the mask.
fn tile_start(width: u32, rows_of_tiles: u32, k: u32, pos: &TilePos) -> Option<usize> {
    if pos.y >= rows_of_tiles || (pos.x + 1) * k > width {
        return None;
    }
    let top = (rows_of_tiles - 1 - pos.y) * k;
    Some(top as usize * width as usize + (pos.x * k) as usize)
}

/// The transform, under the layer, of a room whose mask (`k` pixels per tile, one
/// world unit per pixel before this transform) lies exactly over the tiles.
fn room_transform(
    size: &TilemapSize,
    grid: &TilemapGridSize,
    tile_size: &TilemapTileSize,
    anchor: &TilemapAnchor,
    k: u32,
) -> Transform {
    let geometry = TileLayerGeometry::local(size, grid, tile_size, anchor);
    let centre = geometry.local_centre();
    Transform::from_translation(centre.extend(0.0)).with_scale(Vec3::new(
        grid.x / k as f32,
        grid.y / k as f32,
        1.0,
    ))
}

/// Tile <-> world for a square tile layer: through its grid size, anchor and
/// `GlobalTransform` (tile y = 0 is the bottom row).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_walkmask::tilemap::TileLayerGeometry;
///
/// let geometry = TileLayerGeometry::new(
///     &TilemapSize { x: 4, y: 3 },
///     &TilemapGridSize { x: 16.0, y: 16.0 },
///     &TilemapTileSize { x: 16.0, y: 16.0 },
///     &TilemapAnchor::Center,
///     &GlobalTransform::default(),
/// );
/// assert_eq!(geometry.tile_center(TilePos { x: 0, y: 0 }), Vec2::new(-24.0, -16.0));
/// assert_eq!(geometry.tile_at(Vec2::new(20.0, 10.0)), Some(TilePos { x: 3, y: 2 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileLayerGeometry {
    size: UVec2,
    grid: Vec2,
    /// Layer-local centre of tile (0, 0).
    origin: Vec2,
    transform: GlobalTransform,
}

impl TileLayerGeometry {
    /// The geometry of a square layer with these components.
    pub fn new(
        size: &TilemapSize,
        grid: &TilemapGridSize,
        tile_size: &TilemapTileSize,
        anchor: &TilemapAnchor,
        transform: &GlobalTransform,
    ) -> Self {
        Self {
            transform: *transform,
            ..Self::local(size, grid, tile_size, anchor)
        }
    }

    fn local(
        size: &TilemapSize,
        grid: &TilemapGridSize,
        tile_size: &TilemapTileSize,
        anchor: &TilemapAnchor,
    ) -> Self {
        let origin = if size.x == 0 || size.y == 0 {
            Vec2::ZERO
        } else {
            anchor.as_offset(size, grid, tile_size, &TilemapType::Square)
        };
        Self {
            size: UVec2::new(size.x, size.y),
            grid: Vec2::new(grid.x, grid.y),
            origin,
            transform: GlobalTransform::IDENTITY,
        }
    }

    /// Layer-local centre of the whole map.
    fn local_centre(&self) -> Vec2 {
        self.origin + self.grid * (self.size.as_vec2() - Vec2::ONE) / 2.0
    }

    /// World position of the centre of tile `pos`.
    pub fn tile_center(&self, pos: TilePos) -> Vec2 {
        let local = self.origin + self.grid * Vec2::new(pos.x as f32, pos.y as f32);
        self.transform.transform_point(local.extend(0.0)).truncate()
    }

    /// The tile under world position `world`; `None` outside the map (or when the
    /// layer's transform cannot be inverted).
    pub fn tile_at(&self, world: Vec2) -> Option<TilePos> {
        let local = self
            .transform
            .affine()
            .inverse()
            .transform_point3(world.extend(0.0))
            .truncate();
        let cell = (local - self.origin) / self.grid + Vec2::splat(0.5);
        if !cell.is_finite() || cell.x < 0.0 || cell.y < 0.0 {
            return None;
        }
        let (x, y) = (cell.x.floor() as u32, cell.y.floor() as u32);
        (x < self.size.x && y < self.size.y).then_some(TilePos { x, y })
    }
}
