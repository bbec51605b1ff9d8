//! Warm fields: walkers standing still get the distance field from their pixel
//! filled in the background, and their next request is traced from it.
//!
//! Headless app as in `rooms_and_walks`, with the helpers of `tests/common`:
//! MinimalPlugins + AssetPlugin (rooted at `tests/assets`) + InputPlugin +
//! TransformPlugin + WalkmaskPlugin, fixed 16 ms frames, bounded update loops. The
//! masks are written into `tests/assets/generated/` (ignored by git) when the tests
//! start:
//!
//! * `warm_room.walk.png` (luma rule): 64 x 48, open floor with a wall at
//!   x = 30..=33 from the top down to y = 39; the way round is the gap at y >= 40.
//! * `warm_gate.walk.png` + `.meta` (indexed rule): area 1 at x < 40, a gate column
//!   of area 2 at x = 40..=43, area 1 again at x >= 44.
//! * `warm_big.walk.png` (luma rule): 1024 x 1024, all walkable.
//!
//! With scale 1 and the room at the origin, pixel (px, py) of a 64 x 48 mask is world
//! (px - 32, 24 - py).

use crate::common;

use std::sync::Once;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{FieldCacheStats, NavGridCache, WarmFieldCache};
use common::{
    LOAD_UPDATES, MASK_SIZE, create_generated_dir, deterministic, headless_app, load_mask,
    path_stays_on, pixel_of, position, px, request, room_pixel, run, spawn_walker, wait_for,
    write_grey_png, write_indexed_meta,
};

// ---------------------------------------------------------------- test masks

/// Bytes of one warm field of a 64 x 48 mask (padded by one pixel).
const FIELD_BYTES: usize = 66 * 50 * 4;

/// Area id of the gate mask's pixel.
fn gate_pixel(x: u32, _y: u32) -> u8 {
    if (40..=43).contains(&x) { 2 } else { 1 }
}

/// Writes the test masks once per test run.
fn write_masks() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        create_generated_dir();
        write_grey_png("generated/warm_room.walk.png", MASK_SIZE, |x, y| {
            room_pixel(x, y) * 255
        });
        write_grey_png("generated/warm_gate.walk.png", MASK_SIZE, gate_pixel);
        write_grey_png("generated/warm_big.walk.png", (1024, 1024), |_, _| 255);
        write_indexed_meta("generated/warm_gate.walk.png");
    });
}

// ---------------------------------------------------------------- app

/// `PathReady` (waypoints, snapped) and `Arrived` seen per walker, in order.
#[derive(Resource, Default)]
struct Log {
    ready: Vec<(Entity, Vec<Vec2>, bool)>,
    unreachable: Vec<Entity>,
    arrived: Vec<Entity>,
}

impl Log {
    fn ready(&self, walker: Entity) -> Vec<(Vec<Vec2>, bool)> {
        self.ready
            .iter()
            .filter(|(e, _, _)| *e == walker)
            .map(|(_, w, s)| (w.clone(), *s))
            .collect()
    }
}

/// The app with `plugin`, warming every standing walker (not only players: these
/// tests are about the fields themselves).
fn app_with(mut plugin: WalkmaskPlugin) -> App {
    plugin.tuning.warm_up = bevy_walkmask::WarmUpWalkers::All;
    write_masks();
    let mut app = headless_app(plugin);
    app.init_resource::<Log>()
        .add_observer(|ev: On<PathReady>, mut log: ResMut<Log>| {
            log.ready
                .push((ev.entity, ev.waypoints.clone(), ev.snapped))
        })
        .add_observer(|ev: On<PathUnreachable>, mut log: ResMut<Log>| {
            log.unreachable.push(ev.entity)
        })
        .add_observer(|ev: On<Arrived>, mut log: ResMut<Log>| log.arrived.push(ev.entity));
    app
}

fn stats(world: &World) -> FieldCacheStats {
    world.resource::<WarmFieldCache>().stats()
}

/// Waits until `walker` has arrived `n` times.
fn arrived(app: &mut App, walker: Entity, n: usize) {
    // The warm plugin answers when a search is ready (`WhenReady`), and searches
    // share the task pool with warm-ups: the frames wait a little for the pool, so a
    // machine busy with other work still sees the walk arrive (game time is 16 ms a
    // frame whatever the wall clock does).
    let start = std::time::Instant::now();
    loop {
        app.update();
        let arrivals = app
            .world()
            .resource::<Log>()
            .arrived
            .iter()
            .filter(|e| **e == walker)
            .count();
        if arrivals >= n {
            return;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "walker {walker} arrived {arrivals} times of {n} in 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn length(path: &[Vec2]) -> f32 {
    path.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// A walker at `from` asks for `targets` one after another (each after arriving, or
/// at once for the first); returns each walk's (waypoints, snapped) and the final
/// warm-field stats.
fn walks(
    plugin: WalkmaskPlugin,
    from: Vec2,
    targets: &[Vec2],
) -> (Vec<(Vec<Vec2>, bool)>, FieldCacheStats) {
    let mut app = app_with(plugin.clone());
    let mask = load_mask(&mut app, "generated/warm_room.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    let walker = spawn_walker(&mut app, Walker::new(400.0), from);
    for (i, &target) in targets.iter().enumerate() {
        if plugin.warm_fields {
            let fills = i as u64 + 1;
            wait_for(&mut app, LOAD_UPDATES, |w| stats(w).fills == fills);
        } else {
            run(&mut app, 5);
        }
        request(&mut app, walker, target);
        arrived(&mut app, walker, i + 1);
        let end = position(&app, walker);
        let (waypoints, snapped) = app.world().resource::<Log>().ready(walker)[i].clone();
        assert_eq!(waypoints.last(), Some(&end), "walked to the path's end");
        if !snapped {
            assert!(end.distance(target) < 1e-3, "arrived at the clicked point");
        }
    }
    let stats = stats(app.world());
    (app.world().resource::<Log>().ready(walker), stats)
}

// ---------------------------------------------------------------- tests

/// The plugin with warm fields on, whatever the machine's default, and answers
/// applied when ready: under `AfterFrames` searches never trace warm fields (whether
/// one is ready depends on timing), so these tests wait for the fields they use.
fn warm_plugin() -> WalkmaskPlugin {
    WalkmaskPlugin {
        warm_fields: true,
        answer_timing: bevy_walkmask::AnswerTiming::WhenReady,
        ..deterministic()
    }
}

#[test]
fn a_walker_standing_still_is_warmed_and_its_next_walk_is_traced_from_the_field() {
    // Around the wall, then onto the wall (snapped), then below the wall.
    let targets = [px(50, 10), px(31, 10), px(25, 44)];
    let warm_plugin = warm_plugin();
    let (warm, warm_stats) = walks(warm_plugin, px(10, 10), &targets);
    assert_eq!(
        (warm_stats.hits, warm_stats.misses),
        (3, 0),
        "every walk answered from the field of where the walker stood: {warm_stats:?}"
    );
    assert_eq!(warm_stats.entries, 3);
    assert_eq!(warm_stats.bytes, 3 * FIELD_BYTES);
    let cold_plugin = WalkmaskPlugin {
        warm_fields: false,
        ..deterministic()
    };
    let (cold, cold_stats) = walks(cold_plugin, px(10, 10), &targets);
    assert_eq!(
        cold_stats,
        FieldCacheStats {
            budget_bytes: 256 << 20,
            ..default()
        }
    );
    for ((w, w_snapped), (c, c_snapped)) in warm.iter().zip(&cold) {
        assert_eq!(w_snapped, c_snapped, "same snapping: {w:?} vs {c:?}");
        assert_eq!(w.first(), c.first(), "same start");
        assert_eq!(w.last(), c.last(), "same end");
        assert!(path_stays_on(w, |x, y| room_pixel(x, y) == 1), "{w:?}");
        let (lw, lc) = (length(w), length(c));
        assert!(
            (lw - lc).abs() <= 0.05 * lc + 1.0,
            "near-equal lengths: {lw} vs {lc}"
        );
    }
    assert!(warm[0].0.len() > 2, "around the wall: {:?}", warm[0].0);
    assert!(!warm[0].1 && warm[1].1, "the wall click snaps");
}

#[test]
fn a_walk_to_where_the_walker_stands_is_a_single_point_from_the_field() {
    let (warm, stats) = walks(warm_plugin(), px(10, 10), &[px(10, 10)]);
    assert_eq!(stats.hits, 1);
    assert_eq!(warm[0], (vec![px(10, 10)], false));
}

#[test]
fn a_field_is_filled_once_per_standing_place() {
    let mut app = app_with(warm_plugin());
    let mask = load_mask(&mut app, "generated/warm_room.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    // Two walkers on the same pixel share one field.
    spawn_walker(&mut app, Walker::new(100.0), px(10, 10));
    spawn_walker(&mut app, Walker::new(100.0), px(10, 10) + Vec2::splat(0.2));
    wait_for(&mut app, LOAD_UPDATES, |w| stats(w).entries == 1);
    run(&mut app, 30);
    let s = stats(app.world());
    assert_eq!((s.fills, s.entries), (1, 1), "{s:?}");
    // Warm-ups do not count as path queries in the grid cache.
    let grids = app.world().resource::<NavGridCache>().stats();
    assert_eq!((grids.hits, grids.misses, grids.entries), (0, 0, 1));
}

#[test]
fn after_toggling_an_area_the_stale_field_is_not_used() {
    let mut app = app_with(warm_plugin());
    let mask = load_mask(&mut app, "generated/warm_gate.walk.png");
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(10, 10));
    wait_for(&mut app, LOAD_UPDATES, |w| stats(w).fills == 1);
    // Close the gate and ask at once, before a new field could be filled.
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .disable_area(2);
    request(&mut app, walker, px(60, 10));
    arrived(&mut app, walker, 1);
    let (closed, snapped) = app.world().resource::<Log>().ready(walker)[0].clone();
    assert!(snapped, "the gate is closed: {closed:?}");
    assert!(pixel_of(*closed.last().unwrap()).0 < 40, "{closed:?}");
    assert!(path_stays_on(&closed, |x, _| x < 40));
    let before = stats(app.world());
    assert_eq!(
        before.hits, 0,
        "the open-gate field was not used: {before:?}"
    );
    // Open it again: the walker (now at the gate) warms up on the open grid, and the
    // next walk goes through.
    app.world_mut()
        .get_mut::<WalkRoom>(room)
        .unwrap()
        .enable_area(2);
    wait_for(&mut app, LOAD_UPDATES, |w| stats(w).fills == 2);
    request(&mut app, walker, px(60, 10));
    arrived(&mut app, walker, 2);
    let (open, snapped) = app.world().resource::<Log>().ready(walker)[1].clone();
    assert!(!snapped, "{open:?}");
    assert!(position(&app, walker).distance(px(60, 10)) < 1e-3);
    assert_eq!(stats(app.world()).hits, 1);
}

#[test]
fn the_field_budget_is_respected() {
    let budget = 2 * FIELD_BYTES + FIELD_BYTES / 2;
    let mut app = app_with(WalkmaskPlugin {
        field_cache_bytes: budget,
        ..warm_plugin()
    });
    let mask = load_mask(&mut app, "generated/warm_room.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    let walkers: Vec<Entity> = [px(5, 5), px(10, 20), px(50, 30), px(60, 5)]
        .into_iter()
        .map(|at| spawn_walker(&mut app, Walker::new(400.0), at))
        .collect();
    wait_for(&mut app, LOAD_UPDATES, |w| stats(w).fills == 4);
    run(&mut app, 20);
    let s = stats(app.world());
    assert_eq!(s.fills, 4, "evicted fields are not filled again: {s:?}");
    assert_eq!(s.entries, 2, "{s:?}");
    assert!(s.bytes <= budget, "{s:?}");
    // Every walker still walks, from a field or by a search.
    for (i, &walker) in walkers.iter().enumerate() {
        request(&mut app, walker, px(45, 44));
        arrived(&mut app, walker, 1);
        assert!(
            position(&app, walker).distance(px(45, 44)) < 1e-3,
            "walker {i}"
        );
    }
    let s = stats(app.world());
    assert_eq!(s.hits + s.misses, 4, "{s:?}");
    assert!(s.hits >= 1 && s.misses >= 1, "{s:?}");
    assert!(s.bytes <= budget, "{s:?}");

    // A budget smaller than one field keeps nothing, and walks still work.
    let mut app = app_with(WalkmaskPlugin {
        field_cache_bytes: FIELD_BYTES - 1,
        ..warm_plugin()
    });
    let mask = load_mask(&mut app, "generated/warm_room.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(5, 5));
    wait_for(&mut app, LOAD_UPDATES, |w| stats(w).fills == 1);
    assert_eq!(
        (stats(app.world()).entries, stats(app.world()).bytes),
        (0, 0)
    );
    request(&mut app, walker, px(50, 10));
    arrived(&mut app, walker, 1);
    assert_eq!(stats(app.world()).misses, 1);
}

#[test]
fn despawning_a_walker_with_a_warm_up_in_flight_is_quiet() {
    let mut app = app_with(warm_plugin());
    let mask = load_mask(&mut app, "generated/warm_big.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    let walkers: Vec<Entity> = (0..4)
        .map(|i| {
            spawn_walker(
                &mut app,
                Walker::new(400.0),
                Vec2::new(i as f32 * 50.0, 0.0),
            )
        })
        .collect();
    app.update(); // the warm-ups start
    for walker in walkers {
        app.world_mut().despawn(walker);
    }
    run(&mut app, 30);
    // The plugin carries on: a new walker walks.
    let walker = spawn_walker(&mut app, Walker::new(4000.0), Vec2::new(-300.0, 0.0));
    run(&mut app, 2);
    request(&mut app, walker, Vec2::new(300.0, 100.0));
    arrived(&mut app, walker, 1);
    assert!(position(&app, walker).distance(Vec2::new(300.0, 100.0)) < 1e-2);
    assert!(app.world().resource::<Log>().unreachable.is_empty());
    let s = stats(app.world());
    assert_eq!(s.hits + s.misses, 1, "{s:?}");
}

#[test]
fn warm_fields_can_be_turned_off() {
    let mut app = app_with(WalkmaskPlugin {
        warm_fields: false,
        ..deterministic()
    });
    let mask = load_mask(&mut app, "generated/warm_room.walk.png");
    app.world_mut().spawn(WalkRoom::new(mask));
    let walker = spawn_walker(&mut app, Walker::new(400.0), px(5, 5));
    run(&mut app, 30);
    request(&mut app, walker, px(50, 10));
    arrived(&mut app, walker, 1);
    run(&mut app, 30);
    let s = stats(app.world());
    assert_eq!(
        (s.fills, s.entries, s.hits, s.misses),
        (0, 0, 0, 0),
        "{s:?}"
    );
}
