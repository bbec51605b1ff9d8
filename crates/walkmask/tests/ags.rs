//! Adventure Game Studio rooms from AGS's own test games (`testdata/ags`, MIT): the same
//! room compiled by AGS 3.6 and converted to an AGS 4 folder decodes to the same
//! pixels; the two current `.crm` formats decode to the same room; rooms map onto room
//! files whose images decode back to the masks; damaged files are errors, never panics.

use std::path::{Path, PathBuf};

use walkmask::ags::{AgsRoom, AgsSource};
use walkmask::room_file::RoomFile;
use walkmask::{DecodeRule, WalkMask};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/ags")
        .join(path)
}

fn crm(path: &str) -> AgsRoom {
    let bytes = std::fs::read(data(path)).unwrap();
    AgsRoom::read_crm(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The first pixel where two masks differ, if any (sizes first).
fn first_difference(a: &WalkMask, b: &WalkMask) -> Option<String> {
    if (a.width(), a.height()) != (b.width(), b.height()) {
        return Some(format!(
            "{} x {} against {} x {}",
            a.width(),
            a.height(),
            b.width(),
            b.height()
        ));
    }
    let i = a.areas().iter().zip(b.areas()).position(|(x, y)| x != y)?;
    let (x, y) = (i as u32 % a.width(), i as u32 / a.width());
    Some(format!(
        "pixel ({x}, {y}): {} against {}",
        a.areas()[i],
        b.areas()[i]
    ))
}

fn ids(mask: &WalkMask) -> Vec<u8> {
    let mut ids: Vec<u8> = mask.areas().to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|&id| id != 0);
    ids
}

/// The rows (first, last) that hold `id`.
fn rows(mask: &WalkMask, id: u8) -> Option<(u32, u32)> {
    let w = mask.width() as usize;
    let mut rows = mask
        .areas()
        .chunks(w)
        .enumerate()
        .filter(|(_, row)| row.contains(&id))
        .map(|(y, _)| y as u32);
    let first = rows.next()?;
    Some((first, rows.next_back().unwrap_or(first)))
}

#[test]
fn the_same_room_compiled_and_as_an_ags4_folder_decodes_pixel_for_pixel() {
    let compiled = crm("same-room/room1.crm");
    let folder = AgsRoom::read_folder(&data("same-room/Rooms/1")).unwrap();
    assert_eq!(compiled.source, AgsSource::Crm { version: 33 });
    assert!(matches!(folder.source, AgsSource::Folder { .. }));
    assert_eq!((compiled.width, compiled.height), (320, 200));
    assert_eq!((folder.width, folder.height), (320, 200));
    assert_eq!(compiled.mask_resolution, folder.mask_resolution);
    for (name, a, b) in [
        ("walkable", &compiled.walkable, &folder.walkable),
        ("hotspots", &compiled.hotspot_mask, &folder.hotspot_mask),
        ("regions", &compiled.region_mask, &folder.region_mask),
        (
            "walk-behinds",
            &compiled.walk_behind_mask,
            &folder.walk_behind_mask,
        ),
    ] {
        assert_eq!(first_difference(a, b), None, "{name} mask");
    }
    // The room has hotspots 1 to 3 painted; both agree on their names and points.
    assert_eq!(compiled.hotspot_ids(), [1, 2, 3]);
    assert_eq!(compiled.hotspots.len(), 50);
    assert_eq!(folder.hotspots.len(), 50);
    for id in 0..50 {
        assert_eq!(compiled.hotspots[id], folder.hotspots[id], "hotspot {id}");
    }
    assert_eq!(compiled.hotspots[1].script_name, "hHotspotOne");
    assert_eq!(compiled.edges, folder.edges);
    assert_eq!(compiled.walk_behind_baselines, folder.walk_behind_baselines);
    assert_eq!(compiled.areas, folder.areas);
    assert_eq!(compiled.regions, folder.regions);
    // The backgrounds agree in every pixel (AGS 4's PNG carries alpha 255, the
    // compiled room's fourth byte is not alpha: both read opaque).
    let (a, b) = (
        compiled.background.as_ref().unwrap(),
        folder.background.as_ref().unwrap(),
    );
    assert_eq!(a.dimensions(), b.dimensions());
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0);
}

#[test]
fn the_two_current_crm_formats_decode_to_the_same_room() {
    let v33 = crm("3.6.2/room3.crm");
    let v36306 = crm("3.6.3/room3.crm");
    assert_eq!(v33.source, AgsSource::Crm { version: 33 });
    assert_eq!(v36306.source, AgsSource::Crm { version: 36306 });
    for room in [&v33, &v36306] {
        assert_eq!(
            (room.width, room.height, room.mask_resolution),
            (640, 400, 1)
        );
        // Two walkable areas, each a band of rows.
        assert_eq!(ids(&room.walkable), [1, 2]);
        assert_eq!(rows(&room.walkable, 1), Some((126, 144)));
        assert_eq!(rows(&room.walkable, 2), Some((282, 300)));
        assert_eq!(room.hotspot_ids(), [1, 2]);
        assert_eq!(room.hotspots[1].name, "The first hotspot");
        assert_eq!(room.hotspots[2].name, "The second hotspot");
        assert_eq!(ids(&room.region_mask), [1, 2]);
    }
    assert_eq!(first_difference(&v33.walkable, &v36306.walkable), None);
    assert_eq!(
        first_difference(&v33.hotspot_mask, &v36306.hotspot_mask),
        None
    );
    assert_eq!(
        first_difference(&v33.region_mask, &v36306.region_mask),
        None
    );
    assert_eq!(v33.hotspots, v36306.hotspots);
    assert_eq!(v33.background, v36306.background);
}

#[test]
fn an_ags4_folder_of_the_current_editor_reads() {
    let room = AgsRoom::read_folder(&data("4.0/Rooms/1")).unwrap();
    assert_eq!(
        room.source,
        AgsSource::Folder {
            version: "4.0.0.27".into()
        }
    );
    assert_eq!((room.width, room.height), (320, 200));
    assert_eq!(room.hotspot_ids(), [1, 2, 3, 4, 5, 6]);
    assert_eq!(ids(&room.region_mask), [1]);
    // Its walkable mask is empty, as the game has it.
    assert!(ids(&room.walkable).is_empty());
}

#[test]
fn a_room_maps_onto_a_room_file_whose_images_decode_to_its_masks() {
    for path in ["3.6.3/room3.crm", "3.6.2/room3.crm", "same-room/room1.crm"] {
        let room = crm(path);
        let (file, images) = room.to_room_file("room");
        assert!(file.check().is_empty(), "{path}: {:?}", file.check());
        // Written and read back, the room file is the same.
        let text = file.to_ron().unwrap();
        assert_eq!(RoomFile::from_ron(&text).unwrap(), file, "{path}\n{text}");
        let image = |name: &str| {
            let (_, bytes) = images
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{path}: no image {name}"));
            WalkMask::decode(bytes, &DecodeRule::Indexed).unwrap()
        };
        assert_eq!(file.walk_mask.image, "room.walk.png");
        assert_eq!(
            first_difference(&image("room.walk.png"), &room.walkable),
            None
        );
        let hotspots = file.hotspots.as_ref().unwrap();
        assert_eq!(
            first_difference(&image(&hotspots.image), &room.hotspot_mask),
            None
        );
        assert_eq!(
            hotspots.ids.keys().copied().collect::<Vec<_>>(),
            room.hotspot_ids()
        );
        // Every painted area is listed, none other.
        assert_eq!(
            file.areas.keys().copied().collect::<Vec<_>>(),
            ids(&room.walkable)
        );
        let picture = images
            .iter()
            .find(|(n, _)| Some(n) == file.picture.as_ref())
            .unwrap();
        let picture = image::load_from_memory(&picture.1).unwrap().to_rgba8();
        assert_eq!(Some(&picture), room.background.as_ref());
    }
    let room3 = crm("3.6.3/room3.crm");
    let (file, _) = room3.to_room_file("room3");
    let hotspots = &file.hotspots.as_ref().unwrap().ids;
    assert_eq!(hotspots[&1].name, "The first hotspot");
    // Edges at the room's border are no edges.
    assert!(file.edges.is_empty(), "{:?}", file.edges);
}

#[test]
fn a_damaged_room_is_an_error_never_a_panic() {
    let bytes = std::fs::read(data("3.6.3/room3.crm")).unwrap();
    // Every cut of the file, at a spread of lengths.
    for len in (0..bytes.len()).step_by(61) {
        assert!(AgsRoom::read_crm(&bytes[..len]).is_err(), "cut at {len}");
    }
    // Bytes changed here and there: an error or a room, never a panic.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut damaged = bytes.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % damaged.len() as u64) as usize;
            damaged[at] = (state >> 32) as u8;
        }
        let _ = AgsRoom::read_crm(&damaged);
    }
    // A folder with a mask missing names it.
    let dir = std::env::temp_dir().join(format!("walkmask-ags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(data("4.0/Rooms/1/data.xml"), dir.join("data.xml")).unwrap();
    let err = AgsRoom::read_folder(&dir).unwrap_err().to_string();
    assert!(err.contains("walkableareas.png"), "{err}");
    std::fs::write(dir.join("data.xml"), "<Room><Width>320</Width>").unwrap();
    let err = AgsRoom::read_folder(&dir).unwrap_err().to_string();
    assert!(err.starts_with("data.xml"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
