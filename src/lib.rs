//! # bevy_walkmask
//!
//! Pixel-accurate click-to-walk for Bevy point-and-click games, over walk-mask images
//! (the [`walkmask`] core, re-exported).
//!
//! * [`WalkMask`]: an asset loaded from `*.walk.png` files ([`WalkMaskLoader`],
//!   decoding rule in [`WalkMaskSettings`], set per file in a `.meta` file or per load).
//! * [`WalkRoom`]: places a mask in the world (centred on the room entity, `scale`
//!   world units per pixel) and says which areas are enabled right now.
//! * [`Walker`]: walks at a constant speed; [`Player`] walkers follow left clicks.
//!   Ask for a walk with a [`WalkRequest`] message or
//!   [`commands.entity(e).walk_to(p)`](WalkCommandsExt::walk_to).
//! * Every request ends in exactly one [`PathReady`], [`PathUnreachable`] or
//!   [`PathCancelled`]; a finished walk sends [`Arrived`]. Each is both an
//!   [`EntityEvent`] on the walker (observe it) and a [`Message`] (read it).
//! * Paths are computed on Bevy's [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool);
//!   the main thread never searches or prepares grids.
//! * While a walker stands still, the distance field from where it stands is filled in
//!   the background ([`WarmFieldCache`]), so its next walk is traced in microseconds.
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
//! In [`Update`], chained: [`WalkmaskSystems::Input`] (clicks) ->
//! [`WalkmaskSystems::Plan`] (mask changes, requests, task spawning, warm-ups) ->
//! [`WalkmaskSystems::Poll`] (finished tasks) -> [`WalkmaskSystems::Move`] (walking).
//! Order your own systems against these sets; write requests before `Plan` to have
//! them start the same frame.
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
//!         Player,
//!         Sprite::from_color(Color::WHITE, Vec2::new(24.0, 64.0)),
//!         Transform::from_xyz(0.0, -200.0, 1.0),
//!     ));
//! }
//! ```
#![warn(missing_docs)]

pub mod asset;
#[cfg(feature = "debug_overlay")]
pub mod debug;
mod input;
mod movement;
pub mod plan;
pub mod room;
pub mod walker;

use bevy::prelude::*;
pub use walkmask;

pub use asset::{WalkMask, WalkMaskLoadError, WalkMaskLoader, WalkMaskSettings};
#[cfg(feature = "debug_overlay")]
pub use debug::{WalkmaskDebug, WalkmaskDebugPlugin, WalkmaskGizmos};
pub use input::WalkCamera;
pub use plan::{FieldCacheStats, GridCacheStats, NavGridCache, WarmFieldCache};
pub use room::{MaskMapping, WalkAreas, WalkRoom};
pub use walker::{
    Arrived, Heading, PathCancelled, PathReady, PathUnreachable, Player, WalkCommandsExt, WalkPath,
    WalkRequest, WalkState, Walker,
};

/// Everything a game usually needs: `use bevy_walkmask::prelude::*;`.
///
/// ```
/// use bevy_walkmask::prelude::*;
/// let _plugin = WalkmaskPlugin::default();
/// ```
pub mod prelude {
    #[cfg(feature = "debug_overlay")]
    pub use crate::debug::{WalkmaskDebug, WalkmaskDebugPlugin};
    pub use crate::{
        Arrived, Heading, PathCancelled, PathReady, PathUnreachable, Player, WalkAreas, WalkCamera,
        WalkCommandsExt, WalkMask, WalkMaskSettings, WalkPath, WalkRequest, WalkRoom, WalkState,
        Walker, WalkmaskPlugin, WalkmaskSettings, WalkmaskSystems,
    };
}

/// The plugin: asset, loader, requests, path tasks, movement and click input.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkmaskPlugin;
///
/// App::new().add_plugins((
///     DefaultPlugins,
///     WalkmaskPlugin {
///         click_to_walk: false, // the game sends its own WalkRequests
///         ..default()
///     },
/// ));
/// ```
///
/// Needs `AssetPlugin` and the task pools (`DefaultPlugins`, or `MinimalPlugins` +
/// `AssetPlugin`); click input also needs `InputPlugin`, a window and a camera, and is
/// skipped without them. The debug overlay is a separate plugin,
/// [`WalkmaskDebugPlugin`] (cargo feature `debug_overlay`).
#[derive(Clone, Debug)]
pub struct WalkmaskPlugin {
    /// Left clicks (cursor -> world through the camera) send a [`WalkRequest`] for
    /// every walker with [`Player`]. Default true. Changeable at runtime through
    /// [`WalkmaskSettings`].
    pub click_to_walk: bool,
    /// Upper bound on the bytes of prepared grids kept for reuse ([`NavGridCache`]);
    /// a grid takes about 4 bytes per mask pixel. Default 64 MiB.
    pub grid_cache_bytes: usize,
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
    /// Upper bound on the bytes of warm distance fields kept ([`WarmFieldCache`]); a
    /// field takes about 4 bytes per mask pixel (about 8 MiB for 1920 x 1080), and
    /// the least recently used are dropped first. Default 256 MiB.
    pub field_cache_bytes: usize,
}

impl Default for WalkmaskPlugin {
    fn default() -> Self {
        Self {
            click_to_walk: true,
            grid_cache_bytes: 64 << 20,
            snap_to_reachable: true,
            warm_fields: std::thread::available_parallelism().is_ok_and(|n| n.get() > 2),
            field_cache_bytes: 256 << 20,
        }
    }
}

/// Runtime settings of the plugin.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkmaskSettings;
///
/// fn cutscene_starts(mut settings: ResMut<WalkmaskSettings>) {
///     settings.click_to_walk = false;
/// }
/// # bevy::ecs::system::assert_is_system(cutscene_starts);
/// ```
#[derive(Resource, Clone, Debug, Reflect)]
#[reflect(Resource, Debug)]
pub struct WalkmaskSettings {
    /// Left clicks move [`Player`] walkers.
    pub click_to_walk: bool,
}

/// The plugin's system sets, in [`Update`], chained in this order.
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
    /// Left clicks become [`WalkRequest`]s.
    Input,
    /// Mask changes re-plan walkers; requests become jobs; path tasks are spawned;
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
        app.init_asset::<WalkMask>()
            .init_asset_loader::<WalkMaskLoader>()
            .add_message::<WalkRequest>()
            .add_message::<PathReady>()
            .add_message::<PathUnreachable>()
            .add_message::<PathCancelled>()
            .add_message::<Arrived>()
            .register_type::<WalkRoom>()
            .register_type::<WalkAreas>()
            .register_type::<Walker>()
            .register_type::<Player>()
            .register_type::<WalkState>()
            .register_type::<Heading>()
            .register_type::<WalkPath>()
            .register_type::<WalkCamera>()
            .register_type::<WalkmaskSettings>()
            .insert_resource(WalkmaskSettings {
                click_to_walk: self.click_to_walk,
            })
            .insert_resource(plan::Planner::new(
                NavGridCache::new(self.grid_cache_bytes),
                WarmFieldCache::new(self.field_cache_bytes),
                self.warm_fields,
                options,
            ))
            .configure_sets(
                Update,
                (
                    WalkmaskSystems::Input,
                    WalkmaskSystems::Plan,
                    WalkmaskSystems::Poll,
                    WalkmaskSystems::Move,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                (
                    input::click_to_walk
                        .in_set(WalkmaskSystems::Input)
                        .run_if(resource_exists::<ButtonInput<MouseButton>>),
                    (
                        plan::react_to_mask_changes,
                        plan::read_requests,
                        plan::start_jobs,
                        plan::warm_fields,
                    )
                        .chain()
                        .in_set(WalkmaskSystems::Plan),
                    plan::poll_jobs.in_set(WalkmaskSystems::Poll),
                    movement::move_walkers.in_set(WalkmaskSystems::Move),
                ),
            );
        let planner = app.world().resource::<plan::Planner>();
        let (cache, fields) = (planner.cache.clone(), planner.fields.clone());
        app.insert_resource(cache).insert_resource(fields);
    }
}
