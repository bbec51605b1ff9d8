//! Ways out of a room and in: walking off an edge, an exit hotspot that walks there,
//! walks off and asks for the room change, and spawn points that take the walker in,
//! under both paces.
//!
//! Headless app of `tests/common`: the 64 x 48 wall mask (pixel (px, py) is world
//! (px - 32, 24 - py)) as room A at the origin, and room B, the same mask 1000 units
//! to the right, with a spawn point "gate" at (990, -10). Walk-to and walk-off points
//! and edges are given in room pixels.

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{Edge, EnteringRoom, UnreachablePolicy};
use common::{
    Kind, Log, Pace, add_log, add_mask, assert_contract, headless_app, pixel_centre, position, px,
    request, spawn_walker,
};

/// What was seen: edges walked off (observed, and read as messages) and exits.
#[derive(Resource, Default)]
struct Seen {
    edges: Vec<(Entity, Edge)>,
    edge_messages: Vec<(Entity, Edge)>,
    exits: Vec<(Entity, String, String)>,
}

fn read_edges(mut off: MessageReader<WalkedOffEdge>, mut seen: ResMut<Seen>) {
    for e in off.read() {
        seen.edge_messages.push((e.entity, e.edge));
    }
}

struct Rooms {
    app: App,
    a: Entity,
    b: Entity,
}

/// The headless app with `pace`, the outcome log, and what is [`Seen`] and
/// [`Acted`] on.
fn watching_app(pace: Pace) -> App {
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    app.init_resource::<Seen>()
        .init_resource::<Acted>()
        .add_observer(|e: On<InteractionArrived>, mut acted: ResMut<Acted>| {
            acted.0.push((e.hotspot, e.verb.clone(), e.at_walk_to));
        })
        .add_systems(Last, read_edges)
        .add_observer(|e: On<WalkedOffEdge>, mut seen: ResMut<Seen>| {
            seen.edges.push((e.entity, e.edge));
        })
        .add_observer(|e: On<RoomExitRequested>, mut seen: ResMut<Seen>| {
            seen.exits.push((e.entity, e.to.clone(), e.spawn.clone()));
        });
    app
}

fn rooms(pace: Pace) -> Rooms {
    let mut app = watching_app(pace);
    let mask = add_mask(&mut app, 64, 48, common::room_pixel);
    // The exit: a door at x = 56..=63, y = 40..=47 (bottom right).
    let layer = add_mask(&mut app, 64, 48, |x, y| u8::from(x >= 56 && y >= 40));
    let a = app
        .world_mut()
        .spawn((
            WalkRoom::new(mask.clone()),
            WalkHotspots::new(layer),
            RoomEdges::default().with_left(7.0).with_right(52.0),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((WalkRoom::new(mask), Transform::from_xyz(1000.0, 0.0, 0.0)))
        .id();
    app.world_mut().spawn((
        SpawnPoint::new("gate", Vec2::new(22.0, 34.0)).facing(FacingDirection::Left),
        ChildOf(b),
    ));
    Rooms { app, a, b }
}

fn edges_of(app: &App, walker: Entity) -> Vec<Edge> {
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.edges, seen.edge_messages, "observed and sent");
    seen.edges
        .iter()
        .filter(|e| e.0 == walker)
        .map(|e| e.1)
        .collect()
}

fn walk(r: &mut Rooms, clock: &mut common::FrameClock, walker: Entity, to: Vec2) -> RequestId {
    let id = request(&mut r.app, walker, to);
    clock.until(&mut r.app, 400, |w| {
        w.resource::<Log>()
            .of(id)
            .iter()
            .any(|e| matches!(e.kind, Kind::Arrived(_)))
    });
    id
}

/// Each walk across the right edge from inside is one `WalkedOffEdge`; walking back
/// in is none; a walker that starts off the edge gets one only after it came in.
#[test]
fn walking_off_an_edge_is_reported_once_per_crossing() {
    for pace in Pace::BOTH {
        let mut r = rooms(pace);
        let inside = spawn_walker(&mut r.app, Walker::new(150.0), px(40, 44));
        let outside = spawn_walker(&mut r.app, Walker::new(150.0), px(60, 42));
        let mut clock = pace.clock();
        clock.frames(&mut r.app, 2);
        assert!(edges_of(&r.app, outside).is_empty(), "{pace:?}");
        let mut ids = Vec::new();
        ids.push(walk(&mut r, &mut clock, inside, px(60, 44)));
        assert_eq!(edges_of(&r.app, inside), [Edge::Right], "{pace:?}");
        ids.push(walk(&mut r, &mut clock, inside, px(40, 44)));
        ids.push(walk(&mut r, &mut clock, inside, px(61, 45)));
        assert_eq!(edges_of(&r.app, inside), [Edge::Right, Edge::Right]);
        ids.push(walk(&mut r, &mut clock, outside, px(40, 42)));
        assert!(edges_of(&r.app, outside).is_empty());
        ids.push(walk(&mut r, &mut clock, outside, px(2, 42)));
        assert_eq!(edges_of(&r.app, outside), [Edge::Left], "{pace:?}");
        assert_contract(r.app.world().resource::<Log>(), &ids);
    }
}

/// A walker sent through the exit walks to its walk-to point, walks on off the mask,
/// and the exit is requested once; the game's observer takes it into room B at the
/// spawn point, facing left, standing; it walks there as in any room. A walker that
/// is sent elsewhere before it is out does not leave.
#[test]
fn an_exit_walks_there_walks_off_and_takes_the_walker_to_the_spawn_point() {
    for pace in Pace::BOTH {
        let mut r = rooms(pace);
        let (a, b) = (r.a, r.b);
        let door = r
            .app
            .world_mut()
            .spawn((
                Hotspot::new(1, "door").with_walk_to(pixel_centre(58, 44)),
                RoomExit::new("B", "gate").with_walk_off(pixel_centre(70, 44)),
                ChildOf(a),
            ))
            .id();
        r.app
            .add_observer(move |e: On<RoomExitRequested>, mut commands: Commands| {
                if e.to == "B" {
                    commands.entity(e.entity).enter_room(b, e.spawn.clone());
                }
            });
        let walker = spawn_walker(&mut r.app, Walker::new(150.0).with_room(a), px(36, 44));
        let stays = spawn_walker(&mut r.app, Walker::new(60.0).with_room(a), px(36, 46));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        for w in [walker, stays] {
            r.app
                .world_mut()
                .commands()
                .entity(w)
                .interact(door, Verb::INTERACT);
        }
        clock.frames(&mut r.app, 12);
        let elsewhere = request(&mut r.app, stays, px(36, 30));
        clock.until(&mut r.app, 400, |w| !w.resource::<Seen>().exits.is_empty());
        clock.frames(&mut r.app, 3);
        let seen = r.app.world().resource::<Seen>();
        assert_eq!(
            seen.exits,
            [(walker, "B".to_string(), "gate".to_string())],
            "{pace:?}"
        );
        assert_eq!(
            position(&r.app, walker),
            Vec2::new(990.0, -10.0),
            "{pace:?}"
        );
        assert_eq!(r.app.world().get::<Walker>(walker).unwrap().room, Some(b));
        assert_eq!(
            r.app.world().get::<Facing>(walker).unwrap().direction,
            FacingDirection::Left
        );
        assert_eq!(
            r.app.world().get::<WalkState>(walker),
            Some(&WalkState::Idle)
        );
        let there = walk(&mut r, &mut clock, walker, Vec2::new(1000.0, -20.0));
        assert_eq!(position(&r.app, walker), Vec2::new(1000.0, -20.0));
        clock.until(&mut r.app, 400, |w| {
            w.resource::<Log>()
                .of(elsewhere)
                .iter()
                .any(|e| matches!(e.kind, Kind::Arrived(_)))
        });
        clock.frames(&mut r.app, 30);
        assert_eq!(r.app.world().resource::<Seen>().exits.len(), 1);
        assert_eq!(r.app.world().get::<Walker>(stays).unwrap().room, Some(a));
        assert_contract(r.app.world().resource::<Log>(), &[there, elsewhere]);
    }
}

/// What belongs to a room is given in room pixels and follows the room wherever it
/// is drawn: in a room moved to (-500, 300) and drawn twice its size, and in one
/// whose mask is at half resolution (`WalkRoom::scale` 2: room pixels stay the
/// picture's), an exit's walk ends at its walk-to pixel and walks on to its walk-off
/// pixel, and a walker that crosses the left edge's pixel column walks off it. (When
/// these were world points the same numbers lay far outside the room.)
#[test]
fn points_given_in_room_pixels_follow_the_room_where_it_is_drawn() {
    #[derive(Resource, Default)]
    struct Arrivals(Vec<(Vec2, bool)>);
    let placements = [
        (
            1u32,
            Transform::from_xyz(-500.0, 300.0, 0.0).with_scale(Vec3::new(2.0, 2.0, 1.0)),
        ),
        (2, Transform::from_xyz(300.0, -200.0, 0.0)),
    ];
    for (pace, (down, placed)) in Pace::BOTH
        .into_iter()
        .flat_map(|pace| placements.map(|placement| (pace, placement)))
    {
        let mut app = watching_app(pace);
        app.init_resource::<Arrivals>().add_observer(
            |e: On<InteractionArrived>, mut seen: ResMut<Arrivals>| {
                seen.0.push((e.position, e.at_walk_to));
            },
        );
        // The room is 64 x 48 room pixels; its mask and layer `down` times smaller.
        let (w, h) = (64 / down, 48 / down);
        let mask = add_mask(&mut app, w, h, |x, y| {
            common::room_pixel(x * down, y * down)
        });
        let layer = add_mask(&mut app, w, h, |x, y| {
            u8::from(x * down >= 56 && y * down >= 40)
        });
        let world_of = |pixel: Vec2| {
            placed
                .transform_point(Vec3::new(pixel.x - 32.0, 24.0 - pixel.y, 0.0))
                .truncate()
        };
        let room = app
            .world_mut()
            .spawn((
                WalkRoom::new(mask).with_scale(down as f32),
                WalkHotspots::new(layer),
                RoomEdges::default().with_left(7.0),
                placed,
            ))
            .id();
        let door = app
            .world_mut()
            .spawn((
                Hotspot::new(1, "door").with_walk_to(pixel_centre(58, 44)),
                RoomExit::new("B", "gate").with_walk_off(pixel_centre(70, 44)),
                ChildOf(room),
            ))
            .id();
        let start = world_of(pixel_centre(36, 44));
        let leaving = spawn_walker(&mut app, Walker::new(150.0).with_room(room), start);
        let wandering = spawn_walker(&mut app, Walker::new(150.0).with_room(room), start);
        let mut clock = pace.clock();
        clock.frame(&mut app);
        app.world_mut()
            .commands()
            .entity(leaving)
            .interact(door, Verb::INTERACT);
        clock.until(&mut app, 600, |w| !w.resource::<Seen>().exits.is_empty());
        let arrivals = &app.world().resource::<Arrivals>().0;
        assert_eq!(arrivals.len(), 1, "{pace:?}, mask 1/{down}");
        let (arrived_at, at_walk_to) = arrivals[0];
        assert!(at_walk_to, "{pace:?}, mask 1/{down}");
        assert!(
            arrived_at.distance(world_of(pixel_centre(58, 44))) < 1e-3,
            "{pace:?}, mask 1/{down}: arrived at {arrived_at}"
        );
        assert!(
            position(&app, leaving).distance(world_of(pixel_centre(70, 44))) < 1e-3,
            "{pace:?}, mask 1/{down}: walked off to {}",
            position(&app, leaving)
        );
        let away = request(&mut app, wandering, world_of(pixel_centre(2, 42)));
        clock.until(&mut app, 600, |w| {
            w.resource::<Log>()
                .of(away)
                .iter()
                .any(|e| matches!(e.kind, Kind::Arrived(_)))
        });
        assert_eq!(
            edges_of(&app, wandering),
            [Edge::Left],
            "{pace:?}, mask 1/{down}"
        );
        assert_eq!(edges_of(&app, leaving), [], "{pace:?}, mask 1/{down}");
    }
}

/// A walker sent into a room whose mask is still loading waits where it is, stopped
/// and named into the room, and comes in at the spawn point (room pixels) in the
/// frame the mask is there; a second walker sent into a room that is despawned
/// before its mask loads stays where it is.
#[test]
fn entering_a_room_whose_mask_is_loading_waits_for_the_mask() {
    let mut r = rooms(Pace::Exact(0));
    let walker = spawn_walker(&mut r.app, Walker::new(100.0), px(36, 44));
    let other = spawn_walker(&mut r.app, Walker::new(100.0), px(30, 44));
    r.app.update();
    let loading = r
        .app
        .world()
        .resource::<Assets<WalkMask>>()
        .reserve_handle();
    let (c, gone) = {
        let world = r.app.world_mut();
        let c = world
            .spawn((
                WalkRoom::new(loading.clone()),
                Transform::from_xyz(-2000.0, 0.0, 0.0),
            ))
            .id();
        world.spawn((SpawnPoint::new("dock", Vec2::new(37.0, 30.0)), ChildOf(c)));
        let gone = world.spawn(WalkRoom::new(loading.clone())).id();
        world.spawn((
            SpawnPoint::new("dock", Vec2::new(37.0, 30.0)),
            ChildOf(gone),
        ));
        (c, gone)
    };
    let walking = request(&mut r.app, walker, px(10, 44));
    r.app.update();
    r.app
        .world_mut()
        .commands()
        .entity(walker)
        .enter_room(c, "dock");
    r.app
        .world_mut()
        .commands()
        .entity(other)
        .enter_room(gone, "dock");
    for _ in 0..5 {
        r.app.update();
    }
    let standing = position(&r.app, walker);
    assert!(
        standing.x > -100.0,
        "placed before the mask loaded: {standing}"
    );
    assert_eq!(r.app.world().get::<Walker>(walker).unwrap().room, Some(c));
    assert!(
        r.app.world().get::<WalkPath>(walker).is_none(),
        "still walking"
    );
    assert!(r.app.world().get::<EnteringRoom>(walker).is_some());
    r.app.world_mut().despawn(gone);
    let mask = bevy_walkmask::walkmask::WalkMask::from_fn(64, 48, common::room_pixel).unwrap();
    r.app
        .world_mut()
        .resource_mut::<Assets<WalkMask>>()
        .insert(loading.id(), WalkMask::new(mask))
        .unwrap();
    r.app.update();
    assert_eq!(position(&r.app, walker), Vec2::new(-1995.0, -6.0));
    assert!(r.app.world().get::<EnteringRoom>(walker).is_none());
    assert!(r.app.world().get::<EnteringRoom>(other).is_none());
    assert_eq!(position(&r.app, other), px(30, 44), "the other stays");
    r.app.update();
    assert_eq!(
        r.app.world().get::<CurrentRoom>(walker).unwrap().get(),
        Some(c)
    );
    assert_contract(r.app.world().resource::<Log>(), &[walking]);
}

/// A spawn point that does not exist leaves the walker where it is.
#[test]
fn an_unknown_spawn_point_leaves_the_walker_where_it_is() {
    let mut r = rooms(Pace::Exact(0));
    let walker = spawn_walker(&mut r.app, Walker::new(100.0), px(36, 44));
    r.app.update();
    let b = r.b;
    r.app
        .world_mut()
        .commands()
        .entity(walker)
        .enter_room(b, "roof");
    r.app.update();
    assert_eq!(position(&r.app, walker), px(36, 44));
    assert_eq!(r.app.world().get::<Walker>(walker).unwrap().room, None);
}

/// The door of [`rooms`]: walk-to point (58, 44), walk-off (70, 44) off the mask,
/// leading to B's gate; a look is `FaceOnly`, "use" is `ActInPlace`.
fn door(r: &mut Rooms, spot: Hotspot) -> Entity {
    let a = r.a;
    r.app
        .world_mut()
        .spawn((
            spot.with_verb(Verb::LOOK, WalkPolicy::FaceOnly)
                .with_verb("use", WalkPolicy::ActInPlace),
            RoomExit::new("B", "gate").with_walk_off(pixel_centre(70, 44)),
            ChildOf(a),
        ))
        .id()
}

/// Only a walk that got to the exit's walk-to point leaves by it: a look (done
/// without walking) only turns the walker, a verb acted in place leaves it where it
/// is, and a walk that ended out of reach and was acted on anyway
/// (`UnreachablePolicy::ActAnyway`) does not walk off through the wall either.
/// (Before, each of them walked the walker off through the walls and asked for the
/// room change.)
#[test]
fn only_a_walk_to_the_exit_leaves_by_it() {
    for pace in Pace::BOTH {
        let mut r = rooms(pace);
        let door = door(
            &mut r,
            Hotspot::new(1, "door").with_walk_to(pixel_centre(58, 44)),
        );
        // Its walk-to point inside the wall: a walk there ends beside it.
        let mut far = Hotspot::new(2, "hatch").with_walk_to(pixel_centre(31, 20));
        far.arrival_radius = Some(0.0);
        let walled = door_in_wall(&mut r, far.with_unreachable(UnreachablePolicy::ActAnyway));
        let walker = spawn_walker(&mut r.app, Walker::new(150.0), px(36, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        let acted = |app: &App| app.world().resource::<Acted>().0.clone();
        for verb in [Verb::LOOK, Verb::from("use")] {
            r.app
                .world_mut()
                .commands()
                .entity(walker)
                .interact(door, verb.clone());
            clock.frames(&mut r.app, 40);
            assert_eq!(position(&r.app, walker), px(36, 44), "{pace:?} {verb}");
            let last = acted(&r.app).last().cloned();
            assert_eq!(last, Some((door, verb.clone(), false)), "{pace:?}");
        }
        assert_eq!(
            r.app.world().get::<Facing>(walker).unwrap().direction,
            FacingDirection::Right,
            "a look turns to the door"
        );
        r.app
            .world_mut()
            .commands()
            .entity(walker)
            .interact(walled, Verb::INTERACT);
        clock.until(&mut r.app, 400, |w| w.resource::<Acted>().0.len() == 3);
        clock.frames(&mut r.app, 40);
        assert_eq!(
            acted(&r.app)[2],
            (walled, Verb::INTERACT, false),
            "{pace:?}: acted out of reach"
        );
        let (x, y) = common::pixel_of(position(&r.app, walker));
        assert!(
            common::room_pixel(x, y) == 1,
            "{pace:?}: stands on the floor"
        );
        assert!(
            r.app.world().resource::<Seen>().exits.is_empty(),
            "{pace:?}"
        );
    }
}

/// A second exit of room A (id 2, not painted in the layer), to room C.
fn door_in_wall(r: &mut Rooms, spot: Hotspot) -> Entity {
    let a = r.a;
    r.app
        .world_mut()
        .spawn((
            spot,
            RoomExit::new("C", "gate").with_walk_off(pixel_centre(31, 2)),
            ChildOf(a),
        ))
        .id()
}

/// Interactions that arrived: the hotspot, the verb and whether the walker stood at
/// the walk-to point.
#[derive(Resource, Default)]
struct Acted(Vec<(Entity, Verb, bool)>);

/// A walk to an exit skipped with `Hurry::Skip` (a double click) leaves at once from
/// the walk-to point, without playing the walk-off (before, the walk-off was walked
/// all the same).
#[test]
fn a_skipped_walk_to_an_exit_leaves_without_the_walk_off() {
    for pace in Pace::BOTH {
        let mut r = rooms(pace);
        let door = door(
            &mut r,
            Hotspot::new(1, "door").with_walk_to(pixel_centre(58, 44)),
        );
        let walker = spawn_walker(&mut r.app, Walker::new(60.0), px(4, 44));
        let mut clock = pace.clock();
        clock.frame(&mut r.app);
        r.app
            .world_mut()
            .commands()
            .entity(walker)
            .interact(door, Verb::INTERACT)
            .hurry(Hurry::Skip);
        let frames = clock.until(&mut r.app, 400, |w| !w.resource::<Seen>().exits.is_empty());
        assert!(frames <= 12, "{pace:?}: left after {frames} frames");
        assert_eq!(position(&r.app, walker), px(58, 44), "{pace:?}");
        assert_eq!(
            r.app.world().resource::<Seen>().exits,
            [(walker, "B".to_string(), "gate".to_string())]
        );
    }
}

/// `enter_room` into a room spawned (and moved) in the same flush puts the walker at
/// the spawn point's world position, not at its local one; a walker that was a child
/// of the room it leaves is taken out of it, so despawning the old room does not
/// despawn the walker.
#[test]
fn entering_a_room_spawned_in_the_same_flush_places_the_walker_in_it() {
    let mut r = rooms(Pace::Exact(2));
    let a = r.a;
    let walker = r
        .app
        .world_mut()
        .spawn((
            Walker::new(100.0),
            Transform::from_translation(px(36, 44).extend(2.0)),
            ChildOf(a),
        ))
        .id();
    r.app.update();
    let mask = r.app.world().get::<WalkRoom>(a).unwrap().mask.clone();
    r.app
        .world_mut()
        .commands()
        .queue(move |world: &mut World| {
            let c = world
                .spawn((WalkRoom::new(mask), Transform::from_xyz(-2000.0, 0.0, 0.0)))
                .id();
            world.spawn((SpawnPoint::new("dock", Vec2::new(37.0, 30.0)), ChildOf(c)));
            world.commands().entity(walker).enter_room(c, "dock");
            world.commands().entity(a).despawn();
        });
    r.app.update();
    assert!(
        r.app.world().get_entity(walker).is_ok(),
        "despawned with room A"
    );
    assert_eq!(position(&r.app, walker), Vec2::new(-1995.0, -6.0));
    r.app.update();
    let c = r.app.world().get::<Walker>(walker).unwrap().room.unwrap();
    assert_eq!(
        r.app.world().get::<CurrentRoom>(walker).unwrap().get(),
        Some(c)
    );
}
