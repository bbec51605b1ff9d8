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

use image::ImageFormat;

use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask};

pub(crate) use movingai::parse_movingai;

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
