//! Frame cost of the plugin on the main thread, headless, over a matrix of scenes.
//!
//! Each scene builds its walk mask in code, puts it straight into `Assets<WalkMask>`,
//! spawns its walkers and sends them walk requests; frames advance a fixed 16 ms of
//! virtual time (`TimeUpdateStrategy::ManualDuration`) and are paced to 16 ms of wall
//! time, so background path tasks get the time they would get at 60 fps.
//!
//! Measured per frame:
//!
//! * plugin span: wall time from a system ordered `.before(WalkmaskSystems::Input)` to
//!   one ordered `.after(WalkmaskSystems::Move)` in `Update`, i.e. the plugin's
//!   systems on the main thread including the command application between them
//!   (walk requests accepted, outcomes applied and sent);
//! * the main thread's CPU time in that span (on Unix; both ends of the span run on
//!   the main thread): the same work without the time the pool's search threads took
//!   the core from the main thread, which makes runs on a machine with few cores
//!   comparable; and its median in each of the plugin's sets (`WalkmaskSystems`
//!   input, plan, poll and move, each measured from the end of the one before);
//! * whole `app.update()`.
//!
//! Median, p99 and max in milliseconds after a 2 s start-up (which holds the burst of
//! first requests, and is reported apart as its largest span), the requests and
//! outcomes, and the mean latency of a request in frames (request written ->
//! `PathReady` or `PathUnreachable`).
//!
//! Scenes (`--scene NAME`, or `--scene all` for the whole matrix and a table):
//!
//! * `room` (the default): a 1920 x 1080 mask with furniture, 100 walkers, 10 new
//!   walk requests a second round them;
//! * `solid`: the same room, 100 walkers of radius 6 that keep walking, a third of
//!   them solid (`WalkObstacle::circle(8.0)`), so obstacles move every frame;
//! * `harbour`: a 3840 x 2160 harbour, 150 walkers of radius 10 that keep walking,
//!   half of them solid ellipses; `harbour-few`: 30 walkers, 15 solid;
//!   `harbour-hover`: `harbour` with a standing player and a hover point that moves
//!   every frame;
//! * `steer`: 30 walkers steered by `WalkInput` among 60 standing solid walkers;
//! * `hover-spiral`, `hover-maze`: a standing player and a hover point
//!   ([`WalkHover`](bevy_walkmask::WalkHover)) moving to a new random point every
//!   frame over the 1080p spiral of 1-pixel walls and the 1080p maze of 3-pixel
//!   corridors (the benchmark's masks);
//! * `walkers-300`, `walkers-1000`: the room with 300 and 1,000 walkers;
//! * `crowd`: 300 walkers, all sent together to a new point every half second (a
//!   crowd following the player), which also prints the distance fields filled per
//!   second and how many walks were traced from a shared field;
//! * `avoid-300`, `avoid-1000`: the room with 300 and 1,000 walkers of radius 6 that
//!   keep walking and avoid each other ([`Avoidance`](bevy_walkmask::Avoidance));
//! * `crowd-avoid`: the crowd with radius 6, so that it spreads round each point.
//!
//! Scenes with radii also print how many pairs of walkers overlap (closer than 0.9 x
//! the sum of their radii), on average over every tenth frame after start-up and at
//! the end. `--no-avoidance` turns avoidance off
//! ([`WalkTuning::avoidance`](bevy_walkmask::WalkTuning::avoidance)) for comparison.
//!
//! Path searches run below the frame's threads
//! ([`background_searches`](bevy_walkmask::background_searches), as the README
//! recommends); `--equal-priority` leaves Bevy's task pools as they are, for
//! comparison.
//!
//! `--no-warm` turns warm fields off ([`WalkmaskPlugin::warm_fields`]) for
//! comparison. `--hover` and `--hover-rest` add a standing player and move the hover
//! point every frame, or every 15 frames (a pointer that rests a quarter of a second),
//! to the room scene; `--crowd` is `--scene crowd`. `--shortest-detours` searches
//! for the shortest path round solid walkers
//! ([`ObstacleDetours::Shortest`](walkmask::ObstacleDetours::Shortest)) instead of the
//! plugin's default local detours, for comparison.
//!
//! ```text
//! cargo run --release -p walkmask_bench --example frame_cost [-- SECONDS] [--scene NAME | --scene all] [--no-warm] [--no-avoidance] [--equal-priority] [--shortest-detours] [--hover | --hover-rest]
//! ```

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::ecs::system::NonSendMarker;
use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{
    NavGridCache, ObstacleShape, PlannerStatus, WarmFieldCache, background_searches, walkmask,
};
use walkmask_demo_assets::synthetic;

const FRAME: Duration = Duration::from_millis(16);
/// Frames of start-up, left out of the statistics (reported apart).
const SETTLE_FRAMES: u64 = 125;
/// Seconds between the crowd's destinations in the `crowd` scene.
const CROWD_PERIOD: f64 = 0.5;
/// Frames a steered walker keeps one direction in the `steer` scene.
const STEER_FRAMES: u64 = 45;

/// Furniture of the `room` scene: blocked rectangles (x0, y0, x1, y1), pixels,
/// inclusive-exclusive.
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

/// Which walk mask a scene runs on.
#[derive(Clone, Copy, Debug)]
enum Floor {
    /// 1920 x 1080 with [`FURNITURE`].
    Furniture,
    /// The 3840 x 2160 harbour.
    Harbour,
    /// The benchmark's 1080p spiral of 1-pixel walls.
    Spiral,
    /// The benchmark's 1080p maze of 3-pixel corridors.
    Maze,
}

impl Floor {
    fn name(self) -> &'static str {
        match self {
            Floor::Furniture => "room 1080p",
            Floor::Harbour => "harbour 4K",
            Floor::Spiral => "spiral 1080p",
            Floor::Maze => "maze 1080p",
        }
    }

    /// Width, height and area ids (row-major, 0 blocked).
    fn cells(self) -> (u32, u32, Vec<u8>) {
        match self {
            Floor::Furniture => {
                let (w, h) = (1920, 1080);
                let cells = (0..h)
                    .flat_map(|y| (0..w).map(move |x| (x, y)))
                    .map(|(x, y)| {
                        u8::from(!FURNITURE.iter().any(|&(x0, y0, x1, y1)| {
                            (x0..x1).contains(&x) && (y0..y1).contains(&y)
                        }))
                    })
                    .collect();
                (w, h, cells)
            }
            Floor::Harbour => (3840, 2160, synthetic::harbour(3840, 2160, 7)),
            Floor::Spiral => (1920, 1080, synthetic::spiral(1920, 1080, 1)),
            Floor::Maze => (1920, 1080, synthetic::maze(1920, 1080, 3, 5)),
        }
    }
}

/// Who of the walkers is solid.
#[derive(Clone, Copy, Debug)]
struct Solid {
    /// Every `every`-th walker.
    every: usize,
    shape: ObstacleShape,
}

/// One scene of the matrix.
#[derive(Clone, Debug)]
struct Scene {
    name: &'static str,
    floor: Floor,
    walkers: usize,
    /// Walker radius (world units = mask pixels).
    radius: f32,
    solid: Option<Solid>,
    /// New walk requests a second, round the walkers; with `keep_walking`, the
    /// requests sent on arrival count towards it, so this is the least rate.
    requests_per_second: f64,
    /// Walkers get a new destination as soon as a walk ends.
    keep_walking: bool,
    /// All walkers go to one new point every [`CROWD_PERIOD`].
    crowd: bool,
    /// Frames between hover point moves with a standing player; 0 without hover.
    hover: u64,
    /// Walkers steered by `WalkInput` (the first ones); they get no requests, and
    /// they and the others start in the middle of the room.
    steered: usize,
}

impl Scene {
    fn room() -> Self {
        Scene {
            name: "room",
            floor: Floor::Furniture,
            walkers: 100,
            radius: 0.0,
            solid: None,
            requests_per_second: 10.0,
            keep_walking: false,
            crowd: false,
            hover: 0,
            steered: 0,
        }
    }

    fn harbour() -> Self {
        Scene {
            name: "harbour",
            floor: Floor::Harbour,
            walkers: 150,
            radius: 10.0,
            solid: Some(Solid {
                every: 2,
                shape: WalkObstacle::ellipse(Vec2::new(16.0, 8.0)).shape,
            }),
            requests_per_second: 15.0,
            keep_walking: true,
            ..Scene::room()
        }
    }

    /// The whole matrix, in the order `--scene all` runs it.
    fn matrix() -> Vec<Scene> {
        vec![
            Scene::room(),
            Scene {
                name: "solid",
                radius: 6.0,
                solid: Some(Solid {
                    every: 3,
                    shape: WalkObstacle::circle(8.0).shape,
                }),
                keep_walking: true,
                ..Scene::room()
            },
            Scene::harbour(),
            Scene {
                name: "harbour-few",
                walkers: 30,
                ..Scene::harbour()
            },
            Scene {
                name: "harbour-hover",
                hover: 1,
                ..Scene::harbour()
            },
            Scene {
                name: "steer",
                walkers: 90,
                radius: 6.0,
                solid: Some(Solid {
                    every: 1,
                    shape: WalkObstacle::circle(8.0).shape,
                }),
                requests_per_second: 0.0,
                steered: 30,
                ..Scene::room()
            },
            Scene {
                name: "hover-spiral",
                floor: Floor::Spiral,
                walkers: 0,
                requests_per_second: 0.0,
                hover: 1,
                ..Scene::room()
            },
            Scene {
                name: "hover-maze",
                floor: Floor::Maze,
                walkers: 0,
                requests_per_second: 0.0,
                hover: 1,
                ..Scene::room()
            },
            Scene {
                name: "walkers-300",
                walkers: 300,
                ..Scene::room()
            },
            Scene {
                name: "walkers-1000",
                walkers: 1000,
                ..Scene::room()
            },
            Scene {
                name: "crowd",
                walkers: 300,
                requests_per_second: 0.0,
                crowd: true,
                ..Scene::room()
            },
            Scene {
                name: "avoid-300",
                walkers: 300,
                radius: 6.0,
                keep_walking: true,
                ..Scene::room()
            },
            Scene {
                name: "avoid-1000",
                walkers: 1000,
                radius: 6.0,
                keep_walking: true,
                ..Scene::room()
            },
            Scene {
                name: "crowd-avoid",
                walkers: 300,
                radius: 6.0,
                requests_per_second: 0.0,
                crowd: true,
                ..Scene::room()
            },
        ]
    }

    /// What the walkers do, for the table.
    fn load(&self) -> String {
        let solid = self
            .solid
            .map_or(0, |s| self.walkers.div_ceil(s.every.max(1)));
        let mut parts = vec![format!("{} walkers", self.walkers)];
        if self.radius > 0.0 {
            parts.push(format!("radius {}", self.radius));
        }
        if solid > 0 {
            parts.push(format!("{solid} solid"));
        }
        if self.crowd {
            parts.push(format!("all to one point every {CROWD_PERIOD} s"));
        } else if self.requests_per_second > 0.0 && self.keep_walking {
            parts.push(format!(
                "keep walking (at least {} requests/s)",
                self.requests_per_second
            ));
        } else if self.requests_per_second > 0.0 {
            parts.push(format!("{} requests/s", self.requests_per_second));
        } else if self.keep_walking {
            parts.push("keep walking".into());
        }
        if self.steered > 0 {
            parts.push(format!("{} steered", self.steered));
        }
        match self.hover {
            0 => {}
            1 => parts.push("hover moves every frame".into()),
            n => parts.push(format!("hover moves every {n} frames")),
        }
        parts.join(", ")
    }
}

/// A small deterministic random generator (xorshift64*), and the floor it draws
/// points on.
#[derive(Resource)]
struct Rng {
    state: u64,
    width: u32,
    height: u32,
    cells: Vec<u8>,
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A world point over a walkable pixel (room centred on the origin, scale 1),
    /// within `fraction` of the room's size round its centre.
    fn walkable_point_within(&mut self, fraction: f64) -> Vec2 {
        let (w, h) = (self.width as f64, self.height as f64);
        loop {
            let x = (w * (0.5 - fraction / 2.0)
                + (self.next() % 1_000_000) as f64 / 1e6 * w * fraction) as u32;
            let y = (h * (0.5 - fraction / 2.0)
                + (self.next() % 1_000_000) as f64 / 1e6 * h * fraction) as u32;
            if x < self.width
                && y < self.height
                && self.cells[y as usize * self.width as usize + x as usize] != 0
            {
                return Vec2::new(
                    x as f32 + 0.5 - w as f32 / 2.0,
                    h as f32 / 2.0 - (y as f32 + 0.5),
                );
            }
        }
    }

    /// A world point over a walkable pixel anywhere in the room.
    fn walkable_point(&mut self) -> Vec2 {
        self.walkable_point_within(1.0)
    }
}

/// Timings and counters.
#[derive(Resource, Default)]
struct Bench {
    scene: Option<Scene>,
    frame: u64,
    span_start: Option<Instant>,
    /// Plugin span per frame, after settling.
    spans: Vec<Duration>,
    /// The main thread's CPU time when the span started.
    cpu_start: Option<Duration>,
    /// The main thread's CPU time in the plugin span per frame, after settling: the
    /// work of the plugin's stages (run on the main thread) and of any system the
    /// main thread picked up, without the time other threads took the core from it.
    cpu_spans: Vec<Duration>,
    /// The main thread's CPU time at the last boundary between the plugin's sets.
    cpu_mark: Option<Duration>,
    /// The main thread's CPU time per frame after settling in each of the plugin's
    /// sets, in the order of [`SETS`].
    cpu_sets: [Vec<Duration>; 4],
    /// The largest plugin span during start-up.
    start_up_max: Duration,
    walkers: Vec<Entity>,
    next_walker: usize,
    /// Walkers whose walk ended, to be sent on (`keep_walking`).
    to_send: Vec<Entity>,
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
    /// Frames (after settling) whose hover answer was for that frame's point, by source:
    /// warm field, query.
    hover_fresh: (u64, u64),
    /// Frames (after settling) with a hover point.
    hover_frames: u64,
}

impl Bench {
    fn scene(&self) -> &Scene {
        self.scene.as_ref().expect("a scene")
    }
}

fn setup(
    mut commands: Commands,
    mut masks: ResMut<Assets<WalkMask>>,
    mut bench: ResMut<Bench>,
    mut rng: ResMut<Rng>,
) {
    let scene = bench.scene().clone();
    let mask =
        walkmask::WalkMask::new(rng.width, rng.height, rng.cells.clone()).expect("valid mask size");
    commands.spawn(WalkRoom::new(masks.add(WalkMask::from(mask))));
    // Steering scenes pack everyone into the middle, so steered walkers meet others.
    let spread = if scene.steered > 0 { 0.3 } else { 1.0 };
    for i in 0..scene.walkers {
        let at = rng.walkable_point_within(spread);
        let mut walker = commands.spawn((
            Walker::new(100.0).with_radius(scene.radius),
            Transform::from_translation(at.extend(1.0)),
        ));
        if let Some(solid) = scene.solid
            && i % solid.every.max(1) == 0
        {
            walker.insert(WalkObstacle {
                shape: solid.shape,
                solid: true,
            });
        }
        if i < scene.steered {
            walker.insert(WalkInput(Vec2::ZERO));
        }
        let id = walker.id();
        bench.walkers.push(id);
    }
    if scene.hover > 0 {
        let at = rng.walkable_point();
        commands.spawn((
            Walker::new(100.0).with_radius(scene.radius),
            PlayerWalker,
            Transform::from_translation(at.extend(1.0)),
        ));
    }
}

/// Moves the hover point to a new random point every `hover` frames.
fn move_hover(bench: Res<Bench>, mut rng: ResMut<Rng>, mut hover: ResMut<WalkHover>) {
    let every = bench.scene().hover;
    if every > 0 && bench.frame.is_multiple_of(every) {
        hover.point = Some(rng.walkable_point());
    }
}

/// Turns each steered walker to a new direction every [`STEER_FRAMES`] frames (at
/// different frames for different walkers).
fn steer(bench: Res<Bench>, mut rng: ResMut<Rng>, mut inputs: Query<&mut WalkInput>) {
    let steered = bench.scene().steered;
    for (i, &walker) in bench.walkers.iter().take(steered).enumerate() {
        if (bench.frame + i as u64).is_multiple_of(STEER_FRAMES)
            && let Ok(mut input) = inputs.get_mut(walker)
        {
            let angle = (rng.next() % 3600) as f32 / 10.0;
            input.0 = Vec2::from_angle(angle.to_radians());
        }
    }
}

/// Writes the walk requests due by now: one for every walker on the first frame, then
/// the scene's requests a second round the walkers, and one for every walker whose
/// walk ended when the scene keeps them walking.
fn send_requests(
    time: Res<Time>,
    mut bench: ResMut<Bench>,
    mut rng: ResMut<Rng>,
    mut requests: MessageWriter<WalkRequest>,
) {
    let scene = bench.scene().clone();
    let steered = scene.steered;
    let sent: Vec<(Entity, Vec2)> = if scene.crowd {
        // Everyone to one new point every CROWD_PERIOD.
        let n = bench.walkers.len() as u64;
        let round = (time.elapsed_secs_f64() / CROWD_PERIOD) as u64;
        if bench.frame > 0 && bench.requests >= (round + 1) * n {
            return;
        }
        let target = rng.walkable_point();
        bench.walkers.iter().map(|&w| (w, target)).collect()
    } else {
        let routed: Vec<Entity> = bench.walkers[steered.min(bench.walkers.len())..].to_vec();
        let n = routed.len() as u64;
        let mut out = Vec::new();
        if n > 0 && (scene.requests_per_second > 0.0 || bench.frame == 0) {
            let due = if bench.frame == 0 {
                n
            } else {
                n + (time.elapsed_secs_f64() * scene.requests_per_second) as u64
            };
            let mut written = bench.requests.min(due);
            while written < due {
                let walker = routed[bench.next_walker % routed.len()];
                bench.next_walker += 1;
                written += 1;
                out.push((walker, rng.walkable_point()));
            }
        }
        for walker in std::mem::take(&mut bench.to_send) {
            out.push((walker, rng.walkable_point()));
        }
        out
    };
    let frame = bench.frame;
    for (walker, target) in sent {
        bench.requests += 1;
        if frame >= SETTLE_FRAMES {
            bench.requests_after_settling += 1;
        }
        bench.requested_at.insert(walker, frame);
        requests.write(WalkRequest::new(walker, target));
    }
}

fn span_start(mut bench: ResMut<Bench>, _main_thread: NonSendMarker) {
    bench.cpu_start = thread_cpu_time();
    bench.cpu_mark = bench.cpu_start;
    bench.span_start = Some(Instant::now());
}

/// CPU time the calling thread has used (Linux and other Unixes; `None` elsewhere).
fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec for the call to write.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
        ok.then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The plugin's sets in the order they run, as the span's breakdown names them.
const SETS: [&str; 4] = ["input", "plan", "poll", "move"];

/// Ends the main thread's CPU time in set `SET` of [`SETS`] (run after it, on the
/// main thread).
fn set_end<const SET: usize>(mut bench: ResMut<Bench>, _main_thread: NonSendMarker) {
    let now = thread_cpu_time();
    if let (Some(start), Some(now)) = (bench.cpu_mark, now)
        && bench.frame >= SETTLE_FRAMES
    {
        bench.cpu_sets[SET].push(now.saturating_sub(start));
    }
    bench.cpu_mark = now;
}

fn span_end(mut bench: ResMut<Bench>, _main_thread: NonSendMarker) {
    let Some(elapsed) = bench.span_start.take().map(|t| t.elapsed()) else {
        return;
    };
    if let (Some(start), Some(now)) = (bench.cpu_start.take(), thread_cpu_time())
        && bench.frame >= SETTLE_FRAMES
    {
        bench.cpu_spans.push(now.saturating_sub(start));
    }
    if bench.frame >= SETTLE_FRAMES {
        bench.spans.push(elapsed);
    } else {
        bench.start_up_max = bench.start_up_max.max(elapsed);
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
    let scene = bench.scene().clone();
    if scene.hover > 0 && bench.frame >= SETTLE_FRAMES {
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
    for &walker in ready.iter().chain(&unreachable) {
        if let Some(at) = bench.requested_at.remove(&walker)
            && at >= SETTLE_FRAMES
        {
            let latency = bench.frame - at;
            bench.latencies.push(latency);
        }
    }
    bench.cancelled += cancelled.read().count() as u64;
    let arrived: Vec<Entity> = arrived.read().map(|e| e.entity).collect();
    bench.arrived += arrived.len() as u64;
    if scene.keep_walking {
        let known: Vec<Entity> = arrived
            .into_iter()
            .chain(unreachable)
            .filter(|w| bench.walkers.contains(w))
            .collect();
        bench.to_send.extend(known);
    }
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

/// One scene's numbers, for the table.
struct Row {
    scene: Scene,
    median: f64,
    cpu_median: f64,
    p99: f64,
    max: f64,
    start_up_max: f64,
    mean_latency: f64,
    overlapping: usize,
    /// Pairs overlapping, on average over every tenth frame after start-up.
    mean_overlapping: f64,
}

/// Runs `scene` for `seconds` of paced frames and prints its numbers.
fn run(
    scene: &Scene,
    seconds: f64,
    warm_fields: bool,
    avoidance: bool,
    obstacle_detours: walkmask::ObstacleDetours,
    pools: TaskPoolOptions,
) -> Row {
    let frames = (seconds / FRAME.as_secs_f64()).round() as u64;
    let (width, height, cells) = scene.floor.cells();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: pools,
        }),
        AssetPlugin::default(),
        TransformPlugin,
        InputPlugin,
        WalkmaskPlugin {
            warm_fields,
            obstacle_detours,
            tuning: WalkTuning {
                avoidance,
                ..default()
            },
            ..default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(Bench {
        scene: Some(scene.clone()),
        ..default()
    })
    .insert_resource(Rng {
        state: 0x9e37_79b9_7f4a_7c15,
        width,
        height,
        cells,
    })
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            (send_requests, move_hover, steer).before(span_start),
            span_start.before(WalkmaskSystems::Input),
            set_end::<0>
                .after(WalkmaskSystems::Input)
                .before(WalkmaskSystems::Plan),
            set_end::<1>
                .after(WalkmaskSystems::Plan)
                .before(WalkmaskSystems::Poll),
            set_end::<2>
                .after(WalkmaskSystems::Poll)
                .before(WalkmaskSystems::Move),
            (set_end::<3>, span_end)
                .chain()
                .after(WalkmaskSystems::Move),
        ),
    )
    .add_systems(Last, count_outcomes);

    let mut updates = Vec::with_capacity(frames as usize);
    let run_started = Instant::now();
    // Overlapping pairs every tenth frame after start-up (outside the timed update).
    let mut overlap_samples = Vec::new();
    for frame in 0..frames {
        let started = Instant::now();
        app.update();
        let took = started.elapsed();
        if frame >= SETTLE_FRAMES {
            updates.push(took);
            if scene.radius > 0.0 && frame % 10 == 0 {
                overlap_samples.push(overlapping_pairs(&mut app));
            }
        }
        if let Some(rest) = FRAME.checked_sub(took) {
            std::thread::sleep(rest);
        }
    }
    let wall = run_started.elapsed();

    let overlapping = overlapping_pairs(&mut app);
    let mean_overlapping =
        overlap_samples.iter().sum::<usize>() as f64 / overlap_samples.len().max(1) as f64;
    let world = app.world();
    let bench = world.resource::<Bench>();
    let mut spans: Vec<f64> = bench.spans.iter().copied().map(ms).collect();
    spans.sort_by(f64::total_cmp);
    let mut cpu_spans: Vec<f64> = bench.cpu_spans.iter().copied().map(ms).collect();
    cpu_spans.sort_by(f64::total_cmp);
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

    println!(
        "scene {}: {} {} x {}, {}; warm fields {}, avoidance {}, {frames} frames of {} ms ({seconds} s virtual, {:.1} s wall), profile {}",
        scene.name,
        scene.floor.name(),
        width,
        height,
        scene.load(),
        if warm_fields { "on" } else { "off" },
        if avoidance { "on" } else { "off" },
        FRAME.as_millis(),
        wall.as_secs_f64(),
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    if scene.hover > 0 {
        println!(
            "  hover: {} of {} frames answered for their own point ({} from the warm field, {} from a query)",
            bench.hover_fresh.0 + bench.hover_fresh.1,
            bench.hover_frames,
            bench.hover_fresh.0,
            bench.hover_fresh.1
        );
    }
    println!(
        "  start-up (first {SETTLE_FRAMES} frames): largest plugin span {:.4} ms",
        ms(bench.start_up_max)
    );
    println!(
        "  plugin span (main thread):  median {:.4} ms  p99 {:.4} ms  max {:.4} ms  ({} frames)",
        percentile(&spans, 0.5),
        percentile(&spans, 0.99),
        spans.last().copied().unwrap_or(f64::NAN),
        spans.len()
    );
    println!(
        "  main thread's CPU time in the span: median {:.4} ms  p99 {:.4} ms  max {:.4} ms",
        percentile(&cpu_spans, 0.5),
        percentile(&cpu_spans, 0.99),
        cpu_spans.last().copied().unwrap_or(f64::NAN)
    );
    let sets: Vec<String> = SETS
        .iter()
        .zip(&bench.cpu_sets)
        .map(|(name, times)| {
            let mut times: Vec<f64> = times.iter().copied().map(ms).collect();
            times.sort_by(f64::total_cmp);
            format!("{name} {:.4}", percentile(&times, 0.5))
        })
        .collect();
    println!("    by set, median ms: {}", sets.join(", "));
    println!(
        "  whole app.update():         median {:.4} ms  p99 {:.4} ms  max {:.4} ms",
        percentile(&updates, 0.5),
        percentile(&updates, 0.99),
        updates.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "  requests: {} ({} after start-up); outcomes: {} ready, {} unreachable, {} cancelled; {} arrivals",
        bench.requests,
        bench.requests_after_settling,
        bench.ready,
        bench.unreachable,
        bench.cancelled,
        bench.arrived
    );
    println!(
        "  path latency (request -> answer, after start-up): mean {:.2} frames, median {}, max {} ({} answers)",
        mean_latency,
        latencies.get(latencies.len() / 2).copied().unwrap_or(0),
        latencies.last().copied().unwrap_or(0),
        latencies.len()
    );
    if scene.radius > 0.0 {
        println!(
            "  pairs of walkers closer than 0.9 x the sum of their radii: {mean_overlapping:.1} on average (every tenth frame after start-up), {overlapping} at the end"
        );
    }
    println!(
        "  walking on average: {:.1} of {} walkers",
        bench.walking_samples as f64 / frames as f64,
        scene.walkers
    );
    println!(
        "  fields: {} filled ({:.2} per second), {} walks traced from a shared field; warm: {} hits, {} misses; {} held ({:.1} MiB); grids: {} held",
        fields.fills,
        fields.fills as f64 / seconds,
        fields.shared,
        fields.hits,
        fields.misses,
        fields.entries,
        fields.bytes as f64 / (1 << 20) as f64,
        grids.entries
    );
    let planner = world.resource::<PlannerStatus>();
    println!(
        "  searches (start-up included): {} run, {} answered by a fill, longest {:.2} ms",
        planner.searches_run(),
        planner.searches_filled(),
        planner.longest_search().as_secs_f64() * 1e3
    );
    Row {
        scene: scene.clone(),
        median: percentile(&spans, 0.5),
        cpu_median: percentile(&cpu_spans, 0.5),
        p99: percentile(&spans, 0.99),
        max: spans.last().copied().unwrap_or(f64::NAN),
        start_up_max: ms(bench.start_up_max),
        mean_latency,
        overlapping,
        mean_overlapping,
    }
}

/// Pairs of walkers with radii whose centres are closer than 0.9 x the sum of their
/// radii.
fn overlapping_pairs(app: &mut App) -> usize {
    let mut query = app.world_mut().query::<(&Walker, &Transform)>();
    let discs: Vec<(Vec2, f32)> = query
        .iter(app.world())
        .filter(|(w, _)| w.radius > 0.0)
        .map(|(w, t)| (t.translation.truncate(), w.radius))
        .collect();
    let mut count = 0;
    for (i, &(a, ra)) in discs.iter().enumerate() {
        for &(b, rb) in &discs[i + 1..] {
            if a.distance(b) < 0.9 * (ra + rb) {
                count += 1;
            }
        }
    }
    count
}

fn usage(problem: &str) -> ! {
    let names: Vec<&str> = Scene::matrix().iter().map(|s| s.name).collect();
    eprintln!(
        "usage: frame_cost [SECONDS > 3] [--scene NAME | --scene all] [--no-warm] [--no-avoidance] [--equal-priority] [--shortest-detours] [--crowd] [--hover | --hover-rest]\nscenes: {}\n{problem}",
        names.join(", ")
    );
    std::process::exit(2);
}

fn main() {
    let mut seconds = 30.0;
    let mut warm_fields = true;
    let mut avoidance = true;
    let mut background = true;
    let mut obstacle_detours = walkmask::ObstacleDetours::Local;
    let mut chosen = vec![Scene::room()];
    let mut hover = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-warm" => warm_fields = false,
            "--no-avoidance" => avoidance = false,
            "--equal-priority" => background = false,
            "--shortest-detours" => obstacle_detours = walkmask::ObstacleDetours::Shortest,
            "--hover" => hover = 1,
            "--hover-rest" => hover = 15,
            "--crowd" => chosen = Scene::matrix().into_iter().filter(|s| s.crowd).collect(),
            "--scene" => {
                let name = args.next().unwrap_or_else(|| usage("--scene needs a name"));
                chosen = Scene::matrix()
                    .into_iter()
                    .filter(|s| name == "all" || s.name == name)
                    .collect();
                if chosen.is_empty() {
                    usage(&format!("no scene '{name}'"));
                }
            }
            _ => match arg.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 3.0 => seconds = s,
                _ => usage(&format!("got '{arg}'")),
            },
        }
    }
    if hover > 0 {
        for scene in &mut chosen {
            scene.hover = hover;
        }
    }
    // Bevy makes its task pools once per process: the first app's settings hold for
    // every scene.
    let pools = if background {
        background_searches(TaskPoolOptions::default())
    } else {
        TaskPoolOptions::default()
    };
    println!(
        "path searches: {}",
        if background {
            "below the frame's threads (background_searches)"
        } else {
            "at the frame's priority"
        }
    );
    let rows: Vec<Row> = chosen
        .iter()
        .map(|scene| {
            run(
                scene,
                seconds,
                warm_fields,
                avoidance,
                obstacle_detours,
                pools.clone(),
            )
        })
        .collect();
    if rows.len() > 1 {
        println!();
        println!(
            "| scene | mask | load | median ms | p99 ms | max ms | CPU median ms | start-up max ms | latency (frames) | overlapping pairs (mean / end) |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for row in rows {
            println!(
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {:.1} | {} |",
                row.scene.name,
                row.scene.floor.name(),
                row.scene.load(),
                row.median,
                row.p99,
                row.max,
                row.cpu_median,
                row.start_up_max,
                row.mean_latency,
                if row.scene.radius > 0.0 {
                    format!("{:.1} / {}", row.mean_overlapping, row.overlapping)
                } else {
                    "-".to_owned()
                }
            );
        }
    }
}
