//! Picking clicks for the tests (`#[path]`-included by the test files that use it,
//! under the `picking` feature).

use bevy::prelude::*;

/// Triggers a picking click with `button` on `entity`, hitting world point `at`.
pub fn click(
    app: &mut App,
    entity: Entity,
    at: Vec2,
    button: bevy::picking::pointer::PointerButton,
) {
    click_counted(app, entity, at, button, 1);
}

/// [`click`], as the `count`th click of a multiple click.
pub fn click_counted(
    app: &mut App,
    entity: Entity,
    at: Vec2,
    button: bevy::picking::pointer::PointerButton,
    count: u8,
) {
    use bevy::picking::events::{Click, Pointer};
    use bevy::picking::pointer::{Location, PointerId};
    let hit =
        bevy::picking::backend::HitData::new(Entity::PLACEHOLDER, 0.0, Some(at.extend(0.0)), None);
    let location = Location {
        target: bevy::camera::NormalizedRenderTarget::None {
            width: 1,
            height: 1,
        },
        position: Vec2::ZERO,
    };
    let event = Pointer::new(
        PointerId::Mouse,
        location,
        Click {
            button,
            hit,
            duration: std::time::Duration::from_millis(80),
            count,
        },
        entity,
    );
    app.world_mut().trigger(event);
}

/// Triggers a primary picking click on `entity` whose hit (Bevy gives a click the
/// hit of the frame before the release) is at world point `hit_at`, seen by
/// `camera`, and whose button came up over `window` (from
/// [`window_and_camera`](crate::common::window_and_camera)) at world point
/// `released_at`.
pub fn click_released(
    app: &mut App,
    entity: Entity,
    hit_at: Vec2,
    camera: Entity,
    window: Entity,
    released_at: Vec2,
) {
    use bevy::camera::RenderTarget;
    use bevy::picking::events::{Click, Pointer};
    use bevy::picking::pointer::{Location, PointerButton, PointerId};
    use bevy::window::WindowRef;
    let hit = bevy::picking::backend::HitData::new(camera, 0.0, Some(hit_at.extend(0.0)), None);
    let location = Location {
        target: RenderTarget::Window(WindowRef::Primary)
            .normalize(Some(window))
            .expect("the primary window"),
        position: Vec2::new(640.0 + released_at.x, 360.0 - released_at.y),
    };
    let event = Pointer::new(
        PointerId::Mouse,
        location,
        Click {
            button: PointerButton::Primary,
            hit,
            duration: std::time::Duration::from_millis(80),
            count: 1,
        },
        entity,
    );
    app.world_mut().trigger(event);
}
