//! The plugin's tuning: thresholds and switches a game may change at runtime
//! ([`WalkTuning`]).

use bevy::prelude::*;

/// Which standing walkers get a warm field (see
/// [`WalkmaskPlugin::warm_fields`](crate::WalkmaskPlugin::warm_fields)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum WarmUpWalkers {
    /// Only [`PlayerWalker`](crate::PlayerWalker) walkers and walkers marked
    /// [`KeepWarm`](crate::KeepWarm) (the default): idle NPCs do not evict the
    /// player's field.
    #[default]
    Players,
    /// Every standing walker.
    All,
}

/// Thresholds and switches of the walk lifecycle, read every frame: change the
/// resource to tune a running game. The plugin inserts it from
/// [`WalkmaskPlugin::tuning`](crate::WalkmaskPlugin::tuning).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkTuning;
///
/// fn calm_hover(mut tuning: ResMut<WalkTuning>) {
///     tuning.hover = false; // no hover answers (no warm-field traces on the main thread)
/// }
/// # bevy::ecs::system::assert_is_system(calm_hover);
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Debug)]
pub struct WalkTuning {
    /// A request that arrives while the walker's previous search still runs waits for
    /// that search (only the newest waiting request is kept; the ones it replaces are
    /// answered [`PathCancelled`](crate::PathCancelled)). When the search ends, its
    /// path is walked if its destination lies within this many world units of the
    /// waiting request's, so that a walker sent somewhere new every frame (a held
    /// button, a chaser) keeps walking, or, for a walker standing still, if it leads
    /// nearer the waiting request's destination (a fast drag still starts it);
    /// otherwise its answer is dropped. Then the waiting request is planned. Default
    /// 64.
    pub rerequest_join_distance: f32,
    /// How far ahead (seconds of walking) a walking walker is planned from with
    /// [`AnswerTiming::WhenReady`](crate::AnswerTiming::WhenReady) at the first
    /// attempt (doubled at each further attempt), so that the new path starts where
    /// the walker will be when it lands. Default 0.05 (three frames at 60 Hz).
    pub plan_ahead_seconds: f32,
    /// Walkers sent to one destination pixel in one frame share one distance field
    /// from it when they are at least this many (a field fills the whole region, as
    /// much as 10 to 40 searches on room masks). `None`: never (only chasers share).
    /// Default `Some(16)`.
    pub crowd_share: Option<usize>,
    /// At most this many warm-up fills run (or wait to run) at once, so that a path
    /// task waits for at most that many fills on the pool. Default 1.
    pub max_warming: usize,
    /// Which standing walkers get warm fields (when
    /// [`WalkmaskPlugin::warm_fields`](crate::WalkmaskPlugin::warm_fields) is on).
    pub warm_up: WarmUpWalkers,
    /// Answer [`WalkHover`](crate::WalkHover) (default true). Off, the answer stays
    /// `None` and costs nothing.
    pub hover: bool,
    /// A hover query is started once the pointer has rested on one mask pixel this
    /// many frames. Default 2.
    pub hover_rest_frames: u32,
    /// A hover answer is traced from the player's warm field on the main thread, in
    /// the frame the pointer moves, when the walk there is at most this many mask
    /// pixels long (the field's distance to the point); a longer walk (a spiral, a
    /// maze), or a point the field does not reach, is traced on the async compute
    /// pool and answers a frame or more later, so that no trace costs a frame.
    /// Default 4096 (a fraction of a millisecond).
    pub hover_trace_pixels: u32,
    /// After a walker re-plans because a solid obstacle moved into or out of its way,
    /// it waits this long before re-planning for obstacles again. Default
    /// [`OBSTACLE_REPLAN_SECONDS`].
    pub obstacle_replan_seconds: f32,
    /// A walker re-plans for a solid obstacle that moved onto its way only once the
    /// obstacle is within this many seconds of walking ahead (at the walker's speed),
    /// or covers its destination: one further along may well have moved on by the time
    /// the walker gets there, and every re-plan is a search on the pool. Likewise for
    /// an obstacle that bent the walk and moved away. Default 2.
    pub obstacle_lookahead_seconds: f32,
    /// Walkers with a radius avoid each other (see [`Avoidance`](crate::Avoidance)).
    /// Default true.
    pub avoidance: bool,
    /// Seconds ahead within which avoiding walkers keep out of each other's way:
    /// longer turns them aside earlier and more gently; shorter lets crowds pack and
    /// flow. Default 1.
    pub avoidance_time_horizon: f32,
    /// The nearest neighbours each walker avoids (more cost more time per walker).
    /// Default 8.
    pub avoidance_neighbours: usize,
    /// A tile-step walker (`Walker::grid_steps`) that has waited this long for a tile
    /// another walker holds stops, its walk ended
    /// [`Blocked`](crate::StopReason::Blocked). Default
    /// [`TILE_WAIT_SECONDS`](crate::TILE_WAIT_SECONDS).
    pub tile_wait_seconds: f32,
    /// How far (world units) in front of its room's plane a hotspot is hit along a
    /// picking ray, so that it wins over the room's own sprite. Default 0.01 (the
    /// constant `HOTSPOT_LIFT` of the `picking` feature).
    pub hotspot_pick_lift: f32,
}

impl Default for WalkTuning {
    fn default() -> Self {
        Self {
            rerequest_join_distance: 64.0,
            plan_ahead_seconds: 0.05,
            crowd_share: Some(16),
            max_warming: 1,
            warm_up: WarmUpWalkers::Players,
            hover: true,
            hover_rest_frames: 2,
            hover_trace_pixels: 4096,
            obstacle_replan_seconds: OBSTACLE_REPLAN_SECONDS,
            obstacle_lookahead_seconds: 2.0,
            avoidance: true,
            avoidance_time_horizon: 1.0,
            avoidance_neighbours: 8,
            tile_wait_seconds: crate::crowd::TILE_WAIT_SECONDS,
            hotspot_pick_lift: 0.01,
        }
    }
}

/// An obstacle does not re-plan the same walker more often than once in this many
/// seconds: an obstacle that moves every frame does not re-plan everyone every frame.
pub const OBSTACLE_REPLAN_SECONDS: f32 = 0.25;
