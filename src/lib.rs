#![cfg_attr(docsrs, feature(doc_cfg))]
//! # bevy_walkmask
//!
//! Pixel-accurate click-to-walk pathfinding for Bevy point-and-click games. Paint
//! where characters may walk in a **walk mask** (an image the size of the room, in
//! numbered areas that game state turns on and off), click, and the avatar walks
//! there along a short, natural, any-angle path that never crosses a blocked pixel.
//! The engine-agnostic core is [`walkmask`], re-exported.
//!
//! New here? The [guide] explains everything below, one chapter per topic.
//!
//! ## What it does
//!
//! * **Walk masks** as assets: [`WalkMask`], loaded from `*.walk.png` files by
//!   [`WalkMaskLoader`] with a decode rule from [`WalkMaskLoaderSettings`] (guide:
//!   [painting](guide::painting)).
//! * **Rooms and areas**: [`WalkRoom`] places a mask in the world and says which of
//!   its areas are open; mask pixels map to world positions through [`MaskMapping`]
//!   ([coordinates](guide::coordinates), [rooms](guide::rooms)).
//! * **Walking**: [`Walker`]s walk at a constant speed; [`PlayerWalker`]s follow
//!   clicks ([`ClickInput`]). Game code asks with a [`WalkRequest`] or
//!   [`WalkCommandsExt::walk_to`], routes cutscenes with [`WalkRoute::Anywhere`],
//!   steers with [`WalkInput`], chases with [`WalkChase`], has companions follow with
//!   [`WalkFollow`], and turns walkers with [`Facing`]; a [`WalkCycle`] picks the
//!   frame of a walk cycle from the distance walked, so feet do not slide.
//!   [`WalkHover`] says what a click at the pointer would do, and
//!   [`WalkQuery`] answers questions without moving anyone
//!   ([walking](guide::walking)).
//! * **Outcomes**: every request gets exactly one answer ([`PathReady`],
//!   [`PathUnreachable`], [`PathCancelled`]), every walk ends once ([`Arrived`],
//!   [`WalkStopped`]), and every request ends once with [`RequestEnded`]; each is an
//!   entity event and a message. The contract is in [`outcome`]
//!   ([scripting](guide::scripting)).
//! * **Sequences and cutscenes**: walk, face, wait and act one step after another
//!   (`sequence`, feature `sequences`), in a [`cutscene`] that holds off the player's
//!   input and that [`CutsceneCommandsExt::skip_cutscene`] skips
//!   ([scripting](guide::scripting#sequences-of-steps)).
//! * **Hotspots**: [`WalkHotspots`] and [`Hotspot`] entities, picked by the pointer,
//!   walked to and acted on ([`InteractionArrived`]) ([rooms](guide::rooms#hotspots)).
//! * **Regions**: [`WalkRegions`] sends [`RegionEntered`] and [`RegionExited`], and
//!   slows, tints, scales or blocks walkers inside ([rooms](guide::rooms#regions)).
//! * **Exits**: [`RoomEdges`], [`RoomExit`] and [`SpawnPoint`], with
//!   [`ExitCommandsExt::enter_room`] ([rooms](guide::rooms#exits-edges-and-spawn-points)).
//! * **Walk-behinds**: [`WalkBehinds`] cuts parts of the room's picture into
//!   sprites drawn over the characters behind them
//!   ([rooms](guide::rooms#baselines-depth-and-walk-behinds)).
//! * **Baselines and depth**: [`Baseline`] and [`DepthSorting`] draw lower
//!   baselines in front ([rooms](guide::rooms#baselines-depth-and-walk-behinds)).
//! * **Scaling**: [`WalkScaling`] on a room and [`DepthScale`] on a walker scale
//!   characters with depth, per area ([`AreaScale`]) or from a [`ScaleMap`]
//!   ([rooms](guide::rooms#scaling-with-depth)).
//! * **Obstacles and avoidance**: solid [`WalkObstacle`] footprints, a clearance
//!   [`Walker::radius`], walkers that avoid each other ([`Avoidance`]) and crowds
//!   that share one distance field ([crowds](guide::crowds)).
#![cfg_attr(
    feature = "tilemap",
    doc = "* **Tile rooms**: [`tilemap::WalkTileLayer`] makes a bevy_ecs_tilemap layer a room"
)]
#![cfg_attr(
    not(feature = "tilemap"),
    doc = "* **Tile rooms**: `tilemap::WalkTileLayer` makes a bevy_ecs_tilemap layer a room"
)]
//!   (feature `tilemap`; [tilemap](guide::tilemap)).
//! * **The debug plugin**: [`WalkmaskDebugPlugin`] draws masks, layers, paths and
//!   footprints; [`WalkmaskDebug`] switches it ([rooms](guide::rooms#the-debug-overlay)).
//! * **Diagnostics**: [`WalkmaskDiagnosticsPlugin`] reports the planner to Bevy's
//!   diagnostics, [`WalkStats`] counts outcomes, and the caches ([`NavGridCache`],
//!   [`WarmFieldCache`]) have budgets ([performance](guide::performance)).
//! * **Determinism**: [`AnswerTiming::AfterFrames`] with
//!   [`WalkmaskPlugin::in_schedule`] gives the same positions step by step
//!   ([scripting](guide::scripting#determinism)).
//!
//! Paths are computed on Bevy's
//! [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool); the main thread
//! never builds grids or searches (with Bevy's `multi_threaded`; see
//! [performance](guide::performance#threads)). The plugin's systems run in
//! [`WalkmaskSystems`]. Questions the guide does not answer are in the
//! [FAQ](guide::faq).
//!
//! ## Cargo features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `debug_overlay` | yes | [`WalkmaskDebugPlugin`]: the mask tinted by area, paths and click points (gizmos and a sprite) |
//! | `picking` | yes | click to walk through Bevy picking ([`ClickInput::Picking`]); the game enables a picking backend such as `sprite_picking` |
//! | `walk_behinds` | yes | [`WalkBehinds`] (needs `sprites`) |
//! | `sprites` | yes | [`TintedByRegion`]: sprites coloured by the region their walker is in |
//! | `background_searches` | yes | [`background_searches`]: path searches below the game's own threads (no effect in the browser) |
//! | `trace` | no | tracing spans round searches, grid, index and field builds and crowd solves, and Bevy's system spans |
//! | `hot_reload` | no | masks loaded again when their files change on disk |
//! | `tilemap` | no | rooms made of bevy_ecs_tilemap tile layers (the `tilemap` module; pulls in Bevy's renderer) |
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
#![deny(missing_docs)]

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

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
pub mod cutscene;
#[cfg(feature = "debug_overlay")]
pub mod debug;
pub mod depth;
pub mod diagnostics;
pub mod facing;
pub mod follow;
pub mod guide;
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
pub mod room_file;
pub mod scaling;
#[cfg(feature = "sequences")]
pub mod sequence;
pub mod steering;
#[cfg(feature = "tilemap")]
pub mod tilemap;
pub mod tuning;
mod walk;
pub mod walk_cycle;
pub mod walker;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::*;
pub use walkmask;

pub use asset::{WalkMask, WalkMaskLoadError, WalkMaskLoader, WalkMaskLoaderSettings};
pub use chase::WalkChase;
pub use crowd::{Avoidance, TILE_WAIT_SECONDS};
pub use cutscene::{Cutscene, CutsceneCommandsExt, InCutscene};
#[cfg(feature = "debug_overlay")]
pub use debug::{RoomLint, WalkmaskDebug, WalkmaskDebugPlugin, WalkmaskGizmos};
pub use depth::{Baseline, DepthSorting};
pub use diagnostics::WalkmaskDiagnosticsPlugin;
pub use facing::{FaceTarget, Facing, FacingDirection, SectorBorders};
pub use follow::WalkFollow;
pub use hover::{HoverAnswer, HoverSource, WalkHover};
pub use input::{ClickInput, ClickToWalk, WalkCamera};
#[cfg(feature = "sprites")]
pub use layers::TintedByRegion;
#[cfg(feature = "walk_behinds")]
pub use layers::walk_behinds::{WalkBehind, WalkBehinds};
pub use layers::{
    Edge, EnteringRoom, ExitCommandsExt, LeavingBy, RoomEdges, RoomExit, RoomExitRequested,
    SpawnPoint, WalkedOffEdge,
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
pub use room::{MaskMapping, RoomPending, WalkAreas, WalkRoom};
pub use scaling::{AreaScale, DepthScale, ScaleMap, WalkScaling};
pub use steering::WalkInput;
pub use tuning::{WalkTuning, WarmUpWalkers};
pub use walk::{
    AnswerTiming, CurrentRoom, Hurry, PlannedRequest, RequestInFlight, WalkCommandsExt, WalkStats,
};
pub use walk_cycle::WalkCycle;
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
    pub use crate::room_file::{FromRoomFile, RoomFilePart};
    pub use crate::{
        AreaScale, Arrived, Avoidance, Baseline, ClickInput, ClickToWalk, CurrentRoom, Cutscene,
        CutsceneCommandsExt, DepthScale, DepthSorting, EnteringRoom, ExitCommandsExt, FaceTarget,
        Facing, FacingDirection, Hotspot, HotspotClicks, HotspotCommandsExt, Hurry, InCutscene,
        InRegion, Interacting, InteractionArrived, InteractionCancelled, InteractionUnreachable,
        PathCancelled, PathQueryAnswer, PathReady, PathReplanned, PathUnreachable, PlayerWalker,
        RegionEntered, RegionExited, RegionTint, RequestEnded, RequestId, RequestInFlight,
        RequestOutcome, RoomEdges, RoomExit, RoomExitRequested, SpawnPoint, StopReason, Verb,
        WalkAreas, WalkCamera, WalkChase, WalkCommandsExt, WalkCycle, WalkFollow, WalkHeading,
        WalkHotspots, WalkHover, WalkInput, WalkMask, WalkMaskLoaderSettings, WalkObstacle,
        WalkPath, WalkPolicy, WalkQuery, WalkRegions, WalkRequest, WalkRoom, WalkRoute,
        WalkScaling, WalkState, WalkStopped, WalkTuning, WalkedOffEdge, Walker, WalkmaskPlugin,
        WalkmaskSystems, WhileInRegion,
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
    /// How a search goes round solid walkers and obstacles that block the room's
    /// shortest path ([`walkmask::ObstacleDetours`]). Default
    /// [`ObstacleDetours::Local`](walkmask::ObstacleDetours::Local): round each one
    /// nearby, in a fraction of the time of the shortest path among them on large
    /// rooms (a walk usually within half a percent of it), so that answers among
    /// moving characters keep up; [`ObstacleDetours::Shortest`](walkmask::ObstacleDetours::Shortest)
    /// for the shortest walk whatever it costs.
    pub obstacle_detours: walkmask::ObstacleDetours,
    /// While a walker stands still, fill the distance field from its pixel on the
    /// async compute pool, so that its next request is answered by tracing that field
    /// (microseconds) instead of a search ([`WarmFieldCache`]).
    ///
    /// Default: on when the machine has more than two cores. A fill keeps one core
    /// busy for a few milliseconds (about 14 ms for 1920 x 1080); with only two cores
    /// the operating system then preempts the main thread now and then, which showed as
    /// a 4.8 ms p99 main-thread cost with 100 walkers (`crates/walkmask_bench/examples/frame_cost.rs`)
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
    /// searches sent meanwhile wait for it rather than fill the mask (on the web,
    /// where it is built in slices between frames, they fill until it is ready).
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
    /// In the browser: the address (relative to the page) of the search worker's
    /// script, `walkmask_search_worker.js`, which `web/build.sh` builds from
    /// `crates/walkmask_web_worker` next to the game. Path searches, their fills and
    /// the subgoal indexes then run in that Web Worker instead of on the page's main
    /// thread, where every pool task runs in a browser; each grid's mask is sent to it
    /// once. The answers are the same. Until the worker is up, and for good if it
    /// cannot start or fails, searches run on the main thread as without it (with a
    /// warning). Default `None`: on the main thread. Ignored outside the browser.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_walkmask::WalkmaskPlugin;
    ///
    /// let plugin = WalkmaskPlugin {
    ///     search_worker: Some("walkmask_search_worker.js".into()),
    ///     ..default()
    /// };
    /// # let _ = plugin;
    /// ```
    pub search_worker: Option<String>,
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
            obstacle_detours: walkmask::ObstacleDetours::Local,
            warm_fields: std::thread::available_parallelism().is_ok_and(|n| n.get() > 2),
            field_cache_bytes: 256 << 20,
            answer_timing: AnswerTiming::WhenReady,
            search_index: true,
            tuning: WalkTuning::default(),
            schedule: Update.intern(),
            search_worker: None,
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
            obstacle_detours: self.obstacle_detours,
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
        #[cfg(target_arch = "wasm32")]
        if let Some(url) = &self.search_worker {
            plan::search_worker::browser::start(url);
        }
        app.init_asset::<WalkMask>()
            .init_asset_loader::<asset::ScaleMapLoader>()
            .init_asset_loader::<asset::IdLayerLoader>()
            // Last: the loader of typed loads whose file name no loader claims.
            .init_asset_loader::<WalkMaskLoader>()
            .init_asset::<room_file::RoomAsset>()
            .add_systems(PreUpdate, room_file::apply_room_files)
            .add_systems(PreStartup, room_file::note_pictures)
            .add_message::<WalkRequest>();
        let pictures = room_file::Pictures::undecided();
        app.insert_resource(pictures.clone())
            .register_asset_loader(room_file::RoomFileLoader {
                pictures: pictures.clone(),
            });
        #[cfg(feature = "ags")]
        app.register_asset_loader(room_file::AgsCrmLoader {
            pictures: pictures.clone(),
        })
        .register_asset_loader(room_file::AgsFolderLoader { pictures });
        outcome::add_messages(app);
        app.register_type::<WalkRoom>()
            .register_type::<WalkAreas>()
            .register_type::<Walker>()
            .register_type::<CurrentRoom>()
            .register_type::<RequestInFlight>()
            .register_type::<walk::job::GivenRoute>()
            .register_type::<walk::hurry::Hurried>()
            .register_type::<walk::obstacle_watch::ObstacleWatch>()
            .register_type::<walk::movement::TurnClock>()
            .register_type::<walk::job::SavedPlanBasis>()
            .register_type::<walk::replan::Placed>()
            .register_type::<walk::job::WalkOnHold>()
            .register_type::<walk::movement::OffPath>()
            .register_type::<crowd::motion::CrowdMotion>()
            .register_type::<follow::FollowState>()
            .register_type::<chase::ChaseAim>()
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
            .register_type::<steering::Steered>()
            .register_type::<WalkChase>()
            .register_type::<WalkFollow>()
            .register_type::<WalkCycle>()
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
            .register_type::<LeavingBy>()
            .register_type::<SpawnPoint>()
            .register_type::<EnteringRoom>()
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
        // Each set's systems are a schedule of their own, run on one thread by one
        // exclusive system: a chain of systems handed from thread to thread costs
        // more than their work on a machine with two cores (searches run on the pool
        // whichever thread starts them). Commands are applied
        // where a later system needs what they did: re-plan triggers, chase re-aims
        // and requests queue their changes, which are applied together before
        // searches start; answers before walkers move; steering's before the walks it
        // ended would move.
        for stage in [
            WalkmaskStage::Input,
            WalkmaskStage::Changes,
            WalkmaskStage::Poll,
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
                (
                    walk::saved::take_up_loaded,
                    room::place_rooms,
                    layers::exits::enter_loaded_rooms.run_if(any_with_component::<EnteringRoom>),
                    walk::membership::follow_rooms::<false>,
                    layers::hotspots::cancel_disabled_interactions
                        .run_if(any_with_component::<Interacting>),
                    layers::regions::block_regions,
                    obstacle::gather_obstacles,
                    walk::replan::forget_changed_masks,
                    walk::replan::replan_changed,
                    walk::obstacle_watch::replan_for_obstacles,
                    chase::aim_chasers,
                    follow::follow_leaders.run_if(any_with_component::<WalkFollow>),
                    walk::accept::read_requests,
                )
                    .chain_ignore_deferred(),
                walk::start::start_jobs,
                walk::warm_up::warm_fields,
            )
                .chain(),
        )
        .add_systems(
            WalkmaskStage::Poll,
            (
                walk::answer::poll_jobs,
                query::poll_path_queries,
                hover::answer_hover,
                walk::saved::note_searches,
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
                    walk::hurry::hurry_walks.run_if(any_with_component::<walk::hurry::Hurried>),
                    walk::movement::move_walkers,
                    walk::separation::keep_walkers_apart,
                    walk::membership::follow_rooms::<true>,
                    // Regions first: a region's scale rule applies in the frame the
                    // walker enters it.
                    layers::regions::track_regions,
                    layers::exits::track_edges.run_if(any_with_component::<RoomEdges>),
                    scaling::follow_depth,
                    walk_cycle::advance_walk_cycles.run_if(any_with_component::<WalkCycle>),
                    crowd::avoid::gather_crowd,
                    walk::timing::end_frame,
                )
                    .chain_ignore_deferred(),
            )
                .chain(),
        )
        .add_systems(
            schedule,
            (
                run_changes.in_set(WalkmaskSystems::Plan),
                run_stage(WalkmaskStage::Poll).in_set(WalkmaskSystems::Poll),
                run_stage(WalkmaskStage::Move).in_set(WalkmaskSystems::Move),
            ),
        );
        if schedule == Update.intern() {
            app.configure_sets(Update, WalkmaskSystems::Input.before(WalkmaskSystems::Plan));
        }
        require_walker_state(app);
        app.init_resource::<Cutscene>()
            .register_type::<InCutscene>()
            .add_observer(cutscene::joined_cutscene)
            .add_observer(cutscene::left_cutscene);
        #[cfg(feature = "sequences")]
        add_sequences(app);
        app.add_observer(walk::end::walker_removed)
            .add_observer(forget_removed_walker)
            .add_observer(crowd::velocities::note_departed)
            .add_observer(layers::regions::region_walker_removed)
            .add_observer(walk::replan::place_new_walker)
            .add_observer(chase::forget_aim)
            .add_observer(follow::forget_following)
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

    fn finish(&self, app: &mut App) {
        // Every plugin is in: whether the app has images is known.
        room_file::note_pictures(app.world_mut());
    }
}

/// The plugin's own schedules, each run on one thread by [`run_stage`] (an exclusive
/// system in the [`WalkmaskSystems`] set named).
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum WalkmaskStage {
    /// All of [`WalkmaskSystems::Input`].
    Input,
    /// All of [`WalkmaskSystems::Plan`]: changes that re-plan walkers, chase re-aims
    /// and requests, then the searches they need started and fields warmed.
    Changes,
    /// All of [`WalkmaskSystems::Poll`]: answers, path queries and the hover.
    Poll,
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
        world.try_register_required_components::<Walker, RequestInFlight>(),
        world.try_register_required_components::<Walker, crowd::motion::CrowdMotion>(),
        world.try_register_required_components::<Walker, walk::movement::OffPath>(),
        world.try_register_required_components::<Walker, walk::movement::TurnClock>(),
        world.try_register_required_components::<Walker, walk::movement::StepFrom>(),
        world.try_register_required_components::<Walker, walk::job::SavedPlanBasis>(),
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

/// Walk steps in sequences: every walker is an agent of bevy-sequential-actions,
/// whose plugin is added unless the app has it already.
#[cfg(feature = "sequences")]
fn add_sequences(app: &mut App) {
    use sequence::{SequentialActions, SequentialActionsPlugin};
    if !app.is_plugin_added::<SequentialActionsPlugin>() {
        app.add_plugins(SequentialActionsPlugin);
    }
    app.add_observer(sequence::note_step_ended)
        .add_systems(Last, sequence::leave_scenes_of_finished_sequences);
    let world = app.world_mut();
    if world
        .try_register_required_components::<Walker, SequentialActions>()
        .is_err()
    {
        // A walker was spawned before the plugin (see `require_walker_state`).
        let walkers: Vec<Entity> = world
            .query_filtered::<Entity, With<Walker>>()
            .iter(world)
            .collect();
        for walker in walkers {
            world.entity_mut(walker).insert_if_new(SequentialActions);
        }
        app.add_observer(|added: On<Add, Walker>, mut commands: Commands| {
            commands
                .entity(added.entity)
                .insert_if_new(SequentialActions);
        });
    }
}

/// The components [`require_walker_state`] gives every walker.
type WalkerState = (
    Avoidance,
    CurrentRoom,
    RequestInFlight,
    crowd::motion::CrowdMotion,
    walk::movement::OffPath,
    walk::movement::TurnClock,
    walk::movement::StepFrom,
    walk::job::SavedPlanBasis,
);

/// The exclusive system that runs the systems of one set, in order, on its thread.
fn run_stage(stage: WalkmaskStage) -> impl FnMut(&mut World) {
    move |world: &mut World| world.run_schedule(stage)
}

/// Starts the grid cache's next frame, then runs [`WalkmaskStage::Changes`] (all of
/// [`WalkmaskSystems::Plan`]).
fn run_changes(world: &mut World) {
    world.resource::<plan::worker::Planner>().cache.next_frame();
    world.run_schedule(WalkmaskStage::Changes);
}

/// Drops the steering, chase, placement and cutscene state of an entity that loses its
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
            EnteringRoom,
            // Only walkers take part in cutscenes: a stripped one would hold off the
            // player's input for good.
            InCutscene,
        )>();
    }
}
