//! # bevy_walkmask
//!
//! Pixel-accurate click-to-walk for Bevy point-and-click games, over walk-mask images
//! (the [`walkmask`] core, re-exported).
//!
//! * [`WalkMask`]: an asset loaded from `*.walk.png` files ([`WalkMaskLoader`],
//!   decoding rule in [`WalkMaskLoaderSettings`], set per file in a `.meta` file or
//!   per load).
//! * [`WalkRoom`]: places a mask in the room entity's space (centred, `scale` units
//!   per pixel, under the room's whole `GlobalTransform`) and says which areas are
//!   enabled right now.
//! * [`WalkObstacle`]: a footprint (a guard, a cart) that walkers' paths keep out of
//!   while it is solid; walkers re-plan when one moves into or out of their way.
//!   [`Walker::radius`] keeps a walker's paths that far from walls and obstacles.
//! * [`WalkScaling`] on a room and [`DepthScale`] on a walker: characters scale with
//!   depth (per area, fixed or linear between the area's top and bottom, or from a
//!   greyscale scale map), and their speed can follow.
//! * [`Walker`]: walks at a constant speed; [`PlayerWalker`] walkers follow left clicks on
//!   their room (through Bevy picking, [`ClickInput`]). Ask for a walk with a
//!   [`WalkRequest`] message or [`commands.entity(e).walk_to(p)`](WalkCommandsExt::walk_to);
//!   both give a [`RequestId`]. A request can say what to face on arrival ([`FaceTarget`]),
//!   or move the walker through given points ignoring the mask ([`WalkRoute::Anywhere`],
//!   for cutscenes).
//! * [`WalkInput`]: a direction from the keyboard or a stick walks a walker that way,
//!   sliding along walls.
//! * [`WalkChase`]: walkers that chase another entity, all tracing one distance field
//!   from it (a horde costs one fill per step of its prey).
//! * [`Facing`]: which of 4 or 8 directions a walker faces, following its movement
//!   with hysteresis, for picking its walk and stand loops.
//! * The walk lifecycle (every state, input and outcome) is drawn in [`outcome`]; its
//!   thresholds and switches are in [`WalkTuning`].
//! * Every request gets exactly one answer carrying its id: [`PathReady`],
//!   [`PathUnreachable`] or [`PathCancelled`]. Every walk that starts ends exactly
//!   once: [`Arrived`] or [`WalkStopped`]; in between, [`PathReplanned`] reports each
//!   re-plan. Each is both an [`EntityEvent`] on the walker (observe it) and a
//!   [`Message`] (read it). See [`outcome`] for the whole contract.
//! * [`WalkQuery`]: questions from game code without moving anyone (is this spot
//!   walkable, which area is it in, the nearest walkable point, how far a straight
//!   line gets, is B reachable from A, a path from A to B on the task pool).
//! * [`WalkHover`]: what a click at the pointer would do (reachable, snapped, the walk
//!   and its length), answered every frame from the player's warm field, for cursors
//!   and path previews.
//! * With the `tilemap` feature, `tilemap::WalkTileLayer` makes a bevy_ecs_tilemap
//!   tile layer a room.
//! * Paths are computed on Bevy's [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool).
//! * While a walker stands still, the distance field from where it stands is filled in
//!   the background ([`WarmFieldCache`]), so its next walk is traced in microseconds.
//!
//! ## Threads
//!
//! With Bevy's `multi_threaded` feature (part of Bevy's default features), grids,
//! fills and searches run on the async compute pool's threads; the main thread starts
//! tasks, polls them, checks the straight steps that join an answer to a walker that
//! moved meanwhile, and traces hover answers from warm fields. Two things can make it
//! wait or work more: under [`AnswerTiming::AfterFrames`], `Poll` waits for a search
//! that has not finished when its answer is due; and a change to a room's blocking
//! regions copies its mask with their pixels blocked (one pass over the mask, once per
//! change). Without it (a build without `multi_threaded`, or the
//! web), Bevy runs a pool task on the thread that spawns it, inside `spawn`: every
//! search then runs on the main thread during [`WalkmaskSystems::Plan`], and its answer
//! is applied in the same frame's [`WalkmaskSystems::Poll`]. Everything else (answers,
//! outcomes, budgets) is the same; keep masks small or warm fields off there if frame
//! time matters.
//!
//! World coordinates are Bevy 2D (y up); mask coordinates are pixels (y down).
//!
//! ## Destinations the mask cannot reach
//!
//! A destination on a blocked pixel, in an area the walker may not use, in a region it
//! cannot reach, or outside the mask (clamped to the mask's edge first) is snapped to
//! the nearest reachable pixel: [`PathReady`] with `snapped: true`, and the walk ends
//! there. With [`WalkmaskPlugin::snap_to_reachable`] off, such requests get
//! [`PathUnreachable`] instead. A NaN or infinite target, a missing room, or a mask
//! that is missing or failed to load also give [`PathUnreachable`]. A walker standing
//! on a blocked pixel steps onto the nearest walkable one at once (as Adventure
//! Game Studio does) and walks on from there.
//!
//! ## Systems
//!
//! Chained, in [`WalkmaskPlugin::schedule`] ([`Update`] by default):
//! [`WalkmaskSystems::Plan`] (changes, re-plans, requests, task spawning, warm-ups) ->
//! [`WalkmaskSystems::Poll`] (finished tasks) -> [`WalkmaskSystems::Move`] (walking).
//! [`WalkmaskSystems::Input`] (clicks without picking, the hover pointer) runs in
//! `Update`, before `Plan` when that is in `Update` too. Picking clicks arrive through
//! an observer and become requests read in `Plan`. Order your own systems against
//! these sets; write requests before `Plan` to have them start the same frame.
//!
//! ## Determinism
//!
//! With [`AnswerTiming::AfterFrames`] every answer lands a fixed number of frames
//! after its search starts, and answers do not depend on how fast the pool's threads
//! ran; run the plugin in `FixedUpdate` ([`WalkmaskPlugin::in_schedule`]) and the same
//! inputs at the same steps give the same waypoints and positions step by step
//! (replays, lockstep). [`AnswerTiming`] says exactly what is promised.
//!
//! ## Example
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_walkmask::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, WalkmaskPlugin::default()))
//!         .add_systems(Startup, setup)
//!         .add_observer(|ev: On<Arrived>| info!("arrived at {}", ev.position))
//!         .run();
//! }
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.spawn(Camera2d);
//!     commands.spawn((
//!         Sprite::from_image(assets.load("rooms/lobby.png")),
//!         WalkRoom::new(assets.load("rooms/lobby.walk.png")),
//!     ));
//!     commands.spawn((
//!         Walker::new(300.0),
//!         PlayerWalker,
//!         Sprite::from_color(Color::WHITE, Vec2::new(24.0, 64.0)),
//!         Transform::from_xyz(0.0, -200.0, 1.0),
//!     ));
//! }
//! ```
#![warn(missing_docs)]

/// Opens a tracing span named `$name` until the end of the enclosing block, with the
/// `trace` feature (nothing without it). For synchronous work on pool threads:
/// searches, grid, index and field builds, crowd solves.
macro_rules! work_span {
    ($name:literal) => {
        #[cfg(feature = "trace")]
        let _span = bevy::log::info_span!($name).entered();
    };
}

pub mod asset;
pub mod chase;
pub mod crowd;
#[cfg(feature = "debug_overlay")]
pub mod debug;
pub mod depth;
pub mod diagnostics;
pub mod facing;
pub mod hover;
mod input;
pub mod layers;
pub mod obstacle;
pub mod outcome;
mod placement;
mod plan;
pub mod query;
pub mod request;
pub mod room;
pub mod scaling;
pub mod steering;
#[cfg(feature = "tilemap")]
pub mod tilemap;
pub mod tuning;
mod walk;
pub mod walker;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::*;
pub use walkmask;

pub use asset::{WalkMask, WalkMaskLoadError, WalkMaskLoader, WalkMaskLoaderSettings};
pub use chase::WalkChase;
pub use crowd::{Avoidance, TILE_WAIT_SECONDS};
#[cfg(feature = "debug_overlay")]
pub use debug::{WalkmaskDebug, WalkmaskDebugPlugin, WalkmaskGizmos};
pub use depth::{Baseline, DepthSorting};
pub use diagnostics::WalkmaskDiagnosticsPlugin;
pub use facing::{FaceTarget, Facing, FacingDirection};
pub use hover::{HoverAnswer, HoverSource, WalkHover};
pub use input::{ClickInput, ClickToWalk, WalkCamera};
#[cfg(feature = "sprites")]
pub use layers::TintedByRegion;
#[cfg(feature = "walk_behinds")]
pub use layers::walk_behinds::{WalkBehind, WalkBehinds};
pub use layers::{
    Edge, ExitCommandsExt, RoomEdges, RoomExit, RoomExitRequested, SpawnPoint, WalkedOffEdge,
};
pub use layers::{
    Hotspot, HotspotClicks, HotspotCommandsExt, InRegion, Interacting, InteractionArrived,
    InteractionCancelled, InteractionUnreachable, LayerProblem, Region, RegionEntered,
    RegionExited, RegionTint, UnreachablePolicy, Verb, WalkHotspots, WalkPolicy, WalkRegions,
    WhileInRegion,
};
pub use obstacle::{OBSTACLE_REPLAN_SECONDS, ObstacleShape, WalkObstacle};
pub use outcome::{
    Arrived, PathCancelled, PathReady, PathReplanned, PathUnreachable, RequestEnded,
    RequestOutcome, StopReason, WalkStopped,
};
#[cfg(feature = "background_searches")]
pub use plan::background_searches;
pub use plan::{FieldCacheStats, GridCacheStats, NavGridCache, PlannerStatus, WarmFieldCache};
pub use query::{PathQueryAnswer, PathQueryId, RoomView, WalkQuery, WalkQueryError};
pub use request::{RequestId, WalkRequest, WalkRoute};
pub use room::{MaskMapping, WalkAreas, WalkRoom};
pub use scaling::{AreaScale, DepthScale, ScaleMap, WalkScaling};
pub use steering::WalkInput;
pub use tuning::{WalkTuning, WarmUpWalkers};
pub use walk::{AnswerTiming, CurrentRoom, Hurry, WalkCommandsExt, WalkStats};
pub use walker::{KeepWarm, PlayerWalker, WalkHeading, WalkPath, WalkState, Walker};

/// Everything a game usually needs: `use bevy_walkmask::prelude::*;`.
///
/// ```
/// use bevy_walkmask::prelude::*;
/// let _plugin = WalkmaskPlugin::default();
/// ```
pub mod prelude {
    #[cfg(feature = "sprites")]
    pub use crate::TintedByRegion;
    #[cfg(feature = "debug_overlay")]
    pub use crate::debug::{WalkmaskDebug, WalkmaskDebugPlugin};
    pub use crate::{
        AreaScale, Arrived, Avoidance, Baseline, ClickInput, ClickToWalk, CurrentRoom, DepthScale,
        DepthSorting, ExitCommandsExt, FaceTarget, Facing, FacingDirection, Hotspot, HotspotClicks,
        HotspotCommandsExt, Hurry, InRegion, Interacting, InteractionArrived, InteractionCancelled,
        InteractionUnreachable, PathCancelled, PathQueryAnswer, PathReady, PathReplanned,
        PathUnreachable, PlayerWalker, RegionEntered, RegionExited, RegionTint, RequestEnded,
        RequestId, RequestOutcome, RoomEdges, RoomExit, RoomExitRequested, SpawnPoint, StopReason,
        Verb, WalkAreas, WalkCamera, WalkChase, WalkCommandsExt, WalkHeading, WalkHotspots,
        WalkHover, WalkInput, WalkMask, WalkMaskLoaderSettings, WalkObstacle, WalkPath, WalkPolicy,
        WalkQuery, WalkRegions, WalkRequest, WalkRoom, WalkRoute, WalkScaling, WalkState,
        WalkStopped, WalkTuning, WalkedOffEdge, Walker, WalkmaskPlugin, WalkmaskSystems,
        WhileInRegion,
    };
    #[cfg(feature = "walk_behinds")]
    pub use crate::{WalkBehind, WalkBehinds};
}

/// The plugin: asset, loader, requests, path tasks, movement and click input.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_walkmask::{ClickInput, WalkmaskPlugin};
///
/// App::new().add_plugins((
///     DefaultPlugins,
///     WalkmaskPlugin {
///         click_input: ClickInput::Off, // the game sends its own WalkRequests
///         ..default()
///     },
/// ));
/// ```
///
/// Needs `AssetPlugin` and the task pools (`DefaultPlugins`, or `MinimalPlugins` +
/// `AssetPlugin`). Clicks need a picking backend ([`ClickInput::Picking`]) or
/// `InputPlugin`, a window and a camera ([`ClickInput::Cursor`]), and are skipped
/// without them. The debug overlay is a separate plugin, [`WalkmaskDebugPlugin`]
/// (cargo feature `debug_overlay`).
///
/// Memory is bounded by three budgets: prepared grids ([`grid_cache_bytes`](Self::grid_cache_bytes)),
/// warm fields ([`field_cache_bytes`](Self::field_cache_bytes)) and the scratch of
/// idle pathfinders ([`pathfinder_bytes`](Self::pathfinder_bytes)). Beyond them, only
/// what queries under way use at that moment is held (about 4 bytes per mask pixel
/// for each running task), and it is released when they end.
#[derive(Clone, Debug)]
pub struct WalkmaskPlugin {
    /// Where clicks that move [`PlayerWalker`] walkers come from. Default:
    /// [`ClickInput::Picking`] with the `picking` feature. Changeable at runtime
    /// through [`ClickToWalk`].
    pub click_input: ClickInput,
    /// Upper bound on the bytes of prepared grids kept for reuse ([`NavGridCache`]);
    /// a grid takes about 6.5 bytes per mask pixel with its subgoal index. Default 64 MiB.
    pub grid_cache_bytes: usize,
    /// Upper bound on the bytes of scratch kept by idle pathfinders between queries
    /// (about 4 bytes per pixel of the largest mask each searched). Default 64 MiB.
    pub pathfinder_bytes: usize,
    /// Destinations that cannot be reached snap to the nearest reachable point
    /// (default true); when false they are answered with [`PathUnreachable`].
    pub snap_to_reachable: bool,
    /// While a walker stands still, fill the distance field from its pixel on the
    /// async compute pool, so that its next request is answered by tracing that field
    /// (microseconds) instead of a search ([`WarmFieldCache`]).
    ///
    /// Default: on when the machine has more than two cores. A fill keeps one core
    /// busy for a few milliseconds (about 14 ms for 1920 x 1080); with only two cores
    /// the operating system then preempts the main thread now and then, which showed as
    /// a 4.8 ms p99 main-thread cost with 100 walkers (`examples/frame_cost.rs`)
    /// against 0.27 ms with warm fields off.
    pub warm_fields: bool,
    /// Upper bound on the bytes of distance fields kept ([`WarmFieldCache`]: warm
    /// fields, and the fields crowds sent to one place share); a field takes about 4
    /// bytes per mask pixel (about 8 MiB for 1920 x 1080), and the least recently used
    /// are dropped first. Default 256 MiB.
    pub field_cache_bytes: usize,
    /// When answers are applied: as soon as they are ready (default), or a fixed
    /// number of frames after the request for frame-exact determinism.
    pub answer_timing: AnswerTiming,
    /// Build a subgoal index ([`walkmask::subgoal`]) for each prepared grid, on the
    /// async compute pool, on masks where it pays (default true). Searches then run
    /// over the index's corners instead of filling pixels: 4 to 6 times faster on
    /// room masks, with the same path lengths. Building takes about 20 ms for a
    /// 1920 x 1080 room and 75 ms for 3840 x 2160, once per mask and area set;
    /// queries fill until it is ready.
    pub search_index: bool,
    /// Thresholds and switches of the walk lifecycle (hover answers, warm-ups, crowd
    /// sharing, re-requests), inserted as the [`WalkTuning`] resource.
    pub tuning: WalkTuning,
    /// The schedule that plans, answers and moves walkers ([`WalkmaskSystems::Plan`],
    /// [`Poll`](WalkmaskSystems::Poll) and [`Move`](WalkmaskSystems::Move)). Default
    /// [`Update`]; [`FixedUpdate`] for lockstep games and replays (see
    /// [`in_schedule`](Self::in_schedule)). Pointer input
    /// ([`WalkmaskSystems::Input`]) always runs in `Update`.
    pub schedule: InternedScheduleLabel,
}

impl WalkmaskPlugin {
    /// This plugin, planning, answering and moving walkers in `schedule`.
    ///
    /// In [`FixedUpdate`] walkers move by the fixed time step, and with
    /// [`AnswerTiming::AfterFrames`] a run is deterministic: the same requests and
    /// changes at the same steps give the same answers, waypoints and positions, step
    /// by step, whatever the machine's speed (see [`AnswerTiming`]).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::{AnswerTiming, WalkmaskPlugin};
    ///
    /// let plugin = WalkmaskPlugin {
    ///     answer_timing: AnswerTiming::AfterFrames(2),
    ///     ..default()
    /// }
    /// .in_schedule(FixedUpdate);
    /// # let _ = plugin;
    /// ```
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

impl Default for WalkmaskPlugin {
    fn default() -> Self {
        Self {
            click_input: ClickInput::default(),
            grid_cache_bytes: 64 << 20,
            pathfinder_bytes: 64 << 20,
            snap_to_reachable: true,
            warm_fields: std::thread::available_parallelism().is_ok_and(|n| n.get() > 2),
            field_cache_bytes: 256 << 20,
            answer_timing: AnswerTiming::WhenReady,
            search_index: true,
            tuning: WalkTuning::default(),
            schedule: Update.intern(),
        }
    }
}

/// The plugin's system sets, chained in this order. `Input` runs in [`Update`]; the
/// others in [`WalkmaskPlugin::schedule`] (`Update` by default).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkmaskSystems;
///
/// fn scripted_walks() {}
/// App::new().add_systems(Update, scripted_walks.before(WalkmaskSystems::Plan));
/// ```
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalkmaskSystems {
    /// Left clicks become [`WalkRequest`]s ([`ClickInput::Cursor`]).
    Input,
    /// Changes re-plan walkers; requests become jobs; path tasks are spawned;
    /// walkers standing still start warm-ups.
    Plan,
    /// Finished path tasks are applied; outcomes are sent.
    Poll,
    /// Walkers move along their paths; [`Arrived`] is sent.
    Move,
}

impl Plugin for WalkmaskPlugin {
    fn build(&self, app: &mut App) {
        let options = walkmask::PathOptions {
            snap_destination: self.snap_to_reachable,
            ..default()
        };
        let planner = plan::worker::Planner::new(
            NavGridCache::new(self.grid_cache_bytes).with_search_index(self.search_index),
            WarmFieldCache::new(self.field_cache_bytes),
            self.warm_fields,
            options,
            self.pathfinder_bytes,
        )
        .with_deterministic_answers(matches!(self.answer_timing, AnswerTiming::AfterFrames(_)));
        app.init_asset::<WalkMask>()
            .init_asset_loader::<asset::ScaleMapLoader>()
            .init_asset_loader::<asset::IdLayerLoader>()
            // Last: the loader of typed loads whose file name no loader claims.
            .init_asset_loader::<WalkMaskLoader>()
            .add_message::<WalkRequest>();
        outcome::add_messages(app);
        app.register_type::<WalkRoom>()
            .register_type::<WalkAreas>()
            .register_type::<Walker>()
            .register_type::<CurrentRoom>()
            .register_type::<WalkStats>()
            .register_type::<WalkObstacle>()
            .register_type::<Avoidance>()
            .register_type::<WalkScaling>()
            .register_type::<DepthScale>()
            .register_type::<PlayerWalker>()
            .register_type::<WalkState>()
            .register_type::<WalkHeading>()
            .register_type::<Facing>()
            .register_type::<FacingDirection>()
            .register_type::<FaceTarget>()
            .register_type::<WalkRoute>()
            .register_type::<WalkInput>()
            .register_type::<WalkChase>()
            .register_type::<WalkPath>()
            .register_type::<WalkCamera>()
            .register_type::<ClickToWalk>()
            .register_type::<RequestId>()
            .register_type::<KeepWarm>()
            .register_type::<WalkTuning>()
            .register_type::<WalkHover>()
            .register_type::<WalkRegions>()
            .register_type::<InRegion>()
            .add_message::<RegionEntered>()
            .add_message::<RegionExited>()
            .add_message::<WhileInRegion>()
            .register_type::<RegionTint>()
            .register_type::<WalkHotspots>()
            .register_type::<Hotspot>()
            .register_type::<Interacting>()
            .register_type::<HotspotClicks>()
            .init_resource::<HotspotClicks>()
            .register_type::<Baseline>()
            .register_type::<DepthSorting>()
            .init_resource::<DepthSorting>()
            .add_systems(
                PostUpdate,
                depth::sort_by_baseline.before(bevy::transform::TransformSystems::Propagate),
            )
            .register_type::<RoomEdges>()
            .register_type::<RoomExit>()
            .register_type::<SpawnPoint>()
            .add_message::<WalkedOffEdge>()
            .add_message::<RoomExitRequested>()
            .add_message::<InteractionArrived>()
            .add_message::<InteractionCancelled>()
            .add_message::<InteractionUnreachable>()
            .insert_resource(self.tuning.clone())
            .insert_resource(ClickToWalk::new(self.click_input))
            .init_resource::<input::HeldPress>()
            .insert_resource(walk::timing::AnswerTimingSetting(self.answer_timing))
            .init_resource::<obstacle::ObstacleLayout>()
            .init_resource::<query::PathQueries>()
            .init_resource::<WalkHover>()
            .init_resource::<hover::HoverWork>()
            .init_resource::<crowd::velocities::CrowdVelocities>()
            .add_message::<PathQueryAnswer>()
            .insert_resource(planner.cache.clone())
            .insert_resource(planner.fields.clone())
            .insert_resource(PlannerStatus(planner.clone()))
            .insert_resource(planner)
            .init_resource::<walk::timing::PlanClock>()
            .init_resource::<WalkStats>()
            .init_resource::<walk::stats::RequestFrames>();
        let schedule = self.schedule;
        // Runs of systems that spawn no tasks are schedules of their own, run on one
        // thread by one exclusive system: a chain of systems handed from thread to
        // thread costs more than their work on a machine with two cores. The systems
        // that start and collect pool tasks stay in `schedule`. Commands are applied
        // where a later system needs what they did: re-plan triggers, chase re-aims
        // and requests queue their changes, which are applied together before
        // searches start; answers before walkers move; steering's before the walks it
        // ended would move.
        for stage in [
            WalkmaskStage::Input,
            WalkmaskStage::Changes,
            WalkmaskStage::Move,
        ] {
            let mut stage_schedule = Schedule::new(stage);
            stage_schedule.set_executor(SingleThreadedExecutor::new());
            app.add_schedule(stage_schedule);
        }
        app.configure_sets(
            schedule,
            (WalkmaskSystems::Plan, WalkmaskSystems::Poll).chain_ignore_deferred(),
        )
        .configure_sets(
            schedule,
            WalkmaskSystems::Move
                .after(WalkmaskSystems::Plan)
                .after(WalkmaskSystems::Poll),
        )
        .add_systems(
            Update,
            run_stage(WalkmaskStage::Input).in_set(WalkmaskSystems::Input),
        )
        .add_systems(
            WalkmaskStage::Input,
            (
                (input::walk_to_cursor_click, input::walk_while_held)
                    .chain()
                    .run_if(resource_exists::<ButtonInput<MouseButton>>),
                hover::follow_cursor,
            ),
        )
        .add_systems(
            WalkmaskStage::Changes,
            (
                plan::grid_cache::next_frame,
                room::place_rooms,
                walk::membership::follow_rooms,
                layers::hotspots::cancel_disabled_interactions,
                layers::regions::block_regions,
                obstacle::gather_obstacles,
                walk::replan::forget_changed_masks,
                walk::replan::replan_changed,
                walk::obstacle_watch::replan_for_obstacles,
                chase::aim_chasers,
                walk::accept::read_requests,
            )
                .chain_ignore_deferred(),
        )
        .add_systems(
            WalkmaskStage::Move,
            (
                steering::steer_walkers,
                (
                    crowd::velocities::take_velocities,
                    crowd::tiles::reserve_tiles,
                    walk::movement::nudge_standing_walkers,
                    walk::hurry::hurry_walks,
                    walk::movement::move_walkers,
                    walk::membership::follow_rooms,
                    // Regions first: a region's scale rule applies in the frame the
                    // walker enters it.
                    layers::regions::track_regions,
                    layers::exits::track_edges,
                    scaling::follow_depth,
                    crowd::avoid::gather_crowd,
                )
                    .chain_ignore_deferred(),
            )
                .chain(),
        )
        .add_systems(
            schedule,
            (
                (
                    run_stage(WalkmaskStage::Changes),
                    walk::start::start_jobs,
                    walk::warm_up::warm_fields,
                )
                    .chain()
                    .in_set(WalkmaskSystems::Plan),
                (
                    walk::answer::poll_jobs,
                    query::poll_path_queries,
                    hover::answer_hover,
                )
                    .chain_ignore_deferred()
                    .in_set(WalkmaskSystems::Poll),
                run_stage(WalkmaskStage::Move).in_set(WalkmaskSystems::Move),
            ),
        );
        if schedule == Update.intern() {
            app.configure_sets(Update, WalkmaskSystems::Input.before(WalkmaskSystems::Plan));
        }
        require_walker_state(app);
        app.add_observer(walk::end::walker_removed)
            .add_observer(forget_removed_walker)
            .add_observer(layers::regions::region_walker_removed)
            .add_observer(walk::replan::place_new_walker)
            .add_observer(chase::forget_aim)
            .add_observer(layers::hotspots::interaction_request_ended)
            .add_observer(layers::hotspots::interaction_walker_removed)
            .add_observer(layers::hotspots::hotspot_removed)
            .add_observer(layers::exits::leave_through_exit)
            .add_observer(layers::exits::walk_off_ended);
        #[cfg(feature = "picking")]
        app.add_observer(input::walk_to_clicked_room)
            .add_observer(input::hold_pressed_room)
            .add_observer(layers::hotspots::interact_with_clicked_hotspot)
            .add_observer(layers::hotspots::keep_press_on_hotspot)
            .add_systems(
                PreUpdate,
                layers::hotspots::pick_hotspots.in_set(bevy::picking::PickingSystems::Backend),
            );
        #[cfg(feature = "sprites")]
        app.register_type::<TintedByRegion>()
            .add_systems(PostUpdate, layers::regions::tint_sprites);
        #[cfg(feature = "walk_behinds")]
        app.register_type::<layers::walk_behinds::WalkBehinds>()
            .add_systems(
                PostUpdate,
                layers::walk_behinds::cut_walk_behinds.before(depth::sort_by_baseline),
            );
        #[cfg(feature = "tilemap")]
        app.register_type::<tilemap::TileWalk>()
            .register_type::<tilemap::WalkTileLayer>()
            .register_type::<tilemap::TileWalkRoom>()
            .add_observer(tilemap::forget_tile_layer)
            .add_systems(
                WalkmaskStage::Changes,
                tilemap::sync_tile_rooms.before(room::place_rooms),
            );
    }
}

/// The plugin's own schedules, each run on one thread by [`run_stage`] (an exclusive
/// system in the [`WalkmaskSystems`] set named).
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum WalkmaskStage {
    /// All of [`WalkmaskSystems::Input`].
    Input,
    /// The start of [`WalkmaskSystems::Plan`]: changes that re-plan walkers, chase
    /// re-aims and requests, up to the system that starts searches.
    Changes,
    /// All of [`WalkmaskSystems::Move`].
    Move,
}

/// Makes every [`Walker`] carry the state that avoidance and movement keep for it
/// ([`Avoidance`], and what the crowd and the walk remember from frame to frame).
/// These are registered here rather than in `#[require]` on `Walker`, which would
/// tie the walker's definition to the modules that read walkers.
fn require_walker_state(app: &mut App) {
    let world = app.world_mut();
    let registered = [
        world.try_register_required_components::<Walker, Avoidance>(),
        world.try_register_required_components::<Walker, CurrentRoom>(),
        world.try_register_required_components::<Walker, crowd::motion::CrowdMotion>(),
        world.try_register_required_components::<Walker, walk::movement::OffPath>(),
    ];
    if registered.iter().all(Result::is_ok) {
        return;
    }
    // A walker was spawned before the plugin was added (requirements cannot be added
    // to a component that is in use): the state is inserted when a walker appears.
    warn!("a Walker was spawned before WalkmaskPlugin was added; add the plugin first");
    let walkers: Vec<Entity> = world
        .query_filtered::<Entity, With<Walker>>()
        .iter(world)
        .collect();
    for walker in walkers {
        world
            .entity_mut(walker)
            .insert_if_new(WalkerState::default());
    }
    app.add_observer(|added: On<Add, Walker>, mut commands: Commands| {
        commands
            .entity(added.entity)
            .insert_if_new(WalkerState::default());
    });
}

/// The components [`require_walker_state`] gives every walker.
type WalkerState = (
    Avoidance,
    CurrentRoom,
    crowd::motion::CrowdMotion,
    walk::movement::OffPath,
);

/// The exclusive system that runs the systems of one set, in order, on its thread.
fn run_stage(stage: WalkmaskStage) -> impl FnMut(&mut World) {
    move |world: &mut World| world.run_schedule(stage)
}

/// Drops the steering, chase and placement state of an entity that loses its
/// [`Walker`] (the walk lifecycle's own state goes in [`walk::end::walker_removed`]).
fn forget_removed_walker(removed: On<Remove, Walker>, mut commands: Commands) {
    if let Ok(mut entity) = commands.get_entity(removed.entity) {
        entity.try_remove::<(
            steering::Steered,
            chase::ChaseAim,
            walk::replan::Placed,
            InRegion,
            RegionTint,
            scaling::RegionScale,
            CurrentRoom,
        )>();
    }
}
