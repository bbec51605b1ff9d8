//! Left clicks become walk requests for the player.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::WalkmaskSettings;
use crate::walker::{Player, WalkRequest, Walker};

/// Marker for the camera whose view is clicked. Optional: without it, the active
/// camera with the lowest `order` that sees the cursor is used.
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

/// A left click sends a [`WalkRequest`] to the clicked world point for every
/// [`Player`] walker.
pub(crate) fn click_to_walk(
    buttons: Res<ButtonInput<MouseButton>>,
    settings: Res<WalkmaskSettings>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, Has<WalkCamera>)>,
    players: Query<Entity, (With<Walker>, With<Player>)>,
    mut requests: MessageWriter<WalkRequest>,
) {
    if !settings.click_to_walk || !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let Some(target) = cursor_world_position(&windows, &cameras) else {
        return;
    };
    for walker in &players {
        requests.write(WalkRequest { walker, target });
    }
}
