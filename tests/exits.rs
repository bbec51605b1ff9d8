//! Ways out of a room and in: walking off an edge, an exit hotspot that walks there,
//! walks off and asks for the room change, and spawn points that take the walker in,
//! under both paces.
//!
//! Headless app of `tests/common`: the 64 x 48 wall mask (pixel (px, py) is world
//! (px - 32, 24 - py)) as room A at the origin, and room B, the same mask 1000 units
//! to the right, with a spawn point "gate" at (990, -10).

mod common;

use bevy::prelude::*;
use bevy_walkmask::Edge;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, Pace, add_log, add_mask, assert_contract, headless_app, position, px, request,
    spawn_walker,
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

fn rooms(pace: Pace) -> Rooms {
    let mut app = headless_app(pace.plugin());
    add_log(&mut app);
    app.init_resource::<Seen>()
        .add_systems(Last, read_edges)
        .add_observer(|e: On<WalkedOffEdge>, mut seen: ResMut<Seen>| {
            seen.edges.push((e.entity, e.edge));
        })
        .add_observer(|e: On<RoomExitRequested>, mut seen: ResMut<Seen>| {
            seen.exits.push((e.entity, e.to.clone(), e.spawn.clone()));
        });
    let mask = add_mask(&mut app, 64, 48, common::room_pixel);
    // The exit: a door at x = 56..=63, y = 40..=47 (bottom right).
    let layer = add_mask(&mut app, 64, 48, |x, y| u8::from(x >= 56 && y >= 40));
    let a = app
        .world_mut()
        .spawn((
            WalkRoom::new(mask.clone()),
            WalkHotspots::new(layer),
            RoomEdges::default().with_left(-25.0).with_right(20.0),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((WalkRoom::new(mask), Transform::from_xyz(1000.0, 0.0, 0.0)))
        .id();
    app.world_mut().spawn((
        SpawnPoint::new("gate").facing(FacingDirection::Left),
        Transform::from_xyz(-10.0, -10.0, 0.0),
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
                Hotspot::new(1, "door").with_walk_to(px(58, 44)),
                RoomExit::new("B", "gate").with_walk_off(px(70, 44)),
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
