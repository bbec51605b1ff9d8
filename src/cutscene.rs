//! Cutscenes: walkers taking part in a scene the player watches, the player's input
//! held off while it runs, and a skip that finishes every walk of the scene at once.
//!
//! A walker takes part while it has [`InCutscene`]. While any walker does, the
//! player's clicks (walks and hotspot clicks) are ignored, and so is the
//! [`WalkInput`](crate::WalkInput) of every [`PlayerWalker`](crate::PlayerWalker)
//! and of every walker in the scene. [`CutsceneCommandsExt::skip_cutscene`] then puts
//! each walker of the scene at the end of its walk with its final facing, as
//! [`Hurry::Skip`](crate::Hurry::Skip) does for one walk, and every walk they start until the scene ends
//! is skipped as well: each still ends exactly once, with its usual outcomes. The
//! scene ends when the last walker leaves it; the next scene is not skipped.
//!
//! Sequences of steps (feature `sequences`, [`sequence`](crate::sequence)) start and
//! end a scene with [`StartCutscene`](crate::sequence::StartCutscene) and
//! [`EndCutscene`](crate::sequence::EndCutscene), and their waits end at once while
//! it is skipped. A game's own steps ask [`Cutscene::is_skipping`].
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_walkmask::prelude::*;
//!
//! fn escape_skips(keys: Res<ButtonInput<KeyCode>>, mut commands: Commands) {
//!     if keys.just_pressed(KeyCode::Escape) {
//!         commands.skip_cutscene();
//!     }
//! }
//! # bevy::ecs::system::assert_is_system(escape_skips);
//! ```

use bevy::prelude::*;

/// The walker takes part in the running cutscene (see [the module](self)). Insert it
/// to start a scene (or to join one), remove it when the walker's part is over.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct InCutscene;

/// Whether a cutscene runs, and whether it is being skipped: kept by the plugin from
/// the walkers that have [`InCutscene`].
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub struct Cutscene {
    pub(crate) walkers: usize,
    pub(crate) skipping: bool,
}

impl Cutscene {
    /// Whether some walker takes part in a cutscene: the player's input is ignored.
    pub fn is_running(&self) -> bool {
        self.walkers > 0
    }

    /// Whether the running cutscene is being skipped: a game's own scripted steps end
    /// at once (a line of dialogue is not shown, a wait does not wait).
    pub fn is_skipping(&self) -> bool {
        self.skipping
    }
}

/// Skipping cutscenes from game code.
pub trait CutsceneCommandsExt {
    /// Skips the running cutscene (nothing when none runs): every walker with
    /// [`InCutscene`] is put at the end of its walk, and every walk such a walker
    /// starts until the scene ends is skipped too.
    fn skip_cutscene(&mut self);
}

/// Whether a walk `walker` starts now is skipped: it takes part in a cutscene that
/// is being skipped.
pub(crate) fn skips_walks_of(world: &World, walker: Entity) -> bool {
    world
        .get_resource::<Cutscene>()
        .is_some_and(Cutscene::is_skipping)
        && world.get::<InCutscene>(walker).is_some()
}

/// Counts a walker that joined a scene.
pub(crate) fn joined_cutscene(_: On<Add, InCutscene>, mut cutscene: ResMut<Cutscene>) {
    cutscene.walkers += 1;
}

/// Counts a walker that left a scene (or was despawned in it); the scene is over when
/// none is left, and its skip with it.
pub(crate) fn left_cutscene(_: On<Remove, InCutscene>, mut cutscene: ResMut<Cutscene>) {
    cutscene.walkers = cutscene.walkers.saturating_sub(1);
    if cutscene.walkers == 0 {
        cutscene.skipping = false;
    }
}
