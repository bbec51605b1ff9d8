//! The overlay's lint layer: what `walkmask lint` finds in each room made from a room
//! file, for the widest walker, marked where it is.

use bevy::color::palettes::css::{ORANGE, RED};
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use walkmask::lint::{LintOptions, Problem, ProblemKind, RoomImages, Severity, lint_room};
use walkmask::room_file::RoomFile;

use super::{WalkmaskDebug, WalkmaskGizmos};
use crate::asset::WalkMask;
use crate::room::WalkRoom;
use crate::room_file::{AppliedRoomFile, FromRoomFile, RoomAsset};
use crate::walker::Walker;

/// What the lint ([`walkmask::lint`], as `walkmask lint` runs it) finds in a room made
/// from a room file, while the debug overlay is on: islands of floor no spawn point
/// reaches, passages narrower than the widest walker, points off the floor, out of
/// reach or where the widest walker does not fit, unclaimed and stray ids, layers that do not fit. Added to the room by
/// [`WalkmaskDebugPlugin`](super::WalkmaskDebugPlugin) (looked for again when the
/// file, its images or the widest walker change) and drawn by it; each problem is
/// logged once as a warning.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::RoomLint;
///
/// fn errors(rooms: Query<(&Name, &RoomLint)>) {
///     for (name, lint) in &rooms {
///         for problem in lint.errors() {
///             error!("{name}: {}", problem.message);
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(errors);
/// ```
#[derive(Component, Clone, Debug)]
pub struct RoomLint {
    /// The walker radius (room pixels) pinch points were looked for with: the widest
    /// walker's, `None` with no walkers.
    pub walker_radius: Option<f32>,
    /// The problems, errors first.
    pub problems: Vec<Problem>,
    /// What the problems were found for: the room file as applied, and `key`.
    file: RoomFile,
    key: LintKey,
}

impl RoomLint {
    /// The problems that are errors.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }
}

/// What a lint depends on besides the room file: its images' revisions and the
/// walker radius (tenths of a room pixel).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LintKey {
    images: [Option<u64>; 4],
    radius: Option<u32>,
}

/// A lint under way: it hands back the file it linted with the problems.
#[derive(Component)]
pub(super) struct LintTask {
    key: LintKey,
    radius: Option<f32>,
    task: Task<(RoomFile, Vec<Problem>)>,
}

/// Starts a lint of each room made from a room file whose file, images or widest
/// walker changed, and takes in the lints that have finished.
#[allow(clippy::type_complexity)]
pub(super) fn lint_rooms(
    mut commands: Commands,
    debug: Res<WalkmaskDebug>,
    mut rooms: Query<(
        Entity,
        &FromRoomFile,
        &AppliedRoomFile,
        &GlobalTransform,
        Option<&RoomLint>,
        Option<&mut LintTask>,
    )>,
    assets: Res<Assets<RoomAsset>>,
    masks: Res<Assets<WalkMask>>,
    walkers: Query<&Walker>,
) {
    if !debug.enabled {
        return;
    }
    let widest = walkers
        .iter()
        .map(|w| w.radius)
        .filter(|r| r.is_finite() && *r > 0.0)
        .reduce(f32::max);
    for (room, from, applied, global, lint, task) in &mut rooms {
        if let Some(mut task) = task {
            if let Some((file, problems)) = check_ready(&mut task.task) {
                for problem in &problems {
                    warn!("room {room}: {}", problem.message);
                }
                commands.entity(room).remove::<LintTask>().insert(RoomLint {
                    walker_radius: task.radius,
                    problems,
                    file,
                    key: task.key,
                });
            }
            continue;
        }
        let Some(asset) = assets.get(&from.0) else {
            continue;
        };
        let image = |handle: Option<&Handle<WalkMask>>| handle.and_then(|h| masks.get(h));
        let Some(walk_mask) = image(Some(&asset.walk_mask)) else {
            continue;
        };
        let layers = [
            image(asset.hotspots.as_ref()),
            image(asset.regions.as_ref()),
            image(asset.walk_behinds.as_ref()),
        ];
        // The widest walker in room pixels, to the nearest tenth.
        let world_scale = global.scale().x.abs().max(f32::EPSILON);
        let radius = widest.map(|r| r / world_scale);
        let key = LintKey {
            images: [
                Some(walk_mask.revision()),
                layers[0].map(WalkMask::revision),
                layers[1].map(WalkMask::revision),
                layers[2].map(WalkMask::revision),
            ],
            radius: radius.map(|r| (r * 10.0).round() as u32),
        };
        if lint.is_some_and(|lint| lint.key == key && lint.file == applied.file) {
            continue;
        }
        let images = RoomImages {
            walk_mask: walk_mask.core().clone(),
            hotspots: layers[0].map(|l| l.core().clone()),
            regions: layers[1].map(|l| l.core().clone()),
            walk_behinds: layers[2].map(|l| l.core().clone()),
            picture_size: None,
        };
        let file = applied.file.clone();
        let options = LintOptions {
            walker_radius: radius,
            ..default()
        };
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let mut problems = lint_room(&file, &images, &options);
            problems.sort_by_key(|p| p.severity != Severity::Error);
            (file, problems)
        });
        commands.entity(room).insert(LintTask { key, radius, task });
    }
}

/// A short name of a problem's kind, drawn beside its mark.
fn label(kind: ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Field => "bad value",
        ProblemKind::Image => "image",
        ProblemKind::LayerSize => "layer size",
        ProblemKind::NoFloor => "no floor",
        ProblemKind::OffFloor => "off the floor",
        ProblemKind::OutOfReach => "out of reach",
        ProblemKind::Island => "island",
        ProblemKind::NoSpawnPoint => "no spawn point",
        ProblemKind::Pinch => "pinch",
        ProblemKind::Cramped => "cramped",
        ProblemKind::Unclaimed => "unclaimed",
        ProblemKind::Stray => "stray",
        ProblemKind::Unused => "unused",
    }
}

/// Each problem of a [`RoomLint`] where it is: a ring and its kind at its point, a
/// box round the pixels it covers; red for errors, orange for warnings.
pub(super) fn draw_lint(
    debug: Res<WalkmaskDebug>,
    mut gizmos: Gizmos<WalkmaskGizmos>,
    rooms: Query<(&RoomLint, &WalkRoom, &GlobalTransform)>,
    masks: Res<Assets<WalkMask>>,
) {
    if !debug.enabled {
        return;
    }
    for (lint, room, global) in &rooms {
        let Some(mask) = masks.get(&room.mask) else {
            continue;
        };
        let mapping = room.mapping(global, mask.size());
        let world = |x: f32, y: f32| room.room_pixel_to_world(&mapping, Vec2::new(x, y));
        for problem in &lint.problems {
            let color = match problem.severity {
                Severity::Error => Color::from(RED),
                Severity::Warning => Color::from(ORANGE),
            };
            if let Some(pixels) = &problem.pixels {
                let scale = pixels.scale.max(1) as f32;
                let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
                for &(x, y) in &pixels.pixels {
                    lo = lo.min(Vec2::new(x as f32, y as f32) * scale);
                    hi = hi.max(Vec2::new(x as f32 + 1.0, y as f32 + 1.0) * scale);
                }
                if let (Some(a), Some(b)) = (world(lo.x, lo.y), world(hi.x, hi.y)) {
                    gizmos.rect_2d(
                        Isometry2d::from_translation((a + b) / 2.0),
                        (b - a).abs(),
                        color,
                    );
                }
            }
            if let Some((x, y)) = problem.at
                && let Some(at) = world(x, y)
            {
                gizmos.circle_2d(Isometry2d::from_translation(at), 12.0, color);
                gizmos.text_2d(
                    Isometry2d::from_translation(at + Vec2::new(0.0, 24.0)),
                    label(problem.kind),
                    16.0,
                    Vec2::ZERO,
                    color,
                );
            }
        }
    }
}
