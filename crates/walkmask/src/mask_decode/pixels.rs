//! From decoded pixels to area ids: the rules of [`DecodeRule`] applied to rows of
//! any sample layout, and to palettes.

use image::ColorType;

use crate::mask::{AreaColor, ColorChannel, DecodeRule, MaskError};

/// How 16-bit samples are stored in a decoded row.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ByteOrder {
    /// As `image::ImageDecoder::read_image` writes them.
    Native,
    /// As PNG stores them (and the `png` crate returns them).
    BigEndian,
}

/// A colour rule ([`DecodeRule`] other than `Indexed`, or `Indexed` on grey images)
/// as a function of an 8-bit RGBA pixel.
pub(super) enum PixelRule {
    Luma,
    Alpha,
    Channel {
        index: usize,
        threshold: u8,
    },
    Colors(ColorLookup),
    /// [`DecodeRule::ExactColors`]: also remembers the first pixel (its index among
    /// the pixels mapped) of a colour the table does not list.
    Exact {
        lookup: ColorLookup,
        seen: usize,
        unmapped: Option<(usize, [u8; 3])>,
    },
    /// The indexed rule on a grey image: the grey level is the id.
    Grey,
}

impl PixelRule {
    pub(super) fn new(rule: &DecodeRule) -> Self {
        match rule {
            DecodeRule::Luma => Self::Luma,
            DecodeRule::Alpha => Self::Alpha,
            DecodeRule::Channel { channel, threshold } => Self::Channel {
                index: match channel {
                    ColorChannel::Red => 0,
                    ColorChannel::Green => 1,
                    ColorChannel::Blue => 2,
                    ColorChannel::Alpha => 3,
                },
                threshold: *threshold,
            },
            DecodeRule::Colors(table) => Self::Colors(ColorLookup::new(table)),
            DecodeRule::ExactColors(table) => Self::Exact {
                lookup: ColorLookup::new(table),
                seen: 0,
                unmapped: None,
            },
            DecodeRule::Indexed => Self::Grey,
        }
    }

    /// The index (among the pixels mapped) and colour of the first pixel whose
    /// colour [`DecodeRule::ExactColors`] does not list.
    pub(super) fn unmapped(&self) -> Option<(usize, [u8; 3])> {
        match self {
            Self::Exact { unmapped, .. } => *unmapped,
            _ => None,
        }
    }

    /// The area of one pixel.
    #[inline]
    pub(super) fn area(&mut self, [r, g, b, a]: [u8; 4]) -> u8 {
        match self {
            Self::Luma => u8::from(a >= 128 && is_light(r, g, b)),
            Self::Alpha => u8::from(a > 0),
            Self::Channel { index, threshold } => u8::from([r, g, b, a][*index] >= *threshold),
            Self::Colors(lookup) => lookup.area(r, g, b).unwrap_or(0),
            Self::Exact {
                lookup,
                seen,
                unmapped,
            } => {
                let i = *seen;
                *seen += 1;
                if a == 0 {
                    return 0;
                }
                lookup.area(r, g, b).unwrap_or_else(|| {
                    unmapped.get_or_insert((i, [r, g, b]));
                    0
                })
            }
            Self::Grey => r,
        }
    }

    /// Appends the areas of the pixels in `row` (samples laid out as `color`) to
    /// `out`. An error for a pixel layout this does not know.
    pub(super) fn map_row(
        &mut self,
        row: &[u8],
        color: ColorType,
        order: ByteOrder,
        out: &mut Vec<u8>,
    ) -> Result<(), MaskError> {
        fn run<const N: usize>(
            row: &[u8],
            out: &mut Vec<u8>,
            mut area: impl FnMut(&[u8; N]) -> u8,
        ) {
            out.extend(row.as_chunks::<N>().0.iter().map(&mut area));
        }
        let s16 = |p: &[u8], i: usize| {
            let bytes = [p[2 * i], p[2 * i + 1]];
            to_8(match order {
                ByteOrder::Native => u16::from_ne_bytes(bytes),
                ByteOrder::BigEndian => u16::from_be_bytes(bytes),
            })
        };
        let f32s =
            |p: &[u8], i: usize| f32_to_8([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
        match color {
            ColorType::L8 => run::<1>(row, out, |&[l]| self.area([l, l, l, 255])),
            ColorType::La8 => run::<2>(row, out, |&[l, a]| self.area([l, l, l, a])),
            ColorType::Rgb8 => run::<3>(row, out, |&[r, g, b]| self.area([r, g, b, 255])),
            ColorType::Rgba8 => run::<4>(row, out, |&px| self.area(px)),
            ColorType::L16 => run::<2>(row, out, |p| {
                let l = s16(p, 0);
                self.area([l, l, l, 255])
            }),
            ColorType::La16 => run::<4>(row, out, |p| {
                let l = s16(p, 0);
                self.area([l, l, l, s16(p, 1)])
            }),
            ColorType::Rgb16 => run::<6>(row, out, |p| {
                self.area([s16(p, 0), s16(p, 1), s16(p, 2), 255])
            }),
            ColorType::Rgba16 => run::<8>(row, out, |p| {
                self.area([s16(p, 0), s16(p, 1), s16(p, 2), s16(p, 3)])
            }),
            ColorType::Rgb32F => run::<12>(row, out, |p| {
                self.area([f32s(p, 0), f32s(p, 1), f32s(p, 2), 255])
            }),
            ColorType::Rgba32F => run::<16>(row, out, |p| {
                self.area([f32s(p, 0), f32s(p, 1), f32s(p, 2), f32s(p, 3)])
            }),
            other => {
                return Err(MaskError::Image(image::ImageError::Unsupported(
                    image::error::UnsupportedError::from_format_and_kind(
                        image::error::ImageFormatHint::Unknown,
                        image::error::UnsupportedErrorKind::Color(other.into()),
                    ),
                )));
            }
        }
        Ok(())
    }
}

/// Area ids of the 256 palette indices, for palette images decoded by a colour rule:
/// entry `i` is the area of palette colour `i` (alpha from `alpha(i)`), and
/// [`PaletteAreas::OUTSIDE`] for indices past the end of the palette.
pub(super) struct PaletteAreas {
    table: [u16; 256],
    colors: usize,
}

impl PaletteAreas {
    const OUTSIDE: u16 = 256;

    /// `palette` holds RGB triples.
    pub(super) fn new(rule: &mut PixelRule, palette: &[u8], alpha: impl Fn(usize) -> u8) -> Self {
        let mut table = [Self::OUTSIDE; 256];
        let colors = (palette.len() / 3).min(256);
        for (i, rgb) in palette.as_chunks::<3>().0.iter().take(colors).enumerate() {
            table[i] = u16::from(rule.area([rgb[0], rgb[1], rgb[2], alpha(i)]));
        }
        Self { table, colors }
    }

    /// Replaces each palette index in `indices` by its area; fails on the first index
    /// past the end of the palette (`width` names its pixel).
    pub(super) fn map_in_place(
        &self,
        indices: &mut [u8],
        width: usize,
        what: &str,
    ) -> Result<(), MaskError> {
        for (i, v) in indices.iter_mut().enumerate() {
            let area = self.table[*v as usize];
            if area == Self::OUTSIDE {
                return Err(MaskError::Corrupt(format!(
                    "pixel ({}, {}) of the {what} uses palette index {}, but the palette has {} \
                     colours",
                    i % width.max(1),
                    i / width.max(1),
                    *v,
                    self.colors
                )));
            }
            *v = area as u8;
        }
        Ok(())
    }
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
fn to_8(v: u16) -> u8 {
    ((v as u32 + 128) / 257) as u8
}

/// A 32-bit float sample (0.0..=1.0) scaled to 8 bits, clamped.
#[inline]
fn f32_to_8(bytes: [u8; 4]) -> u8 {
    let v = f32::from_ne_bytes(bytes);
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Exact colour -> area lookup for [`DecodeRule::Colors`]; the first entry for a
/// colour wins. Remembers the last colour, since masks are mostly long runs of one
/// colour.
pub(super) struct ColorLookup {
    sorted: Vec<(u32, u8)>,
    last: Option<(u32, Option<u8>)>,
}

impl ColorLookup {
    fn new(table: &[AreaColor]) -> Self {
        let key = |[r, g, b]: [u8; 3]| (r as u32) << 16 | (g as u32) << 8 | b as u32;
        let mut sorted: Vec<(u32, u8)> = table.iter().map(|c| (key(c.rgb), c.area)).collect();
        // A stable sort keeps duplicates in table order, so dedup keeps the first.
        sorted.sort_by_key(|&(k, _)| k);
        sorted.dedup_by_key(|&mut (k, _)| k);
        Self { sorted, last: None }
    }

    /// The area of a colour, `None` for one the table does not list.
    #[inline]
    fn area(&mut self, r: u8, g: u8, b: u8) -> Option<u8> {
        let key = (r as u32) << 16 | (g as u32) << 8 | b as u32;
        if let Some((k, area)) = self.last
            && k == key
        {
            return area;
        }
        let area = self
            .sorted
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.sorted[i].1);
        self.last = Some((key, area));
        area
    }
}
