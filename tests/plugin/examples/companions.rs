//! `examples/companions.rs`: the dog follows the player and the friend follows the
//! dog, all three keeping apart; `F` makes the friend wait, and again come along.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/companions.rs"]
mod example;

use example::Friend;

/// The dog and the friend.
fn companions(app: &mut App) -> (Entity, Entity) {
    let world = app.world_mut();
    let friend = world
        .query_filtered::<Entity, With<Friend>>()
        .single(world)
        .expect("one friend");
    let dog = world.get::<WalkFollow>(friend).expect("following").leader;
    (dog, friend)
}

/// Fails when two of `walkers` stand closer than 0.8 of their radii.
fn assert_apart(app: &App, walkers: &[Entity]) {
    for (i, &a) in walkers.iter().enumerate() {
        for &b in &walkers[i + 1..] {
            let radii = app.world().get::<Walker>(a).unwrap().radius
                + app.world().get::<Walker>(b).unwrap().radius;
            let apart = position(app, a).distance(position(app, b));
            assert!(
                apart >= 0.8 * radii,
                "{a} and {b} {apart} apart, radii {radii}"
            );
        }
    }
}

/// Runs frames until `done`, checking every one that the three keep apart. Frames
/// run back to back: the grids of the walkers' radii take many of them to build.
fn until_apart(app: &mut App, walkers: &[Entity], what: &str, mut done: impl FnMut(&App) -> bool) {
    for _ in 0..20_000 {
        app.update();
        assert_apart(app, walkers);
        if done(app) {
            return;
        }
    }
    panic!("{what}: not reached in 20000 frames");
}

/// Whether `a` stands within `within` of `b`.
fn near(app: &App, a: Entity, b: Entity, within: f32) -> bool {
    position(app, a).distance(position(app, b)) <= within
}

/// Whether `walker` stands still, with no walk.
fn standing(app: &App, walker: Entity) -> bool {
    app.world().get::<WalkPath>(walker).is_none()
}

#[test]
fn the_dog_and_the_friend_come_along_and_the_friend_waits_on_f() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    let (dog, friend) = companions(&mut app);
    let all = [player, dog, friend];
    let to = Vec2::new(300.0, -250.0);
    let at = walk_and_arrive(&mut app, player, to);
    assert!(
        at.distance(to) < 1.0,
        "the player arrived at {at}, asked {to}"
    );
    until_apart(&mut app, &all, "the dog and the friend catch up", |app| {
        near(app, dog, player, 40.0 + 10.0 + 1.0)
            && near(app, friend, dog, 60.0 + 40.0 + 1.0)
            && standing(app, dog)
            && standing(app, friend)
    });

    // `F`: she waits where she is while the others walk off.
    tap(&mut app, KeyCode::KeyF);
    assert!(app.world().get::<WalkFollow>(friend).is_none());
    let waiting_at = position(&app, friend);
    let back = Vec2::new(-600.0, -200.0);
    app.world_mut()
        .write_message(WalkRequest::new(player, back));
    until_apart(&mut app, &all, "the dog follows the player back", |app| {
        position(app, player).distance(back) < 1.0 && near(app, dog, player, 51.0)
    });
    // She stays put but for stepping aside as the two pass her: at most the width of
    // both (diameters 28 and 20), however the crowd's answers fall in time.
    assert!(
        position(&app, friend).distance(waiting_at) < 48.0,
        "the friend moved from {waiting_at} to {} while waiting",
        position(&app, friend)
    );
    assert!(!near(&app, friend, dog, 200.0), "the dog walked off");

    // `F` again: she comes along.
    tap(&mut app, KeyCode::KeyF);
    until_apart(&mut app, &all, "the friend comes back to the dog", |app| {
        near(app, friend, dog, 60.0 + 40.0 + 1.0) && standing(app, friend)
    });
}
