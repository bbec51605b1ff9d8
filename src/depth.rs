//! Who is drawn in front: one sort rule for characters, props and walk-behinds.
//!
//! Give an entity a [`Baseline`] and the plugin sets its `Transform`'s z every frame
//! (in `PostUpdate`, before transforms propagate) so that entities with a lower
//! baseline (nearer the bottom of the screen, nearer the camera in a room drawn in
//! perspective) are drawn in front of those with a higher one. A character's
//! baseline is its feet ([`Baseline::Feet`], the default); a prop or a walk-behind has
//! a fixed one: a row of the room it stands in ([`Baseline::Row`], in room pixels, as
//! the picture is painted), or a world y ([`Baseline::At`]). Entities with equal baselines keep one order from
//! frame to frame: the one with the lower entity index (spawned first, in a world
//! that has not reused indices) behind.
//!
//! The z values are spread over [`DepthSorting::back`] to [`DepthSorting::front`] in
//! the order of the baselines, so draw the room's picture below `back` and UI or
//! effects above `front`.

use bevy::prelude::*;

use crate::asset::WalkMask;
use crate::placement::{Parents, parent_of, world_position};
use crate::room::WalkRoom;

/// Where an entity sorts among characters, props and walk-behinds: the world y of its
/// baseline. Lower baselines (nearer the bottom of the screen) are drawn in front.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
///     let room = commands
///         .spawn(WalkRoom::new(assets.load("rooms/lobby.walk.png")))
///         .id();
///     // A character: sorted by where its feet are.
///     commands.spawn((Transform::from_xyz(0.0, -40.0, 0.0), Baseline::Feet));
///     // A lamp post of the room standing on the floor at the picture's row 412:
///     // characters whose feet are above that row walk behind it, those below in
///     // front.
///     commands.spawn((
///         Sprite::from_image(assets.load("rooms/lamp.png")),
///         Transform::from_xyz(200.0, 0.0, 0.0),
///         Baseline::Row(412.0),
///         ChildOf(room),
///     ));
///     // A sign outside any room, its base at world y = -120.
///     commands.spawn((Transform::from_xyz(-300.0, 0.0, 0.0), Baseline::At(-120.0)));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub enum Baseline {
    /// The entity's own world y: a character's feet (the default).
    #[default]
    Feet,
    /// This row of the room the entity is a child of, in room pixels (y down from
    /// the top of the walk mask, one per picture pixel: see
    /// [`WalkRoom::room_pixel_to_mask`]), where the room's placement puts it below
    /// the entity. Until the room's mask has loaded (or for an entity that is not a
    /// child of a [`WalkRoom`]) it sorts at the back.
    Row(f32),
    /// This world y.
    At(f32),
    /// Not sorted: its z is left as it is.
    Off,
}

/// The z range that [`Baseline`] sorting spreads entities over.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::DepthSorting;
///
/// fn above_the_fog(mut sorting: ResMut<DepthSorting>) {
///     sorting.front = 40.0;
/// }
/// # bevy::ecs::system::assert_is_system(above_the_fog);
/// ```
#[derive(Resource, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Resource, Debug, PartialEq)]
pub struct DepthSorting {
    /// Whether entities with a [`Baseline`] are sorted (default true).
    pub enabled: bool,
    /// The z of the entity farthest back (default 1).
    pub back: f32,
    /// The z of the entity in front (default 100).
    pub front: f32,
}

impl Default for DepthSorting {
    fn default() -> Self {
        Self {
            enabled: true,
            back: 1.0,
            front: 100.0,
        }
    }
}

/// An entity as the sort reads it.
type Sorted = (
    Entity,
    &'static Baseline,
    &'static mut Transform,
    Option<&'static ChildOf>,
);

/// Sets the z of every entity with a [`Baseline`] from its place in the order of
/// baselines (see the [module](self)).
pub(crate) fn sort_by_baseline(
    settings: Res<DepthSorting>,
    mut sorted: Query<Sorted>,
    parents: Parents,
    rooms: Query<&WalkRoom>,
    masks: Res<Assets<WalkMask>>,
    mut order: Local<Vec<(f32, bool, Entity)>>,
) {
    if !settings.enabled {
        return;
    }
    order.clear();
    for (entity, baseline, transform, child_of) in &sorted {
        let parent = parent_of(child_of, &parents);
        let (y, feet) = match *baseline {
            Baseline::Feet => (world_position(transform, parent).y, true),
            Baseline::Row(row) => {
                let at = world_position(transform, parent).truncate();
                let y = child_of
                    .and_then(|child_of| {
                        let walk_room = rooms.get(child_of.parent()).ok()?;
                        let mask = masks.get(&walk_room.mask)?;
                        row_in_world(walk_room, parent?, mask.size(), row, at)
                    })
                    .unwrap_or(f32::NAN);
                (y, false)
            }
            Baseline::At(y) => (y, false),
            Baseline::Off => continue,
        };
        // A baseline that is not a number sorts at the back.
        order.push((if y.is_nan() { f32::INFINITY } else { y }, feet, entity));
    }
    // Back to front: the highest baseline first; on a tie a fixed baseline (a
    // walk-behind, a prop) behind a character's feet, as a character standing on a
    // walk-behind's baseline is in front of it; then by entity index (`Entity`'s own
    // order is not its index's).
    order.sort_unstable_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.index_u32().cmp(&b.2.index_u32()))
    });
    let n = order.len() as f32;
    for (rank, &(_, _, entity)) in order.iter().enumerate() {
        let z = settings.back + (settings.front - settings.back) * (rank as f32 + 1.0) / (n + 1.0);
        if let Ok((_, _, mut transform, child_of)) = sorted.get_mut(entity) {
            let parent = parent_of(child_of, &parents);
            let Some(local) = local_z(z, transform.translation, parent) else {
                continue;
            };
            if transform.translation.z != local {
                transform.translation.z = local;
            }
        }
    }
}

/// The world y of room pixel row `row` of `walk_room` (placed at `global`, its mask
/// `size` pixels) below the world point `at`: the same room-pixel column, so a
/// rotated room's rows slant as the room does.
fn row_in_world(
    walk_room: &WalkRoom,
    global: &GlobalTransform,
    size: UVec2,
    row: f32,
    at: Vec2,
) -> Option<f32> {
    let mapping = walk_room.mapping(global, size);
    let column = walk_room.world_to_room_pixel(&mapping, at)?.x;
    Some(
        walk_room
            .room_pixel_to_world(&mapping, Vec2::new(column, row))?
            .y,
    )
}

/// The local z that puts an entity at `translation` under `parent` at world z `z`
/// (its parent's translation, scale and any tilt taken into account); `None` when
/// the parent flattens z.
fn local_z(z: f32, translation: Vec3, parent: Option<&GlobalTransform>) -> Option<f32> {
    let Some(parent) = parent else {
        return Some(z);
    };
    let affine = parent.affine();
    let m = affine.matrix3;
    let rest = affine.translation.z + m.x_axis.z * translation.x + m.y_axis.z * translation.y;
    let local = (z - rest) / m.z_axis.z;
    local.is_finite().then_some(local)
}
