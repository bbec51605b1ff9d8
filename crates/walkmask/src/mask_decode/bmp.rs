//! BMPs (and any other format the `image` crate was built with), through the
//! `image` crate, after checking the header and any run-length-encoded data.

use std::io::Cursor;

use image::codecs::bmp::BmpDecoder;
use image::{ImageDecoder, ImageError, ImageReader};

use super::pixels::{ByteOrder, PixelRule};
use super::{Budget, DECODER_OVERHEAD, bits_article, out_of_memory};
use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask, check_size};

/// What the headers of a BMP say.
struct BmpHeader {
    width: u32,
    height: u32,
    bits: u16,
    compression: u32,
    data_offset: usize,
}

const RLE8: u32 = 1;
const RLE4: u32 = 2;

pub(super) fn decode(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    if let Some(header) = read_header(bytes)? {
        check_size(header.width, header.height, limits)?;
        if matches!(header.compression, RLE8 | RLE4) {
            check_run_lengths(bytes, &header)?;
        }
        if *rule == DecodeRule::Indexed {
            return decode_indexed(bytes, &header, limits);
        }
    }
    decode_through_image(bytes, rule, limits)
}

/// The header fields, or `None` when the file is too short to hold them (the decoder
/// then reports the truncation). Negative heights are top-down images.
fn read_header(bytes: &[u8]) -> Result<Option<BmpHeader>, MaskError> {
    let u16_at = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(data_offset), Some(info_size)) = (u32_at(10), u32_at(14)) else {
        return Ok(None);
    };
    let fields = if info_size == 12 {
        // BITMAPCOREHEADER: 16-bit sizes, no compression field.
        (|| Some((u16_at(18)? as i32, u16_at(20)? as i32, u16_at(24)?, 0)))()
    } else {
        (|| {
            Some((
                u32_at(18)? as i32,
                u32_at(22)? as i32,
                u16_at(28)?,
                u32_at(30)?,
            ))
        })()
    };
    let Some((width, height, bits, compression)) = fields else {
        return Ok(None);
    };
    if width < 0 {
        return Err(MaskError::Corrupt(format!(
            "the BMP's width is negative ({width})"
        )));
    }
    Ok(Some(BmpHeader {
        width: width as u32,
        height: height.unsigned_abs(),
        bits,
        compression,
        data_offset: data_offset as usize,
    }))
}

/// Checks run-length-encoded pixel data (RLE8 or RLE4) without decoding it: every
/// run and every absolute block must stay within its row, rows within the image, and
/// the data must end with the end-of-bitmap marker. Raw pixels mislabelled as RLE fail
/// here instead of decoding to noise.
fn check_run_lengths(bytes: &[u8], header: &BmpHeader) -> Result<(), MaskError> {
    let rle = if header.compression == RLE8 {
        "RLE8"
    } else {
        "RLE4"
    };
    let corrupt = |what: String| MaskError::Corrupt(format!("the BMP's {rle} data {what}"));
    let data = bytes.get(header.data_offset..).unwrap_or(&[]);
    let (width, height) = (header.width as u64, header.height as u64);
    let (mut x, mut y, mut at) = (0u64, 0u64, 0usize);
    loop {
        let Some(&[count, value]) = data.get(at..at + 2).map(|p| [p[0], p[1]]).as_ref() else {
            return Err(corrupt("ends without an end-of-bitmap marker".into()));
        };
        at += 2;
        if y >= height && !(count == 0 && value == 1) {
            return Err(corrupt(format!("goes past the last of the {height} rows")));
        }
        match (count, value) {
            (0, 0) => {
                x = 0;
                y += 1;
            }
            (0, 1) => return Ok(()),
            (0, 2) => {
                let Some(delta) = data.get(at..at + 2) else {
                    return Err(corrupt("ends inside a delta".into()));
                };
                x += u64::from(delta[0]);
                y += u64::from(delta[1]);
                at += 2;
                if x > width || y > height {
                    return Err(corrupt(format!(
                        "moves to ({x}, {y}), outside the {width} x {height} image"
                    )));
                }
            }
            (0, n) => {
                let n = u64::from(n);
                let len = if header.compression == RLE8 {
                    n
                } else {
                    n.div_ceil(2)
                } as usize;
                // Absolute blocks are padded to a 16-bit boundary.
                at += len + len % 2;
                x += n;
                if at > data.len() {
                    return Err(corrupt("ends inside an absolute block".into()));
                }
                if x > width {
                    return Err(corrupt(format!(
                        "has a block of {n} pixels past the end of row {y} ({width} pixels wide)"
                    )));
                }
            }
            (n, _) => {
                x += u64::from(n);
                if x > width {
                    return Err(corrupt(format!(
                        "has a run of {n} pixels past the end of row {y} ({width} pixels wide)"
                    )));
                }
            }
        }
    }
}

/// 8-bit uncompressed palette BMPs keep their indices as area ids.
fn decode_indexed(
    bytes: &[u8],
    header: &BmpHeader,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    let mut budget = Budget::new(limits);
    let mut decoder = BmpDecoder::new(Cursor::new(bytes))?;
    let (width, height) = decoder.dimensions();
    check_size(width, height, limits)?;
    decoder.set_limits(image_limits(limits, &budget))?;
    match (header.bits, header.compression) {
        (8, 0) if decoder.get_palette().is_some() => {}
        (bits, _) if bits <= 8 => {
            return Err(MaskError::NotIndexed(format!(
                "{} palette BMP that is packed or compressed (only 8-bit uncompressed \
                 palette BMPs and palette PNGs keep their indices)",
                bits_article(bits as u8)
            )));
        }
        _ => return Err(MaskError::NotIndexed("a true-colour BMP".into())),
    }
    decoder.set_indexed_color(true);
    let mut areas = budget.zeroed(decoder.total_bytes())?;
    decoder.read_image(&mut areas)?;
    WalkMask::with_limits(width, height, areas, limits)
}

/// The `image` crate's limits: the sizes in `limits`, and what is left of the budget.
fn image_limits(limits: &MaskLimits, budget: &Budget) -> image::Limits {
    let mut out = image::Limits::default();
    out.max_image_width = Some(limits.max_width);
    out.max_image_height = Some(limits.max_height);
    out.max_alloc = Some(budget.left());
    out
}

/// Decodes with the `image` crate into the image's own pixel format, then maps each
/// pixel to an area id in one pass.
pub(super) fn decode_through_image(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    let mut budget = Budget::new(limits);
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(ImageError::IoError)?;
    reader.limits(image_limits(limits, &budget));
    let decoder = match reader.into_decoder() {
        Ok(decoder) => decoder,
        Err(ImageError::Limits(error)) => {
            // The decoder refused the size from the header: read the header again
            // without size limits to say which size it was.
            let mut reader = ImageReader::new(Cursor::new(bytes))
                .with_guessed_format()
                .map_err(ImageError::IoError)?;
            let mut header_limits = image::Limits::default();
            header_limits.max_alloc = Some(DECODER_OVERHEAD);
            reader.limits(header_limits);
            if let Ok((width, height)) = reader.into_dimensions() {
                check_size(width, height, limits)?;
            }
            return Err(ImageError::Limits(error).into());
        }
        Err(error) => return Err(error.into()),
    };
    let (width, height) = decoder.dimensions();
    check_size(width, height, limits)?;
    let color = decoder.color_type();
    let indexed = *rule == DecodeRule::Indexed;
    if indexed && !matches!(color, image::ColorType::L8 | image::ColorType::La8) {
        return Err(MaskError::NotIndexed(format!(
            "an image of colour type {color:?}"
        )));
    }
    let mut raw = budget.zeroed(decoder.total_bytes())?;
    let mut areas = budget.with_capacity(width as u64 * height as u64)?;
    decoder.read_image(&mut raw).map_err(|e| match e {
        ImageError::Limits(_) => out_of_memory(),
        e => e.into(),
    })?;
    let mut pixels = PixelRule::new(rule);
    pixels.map_row(&raw, color, ByteOrder::Native, &mut areas)?;
    drop(raw);
    if let Some((i, rgb)) = pixels.unmapped() {
        let w = width.max(1) as usize;
        return Err(MaskError::UnmappedColor {
            rgb,
            x: (i % w) as u32,
            y: (i / w) as u32,
        });
    }
    WalkMask::with_limits(width, height, areas, limits)
}
