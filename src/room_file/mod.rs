//! Rooms as data: a `*.room.ron` file ([`walkmask::room_file::RoomFile`]) loaded as a
//! [`RoomAsset`], and a room entity made from it ([`FromRoomFile`]).
//!
//! A room file names the room's picture and its layer images and says what each id
//! means, in room pixels. Spawn one handle and the plugin gives the entity the room's
//! whole tree once the file has loaded: its [`WalkRoom`](crate::WalkRoom) (mask, scale,
//! areas at their start states), [`WalkScaling`](crate::WalkScaling),
//! [`WalkHotspots`](crate::WalkHotspots) with a child [`Hotspot`](crate::Hotspot) per
//! id (and [`RoomExit`](crate::RoomExit) on those that lead out),
//! [`WalkRegions`](crate::WalkRegions), walk-behinds, [`RoomEdges`](crate::RoomEdges),
//! a child [`SpawnPoint`](crate::SpawnPoint) per spawn point, its picture as a
//! `Sprite`, and a child `Sprite` per prop, sorted by its [`Baseline`](crate::Baseline).
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_walkmask::room_file::FromRoomFile;
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.spawn((Name::new("lobby"), FromRoomFile(assets.load("rooms/lobby.room.ron"))));
//! }
//! # bevy::ecs::system::assert_is_system(setup);
//! ```
//!
//! The images are read as the room file's own parts (labeled assets
//! `lobby.room.ron#walk_mask`, `#hotspots`, `#regions`, `#walk_behinds`,
//! `#scale_map`), so a change to
//! the file or to any of its images reloads them together. A room file changed while
//! the game runs updates its room in place: hotspots, regions, spawn points and exits
//! keep their entities (walks and interactions under way go on), moved points move,
//! new ones appear, removed ones go; the areas and regions the game has switched keep
//! their state unless the file changes their start state.
//!
//! Load errors name the file, the field and the value:
//! `rooms/lobby.room.ron: hotspots.ids[2].walk_to = (2000, 40): outside the room`.
//!
//! With the `ags` feature, Adventure Game Studio rooms load the same way: a compiled
//! `.crm` room ([`AgsCrmLoader`]) or an AGS 4 room folder's `data.xml`
//! ([`AgsFolderLoader`]) is a [`RoomAsset`] too.

#[cfg(feature = "ags")]
mod ags;
mod apply;

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use walkmask::room_file::RoomFile;

use crate::asset::WalkMask;

#[cfg(feature = "ags")]
pub use ags::{AgsCrmLoader, AgsFolderLoader};
pub(crate) use apply::apply_room_files;
pub use apply::{AppliedRoomFile, RoomFilePart};

/// A loaded room file: the file and handles to its images (see the
/// [module](self)).
#[derive(Asset, TypePath, Clone, Debug)]
pub struct RoomAsset {
    /// The room file as written.
    pub file: RoomFile,
    /// The walk mask (`#walk_mask`).
    pub walk_mask: Handle<WalkMask>,
    /// The hotspot layer (`#hotspots`), when the file has one.
    pub hotspots: Option<Handle<WalkMask>>,
    /// The region layer (`#regions`), when the file has one.
    pub regions: Option<Handle<WalkMask>>,
    /// The walk-behind layer (`#walk_behinds`), when the file has one.
    pub walk_behinds: Option<Handle<WalkMask>>,
    /// The scale map (`#scale_map`), when the file has one.
    pub scale_map: Option<Handle<WalkMask>>,
    /// The picture, when the file names one.
    #[cfg(feature = "sprites")]
    pub picture: Option<Handle<bevy::image::Image>>,
    /// The props' pictures, in the order of the file's `props` (none when the app
    /// has no images).
    #[cfg(feature = "sprites")]
    pub props: Vec<Handle<bevy::image::Image>>,
}

/// A room made from a room file: put it on an entity (with its `Transform`) and the
/// plugin adds the room's components and children once the file has loaded, and
/// keeps them in step with the file (see the [module](self)).
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, Visibility, crate::room::RoomPending)]
pub struct FromRoomFile(pub Handle<RoomAsset>);

/// Settings of [`RoomFileLoader`].
#[derive(Serialize, Deserialize, Default, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct RoomFileLoaderSettings {
    /// The most bytes reading and decoding each image may take
    /// ([`walkmask::MaskLimits::max_alloc_bytes`]); `None` keeps the core's default.
    pub max_alloc_bytes: Option<u64>,
}

/// Why a room file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RoomFileLoadError {
    /// The file or one of its images could not be read.
    #[error("could not read {path}: {detail}")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },
    /// Not a valid room file: the message names the line, column and field.
    #[error("{path}: {source}")]
    Parse {
        /// The room file.
        path: String,
        /// The underlying error.
        #[source]
        source: walkmask::room_file::RoomFileError,
    },
    /// Values the room cannot hold, each with its field and value.
    #[error("{path}: {}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The room file.
        path: String,
        /// What is wrong.
        problems: Vec<walkmask::room_file::RoomFileProblem>,
    },
    /// An image of the room could not be decoded.
    #[error("{path}: {field} = {image:?}: {source}")]
    Image {
        /// The room file.
        path: String,
        /// The field that names the image (`hotspots.image`).
        field: String,
        /// The image as the file names it.
        image: String,
        /// The underlying error.
        #[source]
        source: walkmask::MaskError,
    },
    /// An id layer with no ids: every pixel is 0.
    #[error(
        "{path}: {field} = {image:?} has no ids: every pixel is 0 (paint ids as palette indices or grey levels 1 to 255)"
    )]
    NoIds {
        /// The room file.
        path: String,
        /// The field that names the layer.
        field: String,
        /// The image as the file names it.
        image: String,
    },
    /// An Adventure Game Studio room that could not be read.
    #[cfg(feature = "ags")]
    #[error("{path}: {source}")]
    Ags {
        /// The room.
        path: String,
        /// The underlying error.
        #[source]
        source: walkmask::ags::AgsError,
    },
}

/// Loads `*.room.ron` room files as [`RoomAsset`]s: reads and checks the file, then
/// reads and decodes its images as labeled parts of it.
///
/// It loads pictures when the app has images (Bevy's `ImagePlugin`): the plugin
/// finds out when the app is finished (at the latest before its first `Startup`
/// system), and a load started before then waits for the answer.
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::room_file::RoomFileLoader;
/// assert_eq!(RoomFileLoader::default().extensions(), &["room.ron"]);
/// ```
#[derive(TypePath, Default)]
pub struct RoomFileLoader {
    /// Whether pictures are loaded (the app has `Image` assets).
    pub(crate) pictures: Pictures,
}

/// Whether room loaders load pictures: the app has `Image` assets (shared between the
/// plugin, which finds out when its app is finished or at start-up, and the loaders).
///
/// A load can start as soon as the asset server exists, before the app has all its
/// plugins (a game that loads its first room while it builds its app): a loader that
/// asks before the plugin knows waits for the answer, which comes no later than the
/// app's first update.
#[derive(Resource, Clone, Debug)]
pub(crate) struct Pictures(std::sync::Arc<PicturesDecision>);

#[derive(Debug, Default)]
pub(crate) struct PicturesDecision {
    /// Whether the app has images, once known.
    known: std::sync::OnceLock<bool>,
    /// Wakes the loaders waiting for `known`.
    decided: event_listener::Event,
}

impl Default for Pictures {
    /// Known already: no pictures (a loader made on its own, without the plugin).
    fn default() -> Self {
        let pictures = Self::undecided();
        pictures.decide(false);
        pictures
    }
}

impl Pictures {
    /// Not known yet: the plugin decides at start-up.
    pub(crate) fn undecided() -> Self {
        Self(std::sync::Arc::default())
    }

    /// Sets whether the app has images; the first decision stands.
    pub(crate) fn decide(&self, images: bool) {
        let _ = self.0.known.set(images);
        self.0.decided.notify(usize::MAX);
    }

    /// Whether the app has images, once the plugin knows.
    pub(crate) async fn get(&self) -> bool {
        loop {
            if let Some(&known) = self.0.known.get() {
                return known;
            }
            let listener = self.0.decided.listen();
            // Decided between the first look and listening.
            if let Some(&known) = self.0.known.get() {
                return known;
            }
            listener.await;
        }
    }
}

/// Notes whether the app has images: when the app is finished, with all its plugins,
/// or in `PreStartup` for an app updated without being finished. The first stands.
pub(crate) fn note_pictures(world: &mut World) {
    #[cfg(feature = "sprites")]
    let images = world.contains_resource::<Assets<bevy::image::Image>>();
    #[cfg(not(feature = "sprites"))]
    let images = false;
    if let Some(pictures) = world.get_resource::<Pictures>() {
        pictures.decide(images);
    }
}

impl AssetLoader for RoomFileLoader {
    type Asset = RoomAsset;
    type Settings = RoomFileLoaderSettings;
    type Error = RoomFileLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        use bevy::tasks::futures_lite::AsyncReadExt;
        let path = load_context.path().to_string();
        let mut text = String::new();
        reader
            .read_to_string(&mut text)
            .await
            .map_err(|e| RoomFileLoadError::Read {
                path: path.clone(),
                detail: e.to_string(),
            })?;
        let file = RoomFile::from_ron(&text).map_err(|source| RoomFileLoadError::Parse {
            path: path.clone(),
            source,
        })?;
        let problems = file.check();
        if !problems.is_empty() {
            return Err(RoomFileLoadError::Invalid { path, problems });
        }
        let mut limits = walkmask::MaskLimits::default();
        if let Some(bytes) = settings.max_alloc_bytes {
            limits.max_alloc_bytes = bytes;
        }
        let mut parts = RoomParts {
            load_context,
            limits,
            path,
        };
        let walk_mask = parts
            .mask(
                "walk_mask",
                &file.walk_mask.image,
                &file.walk_mask.rule,
                names(&file.areas, |a| &a.name),
                false,
            )
            .await?;
        let hotspots = parts
            .layer("hotspots", file.hotspots.as_ref(), |h| &h.name)
            .await?;
        let regions = parts
            .layer("regions", file.regions.as_ref(), |r| &r.name)
            .await?;
        let walk_behinds = parts
            .layer("walk_behinds", file.walk_behinds.as_ref(), |w| &w.name)
            .await?;
        let scale_map = match &file.scale_map {
            Some(map) => Some(
                parts
                    .mask(
                        "scale_map",
                        &map.image,
                        &walkmask::DecodeRule::Indexed,
                        Default::default(),
                        false,
                    )
                    .await?,
            ),
            None => None,
        };
        let pictures = self.pictures.get().await;
        #[cfg(feature = "sprites")]
        let picture = file
            .picture
            .as_ref()
            .filter(|_| pictures)
            .map(|picture| parts.load_context.load(parts.relative(picture)));
        #[cfg(feature = "sprites")]
        let props = match pictures {
            true => file
                .props
                .iter()
                .map(|prop| parts.load_context.load(parts.relative(&prop.image)))
                .collect(),
            false => Vec::new(),
        };
        // Without sprites there are no pictures to load.
        #[cfg(not(feature = "sprites"))]
        let _ = pictures;
        Ok(RoomAsset {
            file,
            walk_mask,
            hotspots,
            regions,
            walk_behinds,
            scale_map,
            #[cfg(feature = "sprites")]
            picture,
            #[cfg(feature = "sprites")]
            props,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["room.ron"]
    }
}

/// Names of the ids of a layer, from what the file lists.
fn names<T>(
    ids: &std::collections::BTreeMap<u8, T>,
    name: impl Fn(&T) -> &String,
) -> std::collections::BTreeMap<u8, String> {
    ids.iter()
        .filter(|(_, v)| !name(v).is_empty())
        .map(|(id, v)| (*id, name(v).clone()))
        .collect()
}

/// Reads a room file's images as labeled parts of it.
struct RoomParts<'a, 'b> {
    load_context: &'a mut LoadContext<'b>,
    limits: walkmask::MaskLimits,
    path: String,
}

impl RoomParts<'_, '_> {
    /// `image` relative to the room file.
    fn relative(&self, image: &str) -> AssetPath<'static> {
        self.load_context
            .path()
            .resolve_embed(&AssetPath::parse(image))
    }

    /// Reads and decodes `image` by `rule` as the labeled part `label`, its ids named
    /// by `names`; an id layer (`ids`) must have an id painted.
    async fn mask(
        &mut self,
        label: &'static str,
        image: &str,
        rule: &walkmask::DecodeRule,
        names: std::collections::BTreeMap<u8, String>,
        ids: bool,
    ) -> Result<Handle<WalkMask>, RoomFileLoadError> {
        let at = self.relative(image);
        let failed = |source| RoomFileLoadError::Image {
            path: self.path.clone(),
            field: format!("{label}.image"),
            image: image.to_string(),
            source,
        };
        let bytes = self
            .load_context
            .read_asset_bytes(at.clone())
            .await
            .map_err(|e| RoomFileLoadError::Read {
                path: at.to_string(),
                detail: e.to_string(),
            })?;
        if bytes.len() as u64 > self.limits.max_alloc_bytes {
            return Err(failed(walkmask::MaskError::FileTooLarge {
                path: at.to_string(),
                limit: self.limits.max_alloc_bytes,
            }));
        }
        let mask =
            walkmask::WalkMask::decode_with_limits(&bytes, rule, &self.limits).map_err(failed)?;
        let mask = WalkMask::decoded_by(mask, rule);
        if ids && mask.present_areas().is_empty() {
            return Err(RoomFileLoadError::NoIds {
                path: self.path.clone(),
                field: format!("{label}.image"),
                image: image.to_string(),
            });
        }
        let mask = if names.is_empty() {
            mask
        } else {
            mask.with_names(names)
        };
        Ok(self.load_context.add_labeled_asset(label, mask))
    }

    /// The id layer `layer` of the file, when it has one: decoded by index, with at
    /// least one id painted, its ids named as the file lists them.
    async fn layer<T>(
        &mut self,
        label: &'static str,
        layer: Option<&walkmask::room_file::IdLayer<T>>,
        name: impl Fn(&T) -> &String,
    ) -> Result<Option<Handle<WalkMask>>, RoomFileLoadError> {
        let Some(layer) = layer else {
            return Ok(None);
        };
        let rule = walkmask::DecodeRule::Indexed;
        let names = names(&layer.ids, name);
        let handle = self.mask(label, &layer.image, &rule, names, true).await?;
        Ok(Some(handle))
    }
}
