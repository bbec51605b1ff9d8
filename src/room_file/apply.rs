//! Gives entities with [`FromRoomFile`] the room their file describes, and keeps it in
//! step with the file when it changes.

use std::collections::BTreeMap;

use bevy::prelude::*;
use walkmask::room_file::{self as file, RoomFile};

use super::{FromRoomFile, RoomAsset};
use crate::facing::{FaceTarget, FacingDirection};
use crate::layers::{
    Hotspot, RoomEdges, RoomExit, SpawnPoint, UnreachablePolicy, Verb, WalkPolicy,
};
use crate::layers::{Region, WalkHotspots, WalkRegions};
use crate::room::{WalkAreas, WalkRoom};
use crate::scaling::{AreaScale, WalkScaling};

/// The room file a room was last made from (added by the plugin), to tell what a
/// changed file changes.
#[derive(Component, Clone, Debug)]
pub struct AppliedRoomFile {
    /// The asset.
    pub asset: AssetId<RoomAsset>,
    /// The file as it was applied.
    pub file: RoomFile,
}

/// A child of a room that its room file made, by what it is in the file (added by the
/// plugin): the file's changes find it by this.
#[derive(Component, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoomFilePart {
    /// The hotspot of this id (`hotspots.ids`), with its exit if it has one.
    Hotspot(u8),
    /// The spawn point of this name (`spawn_points`).
    SpawnPoint(String),
    /// The prop of this name (`props`).
    Prop(String),
}

/// The components of a room that [`apply_room_files`] reads and writes.
type RoomParts = (
    Option<&'static mut WalkRoom>,
    Option<&'static mut WalkRegions>,
    Option<&'static mut WalkScaling>,
    Option<&'static GlobalTransform>,
);

/// Applies loaded and changed room files to their rooms (in `PreUpdate`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_room_files(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<RoomAsset>>,
    server: Res<AssetServer>,
    pending: Query<(Entity, &FromRoomFile), With<crate::room::RoomPending>>,
    assets: Res<Assets<RoomAsset>>,
    rooms: Query<(Entity, &FromRoomFile, Option<&AppliedRoomFile>)>,
    mut parts: Query<RoomParts>,
    made: Query<(Entity, &RoomFilePart, &ChildOf)>,
    hotspots: Query<&Hotspot>,
) {
    let changed: Vec<AssetId<RoomAsset>> = events
        .read()
        .filter_map(|event| match event {
            AssetEvent::Modified { id } | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    // A room whose file failed to load is no longer waited for (walkers sent into it
    // stay where they are, with a warning, as for a room that is gone).
    for (room, from) in &pending {
        if let Some(bevy::asset::LoadState::Failed(error)) = server.get_load_state(&from.0) {
            warn!("room {room} has no parts: {error}");
            commands.entity(room).remove::<crate::room::RoomPending>();
        }
    }
    for (room, from, applied) in &rooms {
        let id = from.0.id();
        let fresh = applied.is_none_or(|a| a.asset != id);
        if !fresh && !changed.contains(&id) {
            continue;
        }
        let Some(asset) = assets.get(id) else {
            continue;
        };
        let previous = applied.filter(|_| !fresh).map(|a| &a.file);
        if previous == Some(&asset.file) {
            continue;
        }
        let Ok((walk_room, regions, scaling, global)) = parts.get_mut(room) else {
            continue;
        };
        let children: BTreeMap<RoomFilePart, Entity> = made
            .iter()
            .filter(|(_, _, child_of)| child_of.parent() == room)
            .map(|(entity, part, _)| (part.clone(), entity))
            .collect();
        let world_scale = global.map_or(1.0, |g| g.scale().x.abs());
        let apply = Apply {
            asset,
            previous,
            world_scale,
        };
        apply.room(&mut commands, room, walk_room, regions, scaling);
        apply.hotspots(&mut commands, room, &children, &hotspots);
        apply.spawn_points(&mut commands, room, &children);
        #[cfg(feature = "sprites")]
        apply.props(&mut commands, room, &children);
        commands
            .entity(room)
            .insert(AppliedRoomFile {
                asset: id,
                file: asset.file.clone(),
            })
            .remove::<crate::room::RoomPending>();
    }
}

/// One room file applied to one room.
struct Apply<'a> {
    asset: &'a RoomAsset,
    /// The file as last applied, on a change.
    previous: Option<&'a RoomFile>,
    /// World units per room pixel (the room's own scale).
    world_scale: f32,
}

impl Apply<'_> {
    fn file(&self) -> &RoomFile {
        &self.asset.file
    }

    fn mask_scale(&self) -> f32 {
        self.file().walk_mask.scale.max(1) as f32
    }

    /// The room's own components.
    fn room(
        &self,
        commands: &mut Commands,
        room: Entity,
        walk_room: Option<Mut<WalkRoom>>,
        regions: Option<Mut<WalkRegions>>,
        scaling: Option<Mut<WalkScaling>>,
    ) {
        let file = self.file();
        let mut entity = commands.entity(room);
        // The walk room: made once; then the scale, and the areas whose start state
        // the file changes (the game's own switches stay).
        match (walk_room, self.previous) {
            (Some(mut walk_room), Some(previous)) => {
                if walk_room.mask != self.asset.walk_mask {
                    walk_room.mask = self.asset.walk_mask.clone();
                }
                if walk_room.scale != self.mask_scale() {
                    walk_room.scale = self.mask_scale();
                }
                for id in 1..=255u8 {
                    let (was, is) = (start_state(previous, id), start_state(file, id));
                    if was != is && walk_room.areas.contains(id) != is {
                        walk_room.set_area(id, is);
                    }
                }
            }
            _ => {
                let areas: WalkAreas = (1..=255u8).filter(|&id| start_state(file, id)).collect();
                entity.insert(
                    WalkRoom::new(self.asset.walk_mask.clone())
                        .with_scale(self.mask_scale())
                        .with_areas(areas),
                );
            }
        }
        // The areas' scaling rules; a scale map the game gave the room stays.
        let rules: Vec<(u8, AreaScale)> = file
            .areas
            .iter()
            .filter_map(|(id, area)| area.scale.map(|s| (*id, area_scale(s))))
            .collect();
        let map = match (&file.scale_map, &self.asset.scale_map) {
            (Some(map), Some(image)) => Some(crate::scaling::ScaleMap {
                image: image.clone(),
                min: map.min,
                max: map.max,
            }),
            _ => None,
        };
        let had =
            |p: &RoomFile| p.scale_map.is_some() || p.areas.values().any(|a| a.scale.is_some());
        let owns = had(file) || self.previous.is_some_and(had);
        match scaling {
            // Rules and a map the game gave the room stay until the file has its own.
            Some(mut scaling) if owns => {
                let new = WalkScaling { areas: rules, map };
                if *scaling != new {
                    *scaling = new;
                }
            }
            Some(_) => {}
            None if owns => {
                entity.insert(WalkScaling { areas: rules, map });
            }
            None => {}
        }
        match &self.asset.hotspots {
            Some(layer) => {
                entity.insert(WalkHotspots::new(layer.clone()));
            }
            None => {
                entity.remove::<WalkHotspots>();
            }
        }
        match (&self.asset.regions, &file.regions) {
            (Some(layer), Some(listed)) => {
                let made: Vec<Region> = listed
                    .ids
                    .iter()
                    .map(|(id, region)| {
                        let mut made = region_of(*id, region);
                        // A region the game switched keeps its state while the file's
                        // start state for it stays.
                        let kept = self
                            .previous
                            .and_then(|p| p.regions.as_ref())
                            .and_then(|p| {
                                (p.ids.get(id).map(|r| r.enabled) == Some(region.enabled))
                                    .then_some(())
                            });
                        if kept.is_some()
                            && let Some(current) = regions
                                .as_ref()
                                .and_then(|r| r.regions.iter().find(|r| r.id == *id))
                        {
                            made.enabled = current.enabled;
                        }
                        made
                    })
                    .collect();
                let new = WalkRegions {
                    layer: layer.clone(),
                    regions: made,
                };
                match regions {
                    Some(mut current) => {
                        if *current != new {
                            *current = new;
                        }
                    }
                    None => {
                        entity.insert(new);
                    }
                }
            }
            _ => {
                entity.remove::<WalkRegions>();
            }
        }
        #[cfg(feature = "walk_behinds")]
        match (
            &self.asset.walk_behinds,
            &file.walk_behinds,
            &self.asset.picture,
        ) {
            (Some(layer), Some(listed), Some(picture)) => {
                let mut behinds = crate::WalkBehinds::new(layer.clone(), picture.clone());
                for (id, walk_behind) in &listed.ids {
                    behinds.set_baseline(*id, walk_behind.baseline);
                }
                entity.insert(behinds);
            }
            (Some(_), _, None) => {
                warn!("a room file's walk-behinds are cut from its picture: it names none");
                entity.remove::<crate::WalkBehinds>();
            }
            _ => {
                entity.remove::<crate::WalkBehinds>();
            }
        }
        if file.edges.is_empty() {
            if self.previous.is_some_and(|p| !p.edges.is_empty()) {
                entity.remove::<RoomEdges>();
            }
        } else {
            entity.insert(RoomEdges {
                left: file.edges.left,
                right: file.edges.right,
                top: file.edges.top,
                bottom: file.edges.bottom,
            });
        }
        #[cfg(feature = "sprites")]
        if let Some(picture) = &self.asset.picture {
            let picture = picture.clone();
            entity.queue(
                move |mut entity: EntityWorldMut| match entity.get_mut::<Sprite>() {
                    Some(mut sprite) => {
                        if sprite.image != picture {
                            sprite.image = picture;
                        }
                    }
                    None => {
                        entity.insert(Sprite::from_image(picture));
                    }
                },
            );
        }
    }

    /// The hotspots: one child each, updated in place; exits on the hotspots that
    /// lead out.
    fn hotspots(
        &self,
        commands: &mut Commands,
        room: Entity,
        children: &BTreeMap<RoomFilePart, Entity>,
        current: &Query<&Hotspot>,
    ) {
        let listed = self
            .file()
            .hotspots
            .as_ref()
            .map(|l| &l.ids)
            .cloned()
            .unwrap_or_default();
        for (part, entity) in children {
            if let RoomFilePart::Hotspot(id) = part
                && !listed.contains_key(id)
            {
                commands.entity(*entity).despawn();
            }
        }
        for (id, listed) in &listed {
            let mut hotspot = Hotspot::new(*id, listed.name.clone());
            hotspot.walk_to = listed.walk_to.map(|(x, y)| Vec2::new(x, y));
            hotspot.face = listed
                .facing
                .map(|direction| FaceTarget::Direction(facing(direction)));
            hotspot.look_at = listed.look_at.map(|(x, y)| Vec2::new(x, y));
            for (verb, policy) in &listed.verbs {
                hotspot = hotspot.with_verb(Verb::new(verb.clone()), walk_policy(*policy));
            }
            hotspot.unreachable = match listed.unreachable {
                file::UnreachablePolicy::Report => UnreachablePolicy::Report,
                file::UnreachablePolicy::ActAnyway => UnreachablePolicy::ActAnyway,
                file::UnreachablePolicy::ActWithin(d) => {
                    UnreachablePolicy::ActWithin(d * self.world_scale)
                }
            };
            let exit = self
                .file()
                .exits
                .iter()
                .find(|e| e.hotspot == *id)
                .map(|e| {
                    let exit = RoomExit::new(e.to.clone(), e.spawn.clone());
                    match e.walk_off {
                        Some((x, y)) => exit.with_walk_off(Vec2::new(x, y)),
                        None => exit,
                    }
                });
            let name = Name::new(if listed.name.is_empty() {
                format!("hotspot {id}")
            } else {
                listed.name.clone()
            });
            match children.get(&RoomFilePart::Hotspot(*id)) {
                Some(&entity) => {
                    // The game's switch stays.
                    if let Ok(now) = current.get(entity) {
                        hotspot.enabled = now.enabled;
                        hotspot.arrival_radius = now.arrival_radius;
                        hotspot.cursor = now.cursor.clone();
                        if *now == hotspot {
                            // Unchanged: no change detection for it.
                            set_exit(commands, entity, exit);
                            continue;
                        }
                    }
                    commands.entity(entity).insert((hotspot, name));
                    set_exit(commands, entity, exit);
                }
                None => {
                    let mut child =
                        commands.spawn((name, hotspot, RoomFilePart::Hotspot(*id), ChildOf(room)));
                    if let Some(exit) = exit {
                        child.insert(exit);
                    }
                }
            }
        }
    }

    /// The spawn points: one child each, by name.
    fn spawn_points(
        &self,
        commands: &mut Commands,
        room: Entity,
        children: &BTreeMap<RoomFilePart, Entity>,
    ) {
        let listed = &self.file().spawn_points;
        for (part, entity) in children {
            if let RoomFilePart::SpawnPoint(name) = part
                && !listed.iter().any(|s| &s.name == name)
            {
                commands.entity(*entity).despawn();
            }
        }
        for spawn in listed {
            let mut point = SpawnPoint::new(spawn.name.clone(), Vec2::new(spawn.at.0, spawn.at.1));
            point.facing = spawn.facing.map(facing);
            match children.get(&RoomFilePart::SpawnPoint(spawn.name.clone())) {
                Some(&entity) => {
                    commands.entity(entity).insert(point);
                }
                None => {
                    commands.spawn((
                        Name::new(format!("spawn point {}", spawn.name)),
                        point,
                        RoomFilePart::SpawnPoint(spawn.name.clone()),
                        ChildOf(room),
                    ));
                }
            }
        }
    }
}

#[cfg(feature = "sprites")]
impl Apply<'_> {
    /// The props: one child sprite each, by name, at its place in the room's own
    /// space (room pixels, the picture centred on the room's origin), sorted by its
    /// baseline. The game's showing and hiding stays unless the file changes whether
    /// the prop starts shown.
    fn props(
        &self,
        commands: &mut Commands,
        room: Entity,
        children: &BTreeMap<RoomFilePart, Entity>,
    ) {
        let listed = &self.file().props;
        for (part, entity) in children {
            if let RoomFilePart::Prop(name) = part
                && !listed.iter().any(|p| &p.name == name)
            {
                commands.entity(*entity).despawn();
            }
        }
        let (w, h) = self.file().size;
        for (i, prop) in listed.iter().enumerate() {
            let Some(image) = self.asset.props.get(i).cloned() else {
                // The app has no images: nothing to draw.
                continue;
            };
            let at = Vec3::new(prop.at.0 - w as f32 / 2.0, h as f32 / 2.0 - prop.at.1, 1.0);
            // No baseline: behind every character (row 0 is the room's top).
            let baseline = crate::Baseline::Row(prop.baseline.unwrap_or(0.0));
            let shown = |visible: bool| match visible {
                true => Visibility::Inherited,
                false => Visibility::Hidden,
            };
            let was = self
                .previous
                .and_then(|p| p.props.iter().find(|p| p.name == prop.name));
            match children.get(&RoomFilePart::Prop(prop.name.clone())) {
                Some(&entity) => {
                    let visibility = was
                        .is_none_or(|was| was.visible != prop.visible)
                        .then(|| shown(prop.visible));
                    let moved =
                        was.is_none_or(|was| was.at != prop.at || was.baseline != prop.baseline);
                    commands
                        .entity(entity)
                        .queue(move |mut entity: EntityWorldMut| {
                            if let Some(mut sprite) = entity.get_mut::<Sprite>()
                                && sprite.image != image
                            {
                                sprite.image = image;
                            }
                            if moved {
                                entity.insert((Transform::from_translation(at), baseline));
                            }
                            if let Some(visibility) = visibility {
                                entity.insert(visibility);
                            }
                        });
                }
                None => {
                    commands.spawn((
                        Name::new(prop.name.clone()),
                        RoomFilePart::Prop(prop.name.clone()),
                        Sprite::from_image(image),
                        bevy::sprite::Anchor::TOP_LEFT,
                        Transform::from_translation(at),
                        baseline,
                        shown(prop.visible),
                        ChildOf(room),
                    ));
                }
            }
        }
    }
}

/// Puts `exit` on the hotspot `entity`, or takes its exit away.
fn set_exit(commands: &mut Commands, entity: Entity, exit: Option<RoomExit>) {
    commands
        .entity(entity)
        .queue(
            move |mut entity: EntityWorldMut| match (exit, entity.get::<RoomExit>()) {
                (Some(exit), Some(now)) if *now == exit => {}
                (Some(exit), _) => {
                    entity.insert(exit);
                }
                (None, Some(_)) => {
                    entity.remove::<RoomExit>();
                }
                (None, None) => {}
            },
        );
}

/// Whether area `id` is on when the room starts (areas not listed are).
fn start_state(file: &RoomFile, id: u8) -> bool {
    file.areas.get(&id).is_none_or(|a| a.enabled)
}

/// The plugin's direction of a room file's.
fn facing(direction: file::Direction) -> FacingDirection {
    match direction {
        file::Direction::Up => FacingDirection::Up,
        file::Direction::Down => FacingDirection::Down,
        file::Direction::Left => FacingDirection::Left,
        file::Direction::Right => FacingDirection::Right,
        file::Direction::UpLeft => FacingDirection::UpLeft,
        file::Direction::UpRight => FacingDirection::UpRight,
        file::Direction::DownLeft => FacingDirection::DownLeft,
        file::Direction::DownRight => FacingDirection::DownRight,
    }
}

fn walk_policy(policy: file::VerbPolicy) -> WalkPolicy {
    match policy {
        file::VerbPolicy::WalkThenAct => WalkPolicy::WalkThenAct,
        file::VerbPolicy::FaceOnly => WalkPolicy::FaceOnly,
        file::VerbPolicy::ActInPlace => WalkPolicy::ActInPlace,
    }
}

fn area_scale(scale: file::Scale) -> AreaScale {
    match scale {
        file::Scale::Fixed(s) => AreaScale::Fixed(s),
        file::Scale::Linear { top, bottom } => AreaScale::Linear { top, bottom },
    }
}

/// The plugin's region of a room file's.
fn region_of(id: u8, region: &file::Region) -> Region {
    let mut made = Region::new(id, region.name.clone());
    made.enabled = region.enabled;
    if let Some((r, g, b)) = region.tint {
        made.tint = Color::srgb(r, g, b);
    }
    if let Some(light) = region.light {
        made.light = light;
    }
    if let Some(fade) = region.fade {
        made.fade = fade;
    }
    if let Some(speed) = region.speed {
        made.speed = speed;
    }
    made.scale = region.scale.map(area_scale);
    made.blocks = region.blocking;
    made.while_inside = region.while_inside;
    made
}
