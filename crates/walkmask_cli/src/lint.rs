//! `walkmask lint`: what is wrong with a room, printed and drawn.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use image::{Rgb, RgbImage};
use walkmask::ags::AgsRoom;
use walkmask::lint::{LintOptions, Problem, ProblemKind, RoomImages, Severity, lint_room};
use walkmask::room_file::RoomFile;

use crate::Failure;

/// Arguments of `walkmask lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The room: a room file (`NAME.room.ron`, its images relative to it), or an
    /// Adventure Game Studio room (`.crm`, or an AGS 4 room folder) as `ags-room`
    /// would bring it over.
    #[arg(value_name = "ROOM")]
    room: PathBuf,

    /// The radius of the widest walker, in room pixels: passages narrower than its
    /// diameter between wider floor are reported as pinch points.
    #[arg(long, value_name = "PIXELS")]
    radius: Option<f32>,

    /// Draw the room's picture (or its walk mask) with each problem marked into this
    /// PNG: islands magenta, unclaimed hotspot pixels yellow, stray pixels red, rings
    /// round points (red for errors, orange for warnings, cyan for pinch points), and
    /// a red frame for problems that are nowhere in particular.
    #[arg(short = 'o', long = "output", value_name = "OUT.png")]
    output: Option<PathBuf>,

    /// Print the problems as one JSON object instead of a line each.
    #[arg(long)]
    json: bool,
}

/// Lints the room, prints its problems and draws them; a room with errors is
/// `Failure::Problems`.
pub fn run(args: &LintArgs) -> Result<(), Failure> {
    let input = |e: &dyn std::fmt::Display| Failure::Input(format!("{}: {e}", args.room.display()));
    let (room, images, mut problems, picture) = if is_ags(&args.room) {
        let ags = if args.room.is_dir() {
            AgsRoom::read_folder(&args.room).map_err(|e| input(&e))?
        } else {
            AgsRoom::read_crm(&std::fs::read(&args.room).map_err(|e| input(&e))?)
                .map_err(|e| input(&e))?
        };
        let (room, _) = ags.to_room_file("room");
        let images = RoomImages {
            walk_mask: ags.walkable.clone(),
            hotspots: room.hotspots.as_ref().map(|_| ags.hotspot_mask.clone()),
            regions: room.regions.as_ref().map(|_| ags.region_mask.clone()),
            walk_behinds: room
                .walk_behinds
                .as_ref()
                .map(|_| ags.walk_behind_mask.clone()),
            picture_size: ags.background.as_ref().map(|b| b.dimensions()),
        };
        let picture = ags
            .background
            .map(|b| image::DynamicImage::from(b).to_rgb8());
        (room, Some(images), Vec::new(), picture)
    } else {
        let text = std::fs::read_to_string(&args.room).map_err(|e| input(&e))?;
        let room = RoomFile::from_ron(&text).map_err(|e| input(&e))?;
        let dir = args.room.parent().unwrap_or(Path::new("."));
        let (images, problems) = RoomImages::open(&room, dir);
        let picture = room
            .picture
            .as_ref()
            .and_then(|p| image::open(dir.join(p)).ok())
            .map(|p| p.to_rgb8());
        (room, images, problems, picture)
    };
    let options = LintOptions {
        walker_radius: args.radius,
        ..LintOptions::default()
    };
    if let Some(images) = &images {
        problems.extend(lint_room(&room, images, &options));
    }
    problems.sort_by_key(|p| p.severity);
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<serde_json::Value> = problems.iter().map(json).collect();
        let report = serde_json::json!({
            "room": args.room.display().to_string(),
            "errors": errors,
            "warnings": warnings,
            "problems": list,
        });
        writeln!(out, "{report}")?;
    } else {
        for p in &problems {
            let severity = match p.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            writeln!(out, "{severity}: {}", p.message)?;
        }
        writeln!(
            out,
            "{}: {errors} error{}, {warnings} warning{}",
            args.room.display(),
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" },
        )?;
    }
    if let Some(output) = &args.output {
        let base = picture
            .filter(|p| p.dimensions() == room.size)
            .unwrap_or_else(|| floor_picture(&room, images.as_ref()));
        let drawn = draw(base, &problems, args.radius);
        drawn.save(output).map_err(|e| {
            Failure::Output(std::io::Error::other(format!("{}: {e}", output.display())))
        })?;
    }
    if errors > 0 {
        Err(Failure::Problems)
    } else {
        Ok(())
    }
}

/// Whether `path` is an Adventure Game Studio room rather than a room file.
fn is_ags(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("crm"))
        || (path.is_dir() && path.join("data.xml").is_file())
}

/// A problem as JSON: severity, kind, message, and its point in room pixels.
fn json(p: &Problem) -> serde_json::Value {
    serde_json::json!({
        "severity": match p.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "kind": format!("{:?}", p.kind),
        "message": p.message,
        "at": p.at.map(|(x, y)| [x, y]),
        "pixels": p.pixels.as_ref().map(|px| px.pixels.len() as u64 * (px.scale as u64).pow(2)),
    })
}

/// The room's floor, light grey on dark, the room's size, when it has no picture.
fn floor_picture(room: &RoomFile, images: Option<&RoomImages>) -> RgbImage {
    let (w, h) = (room.size.0.max(1), room.size.1.max(1));
    let scale = room.walk_mask.scale.max(1);
    RgbImage::from_fn(w, h, |x, y| {
        let floor = images
            .and_then(|i| i.walk_mask.area_at(x / scale, y / scale))
            .is_some_and(|id| id != 0);
        if floor {
            Rgb([200, 200, 200])
        } else {
            Rgb([50, 50, 55])
        }
    })
}

/// `base` with the problems drawn on it.
fn draw(mut img: RgbImage, problems: &[Problem], radius: Option<f32>) -> RgbImage {
    let (w, h) = img.dimensions();
    // Darkened, so the marks stand out.
    for p in img.pixels_mut() {
        for c in &mut p.0 {
            *c = (*c as u16 * 3 / 5) as u8;
        }
    }
    let marker = (w.max(h) as f32 / 160.0).max(4.0);
    for p in problems {
        if let Some(pixels) = &p.pixels {
            let (colour, amount) = match p.kind {
                ProblemKind::Island => ([255, 0, 255], 0.55),
                ProblemKind::Unclaimed => ([255, 230, 0], 0.55),
                _ => ([255, 0, 0], 1.0),
            };
            for &(px, py) in &pixels.pixels {
                for dy in 0..pixels.scale {
                    for dx in 0..pixels.scale {
                        let (x, y) = (px * pixels.scale + dx, py * pixels.scale + dy);
                        if x < w && y < h {
                            let q = img.get_pixel_mut(x, y);
                            for (c, t) in q.0.iter_mut().zip(colour) {
                                *c = (*c as f32 * (1.0 - amount) + t as f32 * amount) as u8;
                            }
                        }
                    }
                }
            }
        }
    }
    let mut nowhere = false;
    for p in problems {
        match (p.at, p.kind) {
            (Some(at), ProblemKind::Pinch) => {
                crate::render::ring(
                    &mut img,
                    at,
                    radius.unwrap_or(marker).max(2.0),
                    [0, 230, 255],
                );
            }
            (Some(at), _) => {
                let colour = match p.severity {
                    Severity::Error => [255, 30, 30],
                    Severity::Warning => [255, 150, 0],
                };
                crate::render::ring(&mut img, at, marker, colour);
                crate::render::disc(&mut img, at, 1.5, colour);
            }
            (None, _) => nowhere |= p.severity == Severity::Error,
        }
    }
    if nowhere {
        let t = (marker / 2.0) as u32;
        for y in 0..h {
            for x in 0..w {
                if x < t || y < t || x + t >= w || y + t >= h {
                    img.put_pixel(x, y, Rgb([255, 30, 30]));
                }
            }
        }
    }
    img
}
