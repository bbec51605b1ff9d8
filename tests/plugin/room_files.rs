//! Rooms made from room files (`*.room.ron`) and Adventure Game Studio rooms, under
//! both paces: the whole room comes from one handle, a walker acts on its hotspots,
//! a file changed in mid-walk updates the room in place and the walk ends once, bad
//! files fail to load naming the field and the value.
//!
//! The room: the 64 x 48 wall mask of `tests/common` (pixel (px, py) is world
//! (px - 32, 24 - py)), a hotspot layer with a bell (id 1, top right), a door (id 2,
//! bottom left, an exit) and a lamp painted but not listed (id 3), a shade region
//! (id 1, top left) and a spawn point left of the wall.

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::room_file::{FromRoomFile, RoomAsset, RoomFilePart};
use common::{Log, Pace, add_log, assert_contract, asset_file, create_generated_dir, headless_app};

/// The bell's walk-to point, as written first and as moved.
const BELL: (f32, f32) = (55.5, 20.5);
const BELL_MOVED: (f32, f32) = (56.5, 30.5);

/// A room file over the test room's images, named `name` (in `generated/`); `bell`
/// is the bell's walk-to point; `lamp` lists the lamp.
fn room_file_text(name: &str, bell: (f32, f32), lamp: bool) -> String {
    let lamp = if lamp {
        r#"3: (name: "lamp", walk_to: (50.5, 12.5)),"#
    } else {
        ""
    };
    format!(
        r#"(
    size: (64, 48),
    walk_mask: (image: "{name}.walk.png"),
    scale_map: (image: "{name}.scale.png", min: 0.5, max: 1.5),
    areas: {{ 1: (name: "floor") }},
    hotspots: (image: "{name}.hotspots.ids.png", ids: {{
        1: (name: "bell", walk_to: ({}, {}), facing: Up, look_at: (55.5, 10.5), verbs: {{"look": FaceOnly}}),
        2: (name: "door", walk_to: (6.5, 44.5)),
        {lamp}
    }}),
    regions: (image: "{name}.regions.ids.png", ids: {{ 1: (name: "shade", light: 0.5, fade: 3) }}),
    edges: (left: 2),
    exits: [(hotspot: 2, to: "yard", spawn: "from the hall", walk_off: (-4, 44.5))],
    spawn_points: [(name: "start", at: (10.5, 30.5), facing: Right)],
)
"#,
        bell.0, bell.1
    )
}

/// Writes the room file `generated/NAME.room.ron` and its images; returns its asset
/// path.
fn write_room(name: &str) -> String {
    create_generated_dir();
    common::write_grey_png(
        &format!("generated/{name}.walk.png"),
        (64, 48),
        common::room_pixel,
    );
    common::write_grey_png(
        &format!("generated/{name}.hotspots.ids.png"),
        (64, 48),
        |x, y| match (x, y) {
            (50..=60, 5..=15) => 1,
            (2..=10, 40..=47) => 2,
            (40..=45, 5..=10) => 3,
            _ => 0,
        },
    );
    common::write_grey_png(&format!("generated/{name}.scale.png"), (16, 12), |_, y| {
        (y * 20) as u8
    });
    common::write_grey_png(
        &format!("generated/{name}.regions.ids.png"),
        (64, 48),
        |x, y| u8::from(x < 20 && y < 20),
    );
    let path = format!("generated/{name}.room.ron");
    std::fs::write(asset_file(&path), room_file_text(name, BELL, false)).unwrap();
    path
}

/// Interactions that ended, per walker: (hotspot, how it ended).
#[derive(Resource, Default)]
struct Ended(Vec<(Entity, Entity, &'static str)>);

fn app_with_room(pace: Pace, name: &str) -> (App, Entity, String) {
    let path = write_room(name);
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    app.init_resource::<Ended>()
        .add_observer(|e: On<InteractionArrived>, mut ended: ResMut<Ended>| {
            ended.0.push((e.walker, e.hotspot, "arrived"));
        })
        .add_observer(|e: On<InteractionCancelled>, mut ended: ResMut<Ended>| {
            ended.0.push((e.walker, e.hotspot, "cancelled"));
        })
        .add_observer(|e: On<InteractionUnreachable>, mut ended: ResMut<Ended>| {
            ended.0.push((e.walker, e.hotspot, "unreachable"));
        });
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path.clone());
    let room = app.world_mut().spawn(FromRoomFile(handle)).id();
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        world.get::<WalkRoom>(room).is_some() && hotspot_named(world, room, "door").is_some()
    });
    (app, room, path)
}

/// The hotspot child of `room` named `name`.
fn hotspot_named(world: &mut World, room: Entity, name: &str) -> Option<Entity> {
    world
        .query::<(Entity, &Hotspot, &ChildOf)>()
        .iter(world)
        .find(|(_, h, c)| c.parent() == room && h.name == name)
        .map(|(e, _, _)| e)
}

#[test]
fn a_room_file_gives_its_room_whole_and_a_walker_acts_on_its_hotspot() {
    for pace in Pace::BOTH {
        let (mut app, room, _) = app_with_room(pace, &format!("room_whole_{pace:?}"));
        let world = app.world_mut();
        let walk_room = world.get::<WalkRoom>(room).unwrap();
        assert_eq!(walk_room.scale, 1.0);
        assert!(walk_room.areas.contains(1));
        assert!(world.get::<WalkHotspots>(room).is_some());
        assert_eq!(
            world.get::<RoomEdges>(room),
            Some(&RoomEdges::default().with_left(2.0))
        );
        let regions = world.get::<WalkRegions>(room).unwrap();
        assert_eq!(regions.regions.len(), 1);
        assert_eq!(
            (
                regions.regions[0].name.as_str(),
                regions.regions[0].light,
                regions.regions[0].fade
            ),
            ("shade", 0.5, 3.0)
        );
        let map = world.get::<WalkScaling>(room).unwrap().map.clone().unwrap();
        assert_eq!((map.min, map.max), (0.5, 1.5));
        let bell = hotspot_named(world, room, "bell").unwrap();
        let hotspot = world.get::<Hotspot>(bell).unwrap().clone();
        assert_eq!(hotspot.walk_to, Some(Vec2::new(BELL.0, BELL.1)));
        // Its look-at point stays in room pixels.
        assert_eq!(hotspot.look_at, Some(Vec2::new(55.5, 10.5)));
        assert_eq!(
            hotspot.face,
            Some(FaceTarget::Direction(FacingDirection::Up))
        );
        assert_eq!(hotspot.policy(&Verb::LOOK), WalkPolicy::FaceOnly);
        assert_eq!(
            world.get::<RoomFilePart>(bell),
            Some(&RoomFilePart::Hotspot(1))
        );
        let door = hotspot_named(world, room, "door").unwrap();
        let exit = world.get::<RoomExit>(door).unwrap();
        assert_eq!(
            (exit.to.as_str(), exit.spawn.as_str()),
            ("yard", "from the hall")
        );
        assert_eq!(exit.walk_off, Some(Vec2::new(-4.0, 44.5)));
        // The lamp is painted but not listed: no hotspot.
        assert!(hotspot_named(world, room, "lamp").is_none());
        let spawns: Vec<SpawnPoint> = world
            .query::<(&SpawnPoint, &ChildOf)>()
            .iter(world)
            .filter(|(_, c)| c.parent() == room)
            .map(|(s, _)| s.clone())
            .collect();
        assert_eq!(
            spawns,
            [SpawnPoint::new("start", Vec2::new(10.5, 30.5)).facing(FacingDirection::Right)]
        );

        // A walker comes in at the spawn point and rings the bell: round the wall,
        // to the bell's walk-to point, facing up.
        let walker = app.world_mut().spawn(Walker::new(120.0)).id();
        app.world_mut()
            .commands()
            .entity(walker)
            .enter_room(room, "start");
        app.update();
        assert_eq!(
            common::position(&app, walker),
            Vec2::new(10.5 - 32.0, 24.0 - 30.5)
        );
        app.world_mut()
            .commands()
            .entity(walker)
            .interact(bell, Verb::INTERACT);
        let mut clock = pace.clock();
        clock.until(&mut app, 600, |w| !w.resource::<Ended>().0.is_empty());
        assert_eq!(
            app.world().resource::<Ended>().0,
            [(walker, bell, "arrived")],
            "{pace:?}"
        );
        let at = common::position(&app, walker);
        assert!(
            at.distance(Vec2::new(BELL.0 - 32.0, 24.0 - BELL.1)) < 1.0,
            "{pace:?}: {at}"
        );
    }
}

#[test]
fn a_room_file_changed_in_mid_walk_updates_its_room_in_place_and_the_walk_ends_once() {
    for pace in Pace::BOTH {
        let name = format!("room_changed_{pace:?}");
        let (mut app, room, path) = app_with_room(pace, &name);
        let bell = hotspot_named(app.world_mut(), room, "bell").unwrap();
        let mask = app.world().get::<WalkRoom>(room).unwrap().mask.clone();
        let walker = app.world_mut().spawn(Walker::new(60.0)).id();
        app.world_mut()
            .commands()
            .entity(walker)
            .enter_room(room, "start");
        app.update();
        app.world_mut()
            .commands()
            .entity(walker)
            .interact(bell, Verb::INTERACT);
        let mut clock = pace.clock();
        clock.frames(&mut app, 20);
        assert!(
            app.world().resource::<Ended>().0.is_empty(),
            "still walking"
        );
        // The bell's walk-to point moves and the lamp is listed.
        std::fs::write(asset_file(&path), room_file_text(&name, BELL_MOVED, true)).unwrap();
        app.world().resource::<AssetServer>().reload(path.clone());
        clock.until(&mut app, 300, |w| hotspot_named(w, room, "lamp").is_some());
        // The same hotspot entity, moved; the same room and mask.
        assert_eq!(hotspot_named(app.world_mut(), room, "bell"), Some(bell));
        assert_eq!(
            app.world().get::<Hotspot>(bell).unwrap().walk_to,
            Some(Vec2::new(BELL_MOVED.0, BELL_MOVED.1))
        );
        assert_eq!(app.world().get::<WalkRoom>(room).unwrap().mask, mask);
        let parts = app
            .world_mut()
            .query::<(&RoomFilePart, &ChildOf)>()
            .iter(app.world())
            .filter(|(_, c)| c.parent() == room)
            .count();
        assert_eq!(parts, 4, "bell, door, lamp and the spawn point");
        // The walk under way goes on and ends once.
        clock.until(&mut app, 800, |w| !w.resource::<Ended>().0.is_empty());
        clock.frames(&mut app, 30);
        assert_eq!(
            app.world().resource::<Ended>().0,
            [(walker, bell, "arrived")],
            "{pace:?}"
        );
        let log = app.world().resource::<Log>();
        let mut ids: Vec<_> = log.both().iter().map(|e| e.request).collect();
        ids.sort_unstable_by_key(|id| format!("{id:?}"));
        ids.dedup();
        assert_contract(log, &ids);
    }
}

/// The load error of `path`, once it has failed.
fn load_error(path: &str, text: &str) -> String {
    create_generated_dir();
    std::fs::write(asset_file(path), text).unwrap();
    let mut app = headless_app(Pace::Exact(2).plugin());
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path.to_string());
    let mut error = None;
    for _ in 0..500 {
        app.update();
        if let Some(bevy::asset::LoadState::Failed(e)) = app
            .world()
            .resource::<AssetServer>()
            .get_load_state(&handle)
        {
            error = Some(e.to_string());
            break;
        }
    }
    error.unwrap_or_else(|| panic!("{path} loaded"))
}

#[test]
fn a_bad_room_file_fails_to_load_naming_the_field_and_the_value() {
    write_room("room_bad");
    let good = room_file_text("room_bad", BELL, false);
    let outside = good.replace("(55.5, 20.5)", "(500, 10)");
    let e = load_error("generated/room_bad_outside.room.ron", &outside);
    assert!(
        e.contains("hotspots.ids[1].walk_to = (500, 10)") && e.contains("outside the room"),
        "{e}"
    );
    let misspelt = good.replace("spawn_points:", "spawn_pionts:");
    let e = load_error("generated/room_bad_misspelt.room.ron", &misspelt);
    assert!(e.contains("spawn_pionts"), "{e}");
    let missing = good.replace("room_bad.regions.ids.png", "nowhere.png");
    let e = load_error("generated/room_bad_missing.room.ron", &missing);
    assert!(e.contains("nowhere.png"), "{e}");
    common::write_grey_png("generated/room_bad_empty.ids.png", (64, 48), |_, _| 0);
    let empty = good.replace("room_bad.regions.ids.png", "room_bad_empty.ids.png");
    let e = load_error("generated/room_bad_empty.room.ron", &empty);
    assert!(
        e.contains("regions.image") && e.contains("has no ids"),
        "{e}"
    );
}

/// The rows of mask pixels of area `id` on row `y`: (first x, last x).
#[cfg(feature = "ags")]
fn span(mask: &bevy_walkmask::WalkMask, id: u8, y: u32) -> (u32, u32) {
    let xs: Vec<u32> = (0..mask.width())
        .filter(|&x| mask.area_at(x, y) == Some(id))
        .collect();
    (*xs.first().unwrap(), *xs.last().unwrap())
}

#[cfg(feature = "ags")]
#[test]
fn an_ags_room_loads_as_a_room_and_a_walker_walks_its_areas() {
    let testdata = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/ags");
    create_generated_dir();
    std::fs::copy(
        format!("{testdata}/3.6.3/room3.crm"),
        asset_file("generated/ags_room3.crm"),
    )
    .unwrap();
    std::fs::create_dir_all(asset_file("generated/ags_room1")).unwrap();
    for file in [
        "data.xml",
        "background0.png",
        "walkableareas.png",
        "hotspots.png",
        "regions.png",
        "walkbehinds.png",
    ] {
        std::fs::copy(
            format!("{testdata}/4.0/Rooms/1/{file}"),
            asset_file(&format!("generated/ags_room1/{file}")),
        )
        .unwrap();
    }
    for pace in Pace::BOTH {
        let mut app = headless_app(pace.plugin());
        add_log(&mut app);
        let server = app.world().resource::<AssetServer>().clone();
        let room = app
            .world_mut()
            .spawn(FromRoomFile(server.load("generated/ags_room3.crm")))
            .id();
        let folder = app
            .world_mut()
            .spawn((
                FromRoomFile(server.load("generated/ags_room1/data.xml")),
                Transform::from_xyz(2000.0, 0.0, 0.0),
            ))
            .id();
        common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
            for from in [room, folder] {
                let handle = world.get::<FromRoomFile>(from).unwrap().0.clone();
                if let Some(bevy::asset::LoadState::Failed(e)) =
                    world.resource::<AssetServer>().get_load_state(&handle)
                {
                    panic!("{e}");
                }
            }
            hotspot_named(world, room, "The second hotspot").is_some()
                && world.get::<WalkRoom>(folder).is_some()
        });
        assert!(hotspot_named(app.world_mut(), room, "The first hotspot").is_some());
        let named: Vec<String> = {
            let world = app.world_mut();
            world
                .query::<(&Hotspot, &ChildOf)>()
                .iter(world)
                .filter(|(_, c)| c.parent() == folder)
                .map(|(h, _)| h.name.clone())
                .collect()
        };
        assert_eq!(named.len(), 6, "{named:?}");
        // A walk along walkable area 1 (rows 126 to 144), end to end.
        let mask_handle = app.world().get::<WalkRoom>(room).unwrap().mask.clone();
        let mask = app
            .world()
            .resource::<Assets<bevy_walkmask::WalkMask>>()
            .get(&mask_handle)
            .unwrap()
            .clone();
        assert_eq!((mask.width(), mask.height()), (640, 400));
        let (first, last) = span(&mask, 1, 135);
        let world_of = |x: u32, y: u32| Vec2::new(x as f32 + 0.5 - 320.0, 200.0 - (y as f32 + 0.5));
        let walker = common::spawn_walker(&mut app, Walker::new(200.0), world_of(first + 2, 135));
        let target = world_of(last - 2, 135);
        let id = common::request(&mut app, walker, target);
        let mut clock = pace.clock();
        let mut on_floor = true;
        clock.until(&mut app, 2000, |w| {
            let at = w.get::<Transform>(walker).unwrap().translation.truncate();
            let (x, y) = ((at.x + 320.0).floor() as u32, (200.0 - at.y).floor() as u32);
            on_floor &= mask.area_at(x, y).is_some_and(|a| a != 0);
            w.resource::<Log>()
                .of(id)
                .iter()
                .any(|e| matches!(e.kind, common::Kind::Arrived(_)))
        });
        assert!(on_floor, "{pace:?}: the walker left the floor");
        assert!(common::position(&app, walker).distance(target) < 1.0);
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// The room file the guide shows (`src/guide/rooms.md`) reads and holds good values.
#[test]
fn the_guides_room_file_reads() {
    let guide = include_str!("../../src/guide/rooms.md");
    let start = guide.find("```ron\n").expect("a RON block") + "```ron\n".len();
    let end = start + guide[start..].find("```").unwrap();
    let room = bevy_walkmask::walkmask::room_file::RoomFile::from_ron(&guide[start..end])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(room.check(), []);
    assert_eq!(room.exits[0].to, "garden");
    assert_eq!(room.hotspots.unwrap().scale, 4);
}

/// A walker sent into a room made from a room file in the same frame the room is
/// spawned waits for the file and comes in at its spawn point (before, the spawn point
/// was not there yet and it stayed where it was).
#[test]
fn a_walker_sent_into_a_room_whose_file_is_loading_comes_in_at_its_spawn_point() {
    for pace in Pace::BOTH {
        let path = write_room(&format!("room_entered_early_{pace:?}"));
        let mut app = headless_app(pace.plugin());
        let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path);
        let room = app.world_mut().spawn(FromRoomFile(handle)).id();
        let walker = app
            .world_mut()
            .spawn((Walker::new(120.0), Transform::from_xyz(500.0, 500.0, 0.0)))
            .id();
        app.world_mut()
            .commands()
            .entity(walker)
            .enter_room(room, "start");
        let spawn = Vec2::new(10.5 - 32.0, 24.0 - 30.5);
        common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
            world
                .get::<Transform>(walker)
                .is_some_and(|t| t.translation.truncate() == spawn)
        });
        assert!(
            app.world()
                .get::<bevy_walkmask::EnteringRoom>(walker)
                .is_none()
        );
        assert_eq!(
            app.world()
                .get::<bevy_walkmask::CurrentRoom>(walker)
                .and_then(|c| c.get()),
            Some(room)
        );
    }
}

/// A walker sent into a room whose file fails to load is not kept waiting: it stays
/// where it is.
#[test]
fn a_walker_sent_into_a_room_whose_file_fails_stays_where_it_is() {
    write_room("room_entered_failed");
    let path = "generated/room_entered_failed_bad.room.ron";
    let bad = room_file_text("room_entered_failed", (500.0, 10.0), false);
    std::fs::write(asset_file(path), bad).unwrap();
    let mut app = headless_app(Pace::Exact(2).plugin());
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path);
    let room = app.world_mut().spawn(FromRoomFile(handle.clone())).id();
    let walker = app
        .world_mut()
        .spawn((Walker::new(120.0), Transform::from_xyz(5.0, 6.0, 0.0)))
        .id();
    app.world_mut()
        .commands()
        .entity(walker)
        .enter_room(room, "start");
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        matches!(
            world.resource::<AssetServer>().get_load_state(&handle),
            Some(bevy::asset::LoadState::Failed(_))
        )
    });
    common::run(&mut app, 3);
    assert!(
        app.world()
            .get::<bevy_walkmask::RoomPending>(room)
            .is_none()
    );
    assert!(
        app.world()
            .get::<bevy_walkmask::EnteringRoom>(walker)
            .is_none()
    );
    assert_eq!(common::position(&app, walker), Vec2::new(5.0, 6.0));
}

/// A room file with props over the test room: a desk (baseline row 30) and a lamp
/// that starts hidden; `desk_at` places the desk, `lamp` lists the lamp.
#[cfg(feature = "sprites")]
fn props_room_text(name: &str, desk_at: (f32, f32), lamp: bool) -> String {
    let lamp = if lamp {
        format!(r#"(name: "lamp", image: "{name}.prop.png", at: (40, 4), visible: false),"#)
    } else {
        String::new()
    };
    format!(
        r#"(
    size: (64, 48),
    walk_mask: (image: "{name}.walk.png"),
    props: [
        (name: "desk", image: "{name}.prop.png", at: ({}, {}), baseline: 30),
        {lamp}
    ],
)
"#,
        desk_at.0, desk_at.1
    )
}

/// Writes the room file of `props_room_text` (desk at (10, 20), lamp listed) with its
/// mask and prop picture; returns its asset path.
#[cfg(feature = "sprites")]
fn write_props_room(name: &str) -> String {
    create_generated_dir();
    common::write_grey_png(
        &format!("generated/{name}.walk.png"),
        (64, 48),
        common::room_pixel,
    );
    common::write_grey_png(&format!("generated/{name}.prop.png"), (4, 4), |_, _| 200);
    let path = format!("generated/{name}.room.ron");
    std::fs::write(asset_file(&path), props_room_text(name, (10.0, 20.0), true)).unwrap();
    path
}

/// The props of `room`: name, local translation, baseline and visibility.
#[cfg(feature = "sprites")]
fn props_of(world: &mut World, room: Entity) -> Vec<(String, Vec2, Baseline, Visibility, Entity)> {
    let mut props: Vec<_> = world
        .query::<(
            Entity,
            &RoomFilePart,
            &Transform,
            &Baseline,
            &Visibility,
            &ChildOf,
        )>()
        .iter(world)
        .filter(|(.., c)| c.parent() == room)
        .filter_map(|(e, part, t, b, v, _)| match part {
            RoomFilePart::Prop(name) => Some((name.clone(), t.translation.truncate(), *b, *v, e)),
            _ => None,
        })
        .collect();
    props.sort_by(|a, b| a.0.cmp(&b.0));
    props
}

#[cfg(feature = "sprites")]
#[test]
fn a_room_files_props_are_sprites_placed_in_room_pixels_and_follow_the_file() {
    let name = "room_props";
    let path = write_props_room(name);
    let mut app = headless_app(Pace::Exact(2).plugin());
    app.add_plugins(bevy::image::ImagePlugin::default());
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path.clone());
    let room = app.world_mut().spawn(FromRoomFile(handle)).id();
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        props_of(world, room).len() == 2
    });
    let props = props_of(app.world_mut(), room);
    // Room pixel (10, 20) of the 64 x 48 room is (-22, 4) in its own space.
    assert_eq!(
        (props[0].0.as_str(), props[0].1, props[0].2, props[0].3),
        (
            "desk",
            Vec2::new(-22.0, 4.0),
            Baseline::Row(30.0),
            Visibility::Inherited
        )
    );
    // No baseline: behind every character (row 0).
    assert_eq!(
        (props[1].0.as_str(), props[1].2, props[1].3),
        ("lamp", Baseline::Row(0.0), Visibility::Hidden)
    );
    let (desk, lamp) = (props[0].4, props[1].4);
    assert!(app.world().get::<Sprite>(desk).is_some());
    // The game shows the lamp; the file moves the desk: the same entities, the desk
    // moved, the lamp still shown.
    app.world_mut()
        .entity_mut(lamp)
        .insert(Visibility::Inherited);
    std::fs::write(asset_file(&path), props_room_text(name, (12.0, 20.0), true)).unwrap();
    app.world().resource::<AssetServer>().reload(path.clone());
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        props_of(world, room)[0].1 == Vec2::new(-20.0, 4.0)
    });
    let props = props_of(app.world_mut(), room);
    assert_eq!((props[0].4, props[1].4), (desk, lamp));
    assert_eq!(props[1].3, Visibility::Inherited);
    // The lamp leaves the file: its entity goes.
    std::fs::write(
        asset_file(&path),
        props_room_text(name, (12.0, 20.0), false),
    )
    .unwrap();
    app.world().resource::<AssetServer>().reload(path);
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        props_of(world, room).len() == 1
    });
    assert!(app.world().get_entity(lamp).is_err());
}

/// A room file over a 64 x 48 mask split by a wall at x = 32, with a spawn point on
/// the left and, with `right`, one on the right.
#[cfg(feature = "debug_overlay")]
fn split_room_text(name: &str, right: bool) -> String {
    let right = if right {
        r#"(name: "right", at: (48.5, 24.5)),"#
    } else {
        ""
    };
    format!(
        r#"(
    size: (64, 48),
    walk_mask: (image: "{name}.walk.png"),
    spawn_points: [(name: "left", at: (10.5, 24.5)), {right}],
)
"#
    )
}

#[cfg(feature = "debug_overlay")]
#[test]
fn the_debug_overlay_lints_a_room_file_and_lints_it_again_when_it_changes() {
    use bevy_walkmask::walkmask::lint::ProblemKind;
    use bevy_walkmask::{RoomLint, WalkmaskDebugPlugin};

    let name = "room_linted";
    create_generated_dir();
    common::write_grey_png(&format!("generated/{name}.walk.png"), (64, 48), |x, _| {
        u8::from(x != 32)
    });
    let path = format!("generated/{name}.room.ron");
    std::fs::write(asset_file(&path), split_room_text(name, false)).unwrap();
    let mut app = headless_app(Pace::Exact(2).plugin());
    app.add_plugins(WalkmaskDebugPlugin);
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path.clone());
    let room = app.world_mut().spawn(FromRoomFile(handle)).id();
    let kinds = |world: &World| {
        world
            .get::<RoomLint>(room)
            .map(|lint| lint.problems.iter().map(|p| p.kind).collect::<Vec<_>>())
    };
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        kinds(world).is_some()
    });
    // The floor right of the wall: an island no spawn point reaches, marked there.
    assert_eq!(kinds(app.world()), Some(vec![ProblemKind::Island]));
    let lint = app.world().get::<RoomLint>(room).unwrap();
    assert_eq!(lint.problems[0].at, Some((33.5, 0.5)));
    assert_eq!(lint.errors().count(), 0);
    // A spawn point on the right: linted again, nothing wrong.
    std::fs::write(asset_file(&path), split_room_text(name, true)).unwrap();
    app.world().resource::<AssetServer>().reload(path);
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        kinds(world) == Some(vec![])
    });
}

/// An AGS 4 room folder whose background cannot be read (a folder where the picture
/// should be) fails to load naming it: only a background that is not there at all is
/// optional.
#[cfg(feature = "ags")]
#[test]
fn an_ags_room_folder_whose_background_cannot_be_read_fails_naming_it() {
    let testdata = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/ags");
    create_generated_dir();
    let folder = asset_file("generated/ags_unreadable");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("background0.png")).unwrap();
    for file in [
        "data.xml",
        "walkableareas.png",
        "hotspots.png",
        "regions.png",
        "walkbehinds.png",
    ] {
        std::fs::copy(format!("{testdata}/4.0/Rooms/1/{file}"), folder.join(file)).unwrap();
    }
    let mut app = headless_app(Pace::Exact(2).plugin());
    let handle: Handle<RoomAsset> = app
        .world()
        .resource::<AssetServer>()
        .load("generated/ags_unreadable/data.xml");
    let mut state = None;
    for _ in 0..500 {
        app.update();
        match app
            .world()
            .resource::<AssetServer>()
            .get_load_state(&handle)
        {
            Some(bevy::asset::LoadState::Failed(e)) => {
                state = Some(Err(e.to_string()));
                break;
            }
            Some(bevy::asset::LoadState::Loaded) => {
                state = Some(Ok(()));
                break;
            }
            _ => {}
        }
    }
    match state {
        Some(Err(e)) => assert!(e.contains("background0.png"), "{e}"),
        other => panic!("the room loaded without its background: {other:?}"),
    }
}

/// A room file whose load runs to its end before the app's first update (a load
/// started while the game builds its app, on a busy machine) still gets its props'
/// pictures: whether the app has images is known when the loader asks, not only
/// after `PreStartup`.
#[cfg(feature = "sprites")]
#[test]
fn a_room_file_loaded_before_the_first_update_has_its_props() {
    let name = "room_props_early";
    let path = write_props_room(name);
    let mut app = headless_app(Pace::Exact(2).plugin());
    app.add_plugins(bevy::image::ImagePlugin::default());
    let handle: Handle<RoomAsset> = app.world().resource::<AssetServer>().load(path);
    // The load runs on the IO pool meanwhile; nothing of the app has run yet.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let room = app.world_mut().spawn(FromRoomFile(handle)).id();
    common::wait_for(&mut app, common::LOAD_UPDATES, |world| {
        props_of(world, room).len() == 2
    });
}
