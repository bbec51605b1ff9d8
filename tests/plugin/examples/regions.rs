//! `examples/regions.rs`: the rug tints the player and, roped off with `B`, is walked
//! round; the garden slows the player down.

use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput, NativeKey};

use super::*;

#[allow(dead_code)]
#[path = "../../../examples/regions.rs"]
mod example;

use example::{GARDEN, PLAYER_COLOUR, RUG};

/// The player's region crossings, in order: (entered, region).
#[derive(Resource, Default)]
struct Crossings(Vec<(bool, u8)>);

fn app() -> (App, Entity) {
    let mut app = example_app(example::example);
    app.init_resource::<Crossings>()
        .add_observer(
            |e: On<RegionEntered>, mut c: ResMut<Crossings>, t: Query<&Transform>| {
                eprintln!(
                    "DEBUG entered {} at {}",
                    e.region,
                    t.get(e.entity).unwrap().translation
                );
                c.0.push((true, e.region))
            },
        )
        .add_observer(|e: On<RegionExited>, mut c: ResMut<Crossings>| c.0.push((false, e.region)));
    wait_for_rooms(&mut app);
    let player = player(&mut app);
    (app, player)
}

/// Room pixel (x right, y down) to world.
fn px(x: f32, y: f32) -> Vec2 {
    Vec2::new(x - 960.0, 540.0 - y)
}

/// The player's crossings since the last call.
fn crossings(app: &mut App) -> Vec<(bool, u8)> {
    std::mem::take(&mut app.world_mut().resource_mut::<Crossings>().0)
}

fn walk(app: &mut App, player: Entity, to: Vec2) {
    let at = walk_and_arrive(app, player, to);
    assert!(at.distance(to) < 1.0, "arrived at {at}, asked {to}");
}

/// Presses and releases `B`, as the keyboard would.
fn press_b(app: &mut App) {
    for state in [ButtonState::Pressed, ButtonState::Released] {
        app.world_mut().write_message(KeyboardInput {
            key_code: KeyCode::KeyB,
            logical_key: Key::Unidentified(NativeKey::Unidentified),
            state,
            text: None,
            repeat: false,
            window: Entity::PLACEHOLDER,
        });
        app.update();
    }
}

fn rug_blocks(app: &mut App) -> bool {
    app.world_mut()
        .query::<&WalkRegions>()
        .single(app.world())
        .unwrap()
        .blocking()
        .contains(RUG)
}

fn colour(app: &App, player: Entity) -> LinearRgba {
    app.world().get::<Sprite>(player).unwrap().color.to_linear()
}

fn assert_close(a: LinearRgba, b: LinearRgba) {
    let d = Vec4::from(a.to_f32_array()) - Vec4::from(b.to_f32_array());
    assert!(d.abs().max_element() < 1e-3, "{a:?} is not {b:?}");
}

#[test]
fn walking_across_the_rug_enters_it_tints_the_player_and_leaves_it() {
    let (mut app, player) = app();
    walk(&mut app, player, px(600.0, 500.0));
    crossings(&mut app);
    walk(&mut app, player, px(850.0, 500.0));
    app.update();
    assert_eq!(crossings(&mut app), [(true, RUG)]);
    let region = app.world().get::<InRegion>(player).unwrap().region;
    assert_eq!(region, RUG);
    // The rug's warm light, at full strength in its middle.
    let tint = Color::srgb(1.0, 0.7, 0.5).to_linear();
    let base = PLAYER_COLOUR.to_linear();
    let lit = LinearRgba::rgb(
        base.red * tint.red,
        base.green * tint.green,
        base.blue * tint.blue,
    );
    assert_close(colour(&app, player), lit);
    walk(&mut app, player, px(1100.0, 500.0));
    app.update();
    assert_eq!(crossings(&mut app), [(false, RUG)]);
    assert_close(colour(&app, player), base);
}

#[test]
fn the_roped_off_rug_is_walked_round_until_it_opens_again() {
    let (mut app, player) = app();
    walk(&mut app, player, px(600.0, 500.0));
    press_b(&mut app);
    assert!(rug_blocks(&mut app), "B ropes the rug off");
    crossings(&mut app);
    walk(&mut app, player, px(1100.0, 500.0));
    assert_eq!(crossings(&mut app), [], "the walk went round the rug");

    press_b(&mut app);
    assert!(!rug_blocks(&mut app), "B opens it again");
    walk(&mut app, player, px(600.0, 500.0));
    assert_eq!(crossings(&mut app), [(true, RUG), (false, RUG)]);
}

#[test]
fn the_garden_slows_the_player_down() {
    let (mut app, player) = app();
    // Into the garden through the gate, then along the lawn.
    walk(&mut app, player, px(1600.0, 780.0));
    assert_eq!(crossings(&mut app), [(true, GARDEN)]);
    let to = px(1880.0, 780.0);
    app.world_mut().write_message(WalkRequest::new(player, to));
    let (mut last, mut steps) = (px(1600.0, 780.0), Vec::new());
    for _ in 0..20_000 {
        app.update();
        let at = app.world().get::<Transform>(player).unwrap().translation;
        if at.truncate() != last {
            steps.push(at.truncate().distance(last));
        }
        last = at.truncate();
        if last.distance(to) < 1.0 {
            break;
        }
    }
    assert!(last.distance(to) < 1.0, "arrived at {last}");
    // 300 units a second times 0.6, in 16 ms frames (the last step is what was
    // left).
    let full = &steps[..steps.len() - 1];
    assert!(full.len() > 90, "{} steps", steps.len());
    for step in full {
        assert!((step - 2.88).abs() < 0.01, "a step of {step}");
    }
}
