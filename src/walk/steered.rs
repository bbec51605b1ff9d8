//! The states of a walker steered by [`WalkInput`](crate::WalkInput): the steering
//! module moves it; these are the transitions it asks for.

use bevy::prelude::*;

use crate::walker::{WalkHeading, WalkState};

/// One steered step: walking toward `direction`, or (`None`: pushed into a wall, or
/// its grid not built yet) standing.
pub(crate) fn steered_step(
    heading: &mut Mut<WalkHeading>,
    state: &mut Mut<WalkState>,
    direction: Option<Vec2>,
) {
    match direction {
        Some(direction) => {
            heading.set_if_neq(WalkHeading(direction));
            state.set_if_neq(WalkState::Walking);
        }
        None => {
            heading.set_if_neq(WalkHeading(Vec2::ZERO));
            state.set_if_neq(WalkState::Idle);
        }
    }
}

/// Steering let go (the input is zero or was removed): the walker stands, unless a
/// walk it was sent on meanwhile goes on (`walking`), or a request is being planned
/// (`planning`: its state stays `Planning`).
pub(crate) fn steering_released(
    heading: &mut Mut<WalkHeading>,
    state: &mut Mut<WalkState>,
    walking: bool,
    planning: bool,
) {
    if !walking {
        heading.set_if_neq(WalkHeading(Vec2::ZERO));
    }
    if !walking && !planning {
        state.set_if_neq(WalkState::Idle);
    }
}
