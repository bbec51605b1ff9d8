//! Who is drawn in front: one sort rule for characters, props and walk-behinds.
//!
//! Give an entity a [`Baseline`] and the plugin sets its `Transform`'s z every frame
//! (in `PostUpdate`, before transforms propagate) so that entities with a lower
//! baseline (nearer the bottom of the screen, nearer the camera in a room drawn in
//! perspective) are drawn in front of those with a higher one. A character's
//! baseline is its feet ([`Baseline::Feet`], the default); a prop or a walk-behind has
//! a fixed one ([`Baseline::At`]). Entities with equal baselines keep one order from
//! frame to frame: the one with the lower entity index (spawned first, in a world
//! that has not reused indices) behind.
//!
//! The z values are spread over [`DepthSorting::back`] to [`DepthSorting::front`] in
//! the order of the baselines, so draw the room's picture below `back` and UI or
//! effects above `front`.

use bevy::prelude::*;

use crate::placement::{Parents, parent_of, world_position};

/// Where an entity sorts among characters, props and walk-behinds (world y). Lower
/// baselines are drawn in front.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::Baseline;
///
/// fn spawn(mut commands: Commands) {
///     // A character: sorted by where its feet are.
///     commands.spawn((Transform::from_xyz(0.0, -40.0, 0.0), Baseline::Feet));
///     // A lamp post whose base is at y = -120: characters above that line walk
///     // behind it, characters below in front.
///     commands.spawn((Transform::from_xyz(200.0, 0.0, 0.0), Baseline::At(-120.0)));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub enum Baseline {
    /// The entity's own world y: a character's feet (the default).
    #[default]
    Feet,
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
