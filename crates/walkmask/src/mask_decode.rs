//! Decoding images and Moving AI maps into walk masks.
//!
//! Every size is checked against [`MaskLimits`] before a pixel buffer is allocated:
//! PNG headers are read directly, other formats through the decoder's header, so a
//! forged header claiming a huge image fails at once with [`MaskError::TooLarge`].

use std::io::Cursor;
use std::num::NonZeroU64;

use image::codecs::bmp::BmpDecoder;
use image::error::{DecodingError, ImageFormatHint, LimitError, LimitErrorKind};
use image::{ColorType, ImageDecoder, ImageError, ImageFormat, ImageReader};

use crate::mask::{ColorChannel, DecodeRule, MaskError, MaskLimits, WalkMask, check_size};

/// Allowance for a decoder's own working memory (row buffers, inflate window,
/// palettes, metadata chunks) on top of the decoded pixels.
const DECODER_OVERHEAD: u64 = 16 << 20;

/// The PNG file signature.
const PNG_SIGNATURE: [u8; 8] = [137, 80, 78, 71, 13, 10, 26, 10];

pub(crate) fn decode(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    check_png_header(bytes, limits)?;
    let format = image::guess_format(bytes).ok();
    if *rule == DecodeRule::Indexed {
        match format {
            Some(ImageFormat::Png) => return decode_png_indexed(bytes, limits),
            Some(ImageFormat::Gif) => return decode_gif_indexed(bytes, limits),
            Some(ImageFormat::Bmp) => return decode_bmp_indexed(bytes, limits),
            _ => {}
        }
    }
    decode_generic(bytes, rule, limits)
}

/// The most bytes a decoder may allocate for an image within `limits`: the largest
/// pixel format the `image` crate produces is 16 bytes per pixel (RGBA, 32-bit float).
fn max_alloc(limits: &MaskLimits) -> u64 {
    limits
        .max_pixels
        .saturating_mul(16)
        .saturating_add(DECODER_OVERHEAD)
}

/// The `image` crate's limits for `limits`.
fn image_limits(limits: &MaskLimits) -> image::Limits {
    let mut out = image::Limits::default();
    out.max_image_width = Some(limits.max_width);
    out.max_image_height = Some(limits.max_height);
    out.max_alloc = Some(max_alloc(limits));
    out
}

fn insufficient_memory() -> MaskError {
    MaskError::Image(ImageError::Limits(LimitError::from_kind(
        LimitErrorKind::InsufficientMemory,
    )))
}

/// A zeroed buffer of `len` bytes, or an error when it cannot be had (rather than
/// aborting the process).
fn zeroed(len: u64) -> Result<Vec<u8>, MaskError> {
    let len = usize::try_from(len).map_err(|_| insufficient_memory())?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|_| insufficient_memory())?;
    buf.resize(len, 0);
    Ok(buf)
}

/// Reads the size from a PNG's `IHDR` chunk (the first chunk of every PNG) and checks
/// it, so empty and oversized PNGs fail before any decoder runs. Anything that is not
/// a PNG with a readable header passes through to the decoders.
fn check_png_header(bytes: &[u8], limits: &MaskLimits) -> Result<(), MaskError> {
    if bytes.len() < 24 || bytes[..8] != PNG_SIGNATURE || &bytes[12..16] != b"IHDR" {
        return Ok(());
    }
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    check_size(be(16), be(20), limits)
}

// ---------------------------------------------------------------------------------
// Any format, through the `image` crate
// ---------------------------------------------------------------------------------

/// A decoder for `bytes` whose size has been checked against `limits`.
fn open_decoder<'a>(
    bytes: &'a [u8],
    limits: &MaskLimits,
) -> Result<impl ImageDecoder + 'a, MaskError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(ImageError::IoError)?;
    reader.limits(image_limits(limits));
    match reader.into_decoder() {
        Ok(decoder) => {
            let (width, height) = decoder.dimensions();
            check_size(width, height, limits)?;
            Ok(decoder)
        }
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
            Err(ImageError::Limits(error).into())
        }
        Err(error) => Err(error.into()),
    }
}

/// Decodes with the `image` crate into the image's own pixel format, then maps each
/// pixel to an area id in one pass.
fn decode_generic(
    bytes: &[u8],
    rule: &DecodeRule,
    limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    let decoder = open_decoder(bytes, limits)?;
    let (width, height) = decoder.dimensions();
    let color = decoder.color_type();
    let total = decoder.total_bytes();
    if total > max_alloc(limits) {
        return Err(MaskError::TooLarge {
            width,
            height,
            limits: *limits,
        });
    }
    let mut raw = zeroed(total)?;
    decoder.read_image(&mut raw)?;
    let areas = pixels_to_areas(raw, color, rule)?;
    WalkMask::with_limits(width, height, areas, limits)
}

/// Maps decoded pixels (native-endian samples, as `ImageDecoder::read_image` writes
/// them) to area ids.
fn pixels_to_areas(
    raw: Vec<u8>,
    color: ColorType,
    rule: &DecodeRule,
) -> Result<Vec<u8>, MaskError> {
    let unsupported = || MaskError::NotIndexed(format!("an image of colour type {color:?}"));
    let out = match rule {
        DecodeRule::Luma => map_pixels(&raw, color, |[r, g, b, a]| {
            u8::from(a >= 128 && is_light(r, g, b))
        }),
        DecodeRule::Alpha => map_pixels(&raw, color, |[_, _, _, a]| u8::from(a > 0)),
        DecodeRule::Channel { channel, threshold } => {
            let index = match channel {
                ColorChannel::Red => 0,
                ColorChannel::Green => 1,
                ColorChannel::Blue => 2,
                ColorChannel::Alpha => 3,
            };
            let threshold = *threshold;
            map_pixels(&raw, color, move |px| u8::from(px[index] >= threshold))
        }
        DecodeRule::Colors(table) => {
            let mut lookup = ColorLookup::new(table);
            map_pixels(&raw, color, move |[r, g, b, _]| lookup.area(r, g, b))
        }
        DecodeRule::Indexed => {
            // Formats with palettes were handled before; what is left are grey images,
            // whose grey level is the id.
            return match color {
                ColorType::L8 => Ok(raw),
                ColorType::La8 => Ok(raw.chunks_exact(2).map(|p| p[0]).collect()),
                _ => Err(unsupported()),
            };
        }
    };
    out.ok_or_else(|| {
        MaskError::Image(ImageError::Unsupported(
            image::error::UnsupportedError::from_format_and_kind(
                ImageFormatHint::Unknown,
                image::error::UnsupportedErrorKind::Color(color.into()),
            ),
        ))
    })
}

/// Whether the Rec. 709 luma of an 8-bit colour, rounded to the nearest level (as the
/// `image` crate's `to_luma8` converts), is at least 128. For grey pixels
/// (`r == g == b`) the luma is the grey level itself.
#[inline]
fn is_light(r: u8, g: u8, b: u8) -> bool {
    2126 * r as u32 + 7152 * g as u32 + 722 * b as u32 >= 1_275_000
}

/// A 16-bit sample scaled to 8 bits, rounded (as the `image` crate converts).
#[inline]
fn to_8(hi_lo: [u8; 2]) -> u8 {
    ((u16::from_ne_bytes(hi_lo) as u32 + 128) / 257) as u8
}

/// A 32-bit float sample (0.0..=1.0) scaled to 8 bits, clamped.
#[inline]
fn f32_to_8(bytes: [u8; 4]) -> u8 {
    let v = f32::from_ne_bytes(bytes);
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Applies `area` to every pixel seen as 8-bit RGBA (grey as `r = g = b`, alpha 255
/// when the image has none). `None` for a pixel format this does not know.
fn map_pixels(raw: &[u8], color: ColorType, area: impl FnMut([u8; 4]) -> u8) -> Option<Vec<u8>> {
    fn run<const N: usize>(
        raw: &[u8],
        rgba: impl Fn(&[u8; N]) -> [u8; 4],
        mut area: impl FnMut([u8; 4]) -> u8,
    ) -> Vec<u8> {
        raw.as_chunks::<N>()
            .0
            .iter()
            .map(|px| area(rgba(px)))
            .collect()
    }
    let s16 = |p: &[u8], i: usize| to_8([p[2 * i], p[2 * i + 1]]);
    let f32s = |p: &[u8], i: usize| f32_to_8([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
    Some(match color {
        ColorType::L8 => run::<1>(raw, |&[l]| [l, l, l, 255], area),
        ColorType::La8 => run::<2>(raw, |&[l, a]| [l, l, l, a], area),
        ColorType::Rgb8 => run::<3>(raw, |&[r, g, b]| [r, g, b, 255], area),
        ColorType::Rgba8 => run::<4>(raw, |&px| px, area),
        ColorType::L16 => run::<2>(
            raw,
            |p| {
                let l = s16(p, 0);
                [l, l, l, 255]
            },
            area,
        ),
        ColorType::La16 => run::<4>(
            raw,
            |p| {
                let l = s16(p, 0);
                [l, l, l, s16(p, 1)]
            },
            area,
        ),
        ColorType::Rgb16 => run::<6>(raw, |p| [s16(p, 0), s16(p, 1), s16(p, 2), 255], area),
        ColorType::Rgba16 => run::<8>(raw, |p| [s16(p, 0), s16(p, 1), s16(p, 2), s16(p, 3)], area),
        ColorType::Rgb32F => run::<12>(raw, |p| [f32s(p, 0), f32s(p, 1), f32s(p, 2), 255], area),
        ColorType::Rgba32F => run::<16>(
            raw,
            |p| [f32s(p, 0), f32s(p, 1), f32s(p, 2), f32s(p, 3)],
            area,
        ),
        _ => return None,
    })
}

/// Exact colour -> area lookup for [`DecodeRule::Colors`]; the first entry for a
/// colour wins. Remembers the last colour, since masks are mostly long runs of one
/// colour.
struct ColorLookup {
    sorted: Vec<(u32, u8)>,
    last: Option<(u32, u8)>,
}

impl ColorLookup {
    fn new(table: &[crate::mask::AreaColor]) -> Self {
        let key = |[r, g, b]: [u8; 3]| (r as u32) << 16 | (g as u32) << 8 | b as u32;
        let mut sorted: Vec<(u32, u8)> = table.iter().map(|c| (key(c.rgb), c.area)).collect();
        // A stable sort keeps duplicates in table order, so dedup keeps the first.
        sorted.sort_by_key(|&(k, _)| k);
        sorted.dedup_by_key(|&mut (k, _)| k);
        Self { sorted, last: None }
    }

    #[inline]
    fn area(&mut self, r: u8, g: u8, b: u8) -> u8 {
        let key = (r as u32) << 16 | (g as u32) << 8 | b as u32;
        if let Some((k, area)) = self.last
            && k == key
        {
            return area;
        }
        let area = match self.sorted.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => self.sorted[i].1,
            Err(_) => 0,
        };
        self.last = Some((key, area));
        area
    }
}

// ---------------------------------------------------------------------------------
// The indexed rule: raw palette indices
// ---------------------------------------------------------------------------------

/// "a 16-bit", "an 8-bit".
fn bits_article(bits: u8) -> String {
    let article = if bits == 8 { "an" } else { "a" };
    format!("{article} {bits}-bit")
}

fn png_error(error: png::DecodingError) -> MaskError {
    MaskError::Image(match error {
        png::DecodingError::IoError(e) => ImageError::IoError(e),
        png::DecodingError::LimitsExceeded => {
            ImageError::Limits(LimitError::from_kind(LimitErrorKind::InsufficientMemory))
        }
        e => ImageError::Decoding(DecodingError::new(
            ImageFormatHint::Exact(ImageFormat::Png),
            e,
        )),
    })
}

/// Palette PNGs: the index is the area id (1-, 2-, 4- and 8-bit indices). Greyscale
/// PNGs of up to 8 bits: the grey sample (0..=1, 0..=3, 0..=15 or 0..=255) is the id.
fn decode_png_indexed(bytes: &[u8], limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    let png_limits = png::Limits {
        bytes: usize::try_from(DECODER_OVERHEAD).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png_limits);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let info = decoder.read_header_info().map_err(png_error)?;
    let (width, height) = (info.width, info.height);
    check_size(width, height, limits)?;
    let (color, depth) = (info.color_type, info.bit_depth);
    let samples = match (color, depth) {
        (png::ColorType::Indexed, _) => 1,
        (png::ColorType::Grayscale, d) if d != png::BitDepth::Sixteen => 1,
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) => 2,
        _ => {
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
    };
    let mut reader = decoder.read_info().map_err(png_error)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(insufficient_memory)?;
    let mut buf = zeroed(size as u64)?;
    let frame = reader.next_frame(&mut buf).map_err(png_error)?;
    let bits = depth as usize;
    if bits == 8 && samples == 1 {
        // One byte per pixel already: the buffer is the mask.
        buf.truncate(width as usize * height as usize);
        return WalkMask::with_limits(width, height, buf, limits);
    }
    let mut areas = Vec::with_capacity(width as usize * height as usize);
    for row in buf.chunks_exact(frame.line_size).take(height as usize) {
        if samples == 2 {
            areas.extend(row.chunks_exact(2).map(|p| p[0]).take(width as usize));
        } else {
            let mask = (1u8 << bits) - 1;
            areas.extend((0..width as usize).map(|x| {
                let bit = x * bits;
                (row[bit / 8] >> (8 - bits - bit % 8)) & mask
            }));
        }
    }
    WalkMask::with_limits(width, height, areas, limits)
}

fn gif_error(error: gif::DecodingError) -> MaskError {
    MaskError::Image(match error {
        gif::DecodingError::Io(e) => ImageError::IoError(e),
        e => ImageError::Decoding(DecodingError::new(
            ImageFormatHint::Exact(ImageFormat::Gif),
            e,
        )),
    })
}

/// GIFs: the first frame's palette indices are the area ids; screen pixels outside
/// that frame are blocked.
fn decode_gif_indexed(bytes: &[u8], limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let memory = limits.max_pixels.saturating_add(DECODER_OVERHEAD);
    options.set_memory_limit(gif::MemoryLimit::Bytes(
        NonZeroU64::new(memory).unwrap_or(NonZeroU64::MIN),
    ));
    let mut decoder = options.read_info(Cursor::new(bytes)).map_err(gif_error)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    check_size(width, height, limits)?;
    let Some(frame) = decoder.read_next_frame().map_err(gif_error)? else {
        return Err(MaskError::Image(ImageError::Decoding(DecodingError::new(
            ImageFormatHint::Exact(ImageFormat::Gif),
            "the GIF has no image",
        ))));
    };
    let mut areas = vec![0u8; width as usize * height as usize];
    let (fw, fh) = (usize::from(frame.width), usize::from(frame.height));
    let (left, top) = (usize::from(frame.left), usize::from(frame.top));
    let (w, h) = (width as usize, height as usize);
    if fw > 0 && left < w {
        let cols = fw.min(w - left);
        for (y, src) in frame.buffer.chunks_exact(fw).take(fh).enumerate() {
            let sy = top + y;
            if sy >= h {
                break;
            }
            areas[sy * w + left..sy * w + left + cols].copy_from_slice(&src[..cols]);
        }
    }
    WalkMask::with_limits(width, height, areas, limits)
}

/// The bit depth and compression of a BMP, from its info header.
fn bmp_depth_and_compression(bytes: &[u8]) -> Option<(u16, u32)> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    match u32_at(14)? {
        // BITMAPCOREHEADER: no compression field.
        12 => Some((u16_at(24)?, 0)),
        _ => Some((u16_at(28)?, u32_at(30)?)),
    }
}

/// BMPs: 8-bit uncompressed palette BMPs keep their indices as area ids.
fn decode_bmp_indexed(bytes: &[u8], limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    let mut decoder = BmpDecoder::new(Cursor::new(bytes))?;
    let (width, height) = decoder.dimensions();
    check_size(width, height, limits)?;
    decoder.set_limits(image_limits(limits))?;
    match bmp_depth_and_compression(bytes) {
        Some((8, 0)) if decoder.get_palette().is_some() => {}
        Some((bits, _)) if bits <= 8 => {
            return Err(MaskError::NotIndexed(format!(
                "{} palette BMP that is packed or compressed (only 8-bit uncompressed \
                 palette BMPs and palette PNGs keep their indices)",
                bits_article(bits as u8)
            )));
        }
        _ => return Err(MaskError::NotIndexed("a true-colour BMP".into())),
    }
    decoder.set_indexed_color(true);
    let mut areas = zeroed(decoder.total_bytes())?;
    decoder.read_image(&mut areas)?;
    WalkMask::with_limits(width, height, areas, limits)
}

// ---------------------------------------------------------------------------------
// Moving AI maps
// ---------------------------------------------------------------------------------

fn movingai_error(line: usize, message: impl Into<String>) -> MaskError {
    MaskError::MovingAi {
        line,
        message: message.into(),
    }
}

/// Parses `type <kind>`, `height H`, `width W` (in any order, each once), `map`, then
/// `H` rows of `W` cells. Line ends may be CRLF, lines may carry trailing whitespace,
/// and blank lines may follow the last row.
pub(crate) fn parse_movingai(text: &str, limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .map(str::trim_end)
        .enumerate()
        .map(|(i, l)| (i + 1, l));
    let mut last_line = 0;

    let (mut kind, mut height, mut width) = (None, None, None);
    let map_line = loop {
        let Some((n, line)) = lines.next() else {
            return Err(movingai_error(
                last_line + 1,
                "the header ends without a `map` line",
            ));
        };
        last_line = n;
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else {
            return Err(movingai_error(n, "blank line in the header"));
        };
        if key == "map" {
            if words.next().is_some() {
                return Err(movingai_error(n, "unexpected text after `map`"));
            }
            break n;
        }
        let Some(value) = words.next() else {
            return Err(movingai_error(n, format!("`{key}` has no value")));
        };
        if words.next().is_some() {
            return Err(movingai_error(
                n,
                format!("unexpected text after `{key} {value}`"),
            ));
        }
        let number = || {
            value
                .parse::<u32>()
                .map_err(|_| movingai_error(n, format!("{key} `{value}` is not a whole number")))
        };
        let duplicate = match key {
            "type" => kind.replace(value).is_some(),
            "height" => height.replace(number()?).is_some(),
            "width" => width.replace(number()?).is_some(),
            _ => {
                return Err(movingai_error(
                    n,
                    format!("unknown header line `{line}` (expected type, height, width or map)"),
                ));
            }
        };
        if duplicate {
            return Err(movingai_error(n, format!("`{key}` is given twice")));
        }
    };
    let missing = |what: &str| movingai_error(map_line, format!("the header has no `{what}` line"));
    kind.ok_or_else(|| missing("type"))?;
    let height = height.ok_or_else(|| missing("height"))?;
    let width = width.ok_or_else(|| missing("width"))?;
    check_size(width, height, limits)?;

    let mut areas = Vec::with_capacity(width as usize * height as usize);
    for row in 0..height {
        let Some((n, line)) = lines.next() else {
            return Err(movingai_error(
                last_line + 1,
                format!("the map has {row} rows, the header says {height}"),
            ));
        };
        last_line = n;
        if !line.is_ascii() {
            return Err(movingai_error(n, "row has a character that is not ASCII"));
        }
        if line.len() != width as usize {
            return Err(movingai_error(
                n,
                format!(
                    "row has {} cells, the header says width {width}",
                    line.len()
                ),
            ));
        }
        areas.extend(
            line.bytes()
                .map(|c| u8::from(matches!(c, b'.' | b'G' | b'S'))),
        );
    }
    if let Some((n, _)) = lines.find(|(_, l)| !l.is_empty()) {
        return Err(movingai_error(
            n,
            format!("text after the last row (the header says height {height})"),
        ));
    }
    WalkMask::with_limits(width, height, areas, limits)
}
