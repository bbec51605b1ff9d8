//! `walkmask`: click-to-walk paths over walk-mask images and Moving AI maps from the
//! command line — single queries, batches with timings, and rendered pictures.

mod ags_room;
mod answer;
mod coords;
#[cfg(test)]
mod fuzz_checks;
mod lines;
mod lint;
mod render;
mod rules;

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use walkmask::{AreaColor, AreaSet, DistanceField, NavGrid, PathOptions, Point, WalkMask};

use answer::{Answer, Answerer, Planner};
use lines::{may_block, next_line, open_input};
use rules::RuleArg;

const COORDINATES: &str = "\
COORDINATES:
  Points are in mask pixels, x to the right, y down, (0,0) the top-left corner of
  the mask. A whole number names a pixel and stands for its centre: `12,7` is the
  point (12.5, 7.5). A number with a decimal point is a point as given: `12.0,7.25`.
  Each coordinate is read on its own, so `12,7.25` is (12.5, 7.25). The same holds
  for the numbers in --queries and --scen files.";

const OUTPUT: &str = "\
OUTPUT:
  One JSON object per query, on one line:
    {\"status\":\"found\",\"waypoints\":[[x,y],...],\"length\":L,\"visited\":N,\"micros\":T}
  status      found (the path ends at the destination), snapped (the destination was
              blocked or in another region; the path ends at the nearest reachable
              pixel centre), unreachable (nothing walkable for the start, or
              --no-snap and the destination cannot be reached), or error (the query was rejected: outside the mask, not a number, or an
              unparsable line; an \"error\" field says why).
  waypoints   the walk, from the start (moved to the nearest walkable pixel centre
              when the start is blocked) to the end; [] when there is no path.
  length      length of the walk in pixels.
  visited     pixels the search settled (0 when the straight line was clear).
  micros      wall time of the query in microseconds, with the mask already loaded.
  optimal     (--scen only) the scenario's optimal octile length.";

const EXIT: &str = "\
EXIT STATUS:
  0  the command ran (even if some queries answered with status error)
  1  the output could not be written
  2  unusable input: bad flags, a missing or unreadable file, an undecodable mask
  3  (lint) the room has errors";

/// Pixel-accurate click-to-walk pathfinding over walk masks.
///
/// A walk mask is an image (PNG, BMP, GIF) or a Moving AI `.map` file; each pixel is
/// blocked or belongs to a numbered walkable area (1..=255). Paths are any-angle
/// polylines in pixel units.
#[derive(Debug, Parser)]
#[command(name = "walkmask", version, after_long_help = format!("{COORDINATES}\n\n{OUTPUT}\n\n{EXIT}"))]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Find one path and print it as a JSON object.
    ///
    /// Example: walkmask path room.png --rule alpha --from 12,140 --to 300,180
    #[command(after_long_help = format!("{COORDINATES}\n\n{OUTPUT}\n\n{EXIT}"))]
    Path(PathArgs),
    /// Answer many queries on one mask, one JSON object per line, in input order.
    ///
    /// The mask is loaded and prepared once; one planner with reusable buffers
    /// answers every query. A bad query (outside the mask, not a number, an
    /// unparsable line) prints an object with status "error" and the batch goes on.
    ///
    /// Example: walkmask batch arena.map --scen arena.map.scen
    #[command(after_long_help = format!("{COORDINATES}\n\n{OUTPUT}\n\n{EXIT}"))]
    Batch(BatchArgs),
    /// Draw the mask, the distance field of a query and its path into a PNG.
    ///
    /// Enabled areas get one colour per area id, disabled areas a dim version of
    /// it, blocked pixels dark grey. Pixels that can reach the path's end are tinted
    /// by their walking distance to it (yellow near, red, then deep blue far away).
    /// The path is a white line, its waypoints white dots, the start green and the
    /// end red; a red ring marks the requested destination when the path was
    /// snapped away from it. The path's JSON object is printed as with `path`.
    ///
    /// Example: walkmask render arena.map --from 3,3 --to 45,40 --scale 8 -o arena.png
    #[command(after_long_help = format!("{COORDINATES}\n\n{EXIT}"))]
    Render(RenderArgs),
    /// Bring an Adventure Game Studio room over: a room file (NAME.room.ron) and its
    /// images (the background, the walk mask and the hotspot, region and walk-behind
    /// layers as 8-bit indexed PNGs, index = id), written to a folder.
    ///
    /// Reads compiled `.crm` rooms of AGS 3.5.0 to 3.6.3 and AGS 4 room folders
    /// (`Rooms/N` with `data.xml`). Rooms of older AGS versions: open the game in AGS
    /// 3.6 and save the room again. Prints the path of each file written.
    ///
    /// Example: walkmask ags-room room3.crm -o assets/rooms
    #[command(after_long_help = EXIT)]
    AgsRoom(ags_room::AgsRoomArgs),
    /// Check a room and say what is wrong with it, where: a line a problem, a JSON
    /// list with --json, a picture with each problem marked with -o.
    ///
    /// Errors: values the room file cannot hold, images that do not load, layers
    /// that do not fit the room, a walk mask with no floor, spawn and walk-to points
    /// off the floor. Warnings: floor no spawn point reaches, pinch points narrower
    /// than a walker of --radius, walk-to points out of reach, hotspot pixels no
    /// hotspot claims, stray pixels, ids listed without pixels. Exits with 3 when the
    /// room has errors, so a game's CI can run it over every room.
    ///
    /// Example: walkmask lint assets/rooms/lobby.room.ron --radius 24 -o lobby.lint.png
    #[command(after_long_help = EXIT)]
    Lint(lint::LintArgs),
}

/// Where the mask comes from and which of its areas are walkable.
#[derive(Debug, Args)]
struct MaskArgs {
    /// The walk mask: an image (PNG, BMP, GIF) decoded by --rule, or a Moving AI
    /// `.map` file (`.`, `G`, `S` walkable; --rule is ignored).
    #[arg(value_name = "MASK")]
    mask: PathBuf,

    /// How image pixels become areas [default: luma].
    ///
    /// luma: luma >= 128 and alpha >= 128 is area 1, the rest blocked.
    /// alpha: alpha > 0 is area 1 (areas painted on a transparent layer).
    /// indexed: the palette index (or grey level) is the area id, 0 blocked.
    /// channel:C:T: channel C (r, g, b or a) >= T is area 1, e.g. channel:b:128.
    /// colors: exact colours from --area-color, every other colour blocked.
    /// exact-colors: as colors, but a colour not listed (in an opaque pixel) is an
    /// error naming it and its first pixel.
    #[arg(long, value_name = "RULE", value_parser = rules::parse_rule, verbatim_doc_comment)]
    rule: Option<RuleArg>,

    /// With --rule colors or exact-colors: pixels of this exact RGB colour are area ID
    /// (repeatable; ID 0 makes the colour blocked). Implies --rule colors.
    #[arg(long = "area-color", value_name = "ID=#RRGGBB", value_parser = rules::parse_area_color)]
    area_color: Vec<AreaColor>,

    /// Only these area ids are walkable, e.g. --areas 1,2 [default: all areas].
    #[arg(long, value_name = "IDS", value_delimiter = ',', value_parser = clap::value_parser!(u8).range(1..))]
    areas: Vec<u8>,
}

/// How queries are answered.
#[derive(Debug, Args)]
struct PlannerArgs {
    /// auto: the walkmask planner, searching the mask's subgoal index where it pays
    /// (built once per run) and filling elsewhere. index: the same with the index
    /// built on every mask. fill: the walkmask planner without the index. astar,
    /// bfs: baseline planners for comparison.
    #[arg(long, value_enum, default_value_t = Planner::Auto)]
    planner: Planner,

    /// Answer "unreachable" instead of snapping a blocked or unreachable
    /// destination to the nearest reachable pixel.
    #[arg(long)]
    no_snap: bool,

    /// Keep the traced pixel path instead of straightening it with line-of-sight
    /// shortcuts and pulling it taut.
    #[arg(long)]
    no_beautify: bool,

    /// Keep the line-of-sight shortcuts but do not pull the path taut round
    /// obstacle corners.
    #[arg(long)]
    no_taut: bool,
}

impl PlannerArgs {
    fn options(&self) -> PathOptions {
        PathOptions {
            snap_destination: !self.no_snap,
            beautify: !self.no_beautify,
            taut: !self.no_beautify && !self.no_taut,
            grid_steps: false,
            use_index: true,
            obstacle_detours: walkmask::ObstacleDetours::Shortest,
        }
    }
}

/// The two ends of one query.
#[derive(Debug, Args)]
struct EndpointArgs {
    /// Start point X,Y (see COORDINATES).
    #[arg(long, value_name = "X,Y", value_parser = coords::parse_point, allow_hyphen_values = true)]
    from: Point,
    /// Destination X,Y.
    #[arg(long, value_name = "X,Y", value_parser = coords::parse_point, allow_hyphen_values = true)]
    to: Point,
}

#[derive(Debug, Args)]
struct PathArgs {
    #[command(flatten)]
    mask: MaskArgs,
    #[command(flatten)]
    ends: EndpointArgs,
    #[command(flatten)]
    planner: PlannerArgs,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).args(["queries", "scen"]))]
struct BatchArgs {
    #[command(flatten)]
    mask: MaskArgs,
    /// A file of queries, one `sx sy gx gy` per line (spaces, tabs or commas;
    /// blank lines and lines starting with # skipped). `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    /// A Moving AI scenario file (`version 1`, then `bucket map width height sx sy
    /// gx gy optimal` per line). Its map column is ignored: MASK is used. Each
    /// object gets the scenario's "optimal" length.
    #[arg(long, value_name = "FILE")]
    scen: Option<PathBuf>,
    #[command(flatten)]
    planner: PlannerArgs,
}

#[derive(Debug, Args)]
struct RenderArgs {
    #[command(flatten)]
    mask: MaskArgs,
    #[command(flatten)]
    ends: EndpointArgs,
    /// The PNG file to write.
    #[arg(short = 'o', long = "output", value_name = "OUT.png")]
    output: PathBuf,
    /// Output pixels per mask pixel (1..=64).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    scale: u32,
    #[command(flatten)]
    planner: PlannerArgs,
}

/// Why a command stopped.
enum Failure {
    /// Unusable input: exit status 2.
    Input(String),
    /// The output could not be written: exit status 1 (quietly 0 on a closed pipe).
    Output(io::Error),
    /// `lint` found errors in the room: exit status 3.
    Problems,
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Path(a) => run_path(a),
        Command::Batch(a) => run_batch(a),
        Command::Render(a) => run_render(a),
        Command::AgsRoom(a) => ags_room::run(a),
        Command::Lint(a) => lint::run(a),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(message)) => {
            eprintln!("walkmask: error: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("walkmask: error: could not write output: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Problems) => ExitCode::from(3),
    }
}

/// Loads the mask and prepares it for queries.
fn load_grid(args: &MaskArgs) -> Result<NavGrid, Failure> {
    let rule = rules::resolve_rule(args.rule.as_ref(), &args.area_color).map_err(Failure::Input)?;
    let mask = WalkMask::open(&args.mask, &rule).map_err(|e| match e {
        walkmask::MaskError::Io { .. } => Failure::Input(e.to_string()),
        other => Failure::Input(format!("{}: {other}", args.mask.display())),
    })?;
    let areas = if args.areas.is_empty() {
        AreaSet::all()
    } else {
        AreaSet::only(&args.areas)
    };
    Ok(NavGrid::new(mask, areas))
}

fn print_one(answer: &Answer) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    serde_json::to_writer(&mut out, answer).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

fn run_path(args: &PathArgs) -> Result<(), Failure> {
    let grid = load_grid(&args.mask)?;
    let mut answerer = Answerer::new(&grid, args.planner.planner, args.planner.options());
    let (result, micros) = answerer.answer(args.ends.from, args.ends.to);
    print_one(&Answer::from_result(result, micros))
}

fn run_batch(args: &BatchArgs) -> Result<(), Failure> {
    // Open the query file before loading the mask so a missing file fails fast.
    let (file, is_scen) = match (&args.queries, &args.scen) {
        (Some(q), _) => (q, false),
        (None, Some(s)) => (s, true),
        (None, None) => unreachable!("clap requires --queries or --scen"),
    };
    let mut input = open_input(file).map_err(Failure::Input)?;
    let grid = load_grid(&args.mask)?;
    let mut answerer = Answerer::new(&grid, args.planner.planner, args.planner.options());
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let emit = |out: &mut BufWriter<_>, answer: &Answer| -> Result<(), Failure> {
        serde_json::to_writer(&mut *out, answer).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        Ok(())
    };
    let read_error =
        |e: io::Error| Failure::Input(format!("could not read {}: {e}", file.display()));

    let mut buf = Vec::new();
    let mut n = 0;
    if is_scen {
        let header = loop {
            n += 1;
            match next_line(&mut input, n, &mut buf).map_err(read_error)? {
                Some(Ok(l)) if l.trim().is_empty() => continue,
                Some(Ok(l)) => break l.trim_start().starts_with("version"),
                _ => break false,
            }
        };
        if !header {
            return Err(Failure::Input(format!(
                "{} is not a Moving AI scenario file: it does not start with `version 1`",
                file.display()
            )));
        }
    }
    let (w, h) = (grid.width(), grid.height());
    loop {
        n += 1;
        if may_block(&input) {
            out.flush()?;
        }
        let line = match next_line(&mut input, n, &mut buf).map_err(read_error)? {
            None => break,
            Some(Err(problem)) => {
                emit(&mut out, &Answer::error(format!("line {n}: {problem}")))?;
                continue;
            }
            Some(Ok(line)) => line,
        };
        let trimmed = line.trim();
        if trimmed.is_empty() || (!is_scen && trimmed.starts_with('#')) {
            continue;
        }
        let answer = if is_scen {
            match coords::parse_scen_line(trimmed) {
                Err(e) => Answer::error(format!("line {n}: {e}")),
                Ok(q) if (q.width, q.height) != (w, h) => {
                    let mut a = Answer::error(format!(
                        "line {n}: the scenario is for a {} x {} map, the mask is {w} x {h}",
                        q.width, q.height
                    ));
                    a.optimal = Some(q.optimal);
                    a
                }
                Ok(q) => {
                    let (result, micros) = answerer.answer(q.start, q.goal);
                    let mut a = Answer::from_result(result, micros);
                    if let Some(e) = &mut a.error {
                        *e = format!("line {n}: {e}");
                    }
                    a.optimal = Some(q.optimal);
                    a
                }
            }
        } else {
            match coords::parse_query_line(trimmed) {
                Err(e) => Answer::error(format!("line {n}: {e}")),
                Ok((start, goal)) => {
                    let (result, micros) = answerer.answer(start, goal);
                    let mut a = Answer::from_result(result, micros);
                    if let Some(e) = &mut a.error {
                        *e = format!("line {n}: {e}");
                    }
                    a
                }
            }
        };
        emit(&mut out, &answer)?;
    }
    out.flush()?;
    Ok(())
}

/// Largest picture `render` writes, in output pixels.
const MAX_RENDER_PIXELS: u64 = 64 << 20;

fn run_render(args: &RenderArgs) -> Result<(), Failure> {
    let grid = load_grid(&args.mask)?;
    let out_pixels = grid.width() as u64 * grid.height() as u64 * (args.scale as u64).pow(2);
    if out_pixels > MAX_RENDER_PIXELS {
        return Err(Failure::Input(format!(
            "a {} x {} mask at --scale {} makes a picture of {out_pixels} pixels, over the limit of {MAX_RENDER_PIXELS}; use a smaller --scale",
            grid.width(),
            grid.height(),
            args.scale
        )));
    }
    let mut answerer = Answerer::new(&grid, args.planner.planner, args.planner.options());
    let (result, micros) = answerer.answer(args.ends.from, args.ends.to);
    let answer = Answer::from_result(result.clone(), micros);
    let waypoints = result.map(|r| r.waypoints).unwrap_or_default();

    // The field is filled from the path's end; without a path, from the requested
    // destination if it is walkable.
    let end = waypoints.last().copied().unwrap_or(args.ends.to);
    let field = end
        .pixel()
        .filter(|&(x, y)| grid.is_walkable(x, y))
        .and_then(|p| DistanceField::new(&grid, p));
    let img = render::draw(&render::Scene {
        grid: &grid,
        field: field.as_ref(),
        waypoints: &waypoints,
        start: args.ends.from,
        goal: args.ends.to,
        scale: args.scale,
    });
    img.save_with_format(&args.output, image::ImageFormat::Png)
        .map_err(|e| match e {
            image::ImageError::IoError(io) => {
                Failure::Input(format!("could not write {}: {io}", args.output.display()))
            }
            other => Failure::Input(format!(
                "could not write {}: {other}",
                args.output.display()
            )),
        })?;
    print_one(&answer)
}
