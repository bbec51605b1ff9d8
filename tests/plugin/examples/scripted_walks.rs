//! `examples/scripted_walks.rs`: the butler's round runs step after step, each on the
//! last one's `RequestEnded`; `Space` skips a walk and `S` stops one, and the round
//! goes on.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/scripted_walks.rs"]
mod example;

use example::{HOME, Round};

fn round(app: &mut App) -> (Entity, usize, Option<RequestId>, Vec<RequestOutcome>) {
    let (entity, round) = app
        .world_mut()
        .query::<(Entity, &Round)>()
        .single(app.world())
        .expect("one walker on a round");
    (entity, round.next, round.waiting_for, round.ended.clone())
}

fn arrived_at(outcome: &RequestOutcome) -> Vec2 {
    match outcome {
        RequestOutcome::Arrived { position } => *position,
        other => panic!("arrived, not {other:?}"),
    }
}

#[test]
fn the_round_walks_faces_pauses_and_takes_its_cutscene_route() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    frames_until(&mut app, 3_000, "the second walk ends", |world| {
        let round = world.query::<&Round>().single(world).unwrap();
        round.ended.len() == 2
    });
    let (butler, _, _, ended) = round(&mut app);
    assert!(arrived_at(&ended[0]).distance(Vec2::new(540.0, -160.0)) < 1.0);
    assert!(arrived_at(&ended[1]).distance(Vec2::new(0.0, -460.0)) < 1.0);
    let facing = app.world().get::<Facing>(butler).unwrap().direction;
    assert_eq!(facing, FacingDirection::Up, "turned at the end of the walk");
    // The pause: a second of standing still before the cutscene route.
    for _ in 0..30 {
        app.update();
        assert_eq!(round(&mut app).2, None, "pausing");
    }
    frames_until(&mut app, 3_000, "the round ends", |world| {
        world.query::<&Round>().single(world).unwrap().ended.len() == 3
    });
    let (_, next, waiting, ended) = round(&mut app);
    assert_eq!((next, waiting), (4, None));
    assert!(arrived_at(&ended[2]).distance(HOME) < 1.0, "{ended:?}");
}

#[test]
fn space_skips_a_walk_and_s_stops_one() {
    let mut app = example_app(example::example);
    wait_for_rooms(&mut app);
    // Frames run back to back here: the room's grid takes many of them to build.
    frames_until(&mut app, 5_000, "the first walk is under way", |world| {
        world.query::<&WalkState>().single(world).unwrap() == &WalkState::Walking
    });
    tap(&mut app, KeyCode::Space);
    frames_until(&mut app, 10, "the skipped walk ends", |world| {
        !world
            .query::<&Round>()
            .single(world)
            .unwrap()
            .ended
            .is_empty()
    });
    let (butler, _, _, ended) = round(&mut app);
    assert!(
        arrived_at(&ended[0]).distance(Vec2::new(540.0, -160.0)) < 1.0,
        "a skipped walk arrives at its end: {ended:?}"
    );
    frames_until(&mut app, 5_000, "the second walk is under way", |world| {
        world.get::<WalkState>(butler) == Some(&WalkState::Walking)
    });
    let stopped_at = app
        .world()
        .get::<Transform>(butler)
        .unwrap()
        .translation
        .truncate();
    tap(&mut app, KeyCode::KeyS);
    let (_, next, _, ended) = round(&mut app);
    assert!(
        matches!(ended[1], RequestOutcome::Stopped { position, .. } if position.distance(stopped_at) < 10.0),
        "{ended:?}"
    );
    assert_eq!(next, 3, "the round goes on: the pause has started");
}
