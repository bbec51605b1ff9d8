//! Regions ([`WalkRegions`]): entered and exited events for walkers crossing a room's
//! region layer, whatever moves them, under both paces.
//!
//! Headless app of `tests/common`, the usual 64 x 48 wall mask (a wall at x = 30..=33
//! down to y = 39), where pixel (px, py) is world (px - 32, 24 - py). The region
//! layer: 3 left of x = 5, 1 on x = 10..=14, 2 on x = 20 alone (one pixel wide), 4 on
//! x = 31 inside the wall (y <= 39).

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{Pace, add_mask, headless_app, position, px, request, spawn_walker};

fn region_pixel(x: u32, y: u32) -> u8 {
    match x {
        0..=4 => 3,
        10..=14 => 1,
        20 => 2,
        31 if y <= 39 => 4,
        _ => 0,
    }
}

/// `true` for an entry, `false` for an exit, with the region.
#[derive(Resource, Default)]
struct Crossings {
    observed: Vec<(Entity, bool, u8)>,
    messages: Vec<(Entity, bool, u8)>,
}

fn record_messages(
    mut entered: MessageReader<RegionEntered>,
    mut exited: MessageReader<RegionExited>,
    mut crossings: ResMut<Crossings>,
) {
    // Within one frame, one walker's crossings are in the order they happened; the
    // two kinds are read apart here, so compare them per kind.
    for e in entered.read() {
        crossings.messages.push((e.entity, true, e.region));
    }
    for e in exited.read() {
        crossings.messages.push((e.entity, false, e.region));
    }
}

/// Records the crossings observed ([`Crossings::observed`]).
fn observe_crossings(app: &mut App) {
    app.init_resource::<Crossings>()
        .add_observer(|e: On<RegionEntered>, mut c: ResMut<Crossings>| {
            c.observed.push((e.entity, true, e.region));
        })
        .add_observer(|e: On<RegionExited>, mut c: ResMut<Crossings>| {
            c.observed.push((e.entity, false, e.region));
        });
}

/// The app, its room (with the region layer) and the room's regions.
fn app(pace: Pace) -> (App, Entity) {
    let mut app = headless_app(pace.plugin());
    observe_crossings(&mut app);
    app.add_systems(Last, record_messages);
    let mask = add_mask(&mut app, 64, 48, common::room_pixel);
    let layer = add_mask(&mut app, 64, 48, region_pixel);
    let room = app
        .world_mut()
        .spawn((
            WalkRoom::new(mask),
            WalkRegions::new(layer)
                .with_region(1, "band")
                .with_region(2, "line")
                .with_region(3, "start"),
        ))
        .id();
    (app, room)
}

fn observed(app: &App, walker: Entity) -> Vec<(bool, u8)> {
    let crossings = app.world().resource::<Crossings>();
    crossings
        .observed
        .iter()
        .filter(|c| c.0 == walker)
        .map(|c| (c.1, c.2))
        .collect()
}

/// Observers and messages saw the same crossings.
fn assert_messages_match(app: &App) {
    let crossings = app.world().resource::<Crossings>();
    let mut observed = crossings.observed.clone();
    let mut messages = crossings.messages.clone();
    observed.sort_by_key(|c| (c.0, c.1, c.2));
    messages.sort_by_key(|c| (c.0, c.1, c.2));
    assert_eq!(observed, messages, "observers and messages differ");
}

fn region_of(app: &App, walker: Entity) -> Option<u8> {
    app.world().get::<InRegion>(walker).map(|r| r.region)
}

fn set_enabled(app: &mut App, room: Entity, region: u8, on: bool) {
    app.world_mut()
        .get_mut::<WalkRegions>(room)
        .unwrap()
        .set_enabled(region, on);
}

const IN: bool = true;
const OUT: bool = false;

/// Along the bottom (under the wall) from the start region to the right edge, slow
/// and fast: the start region is entered at once and each region crossed is entered
/// and left exactly once, in order; the fast walker crosses the one-pixel line within
/// a frame (32 pixels a frame) and still enters and leaves it.
#[test]
fn a_walk_across_regions_enters_and_leaves_each_once_in_order() {
    for pace in Pace::BOTH {
        for speed in [100.0, 2000.0] {
            let (mut app, _) = app(pace);
            let walker = spawn_walker(&mut app, Walker::new(speed), px(2, 44));
            let mut clock = pace.clock();
            clock.frame(&mut app);
            assert_eq!(
                observed(&app, walker),
                [(IN, 3)],
                "{pace:?} {speed}: at once"
            );
            assert_eq!(region_of(&app, walker), Some(3));
            let target = px(60, 44);
            request(&mut app, walker, target);
            clock.until(&mut app, 2000, |w| {
                w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
            });
            assert_eq!(
                observed(&app, walker),
                [(IN, 3), (OUT, 3), (IN, 1), (OUT, 1), (IN, 2), (OUT, 2)],
                "{pace:?} {speed}"
            );
            assert_eq!(region_of(&app, walker), Some(0));
            assert_messages_match(&app);
        }
    }
}

/// `InRegion` is changed (for `Changed<InRegion>`) when the region changes, not in
/// every frame the walker moves.
#[test]
fn in_region_changes_only_with_the_region() {
    #[derive(Resource, Default)]
    struct Changes(usize);
    for pace in Pace::BOTH {
        let (mut app, _) = app(pace);
        app.init_resource::<Changes>().add_systems(
            Last,
            |changed: Query<(), Changed<InRegion>>, mut changes: ResMut<Changes>| {
                changes.0 += changed.iter().count();
            },
        );
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        request(&mut app, walker, px(60, 44));
        let frames = clock.until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        // Inserted, then 3 -> 0 -> 1 -> 0 -> 2 -> 0 (the line may be crossed within
        // a frame), over some 35 frames of walking.
        let changes = app.world().resource::<Changes>().0;
        assert!(
            (5..=6).contains(&changes),
            "{pace:?}: {changes} changes in {frames} frames"
        );
    }
}

/// A disabled region emits nothing when crossed; disabling it under a walker takes
/// the walker out (one exit), enabling it again takes it back in.
#[test]
fn a_disabled_region_emits_nothing_and_toggles_pair_up() {
    for pace in Pace::BOTH {
        let (mut app, room) = app(pace);
        set_enabled(&mut app, room, 1, false);
        let walker = spawn_walker(&mut app, Walker::new(300.0), px(8, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        request(&mut app, walker, px(12, 44));
        clock.until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert_eq!(observed(&app, walker), [], "{pace:?}: band disabled");
        assert_eq!(region_of(&app, walker), Some(0));
        set_enabled(&mut app, room, 1, true);
        clock.frame(&mut app);
        assert_eq!(
            observed(&app, walker),
            [(IN, 1)],
            "{pace:?}: enabled under it"
        );
        set_enabled(&mut app, room, 1, false);
        clock.frame(&mut app);
        assert_eq!(observed(&app, walker), [(IN, 1), (OUT, 1)], "{pace:?}");
        clock.frames(&mut app, 5);
        assert_eq!(observed(&app, walker).len(), 2, "{pace:?}: nothing more");
        assert_messages_match(&app);
    }
}

/// Game code placing a walker far away takes it there at once: it leaves its region
/// and enters the one it lands in, without those in between.
#[test]
fn a_walker_placed_by_game_code_skips_the_regions_in_between() {
    for pace in Pace::BOTH {
        let (mut app, _) = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let mut place = |app: &mut App, at: Vec2| {
            app.world_mut()
                .get_mut::<Transform>(walker)
                .unwrap()
                .translation = at.extend(1.0);
            clock.frame(app);
        };
        place(&mut app, px(25, 44));
        assert_eq!(observed(&app, walker), [(IN, 3), (OUT, 3)], "{pace:?}");
        place(&mut app, px(12, 44));
        assert_eq!(
            observed(&app, walker),
            [(IN, 3), (OUT, 3), (IN, 1)],
            "{pace:?}"
        );
        assert_messages_match(&app);
    }
}

/// A cutscene move straight through the wall crosses the region inside it.
#[test]
fn a_cutscene_move_crosses_regions_too() {
    for pace in Pace::BOTH {
        let (mut app, _) = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(400.0), px(25, 10));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        app.world_mut()
            .commands()
            .entity(walker)
            .walk_anywhere([], px(40, 10));
        clock.until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert_eq!(observed(&app, walker), [(IN, 4), (OUT, 4)], "{pace:?}");
        assert_messages_match(&app);
    }
}

/// A layer half the mask's size maps each of its pixels over two by two mask pixels;
/// a layer that is no whole fraction of the mask is ignored (no events, no panic).
#[test]
fn layers_smaller_by_a_whole_factor_work_and_others_are_ignored() {
    for (size, expect) in [((32, 24), vec![(IN, 7), (OUT, 7)]), ((30, 24), vec![])] {
        let mut app = headless_app(Pace::Exact(0).plugin());
        observe_crossings(&mut app);
        let mask = add_mask(&mut app, 64, 48, common::room_pixel);
        // Region 7 on layer column 5: mask columns 10 and 11.
        let layer = add_mask(&mut app, size.0, size.1, |x, _| if x == 5 { 7 } else { 0 });
        app.world_mut()
            .spawn((WalkRoom::new(mask), WalkRegions::new(layer)));
        let walker = spawn_walker(&mut app, Walker::new(200.0), px(2, 44));
        app.update();
        request(&mut app, walker, px(20, 44));
        common::run_until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert_eq!(observed(&app, walker), expect, "layer {size:?}");
        assert!(position(&app, walker).distance(px(20, 44)) < 0.01);
    }
}

/// `WalkQuery` answers which region is at a point, as walkers see them.
#[test]
fn the_query_names_the_region_at_a_point() {
    #[derive(Resource, Default)]
    struct Answers(Vec<Option<u8>>);
    let (mut app, room) = app(Pace::Exact(0));
    app.init_resource::<Answers>();
    let points = [
        px(2, 10),
        px(12, 44),
        px(20, 5),
        px(31, 3),
        px(25, 25),
        px(80, 10),
    ];
    let ask = move |query: WalkQuery,
                    mut answers: ResMut<Answers>,
                    rooms: Query<Entity, With<WalkRoom>>| {
        let view = query.room(rooms.single().unwrap()).unwrap();
        answers.0 = points.iter().map(|&p| view.region_at(p)).collect();
        answers.0.push(view.region_at(Vec2::NAN));
    };
    let id = app.register_system(ask);
    app.update();
    app.world_mut().run_system(id).unwrap();
    let answers = &app.world().resource::<Answers>().0;
    assert_eq!(
        *answers,
        [Some(3), Some(1), Some(2), Some(4), Some(0), None, None]
    );
    set_enabled(&mut app, room, 1, false);
    app.world_mut().run_system(id).unwrap();
    assert_eq!(app.world().resource::<Answers>().0[1], Some(0), "disabled");
    app.world_mut().entity_mut(room).remove::<WalkRegions>();
    app.world_mut().run_system(id).unwrap();
    assert_eq!(app.world().resource::<Answers>().0[0], None, "no layer");
}

/// A walker that loses `Walker` loses `InRegion`; one despawned mid-walk in a region
/// breaks nothing.
#[test]
fn walkers_removed_or_despawned_leave_no_state() {
    for pace in Pace::BOTH {
        let (mut app, _) = app(pace);
        let kept = spawn_walker(&mut app, Walker::new(100.0), px(12, 44));
        let gone = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        assert_eq!(region_of(&app, kept), Some(1));
        request(&mut app, gone, px(60, 44));
        clock.frames(&mut app, 10);
        app.world_mut().entity_mut(kept).remove::<Walker>();
        app.world_mut().despawn(gone);
        clock.frames(&mut app, 10);
        assert_eq!(region_of(&app, kept), None, "{pace:?}");
        // Entries and exits pair up even on removal (before, no exit came).
        assert_eq!(observed(&app, kept), [(IN, 1), (OUT, 1)], "{pace:?}");
        let gone_seen = observed(&app, gone);
        assert_eq!(
            gone_seen.iter().filter(|c| c.0 == IN).count(),
            gone_seen.iter().filter(|c| c.0 == OUT).count(),
            "{pace:?}: {gone_seen:?}"
        );
        assert_messages_match(&app);
    }
}

/// A game that despawns a walker from its own `Arrived` observer, in a room with
/// regions, keeps running (before, region tracking's insert of `InRegion` for the
/// walker despawned in the same flush panicked the app), and the walker's entry
/// into the region it arrived in is paired with an exit.
#[test]
fn a_walker_despawned_by_its_arrival_observer_does_not_panic() {
    for pace in Pace::BOTH {
        let (mut app, _) = app(pace);
        let walker = spawn_walker(&mut app, Walker::new(400.0), px(60, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        app.world_mut().entity_mut(walker).observe(
            |arrived: On<Arrived>, mut commands: Commands| {
                commands.entity(arrived.entity).despawn();
            },
        );
        // Into the start region at the left, arriving within the frame it enters.
        request(&mut app, walker, px(2, 44));
        clock.until(&mut app, 400, |w| w.get_entity(walker).is_err());
        // One that arrives in the frame it appears (a cutscene step of a pixel), seen
        // by region tracking for the first time in the frame it is despawned.
        let brief = spawn_walker(&mut app, Walker::new(400.0), px(2, 40));
        app.world_mut().entity_mut(brief).observe(
            |arrived: On<Arrived>, mut commands: Commands| {
                commands.entity(arrived.entity).despawn();
            },
        );
        app.world_mut()
            .commands()
            .entity(brief)
            .walk_anywhere([], px(3, 40));
        clock.frames(&mut app, 3);
        assert!(app.world().get_entity(brief).is_err(), "{pace:?}");
        for gone in [walker, brief] {
            let seen = observed(&app, gone);
            assert_eq!(
                seen.iter().filter(|c| c.0 == IN).count(),
                seen.iter().filter(|c| c.0 == OUT).count(),
                "{pace:?}: {seen:?}"
            );
        }
        assert_messages_match(&app);
    }
}

/// A region with a speed factor slows walkers inside it (the band at half speed):
/// steps inside are half as long as steps outside; switched off, it slows nobody.
#[test]
fn a_slow_region_slows_the_walkers_inside_it() {
    for pace in Pace::BOTH {
        for enabled in [true, false] {
            let (mut app, room) = app(pace);
            let regions = app.world_mut().get::<WalkRegions>(room).unwrap().clone();
            app.world_mut()
                .entity_mut(room)
                .insert(regions.with_speed(1, 0.5));
            set_enabled(&mut app, room, 1, enabled);
            let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
            let mut clock = pace.clock();
            clock.frame(&mut app);
            request(&mut app, walker, px(28, 44));
            let (mut inside, mut outside) = (Vec::new(), Vec::new());
            let mut last = position(&app, walker);
            for _ in 0..120 {
                clock.frame(&mut app);
                let now = position(&app, walker);
                let step = now.distance(last);
                // The band is world x -22 .. -17; steps wholly in it or wholly left.
                if last.x > -21.9 && now.x < -17.1 {
                    inside.push(step);
                } else if now.x < -22.1 && step > 0.0 && last.x > -29.0 {
                    outside.push(step);
                }
                last = now;
            }
            assert!(!inside.is_empty() && !outside.is_empty(), "{pace:?}");
            let expected = if enabled { 0.8 } else { 1.6 };
            for step in &inside {
                assert!(
                    (step - expected).abs() < 0.01,
                    "{pace:?} {enabled}: {inside:?}"
                );
            }
            for step in &outside {
                assert!((step - 1.6).abs() < 0.01, "{pace:?} {enabled}: {outside:?}");
            }
        }
    }
}

#[cfg(feature = "sprites")]
/// The band (region 1, x = 10..=14) tinted red-ish with a fade of 2 pixels.
fn tinted_band(app: &mut App, room: Entity) {
    let regions = app.world().get::<WalkRegions>(room).unwrap().clone();
    app.world_mut().entity_mut(room).insert(
        regions
            .with_tint(1, Color::linear_rgb(1.0, 0.5, 0.25))
            .with_light(1, 0.8)
            .with_fade(1, 2.0),
    );
}

#[cfg(feature = "sprites")]
fn linear_tint(app: &App, walker: Entity) -> Option<LinearRgba> {
    app.world()
        .get::<RegionTint>(walker)
        .map(|t| t.0.to_linear())
}

#[cfg(feature = "sprites")]
fn close(a: LinearRgba, b: LinearRgba) -> bool {
    (a.red - b.red).abs() < 1e-4
        && (a.green - b.green).abs() < 1e-4
        && (a.blue - b.blue).abs() < 1e-4
}

/// A tinting region colours the walkers inside it: fully two pixels in, a quarter
/// half a pixel in, not at all outside; sprites with `TintedByRegion` take the
/// colour (their base multiplied by it) and get their base back when they leave.
#[cfg(feature = "sprites")]
#[test]
fn a_tinting_region_colours_walkers_and_fades_in_from_its_edge() {
    let (mut app, room) = app(Pace::Exact(0));
    tinted_band(&mut app, room);
    let base = Color::linear_rgb(0.5, 1.0, 1.0);
    let deep = spawn_walker(&mut app, Walker::new(100.0), px(12, 44));
    let edge = spawn_walker(&mut app, Walker::new(100.0), px(10, 44));
    let out = spawn_walker(&mut app, Walker::new(100.0), px(20, 44));
    app.world_mut()
        .entity_mut(deep)
        .insert((Sprite::default(), TintedByRegion { base }));
    app.update();
    app.update();
    let full = LinearRgba::rgb(0.8, 0.4, 0.2);
    let deep_tint = linear_tint(&app, deep).expect("tinted inside");
    assert!(close(deep_tint, full), "{deep_tint:?}");
    // Half a pixel in: a quarter of the way from white.
    let edge_tint = linear_tint(&app, edge).expect("tinted at the edge");
    let quarter = LinearRgba::rgb(0.95, 0.85, 0.8);
    assert!(close(edge_tint, quarter), "{edge_tint:?}");
    assert_eq!(linear_tint(&app, out), None);
    let sprite = app.world().get::<Sprite>(deep).unwrap().color.to_linear();
    assert!(close(sprite, LinearRgba::rgb(0.4, 0.4, 0.2)), "{sprite:?}");
    // Out of the band: no tint, the sprite's own colour back.
    app.world_mut()
        .get_mut::<Transform>(deep)
        .unwrap()
        .translation = px(20, 40).extend(0.0);
    app.update();
    app.update();
    assert_eq!(linear_tint(&app, deep), None);
    assert_eq!(app.world().get::<Sprite>(deep).unwrap().color, base);
    // Disabled, the band tints nobody.
    set_enabled(&mut app, room, 1, false);
    app.update();
    assert_eq!(linear_tint(&app, edge), None);
}

/// A region with `while_inside` emits `WhileInRegion` in every frame a walker is in
/// it, walking or standing, after its `RegionEntered` and before its `RegionExited`;
/// other regions emit none.
#[test]
fn while_inside_events_come_every_frame_between_entry_and_exit() {
    #[derive(Resource, Default)]
    struct Log(Vec<(u64, &'static str, u8)>);
    #[derive(Resource, Default)]
    struct Inside(u64);
    for pace in Pace::BOTH {
        let (mut app, room) = app(pace);
        let regions = app.world().get::<WalkRegions>(room).unwrap().clone();
        app.world_mut()
            .entity_mut(room)
            .insert(regions.with_while_inside(1));
        app.init_resource::<Log>()
            .init_resource::<Inside>()
            .add_observer(
                |e: On<WhileInRegion>,
                 mut log: ResMut<Log>,
                 frames: Res<bevy::diagnostic::FrameCount>| {
                    log.0.push((u64::from(frames.0), "while", e.region));
                },
            )
            .add_observer(
                |e: On<RegionEntered>,
                 mut log: ResMut<Log>,
                 frames: Res<bevy::diagnostic::FrameCount>| {
                    log.0.push((u64::from(frames.0), "in", e.region));
                },
            )
            .add_observer(
                |e: On<RegionExited>,
                 mut log: ResMut<Log>,
                 frames: Res<bevy::diagnostic::FrameCount>| {
                    log.0.push((u64::from(frames.0), "out", e.region));
                },
            )
            .add_systems(
                Last,
                |walkers: Query<&InRegion>, mut inside: ResMut<Inside>| {
                    inside.0 += walkers.iter().filter(|r| r.region == 1).count() as u64;
                },
            );
        let walker = spawn_walker(&mut app, Walker::new(100.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        request(&mut app, walker, px(12, 44));
        clock.until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        // Standing in the band for ten frames more (at least twelve frames in it with
        // the walk in), then walking out of it.
        clock.frames(&mut app, 10);
        request(&mut app, walker, px(25, 44));
        clock.until(&mut app, 2000, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        let log = &app.world().resource::<Log>().0;
        let band: Vec<&(u64, &str, u8)> = log.iter().filter(|e| e.2 == 1).collect();
        assert_eq!(band.first().map(|e| e.1), Some("in"), "{pace:?}: {band:?}");
        assert_eq!(band.last().map(|e| e.1), Some("out"), "{pace:?}: {band:?}");
        let whiles = band.iter().filter(|e| e.1 == "while").count() as u64;
        assert!(
            band[1..band.len() - 1].iter().all(|e| e.1 == "while"),
            "{pace:?}: {band:?}"
        );
        // One a frame: as many as frames the walker ended in the band.
        assert_eq!(whiles, app.world().resource::<Inside>().0, "{pace:?}");
        assert!(whiles >= 12, "{pace:?}: {whiles}");
        assert!(log.iter().all(|e| e.1 != "while" || e.2 == 1), "{pace:?}");
    }
}

/// `WalkQuery::region_of` says which room and region a walker is in.
#[test]
fn the_query_says_which_region_a_walker_is_in() {
    #[derive(Resource, Default)]
    struct Answers(Vec<Option<(Entity, u8)>>);
    let (mut app, room) = app(Pace::Exact(0));
    let inside = spawn_walker(&mut app, Walker::new(100.0), px(12, 44));
    let outside = spawn_walker(&mut app, Walker::new(100.0), px(25, 44));
    let not_a_walker = app.world_mut().spawn(Transform::default()).id();
    app.init_resource::<Answers>();
    let id = app.register_system(move |query: WalkQuery, mut answers: ResMut<Answers>| {
        answers.0 = [inside, outside, not_a_walker]
            .iter()
            .map(|&w| query.region_of(w))
            .collect();
    });
    app.update();
    app.world_mut().run_system(id).unwrap();
    assert_eq!(
        app.world().resource::<Answers>().0,
        [Some((room, 1)), Some((room, 0)), None]
    );
}

/// Writes an RGBA layer (`pixel` gives each colour) and a `.meta` that reads it
/// with the exact-colour rule and names its ids.
fn write_colour_layer(name: &str, pixel: impl Fn(u32, u32) -> [u8; 4]) {
    common::create_generated_dir();
    let image = image::RgbaImage::from_fn(64, 48, |x, y| image::Rgba(pixel(x, y)));
    image.save(common::asset_file(name)).unwrap();
    std::fs::write(
        common::asset_file(&format!("{name}.meta")),
        r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "bevy_walkmask::asset::WalkMaskLoader",
        settings: (
            rule: ExactColors([
                (rgb: (200, 40, 40), area: 1),
                (rgb: (40, 40, 200), area: 2),
            ]),
            names: {1: "rug", 2: "doorway"},
        ),
    ),
)
"#,
    )
    .unwrap();
}

/// A region layer painted in colours, described by its `.meta` (colours to ids, and
/// names): loads with its ids and names, which the query reports; a stray colour is
/// a load error naming the colour and a pixel where it is.
#[test]
fn a_layer_described_by_colours_and_names_loads_or_names_a_stray_colour() {
    let paint = |x: u32, _y: u32| match x {
        10..=14 => [200, 40, 40, 255],
        20 => [40, 40, 200, 255],
        _ => [0, 0, 0, 0],
    };
    write_colour_layer("generated/colour_regions.walk.png", paint);
    write_colour_layer("generated/stray_regions.walk.png", |x, y| {
        if (x, y) == (17, 30) {
            [201, 40, 40, 255]
        } else {
            paint(x, y)
        }
    });
    let mut app = headless_app(Pace::Exact(0).plugin());
    let mask = add_mask(&mut app, 64, 48, common::room_pixel);
    let layer = common::load_mask(&mut app, "generated/colour_regions.walk.png");
    {
        let masks = app.world().resource::<Assets<WalkMask>>();
        let loaded = masks.get(&layer).unwrap();
        assert_eq!(
            (
                loaded.area_at(12, 3),
                loaded.area_at(20, 3),
                loaded.area_at(5, 3)
            ),
            (Some(1), Some(2), Some(0))
        );
        assert_eq!(
            (loaded.name(1), loaded.name(2), loaded.name(3)),
            (Some("rug"), Some("doorway"), None)
        );
    }
    // Named by the layer unless the component names it.
    let room = app
        .world_mut()
        .spawn((
            WalkRoom::new(mask),
            WalkRegions::new(layer).with_region(2, "door"),
        ))
        .id();
    app.update();
    let names = app
        .world_mut()
        .run_system_once(move |query: WalkQuery| {
            let view = query.room(room).unwrap();
            [1, 2, 3].map(|id| view.region_name(id).map(str::to_owned))
        })
        .unwrap();
    assert_eq!(names, [Some("rug".into()), Some("door".into()), None]);
    let stray: Handle<WalkMask> = app
        .world()
        .resource::<AssetServer>()
        .load("generated/stray_regions.walk.png");
    common::wait_for(&mut app, common::LOAD_UPDATES, |w| {
        matches!(
            w.resource::<AssetServer>().load_state(&stray),
            bevy::asset::LoadState::Failed(_)
        )
    });
    let bevy::asset::LoadState::Failed(error) =
        app.world().resource::<AssetServer>().load_state(&stray)
    else {
        unreachable!()
    };
    let error = error.to_string();
    assert!(
        error.contains("stray_regions.walk.png")
            && error.contains("#c92828")
            && error.contains("pixel 17, 30"),
        "{error}"
    );
}

/// A region's scale rule wins over the room's: a fixed scale in the start region, a
/// linear one down the band (between its top and bottom rows), none elsewhere; in
/// the frame the walker enters the region; a disabled region scales nobody.
#[test]
fn a_region_scale_rule_scales_walkers_inside() {
    for pace in Pace::BOTH {
        let (mut app, room) = app(pace);
        let regions = app.world().get::<WalkRegions>(room).unwrap().clone();
        app.world_mut().entity_mut(room).insert((
            regions.with_scale(3, AreaScale::Fixed(0.5)).with_scale(
                1,
                AreaScale::Linear {
                    top: 1.0,
                    bottom: 2.0,
                },
            ),
            WalkScaling::default().with_area(1, AreaScale::Fixed(1.25)),
        ));
        let scaled = |app: &mut App, at: Vec2| {
            app.world_mut()
                .spawn((
                    Walker::new(100.0),
                    DepthScale::default(),
                    Transform::from_translation(at.extend(0.0)),
                ))
                .id()
        };
        let start = scaled(&mut app, px(2, 44));
        let band = scaled(&mut app, px(12, 44));
        let outside = scaled(&mut app, px(25, 44));
        let mut clock = pace.clock();
        clock.frames(&mut app, 2);
        let scale = |app: &App, e: Entity| app.world().get::<DepthScale>(e).unwrap().current;
        assert_eq!(scale(&app, start), 0.5, "{pace:?}");
        // Row 44 of rows 0..=47: (44.5 - 0.5) / 47 of the way from 1 to 2.
        assert!(
            (scale(&app, band) - (1.0 + 44.0 / 47.0)).abs() < 1e-4,
            "{pace:?}"
        );
        assert_eq!(scale(&app, outside), 1.25, "{pace:?}: the room's rule");
        // Walking from outside into the start region: scaled in the frame it enters.
        request(&mut app, outside, px(3, 44));
        for _ in 0..200 {
            clock.frame(&mut app);
            let in_region = app.world().get::<InRegion>(outside).map(|r| r.region);
            let s = scale(&app, outside);
            match in_region {
                Some(3) => assert_eq!(s, 0.5, "{pace:?}: entered"),
                Some(1) => assert!(s > 1.0 && s < 2.0, "{pace:?}: {s} in the band"),
                _ => assert_eq!(s, 1.25, "{pace:?}"),
            }
            if app.world().get::<WalkState>(outside) == Some(&WalkState::Arrived) {
                break;
            }
        }
        assert_eq!(scale(&app, outside), 0.5, "{pace:?}");
        set_enabled(&mut app, room, 3, false);
        clock.frame(&mut app);
        assert_eq!(
            scale(&app, start),
            1.25,
            "{pace:?}: the room's rule once disabled"
        );
    }
}

fn in_band(p: Vec2) -> bool {
    let (x, _) = common::pixel_of(p);
    (10..=14).contains(&x)
}

/// A blocking region is a wall while it blocks: a walk across it is planned round
/// it (here there is no way round: the walker stops short), a walk under way when
/// it starts blocking is planned again and never enters it, the query calls it not
/// walkable (its area is still the one painted), and once it stops blocking walks
/// cross it again. Every request is answered once.
#[test]
fn a_blocking_region_blocks_the_way_while_it_blocks() {
    #[derive(Resource)]
    struct Room(Entity);
    for pace in Pace::BOTH {
        let (mut app, room) = app(pace);
        common::add_log(&mut app);
        app.insert_resource(Room(room));
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let mut ids = Vec::new();
        // Blocking from the start: the walk stops short of the band.
        app.world_mut()
            .get_mut::<WalkRegions>(room)
            .unwrap()
            .set_blocking(1, true);
        ids.push(request(&mut app, walker, px(25, 44)));
        clock.until(&mut app, 600, |w| {
            matches!(
                w.get::<WalkState>(walker),
                Some(WalkState::Arrived | WalkState::Unreachable)
            )
        });
        let at = position(&app, walker);
        assert!(common::pixel_of(at).0 < 10, "{pace:?}: stopped at {at}");
        let ask = |app: &mut App, p: Vec2| {
            app.world_mut()
                .run_system_once(move |query: WalkQuery, room: Res<Room>| {
                    let view = query.room(room.0).ok()?;
                    Some((view.is_walkable(p).ok()?, view.area_at(p)?))
                })
                .unwrap()
        };
        assert_eq!(ask(&mut app, px(12, 44)), Some((false, 1)), "{pace:?}");
        // Open: the walk crosses; blocking again mid-walk, before the band.
        app.world_mut()
            .get_mut::<WalkRegions>(room)
            .unwrap()
            .set_blocking(1, false);
        clock.frame(&mut app);
        assert_eq!(ask(&mut app, px(12, 44)), Some((true, 1)), "{pace:?}");
        // Back to the start, then on across the band.
        ids.push(request(&mut app, walker, px(2, 44)));
        clock.until(&mut app, 600, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        ids.push(request(&mut app, walker, px(25, 44)));
        let mut entered = false;
        let mut blocked = false;
        for _ in 0..600 {
            clock.frame(&mut app);
            let p = position(&app, walker);
            if !blocked && p.x > px(6, 44).x {
                app.world_mut()
                    .get_mut::<WalkRegions>(room)
                    .unwrap()
                    .set_blocking(1, true);
                blocked = true;
            } else if blocked {
                entered |= in_band(p);
            }
            if matches!(
                app.world().get::<WalkState>(walker),
                Some(WalkState::Arrived | WalkState::Unreachable | WalkState::Idle)
            ) {
                break;
            }
        }
        assert!(
            blocked && !entered,
            "{pace:?}: entered the band after it blocked"
        );
        assert!(common::pixel_of(position(&app, walker)).0 < 10, "{pace:?}");
        // Unblocked for good: across.
        app.world_mut()
            .get_mut::<WalkRegions>(room)
            .unwrap()
            .set_blocking(1, false);
        ids.push(request(&mut app, walker, px(25, 44)));
        clock.until(&mut app, 600, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        assert!(
            position(&app, walker).distance(px(25, 44)) < 1e-3,
            "{pace:?}"
        );
        common::assert_contract(app.world().resource::<common::Log>(), &ids);
    }
}

/// A region that blocks, stops blocking and blocks again takes its first copy of the
/// room's mask again (and the grids prepared for it): toggling a gate back and forth
/// makes one copy, not one per toggle.
#[test]
fn toggling_a_blocking_region_back_and_forth_reuses_its_copy_of_the_mask() {
    #[derive(Resource, Default)]
    struct Added(usize);
    let (mut app, room) = app(Pace::Exact(2));
    app.init_resource::<Added>().add_systems(
        Last,
        |mut events: MessageReader<AssetEvent<WalkMask>>, mut added: ResMut<Added>| {
            added.0 += events
                .read()
                .filter(|e| matches!(e, AssetEvent::Added { .. }))
                .count();
        },
    );
    app.update();
    let before = app.world().resource::<Added>().0;
    for on in [true, false, true, false, true] {
        app.world_mut()
            .get_mut::<WalkRegions>(room)
            .unwrap()
            .set_blocking(1, on);
        app.update();
        app.update();
    }
    assert_eq!(app.world().resource::<Added>().0 - before, 1);
}

/// A walker standing in a region when it starts blocking (a tree falls where it
/// stands) steps out of it to the nearest walkable pixel, at its speed, standing as
/// it was (no walk, no outcome); it never crosses the wall on the way.
#[test]
fn a_walker_standing_in_a_region_that_starts_blocking_steps_out() {
    for pace in Pace::BOTH {
        let (mut app, room) = app(pace);
        common::add_log(&mut app);
        // In the middle of the band x = 10..=14, nearer its right side.
        let walker = spawn_walker(&mut app, Walker::new(30.0), px(13, 20));
        let mut clock = pace.clock();
        clock.frames(&mut app, 3);
        app.world_mut()
            .get_mut::<WalkRegions>(room)
            .unwrap()
            .set_blocking(1, true);
        let frames = clock.until(&mut app, 300, |w| {
            let at = w.get::<Transform>(walker).unwrap().translation.truncate();
            common::pixel_of(at).0 == 15
        });
        let at = position(&app, walker);
        assert_eq!(common::pixel_of(at), (15, 20), "{pace:?}: at {at}");
        // Two pixels at 30 px/s: a few frames, not a jump.
        assert!((3..60).contains(&frames), "{pace:?}: {frames} frames");
        assert_eq!(
            app.world().get::<WalkState>(walker),
            Some(&WalkState::Idle),
            "{pace:?}"
        );
        assert!(
            app.world().resource::<common::Log>().both().is_empty(),
            "{pace:?}: no outcome"
        );
        clock.frames(&mut app, 10);
        assert_eq!(position(&app, walker), at, "{pace:?}: it stays out");
    }
}
