//! What a save loaded back into a game keeps: request ids that cannot be taken for
//! the ids of the walks it holds.
//!
//! The usual 64 x 48 wall mask, where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy::reflect::tuple_struct::DynamicTupleStruct;
use bevy::reflect::{FromReflect, PartialReflect};
use bevy_walkmask::prelude::*;
use bevy_walkmask::{Interacting, RequestInFlight, UnreachablePolicy, Verb};
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

/// A walk saved in mid-walk and loaded into a new game walks on to its end: planned
/// again from where the walker was saved (`PathReplanned`), it arrives, with the
/// request it was saved with, once.
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
        let (mut loaded_app, _) = wall_room_app(pace.plugin());
        let loaded = save_and_load(&mut app, walker, &mut loaded_app);
        assert_eq!(
            loaded_app
                .world()
                .get::<WalkPath>(loaded)
                .map(|path| path.request),
            Some(id),
            "{pace:?}: the walk was saved"
        );
        let mut clock = pace.clock();
        until_request_ends(&mut loaded_app, &mut clock, id, 400);
        let kinds = loaded_app.world().resource::<common::Log>().kinds(id);
        assert!(
            matches!(kinds.first(), Some(common::Kind::Replanned { .. })),
            "{pace:?}: {kinds:?}"
        );
        assert_eq!(
            kinds.iter().filter(|k| k.is_end()).count(),
            1,
            "{pace:?}: {kinds:?}"
        );
        assert!(
            matches!(kinds.last(), Some(common::Kind::Arrived(_))),
            "{pace:?}: {kinds:?}"
        );
        let at = common::position(&loaded_app, loaded);
        assert!(at.distance(px(60, 44)) < 1e-3, "{pace:?}: arrived at {at}");
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
        let mut app = common::headless_app(pace.plugin());
        common::add_log(&mut app);
        let mask = common::add_mask(&mut app, 64, 48, gate);
        app.world_mut().spawn(WalkRoom::new(mask));
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 24));
        let id = request(&mut app, walker, px(60, 24));
        let mut clock = pace.clock();
        until_walking(&mut app, &mut clock, walker);
        clock.frames(&mut app, 5);
        let mut loaded_app = common::headless_app(pace.plugin());
        common::add_log(&mut loaded_app);
        let mask = common::add_mask(&mut loaded_app, 64, 48, gate);
        let mut room = WalkRoom::new(mask);
        room.disable_area(2);
        loaded_app.world_mut().spawn(room);
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
        let in_flight = app.world().get::<RequestInFlight>(walker).copied();
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
    let before = app.world().resource::<common::Log>();
    let after = loaded_app.world().resource::<common::Log>();
    for &id in &ids {
        let kinds: Vec<common::Kind> = before
            .kinds(id)
            .into_iter()
            .chain(after.kinds(id))
            .collect();
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
