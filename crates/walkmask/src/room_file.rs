//! Room files: a whole room as data, in RON (`*.room.ron`).
//!
//! A room file names the room's picture and its layer images (the walk mask, and the
//! hotspot, region and walk-behind id layers) and says what each id means: area names,
//! start states and depth scaling; hotspot names, walk-to points, facing and verbs;
//! region tints, light, scale and speed; walk-behind baselines; the room's edges, exits
//! and spawn points. Everything placed in the room is given in **room pixels**, as the
//! layers are painted: `x` to the right, `y` down, one unit per picture pixel, `(0, 0)`
//! at the picture's top-left corner. Image paths are relative to the room file.
//!
//! The core reads, checks and writes room files ([`RoomFile::from_ron`],
//! [`RoomFile::check`], [`RoomFile::to_ron`]); the Bevy plugin loads them as assets
//! and spawns the room they describe; the command-line tool writes them
//! (`walkmask ags-room`) and lints them (`walkmask lint`).
//!
//! ```
//! use walkmask::room_file::RoomFile;
//!
//! let room = RoomFile::from_ron(r#"(
//!     size: (320, 200),
//!     picture: "hall.png",
//!     walk_mask: (image: "hall.walk.png", rule: Indexed),
//!     areas: { 1: (name: "floor") },
//!     hotspots: (image: "hall.hotspots.ids.png", ids: {
//!         1: (name: "door", walk_to: (300, 150), facing: Right, verbs: {"look": FaceOnly}),
//!     }),
//!     spawn_points: [(name: "start", at: (160, 160))],
//! )"#).unwrap();
//! assert_eq!(room.size, (320, 200));
//! assert_eq!(room.hotspots.as_ref().unwrap().ids[&1].name, "door");
//! assert!(room.check().is_empty());
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::DecodeRule;

/// A point in room pixels: `(x, y)`, `x` to the right, `y` down.
pub type RoomPoint = (f32, f32);

/// A whole room: its picture, its layers and what their ids mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomFile {
    /// The room's size in room pixels (its picture's size): `(width, height)`.
    pub size: (u32, u32),
    /// The room's picture (its background), relative to the room file.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
    /// The walk mask: where walkers may go, painted in numbered areas.
    pub walk_mask: MaskImage,
    /// A greyscale image of how big characters are drawn where no area or region
    /// rule says (the walk mask's size or coarser, stretched over it).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_map: Option<ScaleMapImage>,
    /// Walkable areas by id: names, start states and depth scaling. Areas painted in
    /// the mask and not listed here are enabled, unnamed and unscaled.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub areas: BTreeMap<u8, Area>,
    /// The hotspot layer and its hotspots by id.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hotspots: Option<IdLayer<Hotspot>>,
    /// The region layer and its regions by id.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regions: Option<IdLayer<Region>>,
    /// The walk-behind layer (the picture's size) and each walk-behind's baseline.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walk_behinds: Option<IdLayer<WalkBehind>>,
    /// The room's edges: lines a walker crosses to leave it.
    #[serde(default, skip_serializing_if = "Edges::is_empty")]
    pub edges: Edges,
    /// Hotspots that lead out of the room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exits: Vec<Exit>,
    /// Named places where characters come into the room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spawn_points: Vec<SpawnPoint>,
    /// Pictures placed in the room (furniture, a door that opens, things to pick
    /// up), each drawn in front of the characters whose feet are above its baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub props: Vec<Prop>,
}

/// The walk mask's image and how its pixels become area ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskImage {
    /// The image, relative to the room file.
    pub image: String,
    /// How its pixels become area ids (default: [`DecodeRule::Indexed`], palette
    /// index or grey level = area id).
    #[serde(default = "indexed", skip_serializing_if = "is_indexed")]
    pub rule: DecodeRule,
    /// Room pixels per mask pixel: 1 for a mask the picture's size, 2 for one at half
    /// its resolution, and so on (Adventure Game Studio's mask resolution).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub scale: u32,
}

/// A scale map: grey level 0 is `min`, 255 is `max`, linear in between.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleMapImage {
    /// The image, relative to the room file.
    pub image: String,
    /// The scale at grey level 0.
    pub min: f32,
    /// The scale at grey level 255.
    pub max: f32,
}

/// An id layer's image and what its ids mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdLayer<T> {
    /// The image, relative to the room file: palette index (or grey level) = id,
    /// 0 = none.
    pub image: String,
    /// Room pixels per layer pixel, as [`MaskImage::scale`] (walk-behind layers are
    /// always the picture's size: 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub scale: u32,
    /// What each id is.
    #[serde(default = "BTreeMap::new")]
    pub ids: BTreeMap<u8, T>,
}

/// A walkable area of the walk mask.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Area {
    /// The area's name, for game code and the debug overlay.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Whether walkers may use the area when the room starts (default true).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// How big characters are drawn in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
}

/// How big characters are drawn where they stand: a factor of their size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Scale {
    /// The same factor everywhere.
    Fixed(f32),
    /// From `top` at the area's (or region's) top row to `bottom` at its bottom row,
    /// linear in between.
    Linear {
        /// The factor at the top row (far from the camera).
        top: f32,
        /// The factor at the bottom row (near the camera).
        bottom: f32,
    },
}

/// One of eight directions a character faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
    UpLeft,
    UpRight,
    DownLeft,
    DownRight,
}

/// What a walker does with a verb on a hotspot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum VerbPolicy {
    /// Walk to the walk-to point, turn, then act (the default).
    #[default]
    WalkThenAct,
    /// Stop, turn to the hotspot, then act ("look at").
    FaceOnly,
    /// Act at once, wherever the walker is.
    ActInPlace,
}

/// What happens when a walker cannot get to a hotspot's walk-to point.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub enum UnreachablePolicy {
    /// Report it (the default).
    #[default]
    Report,
    /// Act wherever the walk ended.
    ActAnyway,
    /// Act when the walk ended within this many room pixels of the walk-to point.
    ActWithin(f32),
}

/// A hotspot: something in the room the player can act on.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Hotspot {
    /// Its name, shown on hover.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Where a character stands to act on it; `None`: it acts where it stops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walk_to: Option<RoomPoint>,
    /// The direction a character turns to once there; `None`: towards `look_at`, or
    /// the hotspot itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facing: Option<Direction>,
    /// The point a character looks at when it acts, apart from its walk-to point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub look_at: Option<RoomPoint>,
    /// Verbs that do not walk and act (the others walk then act): `{"look": FaceOnly}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub verbs: BTreeMap<String, VerbPolicy>,
    /// What happens when its walk-to point cannot be reached.
    #[serde(skip_serializing_if = "is_default")]
    pub unreachable: UnreachablePolicy,
}

/// A region: an id painted on the floor that changes what walks there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Region {
    /// Its name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Whether it is on when the room starts (default true).
    #[serde(skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// A colour multiplied into characters inside it: `(r, g, b)`, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tint: Option<(f32, f32, f32)>,
    /// Over how many layer pixels from its edge its tint and light fade in (0 or
    /// none: at full strength at once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fade: Option<f32>,
    /// A light level for characters inside it: 1 is unchanged, 0 black, 2 twice as
    /// bright.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light: Option<f32>,
    /// How big characters are drawn inside it, over the area's scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// Walking speed inside it, a factor of the walker's speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<f32>,
    /// Whether walkers may not enter it.
    #[serde(skip_serializing_if = "is_default")]
    pub blocking: bool,
    /// Whether game code hears every frame a walker spends inside it.
    #[serde(skip_serializing_if = "is_default")]
    pub while_inside: bool,
}

impl Default for Region {
    fn default() -> Self {
        Self {
            name: String::new(),
            enabled: true,
            tint: None,
            fade: None,
            light: None,
            scale: None,
            speed: None,
            blocking: false,
            while_inside: false,
        }
    }
}

/// A walk-behind: part of the picture drawn over the characters behind it.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WalkBehind {
    /// Its name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The row (room pixels) where it stands on the floor: characters whose feet are
    /// above it are drawn behind it. `None`: never in front.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f32>,
}

/// The room's edges: a walker whose feet cross one leaves by it. Each is a column
/// (left, right) or a row (top, bottom) in room pixels; `None`: no edge there.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Edges {
    /// Walkers left of this column leave by the left edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<f32>,
    /// Walkers right of this column leave by the right edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<f32>,
    /// Walkers above this row leave by the top edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top: Option<f32>,
    /// Walkers below this row leave by the bottom edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottom: Option<f32>,
}

impl Edges {
    /// Whether no edge is set.
    pub fn is_empty(&self) -> bool {
        *self == Edges::default()
    }
}

/// A hotspot that leads out of the room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exit {
    /// The hotspot id (of [`RoomFile::hotspots`]) the player clicks.
    pub hotspot: u8,
    /// The room it leads to, as the game names rooms.
    pub to: String,
    /// The spawn point of that room where the walker comes in.
    pub spawn: String,
    /// A point off the picture a walker walks on to once at the hotspot's walk-to
    /// point, before the room changes.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walk_off: Option<RoomPoint>,
}

/// A named place where characters come into the room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnPoint {
    /// Its name, as exits and game code name it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Where the character's feet are put.
    pub at: RoomPoint,
    /// The direction it faces there.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facing: Option<Direction>,
}

/// A picture placed in the room: furniture drawn again over the characters behind
/// it, a door that opens, a thing to pick up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prop {
    /// Its name, as game code finds it (unique in the room).
    pub name: String,
    /// Its picture, relative to the room file.
    pub image: String,
    /// Where the picture's top-left corner is.
    pub at: RoomPoint,
    /// The row where it stands on the floor: characters whose feet are above it are
    /// drawn behind it, the others in front. None: behind every character.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f32>,
    /// Whether it shows when the room starts (game code shows and hides it then).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub visible: bool,
}

/// Why a room file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RoomFileError {
    /// Not valid RON for a room file: the message names the line, column and field.
    #[error("room file: {0}")]
    Parse(#[from] ron::error::SpannedError),
    /// Could not be written as RON.
    #[error("room file: {0}")]
    Write(#[from] ron::Error),
}

/// A problem [`RoomFile::check`] finds: the field, its value, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomFileProblem {
    /// Where in the file: `hotspots.ids[3].walk_to`.
    pub field: String,
    /// What it holds, as written: `(2000, 40)`.
    pub value: String,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for RoomFileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}: {}", self.field, self.value, self.problem)
    }
}

fn indexed() -> DecodeRule {
    DecodeRule::Indexed
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

fn is_indexed(rule: &DecodeRule) -> bool {
    *rule == DecodeRule::Indexed
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn is_true(v: &bool) -> bool {
    *v
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl RoomFile {
    /// A room of `size` room pixels walking on `walk_mask` (indexed, full resolution),
    /// with nothing else.
    pub fn new(size: (u32, u32), walk_mask: impl Into<String>) -> Self {
        Self {
            size,
            picture: None,
            walk_mask: MaskImage {
                image: walk_mask.into(),
                rule: DecodeRule::Indexed,
                scale: 1,
            },
            scale_map: None,
            areas: BTreeMap::new(),
            hotspots: None,
            regions: None,
            walk_behinds: None,
            edges: Edges::default(),
            exits: Vec::new(),
            spawn_points: Vec::new(),
            props: Vec::new(),
        }
    }

    /// Reads a room file from RON. Syntax errors and unknown or misspelt fields name
    /// the line and column; [`RoomFile::check`] then checks the values.
    ///
    /// Optional values may be written bare (`picture: "hall.png"`) or in `Some(..)`.
    pub fn from_ron(text: &str) -> Result<Self, RoomFileError> {
        Ok(ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)?)
    }

    /// Writes the room file as pretty RON.
    pub fn to_ron(&self) -> Result<String, RoomFileError> {
        let pretty = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .separate_tuple_members(false)
            .depth_limit(5)
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        let mut text = ron::ser::to_string_pretty(self, pretty)?;
        text.push('\n');
        Ok(text)
    }

    /// The values that cannot be right whatever the images hold: points outside the
    /// room or not finite, scales of 0, exits through hotspots the file does not
    /// list, spawn points named twice, factors that are not positive. An empty list
    /// means none. (What needs the images, such as a walk-to point off the floor, is
    /// the lint's: `walkmask lint`.)
    pub fn check(&self) -> Vec<RoomFileProblem> {
        let mut c = Checks::default();
        let (w, h) = self.size;
        if w == 0 || h == 0 {
            c.problem(
                "size",
                format!("({w}, {h})"),
                "a room is at least one pixel each way",
            );
        }
        let inside = |p: RoomPoint| {
            p.0.is_finite()
                && p.1.is_finite()
                && p.0 >= 0.0
                && p.1 >= 0.0
                && p.0 <= w as f32
                && p.1 <= h as f32
        };
        let outside = format!("outside the room (0, 0) to ({w}, {h})");
        if let Some(map) = &self.scale_map
            && !(Number::Positive.holds(map.min) && Number::Positive.holds(map.max))
        {
            c.problem(
                "scale_map",
                format!("(min: {}, max: {})", map.min, map.max),
                "scales are finite and above 0",
            );
        }
        if self.walk_mask.scale == 0 {
            c.problem("walk_mask.scale", "0", "must be 1 or more");
        }
        for (id, area) in &self.areas {
            if *id == 0 {
                c.problem("areas", "0", "area 0 is blocked floor, not an area");
            }
            c.scale(&format!("areas[{id}].scale"), area.scale);
        }
        c.layer("hotspots", self.hotspots.as_ref());
        c.layer("regions", self.regions.as_ref());
        c.layer("walk_behinds", self.walk_behinds.as_ref());
        if let Some(layer) = &self.walk_behinds
            && layer.scale != 1
        {
            c.problem(
                "walk_behinds.scale",
                layer.scale.to_string(),
                "a walk-behind layer is the picture's size (scale 1)",
            );
        }
        if let Some(hotspots) = &self.hotspots {
            for (id, hotspot) in &hotspots.ids {
                for (what, p) in [("walk_to", hotspot.walk_to), ("look_at", hotspot.look_at)] {
                    if let Some(p) = p
                        && !inside(p)
                    {
                        c.problem(format!("hotspots.ids[{id}].{what}"), point(p), &outside);
                    }
                }
                if let UnreachablePolicy::ActWithin(d) = hotspot.unreachable
                    && !Number::NotNegative.holds(d)
                {
                    c.problem(
                        format!("hotspots.ids[{id}].unreachable"),
                        format!("ActWithin({d})"),
                        "a distance is finite and not negative",
                    );
                }
            }
        }
        if let Some(regions) = &self.regions {
            for (id, region) in &regions.ids {
                let field = |name: &str| format!("regions.ids[{id}].{name}");
                c.scale(&field("scale"), region.scale);
                c.number(
                    field("speed"),
                    region.speed,
                    Number::Positive,
                    "a speed factor is finite and above 0",
                );
                c.number(
                    field("fade"),
                    region.fade,
                    Number::NotNegative,
                    "a fade is finite and not negative",
                );
                c.number(
                    field("light"),
                    region.light,
                    Number::NotNegative,
                    "a light level is finite and not negative",
                );
                if let Some((r, g, b)) = region.tint
                    && ![r, g, b].iter().all(|v| Number::NotNegative.holds(*v))
                {
                    c.problem(
                        field("tint"),
                        format!("({r}, {g}, {b})"),
                        "tint channels are finite and not negative",
                    );
                }
            }
        }
        if let Some(walk_behinds) = &self.walk_behinds {
            for (id, walk_behind) in &walk_behinds.ids {
                c.number(
                    format!("walk_behinds.ids[{id}].baseline"),
                    walk_behind.baseline,
                    Number::Finite,
                    "a baseline is a finite row",
                );
            }
        }
        for (name, value) in [
            ("left", self.edges.left),
            ("right", self.edges.right),
            ("top", self.edges.top),
            ("bottom", self.edges.bottom),
        ] {
            c.number(
                format!("edges.{name}"),
                value,
                Number::Finite,
                "an edge is a finite line",
            );
        }
        for (i, exit) in self.exits.iter().enumerate() {
            let listed = self
                .hotspots
                .as_ref()
                .is_some_and(|h| h.ids.contains_key(&exit.hotspot));
            if !listed {
                c.problem(
                    format!("exits[{i}].hotspot"),
                    exit.hotspot.to_string(),
                    "no hotspot of that id is listed in hotspots.ids",
                );
            }
            if let Some(p) = exit.walk_off
                && !(p.0.is_finite() && p.1.is_finite())
            {
                c.problem(
                    format!("exits[{i}].walk_off"),
                    point(p),
                    "not a finite point",
                );
            }
        }
        for (i, spawn) in self.spawn_points.iter().enumerate() {
            if !inside(spawn.at) {
                c.problem(format!("spawn_points[{i}].at"), point(spawn.at), &outside);
            }
            if self.spawn_points[..i].iter().any(|s| s.name == spawn.name) {
                c.problem(
                    format!("spawn_points[{i}].name"),
                    format!("{:?}", spawn.name),
                    "another spawn point has this name",
                );
            }
        }
        for (i, prop) in self.props.iter().enumerate() {
            if prop.name.is_empty() {
                c.problem(format!("props[{i}].name"), "\"\"", "a prop has a name");
            } else if self.props[..i].iter().any(|p| p.name == prop.name) {
                c.problem(
                    format!("props[{i}].name"),
                    format!("{:?}", prop.name),
                    "another prop has this name",
                );
            }
            if prop.image.is_empty() {
                c.problem(format!("props[{i}].image"), "\"\"", "a prop has a picture");
            }
            if !(prop.at.0.is_finite() && prop.at.1.is_finite()) {
                c.problem(
                    format!("props[{i}].at"),
                    point(prop.at),
                    "not a finite point",
                );
            }
            c.number(
                format!("props[{i}].baseline"),
                prop.baseline,
                Number::Finite,
                "a baseline is a finite row",
            );
        }
        c.problems
    }
}

/// A point as a room file writes it.
fn point(p: RoomPoint) -> String {
    format!("({}, {})", p.0, p.1)
}

/// What a number of a room file must be.
#[derive(Clone, Copy)]
enum Number {
    /// Finite.
    Finite,
    /// Finite and 0 or more.
    NotNegative,
    /// Finite and above 0.
    Positive,
}

impl Number {
    fn holds(self, v: f32) -> bool {
        v.is_finite()
            && match self {
                Number::Finite => true,
                Number::NotNegative => v >= 0.0,
                Number::Positive => v > 0.0,
            }
    }
}

/// The problems [`RoomFile::check`] has found.
#[derive(Default)]
struct Checks {
    problems: Vec<RoomFileProblem>,
}

impl Checks {
    fn problem(&mut self, field: impl Into<String>, value: impl Into<String>, what: &str) {
        self.problems.push(RoomFileProblem {
            field: field.into(),
            value: value.into(),
            problem: what.to_string(),
        });
    }

    /// `value` of `field`, when it is given, is a `rule` number.
    fn number(&mut self, field: String, value: Option<f32>, rule: Number, what: &str) {
        if let Some(v) = value
            && !rule.holds(v)
        {
            self.problem(field, v.to_string(), what);
        }
    }

    /// An id layer's scale and ids.
    fn layer<T>(&mut self, name: &str, layer: Option<&IdLayer<T>>) {
        let Some(layer) = layer else { return };
        if layer.scale == 0 {
            self.problem(format!("{name}.scale"), "0", "must be 1 or more");
        }
        if layer.ids.contains_key(&0) {
            self.problem(format!("{name}.ids"), "0", "id 0 is \"none\"");
        }
    }

    fn scale(&mut self, field: &str, scale: Option<Scale>) {
        let good = |s: f32| Number::Positive.holds(s);
        match scale {
            Some(Scale::Fixed(s)) if !good(s) => self.problem(
                field,
                format!("Fixed({s})"),
                "a scale is finite and above 0",
            ),
            Some(Scale::Linear { top, bottom }) if !(good(top) && good(bottom)) => self.problem(
                field,
                format!("Linear(top: {top}, bottom: {bottom})"),
                "a scale is finite and above 0",
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room() -> RoomFile {
        let mut room = RoomFile::new((320, 200), "hall.walk.png");
        room.picture = Some("hall.png".into());
        room.areas.insert(
            1,
            Area {
                name: "floor".into(),
                enabled: true,
                scale: Some(Scale::Linear {
                    top: 0.5,
                    bottom: 1.0,
                }),
            },
        );
        let mut hotspots = IdLayer {
            image: "hall.hotspots.ids.png".into(),
            scale: 1,
            ids: BTreeMap::new(),
        };
        hotspots.ids.insert(
            2,
            Hotspot {
                name: "door".into(),
                walk_to: Some((300.0, 150.5)),
                facing: Some(Direction::Right),
                verbs: [("look".to_string(), VerbPolicy::FaceOnly)].into(),
                ..Default::default()
            },
        );
        room.hotspots = Some(hotspots);
        room.exits.push(Exit {
            hotspot: 2,
            to: "yard".into(),
            spawn: "from the hall".into(),
            walk_off: Some((340.0, 150.0)),
        });
        room.spawn_points.push(SpawnPoint {
            name: "start".into(),
            at: (160.0, 160.0),
            facing: Some(Direction::Down),
        });
        room.edges.left = Some(4.0);
        room.props.push(Prop {
            name: "table".into(),
            image: "props/table.png".into(),
            at: (120.0, 110.0),
            baseline: Some(170.0),
            visible: true,
        });
        room.props.push(Prop {
            name: "open door".into(),
            image: "props/door.png".into(),
            at: (290.0, 60.0),
            baseline: None,
            visible: false,
        });
        room
    }

    #[test]
    fn a_room_written_reads_back_the_same() {
        let room = room();
        let text = room.to_ron().unwrap();
        assert_eq!(RoomFile::from_ron(&text).unwrap(), room, "{text}");
        assert!(room.check().is_empty());
    }

    #[test]
    fn a_misspelt_field_names_itself() {
        let err = RoomFile::from_ron("(size: (4, 4), walk_mask: (image: \"a.png\"), spawns: [])")
            .unwrap_err()
            .to_string();
        assert!(err.contains("spawns"), "{err}");
    }

    #[test]
    fn check_names_the_field_and_the_value() {
        let mut room = room();
        room.hotspots
            .as_mut()
            .unwrap()
            .ids
            .get_mut(&2)
            .unwrap()
            .walk_to = Some((400.0, 20.0));
        room.exits[0].hotspot = 9;
        room.spawn_points.push(room.spawn_points[0].clone());
        room.areas.get_mut(&1).unwrap().scale = Some(Scale::Fixed(f32::NAN));
        room.props[1].name = "table".into();
        room.props[1].baseline = Some(f32::INFINITY);
        let problems = room.check();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "areas[1].scale",
                "hotspots.ids[2].walk_to",
                "exits[0].hotspot",
                "spawn_points[1].name",
                "props[1].name",
                "props[1].baseline"
            ],
            "{problems:?}"
        );
        assert_eq!(problems[1].value, "(400, 20)");
        assert!(problems[1].to_string().contains("outside the room"));
    }
}
