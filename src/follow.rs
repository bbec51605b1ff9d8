//! Followers: a walker that keeps near another, as a companion does in an adventure
//! game ([`WalkFollow`]).

use bevy::prelude::*;

use crate::facing::{FaceTarget, turn};
use crate::layers::exits::place_in_room;
use crate::placement::{Parents, walker_xy};
use crate::request::{RequestId, WalkRequest};
use crate::walk::end::stop_walker;
use crate::walk::job::PathJob;
use crate::walk::membership::CurrentRoom;
use crate::walker::{WalkPath, Walker};

/// Makes a walker follow `leader` (another walker, usually the player), as a
/// companion does:
///
/// - When the leader gets farther than [`distance`](Self::distance) plus
///   [`slack`](Self::slack) and stays so for [`delay`](Self::delay) seconds, the
///   follower walks to the point `distance` short of the leader on its own side, and
///   keeps walking there while the leader moves on (sent again each time the leader
///   has moved half the distance). It stops where it is when the leader comes back
///   within half the distance.
/// - Standing, it faces the leader.
/// - When the leader goes into another room ([`CurrentRoom`]), the follower comes
///   along: it is put where the leader is in that room (walking no more), naming the
///   room the leader names.
///
/// Each walk is an ordinary request with its one answer and one end. A walk the game
/// sends the follower itself wins: following goes on once it ends. When the leader
/// is despawned the follower stops (a walk to follow it ends `WalkStopped`); remove
/// `WalkFollow` to let it go. Walkers that avoid each other ([`Avoidance`](crate::Avoidance))
/// give way to each other as usual, so a follower steps aside when the leader walks at
/// it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{PlayerWalker, WalkFollow, Walker};
///
/// fn the_dog_comes_along(mut commands: Commands, player: Single<Entity, With<PlayerWalker>>) {
///     commands.spawn((
///         Walker::new(140.0).with_radius(4.0),
///         WalkFollow::new(*player).with_distance(24.0).with_delay(0.3),
///         Transform::from_xyz(-40.0, -60.0, 1.0),
///     ));
/// }
/// # bevy::ecs::system::assert_is_system(the_dog_comes_along);
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Clone, Debug, PartialEq)]
#[require(FollowState)]
pub struct WalkFollow {
    /// The walker followed.
    #[entities]
    pub leader: Entity,
    /// How far from the leader the follower stands (world units, default 20).
    pub distance: f32,
    /// How much farther than `distance` the leader may get before the follower sets
    /// off (world units, default 16): a leader that shuffles about is not followed
    /// step by step.
    pub slack: f32,
    /// Seconds the leader must be out of reach before the follower sets off (default
    /// 0.25): a follower that reacts, not one glued to the leader.
    pub delay: f32,
}

impl WalkFollow {
    /// Follow `leader` at the default distance, slack and delay.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::WalkFollow;
    /// let follow = WalkFollow::new(Entity::PLACEHOLDER);
    /// assert_eq!((follow.distance, follow.slack, follow.delay), (20.0, 16.0, 0.25));
    /// ```
    pub fn new(leader: Entity) -> Self {
        Self {
            leader,
            distance: 20.0,
            slack: 16.0,
            delay: 0.25,
        }
    }

    /// Stands `distance` from the leader.
    pub fn with_distance(mut self, distance: f32) -> Self {
        self.distance = distance;
        self
    }

    /// Sets off when the leader is `slack` farther than the distance.
    pub fn with_slack(mut self, slack: f32) -> Self {
        self.slack = slack;
        self
    }

    /// Sets off `delay` seconds after the leader got out of reach.
    pub fn with_delay(mut self, delay: f32) -> Self {
        self.delay = delay;
        self
    }

    /// The distance, slack and delay as numbers a follower can use: negative,
    /// infinite or not-a-number values count as 0.
    fn sanitized(&self) -> (f32, f32, f32) {
        let clean = |v: f32| if v.is_finite() { v.max(0.0) } else { 0.0 };
        (clean(self.distance), clean(self.slack), clean(self.delay))
    }
}

/// What a follower is doing about its leader (saved with it: a follower loaded back
/// goes on as it was).
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub(crate) struct FollowState {
    /// The request of its walk after the leader, and where the leader stood when
    /// it was sent.
    walk: Option<(RequestId, Vec2)>,
    /// For how long (seconds) the leader has been out of reach.
    out_of_reach_for: Option<f32>,
    /// The room it was last put in after its leader.
    #[entities]
    entered: Option<Entity>,
    /// Where the leader stood when the follower last turned to it.
    faced: Option<Vec2>,
}

/// A follower as [`follow_leaders`] sees it.
type Follower = (
    Entity,
    &'static WalkFollow,
    &'static Transform,
    Option<&'static ChildOf>,
    &'static CurrentRoom,
    &'static mut FollowState,
    Option<&'static WalkPath>,
    Option<&'static PathJob>,
);

/// A leader as [`follow_leaders`] sees it.
type Leader = (
    &'static Transform,
    Option<&'static ChildOf>,
    &'static CurrentRoom,
    &'static Walker,
);

/// Sends followers after their leaders, takes them into the leaders' rooms, stops
/// them when the leader comes back or is gone, and turns standing ones to face it.
pub(crate) fn follow_leaders(
    mut commands: Commands,
    time: Res<Time>,
    mut followers: Query<Follower, With<Walker>>,
    leaders: Query<Leader>,
    parents: Parents,
    mut requests: MessageWriter<WalkRequest>,
) {
    let dt = time.delta_secs();
    for (entity, follow, transform, child_of, room, mut state, path, job) in &mut followers {
        // Its own walk after the leader, walked or still planned.
        let walking = path.map(|p| p.request).or(job.map(|j| j.request));
        let following = state.walk.filter(|(request, _)| walking == Some(*request));
        let own_walk = walking.is_some() && following.is_none();
        let Ok((leader_transform, leader_parent, leader_room, leader_walker)) =
            leaders.get(follow.leader)
        else {
            if following.is_some() {
                commands.queue(move |world: &mut World| stop_walker(world, entity));
            }
            if *state != FollowState::default() {
                *state = FollowState::default();
            }
            continue;
        };
        let leader = walker_xy(leader_transform, leader_parent, &parents);
        let position = walker_xy(transform, child_of, &parents);
        if !leader.is_finite() || !position.is_finite() {
            continue;
        }
        // Into the leader's room: put where the leader is.
        if let Some(to) = leader_room.get()
            && room.get() != Some(to)
        {
            if state.entered != Some(to) {
                state.entered = Some(to);
                state.walk = None;
                state.out_of_reach_for = None;
                let named = leader_walker.room.or(Some(to));
                commands.queue(move |world: &mut World| {
                    stop_walker(world, entity);
                    if let Some(mut walker) = world.get_mut::<Walker>(entity) {
                        walker.room = named;
                    }
                    place_in_room(world, entity, to, leader);
                });
            }
            continue;
        }
        if room.get().is_some() {
            state.entered = room.get();
        }
        if walking.is_some() {
            // Once it stands again it turns to the leader, wherever it stands.
            state.faced = None;
        }
        let (distance, slack, delay) = follow.sanitized();
        let apart = position.distance(leader);
        if let Some((_, sent_at)) = following {
            if apart < distance * 0.5 {
                // The leader came back: it stands where it is.
                state.walk = None;
                commands.queue(move |world: &mut World| stop_walker(world, entity));
            } else if leader.distance(sent_at) > (distance * 0.5).max(4.0) {
                // The leader moved on: it is walked to again.
                state.walk = Some(send_after(
                    &mut requests,
                    entity,
                    leader,
                    position,
                    distance,
                ));
            }
            continue;
        }
        if own_walk {
            continue;
        }
        state.walk = None;
        if apart > distance + slack {
            let waited = state.out_of_reach_for.map_or(0.0, |waited| waited + dt);
            state.out_of_reach_for = Some(waited);
            if waited >= delay {
                state.out_of_reach_for = None;
                state.walk = Some(send_after(
                    &mut requests,
                    entity,
                    leader,
                    position,
                    distance,
                ));
                continue;
            }
        } else {
            state.out_of_reach_for = None;
        }
        // Standing: it faces the leader whenever the leader moved.
        if state.faced.is_none_or(|faced| faced.distance(leader) > 0.5) {
            state.faced = Some(leader);
            commands.queue(move |world: &mut World| {
                if let Ok(mut entity) = world.get_entity_mut(entity) {
                    turn(&mut entity, FaceTarget::Point(leader), position);
                }
            });
        }
    }
}

/// Sends `follower` at `position` to the point `distance` short of `leader`; the
/// request's id and where the leader stood, for [`FollowState::walk`].
fn send_after(
    requests: &mut MessageWriter<WalkRequest>,
    follower: Entity,
    leader: Vec2,
    position: Vec2,
    distance: f32,
) -> (RequestId, Vec2) {
    let request = WalkRequest::new(follower, short_of(leader, position, distance));
    let id = request.id;
    requests.write(request);
    (id, leader)
}

/// The point `distance` short of `leader` on the way from `position`.
fn short_of(leader: Vec2, position: Vec2, distance: f32) -> Vec2 {
    let away = (position - leader).normalize_or_zero();
    leader + away * distance
}

/// A walker that stops following forgets what it was doing, so that following again
/// starts afresh.
pub(crate) fn forget_following(removed: On<Remove, WalkFollow>, mut commands: Commands) {
    if let Ok(mut entity) = commands.get_entity(removed.entity) {
        entity.try_remove::<FollowState>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aim_is_the_distance_short_of_the_leader_on_the_followers_side() {
        let aim = short_of(Vec2::new(10.0, 0.0), Vec2::new(-30.0, 0.0), 20.0);
        assert_eq!(aim, Vec2::new(-10.0, 0.0));
        // On the leader: the leader's own point.
        assert_eq!(short_of(Vec2::ONE, Vec2::ONE, 20.0), Vec2::ONE);
    }

    #[test]
    fn bad_numbers_count_as_zero() {
        let follow = WalkFollow::new(Entity::PLACEHOLDER)
            .with_distance(f32::NAN)
            .with_slack(-3.0)
            .with_delay(f32::INFINITY);
        assert_eq!(follow.sanitized(), (0.0, 0.0, 0.0));
    }
}
