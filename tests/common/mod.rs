//! Helpers shared by the headless integration tests: mask files under
//! `tests/assets/generated/`, the headless app (MinimalPlugins + AssetPlugin rooted at
//! `tests/assets`, no file watching + InputPlugin + TransformPlugin + the walkmask
//! plugin, fixed 16 ms frames), bounded update loops, an outcome log keyed by request
//! id, and the pixel <-> world mapping of the 64 x 48 test masks.
//!
//! Plugin behaviour is stepped frame by frame: the test plugin answers every request
//! in the frame it is planned ([`deterministic`]), so a given number of updates always
//! gives the same result. Only asset loading (file reads on Bevy's IO pool) is waited
//! for, by updating until the asset is there.
//!
//! Each test binary writes its own mask files (distinct names), keeps its own outcome
//! log, and uses only some of these helpers.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy_walkmask::AnswerTiming;

use bevy::asset::LoadState;
use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_walkmask::prelude::*;

// ---------------------------------------------------------------- test masks

/// Root of the test asset folder (the `AssetPlugin` file path).
pub const ASSET_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");

/// Width and height of the usual test masks.
pub const MASK_SIZE: (u32, u32) = (64, 48);

/// Path of `name` inside [`ASSET_ROOT`].
pub fn asset_file(name: &str) -> PathBuf {
    Path::new(ASSET_ROOT).join(name)
}

/// Creates `tests/assets/generated/`, where the tests write their masks.
pub fn create_generated_dir() {
    std::fs::create_dir_all(asset_file("generated")).unwrap();
}

/// Area id of the room mask's pixel: 1 walkable, 0 wall (a wall at x = 30..=33 from
/// the top down to y = 39).
pub fn room_pixel(x: u32, y: u32) -> u8 {
    u8::from(!((30..=33).contains(&x) && y <= 39))
}

/// A `w` x `h` PNG whose grey level is `f(x, y)`.
pub fn write_grey_png(name: &str, (w, h): (u32, u32), f: impl Fn(u32, u32) -> u8) {
    let image = image::GrayImage::from_fn(w, h, |x, y| image::Luma([f(x, y)]));
    image.save(asset_file(name)).expect("write test mask");
}

/// Writes `<png>.meta`, which loads the mask `png` with the indexed rule.
pub fn write_indexed_meta(png: &str) {
    std::fs::write(
        asset_file(&format!("{png}.meta")),
        r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "bevy_walkmask::asset::WalkMaskLoader",
        settings: (rule: Indexed),
    ),
)
"#,
    )
    .unwrap();
}

/// World position of the centre of mask pixel (px, py) (64 x 48 mask, scale 1, room
/// at the origin).
pub fn px(x: u32, y: u32) -> Vec2 {
    Vec2::new(x as f32 + 0.5 - 32.0, 24.0 - (y as f32 + 0.5))
}

/// The centre of mask pixel (px, py) in room pixels, as hotspots' walk-to points,
/// exits' walk-off points and edges are given.
pub fn pixel_centre(x: u32, y: u32) -> Vec2 {
    Vec2::new(x as f32 + 0.5, y as f32 + 0.5)
}

/// Mask pixel under a world position.
pub fn pixel_of(world: Vec2) -> (u32, u32) {
    (
        (world.x + 32.0).floor() as u32,
        (24.0 - world.y).floor() as u32,
    )
}

/// Whether every segment of `path` stays on pixels that `walkable` accepts (sampled
/// every 0.1 units).
pub fn path_stays_on(path: &[Vec2], walkable: impl Fn(u32, u32) -> bool) -> bool {
    path.windows(2).all(|w| {
        let steps = (w[0].distance(w[1]) / 0.1).ceil().max(1.0) as usize;
        (0..=steps).all(|i| {
            let p = w[0].lerp(w[1], i as f32 / steps as f32);
            let (x, y) = pixel_of(p);
            walkable(x, y)
        })
    })
}

// ---------------------------------------------------------------- app

/// The headless app with `plugin`, stepped by fixed 16 ms frames. The caller writes
/// its masks and adds its log.
pub fn headless_app(plugin: WalkmaskPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: ASSET_ROOT.into(),
            // The tests write mask files while other tests run: reload only on request.
            watch_for_changes_override: Some(false),
            ..default()
        },
        InputPlugin,
        TransformPlugin,
        plugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app
}

/// The plugin as the tests use it unless they say otherwise: answers applied in the
/// frame they are planned (frame-exact), warm fields off (a warm field may answer a
/// request instead of a search, depending on timing), clicks from the cursor.
pub fn deterministic() -> WalkmaskPlugin {
    WalkmaskPlugin {
        answer_timing: AnswerTiming::AfterFrames(0),
        warm_fields: false,
        ..default()
    }
}

/// Updates until `pred` holds; panics after `max` updates.
pub fn run_until(app: &mut App, max: usize, mut pred: impl FnMut(&mut World) -> bool) -> usize {
    for i in 0..max {
        app.update();
        if pred(app.world_mut()) {
            return i + 1;
        }
    }
    panic!("condition not reached after {max} updates");
}

/// Runs `n` updates.
pub fn run(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

/// Updates until `ready` holds, for work on Bevy's other threads (file reads, warm-ups):
/// at most `max` updates, yielding the thread between them.
pub fn wait_for(app: &mut App, max: usize, mut ready: impl FnMut(&mut World) -> bool) {
    for _ in 0..max {
        app.update();
        if ready(app.world_mut()) {
            return;
        }
        std::thread::yield_now();
    }
    panic!("not ready after {max} updates");
}

/// Updates at most allowed while waiting for a file to load.
pub const LOAD_UPDATES: usize = 200_000;

/// Loads the mask at `path`, waiting for it.
pub fn load_mask(app: &mut App, path: &str) -> Handle<WalkMask> {
    let handle: Handle<WalkMask> = app.world().resource::<AssetServer>().load(path.to_owned());
    wait_loaded(app, &handle);
    handle
}

/// Updates until the mask `handle` is loaded; panics if loading fails.
pub fn wait_loaded(app: &mut App, handle: &Handle<WalkMask>) {
    wait_for(app, LOAD_UPDATES, |w| {
        match w.resource::<AssetServer>().load_state(handle) {
            LoadState::Failed(e) => panic!("load failed: {e}"),
            _ => w.resource::<Assets<WalkMask>>().contains(handle),
        }
    });
}

/// Adds a mask made in code (no file) and returns its handle.
pub fn add_mask(app: &mut App, w: u32, h: u32, f: impl Fn(u32, u32) -> u8) -> Handle<WalkMask> {
    let mask = bevy_walkmask::walkmask::WalkMask::from_fn(w, h, f).unwrap();
    app.world_mut()
        .resource_mut::<Assets<WalkMask>>()
        .add(WalkMask::new(mask))
}

/// The headless app with `plugin`, the outcome [`Log`], and a room of the wall mask
/// ([`room_pixel`]) at the origin; returns the app and the room.
pub fn wall_room_app(plugin: WalkmaskPlugin) -> (App, Entity) {
    let mut app = headless_app(plugin);
    add_log(&mut app);
    let mask = add_mask(&mut app, 64, 48, room_pixel);
    let room = app.world_mut().spawn(WalkRoom::new(mask)).id();
    (app, room)
}

/// Spawns `walker` at world position `at`.
pub fn spawn_walker(app: &mut App, walker: Walker, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((walker, Transform::from_translation(at.extend(1.0))))
        .id()
}

/// Asks `walker` to walk to `target`; returns the request's id.
pub fn request(app: &mut App, walker: Entity, target: Vec2) -> RequestId {
    let request = WalkRequest::new(walker, target);
    let id = request.id;
    app.world_mut().write_message(request);
    id
}

/// World position of `entity`.
pub fn position(app: &App, entity: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(entity)
        .unwrap()
        .translation
        .truncate()
}

// ---------------------------------------------------------------- outcome log

/// One outcome, as the log keeps it.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Ready { waypoints: Vec<Vec2>, snapped: bool },
    Unreachable,
    Cancelled,
    Replanned { waypoints: Vec<Vec2>, snapped: bool },
    Arrived(Vec2),
    Stopped(StopReason, Vec2),
}

impl Kind {
    /// Whether this is the answer to a request.
    pub fn is_answer(&self) -> bool {
        matches!(
            self,
            Kind::Ready { .. } | Kind::Unreachable | Kind::Cancelled
        )
    }

    /// Whether this ends a walk.
    pub fn is_end(&self) -> bool {
        matches!(self, Kind::Arrived(_) | Kind::Stopped(..))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub entity: Entity,
    pub request: RequestId,
    /// The request's target (the position for `Arrived` and `Stopped`).
    pub target: Vec2,
    pub kind: Kind,
}

macro_rules! entry_from {
    ($event:ty, |$ev:ident| $target:expr, $kind:expr) => {
        impl From<&$event> for Entry {
            fn from($ev: &$event) -> Self {
                Entry {
                    entity: $ev.entity,
                    request: $ev.request,
                    target: $target,
                    kind: $kind,
                }
            }
        }
    };
}

entry_from!(
    PathReady,
    |ev| ev.target,
    Kind::Ready {
        waypoints: ev.waypoints.clone(),
        snapped: ev.snapped
    }
);
entry_from!(PathUnreachable, |ev| ev.target, Kind::Unreachable);
entry_from!(PathCancelled, |ev| ev.target, Kind::Cancelled);
entry_from!(
    PathReplanned,
    |ev| ev.target,
    Kind::Replanned {
        waypoints: ev.waypoints.clone(),
        snapped: ev.snapped
    }
);
entry_from!(Arrived, |ev| ev.position, Kind::Arrived(ev.position));
entry_from!(
    WalkStopped,
    |ev| ev.position,
    Kind::Stopped(ev.reason, ev.position)
);

/// Outcomes seen by global observers and by message readers.
#[derive(Resource, Default)]
pub struct Log {
    pub observed: Vec<Entry>,
    pub messages: Vec<Entry>,
}

impl Log {
    pub fn count(entries: &[Entry], entity: Entity, pred: impl Fn(&Entry) -> bool) -> usize {
        entries
            .iter()
            .filter(|e| e.entity == entity && pred(e))
            .count()
    }

    /// Checks observers and messages saw the same outcomes, and returns the observed
    /// entries (in the order they were sent).
    pub fn both(&self) -> &[Entry] {
        let sorted = |entries: &[Entry]| {
            let mut v: Vec<String> = entries.iter().map(|e| format!("{e:?}")).collect();
            v.sort();
            v
        };
        assert_eq!(
            sorted(&self.observed),
            sorted(&self.messages),
            "observers and messages disagree"
        );
        &self.observed
    }

    /// (target, waypoints, snapped) of each `PathReady` of `entity`.
    pub fn ready(&self, entity: Entity) -> Vec<(Vec2, Vec<Vec2>, bool)> {
        self.observed
            .iter()
            .filter(|e| e.entity == entity)
            .filter_map(|e| match &e.kind {
                Kind::Ready { waypoints, snapped } => Some((e.target, waypoints.clone(), *snapped)),
                _ => None,
            })
            .collect()
    }

    /// (target, waypoints, snapped) of each `PathReplanned` of `entity`.
    pub fn replanned(&self, entity: Entity) -> Vec<(Vec2, Vec<Vec2>, bool)> {
        self.observed
            .iter()
            .filter(|e| e.entity == entity)
            .filter_map(|e| match &e.kind {
                Kind::Replanned { waypoints, snapped } => {
                    Some((e.target, waypoints.clone(), *snapped))
                }
                _ => None,
            })
            .collect()
    }

    pub fn has(&self, entity: Entity, pred: impl Fn(&Kind) -> bool) -> bool {
        self.observed
            .iter()
            .any(|e| e.entity == entity && pred(&e.kind))
    }

    /// The entries of request `id`.
    pub fn of(&self, id: RequestId) -> Vec<&Entry> {
        self.observed.iter().filter(|e| e.request == id).collect()
    }

    /// The kinds of the entries of request `id`, in order.
    pub fn kinds(&self, id: RequestId) -> Vec<Kind> {
        self.of(id).into_iter().map(|e| e.kind.clone()).collect()
    }
}

fn log_messages(
    mut log: ResMut<Log>,
    mut ready: MessageReader<PathReady>,
    mut unreachable: MessageReader<PathUnreachable>,
    mut cancelled: MessageReader<PathCancelled>,
    mut replanned: MessageReader<PathReplanned>,
    mut arrived: MessageReader<Arrived>,
    mut stopped: MessageReader<WalkStopped>,
) {
    // Read per type: `Log::both` compares them with the observed entries as sets.
    let mut batch: Vec<Entry> = Vec::new();
    batch.extend(ready.read().map(Entry::from));
    batch.extend(unreachable.read().map(Entry::from));
    batch.extend(cancelled.read().map(Entry::from));
    batch.extend(replanned.read().map(Entry::from));
    batch.extend(arrived.read().map(Entry::from));
    batch.extend(stopped.read().map(Entry::from));
    log.messages.extend(batch);
}

/// Records every outcome in [`Log`], through global observers and message readers.
pub fn add_log(app: &mut App) {
    // After the sequences' steps start, in `Last`: a step that ends its request at
    // once (a walk to a point off the room) sends its answer then.
    #[cfg(feature = "sequences")]
    let log_messages =
        log_messages.after(bevy_walkmask::sequence::SequentialActionsPlugin::check_actions::<()>);
    app.init_resource::<Log>()
        .add_systems(Last, log_messages)
        .add_observer(|ev: On<PathReady>, mut log: ResMut<Log>| {
            log.observed.push(Entry::from(&*ev))
        })
        .add_observer(|ev: On<PathUnreachable>, mut log: ResMut<Log>| {
            log.observed.push(Entry::from(&*ev))
        })
        .add_observer(|ev: On<PathCancelled>, mut log: ResMut<Log>| {
            log.observed.push(Entry::from(&*ev))
        })
        .add_observer(|ev: On<PathReplanned>, mut log: ResMut<Log>| {
            log.observed.push(Entry::from(&*ev))
        })
        .add_observer(|ev: On<Arrived>, mut log: ResMut<Log>| log.observed.push(Entry::from(&*ev)))
        .add_observer(|ev: On<WalkStopped>, mut log: ResMut<Log>| {
            log.observed.push(Entry::from(&*ev))
        });
}

// ---------------------------------------------------------------- timing

/// How a test's frames are run: answers exactly `n` frames after their search starts
/// with frames run back to back, or as soon as ready with frames paced in real time
/// (16 ms of wall clock per frame, as a game at 60 Hz), so that the pool's threads
/// finish work between frames as they do in a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// `AnswerTiming::AfterFrames(n)`, frames back to back: exact.
    Exact(u32),
    /// `AnswerTiming::WhenReady`, frames paced: assert bounds, not exact frames.
    Paced,
}

impl Pace {
    /// Both ways the plugin tests run.
    pub const BOTH: [Pace; 2] = [Pace::Exact(2), Pace::Paced];

    /// The test plugin ([`deterministic`]) with this answer timing.
    pub fn plugin(self) -> WalkmaskPlugin {
        WalkmaskPlugin {
            answer_timing: match self {
                Pace::Exact(n) => AnswerTiming::AfterFrames(n),
                Pace::Paced => AnswerTiming::WhenReady,
            },
            ..deterministic()
        }
    }

    /// A frame clock for this pace.
    pub fn clock(self) -> FrameClock {
        FrameClock {
            paced: self == Pace::Paced,
            next: std::time::Instant::now(),
        }
    }
}

/// Runs frames at a [`Pace`]: `frame` waits for the next 16 ms tick of the wall clock
/// (paced) and updates the app. Game time advances 16 ms a frame either way.
pub struct FrameClock {
    paced: bool,
    next: std::time::Instant,
}

impl FrameClock {
    /// One frame.
    pub fn frame(&mut self, app: &mut App) {
        if self.paced {
            let now = std::time::Instant::now();
            if self.next > now {
                std::thread::sleep(self.next - now);
            }
            // A late frame does not make the next ones rush.
            self.next = self.next.max(now) + Duration::from_millis(16);
        }
        app.update();
    }

    /// `n` frames.
    pub fn frames(&mut self, app: &mut App, n: usize) {
        for _ in 0..n {
            self.frame(app);
        }
    }

    /// Frames until `pred` holds; panics after `max`. Returns the frames run.
    pub fn until(
        &mut self,
        app: &mut App,
        max: usize,
        mut pred: impl FnMut(&mut World) -> bool,
    ) -> usize {
        for i in 0..max {
            self.frame(app);
            if pred(app.world_mut()) {
                return i + 1;
            }
        }
        panic!("condition not reached after {max} frames");
    }
}

/// Checks the outcome contract on `log` for `ids`: each request exactly one answer,
/// each walk that started ends exactly once, and after it nothing more of that request.
pub fn assert_contract(log: &Log, ids: &[RequestId]) {
    let entries = log.both();
    for id in ids {
        let kinds: Vec<&Kind> = entries
            .iter()
            .filter(|e| e.request == *id)
            .map(|e| &e.kind)
            .collect();
        let answers = kinds.iter().filter(|k| k.is_answer()).count();
        let walker = entries.iter().find(|e| e.request == *id).map(|e| e.entity);
        let kinds_of = format!("{walker:?}: {kinds:?}");
        assert_eq!(answers, 1, "{id}: {kinds_of}");
        assert!(kinds[0].is_answer(), "{id} answered first: {kinds_of}");
        let started = matches!(kinds[0], Kind::Ready { .. });
        let ends = kinds.iter().filter(|k| k.is_end()).count();
        assert_eq!(ends, usize::from(started), "{id}: {kinds_of}");
        if started {
            assert!(kinds.last().unwrap().is_end(), "{id} ends last: {kinds_of}");
        }
    }
}

/// A window of 1280 x 720 and a 2D camera at the origin (its projection filled in by
/// hand: the camera systems live in the renderer); returns the window.
pub fn window_and_camera(app: &mut App) -> Entity {
    use bevy::camera::{CameraProjection, RenderTargetInfo};
    let window = app
        .world_mut()
        .spawn((Window::default(), bevy::window::PrimaryWindow))
        .id();
    let mut projection = OrthographicProjection::default_2d();
    projection.update(1280.0, 720.0);
    let mut camera = Camera::default();
    camera.computed.target_info = Some(RenderTargetInfo {
        physical_size: UVec2::new(1280, 720),
        scale_factor: 1.0,
    });
    camera.computed.clip_from_view = projection.get_clip_from_view();
    app.world_mut().spawn((Camera2d, camera));
    window
}

/// Puts the cursor of `window` (from [`window_and_camera`]) over world point `world`.
pub fn put_cursor(app: &mut App, window: Entity, world: Vec2) {
    app.world_mut()
        .get_mut::<Window>(window)
        .unwrap()
        .set_cursor_position(Some(Vec2::new(640.0 + world.x, 360.0 - world.y)));
}

/// Presses (`true`) or releases the left mouse button over `window`.
pub fn left_button(app: &mut App, window: Entity, pressed: bool) {
    use bevy::input::ButtonState;
    use bevy::input::mouse::MouseButtonInput;
    app.world_mut().write_message(MouseButtonInput {
        button: MouseButton::Left,
        state: if pressed {
            ButtonState::Pressed
        } else {
            ButtonState::Released
        },
        window,
    });
}
