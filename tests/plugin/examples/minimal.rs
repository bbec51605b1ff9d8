//! `examples/minimal.rs`: a click-to-walk room; the player walks across the lobby.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/minimal.rs"]
mod example;

#[test]
fn the_player_walks_across_the_lobby() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    let to = Vec2::new(300.0, -250.0);
    let at = walk_and_arrive(&mut app, player, to);
    assert!(at.distance(to) < 1.0, "arrived at {at}, asked {to}");
}
