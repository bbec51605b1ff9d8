//! Counts of requests and their answers ([`WalkStats`]), kept as outcomes are sent.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::timing::PlanClock;
use crate::outcome::{Outcome, emit};
use crate::request::RequestId;

/// What the walk lifecycle has answered so far, counted since the plugin was added:
/// requests answered with a path and how many frames that took, requests that ended
/// unreachable or cancelled, and re-plans.
///
/// A frame is one run of the plugin's schedule, as in
/// [`AnswerTiming`](crate::AnswerTiming). [`WalkmaskDiagnosticsPlugin`](crate::WalkmaskDiagnosticsPlugin)
/// turns these into Bevy diagnostics; a game can read them directly:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::WalkStats;
///
/// fn report(stats: Res<WalkStats>) {
///     if let Some(mean) = stats.mean_answer_frames() {
///         info!("{} paths, {mean:.1} frames from request to path", stats.answered);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(report);
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Resource, Debug, Default)]
pub struct WalkStats {
    /// Requests answered with a path ([`PathReady`](crate::PathReady)).
    pub answered: u64,
    /// The frames from each of those requests to its path, summed.
    pub answer_frames: u64,
    /// The most frames any of them took.
    pub max_answer_frames: u64,
    /// Requests answered [`PathUnreachable`](crate::PathUnreachable).
    pub unreachable: u64,
    /// Requests answered [`PathCancelled`](crate::PathCancelled).
    pub cancelled: u64,
    /// Walks planned again on their way ([`PathReplanned`](crate::PathReplanned)).
    pub replanned: u64,
    /// Requests read and not yet answered (waiting for a search or its answer).
    pub waiting: u64,
}

impl WalkStats {
    /// The mean frames from request to path, once a request has been answered.
    pub fn mean_answer_frames(&self) -> Option<f64> {
        (self.answered > 0).then(|| self.answer_frames as f64 / self.answered as f64)
    }
}

/// The frame each request waiting for its answer was read in.
#[derive(Resource, Default)]
pub(crate) struct RequestFrames(HashMap<RequestId, u64>);

/// Notes the frame `request` was read in.
pub(super) fn request_read(world: &mut World, request: RequestId) {
    let frame = world.resource::<PlanClock>().frame;
    let mut frames = world.resource_mut::<RequestFrames>();
    frames.0.insert(request, frame);
    let waiting = frames.0.len() as u64;
    world.resource_mut::<WalkStats>().waiting = waiting;
}

/// Counts `outcome`, then sends it ([`emit`]): every outcome of the lifecycle goes
/// through here.
pub(super) fn count_and_emit(world: &mut World, outcome: Outcome) {
    let frame = world.resource::<PlanClock>().frame;
    let answered = match &outcome {
        Outcome::Ready(ev) => Some(ev.request),
        Outcome::Unreachable(ev) => Some(ev.request),
        Outcome::Cancelled(ev) => Some(ev.request),
        Outcome::Replanned(_) | Outcome::Arrived(_) | Outcome::Stopped(_) => None,
    };
    let read_in = answered.and_then(|request| {
        let mut frames = world.resource_mut::<RequestFrames>();
        frames.0.remove(&request)
    });
    let waiting = world.resource::<RequestFrames>().0.len() as u64;
    let mut stats = world.resource_mut::<WalkStats>();
    stats.waiting = waiting;
    match &outcome {
        Outcome::Ready(_) => {
            stats.answered += 1;
            let took = read_in.map_or(0, |read| frame.saturating_sub(read));
            stats.answer_frames += took;
            stats.max_answer_frames = stats.max_answer_frames.max(took);
        }
        Outcome::Unreachable(_) => stats.unreachable += 1,
        Outcome::Cancelled(_) => stats.cancelled += 1,
        Outcome::Replanned(_) => stats.replanned += 1,
        Outcome::Arrived(_) | Outcome::Stopped(_) => {}
    }
    emit(world, outcome);
}
