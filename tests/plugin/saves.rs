//! What a save loaded back into a game keeps: request ids that cannot be taken for
//! the ids of the walks it holds.
//!
//! The usual 64 x 48 wall mask, where pixel (px, py) is world (px - 32, 24 - py).

use crate::common;

use bevy::prelude::*;
use bevy::reflect::FromReflect;
use bevy::reflect::tuple_struct::DynamicTupleStruct;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{Interacting, UnreachablePolicy, Verb};
use common::{Pace, px, request, spawn_walker, wall_room_app};

/// An id as a save holds it: far ahead of this process's counter, built through
/// reflection as a scene loader builds it.
fn saved_id(n: u64) -> RequestId {
    let mut saved = DynamicTupleStruct::default();
    saved.insert(n);
    RequestId::from_reflect(&saved).expect("a RequestId from its number")
}

/// A walk and an interaction loaded with ids ahead of the counter: every request
/// sent afterwards has a later id, so none can be taken for the loaded ones.
#[test]
fn ids_of_requests_sent_after_a_load_come_after_the_loaded_ones() {
    for pace in Pace::BOTH {
        let (mut app, _) = wall_room_app(pace.plugin());
        let walker = spawn_walker(&mut app, Walker::new(60.0), px(4, 44));
        let walked = saved_id(1 << 40);
        app.world_mut().entity_mut(walker).insert(WalkPath {
            waypoints: vec![px(4, 44), px(20, 44)],
            next: 1,
            target: px(20, 44),
            request: walked,
            face: None,
        });
        let new = request(&mut app, walker, px(10, 44));
        assert!(new > walked, "{pace:?}: {new} after a loaded {walked}");
        let acting = saved_id((1 << 41) + 7);
        let hotspot = app.world_mut().spawn_empty().id();
        app.world_mut().spawn_empty().insert(Interacting {
            hotspot,
            verb: Verb::INTERACT,
            request: acting,
            walk_to: None,
            reach: 1.0,
            unreachable: UnreachablePolicy::default(),
        });
        let new = RequestId::new();
        assert!(new > acting, "{pace:?}: {new} after a loaded {acting}");
    }
}
