//! GIFs: the first frame's palette indices, decoded by the `gif` crate straight into
//! the one-byte mask and then mapped in place.

use std::io::Cursor;
use std::num::NonZeroU64;

use image::ImageFormat;

use super::pixels::{PaletteAreas, PixelRule};
use super::{Budget, DECODER_OVERHEAD, decoding_error};
use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask, check_size};

/// Under the indexed rule the palette indices are the area ids; under a colour rule
/// each index becomes its palette colour (alpha 0 for the frame's transparent index)
/// and the rule maps that. Screen pixels outside the first frame are blocked under
/// the indexed rule and transparent black under colour rules.
pub(super) fn decode(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    let mut budget = Budget::new(limits);
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let memory = budget
        .left()
        .min(limits.max_pixels.saturating_add(DECODER_OVERHEAD));
    options.set_memory_limit(gif::MemoryLimit::Bytes(
        NonZeroU64::new(memory).unwrap_or(NonZeroU64::MIN),
    ));
    let mut decoder = options.read_info(Cursor::new(bytes)).map_err(gif_error)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    check_size(width, height, limits)?;
    let Some(frame) = decoder.next_frame_info().map_err(gif_error)? else {
        return Err(decoding_error(ImageFormat::Gif, "the GIF has no image"));
    };
    let (fw, fh) = (usize::from(frame.width), usize::from(frame.height));
    let (left, top) = (usize::from(frame.left), usize::from(frame.top));
    let transparent = frame.transparent;
    let (w, h) = (width as usize, height as usize);
    let mut areas = budget.zeroed(width as u64 * height as u64)?;
    if (left, top, fw, fh) == (0, 0, w, h) {
        decoder.read_into_buffer(&mut areas).map_err(gif_error)?;
    } else {
        // A frame that does not cover the screen exactly: decode it on its own, then
        // copy the part on the screen.
        let mut indices = budget.zeroed(fw as u64 * fh as u64)?;
        decoder.read_into_buffer(&mut indices).map_err(gif_error)?;
        if *rule != DecodeRule::Indexed {
            let palette = decoder.palette().map_err(gif_error)?;
            palette_areas(rule, palette, transparent).map_in_place(
                &mut indices,
                fw,
                "GIF's first frame",
            )?;
            areas.fill(PixelRule::new(rule).area([0, 0, 0, 0]));
        }
        if fw > 0 && left < w {
            let cols = fw.min(w - left);
            for (y, src) in indices.chunks_exact(fw).enumerate() {
                let sy = top + y;
                if sy >= h {
                    break;
                }
                areas[sy * w + left..sy * w + left + cols].copy_from_slice(&src[..cols]);
            }
        }
        return WalkMask::with_limits(width, height, areas, limits);
    }
    if *rule != DecodeRule::Indexed {
        let palette = decoder.palette().map_err(gif_error)?;
        palette_areas(rule, palette, transparent).map_in_place(&mut areas, w, "GIF")?;
    }
    WalkMask::with_limits(width, height, areas, limits)
}

fn palette_areas(rule: &DecodeRule, palette: &[u8], transparent: Option<u8>) -> PaletteAreas {
    let mut rule = PixelRule::new(rule);
    PaletteAreas::new(&mut rule, palette, |i| {
        if transparent == Some(i as u8) { 0 } else { 255 }
    })
}

fn gif_error(error: gif::DecodingError) -> MaskError {
    match error {
        gif::DecodingError::Io(e) => MaskError::Image(image::ImageError::IoError(e)),
        e => decoding_error(ImageFormat::Gif, e),
    }
}
