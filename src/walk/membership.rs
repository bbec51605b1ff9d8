//! Which room each walker is in: resolved in one place, by [`follow_rooms`], and
//! read by everything that groups or places walkers by room (avoidance, tile
//! reservations, regions, edges, depth scaling).

use bevy::prelude::*;

use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::room::{RoomIndex, RoomLookup, WalkRoom};
use crate::walker::Walker;

use super::replan::Placed;

/// The room a [`Walker`] is in now, kept by the plugin (every walker has one).
///
/// [`Walker::room`] is what the game asked for; this is what it resolved to: the
/// room named there, else the only room, else the room whose mask lies under the
/// walker (the topmost by world z where masks overlap). `None` while the walker is
/// in no room (it names an entity that is not a room, or stands over no loaded
/// mask). It is brought up to date before walks are planned and again after walkers
/// move, in the frame the walker moves, changes [`Walker::room`] or a room moves or
/// loads. Walkers avoid, reserve tiles and see regions and edges only in this room.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::CurrentRoom;
///
/// fn who_is_where(walkers: Query<(Entity, &CurrentRoom)>) {
///     for (walker, room) in &walkers {
///         info!("{walker} is in {:?}", room.get());
///     }
/// }
/// # bevy::ecs::system::assert_is_system(who_is_where);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct CurrentRoom(#[entities] pub(crate) Option<Entity>);

impl CurrentRoom {
    /// The room entity, or `None` in no room.
    pub fn get(&self) -> Option<Entity> {
        self.0
    }
}

/// A walker, for [`follow_rooms`].
type MemberWalker = (
    Ref<'static, Walker>,
    Ref<'static, Transform>,
    Option<&'static ChildOf>,
    &'static mut CurrentRoom,
    Option<&'static Placed>,
);

/// A walker that is new or names another room since the system last ran.
type NewOrRenamed = Or<(Changed<Walker>, Added<CurrentRoom>)>;

/// A room added, moved or changed since the system last ran.
type ChangedRoom = (
    With<WalkRoom>,
    Or<(Changed<WalkRoom>, Changed<GlobalTransform>)>,
);

/// Brings every walker's [`CurrentRoom`] up to date: all of them when the rooms
/// changed in a way that can change a walker's room (with one room or none: a room
/// added or removed; with several: also a room moved or changed, or a mask loaded);
/// else those that are new or whose [`Walker`] changed since this system last ran,
/// and, with several rooms, those that moved.
///
/// `AFTER_MOVES`: run after the frame's moves, where every walker that moved is
/// looked up; before them, a walker that stands where the plugin left it (at
/// [`Placed`]) was looked up after that move and is not looked up again.
#[allow(clippy::too_many_arguments)]
pub(crate) fn follow_rooms<const AFTER_MOVES: bool>(
    mut walkers: ParamSet<(Query<MemberWalker>, Query<MemberWalker, NewOrRenamed>)>,
    rooms: Query<(Entity, &WalkRoom, &GlobalTransform)>,
    changed_rooms: Query<(), ChangedRoom>,
    mut removed_rooms: RemovedComponents<WalkRoom>,
    mut mask_events: MessageReader<AssetEvent<WalkMask>>,
    parents: Parents,
    masks: Res<Assets<WalkMask>>,
    mut index: Local<RoomIndex>,
) {
    let rooms_changed = !changed_rooms.is_empty()
        || removed_rooms.read().count() > 0
        || mask_events.read().count() > 0;
    // The index holds what it was built from until the rooms change.
    let same_rooms = !rooms_changed || index.rebuild(rooms.iter(), &masks);
    // With one room or none, a walker's room follows from the room it names and
    // which rooms there are: not from where it stands, the rooms' placements or masks.
    let by_position = index.len() > 1;
    let all = rooms_changed && (by_position || !same_rooms);
    if !all && !by_position {
        for (walker, transform, child_of, current, _) in &mut walkers.p1() {
            look_up(&index, walker.room, &transform, child_of, &parents, current);
        }
        return;
    }
    for (walker, transform, child_of, current, placed) in &mut walkers.p0() {
        // A new walker (its default `None` just added) is looked up too, and one
        // under a parent, which may have moved it.
        let moved = by_position
            && (child_of.is_some()
                || transform.is_changed()
                    && (AFTER_MOVES
                        || placed
                            .is_none_or(|placed| placed.0 != transform.translation.truncate())));
        if all || moved || current.is_added() || walker.is_changed() {
            look_up(&index, walker.room, &transform, child_of, &parents, current);
        }
    }
}

/// Sets a walker's [`CurrentRoom`] by the index's rule.
fn look_up(
    index: &RoomIndex,
    named: Option<Entity>,
    transform: &Transform,
    child_of: Option<&ChildOf>,
    parents: &Parents,
    mut current: Mut<CurrentRoom>,
) {
    let now = match index.room_of(named, || walker_xy(transform, child_of, parents)) {
        RoomLookup::Found(room) => Some(room),
        _ => None,
    };
    current.set_if_neq(CurrentRoom(now));
}
