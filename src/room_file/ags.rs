//! Adventure Game Studio rooms as [`RoomAsset`]s (the `ags` feature).

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::prelude::*;
use walkmask::ags::{AgsError, AgsRoom};

use super::{Pictures, RoomAsset, RoomFileLoadError, RoomFileLoaderSettings};
use crate::asset::WalkMask;

/// Loads compiled Adventure Game Studio rooms (`*.crm`, AGS 3.5.0 to 3.6.3) as
/// [`RoomAsset`]s: the room file [`walkmask::ags::AgsRoom::room_file`] makes, with the
/// room's masks and background as its labeled parts.
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::room_file::AgsCrmLoader;
/// assert_eq!(AgsCrmLoader::default().extensions(), &["crm"]);
/// ```
#[derive(TypePath, Default)]
pub struct AgsCrmLoader {
    /// Whether the background becomes a picture (the app has `Image` assets).
    pub(crate) pictures: Pictures,
}

impl AssetLoader for AgsCrmLoader {
    type Asset = RoomAsset;
    type Settings = RoomFileLoaderSettings;
    type Error = RoomFileLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        let path = load_context.path().to_string();
        let limits = limits(settings);
        let read = crate::asset::read_at_most(reader, limits.max_alloc_bytes)
            .await
            .map_err(|e| RoomFileLoadError::Read {
                path: path.clone(),
                detail: e.to_string(),
            })?;
        let Some(bytes) = read else {
            return Err(RoomFileLoadError::Read {
                path,
                detail: format!("larger than {} bytes", limits.max_alloc_bytes),
            });
        };
        let room = AgsRoom::read_crm_with_limits(&bytes, &limits)
            .map_err(|source| RoomFileLoadError::Ags { path, source })?;
        Ok(room_asset(room, load_context, self.pictures.get().await))
    }

    fn extensions(&self) -> &[&str] {
        &["crm"]
    }
}

/// Loads Adventure Game Studio 4 room folders as [`RoomAsset`]s, from their
/// `data.xml` (the folder's masks and background are read beside it).
///
/// It claims the `xml` extension: load a room folder as
/// `assets.load::<RoomAsset>("rooms/ags/Rooms/1/data.xml")`.
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::room_file::AgsFolderLoader;
/// assert_eq!(AgsFolderLoader::default().extensions(), &["xml"]);
/// ```
#[derive(TypePath, Default)]
pub struct AgsFolderLoader {
    /// Whether the background becomes a picture (the app has `Image` assets).
    pub(crate) pictures: Pictures,
}

/// The files of an AGS 4 room folder besides `data.xml`.
const FOLDER_FILES: [&str; 5] = [
    "walkableareas.png",
    "hotspots.png",
    "regions.png",
    "walkbehinds.png",
    "background0.png",
];

impl AssetLoader for AgsFolderLoader {
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
        let limits = limits(settings);
        let mut xml = String::new();
        reader
            .read_to_string(&mut xml)
            .await
            .map_err(|e| RoomFileLoadError::Read {
                path: path.clone(),
                detail: e.to_string(),
            })?;
        let mut files = Vec::new();
        for name in FOLDER_FILES {
            let at = load_context.path().resolve_embed(&AssetPath::parse(name));
            let read = load_context.read_asset_bytes(at.clone()).await;
            files.push((name, read.map_err(|e| (at.to_string(), io_error(e)))));
        }
        let room = AgsRoom::read_folder_with(
            &xml,
            |name| match files.iter().find(|(n, _)| *n == name) {
                Some((_, Ok(bytes))) => Ok(bytes.clone()),
                // The background is optional: a file that is not there is "not
                // found" to the reader; any other failure to read it is an error.
                Some((_, Err((at, (kind, detail))))) => Err(AgsError::Io {
                    path: at.clone(),
                    source: std::io::Error::new(*kind, detail.clone()),
                }),
                None => Err(AgsError::Io {
                    path: name.to_string(),
                    source: std::io::ErrorKind::NotFound.into(),
                }),
            },
            &limits,
        )
        .map_err(|source| RoomFileLoadError::Ags { path, source })?;
        Ok(room_asset(room, load_context, self.pictures.get().await))
    }

    fn extensions(&self) -> &[&str] {
        &["xml"]
    }
}

/// What kind of failure reading a file of the folder was, and what it said.
fn io_error(e: bevy::asset::ReadAssetBytesError) -> (std::io::ErrorKind, String) {
    use bevy::asset::ReadAssetBytesError as Read;
    use bevy::asset::io::AssetReaderError;
    let kind = match &e {
        Read::AssetReaderError(AssetReaderError::NotFound(_)) => std::io::ErrorKind::NotFound,
        Read::AssetReaderError(AssetReaderError::Io(source)) => source.kind(),
        Read::Io { source, .. } => source.kind(),
        _ => std::io::ErrorKind::Other,
    };
    (kind, e.to_string())
}

fn limits(settings: &RoomFileLoaderSettings) -> walkmask::MaskLimits {
    let mut limits = walkmask::MaskLimits::default();
    if let Some(bytes) = settings.max_alloc_bytes {
        limits.max_alloc_bytes = bytes;
    }
    limits
}

/// The room asset of an AGS room: its room file, and its masks and background as
/// labeled parts.
fn room_asset(room: AgsRoom, load_context: &mut LoadContext<'_>, pictures: bool) -> RoomAsset {
    let name = load_context
        .path()
        .path()
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "room".into());
    let file = room.room_file(&name);
    let mut part = |label: &'static str, mask: &walkmask::WalkMask| {
        load_context.add_labeled_asset(label, WalkMask::new(mask.clone()))
    };
    let walk_mask = part("walk_mask", &room.walkable);
    let hotspots = file
        .hotspots
        .as_ref()
        .map(|_| part("hotspots", &room.hotspot_mask));
    let regions = file
        .regions
        .as_ref()
        .map(|_| part("regions", &room.region_mask));
    let walk_behinds = file
        .walk_behinds
        .as_ref()
        .map(|_| part("walk_behinds", &room.walk_behind_mask));
    #[cfg(feature = "sprites")]
    let picture = room.background.filter(|_| pictures).map(|background| {
        let image = bevy::image::Image::from_dynamic(
            ::image::DynamicImage::ImageRgba8(background),
            true,
            bevy::asset::RenderAssetUsages::default(),
        );
        load_context.add_labeled_asset("picture", image)
    });
    #[cfg(not(feature = "sprites"))]
    let _ = pictures;
    RoomAsset {
        file,
        walk_mask,
        hotspots,
        regions,
        walk_behinds,
        scale_map: None,
        #[cfg(feature = "sprites")]
        picture,
        // The objects of an AGS room draw sprites kept in the game, not in the room.
        #[cfg(feature = "sprites")]
        props: Vec::new(),
    }
}
