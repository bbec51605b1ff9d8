//! The demo's two rooms, loaded from their room files (`assets/rooms/*.room.ron`) as
//! the demo loads them, played as a player plays them under both paces: the whole
//! room from one handle (props included), a walk to a hotspot, one out of reach
//! behind the closed gate, the gate opened, through the garden exit and back. Every
//! interaction ends exactly once.

use crate::common::{self, Pace};
use crate::examples::example_app;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;

/// Where the garden is put in the world, beside the lobby (as the demo puts it).
const GARDEN_X: f32 = 2400.0;

/// World point of lobby pixel `p` (the lobby is 1920 x 1080, centred at the origin).
fn lobby(p: Vec2) -> Vec2 {
    Vec2::new(p.x - 960.0, 540.0 - p.y)
}

/// Interactions that ended: (hotspot name, how).
#[derive(Resource, Default)]
struct Ended(Vec<(String, &'static str)>);

/// The hotspot of `room` named `name`.
fn hotspot(app: &mut App, room: Entity, name: &str) -> Entity {
    let world = app.world_mut();
    world
        .query::<(Entity, &Hotspot, &ChildOf)>()
        .iter(world)
        .find(|(_, h, c)| c.parent() == room && h.name == name)
        .map(|(e, _, _)| e)
        .unwrap_or_else(|| panic!("no hotspot {name}"))
}

#[test]
fn the_demos_rooms_load_from_their_files_and_play_through_the_gate_and_back() {
    for pace in Pace::BOTH {
        let mut app = example_app(pace.plugin());
        app.init_resource::<Ended>();
        app.add_observer(
            |e: On<InteractionArrived>, mut ended: ResMut<Ended>, hs: Query<&Hotspot>| {
                let name = hs.get(e.hotspot).map_or("?", |h| h.name.as_str());
                ended.0.push((name.into(), "arrived"));
            },
        )
        .add_observer(
            |e: On<InteractionUnreachable>, mut ended: ResMut<Ended>, hs: Query<&Hotspot>| {
                let name = hs.get(e.hotspot).map_or("?", |h| h.name.as_str());
                ended.0.push((name.into(), "unreachable"));
            },
        )
        .add_observer(
            |e: On<InteractionCancelled>, mut ended: ResMut<Ended>, hs: Query<&Hotspot>| {
                let name = hs.get(e.hotspot).map_or("?", |h| h.name.as_str());
                ended.0.push((name.into(), "cancelled"));
            },
        );
        let server = app.world().resource::<AssetServer>().clone();
        let lobby_room = app
            .world_mut()
            .spawn(FromRoomFile(server.load("rooms/lobby.room.ron")))
            .id();
        let garden_room = app
            .world_mut()
            .spawn((
                FromRoomFile(server.load("rooms/garden.room.ron")),
                Transform::from_xyz(GARDEN_X, 0.0, 0.0),
            ))
            .id();
        // Through an exit: into the other room at the exit's spawn point.
        app.add_observer(move |exit: On<RoomExitRequested>, mut commands: Commands| {
            let to = if exit.to == "garden" {
                garden_room
            } else {
                lobby_room
            };
            commands
                .entity(exit.entity)
                .enter_room(to, exit.spawn.clone());
        });
        common::wait_for(&mut app, 2000, |world| {
            [lobby_room, garden_room]
                .iter()
                .all(|&room| world.get::<WalkRoom>(room).is_some())
        });

        // The lobby whole: the gate (area 4) starts closed, its regions and props.
        let world = app.world_mut();
        assert!(!world.get::<WalkRoom>(lobby_room).unwrap().areas.contains(4));
        assert_eq!(
            world.get::<WalkRegions>(lobby_room).unwrap().regions.len(),
            2
        );
        #[cfg(feature = "sprites")]
        {
            let props: Vec<(String, Baseline, Visibility)> = world
                .query::<(&RoomFilePart, &Baseline, &Visibility, &ChildOf)>()
                .iter(world)
                .filter(|(_, _, _, c)| c.parent() == lobby_room)
                .filter_map(|(part, baseline, visibility, _)| match part {
                    RoomFilePart::Prop(name) => Some((name.clone(), *baseline, *visibility)),
                    _ => None,
                })
                .collect();
            assert_eq!(props.len(), 12, "{props:?}");
            let prop = |name: &str| props.iter().find(|p| p.0 == name).unwrap().clone();
            assert_eq!(prop("desk").1, Baseline::Row(422.6));
            assert_eq!(prop("gate_open").2, Visibility::Hidden);
            assert_eq!(prop("gate_closed").2, Visibility::Inherited);
        }

        // The avatar comes in at "start".
        let avatar = app
            .world_mut()
            .spawn(Walker::new(600.0).with_radius(14.0))
            .id();
        app.world_mut()
            .commands()
            .entity(avatar)
            .enter_room(lobby_room, "start");
        let mut clock = pace.clock();
        clock.until(&mut app, 600, |w| w.get::<EnteringRoom>(avatar).is_none());
        assert_eq!(
            common::position(&app, avatar),
            lobby(Vec2::new(1140.0, 870.0))
        );

        // The bell: walked to, rung, once.
        let bell = hotspot(&mut app, lobby_room, "bell");
        app.world_mut()
            .commands()
            .entity(avatar)
            .interact(bell, Verb::INTERACT);
        clock.until(&mut app, 1500, |w| w.resource::<Ended>().0.len() == 1);
        let at = common::position(&app, avatar);
        assert!(
            at.distance(lobby(Vec2::new(972.0, 470.0))) < 1.0,
            "{pace:?}: {at}"
        );
        // The fountain is behind the closed gate: out of reach.
        let fountain = hotspot(&mut app, lobby_room, "fountain");
        app.world_mut()
            .commands()
            .entity(avatar)
            .interact(fountain, Verb::INTERACT);
        clock.until(&mut app, 1500, |w| w.resource::<Ended>().0.len() == 2);

        // The gate opens; through the garden exit, then back through the lobby exit.
        app.world_mut()
            .get_mut::<WalkRoom>(lobby_room)
            .unwrap()
            .set_area(4, true);
        let exit = hotspot(&mut app, lobby_room, "garden");
        app.world_mut()
            .commands()
            .entity(avatar)
            .interact(exit, Verb::INTERACT);
        let in_garden = Vec2::new(GARDEN_X + 110.0 - 960.0, 540.0 - 760.0);
        clock.until(&mut app, 2000, |w| {
            w.resource::<Ended>().0.len() == 3
                && w.get::<Transform>(avatar)
                    .is_some_and(|t| t.translation.truncate().distance(in_garden) < 1.0)
        });
        let back = hotspot(&mut app, garden_room, "lobby");
        app.world_mut()
            .commands()
            .entity(avatar)
            .interact(back, Verb::INTERACT);
        let from_the_garden = lobby(Vec2::new(1850.0, 540.0));
        clock.until(&mut app, 2000, |w| {
            w.resource::<Ended>().0.len() == 4
                && w.get::<Transform>(avatar)
                    .is_some_and(|t| t.translation.truncate().distance(from_the_garden) < 1.0)
        });
        clock.frames(&mut app, 30);
        let ended = &app.world().resource::<Ended>().0;
        let expected: Vec<(String, &str)> = [
            ("bell", "arrived"),
            ("fountain", "unreachable"),
            ("garden", "arrived"),
            ("lobby", "arrived"),
        ]
        .iter()
        .map(|(n, how)| (n.to_string(), *how))
        .collect();
        assert_eq!(ended, &expected, "{pace:?}");
    }
}
