//! Rooms with other people in them: solid obstacles, re-plans when they move, clicks
//! on them, and walkers with a clearance radius.
//!
//! Headless app of `tests/common` (answers applied in the frame of their request,
//! fixed 16 ms frames). Masks are 64 x 48 at scale 1 with the room at the origin, so
//! pixel (px, py) is world (px - 32, 24 - py).

use crate::common;
#[cfg(feature = "picking")]
use crate::picking;

use bevy::prelude::*;
use bevy_walkmask::OBSTACLE_REPLAN_SECONDS;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, Pace, add_log, add_mask, deterministic, headless_app, position, px, request, run,
    run_until, spawn_walker,
};

/// An open room (everything walkable), and the app.
fn open_room() -> App {
    open_room_with(deterministic())
}

/// An open 64 x 48 room with `plugin`.
fn open_room_with(plugin: WalkmaskPlugin) -> App {
    let mut app = headless_app(plugin);
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    app.world_mut().spawn(WalkRoom::new(mask));
    app
}

/// Distance from `c` to the segment `a b`.
fn segment_distance(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() == 0.0 {
        0.0
    } else {
        ((c - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    };
    (a + ab * t).distance(c)
}

/// The least distance from `c` to any segment of `path`.
fn closest_approach(path: &[Vec2], c: Vec2) -> f32 {
    match path {
        [p] => p.distance(c),
        _ => path
            .windows(2)
            .map(|w| segment_distance(w[0], w[1], c))
            .fold(f32::INFINITY, f32::min),
    }
}

/// The rest of `walker`'s walk from where it stands.
fn remaining(app: &App, walker: Entity) -> Vec<Vec2> {
    let path = app.world().get::<WalkPath>(walker).expect("walking");
    let mut rest = vec![position(app, walker)];
    rest.extend_from_slice(&path.waypoints[path.next.min(path.waypoints.len())..]);
    rest
}

fn spawn_obstacle(app: &mut App, obstacle: WalkObstacle, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((obstacle, Transform::from_translation(at.extend(1.0))))
        .id()
}

/// A walker routes round a solid guard standing on the straight line; when the
/// guard steps away the walker re-plans and walks straight through the spot.
#[test]
fn a_walker_routes_round_a_solid_guard_and_through_the_spot_once_it_leaves() {
    let mut app = open_room();
    let guard_at = px(32, 24);
    let guard = spawn_obstacle(&mut app, WalkObstacle::circle(6.0), guard_at);
    let walker = spawn_walker(&mut app, Walker::new(30.0), px(4, 24));
    run(&mut app, 1);
    request(&mut app, walker, px(60, 24));
    run(&mut app, 1);
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, path, snapped) = &ready[0];
    assert!(!snapped);
    assert!(
        path.len() > 2,
        "a straight walk through the guard: {path:?}"
    );
    let gap = closest_approach(path, guard_at);
    assert!(
        gap >= 6.0,
        "the path passes {gap} from the guard's centre: {path:?}"
    );

    // The guard leaves while the walker is still short of it.
    run(&mut app, 5);
    app.world_mut()
        .get_mut::<Transform>(guard)
        .unwrap()
        .translation = px(32, 4).extend(1.0);
    run(&mut app, 2);
    let replanned = app.world().resource::<Log>().replanned(walker);
    assert_eq!(replanned.len(), 1, "one re-plan when the guard left");
    let rest = remaining(&app, walker);
    assert_eq!(rest.len(), 2, "straight on now: {rest:?}");
    assert!(closest_approach(&rest, guard_at) < 1.0, "{rest:?}");
    run_until(&mut app, 400, |w| w.get::<WalkPath>(walker).is_none());
    assert!(position(&app, walker).distance(px(60, 24)) < 1e-3);
}

/// An obstacle moved onto a walker's way re-plans it, and the new path keeps out of
/// the footprint; an obstacle that keeps moving re-plans it at most once every
/// `OBSTACLE_REPLAN_SECONDS`.
#[test]
fn an_obstacle_moved_across_the_path_re_plans_round_it() {
    let mut app = open_room();
    let walker = spawn_walker(&mut app, Walker::new(20.0), px(4, 24));
    let cart = spawn_obstacle(&mut app, WalkObstacle::rect(Vec2::new(8.0, 8.0)), px(40, 4));
    run(&mut app, 1);
    request(&mut app, walker, px(60, 24));
    run(&mut app, 1);
    assert_eq!(remaining(&app, walker).len(), 2, "straight at first");
    // The cart rolls across the walk, a little every frame.
    let mut replans = 0;
    let frames = 60; // 0.96 s
    for frame in 0..frames {
        let y = 4.0 + frame as f32 * 0.5;
        app.world_mut()
            .get_mut::<Transform>(cart)
            .unwrap()
            .translation = Vec2::new(px(40, 0).x, 24.0 - y).extend(1.0);
        run(&mut app, 1);
        let now = app.world().resource::<Log>().replanned(walker).len();
        if now > replans {
            replans = now;
            // Every new path keeps out of the cart where it is now.
            let centre = position(&app, cart);
            let rest = remaining(&app, walker);
            for w in rest.windows(2) {
                for i in 0..=100 {
                    let p = w[0].lerp(w[1], i as f32 / 100.0);
                    let inside = (p - centre).abs().cmplt(Vec2::splat(4.0)).all();
                    assert!(
                        !inside,
                        "the re-planned walk {rest:?} enters the cart at {p}"
                    );
                }
            }
        }
    }
    assert!(
        replans >= 1,
        "the cart crossed the walk: the walker must re-plan"
    );
    let most = (frames as f32 * 0.016 / OBSTACLE_REPLAN_SECONDS).ceil() as usize + 1;
    assert!(
        replans <= most,
        "{replans} re-plans in {frames} frames (at most {most})"
    );
    run_until(&mut app, 600, |w| w.get::<WalkPath>(walker).is_none());
    let log = app.world().resource::<Log>();
    assert!(log.has(walker, |k| matches!(k, Kind::Arrived(_))));
}

/// An obstacle that moves onto the walk beyond the look-ahead
/// (`WalkTuning::obstacle_lookahead_seconds` of walking) re-plans nothing yet; once the
/// walker comes within the look-ahead of it, the walker re-plans round it, even though
/// the obstacle has not moved since, and never enters its footprint.
#[test]
fn an_obstacle_beyond_the_look_ahead_re_plans_only_once_the_walker_nears_it() {
    for pace in Pace::BOTH {
        let mut app = open_room_with(pace.plugin());
        let mut clock = pace.clock();
        // 10 units a second and a look-ahead of 2 s: 20 units ahead.
        let walker = spawn_walker(&mut app, Walker::new(10.0), px(4, 24));
        let cart = spawn_obstacle(&mut app, WalkObstacle::rect(Vec2::new(6.0, 6.0)), px(44, 4));
        clock.frame(&mut app);
        request(&mut app, walker, px(60, 24));
        clock.until(&mut app, 300, |w| {
            !w.resource::<Log>().ready(walker).is_empty()
        });
        assert_eq!(
            remaining(&app, walker).len(),
            2,
            "{pace:?}: straight at first"
        );
        // The cart rolls onto the walk some 40 units ahead and stops there.
        let cart_at = px(44, 24);
        app.world_mut()
            .get_mut::<Transform>(cart)
            .unwrap()
            .translation = cart_at.extend(1.0);
        clock.frames(&mut app, 10);
        assert!(
            app.world().resource::<Log>().replanned(walker).is_empty(),
            "{pace:?}: the cart is some 40 units ahead, beyond the look-ahead"
        );
        let mut nearest = f32::INFINITY;
        let frames = clock.until(&mut app, 600, |w| {
            !w.resource::<Log>().replanned(walker).is_empty()
        });
        // Re-planned once within the look-ahead (plus the cart's half width and the
        // walk of the frames the answer took), and before reaching the cart.
        let gap = cart_at.x - position(&app, walker).x;
        assert!(
            gap <= 20.0 + 3.0 + 2.0 && gap > 3.0,
            "{pace:?}: re-planned {gap} units short of the cart ({frames} frames)"
        );
        clock.until(&mut app, 900, |w| {
            let p = w.get::<Transform>(walker).unwrap().translation.truncate();
            nearest = nearest.min((p - cart_at).abs().max_element());
            w.get::<WalkPath>(walker).is_none()
        });
        assert!(
            nearest >= 3.0,
            "{pace:?}: the walker entered the cart ({nearest})"
        );
        assert!(
            position(&app, walker).distance(px(60, 24)) < 1e-3,
            "{pace:?}"
        );
    }
}

/// A click on a solid character (a request to its feet) walks up beside it: the
/// answer is snapped, outside the footprint and next to it.
#[test]
fn a_click_on_a_solid_character_walks_up_beside_it() {
    let mut app = open_room();
    let guard_at = px(40, 20);
    spawn_obstacle(
        &mut app,
        WalkObstacle::ellipse(Vec2::new(8.0, 4.0)),
        guard_at,
    );
    let walker = spawn_walker(&mut app, Walker::new(100.0), px(4, 24));
    run(&mut app, 1);
    request(&mut app, walker, guard_at);
    run(&mut app, 1);
    let ready = app.world().resource::<Log>().ready(walker);
    let (_, path, snapped) = &ready[0];
    assert!(snapped);
    let end = *path.last().unwrap();
    let d = ((end - guard_at) / Vec2::new(8.0, 4.0)).length();
    assert!(d >= 1.0, "the walk ends inside the guard: {end}");
    assert!(
        end.distance(guard_at) < 4.0 + 1.5,
        "the walk ends far from the guard: {end}"
    );
    // The walker itself may be solid: its own footprint never blocks its walks.
    let mut app = open_room();
    let npc = app
        .world_mut()
        .spawn((
            Walker::new(100.0),
            WalkObstacle::circle(5.0),
            Transform::from_translation(px(10, 10).extend(1.0)),
        ))
        .id();
    run(&mut app, 1);
    request(&mut app, npc, px(50, 30));
    run(&mut app, 1);
    let ready = app.world().resource::<Log>().ready(npc);
    assert_eq!(ready.len(), 1);
    assert!(!ready[0].2, "its own footprint snapped the walk");
    assert_eq!(ready[0].1.len(), 2);
}

/// Two walkers standing inside each other's footprints can still walk apart, and
/// a footprint that is not solid blocks nothing.
#[test]
fn touching_characters_walk_apart() {
    let mut app = open_room();
    let a = app
        .world_mut()
        .spawn((
            Walker::new(100.0),
            WalkObstacle::circle(6.0),
            Transform::from_translation(px(30, 24).extend(1.0)),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            Walker::new(100.0),
            WalkObstacle::circle(6.0),
            Transform::from_translation(px(34, 24).extend(1.0)),
        ))
        .id();
    run(&mut app, 1);
    request(&mut app, a, px(4, 24));
    request(&mut app, b, px(60, 24));
    run(&mut app, 1);
    let log = app.world().resource::<Log>();
    assert!(!log.ready(a)[0].2 && !log.ready(b)[0].2);
    // Not solid: walks straight through.
    app.world_mut().get_mut::<WalkObstacle>(b).unwrap().solid = false;
    let c = spawn_walker(&mut app, Walker::new(100.0), px(60, 40));
    run(&mut app, 1);
    let b_at = position(&app, b);
    request(&mut app, c, b_at + Vec2::new(0.0, 0.5));
    run(&mut app, 1);
    let ready = app.world().resource::<Log>().ready(c);
    assert!(
        !ready[0].2,
        "a footprint that is not solid snapped the walk"
    );
}

/// A walker wider than a door does not go through it; a thin one does, and keeps its
/// radius (less half a pixel) from every wall pixel.
#[test]
fn a_wide_walker_refuses_a_narrow_door_a_thin_one_passes() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    // A wall at x = 30..=33 with a door at y = 20..=24 (5 px).
    let wall = |x: u32, y: u32| (30..=33).contains(&x) && !(20..=24).contains(&y);
    let mask = add_mask(&mut app, 64, 48, move |x, y| u8::from(!wall(x, y)));
    app.world_mut().spawn(WalkRoom::new(mask));
    let thin = spawn_walker(&mut app, Walker::new(100.0).with_radius(1.5), px(10, 22));
    let wide = spawn_walker(&mut app, Walker::new(100.0).with_radius(3.0), px(10, 22));
    run(&mut app, 1);
    let goal = px(55, 22);
    request(&mut app, thin, goal);
    request(&mut app, wide, goal);
    run(&mut app, 1);
    let log = app.world().resource::<Log>();
    let (_, thin_path, thin_snapped) = &log.ready(thin)[0];
    let (_, wide_path, wide_snapped) = &log.ready(wide)[0];
    assert!(!thin_snapped, "the thin walker should pass: {thin_path:?}");
    assert_eq!(thin_path.last(), Some(&goal));
    assert!(
        *wide_snapped,
        "the wide walker squeezed through: {wide_path:?}"
    );
    assert!(wide_path.last().unwrap().x < px(30, 0).x);
    for y in 0..48 {
        for x in 0..64 {
            if wall(x, y) {
                let gap = closest_approach(thin_path, px(x, y));
                assert!(
                    gap >= 1.0 - 1e-3,
                    "{gap} from wall pixel ({x}, {y}): {thin_path:?}"
                );
            }
        }
    }
    // A radius that cannot be used is a clear refusal, not a panic.
    let bad = spawn_walker(
        &mut app,
        Walker::new(100.0).with_radius(f32::NAN),
        px(10, 22),
    );
    run(&mut app, 1);
    request(&mut app, bad, goal);
    run(&mut app, 1);
    assert!(
        app.world()
            .resource::<Log>()
            .has(bad, |k| matches!(k, Kind::Unreachable))
    );
}

/// A destination an obstacle moves onto mid-walk: the walker re-plans to the nearest
/// reachable point and says it was snapped.
#[test]
fn a_destination_covered_mid_walk_is_replaced_by_the_nearest_reachable_point() {
    let mut app = open_room();
    let walker = spawn_walker(&mut app, Walker::new(20.0), px(4, 24));
    let goal = px(50, 24);
    let cart = spawn_obstacle(&mut app, WalkObstacle::circle(5.0), px(50, 4));
    run(&mut app, 1);
    request(&mut app, walker, goal);
    run(&mut app, 2);
    app.world_mut()
        .get_mut::<Transform>(cart)
        .unwrap()
        .translation = goal.extend(1.0);
    run(&mut app, 2);
    let replanned = app.world().resource::<Log>().replanned(walker);
    let (_, path, snapped) = replanned.last().expect("a re-plan");
    assert!(snapped);
    let end = *path.last().unwrap();
    assert!(
        end.distance(goal) >= 5.0 && end.distance(goal) < 5.0 + 1.5,
        "{end}"
    );
    run_until(&mut app, 600, |w| w.get::<WalkPath>(walker).is_none());
    assert!(position(&app, walker).distance(goal) >= 5.0);
}

/// A picking click on a solid character's sprite walks the players up beside it, and
/// the click does not also reach the room it is a child of.
#[cfg(feature = "picking")]
#[test]
fn a_picking_click_on_a_solid_character_walks_the_player_beside_it() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    let guard_at = px(40, 24);
    let guard = app
        .world_mut()
        .spawn((
            WalkObstacle::circle(4.0),
            Transform::from_translation(guard_at.extend(1.0)),
            ChildOf(room),
        ))
        .id();
    let player = app
        .world_mut()
        .spawn((
            Walker::new(100.0),
            PlayerWalker,
            Transform::from_translation(px(4, 24).extend(1.0)),
        ))
        .id();
    run(&mut app, 1);
    // The hit is on the guard's head, above its feet.
    picking::click(
        &mut app,
        guard,
        guard_at + Vec2::new(0.0, 20.0),
        bevy::picking::pointer::PointerButton::Primary,
    );
    run(&mut app, 2);
    let log = app.world().resource::<Log>();
    let ready = log.ready(player);
    assert_eq!(
        ready.len(),
        1,
        "one request, not one for the guard and one for the room"
    );
    let (target, path, snapped) = &ready[0];
    assert_eq!(*target, guard_at, "the walk goes to the guard's feet");
    assert!(snapped);
    let end = *path.last().unwrap();
    assert!(
        end.distance(guard_at) >= 4.0 && end.distance(guard_at) < 4.0 + 1.5,
        "{end}"
    );
    assert_eq!(log.both().iter().filter(|e| e.kind.is_answer()).count(), 1);
}

/// An answer joined to a walker that game code moved meanwhile: the straight step
/// from where the walker now is onto the path must keep out of obstacles too.
#[test]
fn joining_a_moved_walker_to_its_path_keeps_out_of_obstacles() {
    let mut app = headless_app(bevy_walkmask::WalkmaskPlugin {
        answer_timing: bevy_walkmask::AnswerTiming::AfterFrames(4),
        ..deterministic()
    });
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    app.world_mut().spawn(WalkRoom::new(mask));
    // Off the straight walk along row 24, but on the way from (20, 10) to its end.
    let rock_at = px(30, 13);
    spawn_obstacle(&mut app, WalkObstacle::circle(3.0), rock_at);
    let walker = spawn_walker(&mut app, Walker::new(20.0), px(4, 24));
    run(&mut app, 1);
    request(&mut app, walker, px(60, 24));
    run(&mut app, 1);
    // Game code moves the walker while the answer is computed.
    app.world_mut()
        .get_mut::<Transform>(walker)
        .unwrap()
        .translation = px(20, 10).extend(1.0);
    for _ in 0..12 {
        run(&mut app, 1);
        if app.world().get::<WalkPath>(walker).is_some() {
            let rest = remaining(&app, walker);
            let gap = closest_approach(&rest, rock_at);
            assert!(
                gap >= 3.0,
                "the walk {rest:?} passes {gap} from the rock's centre"
            );
        }
    }
    assert!(
        app.world().get::<WalkPath>(walker).is_some(),
        "the walker should walk"
    );
}
