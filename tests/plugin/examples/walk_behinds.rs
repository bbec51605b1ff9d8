//! `examples/walk_behinds.rs`: the pillars are cut from the picture and drawn over
//! the player behind them, under the player in front of them; the player grows (and
//! speeds up) as it walks down the room.

use bevy::image::{CompressedImageFormats, ImageLoader};

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/walk_behinds.rs"]
mod example;

fn app() -> (App, Entity) {
    let mut app = example_app(example::example);
    // Headless, no loader reads images (the renderer registers it): this one does,
    // so the pillars are cut from the picture.
    app.register_asset_loader(ImageLoader::new(CompressedImageFormats::empty()));
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    (app, player)
}

/// Room pixel (x right, y down) to world.
fn px(x: f32, y: f32) -> Vec2 {
    Vec2::new(x - 960.0, 540.0 - y)
}

fn walk(app: &mut App, player: Entity, to: Vec2) {
    let at = walk_and_arrive(app, player, to);
    assert!(at.distance(to) < 1.0, "arrived at {at}, asked {to}");
    app.update(); // sorted and placed
}

fn z(app: &App, entity: Entity) -> f32 {
    app.world()
        .get::<GlobalTransform>(entity)
        .unwrap()
        .translation()
        .z
}

#[test]
fn the_player_walks_behind_a_pillar_and_in_front_of_it() {
    let (mut app, player) = app();
    frames_until(&mut app, 20_000, "the pillars are cut out", |world| {
        world.query::<&WalkBehind>().iter(world).count() == 2
    });
    let (left, baseline) = app
        .world_mut()
        .query::<(Entity, &WalkBehind, &Baseline)>()
        .iter(app.world())
        .find(|(_, walk_behind, _)| walk_behind.id == 1)
        .map(|(entity, _, baseline)| (entity, *baseline))
        .unwrap();
    assert_eq!(baseline, Baseline::Row(example::PILLAR_BASELINE));
    // Cut from the left pillar's pixels: x 449 to 567, y 0 to 660 of the picture.
    let centre = app.world().get::<Transform>(left).unwrap().translation;
    assert_eq!(centre.truncate(), px(508.5, 330.5));

    // Between the pillar and the back wall: the pillar is drawn over the player.
    walk(&mut app, player, px(508.0, 600.0));
    let (behind, pillar) = (z(&app, player), z(&app, left));
    assert!(behind < pillar, "player z {behind}, pillar z {pillar}");
    assert!(behind > 0.0, "in front of the room's picture");
    // In front of it: the player is drawn over the pillar.
    walk(&mut app, player, px(508.0, 720.0));
    let (in_front, pillar) = (z(&app, player), z(&app, left));
    assert!(in_front > pillar, "player z {in_front}, pillar z {pillar}");
}

#[test]
fn the_player_grows_and_speeds_up_as_it_walks_toward_the_camera() {
    let (mut app, player) = app();
    let scale = |app: &App| app.world().get::<DepthScale>(player).unwrap().current;
    walk(&mut app, player, px(1200.0, 450.0));
    // The scale map's grey at row 450, about 50.5: 0.8 + 50.5 / 255.
    assert!((scale(&app) - 0.998).abs() < 0.01, "scale {}", scale(&app));

    let to = px(1200.0, 1000.0);
    app.world_mut().write_message(WalkRequest::new(player, to));
    let (mut last, mut steps, mut scales) = (px(1200.0, 450.0), Vec::new(), Vec::new());
    for _ in 0..20_000 {
        app.update();
        let transform = *app.world().get::<Transform>(player).unwrap();
        let at = transform.translation.truncate();
        assert_eq!(
            transform.scale,
            Vec3::splat(scale(&app)),
            "sized by its scale"
        );
        if at != last {
            steps.push(at.distance(last));
            scales.push(scale(&app));
        }
        last = at;
        if at.distance(to) < 1.0 {
            break;
        }
    }
    assert!(last.distance(to) < 1.0, "arrived at {last}");
    assert!(scales.windows(2).all(|w| w[1] >= w[0]), "grows all the way");
    // Row 1000: grey about 223, 0.8 + 223 / 255.
    assert!((scale(&app) - 1.675).abs() < 0.01, "scale {}", scale(&app));
    // 250 units a second times the scale, in 16 ms frames: about 4 at the back,
    // 6.7 at the front (the last step is what was left).
    let n = steps.len();
    assert!((steps[0] - 4.0).abs() < 0.2, "first step {}", steps[0]);
    assert!(
        (steps[n - 2] - 6.7).abs() < 0.2,
        "a step at the front {}",
        steps[n - 2]
    );
}
