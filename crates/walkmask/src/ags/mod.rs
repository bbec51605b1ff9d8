//! Adventure Game Studio rooms: compiled `.crm` files (AGS 3.5.0 to 3.6.3) and AGS 4
//! room folders (`data.xml` and its PNG masks), read into an [`AgsRoom`] and mapped onto
//! a [`RoomFile`] and its layer images.
//!
//! An AGS room holds exactly the layers a walkmask room has: walkable areas (with
//! per-area scaling), hotspots (names and walk-to points), regions (light level and
//! tint), walk-behinds (baselines), the room's edges and a mask resolution of 1 to 4.
//! Masks are 8-bit images of ids (0 = none); the walk-behind mask is the room's size,
//! the other three the room's size divided by the mask resolution.
//!
//! ```no_run
//! use walkmask::ags::AgsRoom;
//!
//! let room = AgsRoom::read_crm(&std::fs::read("room3.crm")?)?;
//! println!("{} x {}, {} hotspots", room.width, room.height, room.hotspot_ids().len());
//! let (room_file, images) = room.to_room_file("room3");
//! std::fs::write("room3.room.ron", room_file.to_ron()?)?;
//! for (name, png) in images {
//!     std::fs::write(name, png)?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What it keeps of each room, and how AGS's conventions map:
//!
//! - counts in the file are capacities (50 hotspots, 16 areas, regions and
//!   walk-behinds): an id is in the room when it has pixels in its mask;
//! - a walk-to point of (0, 0) or (-1, -1) means none; others become the centre of
//!   their pixel;
//! - an area's scaling is constant when its near value is -10000 or equals its far one,
//!   else linear from the far value at the area's top row to the near value at its
//!   bottom row (zoom percent = stored value + 100 in `.crm` files);
//! - region light levels (-100 to 100, 0 = unchanged) become factors (0 to 2);
//! - edges left at the room's border (AGS's defaults) are no edges;
//! - the background's fourth byte is not alpha: backgrounds are opaque.

mod crm;
mod folder;

use std::collections::BTreeMap;

use crate::room_file::{self, IdLayer, MaskImage, RoomFile, Scale};
use crate::{DecodeRule, MaskError, WalkMask};

/// Where an [`AgsRoom`] was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgsSource {
    /// A compiled `.crm` room of this room format (32 and 33: AGS 3.5.0 to 3.6.2;
    /// 36306: AGS 3.6.3).
    Crm {
        /// The room format number at the start of the file.
        version: u16,
    },
    /// An AGS 4 room folder whose `data.xml` has this `Version` attribute.
    Folder {
        /// The `Room` element's `Version` attribute.
        version: String,
    },
}

/// An Adventure Game Studio room: its size, background, the four masks and what their
/// ids mean.
#[derive(Clone, Debug)]
pub struct AgsRoom {
    /// What it was read from.
    pub source: AgsSource,
    /// Width in room pixels.
    pub width: u32,
    /// Height in room pixels.
    pub height: u32,
    /// Room pixels per mask pixel of the walkable, hotspot and region masks (1 to 4).
    pub mask_resolution: u32,
    /// The first background, opaque.
    pub background: Option<image::RgbaImage>,
    /// Walkable areas: ids 1 to 15, the room's size divided by the mask resolution.
    pub walkable: WalkMask,
    /// Hotspots: ids 1 to 49, the size of [`AgsRoom::walkable`].
    pub hotspot_mask: WalkMask,
    /// Regions: ids 1 to 15, the size of [`AgsRoom::walkable`].
    pub region_mask: WalkMask,
    /// Walk-behinds: ids 1 to 15, the room's size.
    pub walk_behind_mask: WalkMask,
    /// Hotspots by id (index 0 is "no hotspot"), as many as the file has room for.
    pub hotspots: Vec<AgsHotspot>,
    /// Walkable areas by id (index 0 is blocked floor).
    pub areas: Vec<AgsArea>,
    /// Regions by id (index 0 is "no region").
    pub regions: Vec<AgsRegion>,
    /// Walk-behind baselines by id, room pixel rows (index 0 is "none").
    pub walk_behind_baselines: Vec<i32>,
    /// The room's edges.
    pub edges: AgsEdges,
}

/// A hotspot of an AGS room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgsHotspot {
    /// The name the player sees (AGS's description).
    pub name: String,
    /// The name scripts use (`hDoor`).
    pub script_name: String,
    /// Where a character stands to use it, room pixels; `None` when the room has
    /// (0, 0) or (-1, -1) there.
    pub walk_to: Option<(i32, i32)>,
}

/// How a walkable area scales the characters in it, zoom percent (100 = unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgsScaling {
    /// The same zoom everywhere in the area.
    Fixed(i32),
    /// `far` at the area's top row, `near` at its bottom row, linear in between.
    Continuous {
        /// Zoom at the top row.
        far: i32,
        /// Zoom at the bottom row.
        near: i32,
    },
}

/// A walkable area of an AGS room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgsArea {
    /// Its scaling.
    pub scaling: AgsScaling,
}

/// A region of an AGS room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgsRegion {
    /// Light level, -100 (black) to 100 (twice as bright); 0 = unchanged.
    pub light: i32,
    /// A colour tint, when the region has one.
    pub tint: Option<AgsTint>,
}

/// A region's colour tint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgsTint {
    /// Red, 0 to 255.
    pub red: u8,
    /// Green, 0 to 255.
    pub green: u8,
    /// Blue, 0 to 255.
    pub blue: u8,
    /// How much of the tint is applied, 0 to 100.
    pub saturation: u8,
    /// The tinted character's brightness, 0 to 100.
    pub luminance: u8,
}

/// The room's edges: room pixel columns (left, right) and rows (top, bottom) beyond
/// which a character walks off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgsEdges {
    /// Left edge column.
    pub left: i32,
    /// Right edge column.
    pub right: i32,
    /// Top edge row.
    pub top: i32,
    /// Bottom edge row.
    pub bottom: i32,
}

/// Why an AGS room could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AgsError {
    /// Too short, or not an AGS room at all.
    #[error("not an Adventure Game Studio room: {0}")]
    NotARoom(String),
    /// A room format before AGS 3.5.0.
    #[error(
        "room format {version} was written by an AGS older than 3.5.0, which this reader does not read: open the game in AGS 3.6 and save the room again"
    )]
    OldFormat {
        /// The room format number.
        version: u16,
    },
    /// A room format this reader does not know (AGS 4's compiled rooms, or a format
    /// after 3.6.3's 36306).
    #[error(
        "room format {version} is not one this reader knows (32, 33 and 36306: AGS 3.5.0 to 3.6.3); for an AGS 4 game, import its room folder (Rooms/N with data.xml) instead"
    )]
    UnknownFormat {
        /// The room format number.
        version: u32,
    },
    /// The file ends inside a field.
    #[error("room file ends inside {what} (at byte {offset})")]
    Truncated {
        /// The field.
        what: String,
        /// Where it ended.
        offset: usize,
    },
    /// A field holds a value the format does not allow.
    #[error("room file: {what} is {value}: {problem}")]
    Malformed {
        /// The field.
        what: String,
        /// Its value.
        value: String,
        /// Why it cannot be.
        problem: String,
    },
    /// A mask or the background is larger than the limits allow, or empty.
    #[error("room file: {what}: {source}")]
    Mask {
        /// Which image.
        what: String,
        /// The underlying error.
        #[source]
        source: MaskError,
    },
    /// `data.xml` is not well-formed XML, or lacks a field.
    #[error("data.xml: {0}")]
    Xml(String),
    /// A file of a room folder could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A background picture could not be decoded.
    #[error("could not decode the background {path}: {detail}")]
    Background {
        /// The file or field.
        path: String,
        /// What went wrong.
        detail: String,
    },
}

/// The 16 EGA colours AGS paints masks with (palette index = id), as AGS writes them
/// to PNG files.
pub const EGA_PALETTE: [[u8; 3]; 16] = [
    [0, 0, 0],
    [0, 0, 168],
    [0, 168, 0],
    [0, 168, 168],
    [168, 0, 0],
    [168, 0, 168],
    [168, 84, 0],
    [168, 168, 168],
    [84, 84, 84],
    [84, 84, 252],
    [84, 252, 84],
    [84, 252, 252],
    [252, 84, 84],
    [252, 84, 252],
    [252, 252, 84],
    [252, 252, 252],
];

impl AgsRoom {
    /// Reads a compiled `.crm` room (AGS 3.5.0 to 3.6.3) within the core's default
    /// [`crate::MaskLimits`].
    pub fn read_crm(bytes: &[u8]) -> Result<Self, AgsError> {
        crm::read(bytes, &crate::MaskLimits::default())
    }

    /// As [`AgsRoom::read_crm`], within `limits` for the masks and the background.
    pub fn read_crm_with_limits(
        bytes: &[u8],
        limits: &crate::MaskLimits,
    ) -> Result<Self, AgsError> {
        crm::read(bytes, limits)
    }

    /// Reads an AGS 4 room folder (`data.xml`, `background0.png`, `walkableareas.png`,
    /// `hotspots.png`, `regions.png`, `walkbehinds.png`) from disk.
    pub fn read_folder(dir: &std::path::Path) -> Result<Self, AgsError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| AgsError::Io {
                path: path.display().to_string(),
                source,
            })
        };
        let xml = read("data.xml")?;
        let xml =
            String::from_utf8(xml).map_err(|e| AgsError::Xml(format!("not UTF-8 text: {e}")))?;
        folder::read(&xml, read, &crate::MaskLimits::default())
    }

    /// Reads an AGS 4 room folder given the text of its `data.xml` and a function that
    /// reads the folder's other files by name (for readers that are not the file
    /// system, such as a game engine's asset reader), within `limits`.
    pub fn read_folder_with(
        data_xml: &str,
        read: impl FnMut(&str) -> Result<Vec<u8>, AgsError>,
        limits: &crate::MaskLimits,
    ) -> Result<Self, AgsError> {
        folder::read(data_xml, read, limits)
    }

    /// The hotspot ids painted in the hotspot mask, ascending.
    pub fn hotspot_ids(&self) -> Vec<u8> {
        present(&self.hotspot_mask)
    }

    /// The room as a [`RoomFile`] named `name`, and the images it names (file name,
    /// PNG bytes): the background (`NAME.png`), the walk mask (`NAME.walk.png`) and
    /// the id layers that have any ids (`NAME.hotspots.ids.png`,
    /// `NAME.regions.ids.png`, `NAME.behind.ids.png`), all 8-bit indexed with the EGA
    /// colours, index = id.
    pub fn to_room_file(&self, name: &str) -> (RoomFile, Vec<(String, Vec<u8>)>) {
        let room = self.room_file(name);
        let mut images = vec![(room.walk_mask.image.clone(), mask_png(&self.walkable))];
        if let (Some(picture), Some(background)) = (&room.picture, &self.background) {
            let mut png = Vec::new();
            // Writing an in-memory RGBA8 PNG cannot fail.
            background
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .expect("an RGBA8 image encodes as PNG");
            images.push((picture.clone(), png));
        }
        if let Some(layer) = &room.hotspots {
            images.push((layer.image.clone(), mask_png(&self.hotspot_mask)));
        }
        if let Some(layer) = &room.regions {
            images.push((layer.image.clone(), mask_png(&self.region_mask)));
        }
        if let Some(layer) = &room.walk_behinds {
            images.push((layer.image.clone(), mask_png(&self.walk_behind_mask)));
        }
        (room, images)
    }

    /// The room as a [`RoomFile`] named `name`, its images named as
    /// [`AgsRoom::to_room_file`] names them (for a reader that takes the masks as they
    /// are, without writing them).
    pub fn room_file(&self, name: &str) -> RoomFile {
        let walk_name = format!("{name}.walk.png");
        let mut room = RoomFile::new((self.width, self.height), walk_name.clone());
        room.walk_mask = MaskImage {
            image: walk_name,
            rule: DecodeRule::Indexed,
            scale: self.mask_resolution,
        };
        if self.background.is_some() {
            room.picture = Some(format!("{name}.png"));
        }
        for id in present(&self.walkable) {
            let scaling = self
                .areas
                .get(id as usize)
                .map(|a| a.scaling)
                .unwrap_or(AgsScaling::Fixed(100));
            room.areas.insert(
                id,
                room_file::Area {
                    name: String::new(),
                    enabled: true,
                    scale: scale_of(scaling),
                },
            );
        }
        let hotspot_ids = present(&self.hotspot_mask);
        if !hotspot_ids.is_empty() {
            let image = format!("{name}.hotspots.ids.png");
            let ids = hotspot_ids
                .into_iter()
                .map(|id| {
                    let hotspot = self.hotspots.get(id as usize).cloned().unwrap_or_default();
                    let name = if hotspot.name.is_empty() {
                        hotspot.script_name
                    } else {
                        hotspot.name
                    };
                    let walk_to = hotspot
                        .walk_to
                        .map(|(x, y)| (x as f32 + 0.5, y as f32 + 0.5));
                    (
                        id,
                        room_file::Hotspot {
                            name,
                            walk_to,
                            ..Default::default()
                        },
                    )
                })
                .collect();
            room.hotspots = Some(IdLayer {
                image,
                scale: self.mask_resolution,
                ids,
            });
        }
        let region_ids = present(&self.region_mask);
        if !region_ids.is_empty() {
            let image = format!("{name}.regions.ids.png");
            let ids = region_ids
                .into_iter()
                .map(|id| {
                    let region = self.regions.get(id as usize).copied().unwrap_or_default();
                    (id, region_of(region))
                })
                .collect();
            room.regions = Some(IdLayer {
                image,
                scale: self.mask_resolution,
                ids,
            });
        }
        let behind_ids = present(&self.walk_behind_mask);
        if !behind_ids.is_empty() {
            let image = format!("{name}.behind.ids.png");
            let ids: BTreeMap<u8, room_file::WalkBehind> = behind_ids
                .into_iter()
                .map(|id| {
                    let baseline = self.walk_behind_baselines.get(id as usize).copied();
                    (
                        id,
                        room_file::WalkBehind {
                            name: String::new(),
                            baseline: baseline.map(|b| b as f32),
                        },
                    )
                })
                .collect();
            room.walk_behinds = Some(IdLayer {
                image,
                scale: 1,
                ids,
            });
        }
        let (w, h) = (self.width as i32, self.height as i32);
        let e = self.edges;
        room.edges = room_file::Edges {
            left: (e.left > 0).then_some(e.left as f32),
            right: (e.right < w - 1).then_some(e.right as f32 + 1.0),
            top: (e.top > 0).then_some(e.top as f32),
            bottom: (e.bottom < h - 1).then_some(e.bottom as f32 + 1.0),
        };
        room
    }
}

/// The scale of an area's AGS scaling; `None` when it leaves characters as they are.
fn scale_of(scaling: AgsScaling) -> Option<Scale> {
    match scaling {
        AgsScaling::Fixed(100) => None,
        AgsScaling::Fixed(zoom) => Some(Scale::Fixed(zoom as f32 / 100.0)),
        AgsScaling::Continuous { far, near } if far == near => scale_of(AgsScaling::Fixed(far)),
        AgsScaling::Continuous { far, near } => Some(Scale::Linear {
            top: far as f32 / 100.0,
            bottom: near as f32 / 100.0,
        }),
    }
}

/// A room file region of an AGS region: light 0 (unchanged) becomes none; a tint is
/// mixed with white by its saturation, and its luminance becomes the light.
fn region_of(region: AgsRegion) -> room_file::Region {
    let mut out = room_file::Region::default();
    match region.tint {
        Some(tint) => {
            let amount = tint.saturation.min(100) as f32 / 100.0;
            let mix = |c: u8| 1.0 - amount * (1.0 - c as f32 / 255.0);
            out.tint = Some((mix(tint.red), mix(tint.green), mix(tint.blue)));
            if tint.luminance != 100 {
                out.light = Some(tint.luminance.min(100) as f32 / 100.0);
            }
        }
        None => {
            if region.light != 0 {
                out.light = Some((100 + region.light.clamp(-100, 100)) as f32 / 100.0);
            }
        }
    }
    out
}

/// The ids painted in `mask`, ascending.
fn present(mask: &WalkMask) -> Vec<u8> {
    let mut seen = [false; 256];
    for &id in mask.areas() {
        seen[id as usize] = true;
    }
    (1..=255u8).filter(|&id| seen[id as usize]).collect()
}

/// `mask` as an 8-bit indexed PNG: palette index = id, the EGA colours for ids 0 to
/// 15 and a grey ramp above.
pub fn mask_png(mask: &WalkMask) -> Vec<u8> {
    let mut palette: Vec<u8> = EGA_PALETTE.iter().flatten().copied().collect();
    palette.extend((16..=255u8).flat_map(|v| [v, v, v]));
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, mask.width(), mask.height());
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(palette);
        // An in-memory writer of a valid header and exactly the image's bytes cannot
        // fail.
        let mut writer = encoder.write_header().expect("a valid PNG header");
        writer
            .write_image_data(mask.areas())
            .expect("one byte per pixel");
    }
    out
}
