//! Walk-behinds: parts of the room's picture (a pillar, a counter, a tree) that are
//! drawn over the characters behind them.
//!
//! Give a room a walk-behind layer with [`WalkBehinds`]: an image of ids, the size
//! of the room's picture, and a baseline per id: the row of the picture (room pixels,
//! y down) where it stands on the floor. The plugin cuts each id's pixels out of the
//! picture into a sprite, a child of the room ([`WalkBehind`]), with
//! [`Baseline::Row`] its baseline, so that [`Baseline`] sorting draws it in
//! front of characters whose feet are above the baseline and behind those below it.
//! The cut-outs are made again when the layer or the picture changes (hot reload);
//! a baseline changed in [`WalkBehinds`] moves at once, and `None` hides the
//! walk-behind.
//!
//! The room entity must draw the picture centred at its origin, one picture pixel
//! per unit (a `Sprite` of the picture with the default anchor and size). The
//! picture must stay readable on the CPU (the default for loaded images).

use bevy::asset::RenderAssetUsages;
use bevy::ecs::message::MessageCursor;
use bevy::image::Image;
use bevy::prelude::*;
use walkmask::layer::cut_out;

use crate::asset::WalkMask;
use crate::depth::Baseline;

/// A room's walk-behind layer.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     let picture = assets.load("rooms/lobby.png");
///     commands.spawn((
///         Sprite::from_image(picture.clone()),
///         WalkRoom::new(assets.load("rooms/lobby.walk.png")),
///         // Pillars 1 and 2, standing on the floor at the picture's rows 412 and 430.
///         WalkBehinds::new(assets.load("rooms/lobby.behind.walk.png"), picture)
///             .with_walk_behind(1, 412.0)
///             .with_walk_behind(2, 430.0),
///     ));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct WalkBehinds {
    /// The layer, loaded like a walk mask ([`WalkMask`]): the picture's size.
    pub layer: Handle<WalkMask>,
    /// The room's picture, which the cut-outs are cut from.
    pub picture: Handle<Image>,
    /// The baseline of each id, a row of the room's picture (room pixels, y down from
    /// its top); `None` hides it. Ids of the layer listed nowhere are not drawn.
    pub baselines: Vec<(u8, Option<f32>)>,
}

impl WalkBehinds {
    /// Walk-behinds of `layer`, cut from `picture`, none with a baseline yet.
    pub fn new(layer: Handle<WalkMask>, picture: Handle<Image>) -> Self {
        Self {
            layer,
            picture,
            baselines: Vec::new(),
        }
    }

    /// Id `id` is drawn at baseline `baseline`, a row of the room's picture (room
    /// pixels).
    pub fn with_walk_behind(mut self, id: u8, baseline: f32) -> Self {
        self.set_baseline(id, Some(baseline));
        self
    }

    /// Moves the baseline of id `id` to another row (`None`: hidden).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkBehinds;
    /// let mut behinds = WalkBehinds::new(Handle::default(), Handle::default()).with_walk_behind(3, 10.0);
    /// behinds.set_baseline(3, None);
    /// assert_eq!(behinds.baseline(3), None);
    /// ```
    pub fn set_baseline(&mut self, id: u8, baseline: Option<f32>) {
        match self.baselines.iter_mut().find(|(i, _)| *i == id) {
            Some(entry) => entry.1 = baseline,
            None => self.baselines.push((id, baseline)),
        }
    }

    /// The baseline of id `id`, if it has one.
    pub fn baseline(&self, id: u8) -> Option<f32> {
        self.baselines
            .iter()
            .find(|(i, _)| *i == id)
            .and_then(|(_, b)| *b)
    }
}

/// A walk-behind cut-out, a child of its room (made by the plugin).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkBehind {
    /// Its id in the room's [`WalkBehinds`] layer.
    pub id: u8,
}

/// What a room's cut-outs were made from: its layer and picture, as loaded.
#[derive(Component, Clone, Debug, PartialEq)]
pub(crate) struct CutFrom {
    layer: AssetId<WalkMask>,
    picture: AssetId<Image>,
    ids: Vec<u8>,
}

/// Cuts the walk-behinds of every room whose layer, picture or list of ids changed,
/// and keeps the cut-outs' baselines and visibility in step with [`WalkBehinds`].
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn cut_walk_behinds(
    mut commands: Commands,
    rooms: Query<(Entity, &WalkBehinds, Option<&CutFrom>)>,
    mut cut_outs: Query<(
        Entity,
        &WalkBehind,
        &ChildOf,
        &mut Baseline,
        &mut Visibility,
    )>,
    masks: Res<Assets<WalkMask>>,
    images: Option<ResMut<Assets<Image>>>,
    mut mask_events: MessageReader<AssetEvent<WalkMask>>,
    image_events: Option<Res<Messages<AssetEvent<Image>>>>,
    mut image_cursor: Local<MessageCursor<AssetEvent<Image>>>,
    mut warned: Local<Vec<(Entity, AssetId<WalkMask>, AssetId<Image>)>>,
) {
    // Without images (a headless app) there is nothing to cut from.
    let (Some(mut images), Some(image_events)) = (images, image_events) else {
        return;
    };
    let masks_changed: Vec<AssetId<WalkMask>> = mask_events
        .read()
        .filter_map(|e| match e {
            AssetEvent::Modified { id } | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    let images_changed: Vec<AssetId<Image>> = image_cursor
        .read(&image_events)
        .filter_map(|e| match e {
            AssetEvent::Modified { id } | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    for (room, behinds, cut_from) in &rooms {
        let ids: Vec<u8> = behinds.baselines.iter().map(|(id, _)| *id).collect();
        let wanted = CutFrom {
            layer: behinds.layer.id(),
            picture: behinds.picture.id(),
            ids,
        };
        let stale = cut_from != Some(&wanted)
            || masks_changed.contains(&wanted.layer)
            || images_changed.contains(&wanted.picture);
        if stale {
            let (Some(layer), Some(picture)) =
                (masks.get(&behinds.layer), images.get(&behinds.picture))
            else {
                continue; // still loading
            };
            let (layer, size) = (layer.core(), picture.size());
            if (layer.width(), layer.height()) != (size.x, size.y) || picture.data.is_none() {
                let key = (room, wanted.layer, wanted.picture);
                if !warned.contains(&key) {
                    warned.push(key);
                    warn!(
                        "room {room}: walk-behinds not drawn: the {} x {} layer is not the {} x {} picture's size, or the picture is not readable on the CPU",
                        layer.width(),
                        layer.height(),
                        size.x,
                        size.y
                    );
                }
                continue;
            }
            for (entity, _, child_of, ..) in &cut_outs {
                if child_of.parent() == room {
                    commands.entity(entity).despawn();
                }
            }
            // The picture as 8-bit RGBA, whatever its format.
            let Some(picture) = images
                .get(&behinds.picture)
                .and_then(|picture| picture.clone().try_into_dynamic().ok())
                .map(|picture| picture.to_rgba8())
            else {
                continue;
            };
            let made: Vec<_> = behinds
                .baselines
                .iter()
                .filter_map(|&(id, baseline)| {
                    let cut = cut_out(layer, id, |x, y| picture.get_pixel(x, y).0)?;
                    Some((id, baseline, cut))
                })
                .collect();
            for (id, baseline, cut) in made {
                let offset = Vec2::new(
                    cut.x as f32 + cut.width as f32 / 2.0 - size.x as f32 / 2.0,
                    size.y as f32 / 2.0 - (cut.y as f32 + cut.height as f32 / 2.0),
                );
                let Some(buffer) = ::image::RgbaImage::from_raw(cut.width, cut.height, cut.rgba)
                else {
                    continue;
                };
                let image = Image::from_dynamic(
                    ::image::DynamicImage::ImageRgba8(buffer),
                    true,
                    RenderAssetUsages::default(),
                );
                commands.spawn((
                    Name::new(format!("walk-behind {id}")),
                    WalkBehind { id },
                    Sprite::from_image(images.add(image)),
                    Transform::from_translation(offset.extend(0.0)),
                    baseline.map_or(Baseline::Off, Baseline::Row),
                    if baseline.is_some() {
                        Visibility::Inherited
                    } else {
                        Visibility::Hidden
                    },
                    ChildOf(room),
                ));
            }
            commands.entity(room).try_insert(wanted);
            continue;
        }
        // Baselines moved or switched off.
        for (_, walk_behind, child_of, mut baseline, mut visibility) in &mut cut_outs {
            if child_of.parent() != room {
                continue;
            }
            let wanted = behinds.baseline(walk_behind.id);
            baseline.set_if_neq(wanted.map_or(Baseline::Off, Baseline::Row));
            visibility.set_if_neq(if wanted.is_some() {
                Visibility::Inherited
            } else {
                Visibility::Hidden
            });
        }
    }
}
