//! Perspective scaling: walkers scale with depth by area rules or a scale map, and
//! their speed follows when asked.
//!
//! Headless app of `tests/common`; 64 x 48 masks at scale 1 with the room at the
//! origin, so pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{add_log, add_mask, deterministic, headless_app, position, px, request, run};

/// A room whose area 1 fills rows 8..=40 and area 2 the rest; `scaling` on it.
fn room_with(scaling: WalkScaling) -> App {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let mask = add_mask(
        &mut app,
        64,
        48,
        |_, y| if (8..=40).contains(&y) { 1 } else { 2 },
    );
    app.world_mut().spawn((WalkRoom::new(mask), scaling));
    app
}

fn scaled_walker(app: &mut App, depth: DepthScale, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((
            Walker::new(50.0),
            depth,
            Transform::from_translation(at.extend(1.0)),
        ))
        .id()
}

fn scale_of(app: &App, entity: Entity) -> Vec3 {
    app.world().get::<Transform>(entity).unwrap().scale
}

/// Linear in depth: the top row's scale at the top, the bottom row's at the bottom,
/// halfway between in the middle; another area without a rule keeps the base scale.
#[test]
fn a_linear_area_scales_from_its_top_row_to_its_bottom_row() {
    let mut app = room_with(WalkScaling::default().with_area(
        1,
        AreaScale::Linear {
            top: 0.5,
            bottom: 1.5,
        },
    ));
    let base = Vec3::new(2.0, 2.0, 1.0);
    let top = scaled_walker(&mut app, DepthScale::new(base), px(10, 8));
    let bottom = scaled_walker(&mut app, DepthScale::new(base), px(10, 40));
    let middle = scaled_walker(&mut app, DepthScale::new(base), px(10, 24));
    let outside = scaled_walker(&mut app, DepthScale::new(base), px(10, 44));
    run(&mut app, 1);
    assert!(
        (scale_of(&app, top) - base * 0.5).length() < 1e-4,
        "{}",
        scale_of(&app, top)
    );
    assert!((scale_of(&app, bottom) - base * 1.5).length() < 1e-4);
    assert!((scale_of(&app, middle) - base * 1.0).length() < 1e-4);
    assert_eq!(scale_of(&app, outside), base);
    assert_eq!(app.world().get::<DepthScale>(outside).unwrap().current, 1.0);
}

/// Walking down the area, the scale grows continuously: every frame a little, never
/// by a jump.
#[test]
fn the_scale_follows_a_walk_continuously() {
    let mut app = room_with(WalkScaling::default().with_area(
        1,
        AreaScale::Linear {
            top: 0.5,
            bottom: 1.5,
        },
    ));
    let walker = scaled_walker(&mut app, DepthScale::default(), px(10, 9));
    run(&mut app, 1);
    request(&mut app, walker, px(10, 39));
    let mut last = scale_of(&app, walker).x;
    for _ in 0..60 {
        run(&mut app, 1);
        let now = scale_of(&app, walker).x;
        assert!(now >= last - 1e-6, "the scale fell from {last} to {now}");
        assert!(
            now - last <= 1.0 / 32.0 * 50.0 * 0.016 + 1e-4,
            "a jump from {last} to {now}"
        );
        last = now;
    }
    assert!(last > 0.9, "the walker should be well down by now: {last}");
}

/// With `speed`, a walker at half scale walks at half speed.
#[test]
fn the_speed_follows_the_scale_when_asked() {
    let mut app = room_with(WalkScaling::default().with_area(1, AreaScale::Fixed(0.5)));
    let slow = scaled_walker(&mut app, DepthScale::default().with_speed(true), px(4, 20));
    let normal = scaled_walker(&mut app, DepthScale::default(), px(4, 30));
    run(&mut app, 1);
    request(&mut app, slow, px(60, 20));
    request(&mut app, normal, px(60, 30));
    run(&mut app, 1);
    let (slow_from, normal_from) = (position(&app, slow), position(&app, normal));
    run(&mut app, 10);
    let slow_went = position(&app, slow).distance(slow_from);
    let normal_went = position(&app, normal).distance(normal_from);
    assert!((slow_went - 25.0 * 0.16).abs() < 1e-3, "{slow_went}");
    assert!((normal_went - 50.0 * 0.16).abs() < 1e-3, "{normal_went}");
}

/// A scale map (a coarser greyscale image stretched over the mask) gives the scale
/// where no area rule applies, interpolated between its pixels.
#[test]
fn a_scale_map_gives_the_scale_where_no_rule_applies() {
    let mut app = headless_app(deterministic());
    // 8 x 6 map: grey 0 in the top row, 255 in the bottom row, linear between.
    let map = add_mask(&mut app, 8, 6, |_, y| (y * 51) as u8);
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    app.world_mut().spawn((
        WalkRoom::new(mask),
        WalkScaling::default().with_map(map, 0.5, 1.5),
    ));
    // Map row 0's centre is mask row 4 (y = 4.0), row 5's is mask row 44.
    let top = scaled_walker(&mut app, DepthScale::default(), Vec2::new(0.0, 24.0 - 4.0));
    let bottom = scaled_walker(&mut app, DepthScale::default(), Vec2::new(0.0, 24.0 - 44.0));
    let middle = scaled_walker(&mut app, DepthScale::default(), Vec2::new(0.0, 0.0));
    run(&mut app, 1);
    assert!(
        (scale_of(&app, top).x - 0.5).abs() < 1e-4,
        "{}",
        scale_of(&app, top)
    );
    assert!(
        (scale_of(&app, bottom).x - 1.5).abs() < 1e-4,
        "{}",
        scale_of(&app, bottom)
    );
    assert!(
        (scale_of(&app, middle).x - 1.0).abs() < 1e-4,
        "{}",
        scale_of(&app, middle)
    );
}

/// A walker with a vertical speed walks across the screen at its speed, up and down
/// at its vertical speed, and at an angle at the speed of the ellipse between; it
/// still arrives once, where it was sent. Under both paces (16 ms frames).
#[test]
fn a_vertical_speed_sets_the_speed_up_and_down_the_screen() {
    use common::{Log, Pace, assert_contract, wall_room_app};
    let walker = Walker::new(100.0).with_vertical_speed(25.0);
    // (from, to, the speed expected)
    let diagonal = walker.speed_towards(Vec2::new(1.0, -1.0));
    assert!((diagonal - 2500.0 / (0.5f32 * (25.0 * 25.0 + 100.0 * 100.0)).sqrt()).abs() < 1e-3);
    let legs = [
        (px(3, 30), px(27, 30), 100.0),
        (px(10, 40), px(10, 10), 25.0),
        (px(5, 10), px(25, 30), diagonal),
    ];
    for pace in Pace::BOTH {
        for (from, to, speed) in legs {
            let (mut app, _) = wall_room_app(pace.plugin());
            let entity = app
                .world_mut()
                .spawn((
                    walker.clone(),
                    Transform::from_translation(from.extend(1.0)),
                ))
                .id();
            let mut clock = pace.clock();
            clock.frames(&mut app, 2);
            let id = request(&mut app, entity, to);
            let mut moving = 0;
            let mut last = from;
            for _ in 0..3_000 {
                clock.frame(&mut app);
                let at = position(&app, entity);
                if at != last {
                    moving += 1;
                    last = at;
                }
                if app.world().get::<WalkPath>(entity).is_none() && moving > 0 {
                    break;
                }
            }
            assert!(
                last.distance(to) < 0.5,
                "{pace:?}: ended at {last}, sent to {to}"
            );
            let expected = from.distance(to) / speed / 0.016;
            assert!(
                (moving as f32 - expected).abs() <= 1.5,
                "{pace:?} {from} -> {to}: {moving} frames moving, {expected} expected at {speed}"
            );
            assert_contract(app.world().resource::<Log>(), &[id]);
        }
    }
}
