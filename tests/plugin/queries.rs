//! `WalkQuery`: questions from game code against known answers.
//!
//! Headless app of `tests/common`. The mask is 64 x 48: area 1, a wall (area 0) at
//! x = 30..=33 from the top down to y = 39, and a gate column of area 2 at
//! x = 40..=43 from top to bottom (closing it cuts the room in two). With scale 1
//! and the room at the origin, pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{PathQueryAnswer, WalkQueryError};
use common::{
    Log, add_log, add_mask, deterministic, headless_app, path_stays_on, px, request, run_until,
    spawn_walker, wait_for,
};

fn pixel(x: u32, y: u32) -> u8 {
    if (30..=33).contains(&x) && y <= 39 {
        0
    } else if (40..=43).contains(&x) {
        2
    } else {
        1
    }
}

fn app() -> (App, Entity) {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, pixel);
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    app.update();
    (app, room)
}

/// Runs `ask` with a `WalkQuery` once.
fn ask<T: 'static>(app: &mut App, ask: impl Fn(&WalkQuery) -> T + Send + Sync + 'static) -> T {
    app.world_mut()
        .run_system_once(move |query: WalkQuery| ask(&query))
        .expect("the query system runs")
}

/// Runs `ask` until it is not `Preparing` (the grid is built on the task pool).
fn ask_ready<T: 'static>(
    app: &mut App,
    ask_once: impl Fn(&WalkQuery) -> Result<T, WalkQueryError> + Send + Sync + Clone + 'static,
) -> Result<T, WalkQueryError> {
    let mut answer = None;
    wait_for(app, 100_000, |world| {
        let ask_once = ask_once.clone();
        let result = world
            .run_system_once(move |query: WalkQuery| ask_once(&query))
            .unwrap();
        let ready = !matches!(result, Err(WalkQueryError::Preparing));
        if ready {
            answer = Some(result);
        }
        ready
    });
    answer.unwrap()
}

#[test]
fn walkable_and_area_at_points() {
    let (mut app, room) = app();
    let answers = ask(&mut app, move |query| {
        let view = query.room(room).unwrap();
        let closed = query.room(room).unwrap().with_areas(WalkAreas::only(&[1]));
        (
            [px(10, 10), px(31, 10), px(41, 10), Vec2::new(100.0, 0.0)]
                .map(|p| (view.is_walkable(p).unwrap(), view.area_at(p))),
            closed.is_walkable(px(41, 10)).unwrap(),
            view.is_walkable(Vec2::NAN),
            view.area_at(Vec2::NAN),
        )
    });
    assert_eq!(
        answers.0,
        [
            (true, Some(1)),
            (false, Some(0)),
            (true, Some(2)),
            (false, None)
        ]
    );
    assert!(!answers.1, "area 2 closed");
    assert_eq!(answers.2, Err(WalkQueryError::NotFinite));
    assert_eq!(answers.3, None);
}

#[test]
fn nearest_walkable_and_last_clear_point() {
    let (mut app, room) = app();
    let nearest = ask_ready(&mut app, move |query| {
        query.room(room)?.nearest_walkable(px(31, 10))
    });
    assert_eq!(nearest, Ok(Some(px(29, 10))));
    let already = ask_ready(&mut app, move |query| {
        query
            .room(room)?
            .nearest_walkable(px(12, 12) + Vec2::splat(0.2))
    });
    assert_eq!(already, Ok(Some(px(12, 12) + Vec2::splat(0.2))));
    let stop = ask_ready(&mut app, move |query| {
        query.room(room)?.last_clear_point(px(10, 10), px(50, 10))
    })
    .unwrap()
    .unwrap();
    // The wall's left side is mask x = 30, world x = -2.
    assert!(stop.x <= -2.0 && stop.x > -2.01, "{stop}");
    assert!((stop.y - px(10, 10).y).abs() < 1e-3);
    let through = ask_ready(&mut app, move |query| {
        query.room(room)?.last_clear_point(px(10, 44), px(50, 44))
    });
    assert_eq!(through, Ok(Some(px(50, 44))), "the gap under the wall");
    let from_wall = ask_ready(&mut app, move |query| {
        query.room(room)?.last_clear_point(px(31, 10), px(50, 10))
    });
    assert_eq!(from_wall, Ok(None));
}

/// Reachability from region labels: round the wall with every area, cut off with the
/// gate closed (asked for a set no walker uses), never into the wall.
#[test]
fn reachability_follows_areas() {
    let (mut app, room) = app();
    let open = ask_ready(&mut app, move |query| {
        query.room(room)?.is_reachable(px(10, 10), px(50, 10))
    });
    assert_eq!(open, Ok(true));
    let closed = ask_ready(&mut app, move |query| {
        query
            .room(room)?
            .with_areas(WalkAreas::only(&[1]))
            .is_reachable(px(10, 10), px(50, 10))
    });
    assert_eq!(closed, Ok(false));
    let same_side = ask_ready(&mut app, move |query| {
        query
            .room(room)?
            .with_areas(WalkAreas::only(&[1]))
            .is_reachable(px(10, 10), px(36, 10))
    });
    assert_eq!(same_side, Ok(true), "round the wall, short of the gate");
    let into_wall = ask_ready(&mut app, move |query| {
        query.room(room)?.is_reachable(px(10, 10), px(31, 10))
    });
    assert_eq!(into_wall, Ok(false));
    // From a blocked point: from where a walker would step to.
    let from_wall = ask_ready(&mut app, move |query| {
        query.room(room)?.is_reachable(px(31, 10), px(10, 10))
    });
    assert_eq!(from_wall, Ok(true));
}

/// A walker's view: its room, its areas and its radius.
#[test]
fn a_walkers_view_uses_its_areas_and_radius() {
    let (mut app, _) = app();
    let walker = spawn_walker(
        &mut app,
        Walker::new(50.0)
            .with_areas(WalkAreas::only(&[1]))
            .with_radius(3.0),
        px(10, 10),
    );
    app.update();
    let answers = ask_ready(&mut app, move |query| {
        let view = query.walker(walker)?;
        Ok((
            view.position(),
            view.is_walkable(px(20, 10))?,
            view.is_walkable(px(28, 10))?,
            view.is_reachable(px(10, 10), px(50, 10))?,
        ))
    });
    assert_eq!(answers, Ok((Some(px(10, 10)), true, false, false)));
}

#[test]
fn errors_say_what_is_missing() {
    let (mut app, room) = app();
    let unloaded = app.world_mut().spawn(WalkRoom::new(Handle::default())).id();
    let stray = spawn_walker(&mut app, Walker::new(10.0), Vec2::new(1000.0, 1000.0));
    app.world_mut().despawn(room);
    let answers = ask(&mut app, move |query| {
        (
            query.room(room).err(),
            query.room(unloaded).err(),
            query.walker(room).err(),
            query.walker(stray).err(),
        )
    });
    assert_eq!(
        answers,
        (
            Some(WalkQueryError::NotARoom(room)),
            Some(WalkQueryError::MaskNotLoaded),
            Some(WalkQueryError::NotAWalker(room)),
            // The only room left is the unloaded one: the walker is in it.
            Some(WalkQueryError::MaskNotLoaded),
        )
    );
}

/// Answers seen.
#[derive(Resource, Default)]
struct Answers(Vec<PathQueryAnswer>);

/// A path asked for from game code is answered by one `PathQueryAnswer` (message and
/// event) with the same path a walker standing there gets; a blocked destination
/// snaps; a non-finite point is refused at once.
#[test]
fn paths_are_answered_on_the_task_pool_like_walks() {
    let (mut app, room) = app();
    app.init_resource::<Answers>().add_observer(
        |ev: On<PathQueryAnswer>, mut answers: ResMut<Answers>| answers.0.push(ev.event().clone()),
    );
    let (from, to, wall) = (px(10, 10), px(50, 10), px(31, 5));
    let ids = ask(&mut app, move |query| {
        let view = query.room(room).unwrap();
        (
            view.find_path(from, to).unwrap(),
            view.find_path(from, wall).unwrap(),
            view.find_path(from, Vec2::INFINITY),
        )
    });
    assert_eq!(ids.2, Err(WalkQueryError::NotFinite));
    wait_for(&mut app, 100_000, |w| w.resource::<Answers>().0.len() == 2);
    let mut messages = app.world_mut().resource_mut::<Messages<PathQueryAnswer>>();
    let read: Vec<PathQueryAnswer> = messages.drain().collect();
    let answers = app.world().resource::<Answers>().0.clone();
    assert_eq!(read.len(), 2);
    let to_door = answers.iter().find(|a| a.id == ids.0).unwrap();
    let to_wall = answers.iter().find(|a| a.id == ids.1).unwrap();
    assert!(read.contains(to_door) && read.contains(to_wall));
    let path = to_door.path.clone().unwrap();
    assert_eq!((path[0], *path.last().unwrap()), (from, to));
    assert!(!to_door.snapped);
    assert!(path_stays_on(&path, |x, y| pixel(x, y) != 0));
    assert!(to_wall.snapped);
    assert_ne!(to_wall.path.as_ref().unwrap().last(), Some(&wall));

    // The same as a walker's.
    let walker = spawn_walker(&mut app, Walker::new(10.0), from);
    let id = request(&mut app, walker, to);
    run_until(&mut app, 100, |w| !w.resource::<Log>().of(id).is_empty());
    let ready = app.world().resource::<Log>().ready(walker);
    assert_eq!(ready[0].1, path);
    assert!(
        (to_door.length() - path.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>()).abs() < 1e-3
    );
}

/// A path asked for in a room that goes away, or whose mask is replaced, before the
/// answer lands is answered with no path: it was planned on pixels the room no
/// longer has.
#[test]
fn a_path_asked_of_a_room_that_changed_has_no_answer_path() {
    for change in ["despawn", "new mask"] {
        let (mut app, room) = app();
        app.init_resource::<Answers>().add_observer(
            |ev: On<PathQueryAnswer>, mut answers: ResMut<Answers>| {
                answers.0.push(ev.event().clone())
            },
        );
        let (from, to) = (px(10, 10), px(50, 10));
        // The grid is ready (an instant question prepares it).
        ask_ready(&mut app, move |q| q.room(room)?.is_walkable(from)).unwrap();
        let id = ask(&mut app, move |q| {
            q.room(room).unwrap().find_path(from, to).unwrap()
        });
        match change {
            "despawn" => {
                app.world_mut().despawn(room);
            }
            _ => {
                let other = add_mask(&mut app, 64, 48, |_, _| 1);
                app.world_mut().get_mut::<WalkRoom>(room).unwrap().mask = other;
            }
        }
        wait_for(&mut app, 100_000, |w| !w.resource::<Answers>().0.is_empty());
        let answers = &app.world().resource::<Answers>().0;
        assert_eq!(answers.len(), 1, "{change}");
        assert_eq!(
            (answers[0].id, answers[0].path.as_ref()),
            (id, None),
            "{change}"
        );
    }
}

/// Grids prepared for questions (one per radius here) are held within the grid
/// budget like those of walks: the least recently used are dropped.
#[test]
fn grids_prepared_for_questions_keep_to_the_budget() {
    // About three grids of this mask (each about 6.5 bytes a pixel with its border).
    let budget = 3 * 66 * 50 * 13 / 2;
    let mut app = headless_app(WalkmaskPlugin {
        grid_cache_bytes: budget,
        ..deterministic()
    });
    let mask = add_mask(&mut app, 64, 48, pixel);
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    app.update();
    for radius in 0..12 {
        let radius = radius as f32 * 0.5;
        let ready = ask_ready(&mut app, move |q| {
            q.room(room)?.with_radius(radius).is_walkable(px(10, 10))
        });
        assert_eq!(ready, Ok(true), "radius {radius}");
    }
    let stats = app
        .world()
        .resource::<bevy_walkmask::NavGridCache>()
        .stats();
    assert!(stats.bytes <= budget, "{stats:?}");
    assert!((2..=4).contains(&stats.entries), "{stats:?}");
}
