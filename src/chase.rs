//! Chasing: walkers that follow another entity, all of them tracing one distance
//! field from it ([`WalkChase`]).

use bevy::prelude::*;

use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{NoBasis, Rooms, current_basis};
use crate::plan::grid_cache::GridKey;
use crate::request::WalkRequest;
use crate::walk::accept::accept_shared_request;
use crate::walk::end::stop_walker;
use crate::walk::job::PathJob;
use crate::walker::{WalkPath, Walker};

/// Makes a walker chase `target` (any entity with a `Transform`: the player, another
/// walker). Each time the target enters a new pixel of the chaser's mask (or the
/// chaser's usable areas change: a door opens), the chaser is sent to where the
/// target is, and every chaser sent to that pixel in that frame
/// traces one distance field filled from it ([`FieldCacheStats::shared`](crate::FieldCacheStats)
/// counts them): a horde of monsters costs one fill per step of the player, not one
/// search per monster. On a tile room with one pixel per tile, that is one fill each
/// time the target changes tile.
///
/// Each re-aim is an ordinary request (its [`PathReady`](crate::PathReady) and the
/// previous walk's [`WalkStopped`](crate::WalkStopped) as superseded). A chaser that
/// reaches the target stands until the target moves on. When the target is despawned
/// the chaser stops; remove `WalkChase` to let it go.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{PlayerWalker, WalkChase, Walker};
///
/// fn release_the_hounds(mut commands: Commands, player: Single<Entity, With<PlayerWalker>>) {
///     for i in 0..50 {
///         commands.spawn((
///             Walker::new(90.0),
///             WalkChase::new(*player),
///             Transform::from_xyz(i as f32 * 12.0, 300.0, 1.0),
///         ));
///     }
/// }
/// # bevy::ecs::system::assert_is_system(release_the_hounds);
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct WalkChase {
    /// The entity chased.
    #[entities]
    pub target: Entity,
}

impl WalkChase {
    /// Chase `target`.
    pub fn new(target: Entity) -> Self {
        Self { target }
    }
}

/// Where a chaser was last sent: the room and mask pixel of its target then (saved
/// with it: a chaser loaded back is not sent again while its target stands).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub(crate) struct ChaseAim {
    #[entities]
    target: Entity,
    #[entities]
    room: Entity,
    pixel: (u32, u32),
    /// The mask and areas the chaser planned on: a door that opens (or closes)
    /// sends it again, though the target stands. `None` in a game loaded back, where
    /// it means nothing until the chaser is next aimed.
    #[reflect(ignore)]
    key: Option<GridKey>,
}

/// A chaser as [`aim_chasers`] sees it.
type Chaser = (
    Entity,
    &'static Walker,
    &'static WalkChase,
    &'static Transform,
    Option<&'static ChildOf>,
    Option<&'static ChaseAim>,
    Has<WalkPath>,
    Has<PathJob>,
);

/// Sends chasers to their targets when the targets enter a new pixel, or the areas
/// the chasers may use change.
pub(crate) fn aim_chasers(
    mut commands: Commands,
    chasers: Query<Chaser>,
    targets: Query<(&Transform, Option<&ChildOf>)>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
) {
    for (entity, walker, chase, transform, child_of, aim, walking, planning) in &chasers {
        let Ok((target_transform, target_parent)) = targets.get(chase.target) else {
            if aim.is_some() {
                commands.entity(entity).remove::<ChaseAim>();
                commands.queue(move |world: &mut World| stop_walker(world, entity));
            }
            continue;
        };
        let position = walker_xy(transform, child_of, &parents);
        let target = walker_xy(target_transform, target_parent, &parents);
        let basis = match current_basis(walker, position, &rooms, &masks, None) {
            Ok((basis, _)) => basis,
            Err(NoBasis::Loading | NoBasis::Failed(_)) => continue,
        };
        let mapping = basis.mapping;
        let Some(pixel) = mapping.pixel_under(target) else {
            continue;
        };
        let now = ChaseAim {
            target: chase.target,
            room: basis.room,
            pixel,
            key: Some(basis.key),
        };
        if aim == Some(&now) {
            continue;
        }
        commands.entity(entity).try_insert(now);
        let same_aim = aim.is_some_and(|aim| {
            ChaseAim {
                key: now.key,
                ..*aim
            } == now
        });
        // Aimed as it was saved: only the key is new.
        if same_aim && aim.is_some_and(|aim| aim.key.is_none()) {
            continue;
        }
        // Only the areas changed: a walk or a search under way is planned again by
        // the walk lifecycle; one that stands (short of a closed door) goes again.
        if same_aim && (walking || planning) {
            continue;
        }
        let request = WalkRequest::new(entity, target);
        commands.queue(move |world: &mut World| accept_shared_request(world, request));
    }
}

/// A walker that stops chasing forgets where it last aimed, so that chasing again
/// sends it at once.
pub(crate) fn forget_aim(removed: On<Remove, WalkChase>, mut commands: Commands) {
    if let Ok(mut entity) = commands.get_entity(removed.entity) {
        entity.try_remove::<ChaseAim>();
    }
}
