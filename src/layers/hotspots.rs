//! Hotspots: the things in a room a player can point at and act on (a bell, a
//! painting, a door), painted in a layer image beside the walk mask, with a
//! walk-to point, a facing on arrival and what each verb does.
//!
//! Give a room a hotspot layer with [`WalkHotspots`] and spawn one [`Hotspot`] entity
//! per id as a child of the room. Then:
//!
//! * the pointer picks them (a Bevy picking backend, under the `picking` feature):
//!   `Pointer<Over>`, `Pointer<Out>` and `Pointer<Click>` reach the hotspot entity
//!   just as they reach a sprite, in draw order. A hotspot is hit just in front of
//!   its room's plane, so a character or prop drawn in front of the room takes the
//!   pointer first, and UI above the game keeps working;
//! * a click on a hotspot walks the [`PlayerWalker`](crate::PlayerWalker)s in its room there and acts:
//!   the primary button with [`HotspotClicks::primary`] (default [`Verb::INTERACT`]),
//!   the secondary button with [`HotspotClicks::secondary`] (default [`Verb::LOOK`]).
//!   The click does not go on to the room;
//! * any walker can be sent to act on one from code:
//!   [`HotspotCommandsExt::interact`];
//! * each interaction ends exactly once: [`InteractionArrived`] (the walker got
//!   there and turned), [`InteractionCancelled`] (another request or interaction
//!   superseded it, the walker was stopped or removed, the hotspot was despawned or
//!   disabled) or [`InteractionUnreachable`] (see [`UnreachablePolicy`]). Each is an
//!   [`EntityEvent`] on the hotspot (observe the hotspot to script it) and a
//!   [`Message`];
//! * [`WalkQuery`](crate::WalkQuery) answers
//!   [`hotspot_at`](crate::RoomView::hotspot_at).
//!
//! While it walks, the walker has an [`Interacting`] component saying with what.

use std::borrow::Cow;

use bevy::prelude::*;
use walkmask::layer::nearest_with_id;

use super::{layer_id_at, placed_layer};
use crate::asset::WalkMask;
use crate::facing::{FaceTarget, turn};
use crate::outcome::{RequestEnded, RequestOutcome, StopReason};
use crate::placement::{Parents, entity_world_xy, walker_xy};
use crate::request::{CarriesRequest, RequestId, WalkRequest, keep_ids_after_inserted};
use crate::room::{WalkRoom, room_pixel_to_world};
use crate::walk::accept::accept_request;
use crate::walk::end::stop_walker;
use crate::walk::hurry::Hurry;
use crate::walker::Walker;

/// A room's hotspot layer: an image of hotspot ids, one per pixel (0: none), loaded
/// like a walk mask ([`WalkMask`], a `*.walk.png` with `rule: Indexed` in its
/// `.meta`), the room's walk-mask size or smaller by a whole factor. Each id is a
/// [`Hotspot`] entity, a child of the room; pixels of an id no enabled hotspot has
/// are floor.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::prelude::*;
///
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     let room = commands
///         .spawn((
///             WalkRoom::new(assets.load("rooms/lobby.walk.png")),
///             WalkHotspots::new(assets.load("rooms/lobby.hotspots.walk.png")),
///         ))
///         .id();
///     commands
///         .spawn((
///             Hotspot::new(1, "bell").with_walk_to(Vec2::new(310.0, 420.0)),
///             ChildOf(room),
///         ))
///         .observe(|arrived: On<InteractionArrived>| {
///             info!("{} rings the bell ({})", arrived.walker, arrived.verb);
///         });
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct WalkHotspots {
    /// The layer.
    pub layer: Handle<WalkMask>,
}

impl WalkHotspots {
    /// Hotspots painted in `layer`.
    pub fn new(layer: Handle<WalkMask>) -> Self {
        Self { layer }
    }
}

/// What a walker does with a hotspot: "look", "interact", "talk", or a game's own.
///
/// ```
/// use bevy_walkmask::Verb;
/// assert_eq!(Verb::from("look"), Verb::LOOK);
/// assert_eq!(Verb::new(String::from("push")).to_string(), "push");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Clone, Debug, PartialEq)]
pub struct Verb(pub Cow<'static, str>);

impl Verb {
    /// "interact": the primary button's verb by default.
    pub const INTERACT: Verb = Verb(Cow::Borrowed("interact"));
    /// "look": the secondary button's verb by default.
    pub const LOOK: Verb = Verb(Cow::Borrowed("look"));

    /// A verb named `name`.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Self(name.into())
    }
}

impl From<&'static str> for Verb {
    fn from(name: &'static str) -> Self {
        Self(Cow::Borrowed(name))
    }
}

impl From<String> for Verb {
    fn from(name: String) -> Self {
        Self(Cow::Owned(name))
    }
}

impl std::fmt::Display for Verb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a walker gets to act on a hotspot with a verb.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Clone, Debug, Default, PartialEq)]
pub enum WalkPolicy {
    /// Walk to the hotspot's walk-to point, turn, then act (the default).
    #[default]
    WalkThenAct,
    /// Stop where it stands, turn to the hotspot (the point picked, else its nearest
    /// pixel), then act ("look at").
    FaceOnly,
    /// Act at once, wherever it is and whatever it is doing.
    ActInPlace,
}

/// What happens when a walker cannot get to a hotspot's walk-to point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Clone, Debug, Default, PartialEq)]
pub enum UnreachablePolicy {
    /// [`InteractionUnreachable`] (the default): after walking as near as it can, or
    /// at once when no way leads anywhere nearer.
    #[default]
    Report,
    /// [`InteractionArrived`] wherever the walk ended.
    ActAnyway,
    /// [`InteractionArrived`] when the walk ended within this many world units of
    /// the walk-to point, else [`InteractionUnreachable`].
    ActWithin(f32),
}

/// One hotspot of a room's [`WalkHotspots`] layer: spawn it as a child of the room.
/// Every field may change at runtime (and be saved with the game: it is
/// `Reflect`).
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct Hotspot {
    /// Its id: the pixel value of the layer (1 to 255).
    pub id: u8,
    /// Its name, for the game to show.
    pub name: String,
    /// Whether the pointer picks it and walkers act on it; a disabled hotspot is
    /// floor.
    pub enabled: bool,
    /// Where a walker stands to act on it, in room pixels: x right, y down from the
    /// walk mask's top-left corner, one per picture pixel (see
    /// [`WalkRoom::room_pixel_to_mask`]; `(x + 0.5, y + 0.5)` is the centre of pixel
    /// `(x, y)`). The plugin maps it through the room's placement
    /// when a walker sets off, so it holds wherever the room is drawn. `None`: as near
    /// as it can get to where the hotspot was clicked (or to the hotspot's pixel
    /// nearest to it), and it acts there whatever that is.
    pub walk_to: Option<Vec2>,
    /// What the walker faces on arrival at the walk-to point. `None`: the hotspot
    /// ([`look_at`](Self::look_at), else where it was clicked, else its pixel nearest
    /// to the walk-to point). A verb done [`WalkPolicy::FaceOnly`] faces the hotspot
    /// itself.
    pub face: Option<FaceTarget>,
    /// The point of it that walkers look at, in room pixels like
    /// [`walk_to`](Self::walk_to) (mapped through the room's placement when a walker
    /// acts): a face on the painting, the handle of a door. `None`: where it was
    /// clicked, else its pixel nearest to the walk-to point.
    pub look_at: Option<Vec2>,
    /// How near the walk-to point (world units) a walk must end to count as arrived
    /// (a crowd may keep a walker off the point itself). `None`: 2.5 times the
    /// walker's radius, at least 8. A walker kept off the point by another that
    /// stands on it (one that others step round, however wide) counts as arrived
    /// when it stands beside that one, within this reach of its edge.
    pub arrival_radius: Option<f32>,
    /// A hint for the game's cursor over it ("door", "talk"); the plugin does not
    /// read it.
    pub cursor: Option<String>,
    /// How walkers get to act with verbs not listed in `verbs`.
    pub walk: WalkPolicy,
    /// How walkers get to act with particular verbs.
    pub verbs: Vec<(Verb, WalkPolicy)>,
    /// What happens when the walk-to point cannot be reached.
    pub unreachable: UnreachablePolicy,
}

impl Hotspot {
    /// Hotspot `id` named `name`: enabled, walked up to for every verb.
    pub fn new(id: u8, name: impl Into<String>) -> Self {
        Self {
            id,
            name: name.into(),
            enabled: true,
            walk_to: None,
            face: None,
            look_at: None,
            arrival_radius: None,
            cursor: None,
            walk: WalkPolicy::WalkThenAct,
            verbs: Vec::new(),
            unreachable: UnreachablePolicy::Report,
        }
    }

    /// Walkers stand at `point` (room pixels, see [`Hotspot::walk_to`]) to act on it.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::Hotspot;
    /// // The centre of pixel (120, 340) of the room's layers.
    /// let door = Hotspot::new(2, "door").with_walk_to(Vec2::new(120.5, 340.5));
    /// assert_eq!(door.walk_to, Some(Vec2::new(120.5, 340.5)));
    /// ```
    pub fn with_walk_to(mut self, point: Vec2) -> Self {
        self.walk_to = Some(point);
        self
    }

    /// Walkers face `face` on arrival.
    pub fn with_face(mut self, face: FaceTarget) -> Self {
        self.face = Some(face);
        self
    }

    /// Walkers look at `point` of it (room pixels, see [`Hotspot::look_at`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_walkmask::Hotspot;
    /// let painting = Hotspot::new(2, "painting")
    ///     .with_walk_to(Vec2::new(330.0, 450.0))
    ///     .with_look_at(Vec2::new(330.0, 120.0));
    /// assert_eq!(painting.look_at, Some(Vec2::new(330.0, 120.0)));
    /// ```
    pub fn with_look_at(mut self, point: Vec2) -> Self {
        self.look_at = Some(point);
        self
    }

    /// Verb `verb` is done by `policy`.
    ///
    /// ```
    /// # use bevy_walkmask::{Hotspot, Verb, WalkPolicy};
    /// let painting = Hotspot::new(2, "painting").with_verb(Verb::LOOK, WalkPolicy::FaceOnly);
    /// assert_eq!(painting.policy(&Verb::LOOK), WalkPolicy::FaceOnly);
    /// assert_eq!(painting.policy(&Verb::INTERACT), WalkPolicy::WalkThenAct);
    /// ```
    pub fn with_verb(mut self, verb: impl Into<Verb>, policy: WalkPolicy) -> Self {
        let verb = verb.into();
        self.verbs.retain(|(v, _)| *v != verb);
        self.verbs.push((verb, policy));
        self
    }

    /// What happens when its walk-to point cannot be reached.
    pub fn with_unreachable(mut self, policy: UnreachablePolicy) -> Self {
        self.unreachable = policy;
        self
    }

    /// How walkers act on it with `verb`.
    pub fn policy(&self, verb: &Verb) -> WalkPolicy {
        self.verbs
            .iter()
            .find(|(v, _)| v == verb)
            .map_or(self.walk, |&(_, policy)| policy)
    }
}

/// What a click on a hotspot does (with [`ClickInput::Picking`](crate::ClickInput)
/// and [`ClickToWalk::enabled`](crate::ClickToWalk)). A game with a verb bar sets
/// `primary` to the verb chosen.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{HotspotClicks, Verb};
///
/// fn talk_selected(mut clicks: ResMut<HotspotClicks>) {
///     clicks.primary = Some(Verb::from("talk"));
/// }
/// # bevy::ecs::system::assert_is_system(talk_selected);
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Debug, PartialEq)]
pub struct HotspotClicks {
    /// Whether clicks on hotspots start interactions (default true); off, a click
    /// on a hotspot walks to the point clicked as on the floor.
    pub enabled: bool,
    /// The verb of a primary-button click (default [`Verb::INTERACT`]); `None`: the
    /// click walks to the point clicked.
    pub primary: Option<Verb>,
    /// The verb of a secondary-button click (default [`Verb::LOOK`]); `None`: none.
    pub secondary: Option<Verb>,
    /// What the second click of a double click on the hotspot the players are
    /// walking to does (for the same verb): [`Hurry::Skip`] puts them there at once
    /// (an exit taken without the walk), [`Hurry::Run`] makes them hurry. `None`,
    /// the default: it starts the interaction again, like any click. Clicks are
    /// counted by Bevy's picking (`PickingSettings::multi_click_interval`).
    pub double_click: Option<Hurry>,
}

impl Default for HotspotClicks {
    fn default() -> Self {
        Self {
            enabled: true,
            primary: Some(Verb::INTERACT),
            secondary: Some(Verb::LOOK),
            double_click: None,
        }
    }
}

/// A walker on its way to act on a hotspot (added by the plugin, removed when the
/// interaction ends).
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Debug, PartialEq)]
#[component(on_insert = keep_ids_after_inserted::<Interacting>)]
pub struct Interacting {
    /// The hotspot.
    #[entities]
    pub hotspot: Entity,
    /// The verb.
    pub verb: Verb,
    /// The request of the walk there.
    pub request: RequestId,
    /// The walk-to point in the world (the hotspot's, mapped through its room's
    /// placement when the walk set off), when the hotspot has one: arrival is
    /// measured from it.
    pub walk_to: Option<Vec2>,
    /// How near `walk_to` the walk must end (world units).
    pub reach: f32,
    /// What happens when it is out of reach.
    pub unreachable: UnreachablePolicy,
}

impl CarriesRequest for Interacting {
    fn request(&self) -> RequestId {
        self.request
    }
}

/// A walker got to a hotspot (and turned), and acts: an [`EntityEvent`] on the
/// hotspot and a [`Message`].
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct InteractionArrived {
    /// The hotspot.
    #[event_target]
    pub hotspot: Entity,
    /// The walker.
    pub walker: Entity,
    /// The verb.
    pub verb: Verb,
    /// Where the walker stands (world).
    pub position: Vec2,
    /// The request of the walk there; `None` for a verb done without walking
    /// ([`WalkPolicy::FaceOnly`], [`WalkPolicy::ActInPlace`]).
    pub request: Option<RequestId>,
    /// Whether the walker walked there and stands at the walk-to point (within the
    /// hotspot's arrival radius, or the reach of [`UnreachablePolicy::ActWithin`]).
    /// False for a verb done without walking and for a walk that ended out of reach
    /// and was acted on anyway ([`UnreachablePolicy::ActAnyway`]). A [`RoomExit`](crate::RoomExit)
    /// is taken only when this holds: a look at a door is a look.
    pub at_walk_to: bool,
}

/// An interaction ended before the walker acted: another request or interaction
/// superseded it, the walker was stopped, removed or despawned, or the hotspot was
/// despawned or disabled. An [`EntityEvent`] on the hotspot (when it still exists)
/// and a [`Message`].
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct InteractionCancelled {
    /// The hotspot.
    #[event_target]
    pub hotspot: Entity,
    /// The walker.
    pub walker: Entity,
    /// The verb.
    pub verb: Verb,
}

/// A walker could not get to a hotspot's walk-to point (see [`UnreachablePolicy`]):
/// an [`EntityEvent`] on the hotspot and a [`Message`]. The game says "I can't reach
/// it".
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct InteractionUnreachable {
    /// The hotspot.
    #[event_target]
    pub hotspot: Entity,
    /// The walker.
    pub walker: Entity,
    /// The verb.
    pub verb: Verb,
    /// Where the walker stands (world).
    pub position: Vec2,
}

/// Interactions from code.
pub trait HotspotCommandsExt {
    /// The walker acts on `hotspot` with `verb`, after walking there as the
    /// hotspot's [`WalkPolicy`] for the verb says. An interaction under way is
    /// cancelled first. Every interaction ends with exactly one of
    /// [`InteractionArrived`], [`InteractionCancelled`] and
    /// [`InteractionUnreachable`]; an entity that is not a walker, or a hotspot that
    /// does not exist or is disabled, gets [`InteractionCancelled`].
    fn interact(&mut self, hotspot: Entity, verb: impl Into<Verb>) -> &mut Self;

    /// Like [`interact`](Self::interact), for a hotspot picked at `point` (world):
    /// without a walk-to point, the walker goes as near `point` as it can.
    fn interact_at(&mut self, hotspot: Entity, verb: impl Into<Verb>, point: Vec2) -> &mut Self;
}

impl HotspotCommandsExt for EntityCommands<'_> {
    fn interact(&mut self, hotspot: Entity, verb: impl Into<Verb>) -> &mut Self {
        let (walker, verb) = (self.id(), verb.into());
        self.commands().queue(move |world: &mut World| {
            start_interaction(world, walker, hotspot, verb, None);
        });
        self
    }

    fn interact_at(&mut self, hotspot: Entity, verb: impl Into<Verb>, point: Vec2) -> &mut Self {
        let (walker, verb) = (self.id(), verb.into());
        self.commands().queue(move |world: &mut World| {
            start_interaction(world, walker, hotspot, verb, Some(point));
        });
        self
    }
}

/// How an interaction ends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    /// Acted: where it stands, the walk there (if it walked) and whether it stands at
    /// the walk-to point.
    Arrived {
        position: Vec2,
        request: Option<RequestId>,
        at_walk_to: bool,
    },
    Cancelled,
    Unreachable(Vec2),
}

impl Ending {
    /// Acted where the walker stands, without walking.
    fn acted_in_place(position: Vec2) -> Self {
        Self::Arrived {
            position,
            request: None,
            at_walk_to: false,
        }
    }
}

/// Sends the event that ends `walker`'s interaction `interacting`.
fn emit_ending(world: &mut World, walker: Entity, interacting: &Interacting, ending: Ending) {
    let (hotspot, verb) = (interacting.hotspot, interacting.verb.clone());
    let exists = world.get_entity(hotspot).is_ok();
    macro_rules! send {
        ($event:expr) => {{
            let event = $event;
            world.write_message(event.clone());
            if exists {
                world.trigger(event);
            }
        }};
    }
    match ending {
        Ending::Arrived {
            position,
            request,
            at_walk_to,
        } => send!(InteractionArrived {
            hotspot,
            walker,
            verb,
            position,
            request,
            at_walk_to,
        }),
        Ending::Cancelled => send!(InteractionCancelled {
            hotspot,
            walker,
            verb,
        }),
        Ending::Unreachable(position) => send!(InteractionUnreachable {
            hotspot,
            walker,
            verb,
            position,
        }),
    }
}

/// Ends `walker`'s interaction if it is still the one of `request`: takes its
/// [`Interacting`] and sends `ending`.
fn settle(world: &mut World, walker: Entity, request: RequestId, ending: Ending) {
    let Ok(mut entity) = world.get_entity_mut(walker) else {
        return;
    };
    if entity
        .get::<Interacting>()
        .is_none_or(|interacting| interacting.request != request)
    {
        return;
    }
    let Some(interacting) = entity.take::<Interacting>() else {
        return;
    };
    emit_ending(world, walker, &interacting, ending);
}

/// Cancels `walker`'s interaction under way, if any.
fn cancel_interaction(world: &mut World, walker: Entity) {
    let Some(interacting) = world
        .get_entity_mut(walker)
        .ok()
        .and_then(|mut entity| entity.take::<Interacting>())
    else {
        return;
    };
    emit_ending(world, walker, &interacting, Ending::Cancelled);
}

/// `hotspot`'s [`Hotspot`], when it is an enabled hotspot.
fn enabled_hotspot(world: &World, hotspot: Entity) -> Option<Hotspot> {
    let spot = world.get::<Hotspot>(hotspot)?;
    spot.enabled.then(|| spot.clone())
}

/// The centre of `hotspot`'s layer pixel nearest to world point `from` (world), when
/// its room's layer is loaded and placed.
fn nearest_hotspot_pixel(world: &World, hotspot: Entity, id: u8, from: Vec2) -> Option<Vec2> {
    let room = world.get::<ChildOf>(hotspot)?.parent();
    let walk_room = world.get::<WalkRoom>(room)?;
    let layer = &world.get::<WalkHotspots>(room)?.layer;
    let global = world
        .get::<GlobalTransform>(room)
        .copied()
        .unwrap_or_default();
    let masks = world.resource::<Assets<WalkMask>>();
    let mask = masks.get(&walk_room.mask)?;
    let mapping = walk_room.mapping(&global, mask.size());
    let (layer, scale) = placed_layer(layer, masks, mask.size()).ok()??;
    if !mapping.is_valid() {
        return None;
    }
    let found = nearest_with_id(layer, id, scale.to_layer(mapping.world_to_mask(from)))?;
    let at = mapping.mask_to_world(scale.to_mask(found));
    at.is_finite().then_some(at)
}

/// Starts `walker`'s interaction with `hotspot` (see
/// [`HotspotCommandsExt::interact`]).
pub(crate) fn start_interaction(
    world: &mut World,
    walker: Entity,
    hotspot: Entity,
    verb: Verb,
    at: Option<Vec2>,
) {
    cancel_interaction(world, walker);
    let position = entity_world_xy(world, walker);
    let radius = world.get::<Walker>(walker).map(|w| w.radius);
    let (Some(position), Some(radius), Some(spot)) =
        (position, radius, enabled_hotspot(world, hotspot))
    else {
        // Not a walker, or not an enabled hotspot of a room.
        let interacting = Interacting {
            hotspot,
            verb,
            request: RequestId::new(),
            walk_to: None,
            reach: 0.0,
            unreachable: UnreachablePolicy::Report,
        };
        emit_ending(world, walker, &interacting, Ending::Cancelled);
        return;
    };
    let at = at.filter(|p| p.is_finite());
    // The walk-to point in the world, as the room is placed now (none while the
    // room's mask is not loaded).
    let room = world.get::<ChildOf>(hotspot).map(ChildOf::parent);
    let in_world = |pixel: Option<Vec2>| {
        pixel
            .zip(room)
            .and_then(|(pixel, room)| room_pixel_to_world(world, room, pixel))
    };
    let walk_to = in_world(spot.walk_to);
    let reach = spot
        .arrival_radius
        .filter(|r| r.is_finite() && *r >= 0.0)
        .unwrap_or_else(|| (2.5 * radius).max(8.0));
    // What it looks at: its own look-at point, else the point picked, else the
    // hotspot itself.
    let look_at = in_world(spot.look_at)
        .or(at)
        .or_else(|| nearest_hotspot_pixel(world, hotspot, spot.id, walk_to.unwrap_or(position)));
    let face = spot.face.or(look_at.map(FaceTarget::Point));
    let mut interacting = Interacting {
        hotspot,
        verb,
        request: RequestId::new(),
        walk_to,
        reach,
        unreachable: spot.unreachable,
    };
    match spot.policy(&interacting.verb) {
        WalkPolicy::ActInPlace => {
            emit_ending(
                world,
                walker,
                &interacting,
                Ending::acted_in_place(position),
            );
        }
        WalkPolicy::FaceOnly => {
            stop_walker(world, walker);
            // From where it stands it looks at the hotspot itself (the facing given
            // is the one for its walk-to point).
            let face = look_at.map(FaceTarget::Point).or(spot.face);
            if let (Some(face), Ok(mut entity)) = (face, world.get_entity_mut(walker)) {
                turn(&mut entity, face, position);
            }
            emit_ending(
                world,
                walker,
                &interacting,
                Ending::acted_in_place(position),
            );
        }
        WalkPolicy::WalkThenAct => {
            let Some(target) = walk_to.or(at).or(look_at) else {
                // Its layer is not loaded: nowhere to go.
                emit_ending(world, walker, &interacting, Ending::Unreachable(position));
                return;
            };
            let mut request = WalkRequest::new(walker, target);
            if let Some(face) = face {
                request = request.facing(face);
            }
            interacting.request = request.id;
            // Ending the interaction before ran the commands queued so far (when this
            // runs straight on the world, as a sequence's step does), which may have
            // started another: it ends too, rather than be replaced unheard.
            cancel_interaction(world, walker);
            let Ok(mut entity) = world.get_entity_mut(walker) else {
                emit_ending(world, walker, &interacting, Ending::Cancelled);
                return;
            };
            entity.insert(interacting);
            accept_request(world, request);
        }
    }
}

/// How an interaction whose walk-to point is out of reach ends, for a walker at
/// `position`: acted on anyway, or reported.
fn out_of_reach(policy: UnreachablePolicy, position: Vec2, request: RequestId) -> Ending {
    match policy {
        UnreachablePolicy::ActAnyway => Ending::Arrived {
            position,
            request: Some(request),
            at_walk_to: false,
        },
        _ => Ending::Unreachable(position),
    }
}

/// Queues the end of the interaction of `request`, if `walker` still has it.
fn queue_settle(commands: &mut Commands, walker: Entity, request: RequestId, ending: Ending) {
    commands.queue(move |world: &mut World| settle(world, walker, request, ending));
}

/// The walk there (its request) ended: the interaction ends with it.
///
/// * at its end: arrived when within reach of the walk-to point (or acted on anyway,
///   [`UnreachablePolicy`]) and the hotspot is still enabled, else out of reach, or
///   cancelled when the hotspot was disabled meanwhile;
/// * with no path, or blocked on the way: out of reach (or acted on where it stands);
/// * cancelled, stopped, superseded or removed: cancelled.
pub(crate) fn interaction_request_ended(
    ev: On<RequestEnded>,
    walkers: Query<(&Interacting, &Transform, Option<&ChildOf>)>,
    hotspots: Query<&Hotspot>,
    others: Query<OtherWalker>,
    parents: Parents,
    mut commands: Commands,
) {
    let Ok((interacting, transform, child_of)) = walkers.get(ev.entity) else {
        return;
    };
    if interacting.request != ev.request {
        return;
    }
    let ending = match ev.outcome {
        RequestOutcome::Arrived { position } => {
            let reach = crowded_reach(ev.entity, interacting, position, &others, &parents);
            arrival(interacting, &hotspots, ev.request, position, reach)
        }
        RequestOutcome::Unreachable => {
            let position = walker_xy(transform, child_of, &parents);
            out_of_reach(interacting.unreachable, position, ev.request)
        }
        RequestOutcome::Stopped {
            reason: StopReason::Blocked,
            position,
        } => out_of_reach(interacting.unreachable, position, ev.request),
        RequestOutcome::Stopped { .. } | RequestOutcome::Cancelled => Ending::Cancelled,
    };
    queue_settle(&mut commands, ev.entity, ev.request, ending);
}

/// A walker as others see it at an arrival: where it stands, its size and room.
type OtherWalker = (
    Entity,
    &'static Walker,
    &'static crate::CurrentRoom,
    &'static crate::Avoidance,
    &'static Transform,
    Option<&'static ChildOf>,
);

/// How near the walk-to point `walker` (arrived at `position`) must stand to count
/// as there: the interaction's reach, or, when another walker that others step
/// round stands on the walk-to point (wider than the reach leaves room for), as near
/// as that walker lets it come: beside it, within the reach of its edge.
fn crowded_reach(
    walker: Entity,
    interacting: &Interacting,
    position: Vec2,
    others: &Query<OtherWalker>,
    parents: &Parents,
) -> f32 {
    let (reach, Some(walk_to)) = (interacting.reach, interacting.walk_to) else {
        return interacting.reach;
    };
    let Ok((_, own, room, ..)) = others.get(walker) else {
        return reach;
    };
    let (radius, room) = (own.radius.max(0.0), room.get());
    let mut needed = reach;
    for (other, settings, other_room, avoidance, transform, child_of) in others.iter() {
        let r = settings.radius;
        let solid = avoidance.enabled && r.is_finite() && r > 0.0;
        if other == walker || other_room.get() != room || !solid {
            continue;
        }
        let at = walker_xy(transform, child_of, parents);
        // It covers the walk-to point for this walker, and this one stands beside it.
        if at.distance(walk_to) <= r + radius && position.distance(at) <= r + radius + reach {
            needed = needed.max(position.distance(walk_to));
        }
    }
    needed
}

/// How an interaction whose walk arrived at `position` ends (`reach`: how near the
/// walk-to point counts as there).
fn arrival(
    interacting: &Interacting,
    hotspots: &Query<&Hotspot>,
    request: RequestId,
    position: Vec2,
    reach: f32,
) -> Ending {
    let enabled = hotspots
        .get(interacting.hotspot)
        .is_ok_and(|hotspot| hotspot.enabled);
    if !enabled {
        return Ending::Cancelled;
    }
    let off = interacting
        .walk_to
        .map_or(0.0, |point| point.distance(position));
    let within = |reach: f32| off <= reach;
    let at_walk_to = within(reach)
        || matches!(interacting.unreachable, UnreachablePolicy::ActWithin(reach) if within(reach));
    if at_walk_to || interacting.unreachable == UnreachablePolicy::ActAnyway {
        Ending::Arrived {
            position,
            request: Some(request),
            at_walk_to,
        }
    } else {
        Ending::Unreachable(position)
    }
}

/// A walker removed or despawned mid-interaction: cancelled (its walk's own end
/// may come after the entity is gone).
pub(crate) fn interaction_walker_removed(
    removed: On<Remove, Walker>,
    walkers: Query<&Interacting>,
    mut commands: Commands,
) {
    let walker = removed.entity;
    let Ok(interacting) = walkers.get(walker) else {
        return;
    };
    let interacting = interacting.clone();
    commands.queue(
        move |world: &mut World| match world.get_entity_mut(walker) {
            // Still there (only `Walker` went): settled by whichever comes first.
            Ok(_) => settle(world, walker, interacting.request, Ending::Cancelled),
            Err(_) => emit_ending(world, walker, &interacting, Ending::Cancelled),
        },
    );
}

/// Interactions with a hotspot that was disabled are cancelled at once (not when the
/// walk there ends); the walkers walk on.
pub(crate) fn cancel_disabled_interactions(
    walkers: Query<(Entity, &Interacting)>,
    hotspots: Query<&Hotspot>,
    mut commands: Commands,
) {
    for (walker, interacting) in &walkers {
        if hotspots
            .get(interacting.hotspot)
            .is_ok_and(|hotspot| !hotspot.enabled)
        {
            queue_settle(
                &mut commands,
                walker,
                interacting.request,
                Ending::Cancelled,
            );
        }
    }
}

/// A hotspot despawned (or no longer a hotspot): interactions with it are cancelled;
/// the walkers walk on.
pub(crate) fn hotspot_removed(
    removed: On<Remove, Hotspot>,
    walkers: Query<(Entity, &Interacting)>,
    mut commands: Commands,
) {
    for (walker, interacting) in &walkers {
        if interacting.hotspot == removed.entity {
            queue_settle(
                &mut commands,
                walker,
                interacting.request,
                Ending::Cancelled,
            );
        }
    }
}

/// The hotspots under `world_point`: the enabled hotspot of each room with a layer
/// whose pixel there has its id, as (room, hotspot).
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct HotspotLookup<'w, 's> {
    rooms: Query<
        'w,
        's,
        (
            Entity,
            &'static WalkRoom,
            &'static GlobalTransform,
            &'static WalkHotspots,
        ),
    >,
    hotspots: Query<'w, 's, (Entity, &'static Hotspot, &'static ChildOf)>,
    children: Query<'w, 's, &'static Children>,
    masks: Res<'w, Assets<WalkMask>>,
}

impl HotspotLookup<'_, '_> {
    /// The problems of `room`'s hotspot layer against its hotspots (ids without
    /// pixels, pixels without hotspots), and its hotspots' walk-to points (room
    /// pixels).
    pub(crate) fn check(
        &self,
        room: Entity,
        problems: &mut Vec<super::LayerProblem>,
    ) -> Vec<(Entity, Vec2)> {
        use super::LayerProblem;
        let spots: Vec<(Entity, &Hotspot)> = self
            .hotspots
            .iter()
            .filter(|(_, _, child_of)| child_of.parent() == room)
            .map(|(entity, hotspot, _)| (entity, hotspot))
            .collect();
        let walk_tos = spots
            .iter()
            .filter_map(|(entity, hotspot)| Some((*entity, hotspot.walk_to?)))
            .collect();
        let Ok((_, walk_room, _, layer)) = self.rooms.get(room) else {
            return walk_tos;
        };
        let Some(mask) = self.masks.get(&walk_room.mask) else {
            return walk_tos;
        };
        let layer = match placed_layer(&layer.layer, &self.masks, mask.size()) {
            Ok(Some((layer, _))) => layer,
            Ok(None) => return walk_tos,
            Err(why) => {
                problems.push(LayerProblem::Unusable {
                    layer: "hotspots",
                    why,
                });
                return walk_tos;
            }
        };
        let first = super::first_pixels(layer);
        for &(hotspot, spot) in &spots {
            if first[spot.id as usize].is_none() || spot.id == 0 {
                problems.push(LayerProblem::HotspotWithoutPixels {
                    hotspot,
                    id: spot.id,
                });
            }
        }
        for (id, pixel) in first.iter().enumerate().skip(1) {
            if let Some(pixel) = *pixel
                && !spots.iter().any(|(_, spot)| spot.id as usize == id)
            {
                problems.push(LayerProblem::PixelsWithoutHotspot {
                    id: id as u8,
                    pixel,
                });
            }
        }
        walk_tos
    }

    /// The enabled hotspot of `room` at `point` (world), if any.
    pub(crate) fn in_room(&self, room: Entity, point: Vec2) -> Option<Entity> {
        let (_, walk_room, global, layer) = self.rooms.get(room).ok()?;
        let mask = self.masks.get(&walk_room.mask)?;
        let mapping = walk_room.mapping(global, mask.size());
        if !mapping.is_valid() {
            return None;
        }
        let id = layer_id_at(&layer.layer, &self.masks, mask.size(), &mapping, point)?;
        if id == 0 {
            return None;
        }
        // The room's children, not every hotspot of every room.
        self.children
            .get(room)
            .ok()?
            .iter()
            .filter_map(|child| self.hotspots.get(child).ok())
            .find(|(_, hotspot, _)| hotspot.id == id && hotspot.enabled)
            .map(|(entity, ..)| entity)
    }
}

impl HotspotLookup<'_, '_> {
    /// The enabled hotspot of `room` at `point`, and where a click with `verb` on it
    /// walks the player: its walk-to point for a verb done
    /// [`WalkPolicy::WalkThenAct`]; `None` for a verb done without walking or a
    /// hotspot without a walk-to point (the walk goes to the point itself).
    pub(crate) fn click_target(
        &self,
        room: Entity,
        point: Vec2,
        verb: &Verb,
    ) -> Option<(Entity, Option<Vec2>)> {
        let hotspot = self.in_room(room, point)?;
        let (_, spot, _) = self.hotspots.get(hotspot).ok()?;
        let walk_to = match spot.policy(verb) {
            WalkPolicy::WalkThenAct => spot.walk_to.and_then(|pixel| {
                let (_, walk_room, global, _) = self.rooms.get(room).ok()?;
                let mask = self.masks.get(&walk_room.mask)?;
                walk_room.room_pixel_to_world(&walk_room.mapping(global, mask.size()), pixel)
            }),
            WalkPolicy::FaceOnly | WalkPolicy::ActInPlace => None,
        };
        Some((hotspot, walk_to))
    }
}

/// Hotspots in front of their room's plane by this much (world units) along a
/// picking ray, by default ([`WalkTuning::hotspot_pick_lift`](crate::WalkTuning::hotspot_pick_lift)).
#[cfg(feature = "picking")]
pub const HOTSPOT_LIFT: f32 = 0.01;

/// The hotspot picking backend: for every pointer ray, the enabled hotspot under it
/// in each room with a hotspot layer, hit where the ray meets the room's plane
/// ([`WalkTuning::hotspot_pick_lift`](crate::WalkTuning::hotspot_pick_lift) in front
/// of it), or, for a hotspot with a
/// [`Baseline`](crate::Baseline) (and a `Transform`), at the depth its baseline sorts
/// it to among characters: those in front of its baseline take the pointer, those
/// behind it are covered. Hotspots with a `Pickable` that is not hoverable are
/// skipped.
#[cfg(feature = "picking")]
pub(crate) fn pick_hotspots(
    rays: Option<Res<bevy::picking::backend::ray::RayMap>>,
    cameras: Query<&Camera>,
    lookup: HotspotLookup,
    pickable: Query<&bevy::picking::Pickable>,
    sorted: Query<(&crate::Baseline, &GlobalTransform)>,
    hits: Option<ResMut<Messages<bevy::picking::backend::PointerHits>>>,
    tuning: Res<crate::WalkTuning>,
) {
    use bevy::picking::backend::{HitData, PointerHits};
    let lift = if tuning.hotspot_pick_lift.is_finite() {
        tuning.hotspot_pick_lift.max(0.0)
    } else {
        HOTSPOT_LIFT
    };
    let (Some(rays), Some(mut hits)) = (rays, hits) else {
        return;
    };
    if lookup.rooms.is_empty() {
        return;
    }
    for (ray_id, ray) in rays.iter() {
        let Ok(camera) = cameras.get(ray_id.camera) else {
            continue;
        };
        if !camera.is_active {
            continue;
        }
        let mut picks = Vec::new();
        for (room, _, global, _) in &lookup.rooms {
            let z = global.translation().z;
            let Some(t) = (ray.direction.z != 0.0)
                .then(|| (z - ray.origin.z) / ray.direction.z)
                .filter(|t| t.is_finite() && *t >= 0.0)
            else {
                continue;
            };
            let point = ray.get_point(t);
            let Some(hotspot) = lookup.in_room(room, point.truncate()) else {
                continue;
            };
            if pickable.get(hotspot).is_ok_and(|p| !p.is_hoverable) {
                continue;
            }
            // At its baseline's depth when it is sorted among the characters.
            let baseline_t = sorted
                .get(hotspot)
                .ok()
                .filter(|(baseline, _)| **baseline != crate::Baseline::Off)
                .map(|(_, global)| (global.translation().z - ray.origin.z) / ray.direction.z)
                .filter(|t| t.is_finite() && *t >= 0.0);
            let depth = baseline_t.unwrap_or((t - lift).max(0.0));
            picks.push((
                hotspot,
                HitData::new(ray_id.camera, depth, Some(point), Some(Vec3::Z)),
            ));
        }
        if !picks.is_empty() {
            hits.write(PointerHits::new(ray_id.pointer, picks, camera.order as f32));
        }
    }
}

/// A press of the primary button on a hotspot that its click acts on is the
/// hotspot's: it does not go on to the room, where holding the button would walk the
/// players after the pointer instead of to the hotspot.
#[cfg(feature = "picking")]
pub(crate) fn keep_press_on_hotspot(
    mut press: On<bevy::picking::events::Pointer<bevy::picking::events::Press>>,
    settings: Res<HotspotClicks>,
    walk_clicks: Res<crate::input::ClickToWalk>,
    hotspots: Query<&Hotspot>,
) {
    use bevy::picking::pointer::PointerButton;
    let acts = settings.enabled
        && walk_clicks.enabled
        && walk_clicks.input == crate::input::ClickInput::Picking
        && press.event.button == PointerButton::Primary
        && settings.primary.is_some()
        && hotspots
            .get(press.entity)
            .is_ok_and(|hotspot| hotspot.enabled);
    if acts {
        press.propagate(false);
    }
}

/// A click on a hotspot: the players in its room act on it with the button's verb
/// ([`HotspotClicks`]); the click does not go on to the room.
#[cfg(feature = "picking")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn interact_with_clicked_hotspot(
    mut click: On<bevy::picking::events::Pointer<bevy::picking::events::Click>>,
    settings: Res<HotspotClicks>,
    walk_clicks: crate::input::PlayerClicks,
    hotspots: Query<(&Hotspot, &ChildOf)>,
    players: crate::input::Players,
    mut commands: Commands,
) {
    use bevy::picking::pointer::PointerButton;
    if !settings.enabled || !walk_clicks.count_from(crate::input::ClickInput::Picking) {
        return;
    }
    let Ok((hotspot, child_of)) = hotspots.get(click.entity) else {
        return;
    };
    let verb = match click.event.button {
        PointerButton::Primary => settings.primary.clone(),
        PointerButton::Secondary => settings.secondary.clone(),
        PointerButton::Middle => None,
    };
    let Some(verb) = verb.filter(|_| hotspot.enabled) else {
        return;
    };
    click.propagate(false);
    let (entity, room) = (click.entity, child_of.parent());
    let at = click.event.hit.position.map(|p| p.truncate());
    let hurry = settings.double_click.filter(|_| click.event.count >= 2);
    for player in crate::input::players_in(room, &players) {
        let verb = verb.clone();
        commands.queue(move |world: &mut World| match hurry {
            // The second click of a double click hurries the walk there, if it is
            // still under way.
            Some(how) => {
                let walking_there = world
                    .get::<Interacting>(player)
                    .is_some_and(|i| i.hotspot == entity && i.verb == verb);
                if walking_there {
                    crate::walk::hurry::hurry_walker(world, player, how);
                }
            }
            None => start_interaction(world, player, entity, verb, at),
        });
    }
}
