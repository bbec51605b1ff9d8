//! PNGs, decoded row by row with the `png` crate into the one-byte mask.

use std::io::Cursor;

use image::{ColorType, ImageFormat};

use super::pixels::{ByteOrder, PaletteAreas, PixelRule};
use super::{Budget, DECODER_OVERHEAD, bits_article, decoding_error, out_of_memory};
use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask, check_size};

/// The PNG file signature.
const SIGNATURE: [u8; 8] = [137, 80, 78, 71, 13, 10, 26, 10];

/// How the samples of a row become area ids (or palette indices, mapped afterwards).
enum RowLayout {
    /// One sample of `bits` bits per pixel, taken as it is: a palette index or a grey
    /// level.
    Samples { bits: u8 },
    /// Two 8-bit samples per pixel (grey and alpha); the first is taken.
    GreyOfGreyAlpha,
    /// Pixels expanded to 8- or 16-bit grey, grey-alpha, RGB or RGBA, mapped by a
    /// colour rule.
    Pixels(PixelRule),
}

pub(super) fn decode(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    check_chunks(bytes, limits)?;
    let mut budget = Budget::new(limits);
    let png_limits = png::Limits {
        bytes: usize::try_from(DECODER_OVERHEAD.min(budget.left())).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png_limits);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let info = decoder.read_header_info().map_err(png_error)?;
    let (width, height) = (info.width, info.height);
    check_size(width, height, limits)?;
    let (color, depth) = (info.color_type, info.bit_depth);
    let indexed = *rule == DecodeRule::Indexed;
    let mut layout = match (color, depth) {
        (png::ColorType::Indexed, d) => RowLayout::Samples { bits: d as u8 },
        (png::ColorType::Grayscale, d) if indexed && d != png::BitDepth::Sixteen => {
            RowLayout::Samples { bits: d as u8 }
        }
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) if indexed => {
            RowLayout::GreyOfGreyAlpha
        }
        _ if indexed => {
            let kind = match color {
                png::ColorType::Grayscale => "greyscale",
                png::ColorType::GrayscaleAlpha => "greyscale-alpha",
                png::ColorType::Rgb => "RGB",
                png::ColorType::Rgba => "RGBA",
                png::ColorType::Indexed => "palette",
            };
            return Err(MaskError::NotIndexed(format!(
                "{} {kind} PNG",
                bits_article(depth as u8)
            )));
        }
        _ => {
            // Low-bit grey to 8 bits, colour-key transparency (tRNS) to alpha. Palettes
            // are expanded here instead (below), so that an index past the palette's end
            // is reported rather than silently painted black.
            decoder.set_transformations(png::Transformations::EXPAND);
            RowLayout::Pixels(PixelRule::new(rule))
        }
    };
    let mut reader = decoder.read_info().map_err(png_error)?;
    let palette = match (color, indexed) {
        (png::ColorType::Indexed, false) => {
            let info = reader.info();
            let palette = info.palette.as_deref().ok_or_else(|| {
                MaskError::Corrupt("the palette PNG has no PLTE chunk".to_string())
            })?;
            let trns = info.trns.as_deref().unwrap_or(&[]);
            let mut rule = PixelRule::new(rule);
            Some(PaletteAreas::new(&mut rule, palette, |i| {
                trns.get(i).copied().unwrap_or(255)
            }))
        }
        _ => None,
    };
    let output = match reader.output_color_type() {
        (png::ColorType::Grayscale, png::BitDepth::Sixteen) => ColorType::L16,
        (png::ColorType::Grayscale, _) => ColorType::L8,
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Sixteen) => ColorType::La16,
        (png::ColorType::GrayscaleAlpha, _) => ColorType::La8,
        (png::ColorType::Rgb, png::BitDepth::Sixteen) => ColorType::Rgb16,
        (png::ColorType::Rgb, _) => ColorType::Rgb8,
        (png::ColorType::Rgba, png::BitDepth::Sixteen) => ColorType::Rgba16,
        (png::ColorType::Rgba, _) => ColorType::Rgba8,
        (png::ColorType::Indexed, _) => ColorType::L8,
    };
    let pixels = width as u64 * height as u64;
    let mut areas = budget.with_capacity(pixels)?;
    let mut map_row = |row: &[u8], areas: &mut Vec<u8>| -> Result<(), MaskError> {
        let width = width as usize;
        match &mut layout {
            RowLayout::Samples { bits: 8 } => areas.extend_from_slice(&row[..width]),
            RowLayout::Samples { bits } => {
                let bits = *bits as usize;
                let mask = (1u8 << bits) - 1;
                areas.extend((0..width).map(|x| {
                    let bit = x * bits;
                    (row[bit / 8] >> (8 - bits - bit % 8)) & mask
                }));
            }
            RowLayout::GreyOfGreyAlpha => {
                areas.extend(row.chunks_exact(2).map(|p| p[0]).take(width));
            }
            RowLayout::Pixels(rule) => rule.map_row(row, output, ByteOrder::BigEndian, areas)?,
        }
        Ok(())
    };
    if reader.info().interlaced {
        // Interlaced rows arrive pass by pass, so the whole image is decoded first.
        let size = reader.output_buffer_size().ok_or_else(out_of_memory)?;
        let mut frame = budget.zeroed(size as u64)?;
        let out = reader.next_frame(&mut frame).map_err(png_error)?;
        for row in frame.chunks_exact(out.line_size).take(height as usize) {
            map_row(row, &mut areas)?;
        }
    } else {
        while let Some(row) = reader.next_row().map_err(png_error)? {
            map_row(row.data(), &mut areas)?;
        }
    }
    // The chunks after the image, up to and including IEND: a file cut short there
    // is as broken as one cut inside the pixels.
    reader.finish().map_err(png_error)?;
    if let Some(palette) = palette {
        palette.map_in_place(&mut areas, width as usize, "PNG")?;
    }
    WalkMask::with_limits(width, height, areas, limits)
}

/// Walks the chunks before the image data without decoding them: the size in
/// `IHDR` is checked against `limits` (so empty and oversized PNGs fail before any
/// decoder runs), and a `PLTE` chunk must hold 1 to 256 whole colours (the `png`
/// crate panics on others). Anything else, including a file cut short, is left to
/// the decoder.
fn check_chunks(bytes: &[u8], limits: &MaskLimits) -> Result<(), MaskError> {
    if bytes.len() < 8 || bytes[..8] != SIGNATURE {
        return Ok(());
    }
    let be = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let mut at = 8usize;
    while let (Some(len), Some(kind)) = (be(at), bytes.get(at + 4..at + 8)) {
        match kind {
            b"IHDR" if at == 8 => {
                if let (Some(width), Some(height)) = (be(at + 8), be(at + 12)) {
                    check_size(width, height, limits)?;
                }
            }
            b"PLTE" if len == 0 || len % 3 != 0 || len > 3 * 256 => {
                return Err(MaskError::Corrupt(format!(
                    "the PNG's PLTE chunk has {len} bytes, but a palette is 1 to 256 colours \
                     of 3 bytes each"
                )));
            }
            b"IDAT" | b"IEND" => break,
            _ => {}
        }
        at = at.saturating_add(12).saturating_add(len as usize);
    }
    Ok(())
}

fn png_error(error: png::DecodingError) -> MaskError {
    match error {
        png::DecodingError::IoError(e) => MaskError::Image(image::ImageError::IoError(e)),
        png::DecodingError::LimitsExceeded => out_of_memory(),
        e => decoding_error(ImageFormat::Png, e),
    }
}
