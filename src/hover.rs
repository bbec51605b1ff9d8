//! The hover answer: what a click at the pointer would do, known before the click
//! ([`WalkHover`]).
//!
//! While the player walks (or plans a walk, or is steered) there is no answer. While
//! it stands still, the plugin holds the distance field from where it
//! stands (warm fields, [`WalkmaskPlugin::warm_fields`](crate::WalkmaskPlugin::warm_fields)):
//! the walk to any point is traced from it in microseconds, on the main thread, each
//! time the pointer enters a new mask pixel; a walk longer than
//! [`WalkTuning::hover_trace_pixels`](crate::WalkTuning::hover_trace_pixels) (a
//! spiral, a maze) is traced on the async compute pool instead, one at a time. Without a warm field (warm fields off,
//! or its field not filled yet) the answer comes from one path query at a time on the
//! async compute pool, started once the pointer has rested on a pixel for two frames
//! (a pointer sweeping across the room starts none), and lands a frame or more
//! later; [`HoverAnswer::source`] says which.

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use bevy::window::PrimaryWindow;
use walkmask::fill::CARDINAL;
use walkmask::query::resolve_endpoints;

use crate::WalkCamera;
use crate::asset::WalkMask;
use crate::input::{ClickInput, ClickToWalk, cursor_world_position};
use crate::layers::hotspots::{HotspotClicks, HotspotLookup};
use crate::obstacle::ObstacleLayout;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::{Rooms, current_basis};
use crate::plan::grid_cache::GridKey;
use crate::plan::worker::{InFlight, PlanOutput, Planner};
use crate::room::{RoomLookup, room_of};
use crate::tuning::WalkTuning;
use crate::walk::start::walk_query;
use crate::walker::{PlayerWalker, WalkState, Walker};

/// What a click at the pointer would do for the player: read it every frame to show
/// a cursor or a path preview.
///
/// The plugin writes [`point`](Self::point) from the primary window's cursor (through
/// the camera, as clicks are) while [`follow_cursor`](Self::follow_cursor) is on and
/// a window exists; otherwise write it yourself (a gamepad cursor, a test). The
/// answer is for the first [`PlayerWalker`] walker (the lowest entity).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkHover;
///
/// fn preview(hover: Res<WalkHover>, mut gizmos: Gizmos) {
///     let Some(answer) = &hover.answer else { return };
///     if let Some(path) = &answer.path {
///         let colour = if answer.snapped { Color::srgba(1.0, 0.6, 0.2, 0.4) } else { Color::srgba(1.0, 1.0, 1.0, 0.3) };
///         gizmos.linestrip_2d(path.iter().copied(), colour);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(preview);
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug, PartialEq)]
pub struct WalkHover {
    /// The point asked about (world), `None` when the pointer is outside every room.
    pub point: Option<Vec2>,
    /// Whether the plugin writes `point` from the primary window's cursor (default
    /// true; it does nothing without a window).
    pub follow_cursor: bool,
    /// The latest answer, `None` while none is known (no point, no player, the mask
    /// loading). It may answer a point the pointer has since left: compare
    /// [`HoverAnswer::point`] with [`point`](Self::point).
    pub answer: Option<HoverAnswer>,
}

impl Default for WalkHover {
    fn default() -> Self {
        Self {
            point: None,
            follow_cursor: true,
            answer: None,
        }
    }
}

/// The answer for one hover point.
#[derive(Clone, Debug, PartialEq, Reflect)]
pub struct HoverAnswer {
    /// The walker it is for.
    pub walker: Entity,
    /// The point answered (world).
    pub point: Vec2,
    /// The walk a click there would start, from the walker's position (world); `None`
    /// when a click there gets no walk (nothing reachable, or with snapping off a
    /// point that cannot be reached).
    pub path: Option<Vec<Vec2>>,
    /// Whether the walk would end elsewhere than `point` (the point is blocked, in a
    /// closed area, cut off or outside the mask).
    pub snapped: bool,
    /// Length of the walk (world units; 0 without one).
    pub length: f32,
    /// Where the answer came from.
    pub source: HoverSource,
    /// The hotspot under the point that a primary click would act on, if any: the
    /// walk is then the one to its walk-to point (for a verb that walks there), as a
    /// click would start.
    pub hotspot: Option<Entity>,
}

impl HoverAnswer {
    /// Whether a click there walks exactly there.
    pub fn reaches_point(&self) -> bool {
        self.path.is_some() && !self.snapped
    }
}

/// Where a [`HoverAnswer`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
pub enum HoverSource {
    /// Traced from the walker's warm field: on the main thread in the frame the
    /// pointer moved when the walk is short, on the async compute pool a frame or
    /// more later when it is longer than
    /// [`WalkTuning::hover_trace_pixels`](crate::WalkTuning::hover_trace_pixels).
    WarmField,
    /// A path query on the async compute pool.
    Query,
}

/// What a hover answer depends on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HoverKey {
    walker: Entity,
    grid: GridKey,
    walker_pixel: (u32, u32),
    /// The point in mask pixels (the hotspot's walk-to point over one).
    goal: (u32, u32),
    obstacles: u64,
    /// The hotspot a click there acts on.
    hotspot: Option<Entity>,
}

/// The hover answer under way.
#[derive(Resource, Default)]
pub(crate) struct HoverWork {
    /// The key of the answer in [`WalkHover`].
    answered: Option<HoverKey>,
    /// The query on the pool, with its key, point and what its answer comes from.
    query: Option<(HoverKey, Vec2, Task<PlanOutput>, InFlight, HoverSource)>,
    /// The key without an answer, and the frames it has stayed the same.
    waiting: Option<(HoverKey, u32)>,
}

impl HoverKey {
    /// The same place: pointer pixel, walker pixel and grid, whatever the obstacles
    /// did (they move every frame while a solid character walks; a pointer resting
    /// there must still get its answer).
    fn same_place(&self, other: &HoverKey) -> bool {
        (self.walker, self.grid, self.walker_pixel, self.goal)
            == (other.walker, other.grid, other.walker_pixel, other.goal)
    }
}

/// Writes the hover point from the cursor.
pub(crate) fn follow_cursor(
    mut hover: ResMut<WalkHover>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, Has<WalkCamera>)>,
) {
    if !hover.follow_cursor || windows.is_empty() {
        return;
    }
    let point = cursor_world_position(&windows, &cameras);
    if hover.point != point {
        hover.point = point;
    }
}

/// A player as the hover answer sees it.
type HoverPlayer = (
    Entity,
    &'static Walker,
    &'static WalkState,
    &'static Transform,
    Option<&'static ChildOf>,
);

/// Answers the hover point for the player (see [`WalkHover`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn answer_hover(
    mut hover: ResMut<WalkHover>,
    mut work: ResMut<HoverWork>,
    players: Query<HoverPlayer, With<PlayerWalker>>,
    parents: Parents,
    rooms: Rooms,
    masks: Res<Assets<WalkMask>>,
    planner: Res<Planner>,
    layout: Res<ObstacleLayout>,
    tuning: Res<WalkTuning>,
    hotspots: HotspotLookup,
    clicks: Res<HotspotClicks>,
    walk_clicks: Res<ClickToWalk>,
) {
    let work = &mut *work;
    if !tuning.hover {
        work.answered = None;
        work.query = None;
        work.waiting = None;
        set_answer(&mut hover, None);
        return;
    }
    // A finished query answers its point, even if the pointer has moved on.
    if let Some((key, point, task, _, source)) = work.query.as_mut()
        && let Some(output) = check_ready(task)
    {
        let (key, point, source) = (*key, *point, *source);
        work.query = None;
        set_answer(&mut hover, answer(key, point, output, source));
        work.answered = Some(key);
    }
    let player = players.iter().min_by_key(|(entity, ..)| *entity);
    let (Some(point), Some((walker, walker_component, state, transform, child_of))) =
        (hover.point, player)
    else {
        work.answered = None;
        work.query = None;
        set_answer(&mut hover, None);
        return;
    };
    if matches!(state, WalkState::Walking | WalkState::Planning) {
        // A walker on its way enters a new pixel every frame: no answer until it stands.
        work.answered = None;
        work.query = None;
        set_answer(&mut hover, None);
        return;
    }
    let position = walker_xy(transform, child_of, &parents);
    // The click would go to the room under the point; the answer is for the walker's.
    let RoomLookup::Found(clicked_room) = room_of(None, point, rooms.iter(), &masks) else {
        work.answered = None;
        set_answer(&mut hover, None);
        return;
    };
    // A click on a hotspot walks to its walk-to point (with the primary verb).
    let (hotspot, walk_to) = clicks
        .primary
        .as_ref()
        .filter(|_| clicks.enabled && walk_clicks.input == ClickInput::Picking)
        .and_then(|verb| hotspots.click_target(clicked_room, point, verb))
        .map_or((None, None), |(hotspot, walk_to)| (Some(hotspot), walk_to));
    let target = walk_to.unwrap_or(point);
    let Ok((basis, mask)) = current_basis(walker_component, position, &rooms, &masks, None) else {
        set_answer(&mut hover, None);
        return;
    };
    let mapping = basis.mapping;
    let (Some((start, _)), Some((goal, clamped))) = (
        mapping.clamped_mask_point(position),
        mapping.clamped_mask_point(target),
    ) else {
        set_answer(&mut hover, None);
        return;
    };
    let (Some(walker_pixel), Some(goal_pixel)) = (start.pixel(), goal.pixel()) else {
        return;
    };
    let key = HoverKey {
        walker,
        grid: basis.key,
        walker_pixel,
        goal: goal_pixel,
        obstacles: layout.generation,
        hotspot,
    };
    if work.answered == Some(key) {
        return;
    }
    // Built only when it is used: a pointer sweeping without a warm field uses none.
    let query = || {
        walk_query(
            (walker, walker_component),
            &basis,
            mask,
            (start, goal, clamped),
            &layout,
        )
    };
    // Whether the pointer has rested on this place long enough for work on the pool.
    let rest_frames = tuning.hover_rest_frames;
    let rested = match &mut work.waiting {
        Some((waiting, frames)) if waiting.same_place(&key) => {
            *frames += 1;
            *frames >= rest_frames
        }
        _ => {
            work.waiting = Some((key, 1));
            rest_frames <= 1
        }
    };
    // 1. The walker's warm field: traced on this thread when the walk is short, on
    // the pool when it is long (one at a time, once the pointer rests, as queries).
    if let Some(grid) = planner.main_thread_grid(basis.key, mask.core())
        && let Some(field) = planner.fields.peek(&grid, walker_pixel)
    {
        // The walk's length on the grid, to where a click there would end.
        let walk_pixels = resolve_endpoints(field.grid(), start, goal, planner.options())
            .ok()
            .flatten()
            .and_then(|ends| field.distance(ends.end_pixel.0, ends.end_pixel.1))
            .map(|d| d / CARDINAL);
        let short = walk_pixels.is_some_and(|n| n <= tuning.hover_trace_pixels);
        if short {
            let query = query();
            if let Some(result) = planner.trace_from(&field, &query) {
                let output = planner.output(query, grid, result);
                set_answer(
                    &mut hover,
                    answer(key, point, output, HoverSource::WarmField),
                );
                work.answered = Some(key);
                work.query = None;
                return;
            }
        } else {
            if rested && work.query.is_none() {
                let query = query();
                let worker = planner.clone();
                let in_flight = InFlight::new(&planner.planning);
                let task = AsyncComputeTaskPool::get().spawn(async move {
                    crate::plan::after_the_frame().await;
                    match worker.trace_from(&field, &query) {
                        Some(result) => worker.output(query, grid, result),
                        None => worker.plan(query).await,
                    }
                });
                work.query = Some((key, point, task, in_flight, HoverSource::WarmField));
            }
            return;
        }
    }
    // 2. One query at a time on the pool, for a point the pointer rests on (a query
    // for the same place with older obstacles is answered, then asked again).
    if rested && work.query.is_none() {
        let query = query();
        let worker = planner.clone();
        let in_flight = InFlight::new(&planner.planning);
        let task = AsyncComputeTaskPool::get().spawn(async move { worker.plan(query).await });
        work.query = Some((key, point, task, in_flight, HoverSource::Query));
    }
}

/// Writes `answer` unless it is already there (no change detection otherwise).
fn set_answer(hover: &mut ResMut<WalkHover>, answer: Option<HoverAnswer>) {
    if hover.answer != answer {
        hover.answer = answer;
    }
}

/// The hover answer from a path task's output.
fn answer(
    key: HoverKey,
    point: Vec2,
    output: PlanOutput,
    source: HoverSource,
) -> Option<HoverAnswer> {
    let (path, snapped) = match output {
        PlanOutput::Path(path) => (Some(path.waypoints), path.snapped),
        PlanOutput::Unreachable => (None, true),
    };
    let length = path
        .as_deref()
        .unwrap_or(&[])
        .windows(2)
        .map(|w| w[0].distance(w[1]))
        .sum();
    Some(HoverAnswer {
        walker: key.walker,
        hotspot: key.hotspot,
        point,
        path,
        snapped,
        length,
        source,
    })
}
