//! Decoding walk masks from real image files of many colour types and from Moving AI
//! maps, and the typed errors for bad input.

use std::borrow::Cow;
use std::io::Cursor;
use std::path::PathBuf;

use image::{DynamicImage, ImageBuffer, ImageFormat, Luma, LumaA, Rgb, RgbImage, Rgba, RgbaImage};
use proptest::prelude::*;
mod support;

use support::files::chunk;
use walkmask::{AreaColor, AreaSet, ColorChannel, DecodeRule, MaskError, MaskLimits, WalkMask};

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

fn encode(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), format)
        .expect("encode test image");
    bytes
}

fn png(image: impl Into<DynamicImage>) -> Vec<u8> {
    encode(image.into(), ImageFormat::Png)
}

/// A PNG written with the `png` crate: `samples` are one value per pixel (palette
/// index or grey level), packed here at `depth` bits.
fn raw_png(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    samples: &[u8],
    palette: Option<&[[u8; 3]]>,
    trns: Option<&[u8]>,
) -> Vec<u8> {
    let bits = depth as usize;
    let line = (width as usize * bits).div_ceil(8);
    let mut data = vec![0u8; line * height as usize];
    for y in 0..height as usize {
        for x in 0..width as usize {
            let v = samples[y * width as usize + x];
            assert!(
                bits == 8 || v < 1 << bits,
                "sample {v} does not fit {bits} bits"
            );
            let bit = x * bits;
            data[y * line + bit / 8] |= v << (8 - bits - bit % 8);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if let Some(palette) = palette {
        encoder.set_palette(palette.concat());
    }
    if let Some(trns) = trns {
        encoder.set_trns(trns.to_vec());
    }
    let mut writer = encoder.write_header().expect("png header");
    writer.write_image_data(&data).expect("png data");
    writer.finish().expect("png finish");
    out
}

/// A GIF with a global palette and one frame of `indices` at (`left`, `top`).
fn gif(
    screen: (u16, u16),
    palette: &[[u8; 3]],
    frame: (u16, u16, u16, u16),
    indices: &[u8],
) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder =
            gif::Encoder::new(&mut out, screen.0, screen.1, &palette.concat()).expect("gif");
        let (left, top, width, height) = frame;
        let frame = gif::Frame {
            left,
            top,
            width,
            height,
            buffer: Cow::Borrowed(indices),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).expect("gif frame");
    }
    out
}

/// An 8-bit palette BMP whose pixels are `indices`.
fn palette_bmp(width: u32, height: u32, indices: &[u8], palette: &[[u8; 3]]) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::bmp::BmpEncoder::new(&mut out)
        .encode_with_palette(
            indices,
            width,
            height,
            image::ExtendedColorType::L8,
            Some(palette),
        )
        .expect("bmp");
    out
}

fn decode(bytes: &[u8], rule: &DecodeRule) -> WalkMask {
    WalkMask::decode(bytes, rule).unwrap_or_else(|e| panic!("decode by {rule:?}: {e}"))
}

fn areas(bytes: &[u8], rule: &DecodeRule) -> Vec<u8> {
    decode(bytes, rule).areas().to_vec()
}

fn blue(threshold: u8) -> DecodeRule {
    DecodeRule::Channel {
        channel: ColorChannel::Blue,
        threshold,
    }
}

fn colors(entries: &[([u8; 3], u8)]) -> DecodeRule {
    DecodeRule::Colors(
        entries
            .iter()
            .map(|&(rgb, area)| AreaColor { rgb, area })
            .collect(),
    )
}

/// A handcrafted PNG: a valid header (RGBA, 8-bit) claiming `width x height`, one
/// small zlib stream and the end chunk.
fn forged_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = vec![137, 80, 78, 71, 13, 10, 26, 10];
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    out.extend(chunk(b"IHDR", &ihdr));
    // An empty stored deflate block: a few bytes, far less than any row.
    out.extend(chunk(b"IDAT", &[0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF]));
    out.extend(chunk(b"IEND", &[]));
    out
}

fn small_limits() -> MaskLimits {
    MaskLimits {
        max_width: 8,
        max_height: 8,
        max_pixels: 64,
        ..MaskLimits::default()
    }
}

fn all_rules() -> Vec<DecodeRule> {
    vec![
        DecodeRule::Luma,
        DecodeRule::Alpha,
        blue(128),
        DecodeRule::Indexed,
        colors(&[([0, 255, 0], 1)]),
    ]
}

// ---------------------------------------------------------------------------------
// PNG colour types through each rule
// ---------------------------------------------------------------------------------

#[test]
fn grey_8_bit_png() {
    let levels = [0u8, 127, 128, 200, 255, 10, 129, 64, 250, 1];
    let bytes = png(ImageBuffer::<Luma<u8>, _>::from_vec(5, 2, levels.to_vec()).unwrap());
    let mask = decode(&bytes, &DecodeRule::Luma);
    assert_eq!((mask.width(), mask.height()), (5, 2));
    assert_eq!(mask.areas(), [0, 0, 1, 1, 1, 0, 1, 0, 1, 0]);
    assert_eq!(mask.area_at(2, 0), Some(1));
    assert_eq!(mask.area_at(1, 1), Some(1));
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1; 10]);
    assert_eq!(areas(&bytes, &blue(200)), [0, 0, 0, 1, 1, 0, 0, 0, 1, 0]);
    // Grey level = area id.
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), levels);
    assert_eq!(
        areas(
            &bytes,
            &colors(&[([128, 128, 128], 7), ([255, 255, 255], 3)])
        ),
        [0, 0, 7, 0, 3, 0, 0, 0, 0, 0]
    );
}

#[test]
fn grey_alpha_8_bit_png() {
    let pixels = [
        (200u8, 255u8),
        (200, 127),
        (200, 0),
        (50, 255),
        (128, 128),
        (0, 1),
    ];
    let data: Vec<u8> = pixels.iter().flat_map(|&(l, a)| [l, a]).collect();
    let bytes = png(ImageBuffer::<LumaA<u8>, _>::from_vec(3, 2, data).unwrap());
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [1, 0, 0, 0, 1, 0]);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1, 1, 0, 1, 1, 1]);
    let alpha_128 = DecodeRule::Channel {
        channel: ColorChannel::Alpha,
        threshold: 128,
    };
    assert_eq!(areas(&bytes, &alpha_128), [1, 0, 0, 1, 1, 0]);
    assert_eq!(
        areas(&bytes, &DecodeRule::Indexed),
        [200, 200, 200, 50, 128, 0]
    );
}

#[test]
fn rgb_8_bit_png() {
    let pixels: [[u8; 3]; 8] = [
        [255, 0, 0],
        [0, 255, 0],
        [0, 0, 255],
        [128, 128, 128],
        [127, 127, 127],
        [200, 100, 50],  // Rec. 709 luma 117.65
        [160, 125, 90],  // Rec. 709 luma 129.91
        [130, 127, 127], // Rec. 709 luma 127.64, rounds to 128
    ];
    let image = RgbImage::from_vec(4, 2, pixels.concat()).unwrap();
    let bytes = png(image);
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [0, 1, 0, 1, 0, 0, 1, 1]);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1; 8]);
    assert_eq!(areas(&bytes, &blue(128)), [0, 0, 1, 1, 0, 0, 0, 0]);
    let red = DecodeRule::Channel {
        channel: ColorChannel::Red,
        threshold: 150,
    };
    assert_eq!(areas(&bytes, &red), [1, 0, 0, 0, 0, 1, 1, 0]);
    let green = DecodeRule::Channel {
        channel: ColorChannel::Green,
        threshold: 1,
    };
    assert_eq!(areas(&bytes, &green), [0, 1, 0, 1, 1, 1, 1, 1]);
    // Seed 000's convention: green and blue areas.
    assert_eq!(
        areas(&bytes, &colors(&[([0, 255, 0], 1), ([0, 0, 255], 2)])),
        [0, 1, 2, 0, 0, 0, 0, 0]
    );
    // The first entry for a colour wins.
    assert_eq!(
        areas(&bytes, &colors(&[([0, 255, 0], 4), ([0, 255, 0], 9)])),
        [0, 4, 0, 0, 0, 0, 0, 0]
    );
    assert!(matches!(
        WalkMask::decode(&bytes, &DecodeRule::Indexed),
        Err(MaskError::NotIndexed(_))
    ));
}

#[test]
fn rgba_8_bit_png() {
    let pixels: [[u8; 4]; 6] = [
        [255, 255, 255, 255],
        [255, 255, 255, 127],
        [0, 0, 0, 255],
        [0, 0, 0, 0],
        [10, 200, 30, 200],
        [255, 255, 255, 128],
    ];
    let bytes = png(RgbaImage::from_vec(3, 2, pixels.concat()).unwrap());
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [1, 0, 0, 0, 1, 1]);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1, 1, 1, 0, 1, 1]);
    let alpha_200 = DecodeRule::Channel {
        channel: ColorChannel::Alpha,
        threshold: 200,
    };
    assert_eq!(areas(&bytes, &alpha_200), [1, 0, 1, 0, 1, 0]);
    // Alpha is ignored by the colour table.
    assert_eq!(
        areas(&bytes, &colors(&[([255, 255, 255], 5)])),
        [5, 5, 0, 0, 0, 5]
    );
    assert!(matches!(
        WalkMask::decode(&bytes, &DecodeRule::Indexed),
        Err(MaskError::NotIndexed(_))
    ));
}

#[test]
fn grey_16_bit_png_scales_to_8_bits() {
    // 32767 rounds to 127 and 32768 to 128 on the 8-bit scale.
    let levels = vec![0u16, 32767, 32768, 65535, 32639, 40000];
    let bytes = png(DynamicImage::ImageLuma16(
        ImageBuffer::from_vec(3, 2, levels).unwrap(),
    ));
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [0, 0, 1, 1, 0, 1]);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1; 6]);
    // 40000 scales to 156.
    assert_eq!(areas(&bytes, &blue(157)), [0, 0, 0, 1, 0, 0]);
    assert_eq!(areas(&bytes, &blue(156)), [0, 0, 0, 1, 0, 1]);
    assert!(matches!(
        WalkMask::decode(&bytes, &DecodeRule::Indexed),
        Err(MaskError::NotIndexed(_))
    ));
}

#[test]
fn rgba_16_bit_png_scales_to_8_bits() {
    let pixels: [[u16; 4]; 4] = [
        [65535, 65535, 65535, 65535],
        [65535, 65535, 65535, 0],
        [0, 65535, 0, 32768],
        [0, 65535, 0, 32767],
    ];
    let bytes = png(DynamicImage::ImageRgba16(
        ImageBuffer::<Rgba<u16>, _>::from_vec(2, 2, pixels.concat()).unwrap(),
    ));
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [1, 0, 1, 0]);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), [1, 0, 1, 1]);
    assert_eq!(areas(&bytes, &colors(&[([0, 255, 0], 6)])), [0, 0, 6, 6]);
    let rgb16 = png(DynamicImage::ImageRgb16(
        ImageBuffer::<Rgb<u16>, _>::from_vec(2, 1, vec![0, 0, 65535, 65535, 65535, 0]).unwrap(),
    ));
    assert_eq!(areas(&rgb16, &blue(255)), [1, 0]);
    assert_eq!(areas(&rgb16, &DecodeRule::Luma), [0, 1]);
}

// ---------------------------------------------------------------------------------
// Palette PNGs
// ---------------------------------------------------------------------------------

#[test]
fn palette_png_1_bit() {
    // Nine pixels a row, so each row ends in a padded byte.
    let indices: Vec<u8> = (0..18).map(|i| u8::from(i % 3 == 0 || i == 17)).collect();
    let palette = [[0, 0, 0], [255, 255, 255]];
    let bytes = raw_png(
        9,
        2,
        png::ColorType::Indexed,
        png::BitDepth::One,
        &indices,
        Some(&palette),
        Some(&[0, 255]),
    );
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), indices);
    // The palette expands to colours for the other rules; index 0 is transparent.
    assert_eq!(areas(&bytes, &DecodeRule::Luma), indices);
    assert_eq!(areas(&bytes, &DecodeRule::Alpha), indices);
    let black: Vec<u8> = indices.iter().map(|&i| 2 * (1 - i)).collect();
    assert_eq!(areas(&bytes, &colors(&[([0, 0, 0], 2)])), black);
}

#[test]
fn palette_png_2_bit() {
    let indices: Vec<u8> = (0..15).map(|i| (i * 7 % 4) as u8).collect();
    let palette = [[0, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 0]];
    let bytes = raw_png(
        5,
        3,
        png::ColorType::Indexed,
        png::BitDepth::Two,
        &indices,
        Some(&palette),
        None,
    );
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), indices);
}

#[test]
fn palette_png_4_bit() {
    let indices: Vec<u8> = (0..15u8).map(|i| (i * 5 + 3) % 16).collect();
    let palette: Vec<[u8; 3]> = (0..16u8).map(|i| [i * 16, 255 - i * 16, i]).collect();
    let bytes = raw_png(
        5,
        3,
        png::ColorType::Indexed,
        png::BitDepth::Four,
        &indices,
        Some(&palette),
        None,
    );
    let mask = decode(&bytes, &DecodeRule::Indexed);
    assert_eq!((mask.width(), mask.height()), (5, 3));
    assert_eq!(mask.areas(), indices);
    // Colour of index 3 -> area 9.
    let expected: Vec<u8> = indices
        .iter()
        .map(|&i| if i == 3 { 9 } else { 0 })
        .collect();
    assert_eq!(areas(&bytes, &colors(&[(palette[3], 9)])), expected);
    // Red channel >= 128 means index >= 8.
    let red = DecodeRule::Channel {
        channel: ColorChannel::Red,
        threshold: 128,
    };
    let expected: Vec<u8> = indices.iter().map(|&i| u8::from(i >= 8)).collect();
    assert_eq!(areas(&bytes, &red), expected);
}

#[test]
fn palette_png_8_bit() {
    let indices: Vec<u8> = (0..14u32).map(|i| (i * 37 + 11) as u8).collect();
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, i, 255 - i]).collect();
    let bytes = raw_png(
        7,
        2,
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        &indices,
        Some(&palette),
        None,
    );
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), indices);
    let expected: Vec<u8> = indices.iter().map(|&i| u8::from(255 - i >= 128)).collect();
    assert_eq!(areas(&bytes, &blue(128)), expected);
}

#[test]
fn grey_4_bit_png_uses_the_sample_as_id() {
    let levels: Vec<u8> = (0..12u8).collect();
    let bytes = raw_png(
        4,
        3,
        png::ColorType::Grayscale,
        png::BitDepth::Four,
        &levels,
        None,
        None,
    );
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), levels);
    // Other rules see the level scaled to 8 bits (x 17): 8 * 17 = 136 is light.
    let expected: Vec<u8> = levels.iter().map(|&l| u8::from(l >= 8)).collect();
    assert_eq!(areas(&bytes, &DecodeRule::Luma), expected);
}

// ---------------------------------------------------------------------------------
// BMP and GIF
// ---------------------------------------------------------------------------------

#[test]
fn rgb_bmp() {
    let pixels: [[u8; 3]; 6] = [
        [255, 255, 255],
        [0, 0, 0],
        [0, 255, 0],
        [0, 0, 255],
        [128, 128, 128],
        [10, 20, 30],
    ];
    let bytes = encode(
        RgbImage::from_vec(3, 2, pixels.concat()).unwrap().into(),
        ImageFormat::Bmp,
    );
    assert_eq!(areas(&bytes, &DecodeRule::Luma), [1, 0, 1, 0, 1, 0]);
    assert_eq!(areas(&bytes, &blue(128)), [1, 0, 0, 1, 1, 0]);
    assert_eq!(
        areas(&bytes, &colors(&[([0, 255, 0], 1), ([0, 0, 255], 2)])),
        [0, 0, 1, 2, 0, 0]
    );
    assert!(matches!(
        WalkMask::decode(&bytes, &DecodeRule::Indexed),
        Err(MaskError::NotIndexed(_))
    ));
}

#[test]
fn palette_bmp_keeps_indices() {
    let indices: Vec<u8> = vec![0, 1, 2, 3, 15, 200, 3, 2, 1, 0];
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [0, 0, 255 - i]).collect();
    let bytes = palette_bmp(5, 2, &indices, &palette);
    let mask = decode(&bytes, &DecodeRule::Indexed);
    assert_eq!((mask.width(), mask.height()), (5, 2));
    assert_eq!(mask.areas(), indices);
    // Other rules see palette colours: blue = 255 - index.
    let expected: Vec<u8> = indices.iter().map(|&i| u8::from(255 - i >= 250)).collect();
    assert_eq!(areas(&bytes, &blue(250)), expected);
}

#[test]
fn gif_palette() {
    let palette = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0]];
    let indices: Vec<u8> = vec![0, 1, 2, 3, 3, 2, 1, 0, 1, 1, 0, 0];
    let bytes = gif((4, 3), &palette, (0, 0, 4, 3), &indices);
    let mask = decode(&bytes, &DecodeRule::Indexed);
    assert_eq!((mask.width(), mask.height()), (4, 3));
    assert_eq!(mask.areas(), indices);
    let light: Vec<u8> = indices
        .iter()
        .map(|&i| u8::from(i == 1 || i == 3))
        .collect();
    assert_eq!(areas(&bytes, &DecodeRule::Luma), light);
    let red: Vec<u8> = indices
        .iter()
        .map(|&i| if i == 2 { 4 } else { 0 })
        .collect();
    assert_eq!(areas(&bytes, &colors(&[([255, 0, 0], 4)])), red);
}

#[test]
fn gif_frame_smaller_than_the_screen() {
    let palette = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0]];
    let bytes = gif((5, 4), &palette, (2, 1, 2, 2), &[1, 2, 3, 1]);
    #[rustfmt::skip]
    let expected = [
        0, 0, 0, 0, 0,
        0, 0, 1, 2, 0,
        0, 0, 3, 1, 0,
        0, 0, 0, 0, 0,
    ];
    assert_eq!(areas(&bytes, &DecodeRule::Indexed), expected);
}

// ---------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------

#[test]
fn empty_bytes_are_an_image_error() {
    for rule in all_rules() {
        let result = WalkMask::decode(&[], &rule);
        assert!(
            matches!(result, Err(MaskError::Image(_))),
            "{rule:?}: {result:?}"
        );
    }
}

#[test]
fn garbage_is_an_image_error() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    for rule in all_rules() {
        let result = WalkMask::decode(&garbage, &rule);
        assert!(
            matches!(result, Err(MaskError::Image(_))),
            "{rule:?}: {result:?}"
        );
    }
}

/// A 64 x 64 image with some structure, so its compressed data is not tiny.
fn textured_rgba() -> RgbaImage {
    RgbaImage::from_fn(64, 64, |x, y| {
        Rgba([(x * 4) as u8, (y * 4) as u8, ((x ^ y) * 4) as u8, 255])
    })
}

#[test]
fn truncated_files_are_image_errors() {
    let indices: Vec<u8> = (0..64 * 64u32).map(|i| (i * 31 % 251) as u8).collect();
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, i, i]).collect();
    let cases = [
        ("rgba png", png(textured_rgba()), DecodeRule::Luma),
        ("rgba png", png(textured_rgba()), DecodeRule::Alpha),
        (
            "palette png",
            raw_png(
                64,
                64,
                png::ColorType::Indexed,
                png::BitDepth::Eight,
                &indices,
                Some(&palette),
                None,
            ),
            DecodeRule::Indexed,
        ),
        (
            "bmp",
            encode(textured_rgba().into(), ImageFormat::Bmp),
            DecodeRule::Luma,
        ),
        (
            "palette bmp",
            palette_bmp(64, 64, &indices, &palette),
            DecodeRule::Indexed,
        ),
        (
            "gif",
            gif((64, 64), &palette, (0, 0, 64, 64), &indices),
            DecodeRule::Indexed,
        ),
        (
            "gif",
            gif((64, 64), &palette, (0, 0, 64, 64), &indices),
            DecodeRule::Luma,
        ),
    ];
    for (name, bytes, rule) in cases {
        assert!(WalkMask::decode(&bytes, &rule).is_ok(), "{name} whole");
        let half = &bytes[..bytes.len() / 2];
        let result = WalkMask::decode(half, &rule);
        assert!(
            matches!(result, Err(MaskError::Image(_))),
            "{name} {rule:?}: {result:?}"
        );
    }
}

#[test]
fn zero_size_png_is_empty() {
    for (width, height) in [(0, 5), (5, 0), (0, 0)] {
        for rule in all_rules() {
            let result = WalkMask::decode(&forged_png(width, height), &rule);
            assert!(
                matches!(result, Err(MaskError::Empty { width: w, height: h }) if (w, h) == (width, height)),
                "{width} x {height} {rule:?}: {result:?}"
            );
        }
    }
}

#[test]
fn over_the_limits_is_too_large() {
    let limits = small_limits();
    // Each side fits, the pixel count does not.
    let few_pixels = MaskLimits {
        max_pixels: 63,
        ..limits
    };
    let indices = vec![1u8; 100];
    let palette = [[0, 0, 0], [255, 255, 255]];
    let one_bit_png = raw_png(
        4,
        10,
        png::ColorType::Indexed,
        png::BitDepth::One,
        &indices[..40],
        Some(&palette),
        None,
    );
    let gif_10 = gif((10, 10), &palette, (0, 0, 10, 10), &indices);
    let cases = [
        (
            "png",
            png(RgbaImage::new(10, 4)),
            DecodeRule::Luma,
            (10, 4),
            limits,
        ),
        (
            "palette png",
            one_bit_png,
            DecodeRule::Indexed,
            (4, 10),
            limits,
        ),
        (
            "bmp",
            encode(RgbImage::new(9, 2).into(), ImageFormat::Bmp),
            DecodeRule::Luma,
            (9, 2),
            limits,
        ),
        (
            "palette bmp",
            palette_bmp(2, 9, &indices[..18], &palette),
            DecodeRule::Indexed,
            (2, 9),
            limits,
        ),
        ("gif", gif_10.clone(), DecodeRule::Alpha, (10, 10), limits),
        ("gif", gif_10, DecodeRule::Indexed, (10, 10), limits),
        (
            "png",
            png(RgbaImage::new(8, 8)),
            DecodeRule::Alpha,
            (8, 8),
            few_pixels,
        ),
    ];
    for (name, bytes, rule, size, limits) in cases {
        assert!(
            WalkMask::decode(&bytes, &rule).is_ok(),
            "{name} in default limits"
        );
        let result = WalkMask::decode_with_limits(&bytes, &rule, &limits);
        assert!(
            matches!(result, Err(MaskError::TooLarge { width, height, .. }) if (width, height) == size),
            "{name} {rule:?}: {result:?}"
        );
    }
    // An image within the limits decodes with them.
    let ok = png(RgbaImage::new(8, 8));
    assert!(WalkMask::decode_with_limits(&ok, &DecodeRule::Alpha, &limits).is_ok());
}

#[test]
fn forged_huge_png_header_fails_fast() {
    let bytes = forged_png(100_000, 100_000);
    for rule in all_rules() {
        let start = std::time::Instant::now();
        let result = WalkMask::decode(&bytes, &rule);
        assert!(
            matches!(
                result,
                Err(MaskError::TooLarge {
                    width: 100_000,
                    height: 100_000,
                    ..
                })
            ),
            "{rule:?}: {result:?}"
        );
        // Nothing is decoded or allocated: this takes microseconds, not seconds.
        assert!(start.elapsed().as_millis() < 500, "{:?}", start.elapsed());
    }
    // Within the limits, a header with no pixel data behind it is an image error.
    let result = WalkMask::decode(&forged_png(2000, 1000), &DecodeRule::Luma);
    assert!(matches!(result, Err(MaskError::Image(_))), "{result:?}");
}

#[test]
fn indexed_rule_on_true_colour_is_not_indexed() {
    let rgb = png(RgbImage::from_pixel(3, 3, Rgb([1, 2, 3])));
    let result = WalkMask::decode(&rgb, &DecodeRule::Indexed);
    assert!(
        matches!(result, Err(MaskError::NotIndexed(_))),
        "{result:?}"
    );
    let message = result.unwrap_err().to_string();
    assert!(message.contains("an 8-bit RGB PNG"), "{message}");
    let grey16 = png(DynamicImage::ImageLuma16(ImageBuffer::from_pixel(
        2,
        2,
        Luma([7u16]),
    )));
    let result = WalkMask::decode(&grey16, &DecodeRule::Indexed);
    assert!(
        matches!(&result, Err(MaskError::NotIndexed(m)) if m.contains("16-bit greyscale")),
        "{result:?}"
    );
    let bmp = encode(RgbImage::new(2, 2).into(), ImageFormat::Bmp);
    let result = WalkMask::decode(&bmp, &DecodeRule::Indexed);
    assert!(
        matches!(&result, Err(MaskError::NotIndexed(m)) if m.contains("true-colour BMP")),
        "{result:?}"
    );
}

#[test]
fn open_missing_file_is_io_error() {
    let path = std::env::temp_dir().join("walkmask-no-such-dir/no-such-mask.png");
    let result = WalkMask::open(&path, &DecodeRule::Luma);
    match result {
        Err(MaskError::Io {
            path: shown,
            source,
        }) => {
            assert!(shown.contains("no-such-mask.png"), "{shown}");
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an Io error, got {other:?}"),
    }
    let result = WalkMask::open(path.with_extension("map"), &DecodeRule::Luma);
    assert!(matches!(result, Err(MaskError::Io { .. })), "{result:?}");
}

// ---------------------------------------------------------------------------------
// Moving AI maps
// ---------------------------------------------------------------------------------

const SMALL_MAP: &str = "type octile\nheight 3\nwidth 4\nmap\n.GS@\nTOW.\n....\n";
const SMALL_AREAS: [u8; 12] = [1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1];

#[test]
fn movingai_small_map() {
    let mask = WalkMask::parse_movingai(SMALL_MAP).unwrap();
    assert_eq!((mask.width(), mask.height()), (4, 3));
    assert_eq!(mask.areas(), SMALL_AREAS);
    assert_eq!(mask.count_walkable(&AreaSet::all()), 8);
}

#[test]
fn movingai_tolerates_crlf_trailing_space_and_blank_lines() {
    let variants = [
        SMALL_MAP.replace('\n', "\r\n"),
        "type octile  \nheight 3\t\nwidth 4\nmap \n.GS@  \nTOW.\t\n....\n\n\n".to_string(),
        SMALL_MAP.trim_end().to_string(),
        "type octile\r\nwidth 4\r\nheight 3\r\nmap\r\n.GS@\r\nTOW.\r\n....\r\n\r\n".to_string(),
    ];
    for text in variants {
        let mask = WalkMask::parse_movingai(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(mask.areas(), SMALL_AREAS, "{text:?}");
    }
}

#[test]
fn movingai_malformed() {
    let cases: [(&str, usize, &str); 12] = [
        ("", 1, "map"),
        ("type octile\nheight 3\nwidth 4\n", 4, "map"),
        ("type octile\nheight three\nwidth 4\nmap\n", 2, "three"),
        ("type octile\nheight 3\nwidth -4\nmap\n", 3, "-4"),
        ("type octile\nheight 3\nmap\n", 3, "width"),
        ("height 3\nwidth 4\nmap\n", 3, "type"),
        (
            "type octile\nheight 3\nheight 3\nwidth 4\nmap\n",
            3,
            "twice",
        ),
        ("type octile\nsize 3\nwidth 4\nmap\n", 2, "size"),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.GS@\nTOW\n....\n",
            6,
            "3 cells",
        ),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.GS@\nTOW..\n....\n",
            6,
            "5 cells",
        ),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.GS@\nTOW.\n",
            7,
            "2 rows",
        ),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.GS@\nTOW.\n....\n....\n",
            8,
            "after the last row",
        ),
    ];
    for (text, line, needle) in cases {
        match WalkMask::parse_movingai(text) {
            Err(MaskError::MovingAi { line: l, message }) => {
                assert_eq!(l, line, "{text:?}: {message}");
                assert!(message.contains(needle), "{text:?}: {message}");
            }
            other => panic!("{text:?}: expected a MovingAi error, got {other:?}"),
        }
    }
    let non_ascii = "type octile\nheight 1\nwidth 2\nmap\n.é\n";
    assert!(matches!(
        WalkMask::parse_movingai(non_ascii),
        Err(MaskError::MovingAi { line: 5, .. })
    ));
}

#[test]
fn movingai_sizes_are_checked_before_allocating() {
    let zero = "type octile\nheight 0\nwidth 4\nmap\n";
    assert!(matches!(
        WalkMask::parse_movingai(zero),
        Err(MaskError::Empty {
            width: 4,
            height: 0
        })
    ));
    let huge = "type octile\nheight 4000000000\nwidth 4000000000\nmap\n..\n";
    assert!(matches!(
        WalkMask::parse_movingai(huge),
        Err(MaskError::TooLarge { .. })
    ));
}

#[test]
fn movingai_arena_file() {
    let data = support::testdata();
    let path = data.join("movingai/maps/dao/arena.map");
    let mask = WalkMask::open(&path, &DecodeRule::Luma).unwrap();
    assert_eq!((mask.width(), mask.height()), (49, 49));
    assert_eq!(mask.count_walkable(&AreaSet::all()), 2054);
    // The border is trees.
    assert_eq!(mask.area_at(0, 0), Some(0));
    assert_eq!(mask.area_at(3, 1), Some(1));
}

// ---------------------------------------------------------------------------------
// Real adventure-game masks
// ---------------------------------------------------------------------------------

#[test]
fn monoags_masks_decode_by_alpha() {
    let data = support::testdata();
    let rooms = [
        ("BrokenCurbStreet", 4, (420, 200), 41_344),
        ("DarsStreet", 2, (500, 200), 38_618),
        ("EmptyStreet", 2, (320, 200), 29_120),
        ("TrashcanStreet", 1, (320, 200), 30_720),
    ];
    for (room, files, size, walkable) in rooms {
        let dir = data.join("walkmasks/monoags").join(room);
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("walkable") && n.ends_with(".png"))
            })
            .collect();
        paths.sort();
        assert_eq!(paths.len(), files, "{room}");
        let mut union = vec![0u8; (size.0 * size.1) as usize];
        for path in &paths {
            let mask = WalkMask::open(path, &DecodeRule::Alpha)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!((mask.width(), mask.height()), size, "{}", path.display());
            let count = mask.count_walkable(&AreaSet::all());
            assert!(count > 0, "{} has no walkable pixel", path.display());
            for (u, &a) in union.iter_mut().zip(mask.areas()) {
                *u |= a;
            }
        }
        let union = WalkMask::new(size.0, size.1, union).unwrap();
        assert_eq!(union.count_walkable(&AreaSet::all()), walkable, "{room}");
    }
}

// ---------------------------------------------------------------------------------
// Consistency and speed
// ---------------------------------------------------------------------------------

fn exact(entries: &[([u8; 3], u8)]) -> DecodeRule {
    match colors(entries) {
        DecodeRule::Colors(table) => DecodeRule::ExactColors(table),
        _ => unreachable!(),
    }
}

/// The exact-colour rule: listed colours become their ids, transparent pixels 0
/// whatever their colour, and the first pixel of a colour not listed is an error
/// naming the colour and the pixel, in PNG (true colour and palette), GIF and BMP.
#[test]
fn exact_colors_name_the_first_unmapped_colour_and_its_pixel() {
    let rug = [200, 40, 40];
    let door = [40, 40, 200];
    let stray = [201, 40, 40];
    let pixels: [[u8; 4]; 8] = [
        [0, 0, 0, 255],
        [200, 40, 40, 255],
        [40, 40, 200, 255],
        [9, 9, 9, 0], // transparent: unpainted
        [200, 40, 40, 255],
        [0, 0, 0, 255],
        [40, 40, 200, 255],
        [0, 0, 0, 255],
    ];
    let image = RgbaImage::from_vec(4, 2, pixels.concat()).unwrap();
    let table = exact(&[([0, 0, 0], 0), (rug, 1), (door, 2)]);
    assert_eq!(areas(&png(image.clone()), &table), [0, 1, 2, 0, 1, 0, 2, 0]);
    // A stray brush stroke at (2, 1) and (3, 1).
    let mut strayed = image.clone();
    strayed.put_pixel(2, 1, Rgba([stray[0], stray[1], stray[2], 255]));
    strayed.put_pixel(3, 1, Rgba([stray[0], stray[1], stray[2], 255]));
    // Without alpha, the unpainted pixel is painted black.
    let mut opaque = strayed.clone();
    opaque.put_pixel(3, 0, Rgba([0, 0, 0, 255]));
    let rgb = DynamicImage::ImageRgba8(opaque).to_rgb8();
    for (format, bytes) in [
        ("png", png(strayed.clone())),
        ("rgb png", png(rgb.clone())),
        (
            "gif",
            encode(DynamicImage::ImageRgb8(rgb.clone()), ImageFormat::Gif),
        ),
        (
            "bmp",
            encode(DynamicImage::ImageRgb8(rgb.clone()), ImageFormat::Bmp),
        ),
    ] {
        match WalkMask::decode(&bytes, &table) {
            Err(e @ MaskError::UnmappedColor { .. }) => {
                assert!(
                    matches!(
                        e,
                        MaskError::UnmappedColor {
                            rgb: [201, 40, 40],
                            x: 2,
                            y: 1
                        }
                    ),
                    "{format}: {e:?}"
                );
                assert_eq!(
                    e.to_string(),
                    "colour #c92828 (at pixel 2, 1) is in no entry of the colour table"
                );
            }
            other => panic!("{format}: {:?}", other.map(|m| m.areas().to_vec())),
        }
        // The lenient rule reads the same pixels as blocked.
        assert_eq!(
            areas(&bytes, &colors(&[(rug, 1), (door, 2)]))[6],
            0,
            "{format}"
        );
    }
    // A palette PNG with an unused palette entry of a colour not listed decodes.
    let palette = [[0u8, 0, 0], rug, door, [1, 2, 3]];
    let bytes = raw_png(
        4,
        1,
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        &[0, 1, 2, 1],
        Some(&palette),
        None,
    );
    assert_eq!(areas(&bytes, &table), [0, 1, 2, 1]);
}

proptest! {
    /// The exact-colour rule decodes as the lenient one when every opaque pixel's
    /// colour is listed, and otherwise fails at the first such pixel in row order,
    /// naming its colour.
    #[test]
    fn exact_colors_agree_with_colors_or_name_the_first_unlisted_pixel(
        width in 1u32..10,
        height in 1u32..10,
        pixels in proptest::collection::vec((0usize..5, any::<bool>()), 100),
        listed in proptest::collection::vec(any::<bool>(), 5),
    ) {
        let palette = [[0u8, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [90, 90, 90]];
        let image = RgbaImage::from_fn(width, height, |x, y| {
            let (c, opaque) = pixels[(y * width + x) as usize];
            let [r, g, b] = palette[c];
            Rgba([r, g, b, if opaque { 255 } else { 0 }])
        });
        let entries: Vec<([u8; 3], u8)> = (0..5)
            .filter(|&c| listed[c])
            .map(|c| (palette[c], c as u8 * 10))
            .collect();
        let bytes = png(image.clone());
        let first = image
            .enumerate_pixels()
            .find(|(_, _, p)| p[3] > 0 && !entries.iter().any(|(rgb, _)| rgb[..] == p.0[..3]));
        match (WalkMask::decode(&bytes, &exact(&entries)), first) {
            (Ok(mask), None) => {
                // Transparent pixels are 0 here; the lenient rule maps them by colour.
                let lenient = areas(&bytes, &colors(&entries));
                for ((&area, &lenient), p) in mask.areas().iter().zip(&lenient).zip(image.pixels()) {
                    prop_assert_eq!(area, if p[3] == 0 { 0 } else { lenient });
                }
            }
            (Err(MaskError::UnmappedColor { rgb, x, y }), Some((fx, fy, p))) => {
                prop_assert_eq!((rgb[..].to_vec(), x, y), (p.0[..3].to_vec(), fx, fy));
            }
            (got, expected) => prop_assert!(false, "{:?} vs {:?}", got.map(|m| m.areas().to_vec()), expected),
        }
    }

    /// The luma rule agrees with the `image` crate's own grey conversion.
    #[test]
    fn luma_rule_matches_the_image_crate(
        width in 1u32..12,
        height in 1u32..12,
        seed in any::<u64>(),
    ) {
        let mut state = seed | 1;
        let image = RgbaImage::from_fn(width, height, |_, _| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let [r, g, b, a, ..] = state.to_le_bytes();
            Rgba([r, g, b, a])
        });
        let grey = DynamicImage::ImageRgba8(image.clone()).to_luma_alpha8();
        let bytes = png(image.clone());
        let decoded = areas(&bytes, &DecodeRule::Luma);
        for ((source, converted), &area) in image.pixels().zip(grey.pixels()).zip(&decoded) {
            let [r, g, b, _] = source.0.map(u32::from);
            // Luma within 0.05 of 127.5: the crate's colour-space conversion (float
            // arithmetic) may land either side (254, 96, 67 is 127.497 and becomes 128).
            if (2126 * r + 7152 * g + 722 * b).abs_diff(1_275_000) <= 500 {
                continue;
            }
            prop_assert_eq!(area, u8::from(converted[0] >= 128 && converted[1] >= 128));
        }
    }
}

#[test]
fn full_hd_rgba_png_decodes_quickly() {
    // A room-sized mask: a walkable floor band with holes, on a transparent layer.
    let (width, height) = (1920u32, 1080u32);
    let walkable = |x: u32, y: u32| y >= 600 && !(x % 200 < 40 && y % 100 < 30);
    let image = RgbaImage::from_fn(width, height, |x, y| {
        if walkable(x, y) {
            Rgba([40, 220, 60, 255])
        } else {
            Rgba([0, 0, 0, 0])
        }
    });
    let expected = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| walkable(x, y))
        .count();
    let bytes = png(image);
    let start = std::time::Instant::now();
    let by_alpha = decode(&bytes, &DecodeRule::Alpha);
    let alpha_time = start.elapsed();
    let start = std::time::Instant::now();
    let by_luma = decode(&bytes, &DecodeRule::Luma);
    let luma_time = start.elapsed();
    println!("1920 x 1080 RGBA PNG: alpha rule {alpha_time:?}, luma rule {luma_time:?}");
    assert_eq!(by_alpha.count_walkable(&AreaSet::all()), expected);
    assert_eq!(by_luma.areas(), by_alpha.areas());
}
