//! Walkers that see each other (`Avoidance`): crowds sent to one point stand side by
//! side, walkers meeting head-on pass each other, a standing walker steps aside, the
//! player walks through a crowd that parts; every frame, nobody stands on a blocked
//! pixel of its grid, and every request gets its one answer and its one end.
//!
//! Each scenario runs under both paces (`Pace::BOTH`): answers two frames after their
//! search, frames back to back; and answers when ready, frames paced in real time.

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::NavGridCache;
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
        let points = rows_of(30, 6, Vec2::new(-100.0, -50.0), Vec2::new(16.0, 16.0));
        let walkers = spawn_all(&mut app, &points, radius, 80.0);
        app.update();
        // Just left of the wall (world x = 30 is pixel 150).
        let goal = Vec2::new(20.0, 20.0);
        let ids = send_all(&mut app, &walkers, goal);
        let mut clock = pace.clock();
        until_all_arrived(&mut app, &mut clock, &walkers, 1500, (w, h), &walkable);
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
            // Thirty footprints of 13.2 round a point 10 units from a wall (a half
            // disc), on rings 0.87 footprint apart, the first a footprint out: within
            // seven rings, (1 + 6 x 0.87) x 13.2 = 82 units, and a radius.
            assert!(
                p.distance(goal) < 82.0 + radius,
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

/// `n` points in rows of `per_row`, the first at `first`, `step` apart along x (in a
/// row) and y (between rows).
fn rows_of(n: usize, per_row: usize, first: Vec2, step: Vec2) -> Vec<Vec2> {
    (0..n)
        .map(|i| first + Vec2::new((i % per_row) as f32, (i / per_row) as f32) * step)
        .collect()
}

/// Sends every one of `walkers` to `to`; returns the requests' ids.
fn send_all(app: &mut App, walkers: &[(Entity, f32)], to: Vec2) -> Vec<RequestId> {
    walkers.iter().map(|&(e, _)| send(app, e, to)).collect()
}

/// Spawns walkers of `radius` and `speed` at `points`.
fn spawn_all(app: &mut App, points: &[Vec2], radius: f32, speed: f32) -> Vec<(Entity, f32)> {
    points
        .iter()
        .map(|at| {
            let walker = app
                .world_mut()
                .spawn((
                    Walker::new(speed).with_radius(radius),
                    Transform::from_translation(at.extend(1.0)),
                ))
                .id();
            (walker, radius)
        })
        .collect()
}

/// Frames until every one of `walkers` has arrived, checking every frame that each is
/// clear of the walls; panics after `max`.
fn until_all_arrived(
    app: &mut App,
    clock: &mut FrameClock,
    walkers: &[(Entity, f32)],
    max: usize,
    size: (u32, u32),
    walkable: &impl Fn(u32, u32) -> bool,
) -> usize {
    for frame in 1..=max {
        clock.frame(app);
        assert_clear_of_walls(app, walkers, size, walkable);
        let log = app.world().resource::<Log>();
        if walkers
            .iter()
            .all(|&(e, _)| log.has(e, |k| matches!(k, Kind::Arrived(_))))
        {
            return frame;
        }
    }
    let late: Vec<_> = walkers
        .iter()
        .filter(|&&(e, _)| !arrived(app, e))
        .map(|&(e, _)| {
            (
                e,
                position(app, e),
                app.world().get::<WalkState>(e).copied(),
                app.world()
                    .get::<WalkPath>(e)
                    .map(|p| (p.next, p.waypoints.clone())),
            )
        })
        .collect();
    panic!("not all arrived after {max} frames: {late:?}");
}

/// A hundred walkers sent to the middle of an open room with a pillar all arrive, no
/// two closer than 0.9 x the sum of their radii, all clear of the walls all the way.
#[test]
fn a_hundred_walkers_to_one_point_all_arrive_apart() {
    for pace in Pace::BOTH {
        let (w, h) = (400, 300);
        // A pillar right of the goal.
        let walkable = |x: u32, y: u32| !((240..260).contains(&x) && (120..180).contains(&y));
        let mut app = room_app(pace, w, h, walkable);
        let points: Vec<Vec2> = rows_of(100, 10, Vec2::new(-180.0, -120.0), Vec2::new(14.0, 26.0));
        let walkers = spawn_all(&mut app, &points, 5.0, 90.0);
        app.update();
        let ids = send_all(&mut app, &walkers, Vec2::new(20.0, 0.0));
        let mut clock = pace.clock();
        until_all_arrived(&mut app, &mut clock, &walkers, 3000, (w, h), &walkable);
        let closest = closest_pair(&app, &walkers);
        assert!(closest >= 0.9, "{pace:?}: {closest}");
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// Twelve chasers of a standing player stand round it, on at least eight distinct
/// sides (of sixteen), none on top of another.
#[test]
fn chasers_of_a_standing_player_surround_it() {
    for pace in Pace::BOTH {
        let (w, h) = (300, 200);
        let walkable = |_x: u32, _y: u32| true;
        let mut app = room_app(pace, w, h, walkable);
        let player = app
            .world_mut()
            .spawn((
                Walker::new(100.0).with_radius(8.0),
                PlayerWalker,
                Transform::from_xyz(0.0, 0.0, 1.0),
            ))
            .id();
        let points: Vec<Vec2> = rows_of(12, 3, Vec2::new(-130.0, -60.0), Vec2::new(16.0, 30.0));
        let chasers = spawn_all(&mut app, &points, 6.0, 80.0);
        for &(chaser, _) in &chasers {
            app.world_mut()
                .entity_mut(chaser)
                .insert(WalkChase::new(player));
        }
        let mut clock = pace.clock();
        until_all_arrived(&mut app, &mut clock, &chasers, 1500, (w, h), &walkable);
        let mut everyone = chasers.clone();
        everyone.push((player, 8.0));
        let closest = closest_pair(&app, &everyone);
        assert!(closest >= 0.9, "{pace:?}: {closest}");
        let sides: std::collections::HashSet<i32> = chasers
            .iter()
            .map(|&(e, _)| {
                let d = position(&app, e);
                (d.y.atan2(d.x) / std::f32::consts::TAU * 16.0).floor() as i32
            })
            .collect();
        assert!(sides.len() >= 8, "{pace:?}: on {} sides only", sides.len());
        for &(e, _) in &chasers {
            assert!(
                position(&app, e).length() < 60.0,
                "{pace:?}: a chaser at {}",
                position(&app, e)
            );
        }
    }
}

/// A `w` x `h` room with a wall 6 pixels thick at x = `wall..=wall + 5`, open at rows
/// `door.0..door.1`: the app, and where it is walkable.
fn door_room(
    pace: Pace,
    (w, h): (u32, u32),
    wall: u32,
    door: (u32, u32),
) -> (
    App,
    impl Fn(u32, u32) -> bool + Copy + Send + Sync + 'static,
) {
    let walkable =
        move |x: u32, y: u32| !(wall..=wall + 5).contains(&x) || (door.0..door.1).contains(&y);
    (room_app(pace, w, h, walkable), walkable)
}

/// Twenty walkers sent through a door only wide enough for one at a time all get
/// through and arrive.
#[test]
fn a_crowd_through_a_narrow_door_all_arrive() {
    for pace in Pace::BOTH {
        let (w, h) = (300, 160);
        // A door 16 pixels tall: room for one walker of radius 5 (its centre needs
        // the middle 6 pixels).
        let (mut app, walkable) = door_room(pace, (w, h), 150, (72, 88));
        let points: Vec<Vec2> = rows_of(20, 5, Vec2::new(-130.0, -50.0), Vec2::new(14.0, 30.0));
        let walkers = spawn_all(&mut app, &points, 5.0, 80.0);
        app.update();
        let ids = send_all(&mut app, &walkers, Vec2::new(90.0, 0.0));
        let mut clock = pace.clock();
        until_all_arrived(&mut app, &mut clock, &walkers, 3000, (w, h), &walkable);
        for &(e, _) in &walkers {
            assert!(
                position(&app, e).x > 10.0,
                "{pace:?}: {e} did not get through"
            );
        }
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// A walker sent down a corridor one walker wide to a free point, and blocked short
/// of it by a standing guard who never gives way, stands behind the guard (its walk
/// ends there) rather than wait in `Walking` for ever; it never passes through him.
#[test]
fn a_walker_blocked_by_a_standing_guard_short_of_its_destination_stands_there() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 60);
        // A corridor 12 pixels tall: room for walkers of radius 5 one behind another.
        let walkable = |x: u32, y: u32| (24..36).contains(&y) && (4..196).contains(&x);
        let mut app = room_app(pace, w, h, walkable);
        let guard = app
            .world_mut()
            .spawn((
                Walker::new(80.0).with_radius(5.0),
                Avoidance::default().with_priority(250),
                Transform::from_xyz(30.0, 0.0, 1.0),
            ))
            .id();
        let walkers = spawn_all(&mut app, &[Vec2::new(-70.0, 0.0)], 5.0, 80.0);
        app.update();
        let ids = send_all(&mut app, &walkers, Vec2::new(50.0, 0.0));
        let mut clock = pace.clock();
        until_all_arrived(&mut app, &mut clock, &walkers, 600, (w, h), &walkable);
        let (walker, at) = (walkers[0].0, position(&app, walkers[0].0));
        let guard_at = position(&app, guard);
        assert!(
            at.x < guard_at.x && at.distance(guard_at) >= 9.0,
            "{pace:?}: {walker} at {at}, the guard at {guard_at}"
        );
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// A walker sent round a corner into a corridor one walker wide, where a guard who
/// never gives way stands just past the corner, its destination far beyond him: its
/// walk ends blocked behind the guard within seconds, rather than being planned
/// again for ever, and it never passes through him.
#[test]
fn a_walker_turned_back_at_a_corner_by_a_guard_who_never_gives_way_gives_up() {
    for pace in Pace::BOTH {
        let (w, h) = (100, 60);
        // A corridor 8 pixels wide down from the top, turning right into one 8
        // pixels tall: room for walkers of radius 3 one behind another.
        let walkable = |x: u32, y: u32| {
            ((10..18).contains(&x) && (4..40).contains(&y))
                || ((10..96).contains(&x) && (32..40).contains(&y))
        };
        let mut app = room_app(pace, w, h, walkable);
        let at = |x: f32, y: f32| Vec2::new(x - w as f32 / 2.0, h as f32 / 2.0 - y);
        let guard_at = at(26.0, 36.0);
        let guard = app
            .world_mut()
            .spawn((
                Walker::new(80.0).with_radius(3.0),
                Avoidance::default().with_priority(250),
                Transform::from_translation(guard_at.extend(1.0)),
            ))
            .id();
        let walkers = spawn_all(&mut app, &[at(14.0, 8.0)], 3.0, 141.0);
        let walker = walkers[0].0;
        app.update();
        let id = send(&mut app, walker, at(90.0, 36.0));
        let mut clock = pace.clock();
        let mut frames = 0;
        while !app
            .world()
            .resource::<Log>()
            .kinds(id)
            .iter()
            .any(|k| k.is_end())
        {
            frames += 1;
            assert!(
                frames <= 900,
                "{pace:?}: still walking after {frames} frames, at {}, replanned {} times",
                position(&app, walker),
                app.world()
                    .resource::<Log>()
                    .kinds(id)
                    .iter()
                    .filter(|k| matches!(k, Kind::Replanned { .. }))
                    .count()
            );
            clock.frame(&mut app);
            assert_clear_of_walls(&app, &walkers, (w, h), &walkable);
            assert!(
                position(&app, walker).x < position(&app, guard).x,
                "{pace:?}: passed through the guard"
            );
        }
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// The player walks through a crowd of standing walkers, which parts for it: it
/// arrives at most a third later than through an empty room, and the crowd is moved
/// aside, never onto a wall.
#[test]
fn the_player_walks_through_a_crowd_that_parts() {
    for pace in Pace::BOTH {
        let (w, h) = (300, 120);
        // A hall 60 pixels tall.
        let walkable = |_x: u32, y: u32| (30..90).contains(&y);
        let through = |crowded: bool| {
            let mut app = room_app(pace, w, h, walkable);
            let player = app
                .world_mut()
                .spawn((
                    Walker::new(100.0).with_radius(7.0),
                    PlayerWalker,
                    Transform::from_xyz(-130.0, 0.0, 1.0),
                ))
                .id();
            let points: Vec<Vec2> = if crowded {
                rows_of(24, 6, Vec2::new(-30.0, -20.0), Vec2::new(15.0, 14.0))
            } else {
                Vec::new()
            };
            let crowd = spawn_all(&mut app, &points, 5.0, 60.0);
            app.update();
            let id = send(&mut app, player, Vec2::new(130.0, 0.0));
            let mut clock = pace.clock();
            let mut everyone = crowd.clone();
            everyone.push((player, 7.0));
            let frames = until_all_arrived(
                &mut app,
                &mut clock,
                &[(player, 7.0)],
                600,
                (w, h),
                &walkable,
            );
            assert_clear_of_walls(&app, &everyone, (w, h), &walkable);
            assert_eq!(position(&app, player), Vec2::new(130.0, 0.0));
            let moved = crowd
                .iter()
                .zip(&points)
                .filter(|&(&(e, _), &at)| position(&app, e).distance(at) > 2.0)
                .count();
            assert_contract(app.world().resource::<Log>(), &[id]);
            (frames, moved)
        };
        let (alone, _) = through(false);
        let (crowded, moved) = through(true);
        assert!(moved >= 3, "{pace:?}: only {moved} stepped aside");
        assert!(
            crowded * 3 <= alone * 4,
            "{pace:?}: {crowded} frames against {alone} alone"
        );
    }
}

/// A tile room: `w` x `h` tiles of 16 world units (a mask pixel each, the room
/// scaled 16 times), centred on the origin.
fn tile_room(
    pace: Pace,
    w: u32,
    h: u32,
    walkable: impl Fn(u32, u32) -> bool + Send + Sync + 'static,
) -> App {
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    let mask = add_mask(&mut app, w, h, move |x, y| u8::from(walkable(x, y)));
    app.world_mut().spawn(WalkRoom::new(mask).with_scale(16.0));
    app
}

/// The world centre of tile (x, y) of a `w` x `h` tile room.
fn tile_centre(x: u32, y: u32, (w, h): (u32, u32)) -> Vec2 {
    Vec2::new(
        (x as f32 + 0.5) * 16.0 - w as f32 * 8.0,
        h as f32 * 8.0 - (y as f32 + 0.5) * 16.0,
    )
}

/// The tile under world point `p`.
fn tile_under(p: Vec2, (w, h): (u32, u32)) -> (i64, i64) {
    (
        ((p.x + w as f32 * 8.0) / 16.0).floor() as i64,
        ((h as f32 * 8.0 - p.y) / 16.0).floor() as i64,
    )
}

/// Frames until every walker's walk has ended (arrived or stopped), checking every
/// frame that no two walkers stand on one tile.
fn until_tile_walks_end(
    app: &mut App,
    clock: &mut FrameClock,
    walkers: &[Entity],
    size: (u32, u32),
    max: usize,
) {
    for frame in 0..max {
        clock.frame(app);
        let mut tiles = std::collections::HashMap::new();
        for &walker in walkers {
            let tile = tile_under(position(app, walker), size);
            if let Some(other) = tiles.insert(tile, walker) {
                panic!("frame {frame}: {walker} and {other} share tile {tile:?}");
            }
        }
        let log = app.world().resource::<Log>();
        if walkers.iter().all(|&e| {
            log.has(e, |k| matches!(k, Kind::Arrived(_) | Kind::Stopped(..)))
                && app.world().get::<WalkPath>(e).is_none()
        }) {
            return;
        }
    }
    panic!("walks still under way after {max} frames");
}

/// Runs [`until_tile_walks_end`], then checks that every request of `ids` got
/// exactly one answer and every walker arrived.
fn tile_walkers_all_arrive(
    app: &mut App,
    clock: &mut FrameClock,
    walkers: &[Entity],
    ids: &[RequestId],
    size: (u32, u32),
    max: usize,
    label: &str,
) {
    until_tile_walks_end(app, clock, walkers, size, max);
    assert_contract(app.world().resource::<Log>(), ids);
    for &e in walkers {
        assert!(arrived(app, e), "{label}: {e} did not arrive");
    }
}

fn spawn_tile_walkers(app: &mut App, tiles: &[(u32, u32)], size: (u32, u32)) -> Vec<Entity> {
    tiles
        .iter()
        .enumerate()
        .map(|(i, &tile)| spawn_tile_walker(app, 48.0 + (i % 3) as f32 * 16.0, tile, size))
        .collect()
}

/// A tile-step walker of `speed` on the centre of `tile`.
fn spawn_tile_walker(app: &mut App, speed: f32, (x, y): (u32, u32), size: (u32, u32)) -> Entity {
    app.world_mut()
        .spawn((
            Walker::new(speed).with_grid_steps(),
            Transform::from_translation(tile_centre(x, y, size).extend(1.0)),
        ))
        .id()
}

/// Tile-by-tile walkers crossing each other's ways in an open room (six along rows,
/// six down columns, every way crossing three others) never stand on one tile: at
/// each crossing one waits for the other. Every request is answered, every walker
/// arrives.
#[test]
fn tile_step_walkers_never_share_a_tile() {
    for pace in Pace::BOTH {
        let size = (16, 12);
        let mut app = tile_room(pace, size.0, size.1, |_, _| true);
        let rows = [(0, 2), (1, 5), (0, 8), (2, 3), (1, 7), (0, 10)];
        let columns = [(3, 0), (6, 1), (9, 0), (12, 1), (4, 11), (10, 11)];
        let starts: Vec<(u32, u32)> = rows.iter().chain(&columns).copied().collect();
        let walkers = spawn_tile_walkers(&mut app, &starts, size);
        app.update();
        let ids: Vec<RequestId> = walkers
            .iter()
            .zip(&starts)
            .enumerate()
            .map(|(i, (&e, &(x, y)))| {
                let to = if i < rows.len() {
                    (15 - x, y)
                } else if y == 11 {
                    (x, 0)
                } else {
                    (x, 11 - y)
                };
                send(&mut app, e, tile_centre(to.0, to.1, size))
            })
            .collect();
        let mut clock = pace.clock();
        let label = format!("{pace:?}");
        tile_walkers_all_arrive(&mut app, &mut clock, &walkers, &ids, size, 2000, &label);
    }
}

/// Ten tile walkers through a door one tile wide file through it one at a time and
/// all arrive beyond it, never two on one tile.
#[test]
fn tile_walkers_file_through_a_door() {
    for pace in Pace::BOTH {
        let size = (16, 8);
        // A wall at x = 8 with a door at y = 4.
        let mut app = tile_room(pace, size.0, size.1, |x, y| x != 8 || y == 4);
        let starts: Vec<(u32, u32)> = (0..10).map(|i| (1 + i % 5, 2 + i / 5 * 3)).collect();
        let walkers = spawn_tile_walkers(&mut app, &starts, size);
        app.update();
        let ids: Vec<RequestId> = walkers
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                send(
                    &mut app,
                    e,
                    tile_centre(10 + i as u32 % 5, 1 + i as u32 / 5 * 5, size),
                )
            })
            .collect();
        let mut clock = pace.clock();
        let label = format!("{pace:?}");
        tile_walkers_all_arrive(&mut app, &mut clock, &walkers, &ids, size, 2500, &label);
    }
}

/// A corridor of 8 tiles (row 1 of an 8 x 3 tile room) with a tile walker on tile 1
/// sent onto tile 6, where another stands; `tile_wait_seconds` as given. Returns the
/// app, the size, the two walkers and the request.
fn held_tile_corridor(
    pace: Pace,
    tile_wait_seconds: f32,
) -> (App, (u32, u32), Entity, Entity, RequestId) {
    let size = (8, 3);
    let mut app = headless_app(WalkmaskPlugin {
        tuning: WalkTuning {
            tile_wait_seconds,
            ..default()
        },
        ..pace.plugin()
    });
    add_log(&mut app);
    let mask = add_mask(&mut app, size.0, size.1, |_, y| u8::from(y == 1));
    app.world_mut().spawn(WalkRoom::new(mask).with_scale(16.0));
    let mover = spawn_tile_walker(&mut app, 64.0, (1, 1), size);
    let stander = spawn_tile_walker(&mut app, 64.0, (6, 1), size);
    app.update();
    let id = send(&mut app, mover, tile_centre(6, 1, size));
    (app, size, mover, stander, id)
}

/// A tile walker sent onto the tile another stands on waits
/// `WalkTuning::tile_wait_seconds` for it, then stops (`Blocked`): half a second
/// when the game asks for that, not the default three.
#[test]
fn a_tile_walker_waits_for_a_held_tile_as_long_as_the_tuning_says() {
    for pace in Pace::BOTH {
        let (mut app, _, _, _, id) = held_tile_corridor(pace, 0.5);
        let mut clock = pace.clock();
        let frames = clock.until(&mut app, 400, |world| {
            world
                .resource::<Log>()
                .kinds(id)
                .iter()
                .any(|k| matches!(k, Kind::Stopped(..)))
        });
        let kinds = app.world().resource::<Log>().kinds(id);
        assert!(
            matches!(kinds.last(), Some(Kind::Stopped(StopReason::Blocked, _))),
            "{pace:?}: {kinds:?}"
        );
        // Four tiles at 64 units a second take one second; then half a second's wait.
        let seconds = frames as f32 * 0.016;
        assert!(
            (1.0..2.5).contains(&seconds),
            "{pace:?}: stopped after {seconds} s"
        );
    }
}

/// A tile walker waiting for a held tile walks on once the game stops every walker
/// stepping by tiles: the wait ends with the last tile walker (no tile is held for it
/// any more), it does not last for ever.
#[test]
fn a_tile_walker_waiting_for_a_tile_walks_on_when_no_walker_steps_by_tiles() {
    for pace in Pace::BOTH {
        let (mut app, size, mover, stander, id) = held_tile_corridor(pace, 30.0);
        let mut clock = pace.clock();
        // Four tiles at 64 units a second take a second: by two it waits on the fifth.
        for _ in 0..125 {
            clock.frame(&mut app);
        }
        assert_eq!(
            tile_under(position(&app, mover), size),
            (5, 1),
            "{pace:?}: not waiting beside the held tile"
        );
        assert!(!arrived(&app, mover), "{pace:?}: arrived on a held tile");
        for walker in [mover, stander] {
            app.world_mut()
                .get_mut::<Walker>(walker)
                .expect("a walker")
                .grid_steps = false;
        }
        clock.until(&mut app, 120, |world| {
            world
                .resource::<Log>()
                .kinds(id)
                .iter()
                .any(|k| matches!(k, Kind::Arrived(_) | Kind::Stopped(..)))
        });
        let kinds = app.world().resource::<Log>().kinds(id);
        assert!(
            matches!(kinds.last(), Some(Kind::Arrived(_))),
            "{pace:?}: {kinds:?}"
        );
    }
}

/// Two tile walkers meeting head-on in a corridor one tile wide do not wait for ever:
/// one backs off to the nearest tile off the other's way (a pocket beside the
/// corridor, ahead of either, or the room the corridor leaves), lets the other pass
/// and walks on. Both arrive, never on one tile.
#[test]
fn tile_walkers_meeting_head_on_in_a_corridor_both_arrive() {
    // (name, size, walkable, the two ends)
    type Map = (
        &'static str,
        (u32, u32),
        fn(u32, u32) -> bool,
        [(u32, u32); 2],
    );
    let maps: [Map; 3] = [
        // Row 1 a corridor, a pocket above it at x = 4 (behind where they meet for
        // the one from the left) or at x = 9 (behind the one from the right).
        (
            "pocket left",
            (14, 2),
            |x, y| y == 1 || x == 4,
            [(0, 1), (13, 1)],
        ),
        (
            "pocket right",
            (14, 2),
            |x, y| y == 1 || x == 9,
            [(0, 1), (13, 1)],
        ),
        // Two rooms of 4 x 5 tiles joined by a corridor of 8 at y = 2.
        (
            "two rooms",
            (16, 5),
            |x, y| !(4..12).contains(&x) || y == 2,
            [(0, 2), (15, 2)],
        ),
    ];
    for pace in Pace::BOTH {
        for (name, size, walkable, [a, b]) in maps {
            let mut app = tile_room(pace, size.0, size.1, walkable);
            let walkers = spawn_tile_walkers(&mut app, &[a, b], size);
            app.update();
            let ids = vec![
                send(&mut app, walkers[0], tile_centre(b.0, b.1, size)),
                send(&mut app, walkers[1], tile_centre(a.0, a.1, size)),
            ];
            let mut clock = pace.clock();
            let label = format!("{pace:?}, {name}");
            tile_walkers_all_arrive(&mut app, &mut clock, &walkers, &ids, size, 1500, &label);
        }
    }
}

/// A tile walker waiting in the pocket it backed off to walks on when the walker it
/// makes way for is despawned, and arrives.
#[test]
fn a_backed_off_tile_walker_walks_on_when_the_other_is_despawned() {
    for pace in Pace::BOTH {
        let size = (14, 2);
        let mut app = tile_room(pace, size.0, size.1, |x, y| y == 1 || x == 4);
        let walkers = spawn_tile_walkers(&mut app, &[(0, 1), (13, 1)], size);
        app.update();
        let ids = [
            send(&mut app, walkers[0], tile_centre(13, 1, size)),
            send(&mut app, walkers[1], tile_centre(0, 1, size)),
        ];
        let mut clock = pace.clock();
        let mut in_pocket = None;
        clock.until(&mut app, 600, |world| {
            in_pocket = walkers.iter().position(|&w| {
                let at = world.get::<Transform>(w).unwrap().translation.truncate();
                tile_under(at, size) == (4, 0)
            });
            in_pocket.is_some()
        });
        let waiting = in_pocket.unwrap();
        // It waits there while the other comes by.
        clock.frames(&mut app, 20);
        assert_eq!(
            tile_under(position(&app, walkers[waiting]), size),
            (4, 0),
            "{pace:?}: left the pocket while the other came by"
        );
        app.world_mut().despawn(walkers[1 - waiting]);
        until_tile_walks_end(&mut app, &mut clock, &walkers[waiting..=waiting], size, 600);
        assert!(arrived(&app, walkers[waiting]), "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &ids[waiting..=waiting]);
    }
}

/// A fast tile walker that backs off for a slow one waits in its refuge until the
/// slow one has gone by, instead of stepping out to meet it again: it enters the
/// pocket once and leaves it only when the other is past the corridor's junction.
#[test]
fn a_backed_off_tile_walker_waits_until_the_other_has_passed() {
    for pace in Pace::BOTH {
        let size = (14, 2);
        let mut app = tile_room(pace, size.0, size.1, |x, y| y == 1 || x == 4);
        let fast = spawn_tile_walker(&mut app, 96.0, (0, 1), size);
        let slow = spawn_tile_walker(&mut app, 32.0, (13, 1), size);
        app.update();
        let ids = [
            send(&mut app, fast, tile_centre(13, 1, size)),
            send(&mut app, slow, tile_centre(0, 1, size)),
        ];
        let mut clock = pace.clock();
        let (mut entered, mut inside) = (0, false);
        for _ in 0..1500 {
            clock.frame(&mut app);
            let now = tile_under(position(&app, fast), size) == (4, 0);
            if now && !inside {
                entered += 1;
            }
            if inside && !now {
                let other = tile_under(position(&app, slow), size);
                assert!(
                    other.0 < 4,
                    "{pace:?}: left the pocket with the other at {other:?}"
                );
            }
            inside = now;
            if arrived(&app, fast) && arrived(&app, slow) {
                break;
            }
        }
        assert_eq!(entered, 1, "{pace:?}: entered the pocket {entered} times");
        assert!(arrived(&app, fast) && arrived(&app, slow), "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// A walker that names its room (as `enter_room` leaves it) sent onto one that names
/// none and stands there ends beside it, not on it: walkers are grouped by the room
/// they are in (`CurrentRoom`), not by the room they name. (Before, it ended 0.00
/// from the one standing there.)
#[test]
fn a_walker_naming_its_room_stops_beside_one_that_names_none() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 60);
        let walkable = |_x: u32, y: u32| (15..45).contains(&y);
        let mut app = room_app(pace, w, h, walkable);
        let room = app
            .world_mut()
            .query_filtered::<Entity, With<WalkRoom>>()
            .single(app.world())
            .unwrap();
        let radius = 6.0;
        let a = app
            .world_mut()
            .spawn((
                Walker::new(60.0).with_radius(radius).with_room(room),
                Transform::from_xyz(-85.0, 0.0, 1.0),
            ))
            .id();
        let b = app
            .world_mut()
            .spawn((
                Walker::new(60.0).with_radius(radius),
                Transform::from_xyz(0.0, 0.0, 1.0),
            ))
            .id();
        let walkers = [(a, radius), (b, radius)];
        app.update();
        for walker in [a, b] {
            assert_eq!(
                app.world().get::<CurrentRoom>(walker).unwrap().get(),
                Some(room)
            );
        }
        let id = send(&mut app, a, Vec2::ZERO);
        let mut clock = pace.clock();
        clock.until(&mut app, 600, |world| {
            world
                .resource::<Log>()
                .has(a, |k| matches!(k, Kind::Arrived(_)))
        });
        clock.frames(&mut app, 30);
        let closest = closest_pair(&app, &walkers);
        assert!(closest >= 0.9, "{pace:?}: {closest}");
        assert_contract(app.world().resource::<Log>(), &[id]);
    }
}

/// A walk through given points (`walk_anywhere`, a cutscene's or an exit's) is never
/// turned aside by avoidance: it passes a walker standing on its way exactly through
/// its points and ends exactly at its target (the standing one gives way), and
/// nobody re-plans it. Before, it was turned aside, slid along walls and could be
/// re-planned by the pathfinder.
#[test]
fn a_walk_through_given_points_is_not_turned_aside() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 60);
        let walkable = |_x: u32, y: u32| (15..45).contains(&y);
        let mut app = room_app(pace, w, h, walkable);
        let radius = 6.0;
        let actor = app
            .world_mut()
            .spawn((
                Walker::new(60.0).with_radius(radius),
                Transform::from_xyz(-85.0, 0.0, 1.0),
            ))
            .id();
        let bystander = app
            .world_mut()
            .spawn((
                Walker::new(60.0).with_radius(radius),
                Transform::from_xyz(0.0, 0.0, 1.0),
            ))
            .id();
        app.update();
        // Given points along the corridor, through where the bystander stands.
        let target = Vec2::new(85.0, 0.0);
        let id = app
            .world_mut()
            .commands()
            .entity(actor)
            .walk_anywhere([Vec2::new(-40.0, 0.0)], target);
        let mut clock = pace.clock();
        let mut off_line = 0.0f32;
        clock.until(&mut app, 600, |world| {
            let p = world.get::<Transform>(actor).unwrap().translation;
            off_line = off_line.max(p.y.abs());
            world
                .resource::<Log>()
                .has(actor, |k| matches!(k, Kind::Arrived(_)))
        });
        assert_eq!(position(&app, actor), target, "{pace:?}");
        assert!(off_line < 1e-4, "{pace:?}: turned {off_line} off its line");
        let log = app.world().resource::<Log>();
        assert!(log.replanned(actor).is_empty(), "{pace:?}: re-planned");
        assert_eq!(log.kinds(id).len(), 2, "{pace:?}: {:?}", log.kinds(id));
        assert!(
            position(&app, bystander).distance(Vec2::ZERO) > 1.0,
            "{pace:?}: the bystander gave way"
        );
    }
}

/// A tile-step player meeting an NPC head-on in a corridor with pockets on both
/// sides never backs off for it (the player ranks above other walkers, as in
/// avoidance): the player stays on the corridor's row all the way, whichever of the
/// two is nearer its end. (Before, the one farther from its end backed off, the
/// player too.)
#[test]
fn a_tile_player_meeting_an_npc_head_on_does_not_back_off() {
    for pace in Pace::BOTH {
        let size = (14, 2);
        let mut app = tile_room(pace, size.0, size.1, |x, y| y == 1 || x == 4 || x == 9);
        // The player farther from its end than the NPC when they meet.
        let player = spawn_tile_walker(&mut app, 32.0, (0, 1), size);
        app.world_mut().entity_mut(player).insert(PlayerWalker);
        let npc = spawn_tile_walker(&mut app, 64.0, (13, 1), size);
        app.update();
        let ids = vec![
            send(&mut app, player, tile_centre(13, 1, size)),
            send(&mut app, npc, tile_centre(0, 1, size)),
        ];
        let mut clock = pace.clock();
        let mut left_row = false;
        for _ in 0..1500 {
            clock.frame(&mut app);
            left_row |= tile_under(position(&app, player), size).1 != 1;
            let log = app.world().resource::<Log>();
            if [player, npc].iter().all(|&e| {
                log.has(e, |k| matches!(k, Kind::Arrived(_) | Kind::Stopped(..)))
                    && app.world().get::<WalkPath>(e).is_none()
            }) {
                break;
            }
        }
        assert!(!left_row, "{pace:?}: the player backed off");
        assert!(arrived(&app, player) && arrived(&app, npc), "{pace:?}");
        // The NPC's detour into its pocket is reported as a new path of its walk.
        let log = app.world().resource::<Log>();
        assert!(
            !log.replanned(npc).is_empty(),
            "{pace:?}: detour not reported"
        );
        assert!(log.replanned(player).is_empty(), "{pace:?}");
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// Two walkers of different radii (two grids) meeting head-on, with a grid budget
/// that holds one grid: the grids both use every frame are kept (the budget is
/// exceeded by what is in use, and counted), so both walk round each other and
/// arrive. (Before, each lookup evicted the other's grid, and a walker turned aside
/// waited for its grid for ever.)
#[test]
fn walkers_needing_two_grids_under_a_budget_for_one_both_arrive() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 60);
        let walkable = |_x: u32, y: u32| (15..45).contains(&y);
        let mut app = headless_app(WalkmaskPlugin {
            grid_cache_bytes: 100_000,
            ..pace.plugin()
        });
        add_log(&mut app);
        let mask = add_mask(&mut app, w, h, move |x, y| u8::from(walkable(x, y)));
        app.world_mut().spawn(WalkRoom::new(mask));
        let spawn = |app: &mut App, x: f32, radius: f32| {
            app.world_mut()
                .spawn((
                    Walker::new(60.0).with_radius(radius),
                    Transform::from_xyz(x, 0.0, 1.0),
                ))
                .id()
        };
        let a = spawn(&mut app, -85.0, 4.0);
        let b = spawn(&mut app, 85.0, 7.0);
        app.update();
        let ids = [
            send(&mut app, a, Vec2::new(85.0, 0.0)),
            send(&mut app, b, Vec2::new(-85.0, 0.0)),
        ];
        let mut clock = pace.clock();
        clock.until(&mut app, 900, |world| {
            let log = world.resource::<Log>();
            [a, b]
                .iter()
                .all(|&e| log.has(e, |k| matches!(k, Kind::Arrived(_))))
        });
        let stats = app.world().resource::<NavGridCache>().stats();
        assert!(stats.over_budget_frames > 0, "{pace:?}: {stats:?}");
        assert_clear_of_walls(&app, &[(a, 4.0), (b, 7.0)], (w, h), &walkable);
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// Twelve walkers of radius 4 queueing through a door 12 pixels wide never come
/// closer than 0.9 x the sum of their radii, all the way through and after (0.8
/// paced, where a frame's velocities may come from the frame before; before walkers
/// were pushed apart they came 0.8 x apart under exact timing).
#[test]
fn a_queue_through_a_door_keeps_walkers_apart() {
    for pace in Pace::BOTH {
        let (w, h) = (200, 100);
        let (mut app, walkable) = door_room(pace, (w, h), 100, (44, 56));
        let points: Vec<Vec2> = rows_of(12, 3, Vec2::new(-60.0, -12.0), Vec2::new(10.0, 12.0));
        let walkers = spawn_all(&mut app, &points, 4.0, 70.0);
        app.update();
        let ids = send_all(&mut app, &walkers, Vec2::new(60.0, 0.0));
        let mut clock = pace.clock();
        let mut closest = f32::INFINITY;
        let mut when = 0;
        let log_arrived = |app: &App| {
            let log = app.world().resource::<Log>();
            walkers.iter().all(|&(e, _)| log.has(e, |k| k.is_end()))
        };
        for frame in 1..=3000 {
            clock.frame(&mut app);
            assert_clear_of_walls(&app, &walkers, (w, h), &walkable);
            let now = closest_pair(&app, &walkers);
            if now < closest {
                (closest, when) = (now, frame);
            }
            if log_arrived(&app) {
                break;
            }
        }
        clock.frames(&mut app, 30);
        closest = closest.min(closest_pair(&app, &walkers));
        assert!(log_arrived(&app), "{pace:?}: not every walk ended");
        let least = if pace == Pace::Paced { 0.8 } else { 0.9 };
        assert!(
            closest >= least,
            "{pace:?}: two walkers {:.2} apart (frame {when})",
            closest * 8.0
        );
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}

/// Two walkers put overlapping, the one that gives way pressed against the top wall
/// by the push, part: the other, of higher priority, takes the push the first cannot
/// (before, they stood 0.67 x their radii apart for ever).
#[test]
fn a_walker_pinned_against_a_wall_pushes_back_one_of_higher_priority() {
    for pace in Pace::BOTH {
        let (w, h) = (60, 40);
        let walkable = |_: u32, _: u32| true;
        let mut app = room_app(pace, w, h, walkable);
        let walkers = spawn_all(
            &mut app,
            &[Vec2::new(0.0, 16.5), Vec2::new(0.0, 13.0)],
            3.0,
            40.0,
        );
        app.world_mut()
            .entity_mut(walkers[0].0)
            .insert(Avoidance::default().with_priority(10));
        app.world_mut()
            .entity_mut(walkers[1].0)
            .insert(Avoidance::default().with_priority(250));
        let mut clock = pace.clock();
        clock.frames(&mut app, 30);
        assert_two_stand_apart(&app, pace, &walkers, (w, h), &walkable);
    }
}

/// Asserts the two `walkers` stand clear of the walls and apart (their centres at
/// least 0.97 x the sum of their radii).
fn assert_two_stand_apart(
    app: &App,
    pace: Pace,
    walkers: &[(Entity, f32)],
    size: (u32, u32),
    walkable: &impl Fn(u32, u32) -> bool,
) {
    assert_clear_of_walls(app, walkers, size, walkable);
    let apart = closest_pair(app, walkers);
    assert!(
        apart >= 0.97,
        "{pace:?}: {} and {} stand {apart:.2} x their radii apart",
        position(app, walkers[0].0),
        position(app, walkers[1].0)
    );
}

/// Two walkers side by side in a gap too narrow for both (6 pixels between a wall and
/// a closed gate band, radii 2.5 and 1.5, the smaller one solid), at the same height:
/// pushed along the line between them, each is pinned against its wall, so they step
/// past each other along the gap until they stand apart.
#[test]
fn two_walkers_side_by_side_in_a_narrow_gap_step_past_each_other() {
    for pace in Pace::BOTH {
        for gate_open in [false, true] {
            let (w, h) = (64, 48);
            let walkable = move |x: u32, _: u32| {
                !(30..=33).contains(&x) && (gate_open || !(40..=43).contains(&x))
            };
            let mut app = room_app(pace, w, h, walkable);
            // Pixel x 36.0 and 39.0, pixel y 6.2.
            let y = 24.0 - 6.2;
            let mut walkers = spawn_all(&mut app, &[Vec2::new(4.0, y)], 2.5, 40.0);
            let small = spawn_all(&mut app, &[Vec2::new(7.0, y)], 1.5, 40.0);
            app.world_mut()
                .entity_mut(small[0].0)
                .insert(WalkObstacle::circle(1.5));
            walkers.extend(small);
            let mut clock = pace.clock();
            clock.frames(&mut app, 90);
            assert_two_stand_apart(&app, pace, &walkers, (w, h), &walkable);
        }
    }
}

/// A walker kept from its way up a corridor (6 pixels wide, between a wall and a
/// closed gate) by a guard of its size standing in it (who never gives way, and the
/// corridor has no room to pass): each time it reaches the corner at
/// the corridor's mouth it is pushed back, which is no way nearer its end, so after
/// its re-plan it gives up, and its walk ends blocked rather than go on for ever.
#[test]
fn a_walker_pushed_back_from_a_corner_it_keeps_reaching_gives_up() {
    for pace in Pace::BOTH {
        let (w, h) = (64, 48);
        let walkable =
            |x: u32, y: u32| !((30..=33).contains(&x) && y <= 39 || (40..=43).contains(&x));
        let mut app = room_app(pace, w, h, walkable);
        let guard = spawn_all(&mut app, &[Vec2::new(5.5, -13.5)], 2.0, 98.0);
        app.world_mut()
            .entity_mut(guard[0].0)
            .insert(Avoidance::default().with_priority(250));
        let walkers = spawn_all(&mut app, &[Vec2::new(-16.5, -19.5)], 2.0, 98.0);
        app.update();
        let ids = send_all(&mut app, &walkers, Vec2::new(5.5, 8.5));
        let mut clock = pace.clock();
        let mut frames = 0;
        while !app
            .world()
            .resource::<Log>()
            .has(walkers[0].0, Kind::is_end)
        {
            assert!(
                frames < 1500,
                "{pace:?}: the walk goes on after {frames} frames"
            );
            clock.frames(&mut app, 1);
            frames += 1;
        }
        assert_contract(app.world().resource::<Log>(), &ids);
    }
}
