//! Crowds: walkers sent to one destination together share one distance field.
//!
//! Headless app of `tests/common`; a 64 x 48 mask with a wall at x = 30..=33 from the
//! top down to y = 39 (the way round is the gap below it), scale 1, room at the
//! origin.

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::WarmFieldCache;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, deterministic, path_stays_on, px, request, room_pixel, run, run_until, wall_room_app,
};

fn wall_room() -> App {
    wall_room_app(deterministic()).0
}

/// `n` walkers on a grid of points left of the wall.
fn spawn_crowd(app: &mut App, n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| {
            let at = px(2 + (i % 24) as u32, 2 + (i / 24) as u32 % 36);
            app.world_mut()
                .spawn((
                    Walker::new(60.0),
                    Transform::from_translation(at.extend(1.0)),
                ))
                .id()
        })
        .collect()
}

/// 300 walkers sent to one point fill one field between them; every walk is legal
/// and ends at the point, and they all arrive.
#[test]
fn three_hundred_walkers_to_one_place_fill_one_field() {
    let mut app = wall_room();
    let crowd = spawn_crowd(&mut app, 300);
    run(&mut app, 1);
    let goal = px(50, 10);
    for &walker in &crowd {
        request(&mut app, walker, goal);
    }
    run(&mut app, 1);
    let stats = app.world().resource::<WarmFieldCache>().stats();
    assert_eq!(stats.fills, 1, "one field for the whole crowd");
    assert_eq!(stats.shared, 300);
    let log = app.world().resource::<Log>();
    for &walker in &crowd {
        let ready = log.ready(walker);
        assert_eq!(ready.len(), 1);
        let (_, path, snapped) = &ready[0];
        assert!(!snapped);
        assert_eq!(path.last(), Some(&goal));
        assert!(
            path_stays_on(path, |x, y| room_pixel(x, y) == 1),
            "{path:?}"
        );
    }
    run_until(&mut app, 2000, |w| {
        crowd.iter().all(|&e| w.get::<WalkPath>(e).is_none())
    });
    let log = app.world().resource::<Log>();
    for &walker in &crowd {
        assert!(log.has(walker, |k| matches!(k, Kind::Arrived(_))));
    }
}

/// A few walkers search each; walkers sent to different points do not share.
#[test]
fn a_few_walkers_search_on_their_own() {
    let mut app = wall_room();
    let few = spawn_crowd(&mut app, 5);
    run(&mut app, 1);
    for &walker in &few {
        request(&mut app, walker, px(50, 10));
    }
    let crowd = spawn_crowd(&mut app, 40);
    run(&mut app, 1);
    for (i, &walker) in crowd.iter().enumerate() {
        request(
            &mut app,
            walker,
            px(40 + (i % 20) as u32, 10 + (i / 20) as u32),
        );
    }
    run(&mut app, 1);
    let stats = app.world().resource::<WarmFieldCache>().stats();
    assert_eq!((stats.fills, stats.shared), (0, 0));
    assert!(
        few.iter()
            .chain(&crowd)
            .all(|&e| app.world().resource::<Log>().ready(e).len() == 1)
    );
}

/// A shared field knows nothing of obstacles: a crowd walk that would cross a solid
/// footprint is searched again round it.
#[test]
fn crowd_walks_keep_out_of_obstacles() {
    let mut app = wall_room();
    let guard_at = px(46, 25);
    app.world_mut().spawn((
        WalkObstacle::circle(4.0),
        Transform::from_translation(guard_at.extend(1.0)),
    ));
    let crowd = spawn_crowd(&mut app, 30);
    run(&mut app, 1);
    let goal = px(58, 10);
    for &walker in &crowd {
        request(&mut app, walker, goal);
    }
    run(&mut app, 1);
    let log = app.world().resource::<Log>();
    for &walker in &crowd {
        let (_, path, _) = &log.ready(walker)[0];
        for w in path.windows(2) {
            for i in 0..=200 {
                let p = w[0].lerp(w[1], i as f32 / 200.0);
                assert!(
                    p.distance(guard_at) >= 4.0 - 1e-3,
                    "{path:?} enters the guard at {p}"
                );
            }
        }
    }
}
