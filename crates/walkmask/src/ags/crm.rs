//! Compiled AGS rooms (`.crm`), room formats 32, 33 and 36306.
//!
//! A `.crm` file is a `u16` format number, then blocks (a one-byte id, a 16-byte name
//! when the id is 0, a 64-bit length, the payload) up to an 0xFF byte. Block 1 holds
//! the room: walk-behind baselines, hotspots, edges, objects, event handler names,
//! area scaling, region light and tint, then the background (LZSS) and the four masks
//! (run-length, each one stream over the whole mask). Integers are little-endian.

use super::{
    AgsArea, AgsEdges, AgsError, AgsHotspot, AgsRegion, AgsRoom, AgsScaling, AgsSource, AgsTint,
};
use crate::{MaskLimits, WalkMask};

/// Room formats read: 3.5.0's first (64-bit block lengths), 3.5.0.8 to 3.6.2's (mask
/// resolution), and 3.6.3's (a block of object extras beside an unchanged room).
const FORMAT_350: u16 = 32;
const FORMAT_3508: u16 = 33;
const FORMAT_363: u16 = 36306;

/// The id of the block that holds the room.
const MAIN_BLOCK: u8 = 1;

/// A cursor over the file's bytes that names the field it fails in.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], AgsError> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.data.len());
        let Some(end) = end else {
            return Err(AgsError::Truncated {
                what: what.to_string(),
                offset: self.at,
            });
        };
        let out = &self.data[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, AgsError> {
        Ok(self.take(1, what)?[0])
    }

    fn i16(&mut self, what: &str) -> Result<i16, AgsError> {
        let b = self.take(2, what)?;
        Ok(i16::from_le_bytes([b[0], b[1]]))
    }

    fn u16(&mut self, what: &str) -> Result<u16, AgsError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn i32(&mut self, what: &str) -> Result<i32, AgsError> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i64(&mut self, what: &str) -> Result<i64, AgsError> {
        let b = self.take(8, what)?;
        Ok(i64::from_le_bytes(b.try_into().expect("eight bytes")))
    }

    /// A count that must lie in `0..=max`.
    fn count(&mut self, value: i64, max: i64, what: &str) -> Result<usize, AgsError> {
        if (0..=max).contains(&value) {
            Ok(value as usize)
        } else {
            Err(malformed(what, value, &format!("a count of 0 to {max}")))
        }
    }

    /// A string of an `i32` length and that many bytes.
    fn string(&mut self, what: &str) -> Result<&'a [u8], AgsError> {
        let len = self.i32(what)? as i64;
        let remaining = (self.data.len() - self.at) as i64;
        let len = self.count(len, remaining, what)?;
        self.take(len, what)
    }

    /// A string ended by a 0 byte.
    fn c_string(&mut self, what: &str) -> Result<&'a [u8], AgsError> {
        let rest = &self.data[self.at..];
        let Some(len) = rest.iter().position(|&b| b == 0) else {
            return Err(AgsError::Truncated {
                what: what.to_string(),
                offset: self.at,
            });
        };
        let out = &rest[..len];
        self.at += len + 1;
        Ok(out)
    }
}

fn malformed(what: &str, value: impl std::fmt::Display, problem: &str) -> AgsError {
    AgsError::Malformed {
        what: what.to_string(),
        value: value.to_string(),
        problem: problem.to_string(),
    }
}

/// A block of the file: its id (0 for named blocks), name and payload.
struct Block<'a> {
    id: u8,
    name: &'a [u8],
    payload: &'a [u8],
}

/// The file's format number and its blocks.
fn blocks(data: &[u8]) -> Result<(u16, Vec<Block<'_>>), AgsError> {
    if data.len() < 3 {
        return Err(AgsError::NotARoom(format!(
            "{} bytes is too short for a room file",
            data.len()
        )));
    }
    let mut bytes = Bytes { data, at: 0 };
    let version = bytes.u16("the room format")?;
    let long_version = u32::from_le_bytes([data[0], data[1], data[2], *data.get(3).unwrap_or(&0)]);
    match version {
        FORMAT_350 | FORMAT_3508 | FORMAT_363 => {}
        // AGS 2.x to 3.4 wrote formats up to 29 (3.4.1's); 30 and 31 came with 3.4.
        1..FORMAT_350 => return Err(AgsError::OldFormat { version }),
        // AGS 4's compiled rooms start with a 32-bit format number of 4000000 on.
        _ if (4_000_000..5_000_000).contains(&long_version) => {
            return Err(AgsError::UnknownFormat {
                version: long_version,
            });
        }
        // A format after 36306 still starts with the room block.
        _ if data[2] == MAIN_BLOCK => {
            return Err(AgsError::UnknownFormat {
                version: version as u32,
            });
        }
        _ => {
            return Err(AgsError::NotARoom(
                "it does not start with a room format number and the room block".into(),
            ));
        }
    }
    let mut out = Vec::new();
    loop {
        let at = bytes.at;
        let id = bytes.u8("a block id")?;
        if id == 0xFF {
            break;
        }
        let name = if id == 0 {
            let raw = bytes.take(16, "a block name")?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(16);
            &raw[..end]
        } else {
            &[]
        };
        let len = bytes.i64("a block length")?;
        let remaining = (data.len() - bytes.at) as i64;
        let len = bytes.count(
            len,
            remaining,
            &format!("the length of the block at byte {at}"),
        )?;
        let payload = bytes.take(len, "a block")?;
        out.push(Block { id, name, payload });
    }
    Ok((version, out))
}

/// Reads a `.crm` room.
pub(super) fn read(data: &[u8], limits: &MaskLimits) -> Result<AgsRoom, AgsError> {
    let (version, blocks) = blocks(data)?;
    let utf8 = blocks
        .iter()
        .find(|b| b.id == 0 && b.name == b"ext_sopts")
        .map(|b| text_encoding_is_utf8(b.payload))
        .unwrap_or(false);
    let text = |raw: &[u8]| -> String {
        if utf8 {
            String::from_utf8_lossy(raw).into_owned()
        } else {
            // Before 3.6.0 rooms were in the game's 8-bit code page; Latin-1 keeps
            // ASCII names as they are.
            raw.iter().map(|&b| b as char).collect()
        }
    };
    let Some(main) = blocks.iter().find(|b| b.id == MAIN_BLOCK) else {
        return Err(AgsError::NotARoom("the file has no room block".into()));
    };
    let mut b = Bytes {
        data: main.payload,
        at: 0,
    };
    let bytes_per_pixel = b.i32("the background's bytes per pixel")?;
    if ![1, 2, 4].contains(&bytes_per_pixel) {
        return Err(malformed(
            "the background's bytes per pixel",
            bytes_per_pixel,
            "1, 2 or 4",
        ));
    }
    let n = b.i16("the walk-behind count")? as i64;
    let walk_behinds = b.count(n, 256, "the walk-behind count")?;
    let mut walk_behind_baselines = Vec::with_capacity(walk_behinds);
    for _ in 0..walk_behinds {
        walk_behind_baselines.push(b.i16("a walk-behind baseline")? as i32);
    }
    let n = b.i32("the hotspot count")? as i64;
    let hotspot_count = b.count(n, 256, "the hotspot count")?;
    let mut hotspots = vec![AgsHotspot::default(); hotspot_count];
    for hotspot in &mut hotspots {
        let x = b.i16("a hotspot's walk-to point")?;
        let y = b.i16("a hotspot's walk-to point")?;
        hotspot.walk_to = walk_to(x as i32, y as i32);
    }
    for hotspot in &mut hotspots {
        hotspot.name = text(b.string("a hotspot's name")?);
    }
    for hotspot in &mut hotspots {
        hotspot.script_name = text(b.string("a hotspot's script name")?);
    }
    let polygons = b.i32("the wall polygon count")?;
    if polygons != 0 {
        return Err(malformed(
            "the wall polygon count",
            polygons,
            "rooms since AGS 2.x have none; save the room again in AGS 3.6",
        ));
    }
    let top = b.i16("the top edge")? as i32;
    let bottom = b.i16("the bottom edge")? as i32;
    let left = b.i16("the left edge")? as i32;
    let right = b.i16("the right edge")? as i32;
    let n = b.i16("the object count")? as i64;
    let objects = b.count(n, i16::MAX as i64, "the object count")?;
    b.take(objects * 10, "the objects")?;
    let n = b.i32("the interaction variable count")? as i64;
    let variables = b.count(n, 10_000, "the interaction variable count")?;
    b.take(variables * 28, "the interaction variables")?;
    let n = b.i32("the region count")? as i64;
    let region_count = b.count(n, 256, "the region count")?;
    let events = |b: &mut Bytes<'_>, what: &str| -> Result<(), AgsError> {
        let n = b.i32(what)? as i64;
        let n = b.count(n, 1000, what)?;
        for _ in 0..n {
            b.c_string(what)?;
        }
        Ok(())
    };
    events(&mut b, "the room's event handlers")?;
    for _ in 0..hotspot_count {
        events(&mut b, "a hotspot's event handlers")?;
    }
    for _ in 0..objects {
        events(&mut b, "an object's event handlers")?;
    }
    for _ in 0..region_count {
        events(&mut b, "a region's event handlers")?;
    }
    b.take(objects * 4, "the object baselines")?;
    let width = b.i16("the room width")?;
    let height = b.i16("the room height")?;
    if width <= 0 || height <= 0 {
        return Err(malformed(
            "the room size",
            format!("{width} x {height}"),
            "a room is at least one pixel each way",
        ));
    }
    let (width, height) = (width as u32, height as u32);
    b.take(objects * 2, "the object flags")?;
    let resolution = b.i16("the mask resolution")?;
    let n = b.i32("the walkable area count")? as i64;
    let area_count = b.count(n, 256, "the walkable area count")?;
    let mut far = Vec::with_capacity(area_count);
    for _ in 0..area_count {
        far.push(b.i16("an area's scaling")? as i32);
    }
    b.take(area_count * 2, "the areas' light levels")?;
    let mut near = Vec::with_capacity(area_count);
    for _ in 0..area_count {
        near.push(b.i16("an area's near scaling")? as i32);
    }
    // The areas' top and bottom rows: the editor's record of the mask, which is
    // read below.
    b.take(area_count * 4, "the areas' top and bottom rows")?;
    let areas = far
        .iter()
        .zip(&near)
        .map(|(&far, &near)| AgsArea {
            scaling: if near == -10000 || near == far {
                AgsScaling::Fixed(far + 100)
            } else {
                AgsScaling::Continuous {
                    far: far + 100,
                    near: near + 100,
                }
            },
        })
        .collect();
    b.take(11, "the password")?;
    b.take(10, "the room options")?;
    let n = b.i16("the message count")? as i64;
    let messages = b.count(n, i16::MAX as i64, "the message count")?;
    b.i32("the game id")?;
    b.take(messages * 2, "the messages' flags")?;
    for _ in 0..messages {
        b.string("a message")?;
    }
    let animations = b.i16("the animation count")?;
    if animations != 0 {
        return Err(malformed(
            "the room animation count",
            animations,
            "rooms since AGS 2.x have none; save the room again in AGS 3.6",
        ));
    }
    b.take(area_count * 2, "the areas' shading")?;
    let mut light = Vec::with_capacity(region_count);
    for _ in 0..region_count {
        light.push(b.i16("a region's light level")? as i32);
    }
    let mut regions = Vec::with_capacity(region_count);
    for light in light {
        let tint = b.i32("a region's tint")? as u32;
        let [red, green, blue, saturation] = tint.to_le_bytes();
        regions.push(if tint == 0 {
            AgsRegion { light, tint: None }
        } else {
            // While a region is tinted, its light field holds the tint's luminance.
            AgsRegion {
                light: 0,
                tint: Some(AgsTint {
                    red,
                    green,
                    blue,
                    saturation,
                    luminance: light.clamp(0, 100) as u8,
                }),
            }
        });
    }
    let background = background(&mut b, bytes_per_pixel as usize, width, height, limits)?;
    let region_mask = mask(&mut b, "the region mask", limits)?;
    let walkable = mask(&mut b, "the walkable area mask", limits)?;
    let walk_behind_mask = mask(&mut b, "the walk-behind mask", limits)?;
    let hotspot_mask = mask(&mut b, "the hotspot mask", limits)?;
    for (what, m) in [
        ("the region mask", &region_mask),
        ("the hotspot mask", &hotspot_mask),
    ] {
        if (m.width(), m.height()) != (walkable.width(), walkable.height()) {
            return Err(malformed(
                what,
                format!("{} x {}", m.width(), m.height()),
                &format!(
                    "the walkable area mask is {} x {}",
                    walkable.width(),
                    walkable.height()
                ),
            ));
        }
    }
    if (walk_behind_mask.width(), walk_behind_mask.height()) != (width, height) {
        return Err(malformed(
            "the walk-behind mask",
            format!(
                "{} x {}",
                walk_behind_mask.width(),
                walk_behind_mask.height()
            ),
            &format!("the room is {width} x {height}"),
        ));
    }
    // Format 33 on store the mask resolution; format 32 a "resolution type" instead:
    // there, as a check on both, the masks' size says it.
    let mask_resolution = if version >= FORMAT_3508 {
        resolution as i32
    } else {
        (width / walkable.width()) as i32
    };
    if !(1..=4).contains(&mask_resolution) || walkable.width() != width / mask_resolution as u32 {
        return Err(malformed(
            "the mask resolution",
            mask_resolution,
            &format!(
                "1 to 4, the room's size ({width} x {height}) over the walkable mask's ({} x {})",
                walkable.width(),
                walkable.height()
            ),
        ));
    }
    Ok(AgsRoom {
        source: AgsSource::Crm { version },
        width,
        height,
        mask_resolution: mask_resolution as u32,
        background: Some(background),
        walkable,
        hotspot_mask,
        region_mask,
        walk_behind_mask,
        hotspots,
        areas,
        regions,
        walk_behind_baselines,
        edges: AgsEdges {
            left,
            right,
            top,
            bottom,
        },
    })
}

/// Whether the string options block says the room's text is UTF-8 (code page 65001).
fn text_encoding_is_utf8(payload: &[u8]) -> bool {
    let mut b = Bytes {
        data: payload,
        at: 0,
    };
    let Ok(n) = b.i32("") else { return false };
    for _ in 0..n.clamp(0, 1000) {
        let (Ok(key), Ok(value)) = (b.string(""), b.string("")) else {
            return false;
        };
        if key == b"textencoding" {
            return value == b"65001";
        }
    }
    false
}

/// A walk-to point; (0, 0) and (-1, -1) mean none.
pub(super) fn walk_to(x: i32, y: i32) -> Option<(i32, i32)> {
    match (x, y) {
        (0, 0) | (-1, -1) => None,
        p => Some(p),
    }
}

/// A background: a 1024-byte palette (6-bit components), the unpacked and packed
/// sizes, then an LZSS stream that unpacks to the row length, the height and the
/// rows.
fn background(
    b: &mut Bytes<'_>,
    bytes_per_pixel: usize,
    width: u32,
    height: u32,
    limits: &MaskLimits,
) -> Result<image::RgbaImage, AgsError> {
    let what = "the background";
    let palette = b.take(1024, "the background's palette")?;
    let unpacked = b.i32("the background's unpacked size")? as i64;
    let packed = b.i32("the background's packed size")? as i64;
    let row = width as usize * bytes_per_pixel;
    let expected = 8 + row as u64 * height as u64;
    if unpacked as u64 != expected || unpacked < 0 {
        return Err(malformed(
            "the background's unpacked size",
            unpacked,
            &format!(
                "{width} x {height} at {bytes_per_pixel} bytes a pixel, with its 8-byte header, is {expected}"
            ),
        ));
    }
    if expected + (width as u64 * height as u64 * 4) > limits.max_alloc_bytes {
        return Err(AgsError::Mask {
            what: what.into(),
            source: crate::MaskError::OverBudget {
                needed: expected + width as u64 * height as u64 * 4,
                budget: limits.max_alloc_bytes,
            },
        });
    }
    let remaining = (b.data.len() - b.at) as i64;
    let packed = b.count(packed, remaining, "the background's packed size")?;
    let stream = b.take(packed, what)?;
    let pixels = lzss(stream, expected as usize).ok_or_else(|| AgsError::Background {
        path: what.into(),
        detail: format!("its LZSS stream of {packed} bytes does not unpack to {expected}"),
    })?;
    let header_row = i32::from_le_bytes(pixels[0..4].try_into().expect("four bytes"));
    let header_height = i32::from_le_bytes(pixels[4..8].try_into().expect("four bytes"));
    if header_row as i64 != row as i64 || header_height as i64 != height as i64 {
        return Err(malformed(
            "the background's header",
            format!("{header_row} bytes a row, {header_height} rows"),
            &format!("the room is {width} x {height} at {bytes_per_pixel} bytes a pixel"),
        ));
    }
    let pixels = &pixels[8..];
    let six_bit = |v: u8| (v & 63) << 2;
    let image = image::RgbaImage::from_fn(width, height, |x, y| {
        let at = y as usize * row + x as usize * bytes_per_pixel;
        let p = &pixels[at..at + bytes_per_pixel];
        match bytes_per_pixel {
            // B, G, R and a byte that is not alpha.
            4 => image::Rgba([p[2], p[1], p[0], 255]),
            2 => {
                let v = u16::from_le_bytes([p[0], p[1]]);
                let (r, g, b) = ((v >> 11) & 31, (v >> 5) & 63, v & 31);
                image::Rgba([
                    ((r << 3) | (r >> 2)) as u8,
                    ((g << 2) | (g >> 4)) as u8,
                    ((b << 3) | (b >> 2)) as u8,
                    255,
                ])
            }
            _ => {
                let i = p[0] as usize * 4;
                image::Rgba([
                    six_bit(palette[i]),
                    six_bit(palette[i + 1]),
                    six_bit(palette[i + 2]),
                    255,
                ])
            }
        }
    });
    Ok(image)
}

/// Unpacks AGS's LZSS stream to exactly `size` bytes: control bytes of eight flags
/// (lowest first); a set flag is a 16-bit word of a distance back (low 12 bits + 1) and
/// a length (high 4 bits + 3), a clear one a literal byte. `None` when the stream ends
/// early or points before the start.
pub(super) fn lzss(stream: &[u8], size: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(size);
    let mut at = 0;
    while out.len() < size {
        let control = *stream.get(at)?;
        at += 1;
        for bit in 0..8 {
            if out.len() >= size {
                break;
            }
            if control & (1 << bit) != 0 {
                let word = u16::from_le_bytes([*stream.get(at)?, *stream.get(at + 1)?]);
                at += 2;
                let distance = (word & 0x0FFF) as usize + 1;
                let length = (word >> 12) as usize + 3;
                let start = out.len().checked_sub(distance)?;
                for i in 0..length.min(size - out.len()) {
                    out.push(out[start + i]);
                }
            } else {
                out.push(*stream.get(at)?);
                at += 1;
            }
        }
    }
    Some(out)
}

/// A mask: its `i16` width and height, a run-length stream of `width * height` bytes
/// (runs may cross row ends), then a 768-byte palette.
fn mask(b: &mut Bytes<'_>, what: &str, limits: &MaskLimits) -> Result<WalkMask, AgsError> {
    let width = b.i16(what)?;
    let height = b.i16(what)?;
    if width <= 0 || height <= 0 {
        return Err(malformed(
            &format!("{what}'s size"),
            format!("{width} x {height}"),
            "a mask is at least one pixel each way",
        ));
    }
    let size = width as usize * height as usize;
    if size as u64 > limits.max_pixels
        || width as u32 > limits.max_width
        || height as u32 > limits.max_height
    {
        return Err(AgsError::Mask {
            what: what.into(),
            source: crate::MaskError::TooLarge {
                width: width as u32,
                height: height as u32,
                limits: *limits,
            },
        });
    }
    let mut pixels = Vec::with_capacity(size);
    while pixels.len() < size {
        let code = b.u8(what)? as i8;
        if code < 0 && code != i8::MIN {
            let count = 1 - code as i32;
            let value = b.u8(what)?;
            pixels.extend(std::iter::repeat_n(value, count as usize));
        } else {
            // 0..=127: that many literal bytes and one more; -128 is one literal.
            let count = if code == i8::MIN {
                1
            } else {
                code as usize + 1
            };
            pixels.extend_from_slice(b.take(count, what)?);
        }
    }
    if pixels.len() != size {
        return Err(malformed(
            what,
            format!("{} bytes of runs", pixels.len()),
            &format!("a run passes the end of the {width} x {height} mask"),
        ));
    }
    b.take(768, &format!("{what}'s palette"))?;
    WalkMask::with_limits(width as u32, height as u32, pixels, limits).map_err(|source| {
        AgsError::Mask {
            what: what.into(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lzss_copies_overlapping_runs_and_stops_at_the_size() {
        // Literal 'a', then a copy of distance 1, length 5: "aaaaaa"; then one more
        // control byte that is never read past the size.
        let stream = [0b0000_0010, b'a', 0x00, 0x20];
        assert_eq!(lzss(&stream, 6).unwrap(), b"aaaaaa");
        assert_eq!(lzss(&stream, 4).unwrap(), b"aaaa");
        // A copy from before the start, or a stream that ends early, is none.
        assert_eq!(lzss(&[0b0000_0001, 0x00, 0x00], 3), None);
        assert_eq!(lzss(&[0b0000_0000, b'a'], 2), None);
    }

    #[test]
    fn a_mask_run_may_cross_a_row_end() {
        // 3 x 2: one run of five 7s, then one literal 1.
        let mut data = vec![3, 0, 2, 0, (-4i8) as u8, 7, 0, 1];
        data.extend([0; 768]);
        let mut b = Bytes { data: &data, at: 0 };
        let m = mask(&mut b, "test", &MaskLimits::default()).unwrap();
        assert_eq!(m.areas(), &[7, 7, 7, 7, 7, 1]);
        assert_eq!(b.at, data.len());
    }

    #[test]
    fn a_run_past_the_end_is_an_error_that_says_so() {
        let mut data = vec![2, 0, 1, 0, (-4i8) as u8, 7];
        data.extend([0; 768]);
        let mut b = Bytes { data: &data, at: 0 };
        let err = mask(&mut b, "the walkable area mask", &MaskLimits::default()).unwrap_err();
        assert!(err.to_string().contains("passes the end"), "{err}");
    }

    #[test]
    fn old_and_unknown_formats_say_what_to_do() {
        let err = read(&[29, 0, 0xFF], &MaskLimits::default()).unwrap_err();
        assert!(err.to_string().contains("AGS 3.6"), "{err}");
        let err = read(&[0x00, 0x09, 0x3D, 0x00, 0xFF], &MaskLimits::default()).unwrap_err();
        assert!(err.to_string().contains("room folder"), "{err}");
        let err = read(&[0x00, 0x90, 0x01, 0x00, 0xFF], &MaskLimits::default()).unwrap_err();
        assert!(err.to_string().contains("36864"), "{err}");
        let err = read(b"# a README", &MaskLimits::default()).unwrap_err();
        assert!(matches!(err, AgsError::NotARoom(_)), "{err}");
        let err = read(&[33], &MaskLimits::default()).unwrap_err();
        assert!(matches!(err, AgsError::NotARoom(_)), "{err}");
    }
}
