//! Decoding images and Moving AI maps into walk masks.
//!
//! Every size is checked against [`MaskLimits`] before a pixel buffer is allocated,
//! and every buffer a decode allocates is counted against
//! [`MaskLimits::max_alloc_bytes`], so a forged header or a small file that
//! decompresses to a huge image fails with a typed error instead of exhausting memory.
//!
//! PNGs and GIFs are decoded by the `png` and `gif` crates straight into the
//! one-byte-per-pixel mask: PNG rows one at a time, GIF palette indices in place.
//! BMPs go through the `image` crate. Any panic inside a third-party decoder is caught
//! and reported as [`MaskError::DecoderPanic`]: a game that loads a mask from a mod or
//! a download must not crash because a dependency mishandles a corrupt file.

mod bmp;
mod gif;
mod movingai;
mod pixels;
mod png;

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use image::ImageFormat;

use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask};

pub(crate) use movingai::parse_movingai;

/// Reading a mask from image bytes, a Moving AI map or a file.
impl WalkMask {
    /// Decodes an image held in memory (any format the `image` crate was built with;
    /// PNG, BMP and GIF here) by `rule`, with the default limits.
    pub fn decode(bytes: &[u8], rule: &DecodeRule) -> Result<Self, MaskError> {
        Self::decode_with_limits(bytes, rule, &MaskLimits::default())
    }

    /// Decodes an image held in memory by `rule`, checked against `limits` before
    /// any pixel buffer is allocated.
    pub fn decode_with_limits(
        bytes: &[u8],
        rule: &DecodeRule,
        limits: &MaskLimits,
    ) -> Result<Self, MaskError> {
        decode(bytes, rule, limits)
    }

    /// Parses a Moving AI benchmark `.map` file: `.`, `G` and `S` are area 1, `@`,
    /// `O`, `T` and `W` are blocked, and any other character is an error.
    pub fn parse_movingai(text: &str) -> Result<Self, MaskError> {
        Self::parse_movingai_with_limits(text, &MaskLimits::default())
    }

    /// Parses a Moving AI `.map` file, checked against `limits` before the mask is
    /// allocated.
    pub fn parse_movingai_with_limits(text: &str, limits: &MaskLimits) -> Result<Self, MaskError> {
        parse_movingai(text, limits)
    }

    /// Reads a mask from a file with the default limits: `.map` files as Moving AI
    /// maps (the rule is ignored), everything else as an image decoded by `rule`.
    pub fn open(path: impl AsRef<Path>, rule: &DecodeRule) -> Result<Self, MaskError> {
        Self::open_with_limits(path, rule, &MaskLimits::default())
    }

    /// Reads a mask from a file, checked against `limits`: at most
    /// [`MaskLimits::max_alloc_bytes`] bytes of the file are read (so a device or a
    /// pipe that never ends fails with [`MaskError::FileTooLarge`]).
    pub fn open_with_limits(
        path: impl AsRef<Path>,
        rule: &DecodeRule,
        limits: &MaskLimits,
    ) -> Result<Self, MaskError> {
        let path = path.as_ref();
        let bytes = read_limited(path, limits.max_alloc_bytes)?;
        let is_map = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("map"));
        if is_map {
            let text = String::from_utf8(bytes).map_err(|e| MaskError::MovingAi {
                line: 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count(),
                message: "the file is not UTF-8 text".to_string(),
            })?;
            parse_movingai(&text, limits)
        } else {
            Self::decode_with_limits(&bytes, rule, limits)
        }
    }
}

/// Reads at most `limit` bytes of the file at `path`; more is an error.
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, MaskError> {
    use std::io::Read;
    let io = |source| MaskError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let too_large = || MaskError::FileTooLarge {
        path: path.display().to_string(),
        limit,
    };
    // A regular file says its size: refuse at once rather than read up to the limit.
    let known = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if known.is_some_and(|len| len > limit) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    if let Some(len) = known {
        bytes
            .try_reserve_exact(len as usize)
            .map_err(|_| too_large())?;
    }
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Allowance for a decoder's own working memory (row buffers, inflate window,
/// palettes, metadata chunks) on top of the pixel buffers it is charged for.
const DECODER_OVERHEAD: u64 = 16 << 20;

pub(crate) fn decode(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    contain_panics(|| match image::guess_format(bytes).ok() {
        // Every pixel's colour is checked, in the order of the whole image.
        _ if matches!(rule, DecodeRule::ExactColors(_)) => {
            bmp::decode_through_image(bytes, rule, limits)
        }
        Some(ImageFormat::Png) => png::decode(bytes, rule, limits),
        Some(ImageFormat::Gif) => gif::decode(bytes, rule, limits),
        Some(ImageFormat::Bmp) => bmp::decode(bytes, rule, limits),
        // Formats this build has no decoder for: the `image` crate names the problem.
        _ => bmp::decode_through_image(bytes, rule, limits),
    })
}

/// Runs `decode`, turning a panic into [`MaskError::DecoderPanic`].
fn contain_panics(
    decode: impl FnOnce() -> Result<WalkMask, MaskError>,
) -> Result<WalkMask, MaskError> {
    // The closure only reads the input and builds a new mask: nothing it leaves
    // half-done is visible after a panic, so unwinding out of it is safe.
    panic::catch_unwind(AssertUnwindSafe(decode)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Err(MaskError::DecoderPanic(message))
    })
}

/// The allocation budget of one decode ([`MaskLimits::max_alloc_bytes`]).
struct Budget {
    budget: u64,
    used: u64,
}

impl Budget {
    fn new(limits: &MaskLimits) -> Self {
        Self {
            budget: limits.max_alloc_bytes,
            used: 0,
        }
    }

    /// Charges `bytes`, or fails when the budget cannot cover them.
    fn charge(&mut self, bytes: u64) -> Result<(), MaskError> {
        let needed = self.used.saturating_add(bytes);
        if needed > self.budget {
            return Err(MaskError::OverBudget {
                needed,
                budget: self.budget,
            });
        }
        self.used = needed;
        Ok(())
    }

    /// What is left, for decoders that take their own limit.
    fn left(&self) -> u64 {
        self.budget - self.used
    }

    /// A zeroed buffer of `len` bytes, charged to the budget; an error rather than an
    /// abort when the system cannot provide it.
    fn zeroed(&mut self, len: u64) -> Result<Vec<u8>, MaskError> {
        let mut buf = self.with_capacity(len)?;
        buf.resize(buf.capacity(), 0);
        Ok(buf)
    }

    /// An empty buffer with room for exactly `len` bytes, charged to the budget. The
    /// pages are only touched as the buffer fills.
    fn with_capacity(&mut self, len: u64) -> Result<Vec<u8>, MaskError> {
        self.charge(len)?;
        let len = usize::try_from(len).map_err(|_| out_of_memory())?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(len).map_err(|_| out_of_memory())?;
        Ok(buf)
    }
}

fn out_of_memory() -> MaskError {
    use image::error::{LimitError, LimitErrorKind};
    MaskError::Image(image::ImageError::Limits(LimitError::from_kind(
        LimitErrorKind::InsufficientMemory,
    )))
}

/// "a 16-bit", "an 8-bit".
fn bits_article(bits: u8) -> String {
    let article = if bits == 8 { "an" } else { "a" };
    format!("{article} {bits}-bit")
}

/// A decoding error from a third-party decoder, tagged with the format.
fn decoding_error(
    format: ImageFormat,
    error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> MaskError {
    use image::error::{DecodingError, ImageFormatHint};
    MaskError::Image(image::ImageError::Decoding(DecodingError::new(
        ImageFormatHint::Exact(format),
        error,
    )))
}
