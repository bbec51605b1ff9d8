//! Walk masks: one area id per pixel, decoded from images or Moving AI `.map` files.

use std::sync::Arc;

/// Size limits applied when a mask is created or decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaskLimits {
    /// Largest accepted width in pixels.
    pub max_width: u32,
    /// Largest accepted height in pixels.
    pub max_height: u32,
    /// Largest accepted `width * height`.
    pub max_pixels: u64,
    /// The most bytes reading and decoding one mask may allocate: [`WalkMask::open`]
    /// reads at most this many bytes of a file, and a decode fails with
    /// [`MaskError::OverBudget`] before its pixel buffers and the mask itself would
    /// need more. PNGs and GIFs need about one byte per pixel; interlaced PNGs and
    /// BMPs need their decoded pixel size on top. Lower it to bound what a hostile
    /// file can make a game allocate.
    pub max_alloc_bytes: u64,
}

impl Default for MaskLimits {
    /// 16384 x 16384 at most, at most 8192 x 8192 pixels in all (a 4K room is
    /// 3840 x 2160), and 512 MiB of allocations.
    fn default() -> Self {
        Self {
            max_width: 16384,
            max_height: 16384,
            max_pixels: 8192 * 8192,
            max_alloc_bytes: 512 << 20,
        }
    }
}

/// A colour channel, for [`DecodeRule::Channel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ColorChannel {
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Alpha.
    Alpha,
}

/// One entry of a [`DecodeRule::Colors`] table: pixels of exactly this RGB colour
/// (alpha ignored) belong to `area`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AreaColor {
    /// The colour, `[r, g, b]`, 8 bits per channel.
    pub rgb: [u8; 3],
    /// The area id those pixels get (0 makes them blocked).
    pub area: u8,
}

/// How image pixels become area ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DecodeRule {
    /// Luma >= 128 and alpha >= 128 -> area 1; everything else blocked.
    ///
    /// Luma is Rec. 709 (`0.2126 R + 0.7152 G + 0.0722 B`, rounded, as the `image`
    /// crate converts to grey); 16-bit samples are first scaled to 8 bits.
    #[default]
    Luma,
    /// Alpha > 0 -> area 1 (walkable areas painted on a transparent layer). Images
    /// without alpha count as opaque, so all their pixels are walkable.
    Alpha,
    /// `channel >= threshold` -> area 1 (for example the blue channel).
    Channel {
        /// Which channel is compared.
        channel: ColorChannel,
        /// The smallest value that counts as walkable (8-bit scale).
        threshold: u8,
    },
    /// Palette index = area id, 0 = none (Adventure Game Studio's convention).
    /// Grey images without a palette use the grey level as the id.
    ///
    /// Palette PNGs (1-, 2-, 4- and 8-bit indices), GIFs (the first frame; screen
    /// pixels outside it are blocked) and 8-bit uncompressed palette BMPs keep their
    /// indices. Greyscale PNGs of up to 8 bits use the grey sample (alpha ignored).
    /// True-colour images, 16-bit greyscale and other palette BMPs give
    /// [`MaskError::NotIndexed`].
    Indexed,
    /// Exact colour -> area id; every other colour is blocked. When a colour is
    /// listed twice, the first entry wins.
    Colors(Vec<AreaColor>),
    /// Exact colour -> id, every colour listed: a pixel of a colour in no entry is
    /// [`MaskError::UnmappedColor`], naming the colour and the first pixel that has
    /// it (an anti-aliased edge or a stray brush stroke in a layer painted by hand).
    /// Fully transparent pixels are id 0 whatever their colour, so a layer may be
    /// painted on a transparent background. When a colour is listed twice, the first
    /// entry wins. Decoded through the `image` crate.
    ExactColors(Vec<AreaColor>),
}

/// Why a mask could not be created or decoded.
#[derive(Debug, thiserror::Error)]
pub enum MaskError {
    /// Width or height is zero.
    #[error("walk mask has zero size ({width} x {height})")]
    Empty {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The size is over the configured [`MaskLimits`].
    #[error("walk mask of {width} x {height} pixels is over the limit ({limits:?})")]
    TooLarge {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// The limits that were exceeded.
        limits: MaskLimits,
    },
    /// The area buffer does not hold `width * height` bytes.
    #[error("walk mask data has {actual} bytes, expected {expected}")]
    SizeMismatch {
        /// `width * height`.
        expected: usize,
        /// What was given.
        actual: usize,
    },
    /// The image could not be decoded (corrupt, truncated or an unsupported format).
    #[error("could not decode walk mask image: {0}")]
    Image(#[from] image::ImageError),
    /// [`DecodeRule::ExactColors`] met a colour its table does not list.
    #[error(
        "colour #{:02x}{:02x}{:02x} (at pixel {x}, {y}) is in no entry of the colour table",
        rgb[0],
        rgb[1],
        rgb[2]
    )]
    UnmappedColor {
        /// The colour, `[r, g, b]`.
        rgb: [u8; 3],
        /// The column of the first pixel of that colour.
        x: u32,
        /// Its row.
        y: u32,
    },
    /// [`DecodeRule::Indexed`] on an image that has neither a palette nor grey levels.
    #[error("the indexed rule needs a palette or greyscale image, this one is {0}")]
    NotIndexed(String),
    /// A Moving AI `.map` file is malformed.
    #[error("bad Moving AI map, line {line}: {message}")]
    MovingAi {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file is malformed in a way the decoder would not report or would crash on
    /// (for example a PNG palette that is not whole colours, a palette index past the
    /// palette's end under a colour rule, run-length data that overruns its rows).
    #[error("the walk mask file is corrupt: {0}")]
    Corrupt(String),
    /// A third-party image decoder panicked on this file. The panic was caught (its
    /// message is kept here) so that a corrupt file cannot crash the game; the
    /// process's panic hook still prints it. Builds with `panic = "abort"` cannot
    /// catch it.
    #[error("the image decoder failed on this file: {0}")]
    DecoderPanic(String),
    /// Decoding would allocate more than [`MaskLimits::max_alloc_bytes`].
    #[error("decoding the walk mask needs {needed} bytes, over the budget of {budget} bytes")]
    OverBudget {
        /// Bytes the decode would have allocated in all.
        needed: u64,
        /// [`MaskLimits::max_alloc_bytes`].
        budget: u64,
    },
    /// The file is larger than [`MaskLimits::max_alloc_bytes`]; reading stopped there.
    #[error("{path} is larger than the limit of {limit} bytes")]
    FileTooLarge {
        /// The path.
        path: String,
        /// [`MaskLimits::max_alloc_bytes`].
        limit: u64,
    },
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// A walk mask: `width x height` area ids, row-major, row 0 at the top.
///
/// 0 means blocked, 1..=255 a walkable area. Cloning is cheap (the pixels are shared
/// behind an [`Arc`]), so one mask can serve many threads without copies.
#[derive(Clone, PartialEq, Eq)]
pub struct WalkMask {
    width: u32,
    height: u32,
    areas: Arc<[u8]>,
}

impl std::fmt::Debug for WalkMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkMask")
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// Checks a size against limits.
pub(crate) fn check_size(width: u32, height: u32, limits: &MaskLimits) -> Result<(), MaskError> {
    if width == 0 || height == 0 {
        return Err(MaskError::Empty { width, height });
    }
    if width > limits.max_width
        || height > limits.max_height
        || width as u64 * height as u64 > limits.max_pixels
    {
        return Err(MaskError::TooLarge {
            width,
            height,
            limits: *limits,
        });
    }
    Ok(())
}

impl WalkMask {
    /// A mask of this one's size with other area ids (`areas.len()` must be its
    /// pixel count): no limits to check, the size is one that was accepted.
    pub(crate) fn with_same_size(&self, areas: Vec<u8>) -> Self {
        debug_assert_eq!(areas.len(), self.areas.len());
        Self {
            width: self.width,
            height: self.height,
            areas: areas.into(),
        }
    }

    /// A mask from row-major area ids, with the default [`MaskLimits`].
    pub fn new(width: u32, height: u32, areas: Vec<u8>) -> Result<Self, MaskError> {
        Self::with_limits(width, height, areas, &MaskLimits::default())
    }

    /// A mask from row-major area ids, checked against `limits`.
    pub fn with_limits(
        width: u32,
        height: u32,
        areas: Vec<u8>,
        limits: &MaskLimits,
    ) -> Result<Self, MaskError> {
        check_size(width, height, limits)?;
        let expected = width as usize * height as usize;
        if areas.len() != expected {
            return Err(MaskError::SizeMismatch {
                expected,
                actual: areas.len(),
            });
        }
        Ok(Self {
            width,
            height,
            areas: areas.into(),
        })
    }

    /// A mask whose pixel `(x, y)` gets area `f(x, y)`.
    pub fn from_fn(
        width: u32,
        height: u32,
        mut f: impl FnMut(u32, u32) -> u8,
    ) -> Result<Self, MaskError> {
        check_size(width, height, &MaskLimits::default())?;
        let mut areas = Vec::with_capacity(width as usize * height as usize);
        for y in 0..height {
            for x in 0..width {
                areas.push(f(x, y));
            }
        }
        Self::new(width, height, areas)
    }

    /// Width in pixels.
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// All area ids, row-major.
    #[inline]
    pub fn areas(&self) -> &[u8] {
        &self.areas
    }

    /// The area id of pixel `(x, y)`, or `None` outside the mask.
    #[inline]
    pub fn area_at(&self, x: u32, y: u32) -> Option<u8> {
        (x < self.width && y < self.height)
            .then(|| self.areas[y as usize * self.width as usize + x as usize])
    }

    /// Number of pixels whose area is in `areas`.
    pub fn count_walkable(&self, areas: &crate::AreaSet) -> usize {
        let table = areas.lookup_table();
        self.areas.iter().filter(|&&a| table[a as usize]).count()
    }
}
