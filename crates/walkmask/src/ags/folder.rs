//! AGS 4 room folders: `data.xml` and the room's PNGs.
//!
//! `data.xml` holds the room's size, mask resolution and edges as elements of `Room`
//! (`Width`, `MaskResolution`, `LeftEdgeX`, ...), then lists: `Hotspots/RoomHotspot`
//! (`Description`, `Name`, `WalkToPoint` "x,y"), `WalkableAreas/RoomWalkableArea`
//! (`ScalingLevel`, `MinScalingLevel`, `MaxScalingLevel` in percent,
//! `UseContinuousScaling`), `WalkBehinds/RoomWalkBehind` (`Baseline`) and
//! `Regions/RoomRegion` (`LightLevel` 0 to 200, `UseColourTint`, `RedTint`, ...), each
//! indexed by its position. The masks are 8-bit indexed PNGs whose index is the id.

use roxmltree::{Document, Node};

use super::{
    AgsArea, AgsEdges, AgsError, AgsHotspot, AgsRegion, AgsRoom, AgsScaling, AgsSource, AgsTint,
};
use crate::{DecodeRule, MaskLimits, WalkMask};

/// The child element `name` of `node`.
fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// The text of the child element `name` of `node` ("" when empty).
fn text<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    child(node, name).map(|c| c.text().unwrap_or(""))
}

/// The integer in the child element `name` of `node` (`what` names it in errors).
fn int(node: Node<'_, '_>, name: &str, what: &str) -> Result<i32, AgsError> {
    let Some(value) = text(node, name) else {
        return Err(AgsError::Xml(format!("{what} has no <{name}>")));
    };
    value
        .trim()
        .parse()
        .map_err(|_| AgsError::Xml(format!("{what}: <{name}> is {value:?}, not a whole number")))
}

/// The boolean (`True` or `False`) in the child element `name` of `node`; false when
/// it is missing.
fn flag(node: Node<'_, '_>, name: &str) -> bool {
    text(node, name).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// The elements of the list `list` of `room` whose tag is `item`, in order.
fn items<'a, 'i>(room: Node<'a, 'i>, list: &str, item: &str) -> Vec<Node<'a, 'i>> {
    child(room, list)
        .map(|l| {
            l.children()
                .filter(|c| c.is_element() && c.tag_name().name() == item)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn read(
    xml: &str,
    mut read: impl FnMut(&str) -> Result<Vec<u8>, AgsError>,
    limits: &MaskLimits,
) -> Result<AgsRoom, AgsError> {
    let doc = Document::parse(xml).map_err(|e| AgsError::Xml(e.to_string()))?;
    let room = doc.root_element();
    if room.tag_name().name() != "Room" {
        return Err(AgsError::Xml(format!(
            "the root element is <{}>, not <Room>",
            room.tag_name().name()
        )));
    }
    let version = room.attribute("Version").unwrap_or("").to_string();
    let width = int(room, "Width", "the room")?;
    let height = int(room, "Height", "the room")?;
    if width <= 0 || height <= 0 {
        return Err(AgsError::Xml(format!(
            "the room is {width} x {height}: a room is at least one pixel each way"
        )));
    }
    let mask_resolution = match text(room, "MaskResolution") {
        None => 1,
        Some(_) => int(room, "MaskResolution", "the room")?,
    };
    if !(1..=4).contains(&mask_resolution) {
        return Err(AgsError::Xml(format!(
            "<MaskResolution> is {mask_resolution}: AGS masks are 1:1 to 1:4"
        )));
    }
    let edges = AgsEdges {
        left: int(room, "LeftEdgeX", "the room")?,
        right: int(room, "RightEdgeX", "the room")?,
        top: int(room, "TopEdgeY", "the room")?,
        bottom: int(room, "BottomEdgeY", "the room")?,
    };
    let mut hotspots = Vec::new();
    for (id, node) in items(room, "Hotspots", "RoomHotspot")
        .into_iter()
        .enumerate()
    {
        let what = format!("hotspot {id}");
        let walk_to = match text(node, "WalkToPoint") {
            None => None,
            Some(point) => {
                let parsed = point
                    .split_once(',')
                    .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)));
                let Some((x, y)) = parsed else {
                    return Err(AgsError::Xml(format!(
                        "{what}: <WalkToPoint> is {point:?}, not \"x,y\""
                    )));
                };
                super::crm::walk_to(x, y)
            }
        };
        hotspots.push(AgsHotspot {
            name: text(node, "Description").unwrap_or("").to_string(),
            script_name: text(node, "Name").unwrap_or("").to_string(),
            walk_to,
        });
    }
    let mut areas = Vec::new();
    for (id, node) in items(room, "WalkableAreas", "RoomWalkableArea")
        .into_iter()
        .enumerate()
    {
        let what = format!("walkable area {id}");
        let scaling = if flag(node, "UseContinuousScaling") {
            AgsScaling::Continuous {
                far: int(node, "MinScalingLevel", &what)?,
                near: int(node, "MaxScalingLevel", &what)?,
            }
        } else {
            AgsScaling::Fixed(int(node, "ScalingLevel", &what)?)
        };
        areas.push(AgsArea { scaling });
    }
    let mut walk_behind_baselines = Vec::new();
    for (id, node) in items(room, "WalkBehinds", "RoomWalkBehind")
        .into_iter()
        .enumerate()
    {
        walk_behind_baselines.push(int(node, "Baseline", &format!("walk-behind {id}"))?);
    }
    let mut regions = Vec::new();
    for (id, node) in items(room, "Regions", "RoomRegion").into_iter().enumerate() {
        let what = format!("region {id}");
        let light = int(node, "LightLevel", &what)? - 100;
        let tint = if flag(node, "UseColourTint") {
            let channel = |name: &str| -> Result<u8, AgsError> {
                let v = int(node, name, &what)?;
                u8::try_from(v)
                    .map_err(|_| AgsError::Xml(format!("{what}: <{name}> is {v}, not 0 to 255")))
            };
            Some(AgsTint {
                red: channel("RedTint")?,
                green: channel("GreenTint")?,
                blue: channel("BlueTint")?,
                saturation: channel("TintSaturation")?,
                luminance: channel("TintLuminance")?,
            })
        } else {
            None
        };
        regions.push(AgsRegion {
            light: if tint.is_some() { 0 } else { light },
            tint,
        });
    }
    let mut mask = |name: &str| -> Result<WalkMask, AgsError> {
        let bytes = read(name)?;
        WalkMask::decode_with_limits(&bytes, &DecodeRule::Indexed, limits).map_err(|source| {
            AgsError::Mask {
                what: name.to_string(),
                source,
            }
        })
    };
    let walkable = mask("walkableareas.png")?;
    let hotspot_mask = mask("hotspots.png")?;
    let region_mask = mask("regions.png")?;
    let walk_behind_mask = mask("walkbehinds.png")?;
    let (w, h) = (width as u32, height as u32);
    let r = mask_resolution as u32;
    for (name, m, size) in [
        ("walkableareas.png", &walkable, (w / r, h / r)),
        ("hotspots.png", &hotspot_mask, (w / r, h / r)),
        ("regions.png", &region_mask, (w / r, h / r)),
        ("walkbehinds.png", &walk_behind_mask, (w, h)),
    ] {
        if (m.width(), m.height()) != size {
            return Err(AgsError::Malformed {
                what: name.to_string(),
                value: format!("{} x {}", m.width(), m.height()),
                problem: format!(
                    "the room is {w} x {h} at mask resolution {r}: this mask is {} x {}",
                    size.0, size.1
                ),
            });
        }
    }
    let background = match read("background0.png") {
        Ok(bytes) => {
            let image = image::load_from_memory(&bytes).map_err(|e| AgsError::Background {
                path: "background0.png".into(),
                detail: e.to_string(),
            })?;
            let mut image = image.to_rgba8();
            // AGS's backgrounds are opaque whatever their alpha says.
            for p in image.pixels_mut() {
                p.0[3] = 255;
            }
            Some(image)
        }
        Err(AgsError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    Ok(AgsRoom {
        source: AgsSource::Folder { version },
        width: w,
        height: h,
        mask_resolution: r,
        background,
        walkable,
        hotspot_mask,
        region_mask,
        walk_behind_mask,
        hotspots,
        areas,
        regions,
        walk_behind_baselines,
        edges,
    })
}
