//! `examples/hotspots.rs`: the lobby's bell, painting and bench; using one walks to
//! it and acts once, looking at one acts at once where the player stands.

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/hotspots.rs"]
mod example;

/// Every `InteractionArrived` sent, as (hotspot, verb, where, walked there).
#[derive(Resource, Default)]
struct Acted(Vec<(Entity, Verb, Vec2, bool)>);

fn app() -> (App, Entity) {
    let mut app = example_app(example::example);
    app.init_resource::<Acted>().add_observer(
        |arrived: On<InteractionArrived>, mut acted: ResMut<Acted>| {
            acted.0.push((
                arrived.hotspot,
                arrived.verb.clone(),
                arrived.position,
                arrived.request.is_some(),
            ));
        },
    );
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    (app, player)
}

fn hotspot(app: &mut App, name: &str) -> Entity {
    app.world_mut()
        .query::<(Entity, &Hotspot)>()
        .iter(app.world())
        .find(|(_, hotspot)| hotspot.name == name)
        .map(|(entity, _)| entity)
        .unwrap_or_else(|| panic!("no hotspot named {name}"))
}

fn caption(app: &mut App) -> String {
    app.world_mut()
        .query_filtered::<&Text, With<example::Caption>>()
        .single(app.world())
        .expect("one caption")
        .0
        .clone()
}

#[test]
fn using_the_bell_walks_up_to_it_and_rings_it_once() {
    let (mut app, player) = app();
    let bell = hotspot(&mut app, "bell");
    app.world_mut()
        .commands()
        .entity(player)
        .interact(bell, Verb::INTERACT);
    frames_until(&mut app, 20_000, "the player acts on the bell", |world| {
        !world.resource::<Acted>().0.is_empty()
    });
    // Longer than it takes to act again, were it to.
    for _ in 0..60 {
        app.update();
    }
    let acted = &app.world().resource::<Acted>().0;
    assert_eq!(acted.len(), 1, "acted once: {:?}", acted);
    let (hotspot, verb, at, walked) = acted[0].clone();
    assert_eq!((hotspot, verb, walked), (bell, Verb::INTERACT, true));
    // The bell's walk-to point: room pixel (972, 470).
    let walk_to = Vec2::new(12.0, 70.0);
    assert!(at.distance(walk_to) < 1.0, "acted at {at}");
    assert!(position(&app, player).distance(walk_to) < 1.0);
    let facing = app.world().get::<Facing>(player).unwrap().direction;
    assert_eq!(facing, FacingDirection::Up);
    assert_eq!(caption(&mut app), "Ding! Nobody comes to the desk.");
}

#[test]
fn looking_at_the_painting_acts_at_once_without_walking() {
    let (mut app, player) = app();
    let from = position(&app, player);
    let painting = hotspot(&mut app, "painting");
    app.world_mut()
        .commands()
        .entity(player)
        .interact(painting, Verb::LOOK);
    app.update();
    let acted = app.world().resource::<Acted>().0.clone();
    assert_eq!(acted.len(), 1, "looked at once: {acted:?}");
    assert_eq!((acted[0].0, &acted[0].1), (painting, &Verb::LOOK));
    assert!(!acted[0].3, "a look does not walk");
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(
        position(&app, player),
        from,
        "the player stays where it was"
    );
    assert_eq!(app.world().resource::<Acted>().0.len(), 1);
    assert_eq!(caption(&mut app), "Green hills under a summer sky.");
}
