//! Followers (`WalkFollow`): a companion walks after its leader round the wall and
//! past walkers standing about, stands near it facing it, comes along into the next
//! room (and through a crowd and an exit the leader takes), waits its delay, stops when the leader is gone, and lets the game's own
//! walks win; every request it makes gets its one answer and its one end. Under both
//! paces.
//!
//! Headless app of `tests/common`: the 64 x 48 wall mask (pixel (px, py) is world
//! (px - 32, 24 - py); a wall at x = 30..=33 from the top down to y = 39).

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{
    Kind, Log, Pace, add_mask, assert_contract, pixel_centre, pixel_of, position, px, request,
    room_pixel, spawn_walker, wall_room_app,
};

/// Every request the log saw, each with its one answer and (if answered) one end.
fn assert_every_request_ends_once(app: &App) {
    let log = app.world().resource::<Log>();
    let mut ids: Vec<RequestId> = log.both().iter().map(|e| e.request).collect();
    ids.sort_unstable_by_key(|id| format!("{id:?}"));
    ids.dedup();
    assert_contract(log, &ids);
}

/// Whether `walker` stands: no walk and nothing being planned.
fn stands(app: &App, walker: Entity) -> bool {
    app.world().get::<WalkPath>(walker).is_none()
        && app.world().get::<WalkState>(walker) != Some(&WalkState::Planning)
}

/// A follower of radius 1.5 at `at`.
fn follower(app: &mut App, at: Vec2, follow: WalkFollow) -> Entity {
    let walker = spawn_walker(app, Walker::new(90.0).with_radius(1.5), at);
    app.world_mut().entity_mut(walker).insert(follow);
    walker
}

/// The player walks from the bottom left round the wall to the top right, past
/// walkers standing about; the follower walks after it, never onto the wall, and ends
/// standing near it, facing it.
#[test]
fn a_follower_walks_after_its_leader_round_the_wall_and_stands_near_it_facing_it() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let leader = spawn_walker(&mut app, Walker::new(90.0).with_radius(1.5), px(6, 44));
        app.world_mut().entity_mut(leader).insert(PlayerWalker);
        let start = px(3, 30);
        let follower = follower(
            &mut app,
            start,
            WalkFollow::new(leader)
                .with_distance(6.0)
                .with_slack(4.0)
                .with_delay(0.1),
        );
        // Walkers standing about near the way.
        for at in [px(20, 40), px(40, 46), px(45, 20)] {
            spawn_walker(&mut app, Walker::new(60.0).with_radius(1.5), at);
        }
        let mut clock = pace.clock();
        clock.frames(&mut app, 3);
        let end = px(60, 5);
        request(&mut app, leader, end);
        let mut farthest: f32 = 0.0;
        for _ in 0..900 {
            clock.frame(&mut app);
            let at = position(&app, follower);
            let (x, y) = pixel_of(at);
            assert_eq!(
                room_pixel(x, y),
                1,
                "{pace:?}: the follower on the wall at {at}"
            );
            farthest = farthest.max(at.distance(start));
            if position(&app, leader).distance(end) < 1e-3
                && stands(&app, follower)
                && position(&app, follower).distance(end) < 12.0
            {
                break;
            }
        }
        clock.frames(&mut app, 20);
        let (at, leader_at) = (position(&app, follower), position(&app, leader));
        assert!(farthest > 50.0, "{pace:?}: the follower stayed at {at}");
        assert!(
            at.distance(leader_at) <= 6.0 + 4.0 + 1.0,
            "{pace:?}: the follower stands {} from its leader",
            at.distance(leader_at)
        );
        assert!(stands(&app, follower), "{pace:?}");
        let facing = app.world().get::<Facing>(follower).unwrap().direction;
        assert!(
            facing.vector().dot((leader_at - at).normalize()) > 0.3,
            "{pace:?}: faces {facing:?}, the leader is at {}",
            leader_at - at
        );
        assert_every_request_ends_once(&app);
    }
}

/// The leader goes into the next room (`enter_room`): the follower is put where the
/// leader is there, names that room, and follows it on there.
#[test]
fn a_follower_comes_along_into_the_next_room() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let mask = add_mask(&mut app, 64, 48, room_pixel);
        let next = app
            .world_mut()
            .spawn((WalkRoom::new(mask), Transform::from_xyz(1000.0, 0.0, 0.0)))
            .id();
        app.world_mut()
            .spawn((SpawnPoint::new("door", pixel_centre(10, 44)), ChildOf(next)));
        let leader = spawn_walker(&mut app, Walker::new(90.0).with_radius(1.5), px(6, 44));
        let follower = follower(&mut app, px(3, 30), WalkFollow::new(leader));
        let mut clock = pace.clock();
        clock.frames(&mut app, 3);
        app.world_mut()
            .commands()
            .entity(leader)
            .enter_room(next, "door");
        app.world_mut().flush();
        clock.until(&mut app, 10, |w| {
            w.get::<CurrentRoom>(follower).unwrap().get() == Some(next)
        });
        let arrived = position(&app, follower);
        assert!(
            arrived.distance(position(&app, leader)) < 4.0,
            "{pace:?}: put at {arrived}, the leader at {}",
            position(&app, leader)
        );
        assert_eq!(
            app.world().get::<Walker>(follower).unwrap().room,
            Some(next),
            "{pace:?}"
        );
        // On in the next room.
        let end = px(60, 44) + Vec2::new(1000.0, 0.0);
        request(&mut app, leader, end);
        clock.until(&mut app, 600, |w| {
            let at = w.get::<Transform>(follower).unwrap().translation.truncate();
            at.distance(end) < 40.0
        });
        clock.until(&mut app, 600, |w| {
            w.get::<WalkState>(leader) == Some(&WalkState::Arrived)
                && w.get::<WalkPath>(follower).is_none()
                && w.get::<WalkState>(follower) != Some(&WalkState::Planning)
        });
        assert_eq!(
            app.world().get::<CurrentRoom>(follower).unwrap().get(),
            Some(next),
            "{pace:?}"
        );
        assert_every_request_ends_once(&app);
    }
}

/// A follower with a delay of half a second stands that long after its leader got
/// out of reach; when the leader is despawned in mid-follow it stops there
/// (`WalkStopped`); a walk the game sends it wins over following, which goes on
/// once that walk ends.
#[test]
fn a_follower_waits_its_delay_stops_when_its_leader_goes_and_lets_the_game_walk_it() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let leader = spawn_walker(&mut app, Walker::new(60.0), px(6, 44));
        let start = px(3, 44);
        let follower = follower(
            &mut app,
            start,
            WalkFollow::new(leader)
                .with_distance(4.0)
                .with_slack(4.0)
                .with_delay(0.5),
        );
        let mut clock = pace.clock();
        clock.frames(&mut app, 3);
        request(&mut app, leader, px(28, 44));
        // The leader is 8 units farther away after ~0.1 s: the follower sets off
        // ~0.5 s later.
        let frames = clock.until(&mut app, 200, |w| {
            w.get::<Transform>(follower)
                .unwrap()
                .translation
                .truncate()
                .distance(start)
                > 0.5
        });
        // 16 ms frames: 0.1 s and 0.5 s are ~6 and ~31 frames (paced, frames
        // carry the wall clock's time, which a loaded machine stretches).
        let least = if pace == Pace::Paced { 20 } else { 34 };
        assert!(
            frames >= least,
            "{pace:?}: the follower set off after {frames} frames"
        );
        // The game walks it elsewhere while it follows: that walk wins.
        let elsewhere = px(10, 30);
        let own = request(&mut app, follower, elsewhere);
        clock.until(&mut app, 300, |w| {
            w.get::<WalkState>(follower) == Some(&WalkState::Arrived)
        });
        assert_eq!(position(&app, follower), elsewhere, "{pace:?}");
        assert!(
            app.world()
                .resource::<Log>()
                .kinds(own)
                .iter()
                .any(|k| matches!(k, Kind::Arrived(_))),
            "{pace:?}"
        );
        // Then it follows again; the leader goes in mid-follow and it stops.
        clock.until(&mut app, 300, |w| w.get::<WalkPath>(follower).is_some());
        app.world_mut().despawn(leader);
        clock.frames(&mut app, 3);
        assert!(stands(&app, follower), "{pace:?}");
        let stopped_at = position(&app, follower);
        clock.frames(&mut app, 30);
        assert_eq!(position(&app, follower), stopped_at, "{pace:?}");
        let log = app.world().resource::<Log>();
        assert!(
            log.both()
                .iter()
                .any(|e| e.entity == follower && matches!(e.kind, Kind::Stopped(..))),
            "{pace:?}: no WalkStopped for the follower"
        );
        assert_every_request_ends_once(&app);
    }
}

/// The player takes an exit through a crowd: it walks past six walkers standing in
/// the way under the wall to the door, walks off the room and is taken into room B by
/// the game. The follower, behind it, keeps off the wall and out of the crowd, comes
/// along into B (naming it), and stands near the player there; every request ends
/// once.
#[test]
fn a_follower_comes_through_a_crowd_and_an_exit_into_the_next_room() {
    for pace in Pace::BOTH {
        let (mut app, a) = wall_room_app(pace.plugin());
        let mask = add_mask(&mut app, 64, 48, room_pixel);
        let b = app
            .world_mut()
            .spawn((WalkRoom::new(mask), Transform::from_xyz(1000.0, 0.0, 0.0)))
            .id();
        app.world_mut()
            .spawn((SpawnPoint::new("gate", pixel_centre(10, 44)), ChildOf(b)));
        let door = app
            .world_mut()
            .spawn((
                Hotspot::new(1, "door").with_walk_to(pixel_centre(58, 44)),
                RoomExit::new("B", "gate").with_walk_off(pixel_centre(70, 44)),
                ChildOf(a),
            ))
            .id();
        #[derive(Resource, Default)]
        struct Exits(Vec<Entity>);
        app.init_resource::<Exits>().add_observer(
            move |e: On<RoomExitRequested>, mut exits: ResMut<Exits>, mut commands: Commands| {
                exits.0.push(e.entity);
                commands.entity(e.entity).enter_room(b, e.spawn.clone());
            },
        );
        let player = spawn_walker(&mut app, Walker::new(90.0).with_radius(1.5), px(6, 44));
        app.world_mut().entity_mut(player).insert(PlayerWalker);
        let dog = follower(
            &mut app,
            px(3, 40),
            WalkFollow::new(player)
                .with_distance(6.0)
                .with_slack(4.0)
                .with_delay(0.1),
        );
        let crowd: Vec<Entity> = [
            px(20, 41),
            px(22, 46),
            px(40, 41),
            px(44, 46),
            px(50, 42),
            px(52, 46),
        ]
        .into_iter()
        .map(|at| spawn_walker(&mut app, Walker::new(60.0).with_radius(1.5), at))
        .collect();
        let mut clock = pace.clock();
        clock.frames(&mut app, 3);
        app.world_mut()
            .commands()
            .entity(player)
            .interact(door, Verb::INTERACT);
        let mut closest = f32::INFINITY;
        let mut came_along = false;
        for _ in 0..1200 {
            clock.frame(&mut app);
            let world = app.world();
            let at = position(&app, dog);
            if world.get::<CurrentRoom>(dog).unwrap().get() == Some(a) {
                let (x, y) = pixel_of(at);
                assert_eq!(
                    room_pixel(x, y),
                    1,
                    "{pace:?}: the follower on the wall at {at}"
                );
                for &other in &crowd {
                    closest = closest.min(at.distance(position(&app, other)));
                }
            }
            came_along |= world.get::<CurrentRoom>(dog).unwrap().get() == Some(b);
            if came_along && stands(&app, dog) && stands(&app, player) {
                break;
            }
        }
        assert_eq!(app.world().resource::<Exits>().0, [player], "{pace:?}");
        assert!(came_along, "{pace:?}: the follower stayed behind");
        assert_eq!(
            app.world().get::<Walker>(dog).unwrap().room,
            Some(b),
            "{pace:?}"
        );
        clock.frames(&mut app, 20);
        let (at, player_at) = (position(&app, dog), position(&app, player));
        assert!(
            at.distance(player_at) <= 6.0 + 4.0 + 1.0,
            "{pace:?}: the follower stands {} from the player in room B",
            at.distance(player_at)
        );
        // Radii 1.5 and 1.5: a quarter of their sum is the most they overlap.
        assert!(
            closest >= 3.0 * 0.75,
            "{pace:?}: the follower came within {closest} of a walker of the crowd"
        );
        assert_every_request_ends_once(&app);
    }
}
