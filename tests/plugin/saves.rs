//! What a save loaded back into a game keeps: request ids that cannot be taken for
//! the ids of the walks it holds.
//!
//! The usual 64 x 48 wall mask, where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy::reflect::tuple_struct::DynamicTupleStruct;
use bevy::reflect::{FromReflect, PartialReflect};
use bevy_walkmask::prelude::*;
use bevy_walkmask::{Interacting, RequestInFlight, UnreachablePolicy, Verb, WalkObstacle};
use common::{Pace, px, request, spawn_walker, wall_room_app};

/// An id as a save holds it: far ahead of this process's counter, built through
/// reflection as a scene loader builds it.
fn saved_id(n: u64) -> RequestId {
    let mut saved = DynamicTupleStruct::default();
    saved.insert(n);
    RequestId::from_reflect(&saved).expect("a RequestId from its number")
}

/// A walk and an interaction loaded with ids ahead of the counter: every request
/// sent afterwards has a later id, so none can be taken for the loaded ones.
#[test]
fn ids_of_requests_sent_after_a_load_come_after_the_loaded_ones() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let walked = saved_id(1 << 40);
        app.world_mut().entity_mut(walker).insert(WalkPath {
            waypoints: vec![px(4, 44), px(20, 44)],
            next: 1,
            target: px(20, 44),
            request: walked,
            face: None,
        });
        let new = request(&mut app, walker, px(10, 44));
        assert!(new > walked, "{pace:?}: {new} after a loaded {walked}");
        let acting = saved_id((1 << 41) + 7);
        let hotspot = app.world_mut().spawn_empty().id();
        app.world_mut().spawn_empty().insert(Interacting {
            hotspot,
            verb: Verb::INTERACT,
            request: acting,
            walk_to: None,
            reach: 1.0,
            unreachable: UnreachablePolicy::default(),
        });
        let new = RequestId::new();
        assert!(new > acting, "{pace:?}: {new} after a loaded {acting}");
    }
}

/// A component as a save holds it: written to RON, or (one that holds entities,
/// which RON writes only with Bevy's `serialize` feature, and a `DynamicWorld` load
/// maps to the loading world's entities) as its reflected value.
enum Saved {
    Ron(String),
    Value(Box<dyn PartialReflect>),
}

/// Every reflected component of `walker` in `from`, saved and read back onto a new
/// entity in `to` through reflection, as a `DynamicWorld` save stores and loads it;
/// returns the new entity. (`Transform` is registered for reflection in both, as
/// Bevy's default plugins do in a game.)
fn save_and_load(from: &mut App, walker: Entity, to: &mut App) -> Entity {
    use bevy::ecs::reflect::ReflectComponent;
    from.register_type::<Transform>();
    to.register_type::<Transform>();
    use bevy::reflect::serde::{ReflectDeserializer, ReflectSerializer};
    use serde::de::DeserializeSeed;
    let saved: Vec<(String, Saved)> = {
        let world = from.world();
        let registry = world.resource::<AppTypeRegistry>().read();
        let entity = world.entity(walker);
        registry
            .iter()
            .filter_map(|registration| {
                let component = registration.data::<ReflectComponent>()?.reflect(entity)?;
                let serializer = ReflectSerializer::new(component.as_partial_reflect(), &registry);
                let saved = match ron::to_string(&serializer) {
                    Ok(text) => Saved::Ron(text),
                    Err(_) => Saved::Value(
                        component
                            .reflect_clone()
                            .expect("a component that clones through reflection")
                            .into_partial_reflect(),
                    ),
                };
                Some((registration.type_info().type_path().to_string(), saved))
            })
            .collect()
    };
    let world = to.world_mut();
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let mut loaded = world.spawn_empty();
    for (type_path, saved) in &saved {
        let value = match saved {
            Saved::Ron(text) => {
                let mut deserializer = ron::Deserializer::from_str(text).expect("RON");
                ReflectDeserializer::new(&registry)
                    .deserialize(&mut deserializer)
                    .expect("a component read from RON")
            }
            Saved::Value(value) => value.to_dynamic(),
        };
        registry
            .get_with_type_path(type_path)
            .and_then(|registration| registration.data::<ReflectComponent>())
            .expect("a registered component")
            .insert(&mut loaded, value.as_partial_reflect(), &registry);
    }
    loaded.id()
}

/// Saves `walkers` of `app` (whose room is `room`) through a `DynamicWorld` and
/// loads them into a new wall room game, as a game does: it runs its room a frame
/// with `clock`, then loads its characters. Returns the game and the loaded
/// entities, in order.
fn load_into_a_new_wall_room(
    app: &App,
    room: Entity,
    walkers: &[Entity],
    pace: Pace,
    clock: &mut common::FrameClock,
) -> (App, Vec<Entity>) {
    let (mut loaded_app, loaded_room) = wall_room_app(pace.plugin());
    loaded_app.register_type::<Transform>();
    clock.frame(&mut loaded_app);
    let mut entities = bevy::ecs::entity::EntityHashMap::default();
    entities.insert(room, loaded_room);
    write_saved_walkers(app.world(), walkers, loaded_app.world_mut(), &mut entities);
    let loaded = walkers.iter().map(|walker| entities[walker]).collect();
    (loaded_app, loaded)
}

/// Runs frames until `walker` has set off on its walk.
fn until_walking(app: &mut App, clock: &mut common::FrameClock, walker: Entity) {
    clock.until(app, 60, |world| {
        world
            .get::<WalkPath>(walker)
            .is_some_and(|path| path.next > 0)
    });
}

/// Runs frames until `walker`'s request `id` has ended (arrived or stopped) or been
/// answered without a walk; panics after `max`.
fn until_request_ends(app: &mut App, clock: &mut common::FrameClock, id: RequestId, max: usize) {
    clock.until(app, max, |world| {
        world
            .resource::<common::Log>()
            .kinds(id)
            .iter()
            .any(|k| k.is_end() || matches!(k, common::Kind::Unreachable | common::Kind::Cancelled))
    });
}

/// A wall at x = 30..=33 from the top down to y = 39, with a gate (area 2) in it at
/// y = 10..=20: shut, the way from the left to the right goes below the wall.
fn gated_wall(x: u32, y: u32) -> u8 {
    match ((30..=33).contains(&x), y) {
        (true, 10..=20) => 2,
        (true, 0..=39) => 0,
        _ => 1,
    }
}

/// A game (logging outcomes) whose one room has the 64 x 48 mask `pixel` with its
/// area 2, the gate, shut; returns the game and the room.
fn gated_room_app(pace: Pace, pixel: fn(u32, u32) -> u8) -> (App, Entity) {
    let mut app = common::headless_app(pace.plugin());
    common::add_log(&mut app);
    let mask = common::add_mask(&mut app, 64, 48, pixel);
    let mut room = WalkRoom::new(mask);
    room.disable_area(2);
    let room = app.world_mut().spawn(room).id();
    (app, room)
}

/// A walk saved in mid-walk and loaded into a new game walks on as saved: its way on
/// is clear in the loaded world, so it is neither held nor planned again; it moves in
/// the first frame after the load and arrives, with the request it was saved with,
/// once.
#[test]
fn a_walk_saved_in_mid_walk_walks_on_after_a_load() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let id = request(&mut app, walker, px(60, 44));
        let mut clock = pace.clock();
        until_walking(&mut app, &mut clock, walker);
        clock.frames(&mut app, 10);
        let saved_at = common::position(&app, walker);
        assert!(saved_at.x < px(30, 44).x, "{pace:?}: saved at {saved_at}");
        // The game runs its room a frame, then loads its characters.
        let (mut loaded_app, _) = wall_room_app(pace.plugin());
        let mut clock = pace.clock();
        clock.frame(&mut loaded_app);
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        assert_eq!(
            loaded_app
                .world()
                .get::<WalkPath>(loaded)
                .map(|path| path.request),
            Some(id),
            "{pace:?}: the walk was saved"
        );
        clock.frame(&mut loaded_app);
        let moved = common::position(&loaded_app, loaded);
        assert!(
            moved.x > saved_at.x,
            "{pace:?}: at {moved} a frame after the load, saved at {saved_at}"
        );
        until_request_ends(&mut loaded_app, &mut clock, id, 400);
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert!(
            matches!(kinds.as_slice(), [common::Kind::Arrived(_)]),
            "{pace:?}: {kinds:?}"
        );
        let at = common::position(&loaded_app, loaded);
        assert!(at.distance(px(60, 44)) < 1e-3, "{pace:?}: arrived at {at}");
    }
}

/// A walk loaded back is watched for solid obstacles as any walk: a guard that steps
/// onto its way after the load re-plans it round the guard (it never walks into the
/// guard's footprint) and it arrives.
#[test]
fn a_walk_loaded_back_re_plans_round_a_guard_that_steps_onto_it() {
    let guard_at = px(45, 44);
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let id = request(&mut app, walker, px(60, 44));
        let mut clock = pace.clock();
        until_walking(&mut app, &mut clock, walker);
        clock.frames(&mut app, 5);
        let (mut loaded_app, _) = wall_room_app(pace.plugin());
        let mut clock = pace.clock();
        clock.frame(&mut loaded_app);
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        clock.frames(&mut loaded_app, 3);
        loaded_app.world_mut().spawn((
            WalkObstacle::circle(3.0),
            Transform::from_translation(guard_at.extend(1.0)),
        ));
        for frame in 0..400 {
            clock.frame(&mut loaded_app);
            let at = common::position(&loaded_app, loaded);
            assert!(
                at.distance(guard_at) > 2.0,
                "{pace:?}: frame {frame}: at {at}, in the guard standing at {guard_at}"
            );
            if loaded_app.world().get::<WalkPath>(loaded).is_none() {
                break;
            }
        }
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert!(
            matches!(
                kinds.as_slice(),
                [common::Kind::Replanned { .. }, common::Kind::Arrived(_)]
            ),
            "{pace:?}: {kinds:?}"
        );
    }
}

/// A walk that bends round a guard, saved with the guard and loaded back, still knows
/// what bent it: when the guard steps away, it is planned again (under `AfterFrames`
/// straight through the spot), as it would have been without the save.
#[test]
fn a_walk_loaded_back_goes_straight_once_the_guard_it_bent_round_steps_away() {
    let guard_at = px(45, 44);
    for pace in Pace::BOTH {
        let (mut app, room) = wall_room_app(pace.plugin());
        app.register_type::<Transform>();
        let guard = app
            .world_mut()
            .spawn((
                WalkObstacle::circle(3.0),
                Transform::from_translation(guard_at.extend(1.0)),
            ))
            .id();
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let id = request(&mut app, walker, px(60, 44));
        until_walking(&mut app, &mut clock, walker);
        let bent = app.world().get::<WalkPath>(walker).unwrap().waypoints.len();
        assert!(bent > 2, "{pace:?}: a walk round the guard ({bent} points)");
        let mut clock = pace.clock();
        let (mut loaded_app, loaded) =
            load_into_a_new_wall_room(&app, room, &[walker, guard], pace, &mut clock);
        let (loaded, loaded_guard) = (loaded[0], loaded[1]);
        clock.frame(&mut loaded_app);
        loaded_app
            .world_mut()
            .get_mut::<Transform>(loaded_guard)
            .unwrap()
            .translation = px(45, 10).extend(1.0);
        clock.frames(&mut loaded_app, 6);
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        // Under `AfterFrames` it is planned from the bend, straight on; when ready,
        // from further along its bend.
        let straight = kinds.iter().any(|kind| match kind {
            common::Kind::Replanned { waypoints, .. } => {
                waypoints.len() == 2 || matches!(pace, Pace::Paced)
            }
            _ => false,
        });
        assert!(straight, "{pace:?}: planned again straight on: {kinds:?}");
        until_request_ends(&mut loaded_app, &mut clock, id, 400);
        let at = common::position(&loaded_app, loaded);
        assert!(at.distance(px(60, 44)) < 1e-3, "{pace:?}: arrived at {at}");
    }
}

/// Under `AfterFrames`, a request saved while its search ran is answered after a load
/// in the frame it would have been answered without one, and a request sent in the
/// frame after the load waits for it, as it would have: the saved one gets its path
/// (not `PathCancelled`), then the new one its own.
#[test]
fn a_search_saved_under_way_is_answered_when_it_was_due() {
    let pace = Pace::Exact(3);
    // Frames from the save to each outcome of `first` and `next`, with or without a
    // save and load between.
    let run = |saved: bool| -> Vec<(usize, bool, common::Kind)> {
        let (mut app, _) = wall_room_app(pace.plugin());
        let mut clock = pace.clock();
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        request(&mut app, walker, px(20, 44));
        until_walking(&mut app, &mut clock, walker);
        let first = request(&mut app, walker, px(60, 44));
        clock.frames(&mut app, 1);
        let (mut app, walker) = if saved {
            // The game runs its room a frame, then loads its characters.
            let (mut loaded_app, _) = wall_room_app(pace.plugin());
            pace.clock().frame(&mut loaded_app);
            let loaded = save_and_load(&mut app, walker, &mut loaded_app);
            (loaded_app, loaded)
        } else {
            (app, walker)
        };
        let mut seen = app.world().resource::<common::Log>().observed.len();
        let next = request(&mut app, walker, px(10, 44));
        let mut outcomes = Vec::new();
        for frame in 0..12 {
            clock.frame(&mut app);
            let log = &app.world().resource::<common::Log>().observed;
            outcomes.extend(
                log[seen..]
                    .iter()
                    .filter(|e| e.request == first || e.request == next)
                    .map(|e| (frame, e.request == first, e.kind.clone())),
            );
            seen = log.len();
            if outcomes.iter().any(|(_, first, k)| !first && k.is_answer()) {
                break;
            }
        }
        outcomes
    };
    let played = run(false);
    let loaded = run(true);
    assert!(
        matches!(played.first(), Some((_, true, common::Kind::Ready { .. }))),
        "unsaved: {played:?}"
    );
    assert_eq!(
        loaded
            .iter()
            .map(|(f, first, k)| (*f, *first, std::mem::discriminant(k)))
            .collect::<Vec<_>>(),
        played
            .iter()
            .map(|(f, first, k)| (*f, *first, std::mem::discriminant(k)))
            .collect::<Vec<_>>(),
        "after a load: {loaded:?}, unsaved: {played:?}"
    );
}

/// Saves `walker` of `app` (in the gated room `room`) and loads it into a new gated
/// room game as a game does: it runs its room a frame, spawns its character at its
/// entry point, and loads the save over it (a `DynamicWorld` applies what it holds in
/// place over the defaults). Returns the new game, walker and room.
fn load_over_spawned_walker(
    app: &mut App,
    room: Entity,
    walker: Entity,
    pace: Pace,
) -> (App, Entity, Entity) {
    let (mut loaded_app, loaded_room) = gated_room_app(pace, gated_wall);
    loaded_app.register_type::<Transform>();
    app.register_type::<Transform>();
    pace.clock().frame(&mut loaded_app);
    let spawned = spawn_walker(&mut loaded_app, Walker::new(60.0), px(12, 30));
    let mut entities = bevy::ecs::entity::EntityHashMap::default();
    entities.insert(room, loaded_room);
    entities.insert(walker, spawned);
    write_saved_walkers(
        app.world(),
        &[walker],
        loaded_app.world_mut(),
        &mut entities,
    );
    (loaded_app, spawned, loaded_room)
}

/// A walk saved while it stood on hold (game code had moved the walker off it, and
/// its re-plan was under way), loaded back: the walker stands until the re-plan
/// lands, then walks on, frame for frame where it would have without the save; it
/// does not walk on along the walk it was moved off.
#[test]
fn a_walk_saved_on_hold_after_a_teleport_stands_until_its_re_plan_lands() {
    for pace in [Pace::Exact(2), Pace::Exact(4)] {
        let play = |saved: bool| -> Vec<Vec2> {
            let (mut app, room) = gated_room_app(pace, gated_wall);
            let mut clock = pace.clock();
            let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
            request(&mut app, walker, px(60, 44));
            until_walking(&mut app, &mut clock, walker);
            clock.frames(&mut app, 3);
            app.world_mut()
                .get_mut::<Transform>(walker)
                .unwrap()
                .translation = px(10, 42).extend(1.0);
            clock.frames(&mut app, 1);
            let (mut app, walker, _) = if saved {
                load_over_spawned_walker(&mut app, room, walker, pace)
            } else {
                (app, walker, room)
            };
            (0..12)
                .map(|_| {
                    clock.frame(&mut app);
                    common::position(&app, walker)
                })
                .collect()
        };
        let played = play(false);
        let loaded = play(true);
        assert!(
            played[0].distance(px(10, 42)) < 0.01,
            "{pace:?}: unsaved, it stands on hold: {played:?}"
        );
        for (frame, (a, b)) in played.iter().zip(&loaded).enumerate() {
            assert!(
                a.distance(*b) < 0.01,
                "{pace:?}: frame {frame}: at {b} after a load, at {a} unsaved"
            );
        }
    }
}

/// What the game does before the first frame after a save (or, unsaved, the frame
/// after the one it saved in).
#[derive(Clone, Copy, Debug)]
enum FirstFrame {
    /// Opens the gate and sends the walker a new request.
    OpenGateAndSend,
    /// Puts the walker somewhere else (a teleport, a knock-back).
    Teleport,
    /// Paints the room's mask anew (the gate open, a wall gone) and sends the
    /// walker a new request.
    RepaintAndSend,
}

/// Plays a search saved under way on a standing walker, with a request waiting for
/// it, in the gated room: with a save and load before `change` (loaded over the
/// character the room spawned at its entry point, as a `DynamicWorld` applies what
/// it holds in place over it), or without. Returns each outcome of the saved search's
/// request (0), the one waiting (1) and the new one (2), with the frame after the save
/// it came in, and where the walker ends.
fn play_search_saved_under_way(
    pace: Pace,
    saved: bool,
    change: FirstFrame,
) -> (
    Vec<(usize, usize, std::mem::Discriminant<common::Kind>)>,
    Vec2,
) {
    let (mut app, room) = gated_room_app(pace, gated_wall);
    let mut clock = pace.clock();
    let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
    clock.frames(&mut app, 1);
    let first = request(&mut app, walker, px(60, 14));
    clock.frames(&mut app, 1);
    let waiting = request(&mut app, walker, px(60, 16));
    clock.frames(&mut app, 1);
    let (mut app, walker, room) = if saved {
        load_over_spawned_walker(&mut app, room, walker, pace)
    } else {
        (app, walker, room)
    };
    let mut seen = app.world().resource::<common::Log>().observed.len();
    let next = match change {
        FirstFrame::OpenGateAndSend => {
            app.world_mut()
                .get_mut::<WalkRoom>(room)
                .unwrap()
                .set_area(2, true);
            Some(request(&mut app, walker, px(4, 30)))
        }
        FirstFrame::RepaintAndSend => {
            let mask = app.world().get::<WalkRoom>(room).unwrap().mask.clone();
            let open = bevy_walkmask::walkmask::WalkMask::from_fn(64, 48, |x, y| {
                u8::from(gated_wall(x, y) != 0 || y > 30)
            })
            .unwrap();
            *app.world_mut()
                .resource_mut::<Assets<WalkMask>>()
                .get_mut(&mask)
                .unwrap() = WalkMask::new(open);
            Some(request(&mut app, walker, px(4, 30)))
        }
        FirstFrame::Teleport => {
            app.world_mut()
                .get_mut::<Transform>(walker)
                .unwrap()
                .translation = px(20, 30).extend(1.0);
            None
        }
    };
    let ids = [Some(first), Some(waiting), next];
    let mut outcomes = Vec::new();
    for frame in 0..60 {
        clock.frame(&mut app);
        let log = &app.world().resource::<common::Log>().observed;
        outcomes.extend(log[seen..].iter().filter_map(|e| {
            let which = ids.iter().position(|id| *id == Some(e.request))?;
            Some((frame, which, std::mem::discriminant(&e.kind)))
        }));
        seen = log.len();
    }
    (outcomes, common::position(&app, walker))
}

/// A search saved under way with a request waiting for it, loaded back, and a gate
/// opened by the game before the first frame after the load, together with a new
/// request: the search starts over on the open gate (as a running one does), so the
/// new request supersedes it and the one waiting at once, as it would have without
/// the save; the saved search is not answered on the shut gate.
#[test]
fn a_search_loaded_back_starts_over_when_a_gate_opens_in_the_first_frame() {
    for pace in [Pace::Exact(2), Pace::Exact(3), Pace::Exact(5)] {
        let change = FirstFrame::OpenGateAndSend;
        let (played, _) = play_search_saved_under_way(pace, false, change);
        let (loaded, _) = play_search_saved_under_way(pace, true, change);
        let cancelled = std::mem::discriminant(&common::Kind::Cancelled);
        assert!(
            played.contains(&(0, 0, cancelled)) && played.contains(&(0, 1, cancelled)),
            "{pace:?}: unsaved, the new request supersedes both at once: {played:?}"
        );
        assert_eq!(loaded, played, "{pace:?}: after a load, and unsaved");
    }
}

/// A search saved under way with a request waiting for it, loaded back, and the
/// room's mask painted anew by the game before the first frame after the load,
/// together with a new request: every request gets the outcomes it would have had
/// without the save, in the same order, and the walker ends where it would have (the
/// search starts over on the new pixels, as a running one does, and the new request
/// supersedes it).
#[test]
fn a_search_loaded_back_follows_its_mask_painted_anew_in_the_first_frame() {
    for pace in [
        Pace::Exact(1),
        Pace::Exact(2),
        Pace::Exact(3),
        Pace::Exact(5),
    ] {
        let change = FirstFrame::RepaintAndSend;
        let (played, played_end) = play_search_saved_under_way(pace, false, change);
        let (loaded, loaded_end) = play_search_saved_under_way(pace, true, change);
        assert!(
            played.iter().any(|(_, which, _)| *which == 2),
            "{pace:?}: unsaved, the new request is answered: {played:?}"
        );
        let kinds = |outcomes: &[(usize, usize, _)]| -> Vec<_> {
            outcomes
                .iter()
                .map(|&(_, which, kind)| (which, kind))
                .collect()
        };
        assert_eq!(
            kinds(&loaded),
            kinds(&played),
            "{pace:?}: after a load {loaded:?}, unsaved {played:?}"
        );
        assert!(
            loaded_end.distance(played_end) < 0.01,
            "{pace:?}: ends at {loaded_end} after a load, at {played_end} unsaved"
        );
    }
}

/// A search saved under way, loaded back, and the walker put elsewhere by the game
/// before the first frame: the search starts over from where it was put, as a
/// running one does, not from where the save left it; the walker ends where it
/// would have without the save.
#[test]
fn a_search_loaded_back_starts_over_from_where_the_game_puts_the_walker() {
    for pace in [Pace::Exact(2), Pace::Exact(3), Pace::Exact(5)] {
        let change = FirstFrame::Teleport;
        let (played, played_end) = play_search_saved_under_way(pace, false, change);
        let (loaded, loaded_end) = play_search_saved_under_way(pace, true, change);
        assert!(
            played.iter().any(|(_, which, _)| *which == 1),
            "{pace:?}: unsaved, the waiting request is answered: {played:?}"
        );
        assert_eq!(loaded, played, "{pace:?}: after a load, and unsaved");
        assert!(
            loaded_end.distance(played_end) < 0.01,
            "{pace:?}: ends at {loaded_end} after a load, at {played_end} unsaved"
        );
    }
}

/// A walker saved in the frame its steering was let go (its `WalkInput` removed)
/// stands once loaded: it does not walk on with nowhere to go.
#[test]
fn a_walker_saved_as_its_steering_is_let_go_stands_after_a_load() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        app.world_mut()
            .entity_mut(walker)
            .insert(WalkInput(Vec2::X));
        let mut clock = pace.clock();
        clock.frames(&mut app, 5);
        assert_eq!(
            app.world().get::<WalkState>(walker),
            Some(&WalkState::Walking),
            "{pace:?}: steered"
        );
        app.world_mut().entity_mut(walker).remove::<WalkInput>();
        let (mut loaded_app, _) = wall_room_app(pace.plugin());
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        let mut clock = pace.clock();
        clock.frames(&mut loaded_app, 3);
        let at = common::position(&loaded_app, loaded);
        clock.frames(&mut loaded_app, 3);
        assert_eq!(
            loaded_app.world().get::<WalkState>(loaded),
            Some(&WalkState::Idle),
            "{pace:?}: loaded"
        );
        assert_eq!(common::position(&loaded_app, loaded), at, "{pace:?}");
    }
}

/// A walk saved before a gate shut, loaded into a game where it is shut, does not
/// walk through it: planned again on the loaded world, it walks to the nearest point
/// this side of the gate (the destination snapped, as for any walk) and ends there.
#[test]
fn a_walk_loaded_where_a_gate_is_shut_does_not_cross_it() {
    // Area 2 is a gate across the whole room at x = 30..=33.
    let gate = |x: u32, _: u32| if (30..=33).contains(&x) { 2 } else { 1 };
    for pace in Pace::BOTH {
        let (mut app, room) = gated_room_app(pace, gate);
        app.world_mut()
            .get_mut::<WalkRoom>(room)
            .unwrap()
            .set_area(2, true);
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 24));
        let id = request(&mut app, walker, px(60, 24));
        let mut clock = pace.clock();
        until_walking(&mut app, &mut clock, walker);
        clock.frames(&mut app, 5);
        let (mut loaded_app, _) = gated_room_app(pace, gate);
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        let mut clock = pace.clock();
        for frame in 0..200 {
            clock.frame(&mut loaded_app);
            let (x, _) = common::pixel_of(common::position(&loaded_app, loaded));
            assert!(
                x < 30,
                "{pace:?}: frame {frame}: at pixel x {x}, through the shut gate"
            );
        }
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert!(
            matches!(
                kinds.first(),
                Some(common::Kind::Replanned { snapped: true, .. })
            ),
            "{pace:?}: planned again, to the nearest point this side of the gate: {kinds:?}"
        );
        assert_eq!(
            kinds.iter().filter(|k| k.is_end()).count(),
            1,
            "{pace:?}: {kinds:?}"
        );
    }
}

/// A walk saved while it went round a shut gate, loaded back, and the gate opened by
/// the game before the first frame: it is planned again and goes through the gate,
/// as it would have in the game saved (a loaded walk keeps the areas it was planned
/// on, not those it finds at the first frame).
#[test]
fn a_walk_loaded_back_re_plans_through_a_gate_opened_before_the_first_frame() {
    // A wall at x = 30..=33 from the top down to y = 39, with a gate (area 2) in it
    // at y = 10..=20: shut, the way from the left to the right goes below the wall.
    for pace in Pace::BOTH {
        let (mut app, _) = gated_room_app(pace, gated_wall);
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 14));
        let id = request(&mut app, walker, px(60, 14));
        let mut clock = pace.clock();
        until_walking(&mut app, &mut clock, walker);
        clock.frames(&mut app, 3);
        let (mut loaded_app, room) = gated_room_app(pace, gated_wall);
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        loaded_app
            .world_mut()
            .get_mut::<WalkRoom>(room)
            .unwrap()
            .set_area(2, true);
        let mut clock = pace.clock();
        let mut lowest = 0;
        for _ in 0..200 {
            clock.frame(&mut loaded_app);
            let (_, y) = common::pixel_of(common::position(&loaded_app, loaded));
            lowest = lowest.max(y);
        }
        assert!(
            lowest < 40,
            "{pace:?}: went on round the wall, down to pixel y {lowest}, not through the gate"
        );
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert!(
            matches!(kinds.first(), Some(common::Kind::Replanned { .. })),
            "{pace:?}: planned again: {kinds:?}"
        );
        assert_eq!(
            kinds.iter().filter(|k| k.is_end()).count(),
            1,
            "{pace:?}: {kinds:?}"
        );
        assert!(
            common::position(&loaded_app, loaded).distance(px(60, 14)) < 0.01,
            "{pace:?}: ends where it was sent"
        );
    }
}

/// A request loaded in flight (through a `DynamicWorld`, which applies it over the
/// defaults `Walker` requires) and stopped by the game before the first frame after
/// the load is cancelled, as it would have been without the save: one answer,
/// `PathCancelled`, and the walker stands where it was saved.
#[test]
fn a_request_loaded_in_flight_and_stopped_at_once_is_cancelled() {
    for pace in [Pace::Exact(2), Pace::Exact(3)] {
        let (mut app, room) = wall_room_app(pace.plugin());
        app.register_type::<Transform>();
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let id = request(&mut app, walker, px(60, 44));
        let mut clock = pace.clock();
        clock.frame(&mut app);
        let in_flight = app.world().get::<RequestInFlight>(walker).cloned();
        assert_eq!(
            in_flight.and_then(|r| r.get().map(|planned| planned.id)),
            Some(id),
            "{pace:?}: the request is in flight when saved"
        );
        let mut clock = pace.clock();
        let (mut loaded_app, loaded) =
            load_into_a_new_wall_room(&app, room, &[walker], pace, &mut clock);
        let loaded = loaded[0];
        loaded_app
            .world_mut()
            .commands()
            .entity(loaded)
            .stop_walking();
        clock.frames(&mut loaded_app, 10);
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert_eq!(kinds, [common::Kind::Cancelled], "{pace:?}");
        assert_eq!(common::position(&loaded_app, loaded), px(4, 44), "{pace:?}");
        assert_eq!(
            loaded_app.world().get::<WalkState>(loaded),
            Some(&WalkState::Idle),
            "{pace:?}"
        );
    }
}

/// A request saved while its path was being planned gets its one answer in the game
/// it is loaded into (and its walk its one end), with its own id; requests sent
/// there later have later ids.
#[test]
fn a_request_saved_in_flight_gets_its_one_answer_after_a_load() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let id = request(&mut app, walker, px(60, 44));
        app.update();
        let in_flight = app.world().get::<RequestInFlight>(walker).cloned();
        let answered_before = !app.world().resource::<common::Log>().kinds(id).is_empty();
        if let Pace::Exact(_) = pace {
            assert_eq!(
                in_flight.and_then(|r| r.get().map(|planned| planned.id)),
                Some(id),
                "{pace:?}: the request is in flight when saved"
            );
            assert!(!answered_before, "{pace:?}: answered before the save");
        }
        let (mut loaded_app, _) = wall_room_app(pace.plugin());
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        let mut clock = pace.clock();
        until_request_ends(&mut loaded_app, &mut clock, id, 400);
        let before = app.world().resource::<common::Log>().kinds(id);
        let after = loaded_app.world().resource::<common::Log>().kinds(id);
        let answers = before
            .iter()
            .chain(&after)
            .filter(|k| k.is_answer())
            .count();
        assert_eq!(answers, 1, "{pace:?}: before {before:?}, after {after:?}");
        assert!(
            matches!(after.last(), Some(common::Kind::Arrived(_))),
            "{pace:?}: {after:?}"
        );
        assert!(common::position(&loaded_app, loaded).distance(px(60, 44)) < 1e-3);
        let later = request(&mut loaded_app, loaded, px(10, 44));
        assert!(later > id, "{pace:?}: {later} after the loaded {id}");
    }
}

/// One case of [`random_saves_answer_every_request_once_and_keep_off_shut_gates`].
fn run_save_case(seed: u64, pace: Pace) {
    // A gate of area 2 across the whole room at x = 30..=33.
    let gate = |x: u32, _: u32| if (30..=33).contains(&x) { 2 } else { 1 };
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut below = move |n: u32| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % u64::from(n)) as u32
    };
    let room = |app: &mut App, shut: bool| {
        let mask = common::add_mask(app, 64, 48, gate);
        let mut room = WalkRoom::new(mask);
        if shut {
            room.disable_area(2);
        }
        app.world_mut().spawn(room);
    };
    let mut app = common::headless_app(pace.plugin());
    common::add_log(&mut app);
    room(&mut app, below(3) == 0);
    let side = |x: u32| if x < 15 { x } else { x + 19 };
    let start = px(side(below(30)), below(48));
    let walker = spawn_walker(&mut app, Walker::new(30.0 + below(60) as f32), start);
    let mut ids = vec![request(&mut app, walker, px(below(64), below(48)))];
    let second = below(30);
    // At least one frame: a request not yet read when the game is saved is a message,
    // which a save does not hold.
    let save_at = 1 + below(40);
    let mut clock = pace.clock();
    for frame in 0..save_at {
        if frame == second && below(2) == 0 {
            ids.push(request(&mut app, walker, px(below(64), below(48))));
        }
        clock.frame(&mut app);
    }
    let ctx = format!("seed {seed} {pace:?}, saved at frame {save_at}");
    let shut = below(2) == 0;
    let mut loaded_app = common::headless_app(pace.plugin());
    common::add_log(&mut loaded_app);
    room(&mut loaded_app, shut);
    let loaded = save_and_load(&mut app, walker, &mut loaded_app);
    let (saved_x, _) = common::pixel_of(common::position(&loaded_app, loaded));
    let saved_in_gate = (30..=33).contains(&saved_x);
    let mut clock = pace.clock();
    let mut settled = false;
    for frame in 0..900 {
        clock.frame(&mut loaded_app);
        let (x, _) = common::pixel_of(common::position(&loaded_app, loaded));
        assert!(
            !(shut && !saved_in_gate && (30..=33).contains(&x)),
            "{ctx}: frame {frame} after the load, at pixel x {x} in the shut gate"
        );
        let world = loaded_app.world();
        if world.get::<WalkPath>(loaded).is_none()
            && world
                .get::<RequestInFlight>(loaded)
                .is_some_and(|r| r.get().is_none())
        {
            settled = true;
            break;
        }
    }
    assert!(settled, "{ctx}: the loaded walker still walks or plans");
    let logs = [&app, &loaded_app].map(|app| app.world().resource::<common::Log>());
    assert_one_answer_and_end(&ctx, &ids, &logs);
}

/// Every request of `ids`: exactly one answer, and one end for a walk begun, over the
/// games whose `logs` are given (a saved game and the one it was loaded into).
fn assert_one_answer_and_end(ctx: &str, ids: &[RequestId], logs: &[&common::Log]) {
    for &id in ids {
        let kinds: Vec<common::Kind> = logs.iter().flat_map(|log| log.kinds(id)).collect();
        let answers = kinds.iter().filter(|k| k.is_answer()).count();
        let ends = kinds.iter().filter(|k| k.is_end()).count();
        let started = kinds
            .iter()
            .any(|k| matches!(k, common::Kind::Ready { .. }));
        assert_eq!(answers, 1, "{ctx}: {id}: {kinds:?}");
        assert_eq!(ends, usize::from(started), "{ctx}: {id}: {kinds:?}");
    }
}

/// Random saves: a walker sent once or twice is saved at a random frame (before its
/// request is read, while it is planned, while it walks or after it ended) and loaded
/// into a new game where the gate it may walk through is open or shut. Every request
/// gets exactly one answer over the two games, every walk begun exactly one end, the
/// loaded walker settles, and it never enters the shut gate (unless it was saved in
/// it). `WALKMASK_SAVE_CASES` cases under `AfterFrames` (default 1000), and a
/// fortieth as many paced.
#[test]
fn random_saves_answer_every_request_once_and_keep_off_shut_gates() {
    let cases = std::env::var("WALKMASK_SAVE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000u64);
    for seed in 1..=cases {
        run_save_case(seed, Pace::Exact(2));
    }
    for seed in 1..=cases / 40 {
        run_save_case(seed, Pace::Paced);
    }
}

/// The game of a world-save case: the gate room of
/// [`random_saves_answer_every_request_once_and_keep_off_shut_gates`] (area 2 at
/// x = 30..=33, `shut` or open) and its one hotspot, a table at the top right whose
/// walk-to point is pixel (50, 8).
struct Game {
    app: App,
    room: Entity,
    table: Entity,
    /// Interactions ended, by walker: arrived, cancelled or out of reach.
    endings: std::sync::Arc<std::sync::Mutex<Vec<Entity>>>,
}

fn game(pace: Pace, shut: bool) -> Game {
    let mut app = common::headless_app(pace.plugin());
    common::add_log(&mut app);
    app.register_type::<Transform>();
    let mask = common::add_mask(
        &mut app,
        64,
        48,
        |x, _| {
            if (30..=33).contains(&x) { 2 } else { 1 }
        },
    );
    let mut walk_room = WalkRoom::new(mask);
    if shut {
        walk_room.disable_area(2);
    }
    let room = app.world_mut().spawn(walk_room).id();
    let table = app
        .world_mut()
        .spawn((
            Hotspot::new(1, "table").with_walk_to(common::pixel_centre(50, 8)),
            ChildOf(room),
        ))
        .id();
    let endings = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (a, c, u) = (endings.clone(), endings.clone(), endings.clone());
    app.add_observer(move |ev: On<InteractionArrived>| a.lock().unwrap().push(ev.walker))
        .add_observer(move |ev: On<InteractionCancelled>| c.lock().unwrap().push(ev.walker))
        .add_observer(move |ev: On<InteractionUnreachable>| u.lock().unwrap().push(ev.walker));
    Game {
        app,
        room,
        table,
        endings,
    }
}

/// Saves `walkers` of `from` as a game does with Bevy's world serialization: every
/// reflected component of theirs extracted into a `DynamicWorld`, each written to RON
/// and read back (one holding an entity stays a reflected value: without Bevy's
/// `serialize` feature RON cannot hold an entity), and written into `to`. `to`'s room
/// and hotspot stand for `from`'s (the game spawns its rooms; a save holds its
/// characters), so the entities the walkers name are mapped to them. Returns the
/// loaded walkers, in order.
fn save_through_a_dynamic_world(from: &Game, walkers: &[Entity], to: &mut Game) -> Vec<Entity> {
    let mut entities = bevy::ecs::entity::EntityHashMap::default();
    entities.insert(from.room, to.room);
    entities.insert(from.table, to.table);
    write_saved_walkers(from.app.world(), walkers, to.app.world_mut(), &mut entities);
    walkers.iter().map(|walker| entities[walker]).collect()
}

/// Saves `walkers` of `from` into a `DynamicWorld` (every reflected component of
/// theirs), writes each component to RON and reads it back (one holding an entity
/// stays a reflected value: without Bevy's `serialize` feature RON cannot hold an
/// entity), and writes the walkers into `to`. `entities` maps what the game spawned
/// again (rooms, hotspots) from `from`'s entities to `to`'s; the walkers' new entities
/// are added to it.
pub(crate) fn write_saved_walkers(
    from: &World,
    walkers: &[Entity],
    to: &mut World,
    entities: &mut bevy::ecs::entity::EntityHashMap<Entity>,
) {
    use bevy::reflect::serde::{ReflectDeserializer, ReflectSerializer};
    use bevy_world_serialization::DynamicWorldBuilder;
    use serde::de::DeserializeSeed;
    let mut saved = {
        let registry = from.resource::<AppTypeRegistry>().read();
        DynamicWorldBuilder::from_world(from, &registry)
            .extract_entities(walkers.iter().copied())
            .build()
    };
    {
        let registry = to.resource::<AppTypeRegistry>().clone();
        let registry = registry.read();
        for entity in &mut saved.entities {
            for component in &mut entity.components {
                let serializer = ReflectSerializer::new(component.as_partial_reflect(), &registry);
                let Ok(text) = ron::to_string(&serializer) else {
                    continue;
                };
                let mut deserializer = ron::Deserializer::from_str(&text).expect("RON");
                *component = ReflectDeserializer::new(&registry)
                    .deserialize(&mut deserializer)
                    .unwrap_or_else(|e| panic!("read back from RON: {e}\n{text}"));
            }
        }
    }
    saved
        .write_to_world(to, entities)
        .expect("the walkers loaded");
}

/// Where a world-save case ends: every walker's position, and the log and the
/// interactions ended of each game it ran in.
struct Ending {
    positions: Vec<Vec2>,
    ended: Vec<usize>,
}

/// Whether a world-save case saves its game and loads it into a new one, and with
/// its gate as it was or turned the other way.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Load {
    Unsaved,
    SameGate,
    OtherGate,
}

/// One case of [`world_saves_end_where_the_game_would_have`]: three
/// walkers in the gate room, sent to random points and to the table and stopped for
/// `save_at` frames; then, as `load` says, saved and loaded into a new game;
/// then quiet frames until every walk has ended.
fn run_world_save_case(seed: u64, pace: Pace, load: Load) -> Ending {
    let mut rng = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    let mut below = move |n: u32| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % u64::from(n)) as u32
    };
    let shut = below(3) == 0;
    let save_at = 1 + below(50);
    let ctx = format!("seed {seed} {pace:?}, saved at frame {save_at}, loaded {load:?}");
    let mut first = game(pace, shut);
    let side = |x: u32| if x < 15 { x } else { x + 19 };
    let mut walkers: Vec<Entity> = (0..3)
        .map(|_| {
            let at = px(side(below(30)), 4 + below(40));
            let walker = Walker::new(30.0 + below(60) as f32).with_radius(below(3) as f32);
            let walker = spawn_walker(&mut first.app, walker, at);
            // Each walks its own way: where the walks end does not hang on which
            // arrives first.
            first.app.world_mut().entity_mut(walker).insert(Avoidance {
                enabled: false,
                ..default()
            });
            walker
        })
        .collect();
    let mut interactions = [0usize; 3];
    let mut ids = Vec::new();
    let mut clock = pace.clock();
    for _ in 0..save_at {
        for _ in 0..below(3) {
            let i = below(3) as usize;
            match below(4) {
                0 | 1 => ids.push(request(
                    &mut first.app,
                    walkers[i],
                    px(below(64), below(48)),
                )),
                2 => {
                    let table = first.table;
                    first
                        .app
                        .world_mut()
                        .commands()
                        .entity(walkers[i])
                        .interact(table, Verb::INTERACT);
                    interactions[i] += 1;
                }
                _ => {
                    first
                        .app
                        .world_mut()
                        .commands()
                        .entity(walkers[i])
                        .stop_walking();
                }
            }
        }
        clock.frame(&mut first.app);
    }
    let originals = walkers.clone();
    let mut games = vec![first];
    let mut saved_in_gate = [false; 3];
    let shut_after = match load {
        Load::Unsaved | Load::SameGate => shut,
        Load::OtherGate => !shut,
    };
    if load != Load::Unsaved {
        let mut second = game(pace, shut_after);
        walkers = save_through_a_dynamic_world(&games[0], &walkers, &mut second);
        for (i, &walker) in walkers.iter().enumerate() {
            let (x, _) = common::pixel_of(common::position(&second.app, walker));
            saved_in_gate[i] = (30..=33).contains(&x);
        }
        games.push(second);
        clock = pace.clock();
    }
    let last = games.last_mut().unwrap();
    let mut settled = false;
    for frame in 0..1200 {
        clock.frame(&mut last.app);
        let world = last.app.world();
        for (i, &walker) in walkers.iter().enumerate() {
            let (x, _) = common::pixel_of(common::position(&last.app, walker));
            assert!(
                !(shut_after
                    && load != Load::Unsaved
                    && !saved_in_gate[i]
                    && (30..=33).contains(&x)),
                "{ctx}: walker {i} at pixel x {x} in the shut gate, frame {frame} after the load"
            );
        }
        if walkers.iter().all(|&w| {
            world.get::<WalkPath>(w).is_none()
                && world.get::<Interacting>(w).is_none()
                && world
                    .get::<RequestInFlight>(w)
                    .is_some_and(|r| r.get().is_none())
        }) {
            settled = true;
            break;
        }
    }
    let world = last.app.world();
    assert!(
        settled,
        "{ctx}: walks still go on: {:#?}\n{:#?}",
        walkers
            .iter()
            .map(|&w| (
                world.get::<WalkState>(w),
                world.get::<WalkPath>(w),
                world.get::<Interacting>(w),
                world.get::<RequestInFlight>(w),
                common::position(&last.app, w)
            ))
            .collect::<Vec<_>>(),
        world.resource::<common::Log>().observed
    );
    // Every request: one answer, and one end for each walk begun, over both games;
    // the walks of interactions too.
    let logs: Vec<&common::Log> = games
        .iter()
        .map(|game| game.app.world().resource::<common::Log>())
        .collect();
    let mut all: Vec<RequestId> = ids.clone();
    all.extend(
        logs.iter()
            .flat_map(|log| log.observed.iter().map(|e| e.request)),
    );
    all.sort_unstable();
    all.dedup();
    assert_one_answer_and_end(&ctx, &all, &logs);
    // Every interaction: one ending, over both games.
    let mut ended = vec![0; 3];
    for (g, game) in games.iter().enumerate() {
        let names = if g == 0 { &originals } else { &walkers };
        for walker in game.endings.lock().unwrap().iter() {
            if let Some(i) = names.iter().position(|w| w == walker) {
                ended[i] += 1;
            }
        }
    }
    assert_eq!(ended, interactions, "{ctx}: interactions ended, by walker");
    let last = games.last().unwrap();
    Ending {
        positions: walkers
            .iter()
            .map(|&w| common::position(&last.app, w))
            .collect(),
        ended,
    }
}

/// Saves through Bevy's world serialization, at random frames of random games of
/// three walkers walking, interacting with a hotspot and stopped: each saved game,
/// loaded into a new one, ends with every walker within a pixel of where the same
/// game played without a save ends it, every request answered once and every walk and
/// interaction ended once over the two games. Loaded where the gate has shut (or
/// opened) since the save, no walker walks into a shut gate. Each case saves twice:
/// `WALKMASK_SAVE_CASES` / 2 cases under `AfterFrames` (default 500: a thousand save
/// points), and a fortieth as many paced.
#[test]
fn world_saves_end_where_the_game_would_have() {
    let cases = std::env::var("WALKMASK_SAVE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000u64)
        / 2;
    let run = |seed: u64, pace: Pace| {
        let played = run_world_save_case(seed, pace, Load::Unsaved);
        let loaded = run_world_save_case(seed, pace, Load::SameGate);
        // Paced, where a walker stands when it is stopped hangs on when its answer
        // landed: two games played alike end alike only when answers land at exact
        // frames.
        let exact = matches!(pace, Pace::Exact(_));
        for (i, (a, b)) in played.positions.iter().zip(&loaded.positions).enumerate() {
            if !exact {
                break;
            }
            assert!(
                a.distance(*b) <= 1.0,
                "seed {seed} {pace:?}: walker {i} ends at {b} after a load, at {a} without"
            );
        }
        assert_eq!(played.ended, loaded.ended, "seed {seed} {pace:?}");

        // Saved and loaded where the gate shut (or opened) meanwhile.
        run_world_save_case(seed, pace, Load::OtherGate);
    };
    for seed in 1..=cases {
        run(seed, Pace::Exact(2));
    }
    for seed in 1..=cases / 40 {
        run(seed, Pace::Paced);
    }
}
