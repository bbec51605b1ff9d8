//! `examples/ags_room.rs`: AGS's room 3 loads as a room from its `.crm` file, its
//! hotspots named as AGS names them, and the player walks across its walkable area 1.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/ags_room.rs"]
mod example;

#[test]
fn the_player_walks_an_ags_room_whose_hotspots_have_their_ags_names() {
    let mut app = example_app_with_sources(example::example, &[("ags", "testdata/ags")]);
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    frames_until(&mut app, 100, "the player is put on the floor", |world| {
        world.get::<Visibility>(player) != Some(&Visibility::Hidden)
    });
    let mut names: Vec<String> = app
        .world_mut()
        .query::<&Hotspot>()
        .iter(app.world())
        .map(|h| h.name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["The first hotspot", "The second hotspot"]);
    // Across area 1 (a square of 19 x 19 pixels in the 640 x 400 room, centred at the
    // origin), to a pixel from its top-left corner.
    let from = position(&app, player);
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
    let at = walk_and_arrive(&mut app, player, to);
    assert!(at.distance(to) < 1.0, "arrived at {at}, asked {to}");
}
