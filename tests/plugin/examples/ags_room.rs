//! `examples/ags_room.rs`: AGS's room 3 loads as a room from its `.crm` file in both
//! current room formats, its hotspots named as AGS names them, and the player walks
//! across its walkable area 1 in each; `N` goes on to the AGS 4 room folder, whose
//! hotspots are named as AGS names them and which has no floor to walk on.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/ags_room.rs"]
mod example;

/// The names of the hotspots of the room shown.
fn hotspot_names(app: &mut App) -> Vec<String> {
    let mut names: Vec<String> = app
        .world_mut()
        .query::<&Hotspot>()
        .iter(app.world())
        .map(|h| h.name.clone())
        .collect();
    names.sort();
    names
}

/// The player, once put on the room's floor, walks across area 1 (a square of 19 x
/// 19 pixels in the 640 x 400 room, centred at the origin), to a pixel from its
/// top-left corner.
fn walk_across_area_1(app: &mut App) {
    let player = player(app);
    frames_until(app, 200, "the player is put on the floor", |world| {
        world.get::<Visibility>(player) != Some(&Visibility::Hidden)
    });
    let from = position(app, player);
    let mask = app
        .world_mut()
        .query::<&WalkRoom>()
        .single(app.world())
        .unwrap()
        .mask
        .clone();
    let mask = app
        .world()
        .resource::<Assets<WalkMask>>()
        .get(&mask)
        .unwrap()
        .clone();
    let (top, _) = mask.area_rows(1).unwrap();
    let left = (0..mask.width())
        .find(|&x| mask.area_at(x, top) == Some(1))
        .unwrap();
    let to = Vec2::new(left as f32 + 1.5 - 320.0, 200.0 - (top as f32 + 1.5));
    assert!(to.distance(from) > 10.0, "a walk of {}", to.distance(from));
    let at = walk_and_arrive(app, player, to);
    assert!(at.distance(to) < 1.0, "arrived at {at}, asked {to}");
}

#[test]
fn the_player_walks_ags_rooms_of_both_formats_whose_hotspots_have_their_ags_names() {
    let mut app = example_app_with_sources(example::example, &[("ags", "testdata/ags")]);
    wait_for_rooms(&mut app);
    assert_eq!(
        hotspot_names(&mut app),
        ["The first hotspot", "The second hotspot"]
    );
    walk_across_area_1(&mut app);
    // N: the same room as AGS 3.6.2 compiled it (room format 33).
    tap(&mut app, KeyCode::KeyN);
    assert_eq!(app.world().resource::<example::Shown>().0, 1);
    wait_for_rooms(&mut app);
    frames_until(&mut app, 200, "the room's hotspots", |world| {
        world.query::<&Hotspot>().iter(world).count() == 2
    });
    assert_eq!(
        hotspot_names(&mut app),
        ["The first hotspot", "The second hotspot"]
    );
    walk_across_area_1(&mut app);
    // N: the AGS 4 room folder: its hotspots by their AGS names; no floor (AGS's test
    // room paints none), so the player stays hidden.
    tap(&mut app, KeyCode::KeyN);
    wait_for_rooms(&mut app);
    frames_until(&mut app, 200, "the room's hotspots", |world| {
        world.query::<&Hotspot>().iter(world).count() == 6
    });
    // These hotspots have no description: their script names name them.
    assert_eq!(
        hotspot_names(&mut app),
        [
            "hAnyClicker",
            "hHotspotOne",
            "hHotspotThree",
            "hHotspotTwo",
            "hInteractive",
            "hNoHandlers"
        ]
    );
    app.update();
    let player = player(&mut app);
    assert_eq!(
        app.world().get::<Visibility>(player),
        Some(&Visibility::Hidden)
    );
}
