//! Direct walking: a direction from the keyboard or a stick moves a walker that way,
//! sliding along walls ([`walkmask::steer::slide`]) and never crossing a blocked
//! pixel.

use bevy::prelude::*;
use walkmask::obstacles::{Obstacle, ObstacleView, Obstacles};
use walkmask::snap::nearest_step_off;
use walkmask::{NavGrid, Point};

use crate::asset::WalkMask;
use crate::cutscene::{Cutscene, InCutscene};
use crate::facing::{Facing, follow_step};
use crate::obstacle::{MaskObstacleCache, ObstacleLayout, rasterise};
use crate::placement::{Parents, parent_of, set_world_xy, world_position};
use crate::plan::basis::{Rooms, current_basis};
use crate::plan::worker::Planner;
use crate::room::MaskMapping;
use crate::walk::end::steer_over_walk;
use crate::walk::job::PathJob;
use crate::walk::movement::StepFrom;
use crate::walk::speed::{SpeedFactors, speed_factor};
use crate::walk::steered::{steered_step, steering_released};
use crate::walk::timing::PlanClock;
use crate::walker::{PlayerWalker, WalkHeading, WalkPath, WalkState, Walker};

/// The direction a walker is steered in, world units (y up), from the keyboard or a
/// stick: the walker moves that way at `length * speed` (the length is capped at 1),
/// sliding along walls, while it is not zero. Steering takes over from a walk or a
/// request in progress: they end as [`Superseded`](crate::StopReason::Superseded) and
/// [`PathCancelled`](crate::PathCancelled). The walker's areas and radius apply, and
/// it slides round solid [`WalkObstacle`](crate::WalkObstacle)s as round walls (those
/// already covering it aside, so it can walk out of them).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{PlayerWalker, WalkInput};
///
/// fn keys(keys: Res<ButtonInput<KeyCode>>, mut players: Query<&mut WalkInput, With<PlayerWalker>>) {
///     for mut input in &mut players {
///         input.set_if_neq(WalkInput::from_arrow_keys(&keys));
///     }
/// }
/// # bevy::ecs::system::assert_is_system(keys);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct WalkInput(pub Vec2);

impl WalkInput {
    /// The direction the arrow keys held in `keys` point (unit length, or zero).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::WalkInput;
    ///
    /// let mut keys = ButtonInput::<KeyCode>::default();
    /// keys.press(KeyCode::ArrowUp);
    /// keys.press(KeyCode::ArrowLeft);
    /// assert!(WalkInput::from_arrow_keys(&keys).0.abs_diff_eq(Vec2::new(-1.0, 1.0).normalize(), 1e-6));
    /// ```
    pub fn from_arrow_keys(keys: &ButtonInput<KeyCode>) -> Self {
        let direction: Vec2 = [
            (KeyCode::ArrowLeft, Vec2::NEG_X),
            (KeyCode::ArrowRight, Vec2::X),
            (KeyCode::ArrowUp, Vec2::Y),
            (KeyCode::ArrowDown, Vec2::NEG_Y),
        ]
        .into_iter()
        .filter(|(key, _)| keys.pressed(*key))
        .map(|(_, step)| step)
        .sum();
        Self(direction.normalize_or_zero())
    }
}

/// A walker that steering moved in the last frame. Saved with the walker: one saved
/// in the frame its [`WalkInput`] was removed stands once loaded.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Clone, Debug, Default)]
pub(crate) struct Steered;

/// A steered walker.
type SteeredWalker = (
    Entity,
    &'static Walker,
    &'static WalkInput,
    &'static mut Transform,
    Option<&'static ChildOf>,
    &'static mut WalkHeading,
    &'static mut WalkState,
    Option<&'static mut Facing>,
    SpeedFactors,
    Has<Steered>,
    Has<WalkPath>,
    Has<PathJob>,
    Has<PlayerWalker>,
    Has<InCutscene>,
    &'static mut StepFrom,
);

/// Moves steered walkers (see [`WalkInput`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn steer_walkers(
    mut commands: Commands,
    time: Res<Time>,
    cutscene: Res<Cutscene>,
    mut walkers: Query<SteeredWalker>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    planner: Res<Planner>,
    layout: Res<ObstacleLayout>,
    mut released: Query<ReleasedWalker, (With<Steered>, Without<WalkInput>)>,
    mut seen: Local<SteerObstacles>,
    clock: Res<PlanClock>,
) {
    // Walkers whose `WalkInput` was removed while they were steered stand.
    for (entity, mut heading, mut state, walking, planning) in &mut released {
        commands.entity(entity).try_remove::<Steered>();
        steering_released(&mut heading, &mut state, walking, planning);
    }
    let dt = time.delta_secs();
    for (
        entity,
        walker,
        input,
        mut transform,
        child_of,
        mut heading,
        mut state,
        facing,
        depth,
        steered,
        walking,
        planning,
        player,
        in_scene,
        mut step_from,
    ) in &mut walkers
    {
        // A cutscene holds off the player's steering and that of its own walkers.
        let held = cutscene.is_running() && (player || in_scene);
        let push = if input.0.is_finite() && !held {
            input.0.clamp_length_max(1.0)
        } else {
            Vec2::ZERO
        };
        if push == Vec2::ZERO {
            if steered {
                commands.entity(entity).remove::<Steered>();
                steering_released(&mut heading, &mut state, walking, planning);
            }
            continue;
        }
        if walking || planning {
            commands.queue(move |world: &mut World| steer_over_walk(world, entity));
        }
        if !steered {
            commands.entity(entity).try_insert(Steered);
        }
        let parent = parent_of(child_of, &parents);
        let position = world_position(&transform, parent).truncate();
        let step = SteerStep {
            walker: (entity, walker),
            position,
            push: push * dt * speed_factor(depth),
        };
        match step.slide(&rooms, &masks, &planner, &layout, &mut seen) {
            Some(to) => {
                set_world_xy(&mut transform, parent, to);
                step_from.set(position, &clock);
                let direction = (to - position).normalize_or_zero();
                steered_step(&mut heading, &mut state, Some(direction));
                if let Some(mut facing) = facing {
                    follow_step(&mut facing, direction);
                }
            }
            // Pushed into a wall, or its grid is not built yet: it stands, and the
            // walk it had is over either way.
            None => steered_step(&mut heading, &mut state, None),
        }
    }
}

/// One frame of steering for one walker.
struct SteerStep<'a> {
    walker: (Entity, &'a Walker),
    /// World position.
    position: Vec2,
    /// The push times the frame's time and the depth's speed factor.
    push: Vec2,
}

impl SteerStep<'_> {
    /// Where the walker gets to (world), `None` when it cannot move.
    fn slide(
        &self,
        rooms: &Rooms,
        masks: &Assets<WalkMask>,
        planner: &Planner,
        layout: &ObstacleLayout,
        seen: &mut SteerObstacles,
    ) -> Option<Vec2> {
        let (entity, walker) = self.walker;
        let position = self.position;
        let (basis, mask) = current_basis(walker, position, rooms, masks, None).ok()?;
        // Built on the pool when missing; the walker moves once it is ready.
        let grid = planner.main_thread_grid(basis.key, mask.core())?;
        let mapping = basis.mapping;
        let speed = if walker.speed.is_finite() {
            walker.speed.max(0.0)
        } else {
            0.0
        };
        let wanted = position + self.push * speed;
        let mut from = mapping.world_to_mask(position);
        if grid.region_at(from).is_none() {
            // Standing on a blocked pixel: step off it first (in sight over the floor).
            let (x, y) = nearest_step_off(&grid, from)?;
            from = Point::new(x as f32 + 0.5, y as f32 + 0.5);
        }
        let to_mask = mapping.world_to_mask(wanted);
        let step = (to_mask.x - from.x, to_mask.y - from.y);
        let near = seen.near(&grid, layout, entity, basis.room, &mapping, from, step);
        // Those covering the walker are looked past, so that it can step out of them.
        let to = seen.view.look(&grid, &near, from.pixel(), |grid| {
            walkmask::steer::slide(grid, from, step)
        })?;
        let to = mapping.mask_to_world(to);
        (to.is_finite() && to != position).then_some(to)
    }
}

/// A walker whose steering input went away.
type ReleasedWalker = (
    Entity,
    &'static mut WalkHeading,
    &'static mut WalkState,
    Has<WalkPath>,
    Has<PathJob>,
);

/// What steering keeps from frame to frame: the obstacles per room in mask pixels
/// and the bits a grid is seen through them with (set and cleared round each step,
/// never a mask-sized allocation per walker).
#[derive(Default)]
pub(crate) struct SteerObstacles {
    rooms: MaskObstacleCache,
    view: ObstacleView,
    near: Vec<usize>,
}

impl SteerObstacles {
    /// The solid obstacles (but `walker`'s own) within reach of a step from `from` on
    /// `grid`, in `room`.
    #[allow(clippy::too_many_arguments)]
    fn near(
        &mut self,
        grid: &NavGrid,
        layout: &ObstacleLayout,
        walker: Entity,
        room: Entity,
        mapping: &MaskMapping,
        from: Point,
        step: (f32, f32),
    ) -> Obstacles {
        let clearance = grid.clearance();
        let reach = clearance + step.0.hypot(step.1);
        if !reach.is_finite() {
            return Obstacles::for_size(mapping.size.x, mapping.size.y, clearance);
        }
        let in_room = self.rooms.room(layout, room, mapping);
        self.near.clear();
        in_room.near_path(&[from], reach, &mut self.near);
        let near: Vec<(Entity, Obstacle)> = self
            .near
            .iter()
            .map(|&i| in_room.list[i])
            .filter(|(entity, _)| *entity != walker)
            .collect();
        rasterise(&near, mapping, clearance).0
    }
}
