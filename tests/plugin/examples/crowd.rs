//! `examples/crowd.rs`: 300 members go where the player is sent across the lobby, sharing
//! fields, and stand apart where they arrive.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/crowd.rs"]
mod example;

use bevy_walkmask::WarmFieldCache;
use example::{CROWD, Crowd, MEMBER_RADIUS, Member};

#[test]
fn the_crowd_goes_where_the_player_is_sent_and_stands_apart() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    tap(&mut app, KeyCode::KeyF); // go where clicked, not follow
    assert!(!app.world().resource::<Crowd>().follow);
    let player = player(&mut app);
    let to = Vec2::new(300.0, -250.0);
    walk_and_arrive(&mut app, player, to);
    frames_until(&mut app, 20_000, "the crowd stands", |world| {
        world
            .query_filtered::<&WalkState, With<Member>>()
            .iter(world)
            .all(|s| !matches!(s, WalkState::Walking | WalkState::Planning))
    });
    let feet: Vec<Vec2> = app
        .world_mut()
        .query_filtered::<&Transform, With<Member>>()
        .iter(app.world())
        .map(|t| t.translation.truncate())
        .collect();
    assert_eq!(feet.len(), CROWD);
    let near = feet.iter().filter(|p| p.distance(to) < 300.0).count();
    assert!(near > CROWD / 2, "{near} of {CROWD} near the player");
    let mut overlapping = 0;
    for (i, a) in feet.iter().enumerate() {
        overlapping += feet[i + 1..]
            .iter()
            .filter(|b| a.distance(**b) < MEMBER_RADIUS) // half their radii's sum
            .count();
    }
    assert_eq!(overlapping, 0, "members closer than one radius");
    let stats = app.world().resource::<WarmFieldCache>().stats();
    assert!(
        stats.shared > stats.fills,
        "walks traced from shared fields: {stats:?}"
    );
}
