//! Debug overlay (cargo feature `debug_overlay`): the mask tinted by area over each
//! room, its region and hotspot layers tinted by id with their names, walkers'
//! current paths, targets, clicks and radii, obstacles' footprints, and what the lint
//! finds in rooms made from room files.

mod lint;

use bevy::asset::RenderAssetUsages;
use bevy::color::ColorToPacked;
use bevy::color::palettes::css::{GOLD, LIME, ORANGE, RED, TOMATO, WHITE};
use bevy::gizmos::GizmoPlugin;
use bevy::gizmos::config::{GizmoConfigGroup, GizmoConfigStore};
use bevy::image::{Image, ImageSampler};
use bevy::prelude::*;

use crate::asset::WalkMask;
use crate::obstacle::{ObstacleShape, WalkObstacle};
use crate::request::WalkRequest;
use crate::room::{WalkAreas, WalkRoom};
use crate::walk::job::PathJob;
use crate::walker::{WalkPath, Walker};

pub use lint::RoomLint;

/// Switches the debug overlay on and off at runtime. Default: on.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkmaskDebug;
///
/// fn toggle(keys: Res<ButtonInput<KeyCode>>, mut debug: ResMut<WalkmaskDebug>) {
///     if keys.just_pressed(KeyCode::F1) {
///         debug.enabled = !debug.enabled;
///     }
/// }
/// # bevy::ecs::system::assert_is_system(toggle);
/// ```
#[derive(Resource, Clone, Debug, Reflect)]
#[reflect(Resource, Debug)]
pub struct WalkmaskDebug {
    /// Whether the overlay is shown.
    pub enabled: bool,
}

impl Default for WalkmaskDebug {
    fn default() -> Self {
        Self { enabled: true }
    }
}

/// The gizmo group of the overlay's lines; style it through `GizmoConfigStore`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkmaskGizmos;
///
/// fn thicker(mut store: ResMut<GizmoConfigStore>) {
///     let (config, _) = store.config_mut::<WalkmaskGizmos>();
///     config.line.width = 3.0;
/// }
/// # bevy::ecs::system::assert_is_system(thicker);
/// ```
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct WalkmaskGizmos;

/// The debug overlay: each room's mask as a tinted sprite (one colour per enabled
/// area, grey for disabled areas, alpha 0.35, drawn just above the room), its region
/// and hotspot layers over it (regions tinted by id, hotspots striped by id, grey
/// when disabled) with each id's name at its centre, walk-to and spawn points, room
/// edges and walk-behind baselines, walkers'
/// remaining paths, their targets and radii, paths being planned, recent clicks, the
/// footprints of [`WalkObstacle`]s (faint when not solid), and, on rooms made from
/// room files, what the lint finds for the widest walker ([`RoomLint`]: islands,
/// pinch points, points off the floor or out of reach, stray ids; red for errors,
/// orange for warnings, each logged once).
///
/// Add it next to [`WalkmaskPlugin`](crate::WalkmaskPlugin). It does nothing harmful
/// when the app has no gizmos (no `GizmoPlugin`: no lines) or no images (no
/// `Assets<Image>`: no tinted mask), so it can stay in headless builds. Adding it twice
/// is harmless.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkmaskDebugPlugin, WalkmaskPlugin};
///
/// App::new().add_plugins((DefaultPlugins, WalkmaskPlugin::default(), WalkmaskDebugPlugin));
/// ```
#[derive(Default, Clone, Copy, Debug)]
pub struct WalkmaskDebugPlugin;

impl Plugin for WalkmaskDebugPlugin {
    fn build(&self, app: &mut App) {
        if app.world().contains_resource::<OverlayInstalled>() {
            return;
        }
        app.insert_resource(OverlayInstalled)
            .init_resource::<WalkmaskDebug>()
            .register_type::<WalkmaskDebug>()
            .add_systems(
                PostUpdate,
                (
                    (update_mask_overlays, update_layer_overlays)
                        .run_if(resource_exists::<Assets<Image>>),
                    lint::lint_rooms.run_if(resource_exists::<Assets<crate::room_file::RoomAsset>>),
                    (
                        draw_walkers,
                        draw_footprints,
                        draw_room_marks,
                        draw_layer_names,
                        lint::draw_lint,
                    )
                        .run_if(gizmos_ready)
                        .after(bevy::transform::TransformSystems::Propagate),
                ),
            );
        init_gizmos(app);
    }

    fn finish(&self, app: &mut App) {
        // GizmoPlugin may have been added after this plugin.
        init_gizmos(app);
    }

    fn is_unique(&self) -> bool {
        false
    }
}

#[derive(Resource)]
struct OverlayInstalled;

fn init_gizmos(app: &mut App) {
    let ready = app
        .world()
        .get_resource::<GizmoConfigStore>()
        .is_some_and(|store| store.get_config::<WalkmaskGizmos>().is_some());
    if !ready && app.is_plugin_added::<GizmoPlugin>() {
        app.init_gizmo_group::<WalkmaskGizmos>();
    }
}

fn gizmos_ready(store: Option<Res<GizmoConfigStore>>) -> bool {
    store.is_some_and(|store| store.get_config::<WalkmaskGizmos>().is_some())
}

/// The tinted mask sprite, a child of its room.
#[derive(Component)]
struct MaskOverlay {
    mask: AssetId<WalkMask>,
    revision: u64,
    areas: WalkAreas,
    /// Where each area's pixels are, so that toggling an area repaints only those.
    runs: AreaRuns,
}

/// The runs of equal area ids along the rows of a mask, listed per area id: (first
/// pixel index, length). Empty when the mask is too fragmented for the lists to pay
/// (then a toggle repaints the whole image).
#[derive(Default)]
struct AreaRuns {
    by_area: Vec<Vec<(u32, u32)>>,
}

impl AreaRuns {
    /// Lists are kept while the runs are at most one per this many pixels.
    const PIXELS_PER_RUN: usize = 8;

    fn of(mask: &walkmask::WalkMask) -> Self {
        let areas = mask.areas();
        let mut by_area: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 256];
        let mut runs = 0usize;
        for (y, row) in areas.chunks_exact(mask.width() as usize).enumerate() {
            let base = y * row.len();
            let mut start = 0;
            for x in 1..=row.len() {
                if x == row.len() || row[x] != row[start] {
                    by_area[row[start] as usize].push(((base + start) as u32, (x - start) as u32));
                    runs += 1;
                    if runs * Self::PIXELS_PER_RUN > areas.len() + 64 {
                        return Self::default();
                    }
                    start = x;
                }
            }
        }
        Self { by_area }
    }

    /// Repaints in `rgba` (one RGBA pixel per mask pixel) the pixels of the areas whose
    /// state differs between `before` and `after`; `false` when there are no lists.
    fn repaint(&self, rgba: &mut [u8], before: WalkAreas, after: WalkAreas) -> bool {
        if self.by_area.is_empty() {
            return false;
        }
        for id in 1..=255u8 {
            let enabled = after.contains(id);
            if before.contains(id) == enabled {
                continue;
            }
            let color = area_color(id, enabled);
            for &(start, len) in &self.by_area[id as usize] {
                let (start, end) = (start as usize * 4, (start + len) as usize * 4);
                for pixel in rgba[start..end].chunks_exact_mut(4) {
                    pixel.copy_from_slice(&color);
                }
            }
        }
        true
    }
}

/// The tint of an area: a hue per id (golden-ratio steps), grey when disabled,
/// transparent when blocked.
fn area_color(id: u8, enabled: bool) -> [u8; 4] {
    const ALPHA: f32 = 0.35;
    if id == 0 {
        return [0, 0, 0, 0];
    }
    let color = if enabled {
        let hue = (id as f32 * 137.507_77) % 360.0;
        Color::hsla(hue, 0.85, 0.55, ALPHA)
    } else {
        Color::srgba(0.5, 0.5, 0.5, ALPHA)
    };
    color.to_srgba().to_u8_array()
}

/// An RGBA image of `mask`, one colour per area.
fn overlay_image(mask: &walkmask::WalkMask, areas: WalkAreas) -> Image {
    let palette: Vec<[u8; 4]> = (0..=255u8)
        .map(|id| area_color(id, areas.contains(id)))
        .collect();
    let mut data = Vec::with_capacity(mask.areas().len() * 4);
    for &a in mask.areas() {
        data.extend_from_slice(&palette[a as usize]);
    }
    nearest_image(mask.width(), mask.height(), data)
}

/// An sRGB image of `rgba` (four bytes a pixel, `width` x `height`), sampled
/// nearest so that pixels stay sharp when stretched over the room.
fn nearest_image(width: u32, height: u32, rgba: Vec<u8>) -> Image {
    let buffer =
        ::image::RgbaImage::from_raw(width, height, rgba).expect("one RGBA pixel per mask pixel");
    let mut image = Image::from_dynamic(
        ::image::DynamicImage::ImageRgba8(buffer),
        true,
        RenderAssetUsages::default(),
    );
    image.sampler = ImageSampler::nearest();
    image
}

/// Keeps one tinted sprite per room in step with its mask, areas and placement.
fn update_mask_overlays(
    mut commands: Commands,
    debug: Res<WalkmaskDebug>,
    rooms: Query<(Entity, &WalkRoom)>,
    masks: Res<Assets<WalkMask>>,
    mut images: ResMut<Assets<Image>>,
    mut overlays: Query<(
        Entity,
        &ChildOf,
        &mut MaskOverlay,
        &mut Sprite,
        &mut Transform,
        &mut Visibility,
    )>,
) {
    // Overlays whose room is gone or no longer a room.
    for (entity, child_of, ..) in &overlays {
        if rooms.get(child_of.parent()).is_err() {
            commands.entity(entity).despawn();
        }
    }
    for (room_entity, room) in &rooms {
        let overlay = overlays
            .iter_mut()
            .find(|(_, child_of, ..)| child_of.parent() == room_entity);
        let mask = masks.get(room.walk_mask());
        let visible = debug.enabled && mask.is_some();
        match (overlay, mask) {
            (Some((_, _, _, _, _, mut visibility)), _) if !visible => {
                visibility.set_if_neq(Visibility::Hidden);
            }
            (None, _) if !visible => {}
            (None, Some(mask)) => {
                let image = images.add(overlay_image(mask.core(), room.areas));
                let sprite = Sprite {
                    image,
                    custom_size: Some(mask.size().as_vec2() * room.scale),
                    ..default()
                };
                commands.entity(room_entity).with_child((
                    sprite,
                    Transform::from_translation(room.offset.extend(0.5)),
                    Visibility::Inherited,
                    MaskOverlay {
                        mask: room.walk_mask().id(),
                        revision: mask.revision(),
                        areas: room.areas,
                        runs: AreaRuns::of(mask.core()),
                    },
                    Name::new("walk mask overlay"),
                ));
            }
            (Some((_, _, mut overlay, mut sprite, mut transform, mut visibility)), Some(mask)) => {
                visibility.set_if_neq(Visibility::Inherited);
                let new_pixels =
                    overlay.mask != room.walk_mask().id() || overlay.revision != mask.revision();
                if !new_pixels && overlay.areas != room.areas {
                    // Areas toggled: repaint their pixels only.
                    let repainted = match images.get_mut(&sprite.image) {
                        Some(mut image) => image.data.as_mut().is_some_and(|rgba| {
                            overlay.runs.repaint(rgba, overlay.areas, room.areas)
                        }),
                        None => false,
                    };
                    if repainted {
                        overlay.areas = room.areas;
                    }
                }
                if new_pixels || overlay.areas != room.areas {
                    sprite.image = images.add(overlay_image(mask.core(), room.areas));
                    *overlay = MaskOverlay {
                        mask: room.walk_mask().id(),
                        revision: mask.revision(),
                        areas: room.areas,
                        runs: AreaRuns::of(mask.core()),
                    };
                }
                let size = Some(mask.size().as_vec2() * room.scale);
                if sprite.custom_size != size {
                    sprite.custom_size = size;
                }
                let translation = room.offset.extend(0.5);
                if transform.translation != translation {
                    transform.translation = translation;
                }
            }
            (_, None) => {}
        }
    }
}

/// Which layer a [`LayerOverlay`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LayerKind {
    Regions,
    Hotspots,
}

impl LayerKind {
    /// Its z above the room (the mask's overlay is at 0.5).
    fn z(self) -> f32 {
        match self {
            LayerKind::Regions => 0.55,
            LayerKind::Hotspots => 0.6,
        }
    }
}

/// A tinted sprite of one of a room's layers, a child of the room, with the names
/// of its ids and where their labels go.
#[derive(Component)]
struct LayerOverlay {
    kind: LayerKind,
    layer: AssetId<WalkMask>,
    revision: u64,
    /// The ids drawn grey.
    disabled: Vec<u8>,
    /// Per id present, the centre of its pixels (layer pixels).
    centres: Vec<(u8, Vec2)>,
    /// Per id present: its name and where it goes.
    labels: Vec<(u8, String, Vec2)>,
}

/// The tint of id `id` of a layer: regions by hue, hotspots in stripes of their hue
/// (so the two layers tell apart where they overlap); grey when disabled.
fn layer_color(kind: LayerKind, id: u8, enabled: bool, x: u32, y: u32) -> [u8; 4] {
    if id == 0 {
        return [0, 0, 0, 0];
    }
    let hue = (id as f32 * 97.0 + 40.0) % 360.0;
    let color = match (kind, enabled) {
        (_, false) => Color::srgba(0.5, 0.5, 0.5, 0.3),
        (LayerKind::Regions, true) => Color::hsla(hue, 0.9, 0.5, 0.3),
        (LayerKind::Hotspots, true) if (x + y) % 6 < 3 => Color::hsla(hue, 0.95, 0.6, 0.55),
        (LayerKind::Hotspots, true) => Color::hsla(hue, 0.95, 0.6, 0.15),
    };
    color.to_srgba().to_u8_array()
}

/// An RGBA image of `layer`, one tint per id.
fn layer_image(layer: &walkmask::WalkMask, kind: LayerKind, disabled: &[u8]) -> Image {
    let width = layer.width().max(1);
    let mut data = Vec::with_capacity(layer.areas().len() * 4);
    for (i, &id) in layer.areas().iter().enumerate() {
        let (x, y) = (i as u32 % width, i as u32 / width);
        data.extend_from_slice(&layer_color(kind, id, !disabled.contains(&id), x, y));
    }
    nearest_image(layer.width(), layer.height(), data)
}

/// The centre of each id's pixels (layer pixels), for the ids present.
fn id_centres(layer: &walkmask::WalkMask) -> Vec<(u8, Vec2)> {
    let width = layer.width().max(1) as usize;
    let mut sums = vec![(0.0f64, 0.0f64, 0u64); 256];
    for (i, &id) in layer.areas().iter().enumerate() {
        let sum = &mut sums[id as usize];
        sum.0 += (i % width) as f64 + 0.5;
        sum.1 += (i / width) as f64 + 0.5;
        sum.2 += 1;
    }
    (1..=255u8)
        .filter(|&id| sums[id as usize].2 > 0)
        .map(|id| {
            let (x, y, n) = sums[id as usize];
            (id, Vec2::new((x / n as f64) as f32, (y / n as f64) as f32))
        })
        .collect()
}

/// A room as the layer overlays read it.
type LayeredRoom = (
    Entity,
    &'static WalkRoom,
    Option<&'static crate::layers::WalkRegions>,
    Option<&'static crate::layers::WalkHotspots>,
);

/// Keeps one tinted sprite per region or hotspot layer of each room in step with
/// the layer, its switches and its names.
fn update_layer_overlays(
    mut commands: Commands,
    debug: Res<WalkmaskDebug>,
    rooms: Query<LayeredRoom>,
    hotspots: Query<(&crate::layers::Hotspot, &ChildOf)>,
    masks: Res<Assets<WalkMask>>,
    mut images: ResMut<Assets<Image>>,
    mut overlays: Query<(
        Entity,
        &ChildOf,
        &mut LayerOverlay,
        &mut Sprite,
        &mut Transform,
        &mut Visibility,
    )>,
) {
    for (entity, child_of, overlay, ..) in &overlays {
        let kept = rooms
            .get(child_of.parent())
            .is_ok_and(|(_, _, regions, spots)| match overlay.kind {
                LayerKind::Regions => regions.is_some(),
                LayerKind::Hotspots => spots.is_some(),
            });
        if !kept {
            commands.entity(entity).despawn();
        }
    }
    for (room_entity, room, regions, spots) in &rooms {
        let layers = [
            regions.map(|r| (LayerKind::Regions, &r.layer)),
            spots.map(|h| (LayerKind::Hotspots, &h.layer)),
        ];
        for (kind, handle) in layers.into_iter().flatten() {
            let overlay = overlays
                .iter_mut()
                .find(|(_, child_of, o, ..)| child_of.parent() == room_entity && o.kind == kind);
            let placed = masks
                .get(&room.mask)
                .zip(masks.get(handle))
                .filter(|(mask, layer)| {
                    walkmask::layer::LayerScale::between(mask.size().into(), layer.size().into())
                        .is_ok()
                });
            let Some((mask, layer)) = placed.filter(|_| debug.enabled) else {
                if let Some((.., mut visibility)) = overlay {
                    visibility.set_if_neq(Visibility::Hidden);
                }
                continue;
            };
            // The names and switches of the layer's ids.
            let name_of = |id: u8| -> (String, bool) {
                match kind {
                    LayerKind::Regions => {
                        let regions = regions.expect("a region layer");
                        let name = regions
                            .name(id)
                            .filter(|n| !n.is_empty())
                            .or(layer.name(id))
                            .map_or_else(|| format!("region {id}"), str::to_owned);
                        (name, regions.is_enabled(id))
                    }
                    LayerKind::Hotspots => hotspots
                        .iter()
                        .find(|(h, c)| c.parent() == room_entity && h.id == id)
                        .map_or_else(
                            || (format!("hotspot {id}?"), false),
                            |(h, _)| (h.name.clone(), h.enabled),
                        ),
                }
            };
            // The centres change with the layer only.
            let centres = match &overlay {
                Some((_, _, o, ..)) if o.layer == handle.id() && o.revision == layer.revision() => {
                    o.centres.clone()
                }
                _ => id_centres(layer.core()),
            };
            let named: Vec<(u8, String, bool, Vec2)> = centres
                .iter()
                .map(|&(id, at)| {
                    let (name, enabled) = name_of(id);
                    (id, name, enabled, at)
                })
                .collect();
            let disabled: Vec<u8> = named.iter().filter(|n| !n.2).map(|n| n.0).collect();
            let labels: Vec<(u8, String, Vec2)> = named
                .into_iter()
                .map(|(id, name, _, at)| (id, name, at))
                .collect();
            let size = Some(mask.size().as_vec2() * room.scale);
            let translation = room.offset.extend(kind.z());
            match overlay {
                None => {
                    let image = images.add(layer_image(layer.core(), kind, &disabled));
                    commands.entity(room_entity).with_child((
                        Sprite {
                            image,
                            custom_size: size,
                            ..default()
                        },
                        Transform::from_translation(translation),
                        Visibility::Inherited,
                        LayerOverlay {
                            kind,
                            layer: handle.id(),
                            revision: layer.revision(),
                            disabled,
                            centres,
                            labels,
                        },
                        Name::new("room layer overlay"),
                    ));
                }
                Some((_, _, mut overlay, mut sprite, mut transform, mut visibility)) => {
                    visibility.set_if_neq(Visibility::Inherited);
                    if overlay.layer != handle.id()
                        || overlay.revision != layer.revision()
                        || overlay.disabled != disabled
                    {
                        sprite.image = images.add(layer_image(layer.core(), kind, &disabled));
                        overlay.layer = handle.id();
                        overlay.revision = layer.revision();
                        overlay.disabled = disabled;
                        overlay.centres = centres;
                    }
                    if overlay.labels != labels {
                        overlay.labels = labels;
                    }
                    if sprite.custom_size != size {
                        sprite.custom_size = size;
                    }
                    if transform.translation != translation {
                        transform.translation = translation;
                    }
                }
            }
        }
    }
}

/// The names of the region and hotspot ids, at the centres of their pixels.
fn draw_layer_names(
    debug: Res<WalkmaskDebug>,
    mut gizmos: Gizmos<WalkmaskGizmos>,
    overlays: Query<(&LayerOverlay, &ChildOf)>,
    rooms: Query<(&WalkRoom, &GlobalTransform)>,
    masks: Res<Assets<WalkMask>>,
) {
    if !debug.enabled {
        return;
    }
    for (overlay, child_of) in &overlays {
        let Ok((room, global)) = rooms.get(child_of.parent()) else {
            continue;
        };
        let (Some(mask), Some(layer)) = (masks.get(&room.mask), masks.get(overlay.layer)) else {
            continue;
        };
        let mapping = room.mapping(global, mask.size());
        let factor = mask.size().as_vec2() / layer.size().as_vec2().max(Vec2::ONE);
        let color = match overlay.kind {
            LayerKind::Regions => Color::srgb(1.0, 0.95, 0.6),
            LayerKind::Hotspots => Color::srgb(0.6, 1.0, 1.0),
        };
        for (_, name, at) in &overlay.labels {
            let p = *at * factor;
            let world = mapping.mask_to_world(walkmask::Point::new(p.x, p.y));
            if world.is_finite() {
                gizmos.text_2d(
                    Isometry2d::from_translation(world),
                    name,
                    20.0,
                    Vec2::ZERO,
                    color,
                );
            }
        }
    }
}

/// What the overlay draws of a walker.
type WalkerView = (
    &'static GlobalTransform,
    Option<&'static WalkPath>,
    Option<&'static PathJob>,
);

/// Paths, targets and clicks.
fn draw_walkers(
    debug: Res<WalkmaskDebug>,
    time: Res<Time>,
    mut gizmos: Gizmos<WalkmaskGizmos>,
    mut requests: MessageReader<WalkRequest>,
    mut clicks: Local<Vec<(Vec2, f32)>>,
    walkers: Query<WalkerView, With<Walker>>,
) {
    const CLICK_SECONDS: f32 = 1.0;
    let now = time.elapsed_secs();
    clicks.extend(
        requests
            .read()
            .filter(|r| r.target.is_finite())
            .map(|r| (r.target, now)),
    );
    clicks.retain(|&(_, at)| now - at < CLICK_SECONDS);
    if !debug.enabled {
        return;
    }
    for &(point, at) in clicks.iter() {
        let fade = 1.0 - (now - at) / CLICK_SECONDS;
        gizmos.circle_2d(point, 4.0 + 10.0 * (1.0 - fade), WHITE.with_alpha(fade));
    }
    for (transform, path, job) in &walkers {
        let position = transform.translation().truncate();
        gizmos.circle_2d(position, 6.0, LIME);
        if let Some(path) = path {
            let rest = path.waypoints.get(path.next..).unwrap_or(&[]);
            gizmos.linestrip_2d(
                std::iter::once(position).chain(rest.iter().copied()),
                ORANGE,
            );
            if let Some(end) = path.end() {
                gizmos.circle_2d(end, 4.0, ORANGE);
                if end.distance(path.target) > 0.5 {
                    gizmos.line_2d(end, path.target, RED.with_alpha(0.6));
                }
            }
            gizmos.cross_2d(path.target, 6.0, RED);
        }
        if let Some(job) = job {
            gizmos.line_2d(position, job.target, GOLD.with_alpha(0.5));
            gizmos.cross_2d(job.target, 6.0, GOLD);
        }
    }
}

/// Where rooms' layers put things: hotspots' walk-to points (cyan), spawn points
/// (violet), edges (violet lines across the mask) and walk-behind baselines (gold
/// lines across the mask).
#[allow(clippy::type_complexity)]
fn draw_room_marks(
    debug: Res<WalkmaskDebug>,
    mut gizmos: Gizmos<WalkmaskGizmos>,
    hotspots: Query<(&crate::layers::Hotspot, &ChildOf)>,
    spawns: Query<(&crate::layers::SpawnPoint, &ChildOf)>,
    rooms: Query<(
        Entity,
        &WalkRoom,
        &GlobalTransform,
        Option<&crate::layers::RoomEdges>,
    )>,
    #[cfg(feature = "walk_behinds")] walk_behinds: Query<&crate::layers::walk_behinds::WalkBehinds>,
    masks: Res<Assets<WalkMask>>,
) {
    if !debug.enabled {
        return;
    }
    let cyan = Color::srgb(0.3, 0.9, 1.0);
    let violet = Color::srgb(0.75, 0.45, 1.0);
    // Room pixels to the world, as each room is placed now.
    let mapping_of = |room: Entity| {
        let (_, walk_room, global, _) = rooms.get(room).ok()?;
        let mask = masks.get(&walk_room.mask)?;
        Some((walk_room, walk_room.mapping(global, mask.size())))
    };
    let in_world = |(walk_room, mapping): (&WalkRoom, crate::MaskMapping), pixel: Vec2| {
        walk_room.room_pixel_to_world(&mapping, pixel)
    };
    for (hotspot, child_of) in &hotspots {
        if let Some(pixel) = hotspot.walk_to
            && let Some(placed) = mapping_of(child_of.parent())
            && let Some(point) = in_world(placed, pixel)
        {
            gizmos.rect_2d(
                Isometry2d::new(point, Rot2::degrees(45.0)),
                Vec2::splat(8.0),
                if hotspot.enabled {
                    cyan
                } else {
                    cyan.with_alpha(0.35)
                },
            );
        }
    }
    for (spawn, child_of) in &spawns {
        let Some(p) = mapping_of(child_of.parent()).and_then(|placed| in_world(placed, spawn.at))
        else {
            continue;
        };
        gizmos.circle_2d(p, 7.0, violet);
        gizmos.cross_2d(p, 5.0, violet);
    }
    for (_entity, room, global, edges) in &rooms {
        let Some(mask) = masks.get(&room.mask) else {
            continue;
        };
        let mapping = room.mapping(global, mask.size());
        let size = mask.size().as_vec2();
        let a = mapping.mask_to_world(walkmask::Point::new(0.0, 0.0));
        let b = mapping.mask_to_world(walkmask::Point::new(size.x, size.y));
        let (min, max) = (a.min(b), a.max(b));
        if !(min.is_finite() && max.is_finite()) {
            continue;
        }
        #[cfg(feature = "walk_behinds")]
        let across = |y: f32| (Vec2::new(min.x, y), Vec2::new(max.x, y));
        if let Some(edges) = edges {
            // Room-pixel columns and rows, from side to side of the mask.
            let s = room.scale;
            let column = |x: f32| {
                (
                    walkmask::Point::new(x / s, 0.0),
                    walkmask::Point::new(x / s, size.y),
                )
            };
            let row = |y: f32| {
                (
                    walkmask::Point::new(0.0, y / s),
                    walkmask::Point::new(size.x, y / s),
                )
            };
            let lines = [
                edges.left.map(column),
                edges.right.map(column),
                edges.top.map(row),
                edges.bottom.map(row),
            ];
            for (from, to) in lines.into_iter().flatten() {
                gizmos.line_2d(
                    mapping.mask_to_world(from),
                    mapping.mask_to_world(to),
                    violet,
                );
            }
        }
        #[cfg(feature = "walk_behinds")]
        for y in walk_behinds
            .get(_entity)
            .iter()
            .flat_map(|b| b.baselines.iter().filter_map(|(_, y)| *y))
        {
            let (from, to) = across(y);
            gizmos.line_2d(from, to, GOLD.with_alpha(0.7));
        }
    }
}

/// Walkers' radii and obstacles' footprints.
fn draw_footprints(
    debug: Res<WalkmaskDebug>,
    mut gizmos: Gizmos<WalkmaskGizmos>,
    radii: Query<(&GlobalTransform, &Walker)>,
    obstacles: Query<(&GlobalTransform, &WalkObstacle)>,
) {
    if !debug.enabled {
        return;
    }
    for (transform, obstacle) in &obstacles {
        let at = transform.translation().truncate();
        let color = if obstacle.solid {
            TOMATO
        } else {
            TOMATO.with_alpha(0.3)
        };
        match obstacle.shape {
            ObstacleShape::Rect { half_size } => {
                gizmos.rect_2d(at, half_size * 2.0, color);
            }
            ObstacleShape::Circle { radius } => {
                gizmos.circle_2d(at, radius, color);
            }
            ObstacleShape::Ellipse { radii } => {
                gizmos.ellipse_2d(at, radii, color);
            }
        }
    }
    for (transform, walker) in &radii {
        if walker.radius > 0.0 && walker.radius.is_finite() {
            let at = transform.translation().truncate();
            gizmos.circle_2d(at, walker.radius, LIME.with_alpha(0.6));
        }
    }
}
