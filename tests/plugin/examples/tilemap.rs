//! `examples/tilemap.rs` (feature `tilemap`): the player walks the dungeon's tiles;
//! the door keeps it in the left half until `E` opens it; the slimes chase.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/tilemap.rs"]
mod example;

use bevy_walkmask::tilemap::WalkTileLayer;

/// World centre of tile (x, y) of the example's 40 x 24 map of 32-unit tiles,
/// centred 20 units below the origin.
fn tile(x: u32, y: u32) -> Vec2 {
    Vec2::new((x as f32 - 19.5) * 32.0, (y as f32 - 11.5) * 32.0 - 20.0)
}

#[test]
fn the_door_keeps_the_player_in_until_it_opens() {
    // bevy_ecs_tilemap's own plugin draws the map; headless, its components do.
    let mut app = example_app(example::example);
    frames_until(&mut app, 100, "the tile layer is spawned", |world| {
        world.query::<&WalkTileLayer>().iter(world).count() == 1
    });
    let player = player(&mut app);
    let at = walk_and_arrive(&mut app, player, tile(10, 4));
    assert!(at.distance(tile(10, 4)) < 1.0, "{at}");

    // Beyond the closed door: the walk ends short of it, in the left half.
    let beyond = tile(25, 12);
    let at = walk_and_arrive(&mut app, player, beyond);
    assert!(at.x < tile(20, 12).x, "stopped at {at}, left of the door");

    tap(&mut app, KeyCode::KeyE);
    let at = walk_and_arrive(&mut app, player, beyond);
    assert!(at.distance(beyond) < 1.0, "through the open door: {at}");
}
