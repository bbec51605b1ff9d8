//! The planner's numbers as Bevy [`Diagnostic`]s, for `LogDiagnosticsPlugin`, a
//! diagnostics overlay or any system that reads the [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore).

use bevy::diagnostic::{Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic};
use bevy::prelude::*;

use crate::plan::{NavGridCache, PlannerStatus, WarmFieldCache};
use crate::walk::WalkStats;
use crate::walker::WalkState;

/// Reports the plugin's planner to Bevy's diagnostics, once a frame (in `Last`):
///
/// | path | what |
/// |---|---|
/// | [`ANSWER_FRAMES`](Self::ANSWER_FRAMES) | mean frames from request to path, of the paths answered in the frame (no value in frames without one) |
/// | [`REQUESTS_WAITING`](Self::REQUESTS_WAITING) | requests read and not yet answered |
/// | [`SEARCHES`](Self::SEARCHES) | path tasks on the async compute pool |
/// | [`WALKING`](Self::WALKING) | walkers walking |
/// | [`REPLANS`](Self::REPLANS) | walks planned again in the frame |
/// | [`GRID_BUILDS`](Self::GRID_BUILDS) | grids built in the frame |
/// | [`GRID_BYTES`](Self::GRID_BYTES) | bytes of prepared grids and their search indexes |
/// | [`FIELD_BYTES`](Self::FIELD_BYTES) | bytes of warm distance fields |
///
/// Add it after [`WalkmaskPlugin`](crate::WalkmaskPlugin), with Bevy's
/// `LogDiagnosticsPlugin` to see them in the log:
///
/// ```no_run
/// use bevy::diagnostic::LogDiagnosticsPlugin;
/// use bevy::prelude::*;
/// use bevy_walkmask::{WalkmaskDiagnosticsPlugin, WalkmaskPlugin};
///
/// App::new().add_plugins((
///     DefaultPlugins,
///     WalkmaskPlugin::default(),
///     WalkmaskDiagnosticsPlugin,
///     LogDiagnosticsPlugin::default(),
/// ));
/// ```
///
/// The same counts, added up since the start, are in [`WalkStats`],
/// [`NavGridCache::stats`] and [`WarmFieldCache::stats`].
#[derive(Clone, Copy, Debug, Default)]
pub struct WalkmaskDiagnosticsPlugin;

impl WalkmaskDiagnosticsPlugin {
    /// Mean frames from request to path of the paths answered in the frame.
    pub const ANSWER_FRAMES: DiagnosticPath = DiagnosticPath::const_new("walkmask/answer_frames");
    /// Requests read and not yet answered.
    pub const REQUESTS_WAITING: DiagnosticPath =
        DiagnosticPath::const_new("walkmask/requests_waiting");
    /// Path tasks spawned on the async compute pool and not yet collected.
    pub const SEARCHES: DiagnosticPath = DiagnosticPath::const_new("walkmask/searches");
    /// Walkers whose state is [`WalkState::Walking`].
    pub const WALKING: DiagnosticPath = DiagnosticPath::const_new("walkmask/walking");
    /// Walks planned again in the frame ([`PathReplanned`](crate::PathReplanned)).
    pub const REPLANS: DiagnosticPath = DiagnosticPath::const_new("walkmask/replans");
    /// Grids built in the frame (by path tasks and warm-ups).
    pub const GRID_BUILDS: DiagnosticPath = DiagnosticPath::const_new("walkmask/grid_builds");
    /// Bytes held by the [`NavGridCache`].
    pub const GRID_BYTES: DiagnosticPath = DiagnosticPath::const_new("walkmask/grid_bytes");
    /// Bytes held by the [`WarmFieldCache`].
    pub const FIELD_BYTES: DiagnosticPath = DiagnosticPath::const_new("walkmask/field_bytes");
}

impl Plugin for WalkmaskDiagnosticsPlugin {
    fn build(&self, app: &mut App) {
        for (path, suffix) in [
            (Self::ANSWER_FRAMES, " frames"),
            (Self::REQUESTS_WAITING, ""),
            (Self::SEARCHES, ""),
            (Self::WALKING, ""),
            (Self::REPLANS, ""),
            (Self::GRID_BUILDS, ""),
            (Self::GRID_BYTES, " B"),
            (Self::FIELD_BYTES, " B"),
        ] {
            app.register_diagnostic(Diagnostic::new(path).with_suffix(suffix));
        }
        app.add_systems(Last, measure);
    }
}

/// What the last frame's measurement had counted so far, to report per-frame deltas.
#[derive(Default)]
struct Counted {
    answered: u64,
    answer_frames: u64,
    replanned: u64,
    grid_builds: u64,
}

fn measure(
    mut diagnostics: Diagnostics,
    mut counted: Local<Counted>,
    stats: Option<Res<WalkStats>>,
    planner: Option<Res<PlannerStatus>>,
    grids: Option<Res<NavGridCache>>,
    fields: Option<Res<WarmFieldCache>>,
    walkers: Query<&WalkState>,
) {
    let (Some(stats), Some(planner), Some(grids), Some(fields)) = (stats, planner, grids, fields)
    else {
        return; // the WalkmaskPlugin is not added
    };
    let grid_stats = grids.stats();
    let new_answers = stats.answered - counted.answered;
    if new_answers > 0 {
        let frames = stats.answer_frames - counted.answer_frames;
        diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::ANSWER_FRAMES, || {
            frames as f64 / new_answers as f64
        });
    }
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::REQUESTS_WAITING, || {
        stats.waiting as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::SEARCHES, || {
        planner.tasks_in_flight() as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::WALKING, || {
        walkers
            .iter()
            .filter(|state| **state == WalkState::Walking)
            .count() as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::REPLANS, || {
        (stats.replanned - counted.replanned) as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::GRID_BUILDS, || {
        (grid_stats.grid_builds - counted.grid_builds) as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::GRID_BYTES, || {
        grid_stats.bytes as f64
    });
    diagnostics.add_measurement(&WalkmaskDiagnosticsPlugin::FIELD_BYTES, || {
        fields.stats().bytes as f64
    });
    *counted = Counted {
        answered: stats.answered,
        answer_frames: stats.answer_frames,
        replanned: stats.replanned,
        grid_builds: grid_stats.grid_builds,
    };
}
