//! Hotspots ([`WalkHotspots`], [`Hotspot`]): what is under a point, walk then act
//! (arrived, cancelled, unreachable, each exactly once), verbs that only turn or act
//! in place, clicks through picking and the picking backend, under both paces.
//!
//! Headless app of `tests/common`: the 64 x 48 wall mask (a wall at x = 30..=33 down
//! to y = 39) with a closed vault in the bottom-right corner (walls at x = 46 and
//! y = 26), where pixel (px, py) is world (px - 32, 24 - py). Hotspots: 1 "bell" at
//! x = 40..=44, y = 2..=6 (walk-to point (42, 20)); 2 "sign" on the wall
//! (x = 30..=33, y = 10..=14, no walk-to point); 3 "vault" inside the vault (walk-to
//! point (58, 40)); 4 "lamp" at x = 10..=14, y = 5..=9.

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{LayerProblem, UnreachablePolicy, WalkPolicy};
use common::{
    Kind, Log, Pace, add_log, add_mask, assert_contract, headless_app, pixel_centre, pixel_of,
    position, px, request, spawn_walker,
};

fn room_pixel(x: u32, y: u32) -> u8 {
    let vault_wall = (x == 46 && y >= 26) || (y == 26 && x >= 46);
    u8::from(common::room_pixel(x, y) == 1 && !vault_wall)
}

fn hotspot_pixel(x: u32, y: u32) -> u8 {
    match (x, y) {
        (40..=44, 2..=6) => 1,
        (30..=33, 10..=14) => 2,
        (55..=60, 35..=40) => 3,
        (10..=14, 5..=9) => 4,
        _ => 0,
    }
}

/// How an interaction ended, as the tests record it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Arrived,
    Cancelled,
    Unreachable,
}

/// Interaction endings: (walker, hotspot, verb, how), observed on the hotspot and
/// read as messages.
#[derive(Resource, Default)]
struct Endings {
    observed: Vec<(Entity, Entity, Verb, End)>,
    messages: Vec<(Entity, Entity, Verb, End)>,
}

impl Endings {
    fn of(&self, walker: Entity) -> Vec<(Entity, End)> {
        self.messages
            .iter()
            .filter(|e| e.0 == walker)
            .map(|e| (e.1, e.3))
            .collect()
    }
}

fn record_endings(
    mut arrived: MessageReader<InteractionArrived>,
    mut cancelled: MessageReader<InteractionCancelled>,
    mut unreachable: MessageReader<InteractionUnreachable>,
    mut endings: ResMut<Endings>,
) {
    for e in arrived.read() {
        endings
            .messages
            .push((e.walker, e.hotspot, e.verb.clone(), End::Arrived));
    }
    for e in cancelled.read() {
        endings
            .messages
            .push((e.walker, e.hotspot, e.verb.clone(), End::Cancelled));
    }
    for e in unreachable.read() {
        endings
            .messages
            .push((e.walker, e.hotspot, e.verb.clone(), End::Unreachable));
    }
}

struct Room {
    app: App,
    room: Entity,
    bell: Entity,
    sign: Entity,
    vault: Entity,
    lamp: Entity,
}

/// The app, the room with its hotspot layer (`layer_factor` 1: full size, 2: half)
/// and its hotspots; `vault` is the vault hotspot as the test wants it.
fn room(pace: Pace, layer_factor: u32, vault: Hotspot) -> Room {
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    app.init_resource::<Endings>()
        .add_systems(Last, record_endings)
        .add_observer(|e: On<InteractionArrived>, mut r: ResMut<Endings>| {
            r.observed
                .push((e.walker, e.hotspot, e.verb.clone(), End::Arrived));
        })
        .add_observer(|e: On<InteractionCancelled>, mut r: ResMut<Endings>| {
            r.observed
                .push((e.walker, e.hotspot, e.verb.clone(), End::Cancelled));
        })
        .add_observer(|e: On<InteractionUnreachable>, mut r: ResMut<Endings>| {
            r.observed
                .push((e.walker, e.hotspot, e.verb.clone(), End::Unreachable));
        });
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    let f = layer_factor;
    let layer = add_mask(&mut app, 64 / f, 48 / f, |x, y| {
        hotspot_pixel(x * f + f / 2, y * f + f / 2)
    });
    let room = app
        .world_mut()
        .spawn((WalkRoom::new(mask), WalkHotspots::new(layer)))
        .id();
    let mut spawn = |hotspot: Hotspot| app.world_mut().spawn((hotspot, ChildOf(room))).id();
    let bell = spawn(Hotspot::new(1, "bell").with_walk_to(pixel_centre(42, 20)));
    let sign = spawn(Hotspot::new(2, "sign"));
    let vault = spawn(vault);
    let lamp = spawn(Hotspot::new(4, "lamp"));
    Room {
        app,
        room,
        bell,
        sign,
        vault,
        lamp,
    }
}

fn vault() -> Hotspot {
    Hotspot::new(3, "vault").with_walk_to(pixel_centre(58, 40))
}

/// Frames until `walker` has an interaction ending and no [`Interacting`], then a
/// few more (nothing else may come); panics after `max`.
fn until_ended(r: &mut Room, clock: &mut common::FrameClock, walker: Entity, max: usize) {
    clock.until(&mut r.app, max, |world| {
        !world.resource::<Endings>().of(walker).is_empty()
            && world.get::<Interacting>(walker).is_none()
    });
    clock.frames(&mut r.app, 5);
}

fn interact(app: &mut App, walker: Entity, hotspot: Entity, verb: Verb) {
    app.world_mut()
        .commands()
        .entity(walker)
        .interact(hotspot, verb);
}

/// Observers of the hotspots saw the endings sent as messages, but those of
/// hotspots despawned by then (`gone`), which no longer exist to be observed.
fn assert_observed_as_sent(r: &Room, gone: &[Entity]) {
    let endings = r.app.world().resource::<Endings>();
    let mut sent = endings.messages.clone();
    sent.retain(|e| !gone.contains(&e.1));
    assert_eq!(endings.observed, sent);
}

/// A player (speed 120) at `at`, for clicks to walk.
#[cfg(feature = "picking")]
fn spawn_player(r: &mut Room, at: Vec2) -> Entity {
    r.app
        .world_mut()
        .spawn((
            Walker::new(120.0),
            PlayerWalker,
            Transform::from_translation(at.extend(1.0)),
        ))
        .id()
}

fn hotspot_at(app: &mut App, room: Entity, point: Vec2) -> Option<Entity> {
    app.world_mut()
        .run_system_once(move |query: WalkQuery| query.room(room).ok()?.hotspot_at(point))
        .unwrap()
}

/// Hotspot pixels resolve to their hotspot, the floor and disabled hotspots to none,
/// with a full-size and a half-size layer.
#[test]
fn a_point_resolves_to_its_hotspot_or_the_floor() {
    for factor in [1, 2] {
        let mut r = room(Pace::Exact(0), factor, vault());
        r.app.update();
        let room = r.room;
        assert_eq!(hotspot_at(&mut r.app, room, px(42, 4)), Some(r.bell));
        assert_eq!(hotspot_at(&mut r.app, room, px(31, 12)), Some(r.sign));
        assert_eq!(hotspot_at(&mut r.app, room, px(12, 7)), Some(r.lamp));
        assert_eq!(hotspot_at(&mut r.app, room, px(20, 20)), None);
        assert_eq!(hotspot_at(&mut r.app, room, Vec2::splat(f32::NAN)), None);
        assert_eq!(hotspot_at(&mut r.app, room, Vec2::new(500.0, 0.0)), None);
        r.app
            .world_mut()
            .get_mut::<Hotspot>(r.lamp)
            .unwrap()
            .enabled = false;
        assert_eq!(hotspot_at(&mut r.app, room, px(12, 7)), None);
        r.app.world_mut().despawn(r.bell);
        assert_eq!(hotspot_at(&mut r.app, room, px(42, 4)), None);
    }
}

/// A walker sent to act on the bell walks to its walk-to point, turns to the bell
/// (up) and gets one `InteractionArrived`, after its walk's `Arrived`.
#[test]
fn walk_then_act_arrives_once_facing_the_hotspot() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let walker = spawn_walker(&mut r.app, Walker::new(120.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        interact(&mut r.app, walker, r.bell, Verb::INTERACT);
        clock.frame(&mut r.app);
        let interacting = r.app.world().get::<Interacting>(walker).cloned();
        assert_eq!(interacting.map(|i| i.hotspot), Some(r.bell), "{pace:?}");
        until_ended(&mut r, &mut clock, walker, 300);
        let endings = r.app.world().resource::<Endings>();
        assert_eq!(endings.of(walker), [(r.bell, End::Arrived)], "{pace:?}");
        assert!(
            position(&r.app, walker).distance(px(42, 20)) < 1e-3,
            "{pace:?}: at {}",
            position(&r.app, walker)
        );
        assert_eq!(
            r.app.world().get::<Facing>(walker).map(|f| f.direction),
            Some(FacingDirection::Up),
            "{pace:?}"
        );
        let log = r.app.world().resource::<Log>();
        assert!(log.has(walker, |k| matches!(k, Kind::Arrived(_))));
        assert_observed_as_sent(&r, &[]);
    }
}

/// A hotspot's own look-at point (room pixels), without a facing: the walker walks to
/// the walk-to point and turns to that point (left of it), not to the hotspot's
/// pixels (up); looked at in place, it turns to it from where it stands.
#[test]
fn a_hotspots_look_at_point_is_what_the_walker_turns_to() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let bell = r.bell;
        r.app.world_mut().entity_mut(bell).insert(
            Hotspot::new(1, "bell")
                .with_walk_to(Vec2::new(42.5, 20.5))
                .with_look_at(Vec2::new(36.5, 20.5))
                .with_verb(Verb::LOOK, WalkPolicy::FaceOnly),
        );
        let walker = spawn_walker(&mut r.app, Walker::new(120.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        interact(&mut r.app, walker, bell, Verb::INTERACT);
        until_ended(&mut r, &mut clock, walker, 300);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(bell, End::Arrived)],
            "{pace:?}"
        );
        assert!(position(&r.app, walker).distance(px(42, 20)) < 1e-3);
        assert_eq!(
            r.app.world().get::<Facing>(walker).map(|f| f.direction),
            Some(FacingDirection::Left),
            "{pace:?}"
        );
        // From (42, 20) the look-at point (42, 44) is below: looked at in place.
        r.app.world_mut().get_mut::<Hotspot>(bell).unwrap().look_at = Some(Vec2::new(42.5, 44.5));
        interact(&mut r.app, walker, bell, Verb::LOOK);
        clock.frame(&mut r.app);
        assert_eq!(
            r.app.world().get::<Facing>(walker).map(|f| f.direction),
            Some(FacingDirection::Down),
            "{pace:?}"
        );
    }
}

/// Without a walk-to point, the walker goes as near the point picked as it can (the
/// sign is on the wall) and acts there.
#[test]
fn a_hotspot_without_a_walk_to_point_is_walked_up_to() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 2, vault());
        let walker = spawn_walker(&mut r.app, Walker::new(120.0), px(10, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        let sign = r.sign;
        r.app
            .world_mut()
            .commands()
            .entity(walker)
            .interact_at(sign, Verb::INTERACT, px(31, 12));
        until_ended(&mut r, &mut clock, walker, 300);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(sign, End::Arrived)],
            "{pace:?}"
        );
        let at = position(&r.app, walker);
        assert!(at.distance(px(31, 12)) < 3.0, "{pace:?}: at {at}");
        assert_eq!(room_pixel(pixel_of(at).0, pixel_of(at).1), 1);
        // With no point picked, it walks up to the hotspot's nearest pixel.
        let walker = spawn_walker(&mut r.app, Walker::new(120.0), px(10, 20));
        interact(&mut r.app, walker, sign, Verb::INTERACT);
        until_ended(&mut r, &mut clock, walker, 300);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(sign, End::Arrived)]
        );
        let at = position(&r.app, walker);
        assert!(at.distance(px(30, 12)) < 3.0, "{pace:?}: at {at}");
    }
}

/// The vault's walk-to point is closed in: reported unreachable once by default,
/// after walking as near as it can; acted on anyway, or within a radius that the
/// walk's end is inside of, when the hotspot says so.
#[test]
fn an_unreachable_walk_to_point_is_reported_or_acted_on_as_configured() {
    let cases = [
        (UnreachablePolicy::Report, End::Unreachable),
        (UnreachablePolicy::ActAnyway, End::Arrived),
        (UnreachablePolicy::ActWithin(40.0), End::Arrived),
        (UnreachablePolicy::ActWithin(4.0), End::Unreachable),
    ];
    for pace in Pace::BOTH {
        for (policy, end) in cases {
            let mut r = room(pace, 1, vault().with_unreachable(policy));
            let walker = spawn_walker(&mut r.app, Walker::new(200.0), px(36, 44));
            let mut clock = pace.clock();
            clock.frame(&mut r.app);
            interact(&mut r.app, walker, r.vault, Verb::INTERACT);
            until_ended(&mut r, &mut clock, walker, 300);
            assert_eq!(
                r.app.world().resource::<Endings>().of(walker),
                [(r.vault, end)],
                "{pace:?} {policy:?}"
            );
            // It walked as near as it could: beside the vault's wall.
            let at = position(&r.app, walker);
            assert!(at.distance(px(45, 40)) < 3.0, "{pace:?} {policy:?}: {at}");
            assert_observed_as_sent(&r, &[]);
        }
    }
}

/// Another request, another interaction, `stop_walking`: the interaction under way
/// is cancelled exactly once and never arrives; the next one arrives.
#[test]
fn a_new_request_or_interaction_cancels_the_one_under_way() {
    for pace in Pace::BOTH {
        for wait in [0, 5] {
            let mut r = room(pace, 1, vault());
            let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(36, 44));
            let mut clock = pace.clock();
            clock.frame(&mut r.app);
            // Superseded by a plain request, at once or once walking.
            interact(&mut r.app, walker, r.bell, Verb::INTERACT);
            clock.frames(&mut r.app, wait);
            let id = request(&mut r.app, walker, px(36, 30));
            clock.until(&mut r.app, 300, |w| {
                w.resource::<Log>()
                    .has(walker, |k| matches!(k, Kind::Arrived(_)))
                    && w.get::<Interacting>(walker).is_none()
            });
            clock.frames(&mut r.app, 5);
            assert_eq!(
                r.app.world().resource::<Endings>().of(walker),
                [(r.bell, End::Cancelled)],
                "{pace:?} {wait}"
            );
            assert_contract(r.app.world().resource::<Log>(), &[id]);
            // Superseded by another interaction, then by a stop.
            interact(&mut r.app, walker, r.bell, Verb::INTERACT);
            clock.frames(&mut r.app, wait);
            interact(&mut r.app, walker, r.lamp, Verb::INTERACT);
            clock.frames(&mut r.app, wait + 2);
            r.app.world_mut().commands().entity(walker).stop_walking();
            clock.frames(&mut r.app, 5);
            interact(&mut r.app, walker, r.bell, Verb::LOOK);
            until_ended(&mut r, &mut clock, walker, 400);
            assert_eq!(
                r.app.world().resource::<Endings>().of(walker),
                [
                    (r.bell, End::Cancelled),
                    (r.bell, End::Cancelled),
                    (r.lamp, End::Cancelled),
                    (r.bell, End::Arrived)
                ],
                "{pace:?} {wait}"
            );
            assert_observed_as_sent(&r, &[]);
        }
    }
}

/// A verb that only faces stops the walker and turns it at once; one that acts in
/// place leaves its walk alone. Both arrive in the frame they are asked for.
#[test]
fn face_only_and_act_in_place_verbs_arrive_at_once() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let (bell, lamp) = (r.bell, r.lamp);
        r.app
            .world_mut()
            .entity_mut(bell)
            .insert(Hotspot::new(1, "bell").with_verb(Verb::LOOK, WalkPolicy::FaceOnly));
        r.app
            .world_mut()
            .entity_mut(lamp)
            .insert(Hotspot::new(4, "lamp").with_verb("use", WalkPolicy::ActInPlace));
        let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        let id = request(&mut r.app, walker, px(20, 44));
        clock.until(&mut r.app, 100, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Walking)
        });
        clock.frames(&mut r.app, 3);
        interact(&mut r.app, walker, lamp, Verb::from("use"));
        clock.frame(&mut r.app);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(lamp, End::Arrived)]
        );
        assert_eq!(
            r.app.world().get::<WalkState>(walker),
            Some(&WalkState::Walking)
        );
        interact(&mut r.app, walker, bell, Verb::LOOK);
        clock.frame(&mut r.app);
        let stood = position(&r.app, walker);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(lamp, End::Arrived), (bell, End::Arrived)]
        );
        assert_eq!(
            r.app.world().get::<WalkState>(walker),
            Some(&WalkState::Idle)
        );
        // The bell is up and to the right.
        let facing = r.app.world().get::<Facing>(walker).unwrap().direction;
        assert!(
            matches!(facing, FacingDirection::Up | FacingDirection::Right),
            "{pace:?}: {facing:?}"
        );
        clock.frames(&mut r.app, 10);
        assert_eq!(position(&r.app, walker), stood, "{pace:?}");
        let log = r.app.world().resource::<Log>();
        assert_contract(log, &[id]);
        assert!(log.has(walker, |k| matches!(
            k,
            Kind::Stopped(StopReason::Stopped, _)
        )));
    }
}

/// A hotspot despawned or disabled while a walker is on its way cancels the
/// interaction (the walk goes on to its end); a walker despawned on its way, an
/// entity that is no walker and a disabled hotspot are cancelled too.
#[test]
fn lost_walkers_and_hotspots_cancel_the_interaction() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let (bell, lamp) = (r.bell, r.lamp);
        let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        interact(&mut r.app, walker, bell, Verb::INTERACT);
        clock.frames(&mut r.app, 8);
        r.app.world_mut().despawn(bell);
        clock.until(&mut r.app, 300, |w| {
            w.resource::<Log>()
                .has(walker, |k| matches!(k, Kind::Arrived(_)))
        });
        clock.frames(&mut r.app, 3);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(bell, End::Cancelled)],
            "{pace:?}"
        );
        // Disabled on the way: cancelled on arrival.
        interact(&mut r.app, walker, lamp, Verb::INTERACT);
        clock.frames(&mut r.app, 3);
        r.app.world_mut().get_mut::<Hotspot>(lamp).unwrap().enabled = false;
        until_ended(&mut r, &mut clock, walker, 400);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker)[1..],
            [(lamp, End::Cancelled)],
            "{pace:?}"
        );
        // Disabled already, and not a walker.
        interact(&mut r.app, walker, lamp, Verb::INTERACT);
        let not_a_walker = r.app.world_mut().spawn(Transform::default()).id();
        let sign = r.sign;
        interact(&mut r.app, not_a_walker, sign, Verb::INTERACT);
        clock.frames(&mut r.app, 2);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker)[2..],
            [(lamp, End::Cancelled)]
        );
        assert_eq!(
            r.app.world().resource::<Endings>().of(not_a_walker),
            [(sign, End::Cancelled)]
        );
        // Despawned on the way.
        interact(&mut r.app, walker, sign, Verb::INTERACT);
        clock.frames(&mut r.app, 4);
        r.app.world_mut().despawn(walker);
        clock.frames(&mut r.app, 5);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker)[3..],
            [(sign, End::Cancelled)],
            "{pace:?}"
        );
        assert_observed_as_sent(&r, &[bell]);
    }
}

#[cfg(feature = "picking")]
use crate::picking;

/// A primary click on a hotspot walks the player there and acts (no second walk to
/// the point clicked: the click stops at the hotspot); a secondary click looks.
#[cfg(feature = "picking")]
#[test]
fn a_click_on_a_hotspot_walks_the_player_there_and_acts() {
    use bevy::picking::pointer::PointerButton;
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        r.app.insert_resource(ClickToWalk::new(ClickInput::Picking));
        let player = spawn_player(&mut r, px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        picking::click(&mut r.app, r.bell, px(42, 4), PointerButton::Primary);
        until_ended(&mut r, &mut clock, player, 300);
        let endings = r.app.world().resource::<Endings>();
        assert_eq!(endings.of(player), [(r.bell, End::Arrived)], "{pace:?}");
        assert_eq!(endings.messages[0].2, Verb::INTERACT);
        let log = r.app.world().resource::<Log>();
        let answers = log
            .both()
            .iter()
            .filter(|e| e.entity == player && e.kind.is_answer())
            .count();
        assert_eq!(answers, 1, "{pace:?}: one request");
        assert!(position(&r.app, player).distance(px(42, 20)) < 1e-3);
        picking::click(&mut r.app, r.bell, px(42, 4), PointerButton::Secondary);
        until_ended(&mut r, &mut clock, player, 300);
        let endings = r.app.world().resource::<Endings>();
        assert_eq!(endings.messages.len(), 2);
        assert_eq!(endings.messages[1].2, Verb::LOOK);
        // Off, the click walks to the point clicked like any click on the room.
        r.app.world_mut().resource_mut::<HotspotClicks>().enabled = false;
        picking::click(&mut r.app, r.lamp, px(12, 7), PointerButton::Primary);
        clock.frames(&mut r.app, 5);
        assert!(r.app.world().get::<Interacting>(player).is_none());
        assert_eq!(r.app.world().resource::<Endings>().messages.len(), 2);
    }
}

/// A camera for picking rays, `z` above the room (and the ray map and hit messages
/// the backend uses).
#[cfg(feature = "picking")]
fn picking_camera(r: &mut Room, z: f32) -> Entity {
    use bevy::picking::backend::PointerHits;
    use bevy::picking::backend::ray::RayMap;
    r.app.init_resource::<RayMap>().add_message::<PointerHits>();
    r.app
        .world_mut()
        .spawn((Camera2d, Transform::from_xyz(0.0, 0.0, z)))
        .id()
}

/// The hits (entity, depth) of a mouse ray straight down from `from` through
/// `camera`, over `frames` frames.
#[cfg(feature = "picking")]
fn ray_hits(r: &mut Room, camera: Entity, from: Vec3, frames: usize) -> Vec<(Entity, f32)> {
    use bevy::picking::backend::PointerHits;
    use bevy::picking::backend::ray::{RayId, RayMap};
    use bevy::picking::pointer::PointerId;
    let id = RayId {
        camera,
        pointer: PointerId::Mouse,
    };
    let ray = Ray3d::new(from, Dir3::NEG_Z);
    r.app
        .world_mut()
        .resource_mut::<RayMap>()
        .map
        .insert(id, ray);
    for _ in 0..frames {
        r.app.update();
    }
    let messages = r.app.world().resource::<Messages<PointerHits>>();
    let mut cursor = messages.get_cursor();
    let hits: Vec<(Entity, f32)> = cursor
        .read(messages)
        .flat_map(|h| h.picks.iter().map(|(e, d)| (*e, d.depth)))
        .collect();
    r.app
        .world_mut()
        .resource_mut::<Messages<PointerHits>>()
        .clear();
    hits
}

/// The picking backend: a pointer ray over the bell hits the bell just in front of
/// the room's plane; over the floor or a hotspot that is disabled or not hoverable,
/// nothing.
#[cfg(feature = "picking")]
#[test]
fn the_picking_backend_hits_hotspots_under_the_pointer() {
    use bevy::picking::Pickable;
    let mut r = room(Pace::Exact(0), 1, vault());
    let camera = picking_camera(&mut r, 100.0);
    let hits_at = |r: &mut Room, at: Vec2| ray_hits(r, camera, at.extend(100.0), 1);
    let hits = hits_at(&mut r, px(42, 4));
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].0, r.bell);
    assert!(hits[0].1 < 100.0 && hits[0].1 > 99.9, "{hits:?}");
    assert!(hits_at(&mut r, px(20, 20)).is_empty());
    r.app
        .world_mut()
        .get_mut::<Hotspot>(r.lamp)
        .unwrap()
        .enabled = false;
    assert!(hits_at(&mut r, px(12, 7)).is_empty());
    let sign = r.sign;
    assert_eq!(hits_at(&mut r, px(31, 12))[0].0, sign);
    r.app.world_mut().entity_mut(sign).insert(Pickable::IGNORE);
    assert!(hits_at(&mut r, px(31, 12)).is_empty());
}

/// The layer check reports hotspots without pixels, pixels without hotspots,
/// walk-to points off the floor or out of reach from a spawn point, spawn points
/// off the floor and named regions without pixels, and nothing about what is right.
#[test]
fn the_layer_check_reports_what_is_wrong_with_the_layers() {
    let mut r = room(Pace::Exact(0), 2, vault());
    let room = r.room;
    let (bell, sign, vault, lamp) = (r.bell, r.sign, r.vault, r.lamp);
    // The lamp has no walk-to point; give the sign one in the wall.
    r.app
        .world_mut()
        .entity_mut(sign)
        .insert(Hotspot::new(2, "sign").with_walk_to(pixel_centre(31, 12)));
    let ghost = r
        .app
        .world_mut()
        .spawn((Hotspot::new(9, "ghost"), ChildOf(room)))
        .id();
    r.app.world_mut().despawn(lamp);
    let door = r
        .app
        .world_mut()
        .spawn((SpawnPoint::new("door", pixel_centre(36, 44)), ChildOf(room)))
        .id();
    let wall = r
        .app
        .world_mut()
        .spawn((SpawnPoint::new("wall", pixel_centre(31, 20)), ChildOf(room)))
        .id();
    let regions = add_mask(&mut r.app, 64, 48, |x, _| u8::from(x < 3));
    r.app.world_mut().entity_mut(room).insert(
        WalkRegions::new(regions)
            .with_region(1, "edge")
            .with_region(2, "nowhere"),
    );
    let problems = loop {
        r.app.update();
        let found = r
            .app
            .world_mut()
            .run_system_once(move |query: WalkQuery| {
                query.room(room).and_then(|v| v.check_layers())
            })
            .unwrap();
        match found {
            Err(bevy_walkmask::WalkQueryError::Preparing) => continue,
            other => break other.unwrap(),
        }
    };
    use bevy_walkmask::LayerProblem as P;
    let expected = [
        P::HotspotWithoutPixels {
            hotspot: ghost,
            id: 9,
        },
        P::PixelsWithoutHotspot {
            id: 4,
            pixel: UVec2::new(5, 2),
        },
        P::RegionWithoutPixels { id: 2 },
        P::SpawnPointNotWalkable {
            spawn: wall,
            point: pixel_centre(31, 20),
        },
        // Walk-to points as given, in room pixels.
        P::WalkToNotWalkable {
            hotspot: sign,
            point: pixel_centre(31, 12),
        },
        P::WalkToUnreachable {
            hotspot: vault,
            point: pixel_centre(58, 40),
            spawn: door,
        },
    ];
    for problem in &expected {
        assert!(
            problems.contains(problem),
            "{problem} missing from {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    assert!(
        !problems
            .iter()
            .any(|p| format!("{p:?}").contains(&format!("{bell:?}")))
    );
}

/// A double click on a hotspot with `HotspotClicks::double_click` set to skip puts
/// the player at the walk-to point at once and the interaction arrives once; with
/// it unset, the second click starts the interaction again (one cancelled, one
/// arrived, after the whole walk).
#[cfg(feature = "picking")]
#[test]
fn a_double_click_on_a_hotspot_skips_the_walk_when_asked() {
    use bevy::picking::pointer::PointerButton;
    for pace in Pace::BOTH {
        for skip in [true, false] {
            let mut r = room(pace, 1, vault());
            r.app.insert_resource(ClickToWalk::new(ClickInput::Picking));
            r.app
                .world_mut()
                .resource_mut::<HotspotClicks>()
                .double_click = skip.then_some(Hurry::Skip);
            let player = spawn_player(&mut r, px(2, 44));
            let mut clock = pace.clock();
            clock.frame(&mut r.app);
            picking::click_counted(&mut r.app, r.bell, px(42, 4), PointerButton::Primary, 1);
            clock.frames(&mut r.app, 3);
            picking::click_counted(&mut r.app, r.bell, px(42, 4), PointerButton::Primary, 2);
            // The longest step in a frame: a walk's is its speed's (2 units a
            // frame), a skip's the rest of the way.
            let mut last = position(&r.app, player);
            let mut longest_step: f32 = 0.0;
            let frames = clock.until(&mut r.app, 600, |world| {
                let at = world
                    .get::<Transform>(player)
                    .unwrap()
                    .translation
                    .truncate();
                longest_step = longest_step.max(at.distance(last));
                last = at;
                !world.resource::<Endings>().of(player).is_empty()
                    && world.get::<Interacting>(player).is_none()
                    && world.get::<WalkState>(player) == Some(&WalkState::Arrived)
            });
            clock.frames(&mut r.app, 5);
            let endings = r.app.world().resource::<Endings>().of(player);
            assert!(
                position(&r.app, player).distance(px(42, 20)) < 1e-3,
                "{pace:?} {skip}"
            );
            if skip {
                assert_eq!(endings, [(r.bell, End::Arrived)], "{pace:?}");
                assert!(frames <= 20, "{pace:?}: skipped in {frames} frames");
                assert!(longest_step > 10.0, "{pace:?}: no jump to the end");
            } else {
                assert_eq!(
                    endings,
                    [(r.bell, End::Cancelled), (r.bell, End::Arrived)],
                    "{pace:?}"
                );
                // Round the wall at 2 units a frame, never a jump (how many frames
                // it takes depends on how far the first click's walk got, paced).
                assert!(
                    longest_step <= 2.0 + 1e-3,
                    "{pace:?}: a step of {longest_step} in {frames} frames"
                );
            }
            assert_observed_as_sent(&r, &[]);
        }
    }
}

/// A hotspot with a baseline is hit at the depth its baseline sorts it to: a
/// character whose feet are below the baseline is nearer the camera (takes the
/// pointer), one above it is farther (the hotspot covers it).
#[cfg(feature = "picking")]
#[test]
fn a_hotspot_with_a_baseline_is_picked_at_its_depth_among_characters() {
    let mut r = room(Pace::Exact(0), 1, vault());
    let camera = picking_camera(&mut r, 1000.0);
    // The bell's baseline at its bottom row; one character behind it, one in front.
    let bell_base = px(42, 6).y;
    r.app
        .world_mut()
        .entity_mut(r.bell)
        .insert((Baseline::At(bell_base), Transform::default()));
    let spawn = |r: &mut Room, at: Vec2| {
        r.app
            .world_mut()
            .spawn((Baseline::Feet, Transform::from_translation(at.extend(0.0))))
            .id()
    };
    let behind = spawn(&mut r, px(42, 3));
    let front = spawn(&mut r, px(42, 10));
    // Two frames: sorted, then picked.
    let depth = ray_hits(&mut r, camera, px(42, 4).extend(1000.0), 2)
        .into_iter()
        .filter(|(e, _)| *e == r.bell)
        .map(|(_, depth)| depth)
        .next_back()
        .expect("the bell is hit");
    let z = |e: Entity| {
        r.app
            .world()
            .get::<GlobalTransform>(e)
            .unwrap()
            .translation()
            .z
    };
    let (bell_z, behind_z, front_z) = (z(r.bell), z(behind), z(front));
    assert!(
        behind_z < bell_z && bell_z < front_z,
        "{behind_z} {bell_z} {front_z}"
    );
    assert!(
        (depth - (1000.0 - bell_z)).abs() < 1e-3,
        "{depth} vs z {bell_z}"
    );
    // Depth along the ray: the character in front is nearer, the one behind farther.
    assert!(1000.0 - front_z < depth && depth < 1000.0 - behind_z);
}

/// The debug overlay draws the region and hotspot layers over the room, each as an
/// image of the layer's size tinted by id, disabled hotspots grey, and follows the
/// switches.
#[cfg(feature = "debug_overlay")]
#[test]
fn the_debug_overlay_tints_the_layers_by_id() {
    let mut r = room(Pace::Exact(0), 2, vault());
    r.app
        .add_plugins(bevy_walkmask::WalkmaskDebugPlugin)
        .init_asset::<Image>();
    let regions = add_mask(&mut r.app, 64, 48, |x, _| {
        u8::from(x < 20) + u8::from(x < 10)
    });
    r.app
        .world_mut()
        .entity_mut(r.room)
        .insert(WalkRegions::new(regions).with_region(1, "hall"));
    r.app.update();
    r.app.update();
    let overlays: Vec<Entity> = r
        .app
        .world()
        .get::<Children>(r.room)
        .unwrap()
        .iter()
        .filter(|&c| {
            r.app
                .world()
                .get::<Name>(c)
                .is_some_and(|n| n.as_str() == "room layer overlay")
        })
        .collect();
    assert_eq!(overlays.len(), 2);
    let image = |app: &App, overlay: Entity| {
        let sprite = app.world().get::<Sprite>(overlay).unwrap();
        assert_eq!(
            sprite.custom_size,
            Some(Vec2::new(64.0, 48.0)),
            "over the mask"
        );
        let images = app.world().resource::<Assets<Image>>();
        let image = images.get(&sprite.image).unwrap();
        (image.width(), image.data.clone().unwrap())
    };
    let pixel = |(w, data): &(u32, Vec<u8>), x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [data[i], data[i + 1], data[i + 2], data[i + 3]]
    };
    // Which is which: the region layer is full size, the hotspot layer half.
    let (region_overlay, hotspot_overlay) = if image(&r.app, overlays[0]).0 == 64 {
        (overlays[0], overlays[1])
    } else {
        (overlays[1], overlays[0])
    };
    let region_image = image(&r.app, region_overlay);
    assert_ne!(
        pixel(&region_image, 5, 5)[..3],
        pixel(&region_image, 15, 5)[..3],
        "ids differ"
    );
    assert_eq!(pixel(&region_image, 30, 5)[3], 0, "no region: clear");
    // The bell (id 1) at layer pixels (20..=22, 1..=3); the lamp (4) at (5..=7, 3..=4).
    let hotspot_image = image(&r.app, hotspot_overlay);
    assert_eq!(hotspot_image.0, 32);
    let bell = pixel(&hotspot_image, 21, 2);
    assert!(bell[3] > 0 && bell[0] != bell[1], "{bell:?}");
    r.app
        .world_mut()
        .get_mut::<Hotspot>(r.bell)
        .unwrap()
        .enabled = false;
    r.app.update();
    let grey = pixel(&image(&r.app, hotspot_overlay), 21, 2);
    assert!(
        grey[0] == grey[1] && grey[1] == grey[2] && grey[3] > 0,
        "{grey:?}"
    );
    // Without the layer component, its overlay goes.
    r.app.world_mut().entity_mut(r.room).remove::<WalkRegions>();
    r.app.update();
    assert!(r.app.world().get_entity(region_overlay).is_err());
}

/// A hotspot layer painted with id 3 in a grey PNG named `*.ids.png`, with no
/// `.meta`, reads its ids (the index rule), and its hotspot is found; the same
/// picture as a `*.walk.png` without a `.meta` is decoded as a walk mask (ids 0 and
/// 1), which the room's layer check names; an `*.ids.png` with no ids fails to load
/// and says so. (Before, the layer silently had no hotspot 3.)
#[test]
fn an_id_layer_without_a_meta_reads_its_ids() {
    use bevy::asset::LoadState;
    common::create_generated_dir();
    let paint = |x: u32, y: u32| if x >= 40 && y < 10 { 3 } else { 0 };
    common::write_grey_png("generated/hotspots_three.ids.png", (64, 48), paint);
    common::write_grey_png("generated/hotspots_three.walk.png", (64, 48), paint);
    common::write_grey_png("generated/hotspots_none.ids.png", (64, 48), |_, _| 0);
    let mut app = headless_app(Pace::Exact(2).plugin());
    let layer = common::load_mask(&mut app, "generated/hotspots_three.ids.png");
    let as_walk_mask = common::load_mask(&mut app, "generated/hotspots_three.walk.png");
    {
        let masks = app.world().resource::<Assets<WalkMask>>();
        let layer = masks.get(&layer).unwrap();
        assert_eq!(layer.area_at(50, 4), Some(3));
        assert!(layer.reads_ids());
        assert!(!masks.get(&as_walk_mask).unwrap().reads_ids());
    }
    let mask = add_mask(&mut app, 64, 48, |_, _| 1);
    let room = app
        .world_mut()
        .spawn((WalkRoom::new(mask.clone()), WalkHotspots::new(layer)))
        .id();
    let other = app
        .world_mut()
        .spawn((WalkRoom::new(mask), WalkHotspots::new(as_walk_mask)))
        .id();
    let bell = app
        .world_mut()
        .spawn((Hotspot::new(3, "bell"), ChildOf(room)))
        .id();
    app.update();
    assert_eq!(hotspot_at(&mut app, room, px(50, 4)), Some(bell));
    let problems = |app: &mut App, room: Entity| {
        app.world_mut()
            .run_system_once(move |query: WalkQuery| {
                query.room(room).ok().and_then(|v| v.check_layers().ok())
            })
            .unwrap()
            .unwrap_or_default()
    };
    assert!(
        !problems(&mut app, room)
            .iter()
            .any(|p| matches!(p, LayerProblem::NotReadAsIds { .. }))
    );
    assert!(problems(&mut app, other).contains(&LayerProblem::NotReadAsIds { layer: "hotspots" }));
    let empty: Handle<WalkMask> = app
        .world()
        .resource::<AssetServer>()
        .load("generated/hotspots_none.ids.png");
    common::wait_for(&mut app, common::LOAD_UPDATES, |w| {
        matches!(
            w.resource::<AssetServer>().load_state(&empty),
            LoadState::Failed(_)
        )
    });
    let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&empty) else {
        unreachable!()
    };
    assert!(error.to_string().contains("has no ids"), "{error}");
}

/// A hotspot disabled while a walker walks to it ends the interaction at once
/// (`InteractionCancelled`, not when the walk there ends), and the walker walks on to
/// where it was going; nothing more comes. (Before, it was cancelled only on
/// arrival.)
#[test]
fn a_hotspot_disabled_mid_walk_cancels_at_once_and_the_walker_walks_on() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(2, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        let vault = r.vault;
        interact(&mut r.app, walker, vault, Verb::INTERACT);
        clock.until(&mut r.app, 300, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Walking)
        });
        clock.frames(&mut r.app, 5);
        r.app.world_mut().get_mut::<Hotspot>(vault).unwrap().enabled = false;
        clock.frames(&mut r.app, 2);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(vault, End::Cancelled)],
            "{pace:?}"
        );
        assert_eq!(
            r.app.world().get::<WalkState>(walker),
            Some(&WalkState::Walking),
            "{pace:?}: walks on"
        );
        clock.until(&mut r.app, 600, |w| {
            w.get::<WalkState>(walker) == Some(&WalkState::Arrived)
        });
        clock.frames(&mut r.app, 3);
        assert_eq!(r.app.world().resource::<Endings>().of(walker).len(), 1);
        assert_observed_as_sent(&r, &[]);
    }
}

/// A wide walker standing on a hotspot's walk-to point keeps a narrow one off it by
/// more than the narrow one's arrival reach: the narrow one, stopped beside it, has
/// arrived (before, its interaction ended `Unreachable`).
#[test]
fn a_walker_kept_off_the_walk_to_point_by_a_wider_one_arrives_beside_it() {
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let bell = r.bell;
        let _guard = spawn_walker(&mut r.app, Walker::new(60.0).with_radius(9.0), px(42, 20));
        let walker = spawn_walker(&mut r.app, Walker::new(80.0).with_radius(2.0), px(20, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        interact(&mut r.app, walker, bell, Verb::INTERACT);
        until_ended(&mut r, &mut clock, walker, 600);
        assert_eq!(
            r.app.world().resource::<Endings>().of(walker),
            [(bell, End::Arrived)],
            "{pace:?}: stopped at {}",
            position(&r.app, walker)
        );
        assert!(position(&r.app, walker).distance(px(42, 20)) > 8.0);
    }
}

/// An interaction started while the one before it ends is not replaced unheard by the
/// one that ended it. A step of a sequence starts its interaction straight on the
/// world; ending the interaction under way there runs the commands queued so far,
/// here game code's own `interact`, which starts another interaction in the middle of
/// the step's. That one is cancelled in turn: every interaction started ends once.
#[cfg(feature = "sequences")]
#[test]
fn an_interaction_started_as_the_one_before_ends_is_not_lost() {
    use bevy_walkmask::sequence::*;
    for pace in Pace::BOTH {
        let mut r = room(pace, 1, vault());
        let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        interact(&mut r.app, walker, r.vault, Verb::INTERACT);
        clock.frames(&mut r.app, 3);
        // Game code asks for the lamp (queued), then a step asks for the bell.
        interact(&mut r.app, walker, r.lamp, Verb::INTERACT);
        r.app
            .world_mut()
            .actions(walker)
            .add(Interact::new(r.bell, Verb::INTERACT));
        until_ended(&mut r, &mut clock, walker, 400);
        clock.until(&mut r.app, 400, |world| {
            world.get::<Interacting>(walker).is_none()
        });
        clock.frames(&mut r.app, 5);
        let endings = r.app.world().resource::<Endings>().of(walker);
        assert_eq!(
            endings.len(),
            3,
            "{pace:?}: three started, ended {endings:?}"
        );
        assert_eq!(endings[0], (r.vault, End::Cancelled), "{pace:?}");
        assert_eq!(
            endings.iter().filter(|e| e.1 == End::Cancelled).count(),
            2,
            "{pace:?}: {endings:?}"
        );
        assert_observed_as_sent(&r, &[]);
    }
}
