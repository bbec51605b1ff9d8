//! Click to walk: a left click on a room walks the [`PlayerWalker`] walkers in that room
//! there.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::asset::WalkMask;
use crate::cutscene::Cutscene;
#[cfg(feature = "picking")]
use crate::obstacle::WalkObstacle;
#[cfg(feature = "picking")]
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::Rooms;
use crate::request::WalkRequest;
use crate::room::{RoomLookup, room_of};
use crate::walk::membership::CurrentRoom;
use crate::walker::{PlayerWalker, Walker};

/// Where clicks come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
pub enum ClickInput {
    /// Bevy picking (cargo feature `picking`, on by default): a `Pointer<Click>` with
    /// the primary button on a [`WalkRoom`](crate::WalkRoom) entity, or on a child of
    /// one, walks to where the button came up: the click's pointer position through
    /// the camera that saw the hit, on the hit's plane (Bevy gives a click the hit of
    /// the frame before the release; when the release point is off the room's mask,
    /// that hit's world position is used). UI (with Bevy's `ui_picking`) and hotspots above the room take their
    /// clicks first. A hotspot that is a child of the room passes its clicks on to the
    /// room unless its observer stops them (`click.propagate(false)`). The room needs a
    /// picking backend that hits it: with Bevy's `sprite_picking`, a `Sprite` on the
    /// room entity or a child (`WalkRoom` adds the `Pickable` the sprite backend needs
    /// to the room entity; add it to children yourself). A click on a solid
    /// [`WalkObstacle`] that is not a [`PlayerWalker`] (a guard's sprite) walks the players
    /// in the room under it to the reachable point nearest its feet; the click does not
    /// go on to its parents.
    Picking,
    /// The left mouse button and the cursor of the primary window, through the camera
    /// marked [`WalkCamera`] (or the active camera with the lowest `order` whose
    /// viewport holds the cursor). For games without picking; it does not know about
    /// UI.
    Cursor,
    /// No clicks: the game sends [`WalkRequest`]s itself.
    Off,
}

impl Default for ClickInput {
    /// [`Picking`](Self::Picking) with the `picking` feature, else
    /// [`Cursor`](Self::Cursor).
    fn default() -> Self {
        if cfg!(feature = "picking") {
            Self::Picking
        } else {
            Self::Cursor
        }
    }
}

/// Click to walk, at runtime. Clicks are also ignored while a
/// [cutscene](crate::cutscene) runs.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::ClickToWalk;
///
/// fn inventory_opens(mut clicks: ResMut<ClickToWalk>) {
///     clicks.enabled = false;
/// }
/// # bevy::ecs::system::assert_is_system(inventory_opens);
/// ```
#[derive(Resource, Clone, Copy, Debug, Reflect)]
#[reflect(Resource, Debug)]
pub struct ClickToWalk {
    /// Whether clicks move [`PlayerWalker`] walkers.
    pub enabled: bool,
    /// Where clicks come from.
    pub input: ClickInput,
    /// Press and hold: while the left button stays pressed after a press on a room
    /// (for longer than [`hold_delay`](Self::hold_delay)), the players walk toward
    /// the cursor, sent again each time it moves (default true). Needs a window and
    /// `InputPlugin`; with [`ClickInput::Picking`] the press must hit the room, as a
    /// click must.
    pub hold_to_walk: bool,
    /// Seconds the button must be held before the players follow the cursor
    /// (default 0.2): a quick click is only a click.
    pub hold_delay: f32,
}

impl ClickToWalk {
    /// Clicks from `input` (enabled unless [`ClickInput::Off`]), press and hold on.
    ///
    /// ```
    /// use bevy_walkmask::{ClickInput, ClickToWalk};
    /// let clicks = ClickToWalk::new(ClickInput::Cursor);
    /// assert!(clicks.enabled && clicks.hold_to_walk);
    /// ```
    pub fn new(input: ClickInput) -> Self {
        Self {
            enabled: input != ClickInput::Off,
            input,
            hold_to_walk: true,
            hold_delay: 0.2,
        }
    }
}

/// Whether the player's clicks count now: the one place that says so for every
/// click, press and hold system (click to walk on, no cutscene running).
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct PlayerClicks<'w> {
    settings: Res<'w, ClickToWalk>,
    cutscene: Res<'w, Cutscene>,
}

impl PlayerClicks<'_> {
    /// Whether clicks from `input` walk the players now.
    pub(crate) fn count_from(&self, input: ClickInput) -> bool {
        self.count() && self.settings.input == input
    }

    /// Whether clicks walk the players now, wherever they come from.
    pub(crate) fn count(&self) -> bool {
        self.settings.enabled && !self.cutscene.is_running()
    }

    /// The settings.
    pub(crate) fn settings(&self) -> &ClickToWalk {
        &self.settings
    }
}

/// A press on a room that may become a hold (see [`ClickToWalk::hold_to_walk`]).
#[derive(Resource, Default, Debug)]
pub(crate) struct HeldPress {
    /// The room pressed and when (elapsed seconds), while the button is down.
    pressed: Option<(Entity, f32)>,
    /// Where the players were last sent during this hold.
    sent: Option<Vec2>,
}

/// Marker for the camera whose view is clicked with [`ClickInput::Cursor`]. Optional:
/// without it, the active camera with the lowest `order` that sees the cursor is used.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkCamera;
/// # fn setup(mut commands: Commands) {
/// commands.spawn((Camera2d, WalkCamera));
/// # }
/// ```
#[derive(Component, Reflect, Default, Clone, Copy, Debug)]
#[reflect(Component, Default, Clone, Debug)]
pub struct WalkCamera;

/// The players, with the room each is in.
pub(crate) type Players<'w, 's> =
    Query<'w, 's, (Entity, &'static CurrentRoom), (With<PlayerWalker>, With<Walker>)>;

/// The players in `room` ([`CurrentRoom`]).
pub(crate) fn players_in<'a>(
    room: Entity,
    players: &'a Players,
) -> impl Iterator<Item = Entity> + 'a {
    players
        .iter()
        .filter(move |(_, current)| current.get() == Some(room))
        .map(|(walker, _)| walker)
}

/// Sends a request to `target` for every player in `room`.
fn walk_players_in(
    room: Entity,
    target: Vec2,
    players: &Players,
    requests: &mut MessageWriter<WalkRequest>,
) {
    for walker in players_in(room, players) {
        requests.write(WalkRequest::new(walker, target));
    }
}

/// Solid obstacles that are not players, for clicks on them.
#[cfg(feature = "picking")]
type ClickableObstacles<'w, 's> = Query<
    'w,
    's,
    (
        &'static WalkObstacle,
        &'static Transform,
        Option<&'static ChildOf>,
    ),
    Without<PlayerWalker>,
>;

/// A primary-button `Pointer<Click>` on a room (or bubbling up to it from a child)
/// walks the players in that room to the hit point; one on a solid obstacle walks
/// them up to it.
#[cfg(feature = "picking")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_to_clicked_room(
    mut click: On<bevy::picking::events::Pointer<bevy::picking::events::Click>>,
    clicks: PlayerClicks,
    players: Players,
    obstacles: ClickableObstacles,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    cameras: PickingCameras,
    mut requests: MessageWriter<WalkRequest>,
) {
    if !clicks.count_from(ClickInput::Picking)
        || click.event.button != bevy::picking::pointer::PointerButton::Primary
    {
        return;
    }
    let (room, target) = if rooms.get(click.entity).is_ok() {
        let Some(hit) = click.event.hit.position.map(|p| p.truncate()) else {
            return;
        };
        // Where the button came up, when that is on this room's mask too; else the hit.
        let on_room = |at: Vec2| {
            rooms.get(click.entity).is_ok_and(|(_, room, transform)| {
                masks.get(&room.mask).is_some_and(|mask| {
                    let mapping = room.mapping(transform, mask.size());
                    mapping.is_valid() && mapping.covers(at)
                })
            })
        };
        let released = cameras.release_point(&click).filter(|&at| on_room(at));
        (click.entity, released.unwrap_or(hit))
    } else if let Ok((obstacle, transform, child_of)) = obstacles.get(click.entity)
        && obstacle.solid
    {
        click.propagate(false);
        let feet = walker_xy(transform, child_of, &parents);
        let RoomLookup::Found(room) = room_of(None, feet, rooms.iter(), &masks) else {
            return;
        };
        (room, feet)
    } else {
        return;
    };
    if !target.is_finite() {
        return;
    }
    walk_players_in(room, target, &players, &mut requests);
}

/// The cameras a picking hit names, to find where a click's button came up.
#[cfg(feature = "picking")]
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct PickingCameras<'w, 's> {
    cameras: Query<
        'w,
        's,
        (
            &'static Camera,
            &'static bevy::camera::RenderTarget,
            &'static GlobalTransform,
        ),
    >,
    primary_window: Query<'w, 's, Entity, With<PrimaryWindow>>,
}

#[cfg(feature = "picking")]
impl PickingCameras<'_, '_> {
    /// The world point where `click`'s button came up: its pointer position, through
    /// the camera of its hit, on the plane of the hit. Bevy picking gives a click the
    /// hit of the frame before the release (touch pointers hover nothing once
    /// lifted), so a pointer that moved in that frame (a tap, or a click at the end
    /// of a quick move) would walk to where it was a frame earlier. `None` when the
    /// hit has no position or camera, or the pointer is outside that camera's
    /// viewport.
    fn release_point(
        &self,
        click: &bevy::picking::events::Pointer<bevy::picking::events::Click>,
    ) -> Option<Vec2> {
        let hit = &click.event.hit;
        let on = hit.position?;
        let (camera, render_target, transform) = self.cameras.get(hit.camera).ok()?;
        let location = &click.pointer_location;
        if !location.is_in_viewport(camera, render_target, &self.primary_window) {
            return None;
        }
        let ray = camera
            .viewport_to_world(transform, location.position)
            .ok()?;
        let facing = hit
            .normal
            .and_then(|n| Dir3::new(n).ok())
            .unwrap_or(Dir3::Z);
        let along = ray.intersect_plane(on, InfinitePlane3d::new(facing))?;
        Some(ray.get_point(along).truncate()).filter(|p| p.is_finite())
    }
}

/// The world position under the cursor of the primary window, through the clicked
/// camera. `None` without a window, cursor or usable camera.
pub(crate) fn cursor_world_position(
    windows: &Query<&Window, With<PrimaryWindow>>,
    cameras: &Query<(&Camera, &GlobalTransform, Has<WalkCamera>)>,
) -> Option<Vec2> {
    let cursor = windows.single().ok()?.cursor_position()?;
    let marked = cameras.iter().any(|(_, _, marked)| marked);
    let mut candidates: Vec<_> = cameras
        .iter()
        .filter(|(camera, _, is_marked)| camera.is_active && (*is_marked || !marked))
        .collect();
    candidates.sort_by_key(|(camera, _, _)| camera.order);
    candidates.into_iter().find_map(|(camera, transform, _)| {
        let viewport = camera.logical_viewport_rect()?;
        if !viewport.contains(cursor) {
            return None;
        }
        camera
            .viewport_to_world_2d(transform, cursor)
            .ok()
            .filter(|p| p.is_finite())
    })
}

/// With [`ClickInput::Cursor`], a left click walks the players in the room under the
/// cursor there.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_to_cursor_click(
    buttons: Res<ButtonInput<MouseButton>>,
    clicks: PlayerClicks,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, Has<WalkCamera>)>,
    players: Players,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    mut requests: MessageWriter<WalkRequest>,
    mut held: ResMut<HeldPress>,
    time: Res<Time>,
) {
    if !clicks.count_from(ClickInput::Cursor) || !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let Some(target) = cursor_world_position(&windows, &cameras) else {
        return;
    };
    if let RoomLookup::Found(room) = room_of(None, target, rooms.iter(), &masks) {
        *held = HeldPress {
            pressed: Some((room, time.elapsed_secs())),
            sent: Some(target),
        };
        walk_players_in(room, target, &players, &mut requests);
    }
}

/// With [`ClickToWalk::hold_to_walk`], a primary-button press on a room starts a hold.
#[cfg(feature = "picking")]
pub(crate) fn hold_pressed_room(
    press: On<bevy::picking::events::Pointer<bevy::picking::events::Press>>,
    clicks: PlayerClicks,
    rooms: Rooms,
    mut held: ResMut<HeldPress>,
    time: Res<Time>,
) {
    if clicks.count_from(ClickInput::Picking)
        && press.event.button == bevy::picking::pointer::PointerButton::Primary
        && rooms.get(press.entity).is_ok()
    {
        // Nothing sent yet: a press walks on its release (the click) or, held, as soon
        // as the hold begins.
        *held = HeldPress {
            pressed: Some((press.entity, time.elapsed_secs())),
            sent: None,
        };
    }
}

/// Press and hold (see [`ClickToWalk::hold_to_walk`]): while the left button stays
/// down after a press on a room, the players in that room walk toward the cursor.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_while_held(
    buttons: Res<ButtonInput<MouseButton>>,
    clicks: PlayerClicks,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, Has<WalkCamera>)>,
    players: Players,
    rooms: Rooms,
    mut requests: MessageWriter<WalkRequest>,
    mut held: ResMut<HeldPress>,
    time: Res<Time>,
) {
    if !buttons.pressed(MouseButton::Left) || !clicks.count() || !clicks.settings().hold_to_walk {
        if held.pressed.is_some() {
            *held = HeldPress::default();
        }
        return;
    }
    let Some((room, since)) = held.pressed else {
        return;
    };
    if time.elapsed_secs() - since < clicks.settings().hold_delay || rooms.get(room).is_err() {
        return;
    }
    let Some(target) = cursor_world_position(&windows, &cameras) else {
        return;
    };
    // Sent again when the cursor moves: a resting cursor is walked to once.
    if held.sent.is_some_and(|sent| sent.distance(target) < 0.5) {
        return;
    }
    held.sent = Some(target);
    walk_players_in(room, target, &players, &mut requests);
}
