//! Frame cost of the plugin on the main thread, headless.
//!
//! A 1920 x 1080 walk mask with furniture rectangles is made in code and put straight
//! into `Assets<WalkMask>`; 100 walkers start with a walk each, then 10 new walk
//! requests per second go round them, spread over the frames. Frames advance a fixed
//! 16 ms of virtual time (`TimeUpdateStrategy::ManualDuration`) and are paced to 16 ms
//! of wall time, so background path tasks get the time they would get at 60 fps.
//!
//! Measured per frame:
//!
//! * plugin span: wall time from a system ordered `.before(WalkmaskSystems::Input)` to
//!   one ordered `.after(WalkmaskSystems::Move)` in `Update`, i.e. the plugin's
//!   systems on the main thread including the command application between them
//!   (walk requests accepted, outcomes applied and sent);
//! * whole `app.update()`.
//!
//! Prints median and p99 in milliseconds (after a 2 s settling period that holds the
//! start-up burst of 100 requests), the number of requests and outcomes, and the mean
//! latency of a request in frames (request written -> `PathReady` or
//! `PathUnreachable`). `--no-warm` turns warm fields off
//! ([`WalkmaskPlugin::warm_fields`]) for comparison.
//!
//! `--crowd` measures a crowd instead: 300 walkers, all sent together to a new point
//! every half second (a crowd following the player), and also prints the distance
//! fields filled per second and how many walks were traced from a shared field.
//!
//! `--hover` adds a player standing still and moves the hover point
//! ([`WalkHover`](bevy_walkmask::WalkHover)) to a new random point every frame (the
//! worst case for warm traces: a pointer that never rests on a pixel), and prints how
//! many frames had an answer for the point of that frame, and from where.
//! `--hover-rest` moves it every 15 frames instead (a pointer that rests a quarter of
//! a second on each point), which lets queries answer without warm fields.
//!
//! ```text
//! cargo run --release --example frame_cost [-- SECONDS] [--no-warm] [--crowd] [--hover | --hover-rest]
//! ```

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{NavGridCache, WarmFieldCache, walkmask};

const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const WALKERS: usize = 100;
const REQUESTS_PER_SECOND: f64 = 10.0;
/// Walkers in `--crowd` mode.
const CROWD_WALKERS: usize = 300;
/// Seconds between the crowd's destinations in `--crowd` mode.
const CROWD_PERIOD: f64 = 0.5;
const FRAME: Duration = Duration::from_millis(16);
/// Frames left out of the statistics at the start.
const SETTLE_FRAMES: u64 = 125;

/// Furniture: blocked rectangles (x0, y0, x1, y1), pixels, inclusive-exclusive.
const FURNITURE: [(u32, u32, u32, u32); 9] = [
    (200, 150, 520, 300),
    (700, 100, 760, 700),
    (900, 400, 1300, 460),
    (1400, 150, 1700, 380),
    (300, 600, 600, 900),
    (1000, 650, 1100, 1000),
    (1250, 700, 1800, 780),
    (1500, 850, 1560, 1080),
    (0, 0, 1920, 60),
];

fn walkable(x: u32, y: u32) -> bool {
    !FURNITURE
        .iter()
        .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y))
}

/// A small deterministic random generator (xorshift64*).
#[derive(Resource)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A world point over a walkable pixel (room centred on the origin, scale 1).
    fn walkable_point(&mut self) -> Vec2 {
        loop {
            let x = (self.next() % u64::from(WIDTH)) as u32;
            let y = (self.next() % u64::from(HEIGHT)) as u32;
            if walkable(x, y) {
                return Vec2::new(
                    x as f32 + 0.5 - WIDTH as f32 / 2.0,
                    HEIGHT as f32 / 2.0 - (y as f32 + 0.5),
                );
            }
        }
    }
}

/// Timings and counters.
#[derive(Resource, Default)]
struct Bench {
    frame: u64,
    span_start: Option<Instant>,
    /// Plugin span per frame, after settling.
    spans: Vec<Duration>,
    walkers: Vec<Entity>,
    /// Whether the walkers move as one crowd (`--crowd`).
    crowd: bool,
    next_walker: usize,
    requests: u64,
    requests_after_settling: u64,
    /// Frame each walker's latest request was written.
    requested_at: HashMap<Entity, u64>,
    latencies: Vec<u64>,
    ready: u64,
    unreachable: u64,
    cancelled: u64,
    arrived: u64,
    walking_samples: u64,
    /// Frames between hover point moves with a player standing still (`--hover`: 1,
    /// `--hover-rest`: 15); 0 without hover.
    hover: u64,
    /// Frames (after settling) whose hover answer was for that frame's point, by source:
    /// warm field, query.
    hover_fresh: (u64, u64),
    /// Frames (after settling) with a hover point.
    hover_frames: u64,
}

fn setup(
    mut commands: Commands,
    mut masks: ResMut<Assets<WalkMask>>,
    mut bench: ResMut<Bench>,
    mut rng: ResMut<Rng>,
) {
    let mask = walkmask::WalkMask::from_fn(WIDTH, HEIGHT, |x, y| u8::from(walkable(x, y)))
        .expect("valid mask size");
    commands.spawn(WalkRoom::new(masks.add(WalkMask::from(mask))));
    let walkers = if bench.crowd { CROWD_WALKERS } else { WALKERS };
    for _ in 0..walkers {
        let at = rng.walkable_point();
        let walker = commands
            .spawn((
                Walker::new(100.0),
                Transform::from_translation(at.extend(1.0)),
            ))
            .id();
        bench.walkers.push(walker);
    }
    if bench.hover > 0 {
        let at = rng.walkable_point();
        commands.spawn((
            Walker::new(100.0),
            PlayerWalker,
            Transform::from_translation(at.extend(1.0)),
        ));
    }
}

/// Moves the hover point to a new random point every frame (`--hover`).
fn move_hover(bench: Res<Bench>, mut rng: ResMut<Rng>, mut hover: ResMut<WalkHover>) {
    if bench.hover > 0 && bench.frame.is_multiple_of(bench.hover) {
        hover.point = Some(rng.walkable_point());
    }
}

/// Writes the walk requests due by now: one for every walker on the first frame, then
/// `REQUESTS_PER_SECOND`, round the walkers.
fn send_requests(
    time: Res<Time>,
    mut bench: ResMut<Bench>,
    mut rng: ResMut<Rng>,
    mut requests: MessageWriter<WalkRequest>,
) {
    let n = bench.walkers.len();
    if bench.crowd {
        // Everyone to one new point every CROWD_PERIOD.
        let round = (time.elapsed_secs_f64() / CROWD_PERIOD) as u64;
        if bench.frame > 0 && bench.requests >= (round + 1) * n as u64 {
            return;
        }
        let target = rng.walkable_point();
        let frame = bench.frame;
        for i in 0..n {
            let walker = bench.walkers[i];
            bench.requests += 1;
            if frame >= SETTLE_FRAMES {
                bench.requests_after_settling += 1;
            }
            bench.requested_at.insert(walker, frame);
            requests.write(WalkRequest::new(walker, target));
        }
        return;
    }
    let due = if bench.frame == 0 {
        n as u64
    } else {
        n as u64 + (time.elapsed_secs_f64() * REQUESTS_PER_SECOND) as u64
    };
    while bench.requests < due {
        let walker = bench.walkers[bench.next_walker % n];
        bench.next_walker += 1;
        bench.requests += 1;
        if bench.frame >= SETTLE_FRAMES {
            bench.requests_after_settling += 1;
        }
        let frame = bench.frame;
        bench.requested_at.insert(walker, frame);
        requests.write(WalkRequest::new(walker, rng.walkable_point()));
    }
}

fn span_start(mut bench: ResMut<Bench>) {
    bench.span_start = Some(Instant::now());
}

fn span_end(mut bench: ResMut<Bench>) {
    let elapsed = bench.span_start.take().map(|t| t.elapsed());
    if let Some(elapsed) = elapsed
        && bench.frame >= SETTLE_FRAMES
    {
        bench.spans.push(elapsed);
    }
}

fn count_outcomes(
    mut bench: ResMut<Bench>,
    mut ready: MessageReader<PathReady>,
    mut unreachable: MessageReader<PathUnreachable>,
    mut cancelled: MessageReader<PathCancelled>,
    mut arrived: MessageReader<Arrived>,
    states: Query<&WalkState>,
    hover: Res<WalkHover>,
) {
    if bench.hover > 0 && bench.frame >= SETTLE_FRAMES {
        bench.hover_frames += 1;
        if let Some(answer) = &hover.answer
            && Some(answer.point) == hover.point
        {
            match answer.source {
                bevy_walkmask::HoverSource::WarmField => bench.hover_fresh.0 += 1,
                bevy_walkmask::HoverSource::Query => bench.hover_fresh.1 += 1,
            }
        }
    }
    let ready: Vec<Entity> = ready.read().map(|e| e.entity).collect();
    let unreachable: Vec<Entity> = unreachable.read().map(|e| e.entity).collect();
    bench.ready += ready.len() as u64;
    bench.unreachable += unreachable.len() as u64;
    for walker in ready.into_iter().chain(unreachable) {
        if let Some(at) = bench.requested_at.remove(&walker)
            && at >= SETTLE_FRAMES
        {
            let latency = bench.frame - at;
            bench.latencies.push(latency);
        }
    }
    bench.cancelled += cancelled.read().count() as u64;
    bench.arrived += arrived.read().count() as u64;
    let walking = states.iter().filter(|s| **s == WalkState::Walking).count();
    bench.walking_samples += walking as u64;
    bench.frame += 1;
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mut seconds = 30.0;
    let mut warm_fields = true;
    let mut crowd = false;
    let mut hover = 0;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--no-warm" => warm_fields = false,
            "--hover" => hover = 1,
            "--hover-rest" => hover = 15,
            "--crowd" => crowd = true,
            _ => match arg.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 3.0 => seconds = s,
                _ => {
                    eprintln!(
                        "usage: frame_cost [SECONDS > 3] [--no-warm] [--crowd] [--hover | --hover-rest]; got '{arg}'"
                    );
                    std::process::exit(2);
                }
            },
        }
    }
    let frames = (seconds / FRAME.as_secs_f64()).round() as u64;

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        InputPlugin,
        WalkmaskPlugin {
            warm_fields,
            ..default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(Bench {
        crowd,
        hover,
        ..default()
    })
    .insert_resource(Rng(0x9e37_79b9_7f4a_7c15))
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            (send_requests, move_hover).before(span_start),
            span_start.before(WalkmaskSystems::Input),
            span_end.after(WalkmaskSystems::Move),
        ),
    )
    .add_systems(Last, count_outcomes);

    let mut updates = Vec::with_capacity(frames as usize);
    let run_started = Instant::now();
    for frame in 0..frames {
        let started = Instant::now();
        app.update();
        let took = started.elapsed();
        if frame >= SETTLE_FRAMES {
            updates.push(took);
        }
        if let Some(rest) = FRAME.checked_sub(took) {
            std::thread::sleep(rest);
        }
    }
    let wall = run_started.elapsed();

    let world = app.world();
    let bench = world.resource::<Bench>();
    let mut spans: Vec<f64> = bench.spans.iter().copied().map(ms).collect();
    spans.sort_by(f64::total_cmp);
    let mut updates: Vec<f64> = updates.into_iter().map(ms).collect();
    updates.sort_by(f64::total_cmp);
    let fields = world.resource::<WarmFieldCache>().stats();
    let grids = world.resource::<NavGridCache>().stats();
    let mean_latency = if bench.latencies.is_empty() {
        f64::NAN
    } else {
        bench.latencies.iter().sum::<u64>() as f64 / bench.latencies.len() as f64
    };
    let mut latencies = bench.latencies.clone();
    latencies.sort_unstable();

    let walkers = bench.walkers.len();
    if hover > 0 {
        println!(
            "hover: the point moved every {hover} frames; {} of {} frames answered for their own point ({} from the warm field, {} from a query)",
            bench.hover_fresh.0 + bench.hover_fresh.1,
            bench.hover_frames,
            bench.hover_fresh.0,
            bench.hover_fresh.1
        );
    }
    let load = if crowd {
        format!("all sent to one new point every {CROWD_PERIOD} s")
    } else {
        format!("{REQUESTS_PER_SECOND} requests/s")
    };
    println!(
        "frame_cost: {WIDTH} x {HEIGHT} mask, {walkers} walkers, {load}, warm fields {}, {frames} frames of {} ms ({seconds} s virtual, {:.1} s wall), profile {}",
        if warm_fields { "on" } else { "off" },
        FRAME.as_millis(),
        wall.as_secs_f64(),
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!(
        "statistics over {} frames after the first {SETTLE_FRAMES}",
        spans.len()
    );
    println!(
        "plugin span (main thread):  median {:.4} ms  p99 {:.4} ms  max {:.4} ms",
        percentile(&spans, 0.5),
        percentile(&spans, 0.99),
        spans.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "whole app.update():         median {:.4} ms  p99 {:.4} ms  max {:.4} ms",
        percentile(&updates, 0.5),
        percentile(&updates, 0.99),
        updates.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "requests: {} ({} after settling); outcomes: {} ready, {} unreachable, {} cancelled; {} arrivals",
        bench.requests,
        bench.requests_after_settling,
        bench.ready,
        bench.unreachable,
        bench.cancelled,
        bench.arrived
    );
    println!(
        "path latency (request -> answer, after settling): mean {:.2} frames, median {} , max {} ({} answers)",
        mean_latency,
        latencies.get(latencies.len() / 2).copied().unwrap_or(0),
        latencies.last().copied().unwrap_or(0),
        latencies.len()
    );
    println!(
        "walking on average: {:.1} of {walkers} walkers",
        bench.walking_samples as f64 / frames as f64
    );
    println!(
        "fields: {} filled ({:.2} per second), {} walks traced from a shared field; warm: {} hits, {} misses; {} held ({:.1} MiB); grids: {} held",
        fields.fills,
        fields.fills as f64 / seconds,
        fields.shared,
        fields.hits,
        fields.misses,
        fields.entries,
        fields.bytes as f64 / (1 << 20) as f64,
        grids.entries
    );
}
