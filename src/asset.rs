//! The walk-mask asset and its loader.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

/// A walk mask loaded as a Bevy asset: one area id per pixel (0 = blocked).
///
/// Dereferences to the core [`walkmask::WalkMask`]. Cloning is cheap: the pixels are
/// shared, so path tasks on other threads use the mask without copying it.
///
/// Files named `*.walk.png` load as walk masks ([`WalkMaskLoader`]); the decoding
/// rule comes from [`WalkMaskSettings`].
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
    /// The pixels.
    pub mask: walkmask::WalkMask,
}

impl std::ops::Deref for WalkMask {
    type Target = walkmask::WalkMask;

    fn deref(&self) -> &Self::Target {
        &self.mask
    }
}

impl From<walkmask::WalkMask> for WalkMask {
    fn from(mask: walkmask::WalkMask) -> Self {
        Self { mask }
    }
}

impl WalkMask {
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

    /// An identity for the decoded pixels: it changes whenever the asset gets new
    /// pixels (a reload, or a new mask written through `Assets::get_mut`), and never
    /// repeats while a prepared grid of the old pixels is alive. Prepared grids are
    /// cached under it.
    ///
    /// ```
    /// # use bevy_walkmask::WalkMask;
    /// let a = WalkMask::from(bevy_walkmask::walkmask::WalkMask::from_fn(8, 4, |_, _| 1).unwrap());
    /// let b = a.clone();
    /// assert_eq!(a.revision(), b.revision()); // same pixels, shared
    /// ```
    pub fn revision(&self) -> usize {
        self.mask.areas().as_ptr() as usize
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
/// use bevy_walkmask::{WalkMask, WalkMaskSettings};
///
/// fn load(assets: Res<AssetServer>) {
///     let _mask: Handle<WalkMask> = assets
///         .load_builder()
///         .with_settings(|s: &mut WalkMaskSettings| s.rule = DecodeRule::Indexed)
///         .load("rooms/lobby.walk.png");
/// }
/// # bevy::ecs::system::assert_is_system(load);
/// ```
#[derive(Serialize, Deserialize, Default, Clone, Debug, PartialEq)]
#[serde(default)]
pub struct WalkMaskSettings {
    /// The decoding rule; the default is [`walkmask::DecodeRule::Luma`] (light
    /// pixels walkable, area 1).
    pub rule: walkmask::DecodeRule,
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
/// [`walkmask::WalkMask::decode_with_limits`] and the rule in [`WalkMaskSettings`].
///
/// The compound extension `walk.png` keeps the loader from competing with Bevy's
/// image loader for ordinary `.png` files; a typed load
/// (`asset_server.load::<WalkMask>(..)`) picks this loader for any file name.
///
/// ```
/// use bevy::asset::AssetLoader;
/// use bevy_walkmask::WalkMaskLoader;
/// assert_eq!(WalkMaskLoader.extensions(), &["walk.png"]);
/// ```
#[derive(Default, TypePath)]
pub struct WalkMaskLoader;

impl AssetLoader for WalkMaskLoader {
    type Asset = WalkMask;
    type Settings = WalkMaskSettings;
    type Error = WalkMaskLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &Self::Settings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Self::Asset, Self::Error> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|source| WalkMaskLoadError::Io {
                path: path.clone(),
                source,
            })?;
        let mask = walkmask::WalkMask::decode_with_limits(
            &bytes,
            &settings.rule,
            &walkmask::MaskLimits::default(),
        )
        .map_err(|source| WalkMaskLoadError::Decode { path, source })?;
        Ok(WalkMask { mask })
    }

    fn extensions(&self) -> &[&str] {
        &["walk.png"]
    }
}
