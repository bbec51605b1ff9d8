//! When answers land ([`AnswerTiming`]) and the frame count it is measured in.

use bevy::prelude::*;

/// When the answers of path tasks are applied.
///
/// ```
/// use bevy_walkmask::{AnswerTiming, WalkmaskPlugin};
/// // A replay or lockstep game: every answer lands exactly two frames after its request.
/// let plugin = WalkmaskPlugin { answer_timing: AnswerTiming::AfterFrames(2), ..Default::default() };
/// # let _ = plugin;
/// ```
///
/// ## What `AfterFrames` promises
///
/// A frame here is one run of the plugin's schedule ([`WalkmaskPlugin::schedule`](crate::WalkmaskPlugin::schedule):
/// a frame in `Update`, a fixed step in `FixedUpdate`).
///
/// * A request read in frame `f` is answered (ready, unreachable or cancelled) in
///   frame `f + n`. A search restarted meanwhile (the room's areas or mask changed)
///   keeps that frame; so does an answer that could not be joined to where the walker
///   got to (game code moved it), whose search is run again at once from where the
///   walker stands. Two cases wait longer: a request that arrives while the walker's
///   previous search runs starts its own search in the frame that one lands (see
///   [`WalkTuning::rerequest_join_distance`](crate::WalkTuning::rerequest_join_distance)), and a request whose room's mask is still
///   loading starts when it has loaded.
/// * Answers do not depend on timing: queries wait for their grid's subgoal index
///   instead of filling while it is built, and do not trace warm fields. What the main
///   thread does with a grid (steering, avoidance's slides and free spots, nudges,
///   tile reservations, hover, [`WalkQuery`](crate::WalkQuery)) uses one built in the
///   frame that first needs it, instead of waiting for the pool. With the same
///   inputs at the same frames (requests, area toggles, moves, and the same time steps,
///   as `FixedUpdate` gives), two runs give the same answers, waypoints and positions
///   frame by frame, on any machine with the same float arithmetic.
/// * The price: `Poll` waits for a search that has not finished when it is due, and a
///   frame that needs a new grid (a new radius, areas toggled) builds it on the main
///   thread.
///
/// ## On the web
///
/// On `wasm32` the task pool runs its tasks on the main thread, between frames, so
/// `Poll` cannot wait for one: an answer due in frame `f` lands in `f` when its search
/// has run by then (with `AfterFrames(n)` for `n` at least 1 it has, in a browser that
/// runs the queued tasks before the next frame, once the walker's grid and index are
/// built), else in the first later frame in which it has. Grids and indexes are built
/// there in slices of a few milliseconds between frames, so the first answers on a new
/// grid (a room loaded, areas toggled) land a few frames late. The answers themselves
/// stay independent of timing as above. `WhenReady` is unchanged: an answer lands in
/// the first frame after its search has run. With the search worker
/// ([`WalkmaskPlugin::search_worker`](crate::WalkmaskPlugin::search_worker)) the
/// search runs there and its reply comes between frames: the same answer, landing in
/// frame `f` when the reply came by then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum AnswerTiming {
    /// In the first frame whose [`WalkmaskSystems::Poll`](crate::WalkmaskSystems::Poll)
    /// finds the task finished (never waiting for it). The default.
    #[default]
    WhenReady,
    /// Exactly this many frames after the search started (0: in the same frame),
    /// waiting for it in `Poll` if it has not finished by then. Deterministic frame by
    /// frame whatever the machine's speed (replays, lockstep, tests); see above.
    AfterFrames(u32),
}

/// Counts the runs of the plugin's schedule (frames, or fixed steps in
/// `FixedUpdate`), for [`AnswerTiming::AfterFrames`].
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct PlanClock {
    pub(super) frame: u64,
    /// Whether the frame `frame` has read its requests and not ended yet: code run
    /// before that (between frames, or in the frame's changes before its requests are
    /// read) belongs to the frame that comes next.
    pub(super) reading: bool,
}

impl PlanClock {
    /// The frame whose requests are read now or next: `frame` from the moment its
    /// requests are read to its end, the one after it before and after that.
    pub(super) fn reading_frame(&self) -> u64 {
        self.frame + u64::from(!self.reading)
    }
}

/// Ends the plugin's frame: what runs after it, up to the next frame's reading of
/// requests, belongs to the next frame.
pub(crate) fn end_frame(mut clock: ResMut<PlanClock>) {
    clock.reading = false;
}

/// The plugin's [`AnswerTiming`].
#[derive(Resource, Clone, Copy, Debug, Default)]
pub(crate) struct AnswerTimingSetting(pub(crate) AnswerTiming);
