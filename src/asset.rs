//! The walk-mask asset and its loader.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::platform::hash::FixedHasher;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use walkmask::AreaSet;

/// A walk mask loaded as a Bevy asset: one area id per pixel (0 = blocked).
///
/// Dereferences to the core [`walkmask::WalkMask`]. Cloning is cheap: the pixels are
/// shared, so path tasks on other threads use the mask without copying it.
///
/// Files named `*.walk.png` load as walk masks ([`WalkMaskLoader`]); the decoding
/// rule comes from [`WalkMaskLoaderSettings`]. To change a loaded mask's pixels, put a
/// new value in `Assets<WalkMask>` (`*mask = WalkMask::new(pixels)` through
/// `Assets::get_mut`): the pixels themselves are immutable and shared.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkMask;
///
/// // Load from a file ...
/// fn load(assets: Res<AssetServer>) {
///     let _mask: Handle<WalkMask> = assets.load("rooms/lobby.walk.png");
/// }
/// # bevy::ecs::system::assert_is_system(load);
///
/// // ... or build one in code.
/// let mask = WalkMask::from(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |x, _| u8::from(x < 6)).unwrap());
/// assert_eq!(mask.width(), 8);
/// assert_eq!(mask.area_at(7, 0), Some(0));
/// ```
#[derive(Asset, TypePath, Clone, Debug)]
pub struct WalkMask {
    mask: walkmask::WalkMask,
    revision: u64,
    /// A hash of the size and pixels, the same in every process (see
    /// [`WalkMask::pixels_hash`]).
    pixels_hash: u64,
    present: AreaSet,
    /// Per area id: the first and last row holding it (`(u32::MAX, 0)` when absent).
    rows: std::sync::Arc<[(u32, u32); 256]>,
    /// Names of ids, from the loader's settings ([`WalkMaskLoaderSettings::names`]).
    names: std::sync::Arc<std::collections::BTreeMap<u8, String>>,
    /// Whether its pixels were read as ids (see [`WalkMask::reads_ids`]).
    reads_ids: bool,
}

impl std::ops::Deref for WalkMask {
    type Target = walkmask::WalkMask;

    fn deref(&self) -> &Self::Target {
        &self.mask
    }
}

impl From<walkmask::WalkMask> for WalkMask {
    fn from(mask: walkmask::WalkMask) -> Self {
        Self::new(mask)
    }
}

/// Source of [`WalkMask::revision`]: every decoded or constructed mask gets the next
/// number, so a revision is never reused in a process.
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

impl WalkMask {
    /// Wraps a core mask as an asset (one pass over the pixels, to note which areas
    /// occur in it).
    ///
    /// ```
    /// use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::new(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |x, _| if x < 4 { 1 } else { 3 }).unwrap());
    /// assert_eq!(mask.present_areas().iter().collect::<Vec<_>>(), vec![1, 3]);
    /// ```
    pub fn new(mask: walkmask::WalkMask) -> Self {
        let mut rows = [(u32::MAX, 0u32); 256];
        let width = (mask.width() as usize).max(1);
        for (y, row) in mask.areas().chunks(width).enumerate() {
            let mut seen = [false; 256];
            for &a in row {
                seen[a as usize] = true;
            }
            for (id, _) in seen.iter().enumerate().filter(|(_, seen)| **seen) {
                let (top, bottom) = &mut rows[id];
                *top = (*top).min(y as u32);
                *bottom = y as u32;
            }
        }
        let present = (1..=255u8)
            .filter(|&id| rows[id as usize].0 != u32::MAX)
            .collect();
        let pixels_hash = FixedHasher.hash_one((mask.width(), mask.height(), mask.areas()));
        Self {
            mask,
            revision: NEXT_REVISION.fetch_add(1, Ordering::Relaxed),
            pixels_hash,
            present,
            rows: std::sync::Arc::new(rows),
            names: Default::default(),
            reads_ids: true,
        }
    }

    /// A mask decoded by `rule`: its pixels are ids when the rule reads them by
    /// index or colour.
    pub(crate) fn decoded_by(mask: walkmask::WalkMask, rule: &walkmask::DecodeRule) -> Self {
        let mut mask = WalkMask::new(mask);
        mask.reads_ids = matches!(
            rule,
            walkmask::DecodeRule::Indexed
                | walkmask::DecodeRule::Colors(_)
                | walkmask::DecodeRule::ExactColors(_)
        );
        mask
    }

    /// Whether its pixels were read as ids: decoded by index or by colour
    /// ([`walkmask::DecodeRule::Indexed`], `Colors`, `ExactColors`), or built in
    /// code. False for a mask decoded by brightness, alpha or a channel (walkable or
    /// not, ids 0 and 1 only): used as a hotspot, region or walk-behind layer, its
    /// ids are lost, and the plugin warns. Name such layers `*.ids.png`
    /// ([`IdLayerLoader`]) or give them `rule: Indexed` in their `.meta`.
    ///
    /// ```
    /// # use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::new(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, _| 3).unwrap());
    /// assert!(mask.reads_ids());
    /// ```
    pub fn reads_ids(&self) -> bool {
        self.reads_ids
    }

    /// The mask with names for its ids (a layer's regions or hotspots, a walk
    /// mask's areas), as [`WalkMaskLoaderSettings::names`] gives them.
    ///
    /// ```
    /// use bevy_walkmask::WalkMask;
    /// let layer = WalkMask::new(bevy_walkmask::walkmask::WalkMask::from_fn(4, 4, |x, _| u8::from(x < 2)).unwrap())
    ///     .with_names([(1, "rug".to_string())].into());
    /// assert_eq!(layer.name(1), Some("rug"));
    /// assert_eq!(layer.name(2), None);
    /// ```
    pub fn with_names(mut self, names: std::collections::BTreeMap<u8, String>) -> Self {
        self.names = std::sync::Arc::new(names);
        self
    }

    /// The name of id `id`, if it has one.
    pub fn name(&self, id: u8) -> Option<&str> {
        self.names.get(&id).map(String::as_str)
    }

    /// Every named id with its name.
    pub fn names(&self) -> &std::collections::BTreeMap<u8, String> {
        &self.names
    }

    /// The first and last row (mask pixels, y down) holding area `id`, if any: what
    /// a scale linear in depth runs between ([`AreaScale::Linear`](crate::AreaScale::Linear)).
    ///
    /// ```
    /// use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::new(bevy_walkmask::walkmask::WalkMask::from_fn(4, 10, |_, y| if (3..7).contains(&y) { 2 } else { 1 }).unwrap());
    /// assert_eq!(mask.area_rows(2), Some((3, 6)));
    /// assert_eq!(mask.area_rows(5), None);
    /// ```
    pub fn area_rows(&self, id: u8) -> Option<(u32, u32)> {
        let (top, bottom) = self.rows[id as usize];
        (top != u32::MAX).then_some((top, bottom))
    }

    /// The core mask (also reachable through `Deref`).
    ///
    /// ```
    /// # use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::from(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, _| 1).unwrap());
    /// assert_eq!(mask.core().width(), 8);
    /// ```
    pub fn core(&self) -> &walkmask::WalkMask {
        &self.mask
    }

    /// The mask size in pixels.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::from(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, _| 1).unwrap());
    /// assert_eq!(mask.size(), UVec2::new(8, 4));
    /// ```
    pub fn size(&self) -> UVec2 {
        UVec2::new(self.mask.width(), self.mask.height())
    }

    /// The areas (1..=255) that occur in the mask. Enabling or disabling any other
    /// area changes nothing for walkers on this mask.
    ///
    /// ```
    /// # use bevy_walkmask::WalkMask;
    /// let mask = WalkMask::from(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, y| y as u8).unwrap());
    /// assert!(mask.present_areas().contains(3) && !mask.present_areas().contains(0));
    /// ```
    pub fn present_areas(&self) -> AreaSet {
        self.present
    }

    /// A number for the decoded pixels, unique in the process: a new mask (a reload,
    /// or a mask written through `Assets::get_mut`) gets a new one; clones share it.
    /// Prepared grids and warm fields are cached under it.
    ///
    /// ```
    /// # use bevy_walkmask::WalkMask;
    /// let core = bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, _| 1).unwrap();
    /// let a = WalkMask::from(core.clone());
    /// assert_eq!(a.revision(), a.clone().revision()); // same pixels, shared
    /// assert_ne!(a.revision(), WalkMask::from(core).revision()); // a new asset value
    /// ```
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// A hash of its size and pixels, the same for the same pixels in every run of
    /// the game (unlike [`revision`](Self::revision)): a search saved under way runs
    /// again after a load only on the pixels it ran on.
    pub(crate) fn pixels_hash(&self) -> u64 {
        self.pixels_hash
    }
}

/// Settings of [`WalkMaskLoader`]: how image pixels become area ids.
///
/// Set them per file in a `.meta` file next to the mask
/// (`lobby.walk.png.meta`):
///
/// ```ron
/// (
///     meta_format_version: "1.0",
///     asset: Load(
///         loader: "bevy_walkmask::asset::WalkMaskLoader",
///         settings: (rule: Indexed),
///     ),
/// )
/// ```
///
/// or per load in code:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::walkmask::DecodeRule;
/// use bevy_walkmask::{WalkMask, WalkMaskLoaderSettings};
///
/// fn load(assets: Res<AssetServer>) {
///     let _mask: Handle<WalkMask> = assets
///         .load_builder()
///         .with_settings(|s: &mut WalkMaskLoaderSettings| s.rule = DecodeRule::Indexed)
///         .load("rooms/lobby.walk.png");
/// }
/// # bevy::ecs::system::assert_is_system(load);
/// ```
#[derive(Serialize, Deserialize, Default, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct WalkMaskLoaderSettings {
    /// The decoding rule; the default is [`walkmask::DecodeRule::Luma`] (light
    /// pixels walkable, area 1).
    pub rule: walkmask::DecodeRule,
    /// The most bytes loading may read and decoding may allocate
    /// ([`walkmask::MaskLimits::max_alloc_bytes`]); `None` keeps the core's default.
    /// A file larger than this fails with [`walkmask::MaskError::FileTooLarge`]
    /// without being read further.
    pub max_alloc_bytes: Option<u64>,
    /// Names of ids ([`WalkMask::name`]): a layer's regions or hotspots, or a walk
    /// mask's areas. In a `.meta` file: `names: {1: "rug", 2: "doorway"}`.
    pub names: std::collections::BTreeMap<u8, String>,
}

impl WalkMaskLoaderSettings {
    /// The limits a load decodes with.
    pub fn limits(&self) -> walkmask::MaskLimits {
        limits_with(self.max_alloc_bytes)
    }
}

/// The core's default limits, with `max_alloc_bytes` when given.
fn limits_with(max_alloc_bytes: Option<u64>) -> walkmask::MaskLimits {
    let mut limits = walkmask::MaskLimits::default();
    if let Some(bytes) = max_alloc_bytes {
        limits.max_alloc_bytes = bytes;
    }
    limits
}

/// Why a walk mask could not be loaded.
///
/// ```
/// use bevy_walkmask::WalkMaskLoadError;
/// let e = WalkMaskLoadError::Decode {
///     path: "rooms/bad.walk.png".into(),
///     source: bevy_walkmask::walkmask::MaskError::Empty { width: 0, height: 0 },
/// };
/// assert!(e.to_string().contains("rooms/bad.walk.png"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum WalkMaskLoadError {
    /// The file could not be read.
    #[error("could not read walk mask {path}: {source}")]
    Io {
        /// The asset path.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An id layer ([`IdLayerLoader`]) whose pixels are all 0: it names nothing
    /// (an image painted in colours without a palette reads as 0 under the index
    /// rule only when it is grey and black).
    #[error(
        "id layer {path} has no ids: every pixel is 0 (paint ids as palette indices or grey levels 1 to 255)"
    )]
    NoIds {
        /// The asset path.
        path: String,
    },
    /// The bytes are not a valid mask under the chosen rule (corrupt image, wrong
    /// format, too large, ...).
    #[error("could not decode walk mask {path}: {source}")]
    Decode {
        /// The asset path.
        path: String,
        /// The underlying error.
        #[source]
        source: walkmask::MaskError,
    },
}

/// Loads `*.walk.png` files (and any other image format the core decodes, given
/// explicitly) as [`WalkMask`] assets, decoding with
/// [`walkmask::WalkMask::decode_with_limits`] and the rule in [`WalkMaskLoaderSettings`].
///
/// The compound extension `walk.png` keeps the loader from competing with Bevy's
/// image loader for ordinary `.png` files; a typed load
/// (`asset_server.load::<WalkMask>(..)`) picks a loader of `WalkMask` for any file
/// name. Scale maps (`scale.png`) have their own loader, [`ScaleMapLoader`].
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::WalkMaskLoader;
/// assert_eq!(WalkMaskLoader.extensions(), &["walk.png"]);
/// ```
#[derive(Default, TypePath)]
pub struct WalkMaskLoader;

/// Reads the whole of `reader` when it holds at most `limit` bytes; `None` when it
/// holds more (it reads one byte past the limit, so a source that never ends stops
/// there).
pub(crate) async fn read_at_most(
    reader: &mut dyn Reader,
    limit: u64,
) -> Result<Option<Vec<u8>>, std::io::Error> {
    use bevy::tasks::futures_lite::AsyncReadExt;
    let mut bytes = Vec::new();
    AsyncReadExt::take(&mut *reader, limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .await?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Reads a mask file with `rule` within `limits`.
async fn read_mask(
    reader: &mut dyn Reader,
    rule: &walkmask::DecodeRule,
    limits: walkmask::MaskLimits,
    load_context: &LoadContext<'_>,
) -> Result<WalkMask, WalkMaskLoadError> {
    let path = load_context.path().to_string();
    let read = read_at_most(reader, limits.max_alloc_bytes)
        .await
        .map_err(|source| WalkMaskLoadError::Io {
            path: path.clone(),
            source,
        })?;
    let Some(bytes) = read else {
        return Err(WalkMaskLoadError::Decode {
            source: walkmask::MaskError::FileTooLarge {
                path: path.clone(),
                limit: limits.max_alloc_bytes,
            },
            path,
        });
    };
    let mask = walkmask::WalkMask::decode_with_limits(&bytes, rule, &limits)
        .map_err(|source| WalkMaskLoadError::Decode { path, source })?;
    Ok(WalkMask::decoded_by(mask, rule))
}

impl AssetLoader for WalkMaskLoader {
    type Asset = WalkMask;
    type Settings = WalkMaskLoaderSettings;
    type Error = WalkMaskLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        let mask = read_mask(reader, &settings.rule, settings.limits(), load_context).await?;
        Ok(named(mask, &settings.names))
    }

    fn extensions(&self) -> &[&str] {
        &["walk.png"]
    }
}

/// `mask` with `names` for its ids, when there are any.
fn named(mask: WalkMask, names: &std::collections::BTreeMap<u8, String>) -> WalkMask {
    if names.is_empty() {
        mask
    } else {
        mask.with_names(names.clone())
    }
}

/// Settings of [`ScaleMapLoader`]: as [`WalkMaskLoaderSettings`], but the default
/// rule is [`walkmask::DecodeRule::Indexed`] (grey level = value), which is what a
/// [`ScaleMap`](crate::ScaleMap) reads.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct ScaleMapLoaderSettings {
    /// The decoding rule; default [`walkmask::DecodeRule::Indexed`].
    pub rule: walkmask::DecodeRule,
    /// See [`WalkMaskLoaderSettings::max_alloc_bytes`].
    pub max_alloc_bytes: Option<u64>,
}

impl Default for ScaleMapLoaderSettings {
    fn default() -> Self {
        Self {
            rule: walkmask::DecodeRule::Indexed,
            max_alloc_bytes: None,
        }
    }
}

/// Loads `*.scale.png` greyscale scale maps ([`ScaleMap`](crate::ScaleMap)) as
/// [`WalkMask`] assets whose area ids are the grey levels, with no `.meta` file
/// needed (a `.meta` file naming [`WalkMaskLoader`] still decides for itself).
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::asset::ScaleMapLoader;
/// assert_eq!(ScaleMapLoader.extensions(), &["scale.png"]);
/// ```
#[derive(Default, TypePath)]
pub struct ScaleMapLoader;

impl AssetLoader for ScaleMapLoader {
    type Asset = WalkMask;
    type Settings = ScaleMapLoaderSettings;
    type Error = WalkMaskLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        let limits = limits_with(settings.max_alloc_bytes);
        read_mask(reader, &settings.rule, limits, load_context).await
    }

    fn extensions(&self) -> &[&str] {
        &["scale.png"]
    }
}

/// Settings of [`IdLayerLoader`]: as [`WalkMaskLoaderSettings`], but the default rule
/// is [`walkmask::DecodeRule::Indexed`]: a palette image's index, or a grey image's
/// level, is the id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct IdLayerLoaderSettings {
    /// The decoding rule; default [`walkmask::DecodeRule::Indexed`]. A true-colour
    /// image fails to load under it ([`walkmask::MaskError::NotIndexed`]); describe
    /// its colours with [`walkmask::DecodeRule::ExactColors`] instead.
    pub rule: walkmask::DecodeRule,
    /// See [`WalkMaskLoaderSettings::max_alloc_bytes`].
    pub max_alloc_bytes: Option<u64>,
    /// See [`WalkMaskLoaderSettings::names`].
    pub names: std::collections::BTreeMap<u8, String>,
}

impl Default for IdLayerLoaderSettings {
    fn default() -> Self {
        Self {
            rule: walkmask::DecodeRule::Indexed,
            max_alloc_bytes: None,
            names: Default::default(),
        }
    }
}

/// Loads `*.ids.png` room layers (hotspots, regions, walk-behinds) as [`WalkMask`]
/// assets whose pixels are ids, with no `.meta` file needed: an indexed PNG by its
/// palette index, a grey PNG by its level (a `.meta` file naming
/// [`WalkMaskLoader`] still decides for itself). A layer whose pixels are all 0
/// fails to load ([`WalkMaskLoadError::NoIds`]), as does a true-colour image
/// ([`walkmask::MaskError::NotIndexed`]).
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::asset::IdLayerLoader;
/// assert_eq!(IdLayerLoader.extensions(), &["ids.png"]);
/// ```
#[derive(Default, TypePath)]
pub struct IdLayerLoader;

impl AssetLoader for IdLayerLoader {
    type Asset = WalkMask;
    type Settings = IdLayerLoaderSettings;
    type Error = WalkMaskLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        let limits = limits_with(settings.max_alloc_bytes);
        let mask = read_mask(reader, &settings.rule, limits, load_context).await?;
        if mask.present_areas().is_empty() {
            return Err(WalkMaskLoadError::NoIds {
                path: load_context.path().to_string(),
            });
        }
        Ok(named(mask, &settings.names))
    }

    fn extensions(&self) -> &[&str] {
        &["ids.png"]
    }
}
