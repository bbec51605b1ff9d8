//! Tile rooms (feature `tilemap`): the walk grid from a bevy_ecs_tilemap layer (walk
//! components, a texture-index table, absent and invisible tiles), tile <-> world at
//! several anchors on a moved and scaled map, walks that keep to walkable tiles, and
//! re-plans when a door tile changes.
//!
//! Headless app of `tests/common` without `TilemapPlugin` (it needs a renderer): the
//! layers and tiles are spawned as plain components.

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::tilemap::{TileLayerGeometry, TileWalk, TileWalkRoom, WalkTileLayer};
use common::{Kind, Log, add_log, deterministic, headless_app, request, run, run_until};

/// What to put at a tile: `None` for no tile, else (texture index, walk component,
/// visible).
type TileSpec = Option<(u32, Option<TileWalk>, bool)>;

/// Spawns a square layer of `size` tiles of `grid` units with `layer` settings,
/// `anchor` and `transform`; `tile(x, y)` says what each tile is. Returns the layer
/// and its tiles by position.
fn spawn_layer(
    app: &mut App,
    size: UVec2,
    grid: f32,
    layer: WalkTileLayer,
    anchor: TilemapAnchor,
    transform: Transform,
    tile: impl Fn(u32, u32) -> TileSpec,
) -> (Entity, Vec<(TilePos, Entity)>) {
    let world = app.world_mut();
    let map = world.spawn_empty().id();
    let map_size = TilemapSize {
        x: size.x,
        y: size.y,
    };
    let mut storage = TileStorage::empty(map_size);
    let mut tiles = Vec::new();
    for y in 0..size.y {
        for x in 0..size.x {
            let Some((texture, walk, visible)) = tile(x, y) else {
                continue;
            };
            let position = TilePos { x, y };
            let mut entity = world.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(map),
                texture_index: TileTextureIndex(texture),
                visible: TileVisible(visible),
                ..default()
            });
            if let Some(walk) = walk {
                entity.insert(walk);
            }
            let id = entity.id();
            world.entity_mut(map).add_child(id);
            storage.set(&position, id);
            tiles.push((position, id));
        }
    }
    world.entity_mut(map).insert((
        layer,
        storage,
        map_size,
        TilemapGridSize { x: grid, y: grid },
        TilemapTileSize { x: grid, y: grid },
        TilemapType::Square,
        anchor,
        transform,
    ));
    (map, tiles)
}

fn geometry(app: &mut App, layer: Entity) -> TileLayerGeometry {
    app.world_mut()
        .run_system_once(
            move |layers: Query<(
                &TilemapSize,
                &TilemapGridSize,
                &TilemapTileSize,
                &TilemapAnchor,
                &GlobalTransform,
            )>| {
                let (size, grid, tile, anchor, transform) = layers.get(layer).unwrap();
                TileLayerGeometry::new(size, grid, tile, anchor, transform)
            },
        )
        .unwrap()
}

fn room_of(app: &mut App, layer: Entity) -> Entity {
    let mut rooms = app.world_mut().query::<(Entity, &TileWalkRoom)>();
    rooms
        .iter(app.world())
        .find(|(_, room)| room.layer == layer)
        .map(|(entity, _)| entity)
        .expect("the layer has a walk room")
}

/// The area the room's mask has at each tile centre.
fn areas_at_tiles(app: &mut App, room: Entity, centres: Vec<Vec2>) -> Vec<Option<u8>> {
    app.world_mut()
        .run_system_once(move |query: WalkQuery| {
            let view = query.room(room).unwrap();
            centres.iter().map(|&p| view.area_at(p)).collect::<Vec<_>>()
        })
        .unwrap()
}

/// Texture 0 is floor (area 1), texture 5 wall; a `TileWalk` wins over the texture;
/// invisible and absent tiles are blocked; the mask sits exactly under the tiles of a
/// moved, scaled layer.
#[test]
fn the_grid_comes_from_walk_components_and_the_texture_table() {
    let mut app = headless_app(deterministic());
    let (layer, _) = spawn_layer(
        &mut app,
        UVec2::new(6, 4),
        16.0,
        WalkTileLayer::default()
            .with_texture(0, 1)
            .with_texture(5, 0),
        TilemapAnchor::Center,
        Transform::from_xyz(200.0, -40.0, 0.0).with_scale(Vec3::new(2.0, 1.5, 1.0)),
        |x, y| match (x, y) {
            (0, 0) => None,                                        // absent
            (1, 0) => Some((0, None, false)),                      // invisible floor
            (2, 0) => Some((5, Some(TileWalk { area: 3 }), true)), // wall texture, walk component
            (3, _) => Some((5, None, true)),                       // wall column
            (4, 1) => Some((7, None, true)),                       // not in the table: default (0)
            _ => Some((0, None, true)),
        },
    );
    run(&mut app, 2);
    let room = room_of(&mut app, layer);
    let geometry = geometry(&mut app, layer);
    let mut centres = Vec::new();
    let mut expected = Vec::new();
    for y in 0..4 {
        for x in 0..6 {
            centres.push(geometry.tile_center(TilePos { x, y }));
            expected.push(Some(match (x, y) {
                (0, 0) | (1, 0) | (3, _) | (4, 1) => 0,
                (2, 0) => 3,
                _ => 1,
            }));
        }
    }
    assert_eq!(areas_at_tiles(&mut app, room, centres), expected);
}

/// Tile <-> world agrees with bevy_ecs_tilemap's own placement at several anchors on
/// a translated, rotated and scaled layer, and the room's mask lies under the tiles.
#[test]
fn tile_and_world_agree_with_bevy_ecs_tilemap_at_every_anchor() {
    let anchors = [
        TilemapAnchor::None,
        TilemapAnchor::Center,
        TilemapAnchor::BottomLeft,
        TilemapAnchor::TopRight,
        TilemapAnchor::Custom(Vec2::new(0.25, -0.1)),
    ];
    for anchor in anchors {
        let mut app = headless_app(deterministic());
        let transform = Transform::from_xyz(-120.0, 35.0, 0.0)
            .with_rotation(Quat::from_rotation_z(0.3))
            .with_scale(Vec3::new(1.5, 2.0, 1.0));
        let (layer, _) = spawn_layer(
            &mut app,
            UVec2::new(5, 3),
            10.0,
            WalkTileLayer::default().with_default_area(1),
            anchor,
            transform,
            |x, y| {
                Some((
                    0,
                    Some(TileWalk {
                        area: (x + y * 5 + 1) as u8,
                    }),
                    true,
                ))
            },
        );
        run(&mut app, 2);
        let geometry = geometry(&mut app, layer);
        let global = GlobalTransform::from(transform);
        let (size, grid) = (
            TilemapSize { x: 5, y: 3 },
            TilemapGridSize { x: 10.0, y: 10.0 },
        );
        let mut centres = Vec::new();
        for y in 0..3 {
            for x in 0..5 {
                let pos = TilePos { x, y };
                let theirs = pos.center_in_world(
                    &size,
                    &grid,
                    &TilemapTileSize { x: 10.0, y: 10.0 },
                    &TilemapType::Square,
                    &anchor,
                );
                let theirs = global.transform_point(theirs.extend(0.0)).truncate();
                let ours = geometry.tile_center(pos);
                assert!(
                    ours.distance(theirs) < 1e-3,
                    "{anchor:?} {pos:?}: {ours} vs {theirs}"
                );
                // A point inside the tile, off its centre, maps back to it.
                let inside = global
                    .transform_point(
                        (theirs_local(&pos, &anchor) + Vec2::new(3.0, -4.0)).extend(0.0),
                    )
                    .truncate();
                assert_eq!(geometry.tile_at(inside), Some(pos), "{anchor:?}");
                centres.push(ours);
            }
        }
        assert_eq!(
            geometry.tile_at(geometry.tile_center(TilePos { x: 0, y: 0 }) - 100.0 * Vec2::ONE),
            None
        );
        let room = room_of(&mut app, layer);
        let expected: Vec<Option<u8>> = (1..=15).map(Some).collect();
        assert_eq!(
            areas_at_tiles(&mut app, room, centres),
            expected,
            "{anchor:?}"
        );
    }
}

/// Layer-local centre of a tile, from bevy_ecs_tilemap.
fn theirs_local(pos: &TilePos, anchor: &TilemapAnchor) -> Vec2 {
    pos.center_in_world(
        &TilemapSize { x: 5, y: 3 },
        &TilemapGridSize { x: 10.0, y: 10.0 },
        &TilemapTileSize { x: 10.0, y: 10.0 },
        &TilemapType::Square,
        anchor,
    )
}

/// A dungeon of 10 x 7 tiles: a wall at x = 5 with a door at (5, 5) (area 2) and a
/// gap at (5, 0). A walker walks through the door; the door shuts (its `TileWalk`
/// becomes 0) mid-walk and the walk is re-planned round by the gap, on walkable
/// tiles only.
#[test]
fn a_door_tile_that_shuts_mid_walk_replans_the_walk() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let (layer, tiles) = spawn_layer(
        &mut app,
        UVec2::new(10, 7),
        16.0,
        WalkTileLayer::default().with_texture(0, 1),
        TilemapAnchor::Center,
        Transform::default(),
        |x, y| match (x, y) {
            (5, 5) => Some((2, Some(TileWalk { area: 2 }), true)),
            (5, 0) => Some((0, None, true)),
            (5, _) => Some((9, None, true)),
            _ => Some((0, None, true)),
        },
    );
    run(&mut app, 2);
    let geometry = geometry(&mut app, layer);
    let from = geometry.tile_center(TilePos { x: 2, y: 5 });
    let to = geometry.tile_center(TilePos { x: 8, y: 5 });
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(40.0),
            Transform::from_translation(from.extend(1.0)),
        ))
        .id();
    let id = request(&mut app, walker, to);
    run(&mut app, 3);
    let ready = app.world().resource::<Log>().ready(walker);
    assert_eq!(ready.len(), 1);
    assert!(
        ready[0].1.len() <= 3,
        "straight through the door: {:?}",
        ready[0].1
    );
    let door = tiles
        .iter()
        .find(|(pos, _)| *pos == TilePos { x: 5, y: 5 })
        .unwrap()
        .1;
    app.world_mut()
        .entity_mut(door)
        .insert(TileWalk { area: 0 });
    run_until(&mut app, 2_000, |w| {
        w.resource::<Log>()
            .of(id)
            .iter()
            .any(|e| matches!(e.kind, Kind::Arrived(_)))
    });
    let replanned = app.world().resource::<Log>().replanned(walker);
    assert_eq!(replanned.len(), 1, "{replanned:?}");
    let path = &replanned[0].1;
    let walkable = |p: Vec2| geometry.tile_at(p).is_some_and(|t| t.x != 5 || t.y == 0);
    for pair in path.windows(2) {
        for i in 0..=100 {
            let p = pair[0].lerp(pair[1], i as f32 / 100.0);
            assert!(
                walkable(p),
                "{p} is on a blocked tile ({:?})",
                geometry.tile_at(p)
            );
        }
    }
    assert!(
        path.iter()
            .any(|&p| geometry.tile_at(p).is_some_and(|t| t.y <= 1)),
        "round by the gap"
    );
    assert_eq!(*path.last().unwrap(), to);
}

/// Tiles that change but stay as walkable (an animated texture, a walk component
/// with the same area) leave the mask and the walks alone: no re-plan.
#[test]
fn tile_changes_that_keep_walkability_replan_nothing() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let (layer, tiles) = spawn_layer(
        &mut app,
        UVec2::new(10, 7),
        16.0,
        WalkTileLayer::default()
            .with_texture(0, 1)
            .with_texture(1, 1),
        TilemapAnchor::Center,
        Transform::default(),
        |_, _| Some((0, None, true)),
    );
    run(&mut app, 2);
    let geometry = geometry(&mut app, layer);
    let from = geometry.tile_center(TilePos { x: 1, y: 1 });
    let to = geometry.tile_center(TilePos { x: 8, y: 5 });
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(40.0),
            Transform::from_translation(from.extend(1.0)),
        ))
        .id();
    let id = request(&mut app, walker, to);
    run(&mut app, 3);
    let room = room_of(&mut app, layer);
    let mask = app.world().get::<WalkRoom>(room).unwrap().mask.id();
    let mut frame = 0u32;
    run_until(&mut app, 2_000, |w| {
        // Every frame a tile flips between two floor textures.
        frame += 1;
        let (_, tile) = tiles[(frame as usize * 7) % tiles.len()];
        w.entity_mut(tile)
            .insert(TileTextureIndex(frame % 2))
            .insert(TileWalk { area: 1 });
        w.resource::<Log>()
            .of(id)
            .iter()
            .any(|e| matches!(e.kind, Kind::Arrived(_)))
    });
    assert!(app.world().resource::<Log>().replanned(walker).is_empty());
    assert!(
        app.world()
            .resource::<Assets<WalkMask>>()
            .get(mask)
            .is_some(),
        "the same mask"
    );
}

/// An isometric layer gets no room (and an error in the log), and nothing panics.
#[test]
fn other_map_types_get_no_room() {
    let mut app = headless_app(deterministic());
    let (layer, _) = spawn_layer(
        &mut app,
        UVec2::new(3, 3),
        16.0,
        WalkTileLayer::default().with_default_area(1),
        TilemapAnchor::Center,
        Transform::default(),
        |_, _| Some((0, None, true)),
    );
    app.world_mut()
        .entity_mut(layer)
        .insert(TilemapType::Isometric(IsoCoordSystem::Diamond));
    run(&mut app, 3);
    let mut rooms = app.world_mut().query::<&TileWalkRoom>();
    assert_eq!(rooms.iter(app.world()).count(), 0);
}

/// Twelve monsters chase the player across a tile room: one field per tile the
/// player stands on, not one search per monster; the player moving inside its tile
/// re-aims no one.
#[test]
fn one_field_serves_all_monsters() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let (layer, _) = spawn_layer(
        &mut app,
        UVec2::new(20, 12),
        16.0,
        // Texture 9 (a wall at x = 10 with a gap at the bottom) is not in the table:
        // blocked.
        WalkTileLayer::default().with_texture(0, 1),
        TilemapAnchor::Center,
        Transform::default(),
        |x, y| Some((if x == 10 && y > 2 { 9 } else { 0 }, None, true)),
    );
    run(&mut app, 2);
    let geometry = geometry(&mut app, layer);
    let player_at = geometry.tile_center(TilePos { x: 16, y: 8 });
    let player = app
        .world_mut()
        .spawn((
            Walker::new(60.0),
            PlayerWalker,
            Transform::from_translation(player_at.extend(1.0)),
        ))
        .id();
    for i in 0..12 {
        let at = geometry.tile_center(TilePos {
            x: i % 6,
            y: 2 + i / 6,
        });
        app.world_mut().spawn((
            Walker::new(50.0),
            WalkChase::new(player),
            Transform::from_translation(at.extend(1.0)),
        ));
    }
    run(&mut app, 2);
    let stats = app
        .world()
        .resource::<bevy_walkmask::WarmFieldCache>()
        .stats();
    assert_eq!((stats.fills, stats.shared), (1, 12));
    // Within the same tile: nothing new.
    app.world_mut()
        .entity_mut(player)
        .insert(Transform::from_translation(
            (player_at + Vec2::new(5.0, -3.0)).extend(1.0),
        ));
    run(&mut app, 2);
    assert_eq!(
        app.world()
            .resource::<bevy_walkmask::WarmFieldCache>()
            .stats()
            .fills,
        1
    );
    // The next tile: one more field for all twelve.
    let next = geometry.tile_center(TilePos { x: 15, y: 8 });
    app.world_mut()
        .entity_mut(player)
        .insert(Transform::from_translation(next.extend(1.0)));
    run(&mut app, 2);
    let stats = app
        .world()
        .resource::<bevy_walkmask::WarmFieldCache>()
        .stats();
    assert_eq!((stats.fills, stats.shared), (2, 24));
}

/// A walker with grid steps on a tile room moves from tile centre to tile centre of
/// walkable tiles, in the 8 directions, never cutting the corner of a wall tile, and
/// ends on the centre of the clicked tile.
#[test]
fn grid_steps_go_from_tile_centre_to_tile_centre_without_cutting_corners() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    // Walls: a diagonal staircase and a block, with gaps.
    let wall = |x: u32, y: u32| (x == y + 2 && (3..9).contains(&x)) || (x == 9 && y >= 2);
    let (layer, _) = spawn_layer(
        &mut app,
        UVec2::new(12, 10),
        16.0,
        WalkTileLayer::default().with_texture(0, 1),
        TilemapAnchor::BottomLeft,
        Transform::from_xyz(-50.0, 20.0, 0.0),
        move |x, y| Some((if wall(x, y) { 9 } else { 0 }, None, true)),
    );
    run(&mut app, 2);
    let geometry = geometry(&mut app, layer);
    let from = geometry.tile_center(TilePos { x: 1, y: 8 });
    let clicked = geometry.tile_center(TilePos { x: 11, y: 9 }) + Vec2::new(4.0, -3.0);
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(40.0).with_grid_steps(),
            Transform::from_translation(from.extend(1.0)),
        ))
        .id();
    request(&mut app, walker, clicked);
    run(&mut app, 2);
    let ready = app.world().resource::<Log>().ready(walker);
    let path = &ready[0].1;
    let tiles: Vec<TilePos> = path
        .iter()
        .map(|&p| {
            let tile = geometry.tile_at(p).expect("on the map");
            assert!(
                p.distance(geometry.tile_center(tile)) < 1e-3,
                "{p} is not a tile centre"
            );
            assert!(!wall(tile.x, tile.y), "{tile:?} is a wall");
            tile
        })
        .collect();
    assert!(tiles.len() > 3, "{tiles:?}");
    for w in tiles.windows(2) {
        let (dx, dy) = (w[1].x as i64 - w[0].x as i64, w[1].y as i64 - w[0].y as i64);
        assert!(dx == 0 || dy == 0 || dx.abs() == dy.abs(), "{w:?}");
        // Each unit step of a run: a diagonal one needs both tiles beside it open.
        let n = dx.abs().max(dy.abs());
        for i in 0..n {
            let (x, y) = (
                w[0].x as i64 + dx.signum() * i,
                w[0].y as i64 + dy.signum() * i,
            );
            let (nx, ny) = (x + dx.signum(), y + dy.signum());
            assert!(!wall(nx as u32, ny as u32));
            if dx != 0 && dy != 0 {
                assert!(
                    !wall(nx as u32, y as u32) && !wall(x as u32, ny as u32),
                    "cuts a corner at {x},{y}"
                );
            }
        }
    }
    assert_eq!(*tiles.last().unwrap(), TilePos { x: 11, y: 9 });
}

/// Removing `WalkTileLayer` despawns the layer's room: a walker walking there stops
/// (its room is gone), every request is answered, and nothing of the layer's room
/// is left.
#[test]
fn removing_the_walk_layer_removes_its_room() {
    let mut app = headless_app(deterministic());
    add_log(&mut app);
    let (layer, _) = spawn_layer(
        &mut app,
        UVec2::new(12, 6),
        16.0,
        WalkTileLayer::default().with_texture(0, 1),
        TilemapAnchor::Center,
        Transform::default(),
        |_, _| Some((0, None, true)),
    );
    run(&mut app, 2);
    let room = room_of(&mut app, layer);
    let geometry = geometry(&mut app, layer);
    let from = geometry.tile_center(TilePos { x: 0, y: 2 });
    let walker = app
        .world_mut()
        .spawn((
            Walker::new(20.0),
            Transform::from_translation(from.extend(1.0)),
        ))
        .id();
    let id = request(
        &mut app,
        walker,
        geometry.tile_center(TilePos { x: 11, y: 2 }),
    );
    run(&mut app, 3);
    assert_eq!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Walking
    );
    app.world_mut().entity_mut(layer).remove::<WalkTileLayer>();
    run(&mut app, 3);
    assert!(
        app.world().get_entity(room).is_err(),
        "the room is despawned"
    );
    let rooms = app
        .world_mut()
        .query::<&TileWalkRoom>()
        .iter(app.world())
        .count();
    assert_eq!(rooms, 0);
    let kinds = app.world().resource::<Log>().kinds(id);
    assert!(
        matches!(kinds[..], [Kind::Ready { .. }, Kind::Stopped(..)]),
        "{kinds:?}"
    );
    assert_ne!(
        *app.world().get::<WalkState>(walker).unwrap(),
        WalkState::Walking
    );
}
