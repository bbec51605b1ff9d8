//! Walkers that see each other (`Avoidance`): crowds sent to one point stand side by
//! side, walkers meeting head-on pass each other, a standing walker steps aside, the
//! player walks through a crowd that parts; every frame, nobody stands on a blocked
//! pixel of its grid, and every request gets its one answer and its one end.
//!
//! Each scenario runs under both paces (`Pace::BOTH`): answers two frames after their
//! search, frames back to back; and answers when ready, frames paced in real time.

mod common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{FrameClock, Kind, Log, Pace, add_log, add_mask, assert_contract, headless_app};

/// A room of `w` x `h` mask pixels at the origin (pixel (x, y) is world
/// (x - w / 2, h / 2 - y)), walkable where `walkable` says.
fn room_app(
    pace: Pace,
    w: u32,
    h: u32,
    walkable: impl Fn(u32, u32) -> bool + Send + Sync + 'static,
) -> App {
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    let mask = add_mask(&mut app, w, h, move |x, y| u8::from(walkable(x, y)));
    app.world_mut().spawn(WalkRoom::new(mask));
    app
}

/// The mask pixel under world point `p` in a `w` x `h` room at the origin.
fn pixel(p: Vec2, w: u32, h: u32) -> (i64, i64) {
    (
        (p.x + w as f32 / 2.0).floor() as i64,
        (h as f32 / 2.0 - p.y).floor() as i64,
    )
}

fn position(app: &App, entity: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(entity)
        .unwrap()
        .translation
        .truncate()
}

fn send(app: &mut App, walker: Entity, to: Vec2) -> RequestId {
    let request = WalkRequest::new(walker, to);
    let id = request.id;
    app.world_mut().write_message(request);
    id
}

fn arrived(app: &App, walker: Entity) -> bool {
    app.world()
        .resource::<Log>()
        .has(walker, |k| matches!(k, Kind::Arrived(_)))
}

/// The smallest distance between two of `walkers`' centres, divided by the sum of
/// their radii.
fn closest_pair(app: &App, walkers: &[(Entity, f32)]) -> f32 {
    let mut closest = f32::INFINITY;
    for (i, &(a, ra)) in walkers.iter().enumerate() {
        for &(b, rb) in &walkers[i + 1..] {
            closest = closest.min(position(app, a).distance(position(app, b)) / (ra + rb));
        }
    }
    closest
}

/// Asserts every walker's centre is `radius` (less half a pixel) away from every
/// blocked pixel, as its grid requires.
fn assert_clear_of_walls(
    app: &App,
    walkers: &[(Entity, f32)],
    (w, h): (u32, u32),
    walkable: &impl Fn(u32, u32) -> bool,
) {
    for &(walker, radius) in walkers {
        let p = position(app, walker);
        let (cx, cy) = pixel(p, w, h);
        let reach = radius.ceil() as i64 + 1;
        for y in cy - reach..=cy + reach {
            for x in cx - reach..=cx + reach {
                let blocked = x < 0
                    || y < 0
                    || x >= w as i64
                    || y >= h as i64
                    || !walkable(x as u32, y as u32);
                if !blocked {
                    continue;
                }
                let centre = Vec2::new(
                    x as f32 + 0.5 - w as f32 / 2.0,
                    h as f32 / 2.0 - y as f32 - 0.5,
                );
                let clear = (p - centre).length();
                assert!(
                    clear >= radius - 0.5 - 1e-3 || clear.is_nan(),
                    "walker {walker} at {p} is {clear} from blocked pixel ({x}, {y})"
                );
            }
        }
    }
}

/// Thirty walkers of radius 6 sent together to one point of a room with a wall
/// beside it all arrive, on distinct spots: no two centres closer than 0.9 x the sum
/// of their radii, each clear of the walls, none behind the wall.
#[test]
fn a_crowd_sent_to_one_point_stands_side_by_side() {
    for pace in Pace::BOTH {
        let (w, h) = (240, 160);
        // A wall at x = 150..=153 from the top down to y = 110.
        let walkable = |x: u32, y: u32| !((150..=153).contains(&x) && y <= 110);
        let mut app = room_app(pace, w, h, walkable);
        let radius = 6.0;
        let walkers: Vec<(Entity, f32)> = (0..30)
            .map(|i| {
                let at = Vec2::new(
                    -100.0 + (i % 6) as f32 * 16.0,
                    -50.0 + (i / 6) as f32 * 16.0,
                );
                let walker = app
                    .world_mut()
                    .spawn((
                        Walker::new(80.0).with_radius(radius),
                        Transform::from_translation(at.extend(1.0)),
                    ))
                    .id();
                (walker, radius)
            })
            .collect();
        app.update();
        // Just left of the wall (world x = 30 is pixel 150).
        let goal = Vec2::new(20.0, 20.0);
        let ids: Vec<RequestId> = walkers
            .iter()
            .map(|&(e, _)| send(&mut app, e, goal))
            .collect();
        let mut clock: FrameClock = pace.clock();
        for _ in 0..1500 {
            clock.frame(&mut app);
            let log = app.world().resource::<Log>();
            if walkers
                .iter()
                .all(|&(e, _)| log.has(e, |k| matches!(k, Kind::Arrived(_))))
            {
                break;
            }
        }
        assert_clear_of_walls(&app, &walkers, (w, h), &walkable);
        let closest = closest_pair(&app, &walkers);
        assert!(
            closest >= 0.9,
            "{pace:?}: two walkers {closest} x their radii apart"
        );
        for &(walker, _) in &walkers {
            assert!(arrived(&app, walker));
            let p = position(&app, walker);
            assert!(
                p.x < 30.0,
                "{pace:?}: walker {walker} at {p} is behind the wall"
            );
            // Thirty footprints of 13.2 packed round a point 10 units from a wall,
            // on rings a footprint apart, reach about five rings out.
            assert!(
                p.distance(goal) < 80.0,
                "{pace:?}: walker {walker} at {p} is far from {goal}"
            );
        }
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// Two walkers meeting head-on in a corridor wide enough for both pass each other
/// and both arrive within a time bound, never overlapping on the way.
#[test]
fn walkers_meeting_head_on_in_a_corridor_pass_each_other() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 60);
        // A corridor 30 pixels tall (y = 15..45) across the room.
        let walkable = |_x: u32, y: u32| (15..45).contains(&y);
        let mut app = room_app(pace, w, h, walkable);
        let radius = 6.0;
        let spawn = |app: &mut App, x: f32| {
            app.world_mut()
                .spawn((
                    Walker::new(60.0).with_radius(radius),
                    Transform::from_xyz(x, 0.0, 1.0),
                ))
                .id()
        };
        let a = spawn(&mut app, -85.0);
        let b = spawn(&mut app, 85.0);
        let walkers = [(a, radius), (b, radius)];
        app.update();
        let ids = [
            send(&mut app, a, Vec2::new(85.0, 0.0)),
            send(&mut app, b, Vec2::new(-85.0, 0.0)),
        ];
        let mut clock = pace.clock();
        let mut closest = f32::INFINITY;
        let frames = clock.until(&mut app, 600, |world| {
            let log = world.resource::<Log>();
            [a, b]
                .iter()
                .all(|&e| log.has(e, |k| matches!(k, Kind::Arrived(_))))
        });
        // 170 units at 60 a second is 2.8 s alone: the detour costs well under 2 s more.
        assert!(frames < 300, "{pace:?}: {frames} frames");
        closest = closest.min(closest_pair(&app, &walkers));
        assert!(closest >= 0.9, "{pace:?}: {closest}");
        assert_clear_of_walls(&app, &walkers, (w, h), &walkable);
        for (walker, end) in [(a, 85.0), (b, -85.0)] {
            let p = position(&app, walker);
            assert!(
                (p.x - end).abs() < 1e-3 && p.y.abs() < 1e-3,
                "{pace:?}: {walker} ended at {p}"
            );
        }
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}
