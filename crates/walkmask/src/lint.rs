//! Room lint: what is wrong with a room file and its images, and where.
//!
//! [`lint_room`] checks a [`RoomFile`] against its decoded images ([`RoomImages`]):
//!
//! - **errors**: values the file cannot hold ([`RoomFile::check`]), images that do not
//!   load, layers whose size does not fit the room, a walk mask with no floor, spawn
//!   and walk-to points off the floor;
//! - **warnings**: a room with no spawn points, islands of floor no spawn point
//!   reaches, pinch points narrower than a walker's diameter (from the clearance
//!   transform), spawn and walk-to points nearer a wall than the walker's radius,
//!   walk-to points out of reach of every spawn point, hotspot pixels no
//!   hotspot claims, stray pixels (an id painted in a speck of one or two pixels: an
//!   anti-aliased edge or a slip of the brush), and areas, hotspots, regions and
//!   walk-behinds listed without pixels.
//!
//! Each [`Problem`] says where it is in room pixels, and which pixels it covers, so a
//! tool can draw it (`walkmask lint -o picture.png`, and the Bevy plugin's debug
//! overlay).
//!
//! ```
//! use walkmask::lint::{lint_room, LintOptions, RoomImages, Severity};
//! use walkmask::room_file::{RoomFile, SpawnPoint};
//! use walkmask::WalkMask;
//!
//! // Two floors with a wall between them, and one spawn point on the left one.
//! let mask = WalkMask::from_fn(20, 10, |x, _| if x == 10 { 0 } else { 1 }).unwrap();
//! let mut room = RoomFile::new((20, 10), "hall.walk.png");
//! room.spawn_points.push(SpawnPoint { name: "start".into(), at: (2.5, 5.5), facing: None });
//! let problems = lint_room(&room, &RoomImages::new(mask), &LintOptions::default());
//! assert_eq!(problems.len(), 1);
//! assert_eq!(problems[0].severity, Severity::Warning);
//! assert!(problems[0].message.contains("no spawn point reaches"));
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use crate::room_file::{IdLayer, RoomFile};
use crate::{AreaSet, DecodeRule, NavGrid, WalkMask};

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The room will not work as meant: a game's CI should fail on it.
    Error,
    /// Probably not what was meant.
    Warning,
}

/// What kind of problem it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// A value of the room file ([`RoomFile::check`]).
    Field,
    /// An image that does not load.
    Image,
    /// A layer whose size does not fit the room.
    LayerSize,
    /// A walk mask with no walkable pixel in an enabled area.
    NoFloor,
    /// A spawn or walk-to point on a blocked pixel, or off the mask.
    OffFloor,
    /// A walk-to point no spawn point reaches.
    OutOfReach,
    /// Floor no spawn point reaches.
    Island,
    /// A room with floor and no spawn point: what spawn points reach is not checked.
    NoSpawnPoint,
    /// A passage narrower than the walker's diameter between two wider parts.
    Pinch,
    /// A spawn or walk-to point on the floor where the walker does not fit (closer to
    /// a wall than its radius): it stands or stops somewhere else.
    Cramped,
    /// Hotspot pixels whose id no hotspot of the file claims.
    Unclaimed,
    /// An id painted in a speck of one or two pixels.
    Stray,
    /// An id listed in the file that has no pixels.
    Unused,
}

/// Pixels a problem covers: layer pixels, and how many room pixels each is wide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProblemPixels {
    /// Room pixels per layer pixel.
    pub scale: u32,
    /// The layer pixels `(x, y)`.
    pub pixels: Vec<(u32, u32)>,
}

/// One problem of a room.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// What kind it is.
    pub kind: ProblemKind,
    /// What is wrong, in a sentence that names the field or the id.
    pub message: String,
    /// Where, in room pixels (a point to mark), when it is somewhere.
    pub at: Option<(f32, f32)>,
    /// The pixels it covers, when it covers some (an island, unclaimed hotspot
    /// pixels).
    pub pixels: Option<ProblemPixels>,
}

/// The decoded images of a room file.
#[derive(Clone, Debug)]
pub struct RoomImages {
    /// The walk mask, decoded by its rule.
    pub walk_mask: WalkMask,
    /// The hotspot layer, when the file has one and it loads.
    pub hotspots: Option<WalkMask>,
    /// The region layer, when the file has one and it loads.
    pub regions: Option<WalkMask>,
    /// The walk-behind layer, when the file has one and it loads.
    pub walk_behinds: Option<WalkMask>,
    /// The picture's size, when the file has one and it loads.
    pub picture_size: Option<(u32, u32)>,
}

impl RoomImages {
    /// A room's images with only its walk mask.
    pub fn new(walk_mask: WalkMask) -> Self {
        Self {
            walk_mask,
            hotspots: None,
            regions: None,
            walk_behinds: None,
            picture_size: None,
        }
    }

    /// Opens the images `room` names, relative to `dir` (the room file's folder).
    /// Images that do not load are problems; without a walk mask there are no images.
    pub fn open(room: &RoomFile, dir: &Path) -> (Option<RoomImages>, Vec<Problem>) {
        let mut problems = Vec::new();
        let mut open = |field: &str, image: &str, rule: &DecodeRule| -> Option<WalkMask> {
            match WalkMask::open(dir.join(image), rule) {
                Ok(mask) => Some(mask),
                Err(e) => {
                    problems.push(Problem {
                        severity: Severity::Error,
                        kind: ProblemKind::Image,
                        message: format!("{field} = {image:?}: {e}"),
                        at: None,
                        pixels: None,
                    });
                    None
                }
            }
        };
        let walk_mask = open(
            "walk_mask.image",
            &room.walk_mask.image,
            &room.walk_mask.rule,
        );
        let mut layer = |name: &str, image: Option<&str>| {
            image.and_then(|image| open(&format!("{name}.image"), image, &DecodeRule::Indexed))
        };
        let hotspots = layer("hotspots", room.hotspots.as_ref().map(|l| l.image.as_str()));
        let regions = layer("regions", room.regions.as_ref().map(|l| l.image.as_str()));
        let walk_behinds = layer(
            "walk_behinds",
            room.walk_behinds.as_ref().map(|l| l.image.as_str()),
        );
        let picture_size = room
            .picture
            .as_ref()
            .and_then(|picture| match image::image_dimensions(dir.join(picture)) {
                Ok(size) => Some(size),
                Err(e) => {
                    problems.push(Problem {
                        severity: Severity::Error,
                        kind: ProblemKind::Image,
                        message: format!("picture = {picture:?}: {e}"),
                        at: None,
                        pixels: None,
                    });
                    None
                }
            });
        // A prop's picture only has to be there.
        for (i, prop) in room.props.iter().enumerate() {
            if let Err(e) = image::image_dimensions(dir.join(&prop.image)) {
                problems.push(Problem {
                    severity: Severity::Error,
                    kind: ProblemKind::Image,
                    message: format!("props[{i}].image = {:?}: {e}", prop.image),
                    at: None,
                    pixels: None,
                });
            }
        }
        let images = walk_mask.map(|walk_mask| RoomImages {
            walk_mask,
            hotspots,
            regions,
            walk_behinds,
            picture_size,
        });
        (images, problems)
    }
}

/// What the lint looks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LintOptions {
    /// The radius of the widest walker, in room pixels: passages narrower than its
    /// diameter between wider floor are pinch points. `None`: not looked for.
    pub walker_radius: Option<f32>,
    /// Specks of an id this many pixels or fewer are stray (0: not looked for).
    pub stray_pixels: usize,
}

impl Default for LintOptions {
    /// No pinch points; specks of one or two pixels are stray.
    fn default() -> Self {
        Self {
            walker_radius: None,
            stray_pixels: 2,
        }
    }
}

/// The problems of `room` with its `images`, errors first, then in the order above.
pub fn lint_room(room: &RoomFile, images: &RoomImages, options: &LintOptions) -> Vec<Problem> {
    let mut lint = Lint {
        problems: Vec::new(),
    };
    for p in room.check() {
        lint.push(
            Severity::Error,
            ProblemKind::Field,
            p.to_string(),
            None,
            None,
        );
    }
    let (w, h) = room.size;
    if w == 0 || h == 0 {
        return lint.done();
    }
    let scale = room.walk_mask.scale.max(1);
    let mask = &images.walk_mask;
    lint.fits("walk_mask", mask, scale, room.size);
    if let (Some(layer), Some(image)) = (&room.hotspots, &images.hotspots) {
        lint.fits("hotspots", image, layer.scale.max(1), room.size);
    }
    if let (Some(layer), Some(image)) = (&room.regions, &images.regions) {
        lint.fits("regions", image, layer.scale.max(1), room.size);
    }
    if let (Some(layer), Some(image)) = (&room.walk_behinds, &images.walk_behinds) {
        lint.fits("walk_behinds", image, layer.scale.max(1), room.size);
    }
    if let Some((pw, ph)) = images.picture_size
        && (pw, ph) != (w, h)
    {
        lint.push(
            Severity::Error,
            ProblemKind::LayerSize,
            format!("picture is {pw} x {ph}: the room is {w} x {h} (size)"),
            None,
            None,
        );
    }

    // The floor as the room starts: areas listed as disabled are off.
    let mut enabled = AreaSet::all();
    for (id, area) in &room.areas {
        if !area.enabled {
            enabled.remove(*id);
        }
    }
    let grid = NavGrid::new(mask.clone(), enabled);
    if grid.walkable_count() == 0 {
        lint.push(
            Severity::Error,
            ProblemKind::NoFloor,
            "the walk mask has no floor: no pixel is in an enabled area".into(),
            None,
            None,
        );
    }
    // The mask pixel under a room point.
    let to_mask = |p: (f32, f32)| -> Option<(u32, u32)> {
        let (x, y) = (p.0 / scale as f32, p.1 / scale as f32);
        (x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0)
            .then_some((x as u32, y as u32))
            .filter(|&(x, y)| x < mask.width() && y < mask.height())
    };
    let mut reached = Vec::new();
    for (i, spawn) in room.spawn_points.iter().enumerate() {
        match to_mask(spawn.at).and_then(|(x, y)| grid.region(x, y)) {
            Some(region) => reached.push(region),
            None => lint.push(
                Severity::Error,
                ProblemKind::OffFloor,
                format!(
                    "spawn_points[{i}] ({:?}) at ({}, {}) is off the floor",
                    spawn.name, spawn.at.0, spawn.at.1
                ),
                Some(spawn.at),
                None,
            ),
        }
    }
    if let Some(hotspots) = &room.hotspots {
        for (id, hotspot) in &hotspots.ids {
            let Some(p) = hotspot.walk_to else { continue };
            match to_mask(p).and_then(|(x, y)| grid.region(x, y)) {
                None => lint.push(
                    Severity::Error,
                    ProblemKind::OffFloor,
                    format!(
                        "hotspots.ids[{id}] ({:?}): its walk_to ({}, {}) is off the floor",
                        hotspot.name, p.0, p.1
                    ),
                    Some(p),
                    None,
                ),
                Some(region) if !room.spawn_points.is_empty() && !reached.contains(&region) => {
                    lint.push(
                        Severity::Warning,
                        ProblemKind::OutOfReach,
                        format!(
                            "hotspots.ids[{id}] ({:?}): no spawn point reaches its walk_to ({}, {})",
                            hotspot.name, p.0, p.1
                        ),
                        Some(p),
                        None,
                    )
                }
                Some(_) => {}
            }
        }
    }
    if !room.spawn_points.is_empty() {
        lint.islands(&grid, &reached, scale);
    } else if grid.walkable_count() > 0 {
        lint.push(
            Severity::Warning,
            ProblemKind::NoSpawnPoint,
            "the room has no spawn points: islands of floor and walk-to points out of reach are not looked for".into(),
            None,
            None,
        );
    }
    if let Some(radius) = options.walker_radius
        && radius.is_finite()
        && radius > 0.0
        && let Ok(wide) = NavGrid::with_clearance(mask.clone(), enabled, radius / scale as f32)
    {
        // Points on the floor where the walker does not fit.
        let walk_to = room.hotspots.iter().flat_map(|layer| {
            layer.ids.iter().filter_map(|(id, hotspot)| {
                let p = hotspot.walk_to?;
                Some((
                    format!("hotspots.ids[{id}] ({:?}): its walk_to", hotspot.name),
                    p,
                ))
            })
        });
        let spawns = room
            .spawn_points
            .iter()
            .enumerate()
            .map(|(i, spawn)| (format!("spawn_points[{i}] ({:?})", spawn.name), spawn.at));
        for (what, p) in spawns.chain(walk_to) {
            if let Some((x, y)) = to_mask(p)
                && grid.region(x, y).is_some()
                && wide.region(x, y).is_none()
            {
                lint.push(
                    Severity::Warning,
                    ProblemKind::Cramped,
                    format!(
                        "{what} ({}, {}) is nearer a wall than a walker of radius {radius} fits",
                        p.0, p.1
                    ),
                    Some(p),
                    None,
                );
            }
        }
        lint.pinches(&grid, &wide, scale, radius);
    }
    if let (Some(layer), Some(image)) = (&room.hotspots, &images.hotspots) {
        lint.unclaimed(layer, image);
    }
    // Ids listed without pixels.
    let mask_ids = ids_of(mask);
    for id in room.areas.keys() {
        if !mask_ids.contains_key(id) {
            lint.push(
                Severity::Warning,
                ProblemKind::Unused,
                format!("areas[{id}] has no pixels in the walk mask"),
                None,
                None,
            );
        }
    }
    unused(
        &mut lint,
        "hotspots",
        room.hotspots.as_ref(),
        images.hotspots.as_ref(),
    );
    unused(
        &mut lint,
        "regions",
        room.regions.as_ref(),
        images.regions.as_ref(),
    );
    unused(
        &mut lint,
        "walk_behinds",
        room.walk_behinds.as_ref(),
        images.walk_behinds.as_ref(),
    );
    if options.stray_pixels > 0 {
        // Stray specks in the layers painted by id (a walk mask painted in one colour
        // by a threshold rule has no anti-aliased ids).
        if matches!(
            room.walk_mask.rule,
            DecodeRule::Indexed | DecodeRule::Colors(_) | DecodeRule::ExactColors(_)
        ) {
            lint.strays("walk_mask", mask, scale, options.stray_pixels);
        }
        let layers = [
            (
                "hotspots",
                room.hotspots.as_ref().map(|l| l.scale),
                &images.hotspots,
            ),
            (
                "regions",
                room.regions.as_ref().map(|l| l.scale),
                &images.regions,
            ),
            (
                "walk_behinds",
                room.walk_behinds.as_ref().map(|l| l.scale),
                &images.walk_behinds,
            ),
        ];
        for (name, scale, image) in layers {
            if let (Some(scale), Some(image)) = (scale, image) {
                lint.strays(name, image, scale.max(1), options.stray_pixels);
            }
        }
    }
    lint.done()
}

/// Ids of `layer` listed in the file without pixels in the image.
fn unused<T>(lint: &mut Lint, name: &str, layer: Option<&IdLayer<T>>, image: Option<&WalkMask>) {
    let (Some(layer), Some(image)) = (layer, image) else {
        return;
    };
    let painted = ids_of(image);
    for id in layer.ids.keys() {
        if !painted.contains_key(id) {
            lint.push(
                Severity::Warning,
                ProblemKind::Unused,
                format!("{name}.ids[{id}] has no pixels in {:?}", layer.image),
                None,
                None,
            );
        }
    }
}

/// The pixel count of each id painted in `mask` (0 left out).
fn ids_of(mask: &WalkMask) -> BTreeMap<u8, usize> {
    let mut counts = [0usize; 256];
    for &id in mask.areas() {
        counts[id as usize] += 1;
    }
    (1..=255u8)
        .filter(|&id| counts[id as usize] > 0)
        .map(|id| (id, counts[id as usize]))
        .collect()
}

/// The centre of layer pixel `(x, y)` in room pixels.
fn centre(p: (u32, u32), scale: u32) -> (f32, f32) {
    let s = scale as f32;
    ((p.0 as f32 + 0.5) * s, (p.1 as f32 + 0.5) * s)
}

struct Lint {
    problems: Vec<Problem>,
}

impl Lint {
    fn push(
        &mut self,
        severity: Severity,
        kind: ProblemKind,
        message: String,
        at: Option<(f32, f32)>,
        pixels: Option<ProblemPixels>,
    ) {
        self.problems.push(Problem {
            severity,
            kind,
            message,
            at,
            pixels,
        });
    }

    fn done(mut self) -> Vec<Problem> {
        self.problems.sort_by_key(|p| p.severity);
        self.problems
    }

    /// A layer `scale` room pixels a pixel must cover the room: its size times the
    /// scale is the room's, or the room's rounded down to whole layer pixels (as AGS's
    /// masks at a resolution of 2 to 4 are).
    fn fits(&mut self, name: &str, layer: &WalkMask, scale: u32, (w, h): (u32, u32)) {
        let (lw, lh) = (layer.width(), layer.height());
        let fits = |l: u32, room: u32| l == room / scale || l == room.div_ceil(scale);
        if !(fits(lw, w) && fits(lh, h)) {
            self.push(
                Severity::Error,
                ProblemKind::LayerSize,
                format!(
                    "{name} is {lw} x {lh} at scale {scale}, covering {} x {}: the room is {w} x {h}",
                    lw * scale,
                    lh * scale
                ),
                None,
                None,
            );
        }
    }

    /// Regions of floor no spawn point is in.
    fn islands(&mut self, grid: &NavGrid, reached: &[u32], scale: u32) {
        let mut islands: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                if let Some(region) = grid.region(x, y)
                    && !reached.contains(&region)
                {
                    islands.entry(region).or_default().push((x, y));
                }
            }
        }
        for pixels in islands.into_values() {
            let first = pixels[0];
            let at = centre(first, scale);
            self.push(
                Severity::Warning,
                ProblemKind::Island,
                format!(
                    "{} pixels of floor from ({}, {}) that no spawn point reaches",
                    pixels.len() as u64 * (scale as u64 * scale as u64),
                    at.0,
                    at.1
                ),
                Some(at),
                Some(ProblemPixels { scale, pixels }),
            );
        }
    }

    /// Passages narrower than a walker of `radius` room pixels between floor wide
    /// enough for it (`wide`, the floor such a walker can stand on): where the floor a walker of that radius can stand on splits
    /// into parts that the floor itself joins. The narrow pixels are shared out
    /// between the parts by a breadth-first fill from all of them at once; a pinch
    /// point is where two parts' shares meet.
    fn pinches(&mut self, grid: &NavGrid, wide: &NavGrid, scale: u32, radius: f32) {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        // The part of the wide floor each pixel is nearest to through the floor.
        let mut part = vec![u32::MAX; w * h];
        let mut queue = VecDeque::new();
        // Parts of each floor region: a region split into two or more has pinches.
        let mut parts_of: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for y in 0..h {
            for x in 0..w {
                if let Some(p) = wide.region(x as u32, y as u32) {
                    part[y * w + x] = p;
                    queue.push_back((x, y));
                    let region = grid
                        .region(x as u32, y as u32)
                        .expect("wide floor is floor");
                    let parts = parts_of.entry(region).or_default();
                    if !parts.contains(&p) {
                        parts.push(p);
                    }
                }
            }
        }
        if parts_of.values().all(|parts| parts.len() < 2) {
            return;
        }
        let mut meetings: BTreeMap<(u32, u32), (usize, usize)> = BTreeMap::new();
        while let Some((x, y)) = queue.pop_front() {
            let p = part[y * w + x];
            let neighbours = [
                (x.wrapping_sub(1), y),
                (x + 1, y),
                (x, y.wrapping_sub(1)),
                (x, y + 1),
            ];
            for (nx, ny) in neighbours {
                if nx >= w || ny >= h || grid.region(nx as u32, ny as u32).is_none() {
                    continue;
                }
                let q = part[ny * w + nx];
                if q == u32::MAX {
                    part[ny * w + nx] = p;
                    queue.push_back((nx, ny));
                } else if q != p {
                    meetings.entry((p.min(q), p.max(q))).or_insert((x, y));
                }
            }
        }
        // Wide pixels of two parts never touch (they would be one part): parts
        // meet across narrow floor only.
        for (x, y) in meetings.into_values() {
            let at = centre((x as u32, y as u32), scale);
            self.push(
                Severity::Warning,
                ProblemKind::Pinch,
                format!(
                    "a passage at ({}, {}) is narrower than a walker {} pixels across",
                    at.0,
                    at.1,
                    radius * 2.0
                ),
                Some(at),
                None,
            );
        }
    }

    /// Hotspot ids painted in the layer that the file does not list.
    fn unclaimed(&mut self, layer: &IdLayer<crate::room_file::Hotspot>, image: &WalkMask) {
        let scale = layer.scale.max(1);
        for (id, count) in ids_of(image) {
            if layer.ids.contains_key(&id) {
                continue;
            }
            let w = image.width() as usize;
            let pixels: Vec<(u32, u32)> = image
                .areas()
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v == id)
                .map(|(i, _)| ((i % w) as u32, (i / w) as u32))
                .collect();
            let at = centre(pixels[0], scale);
            self.push(
                Severity::Warning,
                ProblemKind::Unclaimed,
                format!(
                    "{count} pixels of hotspot id {id} in {:?} from ({}, {}), which no hotspot of hotspots.ids claims",
                    layer.image, at.0, at.1
                ),
                Some(at),
                Some(ProblemPixels { scale, pixels }),
            );
        }
    }

    /// Specks of an id of at most `most` pixels (8-connected) in `layer`.
    fn strays(&mut self, name: &str, layer: &WalkMask, scale: u32, most: usize) {
        let (w, h) = (layer.width() as usize, layer.height() as usize);
        let ids = layer.areas();
        let mut seen = vec![false; w * h];
        let mut stack = Vec::new();
        let mut speck = Vec::new();
        for start in 0..w * h {
            if seen[start] || ids[start] == 0 {
                continue;
            }
            let id = ids[start];
            seen[start] = true;
            stack.push(start);
            speck.clear();
            // Only the first `most + 1` pixels are kept: enough to know it is no
            // speck.
            let mut size = 0usize;
            while let Some(i) = stack.pop() {
                size += 1;
                if speck.len() <= most {
                    speck.push(((i % w) as u32, (i / w) as u32));
                }
                let (x, y) = ((i % w) as isize, (i / w) as isize);
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let (nx, ny) = (x + dx, y + dy);
                        if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                            continue;
                        }
                        let j = ny as usize * w + nx as usize;
                        if !seen[j] && ids[j] == id {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
            if size <= most {
                let at = centre(speck[0], scale);
                self.push(
                    Severity::Warning,
                    ProblemKind::Stray,
                    format!(
                        "{size} stray pixel{} of id {id} in {name} at ({}, {})",
                        if size == 1 { "" } else { "s" },
                        at.0,
                        at.1
                    ),
                    Some(at),
                    Some(ProblemPixels {
                        scale,
                        pixels: speck.clone(),
                    }),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room_file::{Hotspot, SpawnPoint};

    fn spawn(at: (f32, f32)) -> SpawnPoint {
        SpawnPoint {
            name: format!("at {at:?}"),
            at,
            facing: None,
        }
    }

    fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
        problems.iter().map(|p| p.kind).collect()
    }

    #[test]
    fn a_clean_room_has_no_problems() {
        let mask = WalkMask::from_fn(30, 20, |_, _| 1).unwrap();
        let mut room = RoomFile::new((30, 20), "m.png");
        room.spawn_points.push(spawn((5.5, 5.5)));
        let options = LintOptions {
            walker_radius: Some(3.0),
            ..Default::default()
        };
        assert_eq!(lint_room(&room, &RoomImages::new(mask), &options), []);
    }

    #[test]
    fn a_pinch_is_found_where_two_wide_floors_meet_through_a_narrow_gap() {
        // Two 12-pixel-wide rooms joined by a gap two pixels high at x 12..18.
        let mask = WalkMask::from_fn(30, 12, |x, y| {
            let gap = (12..18).contains(&x);
            u8::from(!gap || (5..7).contains(&y))
        })
        .unwrap();
        let mut room = RoomFile::new((30, 12), "m.png");
        room.spawn_points.push(spawn((2.5, 2.5)));
        let narrow = LintOptions {
            walker_radius: Some(2.0),
            ..Default::default()
        };
        let problems = lint_room(&room, &RoomImages::new(mask.clone()), &narrow);
        assert_eq!(kinds(&problems), [ProblemKind::Pinch], "{problems:?}");
        let (x, y) = problems[0].at.unwrap();
        assert!(
            (11.0..=19.0).contains(&x) && (4.0..=8.0).contains(&y),
            "{x}, {y}"
        );
        // A walker that fits through the gap meets no pinch.
        let thin = LintOptions {
            walker_radius: Some(0.4),
            ..Default::default()
        };
        assert_eq!(lint_room(&room, &RoomImages::new(mask), &thin), []);
    }

    #[test]
    fn points_where_the_walker_does_not_fit_are_cramped() {
        let mask = WalkMask::from_fn(30, 12, |_, _| 1).unwrap();
        let mut room = RoomFile::new((30, 12), "m.png");
        room.spawn_points.push(spawn((15.5, 6.5)));
        // In the corner: on the floor, a pixel from the mask's edge.
        room.spawn_points.push(spawn((0.5, 0.5)));
        let options = LintOptions {
            walker_radius: Some(3.0),
            ..Default::default()
        };
        let problems = lint_room(&room, &RoomImages::new(mask.clone()), &options);
        assert_eq!(kinds(&problems), [ProblemKind::Cramped], "{problems:?}");
        assert_eq!(problems[0].at, Some((0.5, 0.5)));
        assert!(problems[0].message.starts_with("spawn_points[1]"));
        // Without a walker radius nothing is cramped.
        assert_eq!(
            lint_room(&room, &RoomImages::new(mask), &LintOptions::default()),
            []
        );
    }

    #[test]
    fn points_off_the_floor_and_out_of_reach_and_unclaimed_and_stray_pixels() {
        // Floor left and right of a wall at x = 10; a blocked pixel at (3, 3).
        let mask = WalkMask::from_fn(20, 10, |x, y| u8::from(x != 10 && (x, y) != (3, 3))).unwrap();
        // Hotspot 1 (listed), hotspot 2 (not listed), and a speck of hotspot 1.
        let hotspots = WalkMask::from_fn(20, 10, |x, y| match (x, y) {
            (0..=4, 0..=4) => 1,
            (15..=19, 5..=9) => 2,
            (8, 8) => 1,
            _ => 0,
        })
        .unwrap();
        let mut room = RoomFile::new((20, 10), "m.png");
        room.spawn_points.push(spawn((3.5, 3.5)));
        room.spawn_points.push(spawn((1.5, 1.5)));
        let mut layer = IdLayer {
            image: "h.png".into(),
            scale: 1,
            ids: BTreeMap::new(),
        };
        layer.ids.insert(
            1,
            Hotspot {
                name: "far".into(),
                walk_to: Some((15.5, 2.5)),
                ..Default::default()
            },
        );
        layer.ids.insert(3, Hotspot::default());
        room.hotspots = Some(layer);
        let mut images = RoomImages::new(mask);
        images.hotspots = Some(hotspots);
        let problems = lint_room(&room, &images, &LintOptions::default());
        assert_eq!(
            kinds(&problems),
            [
                ProblemKind::OffFloor,
                ProblemKind::OutOfReach,
                ProblemKind::Island,
                ProblemKind::Unclaimed,
                ProblemKind::Unused,
                ProblemKind::Stray,
            ],
            "{problems:#?}"
        );
        assert_eq!(problems[0].severity, Severity::Error);
        assert_eq!(problems[0].at, Some((3.5, 3.5)));
        assert_eq!(problems[2].pixels.as_ref().unwrap().pixels.len(), 90);
        assert_eq!(problems[3].pixels.as_ref().unwrap().pixels.len(), 25);
        assert_eq!(problems[5].at, Some((8.5, 8.5)));
    }

    #[test]
    fn layers_that_do_not_fit_and_a_mask_with_no_floor_are_errors() {
        let mask = WalkMask::from_fn(10, 10, |_, _| 0).unwrap();
        let mut room = RoomFile::new((40, 40), "m.png");
        room.walk_mask.scale = 2;
        let problems = lint_room(&room, &RoomImages::new(mask), &LintOptions::default());
        assert_eq!(
            kinds(&problems),
            [ProblemKind::LayerSize, ProblemKind::NoFloor],
            "{problems:#?}"
        );
        assert!(problems[0].message.contains("covering 20 x 20"));
    }
}
