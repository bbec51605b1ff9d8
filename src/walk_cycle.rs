//! Walk cycles whose feet do not slide: the frame shown follows the distance walked,
//! not the clock ([`WalkCycle`]).

use bevy::prelude::*;

/// The frame of a walker's walk cycle, kept by the plugin from the distance the
/// walker walks, so that its feet do not slide: a walker at any speed, and at any
/// depth scale, shows the next frame each time it has walked one
/// [`stride`](Self::stride) (times its scale), as Adventure Game Studio's movement
/// linked to animation does.
///
/// Read [`frame`](Self::frame) to pick the sprite: `None` while the walker stands
/// (it moved not at all in the frame: standing, turning on the spot, or held), else
/// the cycle's frame, from 0. The stride is in the walker's own units (its
/// `Transform`'s space, before its scale): a walker scaled 0.5 by depth takes steps
/// half as long.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkCycle, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // Four walking frames, each 42 units of walk.
///     commands.spawn((Walker::new(200.0), WalkCycle::new(4, 42.0)));
/// }
///
/// fn pick_frame(mut walkers: Query<(&WalkCycle, &mut Sprite)>) {
///     for (cycle, mut sprite) in &mut walkers {
///         if let Some(atlas) = sprite.texture_atlas.as_mut() {
///             // Frame 0 of the sheet stands; 1 to 4 walk.
///             atlas.index = cycle.frame().map_or(0, |frame| 1 + usize::from(frame));
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// # bevy::ecs::system::assert_is_system(pick_frame);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct WalkCycle {
    /// Walking frames in the cycle (at least 1).
    pub frames: u16,
    /// How far the walker walks in one frame of the cycle, at scale 1 (its own
    /// units; not positive or not a number: the cycle stays at its first frame).
    pub stride: f32,
    /// The frame shown, `None` standing.
    frame: Option<u16>,
    /// How far into the cycle it has walked, at scale 1.
    walked: f32,
    /// Where the walker stood last frame (its `Transform`'s x and y).
    last: Option<Vec2>,
}

impl WalkCycle {
    /// A cycle of `frames` walking frames (at least 1), `stride` units of walk each.
    pub fn new(frames: u16, stride: f32) -> Self {
        Self {
            frames: frames.max(1),
            stride,
            frame: None,
            walked: 0.0,
            last: None,
        }
    }

    /// The frame to show: `None` standing, else the walking frame, from 0.
    pub fn frame(&self) -> Option<u16> {
        self.frame
    }

    /// The walker moved `moved` units (in its own space) at `scale`: the frame
    /// follows. Returns whether the frame changed.
    fn advance(&mut self, moved: f32, scale: f32) -> bool {
        let before = self.frame;
        if !(moved.is_finite() && moved > 0.0) {
            self.walked = 0.0;
            self.frame = None;
            return before != self.frame;
        }
        let scale = if scale.is_finite() && scale.abs() > 1e-3 {
            scale.abs()
        } else {
            1.0
        };
        let frames = self.frames.max(1);
        let frame = if self.stride.is_finite() && self.stride > 0.0 {
            let cycle = self.stride * f32::from(frames);
            self.walked = (self.walked + moved / scale) % cycle;
            ((self.walked / self.stride) as u16).min(frames - 1)
        } else {
            0
        };
        self.frame = Some(frame);
        before != self.frame
    }
}

/// Advances every walk cycle by the distance its walker moved since last frame,
/// after the frame's moves and depth scaling.
pub(crate) fn advance_walk_cycles(mut walkers: Query<(&Transform, &mut WalkCycle)>) {
    for (transform, mut cycle) in &mut walkers {
        let at = transform.translation.truncate();
        let moved = cycle.last.map_or(0.0, |last| last.distance(at));
        // Marked changed only when the frame shown changes.
        let inner = cycle.bypass_change_detection();
        let changed = inner.advance(moved, transform.scale.x);
        inner.last = Some(at);
        if changed {
            cycle.set_changed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stride_walked_shows_the_next_frame_whatever_the_steps() {
        for step in [0.5, 1.0, 3.3, 7.0] {
            for scale in [1.0, 0.5, 2.0] {
                let mut cycle = WalkCycle::new(4, 10.0);
                let mut walked = 0.0;
                for _ in 0..200 {
                    cycle.advance(step, scale);
                    walked += step / scale;
                    let expected = ((walked % 40.0) / 10.0) as u16;
                    let frame = cycle.frame().unwrap();
                    // The float sums may sit a hair either side of a border.
                    let near_border = (walked % 10.0).min(10.0 - walked % 10.0) < 1e-3;
                    assert!(
                        frame == expected || near_border,
                        "step {step}, scale {scale}: walked {walked}, frame {frame}"
                    );
                }
            }
        }
    }

    #[test]
    fn standing_shows_no_frame_and_starts_the_cycle_again() {
        let mut cycle = WalkCycle::new(4, 10.0);
        cycle.advance(25.0, 1.0);
        assert_eq!(cycle.frame(), Some(2));
        assert!(cycle.advance(0.0, 1.0));
        assert_eq!(cycle.frame(), None);
        cycle.advance(5.0, 1.0);
        assert_eq!(cycle.frame(), Some(0));
        // Bad numbers: no panic, a frame in range.
        for (moved, scale, stride) in [
            (f32::NAN, 1.0, 10.0),
            (1.0, 0.0, 10.0),
            (1.0, 1.0, f32::NAN),
            (1.0, f32::INFINITY, -2.0),
        ] {
            let mut cycle = WalkCycle::new(0, stride);
            cycle.advance(moved, scale);
            assert!(cycle.frame().is_none_or(|frame| frame < cycle.frames));
        }
    }
}
