//! The demo's two rooms as room files (`rooms/lobby.room.ron`, `rooms/garden.room.ron`):
//! what the pictures and layers are, and what each id means, in room pixels.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use walkmask::room_file::{
    Area, Direction, Exit, Hotspot, IdLayer, Prop, Region, RoomFile, ScaleMapImage, SpawnPoint,
    VerbPolicy, WalkBehind,
};

use walkmask::lint;

use super::{AVATAR_RADIUS, HotspotArt};

/// The scale of characters at grey level 0 and 255 of the lobby's scale map.
pub(crate) const SCALE_RANGE: (f32, f32) = (0.8, 1.8);

/// The direction named in the hotspot tables.
fn direction(name: &str) -> Option<Direction> {
    Some(match name {
        "up" => Direction::Up,
        "down" => Direction::Down,
        "left" => Direction::Left,
        "right" => Direction::Right,
        "up_left" => Direction::UpLeft,
        "up_right" => Direction::UpRight,
        "down_left" => Direction::DownLeft,
        "down_right" => Direction::DownRight,
        _ => return None,
    })
}

/// The hotspot layer `image` (a quarter of the room's size) with `spots`; looking is
/// done from where the walker stands.
fn hotspots(image: &str, spots: &[HotspotArt]) -> IdLayer<Hotspot> {
    IdLayer {
        image: image.into(),
        scale: 4,
        ids: spots
            .iter()
            .map(|s| {
                (
                    s.id,
                    Hotspot {
                        name: s.name.into(),
                        walk_to: Some(s.walk_to),
                        facing: direction(s.facing),
                        verbs: [("look".to_string(), VerbPolicy::FaceOnly)].into(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
    }
}

/// The lobby: its pillars' baselines are the rows where they stand on the floor.
/// Its props are drawn over the characters behind them.
pub(crate) fn lobby(
    spots: &[HotspotArt],
    pillar_baselines: [f32; 2],
    props: Vec<Prop>,
) -> RoomFile {
    let mut room = RoomFile::new((1920, 1080), "lobby.walk.png");
    room.picture = Some("lobby.png".into());
    room.scale_map = Some(scale_map());
    for (id, name, enabled) in [
        (1, "lobby", true),
        (2, "garden", true),
        (3, "rug", true),
        // The gate opening: the gate starts closed.
        (4, "gate", false),
    ] {
        room.areas.insert(
            id,
            Area {
                name: name.into(),
                enabled,
                scale: None,
            },
        );
    }
    room.hotspots = Some(hotspots("lobby.hotspots.walk.png", spots));
    let mut regions = BTreeMap::new();
    regions.insert(
        1,
        Region {
            name: "on the rug".into(),
            tint: Some((1.0, 0.78, 0.62)),
            fade: Some(6.0),
            ..Default::default()
        },
    );
    regions.insert(
        2,
        Region {
            name: "in the garden".into(),
            tint: Some((0.92, 1.0, 0.86)),
            light: Some(1.08),
            ..Default::default()
        },
    );
    room.regions = Some(IdLayer {
        image: "lobby.regions.walk.png".into(),
        scale: 4,
        ids: regions,
    });
    room.walk_behinds = Some(IdLayer {
        image: "lobby.behind.walk.png".into(),
        scale: 1,
        ids: [
            (
                1,
                WalkBehind {
                    name: "left pillar".into(),
                    baseline: Some(pillar_baselines[0]),
                },
            ),
            (
                2,
                WalkBehind {
                    name: "right pillar".into(),
                    baseline: Some(pillar_baselines[1]),
                },
            ),
        ]
        .into(),
    });
    // On through the picture's right edge, then into the garden.
    room.exits
        .push(exit(spots, "garden", "from the lobby", 110.0));
    room.spawn_points = vec![
        spawn("start", (1140.0, 870.0), Some(Direction::Down)),
        spawn("from the garden", (1850.0, 540.0), Some(Direction::Left)),
        spawn("the waiter's round", (640.0, 600.0), None),
    ];
    room.props = props;
    room
}

/// The garden.
pub(crate) fn garden(spots: &[HotspotArt]) -> RoomFile {
    let mut room = RoomFile::new((1920, 1080), "garden.walk.png");
    room.picture = Some("garden.png".into());
    // The lobby's: the garden is seen by the same camera.
    room.scale_map = Some(scale_map());
    room.areas.insert(
        1,
        Area {
            name: "lawn".into(),
            enabled: true,
            scale: None,
        },
    );
    room.hotspots = Some(hotspots("garden.hotspots.walk.png", spots));
    // On through the picture's left edge, then into the lobby.
    room.exits
        .push(exit(spots, "lobby", "from the garden", -130.0));
    room.spawn_points = vec![spawn(
        "from the lobby",
        (110.0, 760.0),
        Some(Direction::Right),
    )];
    room
}

/// The lobby's scale map, which both rooms use.
fn scale_map() -> ScaleMapImage {
    ScaleMapImage {
        image: "lobby.scale.png".into(),
        min: SCALE_RANGE.0,
        max: SCALE_RANGE.1,
    }
}

/// The exit through the hotspot of `spots` named `to`, into that room at its spawn
/// point `spawn`, walked off `off_x` pixels across from the hotspot's walk-to point.
fn exit(spots: &[HotspotArt], to: &str, spawn: &str, off_x: f32) -> Exit {
    let hotspot = spots
        .iter()
        .find(|s| s.name == to)
        .unwrap_or_else(|| panic!("the {to} hotspot"));
    Exit {
        hotspot: hotspot.id,
        to: to.into(),
        spawn: spawn.into(),
        walk_off: Some((hotspot.walk_to.0 + off_x, hotspot.walk_to.1)),
    }
}

fn spawn(name: &str, at: (f32, f32), facing: Option<Direction>) -> SpawnPoint {
    SpawnPoint {
        name: name.into(),
        at,
        facing,
    }
}

/// Writes `room` as `rooms/NAME.room.ron`, once the lint finds nothing wrong with it
/// for the avatar (`walkmask lint --radius 14`).
pub(crate) fn write(rooms: &Path, name: &str, room: &RoomFile) -> Result<(), String> {
    let (images, mut problems) = lint::RoomImages::open(room, rooms);
    let options = lint::LintOptions {
        walker_radius: Some(AVATAR_RADIUS),
        ..Default::default()
    };
    if let Some(images) = &images {
        problems.extend(lint::lint_room(room, images, &options));
    }
    if !problems.is_empty() {
        let problems: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
        return Err(format!("{name}: {}", problems.join("; ")));
    }
    let text = room.to_ron().map_err(|e| e.to_string())?;
    let path = rooms.join(format!("{name}.room.ron"));
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
