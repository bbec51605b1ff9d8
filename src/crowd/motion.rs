//! What the crowd keeps for each walker from frame to frame, and what it proposes to
//! the walk lifecycle: a velocity to take instead of the path's, a free spot to end
//! on, a re-plan, or a tile step to wait for.

use bevy::prelude::*;

use crate::request::RequestId;

/// What avoidance proposes to the walk lifecycle for one walker, and what it keeps
/// from frame to frame.
#[derive(Component, Default, Clone, Debug)]
pub(crate) struct CrowdMotion {
    /// Where the walker stood at the last avoidance step (world), to measure how fast
    /// it really moved.
    pub(super) last: Option<Vec2>,
    /// The velocity (world units per second) to take this frame instead of following
    /// the path (walking) or standing still; `None`: no neighbour is in the way.
    pub(crate) avoided: Option<Vec2>,
    /// A free spot claimed for the end of the walk that answers its request.
    pub(crate) spot: Option<ArrivalSpot>,
    /// The shortest walk left to the end of that walk so far (world units), and for
    /// which request.
    pub(super) best_remaining: Option<(RequestId, f32)>,
    /// Seconds since the walk left last got shorter.
    pub(super) stalled: f32,
    /// Blocked for [`REPLAN_STALLED_SECONDS`] on the walk that answers this request:
    /// plan it again from where it is.
    pub(crate) replan: Option<RequestId>,
    /// Re-plans of the walk that answers this request that led no nearer its end.
    pub(super) stalled_replans: Option<(RequestId, u8)>,
    /// Still blocked after [`STALLED_REPLANS`] such re-plans: the walk that answers
    /// this request ends [`Blocked`](crate::StopReason::Blocked) where it is.
    pub(crate) gave_up: Option<RequestId>,
    /// A tile-step walker waits this frame: the tile it steps into is taken.
    pub(crate) hold: bool,
    /// A tile-step walker waited `TILE_WAIT_SECONDS` for its next tile: its walk ends
    /// blocked.
    pub(crate) blocked: bool,
    /// The tile (mask pixel) a tile-step walker reserved to step into.
    pub(super) tile: Option<(u32, u32)>,
    /// Seconds a tile-step walker has waited for its next tile.
    pub(super) waited: f32,
    /// Where a tile-step walker backed off to, to let another pass.
    pub(super) refuge: Option<Refuge>,
}

/// A walker whose walk got no shorter for this long no longer gives way to those it
/// leads ([`walkmask::crowd::Agent::blocked`]).
pub(super) const BLOCKED_SECONDS: f32 = 0.5;
/// A walker whose walk got no shorter for this long beside its claimed spot stands
/// where it is (a crowd's outer edge).
pub(super) const STAND_STALLED_SECONDS: f32 = 1.0;
/// A walker whose walk got no shorter for this long is planned again from where it
/// is (another way may be open).
pub(super) const REPLAN_STALLED_SECONDS: f32 = 3.0;
/// A walker blocked for [`REPLAN_STALLED_SECONDS`] again after this many re-plans
/// that led it no nearer gives up: its walk ends blocked, rather than wait for ever.
pub(super) const STALLED_REPLANS: u8 = 1;

/// Where a walker stands at the end of its walk instead of the end itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ArrivalSpot {
    /// The request whose walk it ends.
    pub(crate) request: RequestId,
    /// The end of the walk it was claimed for (world): a walk planned again to
    /// another end drops it.
    pub(crate) end: Vec2,
    /// The spot (world).
    pub(crate) at: Vec2,
    /// The walker stands where it is: the walk ends here.
    pub(crate) here: bool,
}

/// Where a tile-step walker backed off to, to let another pass in a corridor one
/// tile wide: it waits there until the other's way no longer crosses the tiles it
/// backed off along.
#[derive(Clone, Debug)]
pub(crate) struct Refuge {
    /// The walk it backed off in.
    pub(super) request: RequestId,
    /// The refuge (world centre of its tile).
    pub(super) at: Vec2,
    /// The walker it makes way for.
    pub(super) passing: Entity,
    /// The tiles it backed off along, from where it met the other to the refuge.
    pub(super) route: Route,
    /// Seconds waited there.
    pub(super) waited: f32,
}

/// Tiles (mask pixels) walked one after the other.
pub(super) type Route = Vec<(u32, u32)>;
