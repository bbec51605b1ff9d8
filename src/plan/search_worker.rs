//! On the web: path searches in a Web Worker ([`WalkmaskPlugin::search_worker`](crate::WalkmaskPlugin::search_worker)).
//!
//! The worker runs the core as a wasm module of its own (`crates/walkmask_web_worker`)
//! and keeps grids by number: each grid's mask is sent once, then queries, as
//! [`walkmask::remote`] messages. A search's task on the pool (which runs on the main
//! thread in a browser) only posts its query and waits for the reply, so the search,
//! its fill if it needs one and the grid's subgoal index run off the page's main
//! thread.
//!
//! Until the worker says it is up, and for good once it fails (no workers in this
//! browser, the script missing, a trap, another version of the messages),
//! [`find_path`] answers `None` and the caller searches on the main thread as before.
//! A query whose reply never comes because the worker failed is searched there too.
//!
//! What the page does with the worker (posting, its events) is the `browser` part;
//! the rest ([`Client`], [`find_path`]) is plain Rust and tested natively against the
//! core's own answering side.

use std::collections::HashMap;

use bevy::log::{debug, info, warn};
use bevy::prelude::Entity;
use walkmask::obstacles::Obstacle;
use walkmask::remote::{PROTOCOL_VERSION, PathRequest, Reply, Request};
use walkmask::{PathOptions, PathResult, Point, QueryError, WalkMask};

use super::grid_cache::GridKey;

/// Where the worker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Started; its module is loading.
    Starting,
    /// Up: it answers.
    Ready,
    /// It will not answer; searches stay on the main thread.
    Failed,
}

/// Where messages to the worker go.
pub(crate) trait Port {
    /// Sends `bytes`; false when they could not be sent.
    fn post(&self, bytes: Vec<u8>) -> bool;
    /// Stops the worker.
    fn close(&self);
}

/// The worker's side as the plugin sees it: its state, the queries waiting for a
/// reply, and the grids it was sent.
pub(crate) struct Client<P> {
    port: P,
    state: State,
    /// The next query's number.
    next_query: u32,
    /// Queries sent and not answered, by number.
    waiting: HashMap<u32, async_channel::Sender<Reply>>,
    /// The worker's number of each grid sent to it.
    grids: HashMap<GridKey, u32>,
    /// The next grid's number.
    next_grid: u32,
}

impl<P: Port> Client<P> {
    /// A client of a worker that has just been started.
    pub(crate) fn new(port: P) -> Self {
        Self {
            port,
            state: State::Starting,
            next_query: 0,
            waiting: HashMap::new(),
            grids: HashMap::new(),
            next_grid: 0,
        }
    }

    pub(crate) fn state(&self) -> State {
        self.state
    }

    /// The worker will not answer: the queries waiting for it are searched on the
    /// main thread (their senders dropped), and so are all later ones. Warns the
    /// first time.
    pub(crate) fn fail(&mut self, why: &str) {
        if self.state != State::Failed {
            warn!("bevy_walkmask: {why}; searches run on the main thread");
        }
        self.state = State::Failed;
        self.waiting.clear();
        self.port.close();
    }

    /// A message from the worker.
    pub(crate) fn received(&mut self, bytes: &[u8]) {
        let reply = match Reply::decode(bytes) {
            Ok(reply) => reply,
            Err(error) => {
                return self.fail(&format!(
                    "a message of the search worker cannot be read ({error})"
                ));
            }
        };
        match reply {
            Reply::Ready { version } if version == PROTOCOL_VERSION => {
                if self.state == State::Starting {
                    self.state = State::Ready;
                    info!("bevy_walkmask: searches run in the search worker");
                }
            }
            Reply::Ready { version } => self.fail(&format!(
                "the search worker reads messages of version {version}, not \
                 {PROTOCOL_VERSION} (build it from this version)"
            )),
            Reply::Loaded { grid, elapsed } => {
                debug!("bevy_walkmask: the search worker built grid {grid} in {elapsed:?}");
            }
            Reply::Path { id, .. } | Reply::UnknownGrid { id } => {
                if let Some(sender) = self.waiting.remove(&id) {
                    // The query's task may have been dropped meanwhile: nothing to do.
                    let _ = sender.try_send(reply);
                }
            }
            Reply::Refused { error } => {
                warn!("bevy_walkmask: the search worker refused a request: {error}");
            }
        }
    }

    /// Sends `query` (and its grid's mask first, if the worker does not have it);
    /// the receiver of its reply. `None` when the worker is not up or the message
    /// could not be sent.
    fn send(&mut self, query: &WorkerQuery<'_>) -> Option<async_channel::Receiver<Reply>> {
        if self.state != State::Ready {
            return None;
        }
        let grid = match self.grids.get(&query.key) {
            Some(&grid) => grid,
            None => {
                let grid = self.next_grid;
                self.next_grid = self.next_grid.wrapping_add(1);
                let load = Request::LoadGrid {
                    grid,
                    mask: query.mask.clone(),
                    areas: query.key.areas,
                    clearance: query.key.clearance(),
                    index: query.index,
                };
                if !self.port.post(load.encode()) {
                    return None;
                }
                self.grids.insert(query.key, grid);
                grid
            }
        };
        let id = self.next_query;
        self.next_query = self.next_query.wrapping_add(1);
        let request = Request::FindPath(PathRequest {
            id,
            grid,
            start: query.start,
            goal: query.goal,
            options: query.options,
            obstacles: query.obstacles.iter().map(|&(_, o)| o).collect(),
        });
        if !self.port.post(request.encode()) {
            return None;
        }
        let (sender, receiver) = async_channel::bounded(1);
        self.waiting.insert(id, sender);
        Some(receiver)
    }
}

/// Where the client lives: on the page's main thread in a browser, in a test's thread
/// natively.
pub(crate) trait Clients {
    /// Where its messages go.
    type Port: Port;
    /// `f` of the client, if there is one.
    fn with<R>(f: impl FnOnce(&mut Client<Self::Port>) -> R) -> Option<R>;
}

/// What a search needs from its query.
pub(crate) struct WorkerQuery<'a> {
    pub(crate) key: GridKey,
    pub(crate) mask: &'a WalkMask,
    /// Whether the grid gets a subgoal index.
    pub(crate) index: bool,
    pub(crate) start: Point,
    pub(crate) goal: Point,
    pub(crate) options: PathOptions,
    pub(crate) obstacles: &'a [(Entity, Obstacle)],
}

/// The worker's answer to `query`: what [`walkmask::Pathfinder::find_path_among`]
/// on the main thread would give. `None` when the worker is not up or fails before
/// answering: the caller searches itself.
pub(crate) async fn find_path<C: Clients>(
    query: WorkerQuery<'_>,
) -> Option<Result<PathResult, QueryError>> {
    // A grid the worker dropped to make room for others is sent again, once.
    for _ in 0..2 {
        let receiver = C::with(|client| client.send(&query)).flatten()?;
        match receiver.recv().await.ok()? {
            Reply::Path { result, .. } => return Some(result),
            Reply::UnknownGrid { .. } => {
                C::with(|client| client.grids.remove(&query.key));
            }
            _ => return None,
        }
    }
    None
}

/// The search worker in the page.
#[cfg(target_arch = "wasm32")]
pub(crate) mod browser {
    use std::cell::RefCell;

    use bevy::log::warn;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    use super::{Client, Clients, Port, State};

    impl Port for web_sys::Worker {
        fn post(&self, bytes: Vec<u8>) -> bool {
            // The bytes are handed over, not copied again.
            let bytes = js_sys::Uint8Array::from(&bytes[..]);
            let transfer = js_sys::Array::of1(&bytes.buffer());
            self.post_message_with_transfer(&bytes, &transfer).is_ok()
        }

        fn close(&self) {
            self.terminate();
        }
    }

    /// The client and the worker's event handlers, which must live as long as it.
    struct Connection {
        client: Client<web_sys::Worker>,
        _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _on_error: Closure<dyn FnMut(web_sys::Event)>,
    }

    thread_local! {
        static CONNECTION: RefCell<Option<Connection>> = const { RefCell::new(None) };
    }

    /// The page's search worker.
    pub(crate) struct Browser;

    impl Clients for Browser {
        type Port = web_sys::Worker;

        fn with<R>(f: impl FnOnce(&mut Client<web_sys::Worker>) -> R) -> Option<R> {
            CONNECTION.with_borrow_mut(|c| c.as_mut().map(|c| f(&mut c.client)))
        }
    }

    /// Starts the worker whose script is at `url` (relative to the page).
    pub(crate) fn start(url: &str) {
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let worker = match web_sys::Worker::new_with_options(url, &options) {
            Ok(worker) => worker,
            Err(error) => {
                warn!(
                    "bevy_walkmask: the search worker {url} cannot start ({error:?}); \
                     searches run on the main thread"
                );
                return;
            }
        };
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
                let bytes = js_sys::Uint8Array::new(&event.data()).to_vec();
                Browser::with(|client| client.received(&bytes));
            });
        let script = url.to_owned();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let what = event
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(web_sys::ErrorEvent::message)
                .unwrap_or_else(|| "it could not be loaded".to_owned());
            Browser::with(|client| {
                client.fail(&format!("the search worker {script} failed: {what}"))
            });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        CONNECTION.set(Some(Connection {
            client: Client::new(worker),
            _on_message: on_message,
            _on_error: on_error,
        }));
    }

    /// Whether the worker is up and answers.
    pub(crate) fn is_ready() -> bool {
        Browser::with(|client| client.state() == State::Ready).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::future::Future;
    use std::pin::pin;
    use std::rc::Rc;
    use std::task::{Context, Poll, Waker};

    use bevy::asset::AssetId;
    use walkmask::obstacles::Footprint;
    use walkmask::remote::RemoteSearches;
    use walkmask::{AreaSet, PathStatus};

    use super::*;

    /// Messages posted, to be carried to the worker by the test.
    #[derive(Clone, Default)]
    struct Outbox(Rc<RefCell<Vec<Vec<u8>>>>, Rc<RefCell<bool>>);

    impl Port for Outbox {
        fn post(&self, bytes: Vec<u8>) -> bool {
            self.0.borrow_mut().push(bytes);
            true
        }
        fn close(&self) {
            *self.1.borrow_mut() = true;
        }
    }

    thread_local! {
        static CLIENT: RefCell<Option<Client<Outbox>>> = const { RefCell::new(None) };
    }

    struct InTest;

    impl Clients for InTest {
        type Port = Outbox;
        fn with<R>(f: impl FnOnce(&mut Client<Outbox>) -> R) -> Option<R> {
            CLIENT.with_borrow_mut(|c| c.as_mut().map(f))
        }
    }

    /// A worker in the test's thread: the core's answering side, keeping `keep` grids.
    struct Worker {
        outbox: Outbox,
        searches: RemoteSearches,
        requests: usize,
    }

    impl Worker {
        fn start(keep: usize) -> Self {
            let outbox = Outbox::default();
            CLIENT.set(Some(Client::new(outbox.clone())));
            Self {
                outbox,
                searches: RemoteSearches::new(keep),
                requests: 0,
            }
        }
        fn say_ready(&self, version: u16) {
            let hello = Reply::Ready { version }.encode();
            InTest::with(|c| c.received(&hello));
        }
        /// Answers what was posted, as a worker would, in order.
        fn answer(&mut self) {
            let posted: Vec<_> = self.outbox.0.borrow_mut().drain(..).collect();
            for bytes in posted {
                self.requests += 1;
                if let Some(reply) = self.searches.answer_bytes(&bytes) {
                    InTest::with(|c| c.received(&reply));
                }
            }
        }
    }

    fn mask() -> WalkMask {
        WalkMask::from_fn(40, 20, |x, y| u8::from(!(x == 20 && y < 15))).unwrap()
    }

    fn key(clearance: f32) -> GridKey {
        GridKey {
            mask: AssetId::default(),
            revision: 0,
            areas: AreaSet::only(&[1]),
            clearance_steps: (clearance / super::super::grid_cache::CLEARANCE_STEP) as u32,
        }
    }

    const OBSTACLES: &[(Entity, Obstacle)] = &[(
        Entity::PLACEHOLDER,
        Obstacle {
            center: Point::new(30.0, 3.0),
            footprint: Footprint::Circle { radius: 2.0 },
        },
    )];

    fn query(mask: &WalkMask, clearance: f32) -> WorkerQuery<'_> {
        WorkerQuery {
            key: key(clearance),
            mask,
            index: true,
            start: Point::new(2.5, 2.5),
            goal: Point::new(37.5, 2.5),
            options: PathOptions::default(),
            obstacles: OBSTACLES,
        }
    }

    /// Polls `future` until it is done, letting `worker` answer between polls.
    fn run<T>(future: impl Future<Output = T>, worker: &mut Worker) -> T {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..10 {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            worker.answer();
        }
        panic!("no answer after ten rounds");
    }

    /// The main thread's own answer.
    fn at_home(query: &WorkerQuery<'_>) -> Result<PathResult, QueryError> {
        let grid = walkmask::NavGrid::with_clearance(
            query.mask.clone(),
            query.key.areas,
            query.key.clearance(),
        )
        .unwrap();
        grid.build_index(walkmask::subgoal::IndexPolicy::WhenItPays);
        let mut obstacles = walkmask::Obstacles::for_size(40, 20, grid.clearance());
        obstacles.push(OBSTACLES[0].1).unwrap();
        walkmask::Pathfinder::new().find_path_among(&grid, &obstacles, query.start, query.goal)
    }

    #[test]
    fn answers_are_the_main_threads_and_each_mask_is_sent_once() {
        let mut worker = Worker::start(8);
        let mask = mask();
        // Not up yet: the caller searches itself, and nothing is sent.
        assert!(run(find_path::<InTest>(query(&mask, 0.0)), &mut worker).is_none());
        assert_eq!(worker.requests, 0);

        worker.say_ready(PROTOCOL_VERSION);
        for round in 0..3 {
            let q = query(&mask, 1.0);
            let mut answer = run(find_path::<InTest>(query(&mask, 1.0)), &mut worker)
                .expect("answered by the worker")
                .unwrap();
            let mut home = at_home(&q).unwrap();
            answer.stats.elapsed = Default::default();
            home.stats.elapsed = Default::default();
            assert_eq!(answer, home);
            assert_eq!(answer.status, PathStatus::Found);
            // The mask went with the first query only.
            assert_eq!(worker.requests, 2 + round);
        }
        // Another clearance is another grid: its mask is sent once too.
        run(find_path::<InTest>(query(&mask, 0.0)), &mut worker)
            .unwrap()
            .unwrap();
        assert_eq!(worker.requests, 6);
        assert_eq!(worker.searches.grids().count(), 2);
    }

    #[test]
    fn a_grid_the_worker_dropped_is_sent_again() {
        let mut worker = Worker::start(1);
        worker.say_ready(PROTOCOL_VERSION);
        let mask = mask();
        for clearance in [0.0, 1.0, 0.0, 1.0] {
            let answer = run(find_path::<InTest>(query(&mask, clearance)), &mut worker);
            assert!(matches!(answer, Some(Ok(_))), "{answer:?}");
        }
        // Load and query twice (two grids); then each query finds its grid dropped
        // for the other one and sends it again: query, load, query.
        assert_eq!(worker.requests, 2 + 2 + 3 + 3);
    }

    #[test]
    fn a_worker_of_another_version_is_not_used() {
        let mut worker = Worker::start(8);
        worker.say_ready(PROTOCOL_VERSION + 1);
        let mask = mask();
        assert!(run(find_path::<InTest>(query(&mask, 0.0)), &mut worker).is_none());
        assert_eq!(worker.requests, 0);
        assert!(*worker.outbox.1.borrow(), "the worker is stopped");
        // A late hello changes nothing.
        worker.say_ready(PROTOCOL_VERSION);
        assert_eq!(InTest::with(|c| c.state()), Some(State::Failed));
    }

    #[test]
    fn queries_waiting_when_the_worker_fails_are_searched_at_home() {
        let mut worker = Worker::start(8);
        worker.say_ready(PROTOCOL_VERSION);
        let mask = mask();
        let mut future = pin!(find_path::<InTest>(query(&mask, 0.0)));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(future.as_mut().poll(&mut cx).is_pending());
        InTest::with(|c| c.fail("the test stopped it"));
        assert!(matches!(future.as_mut().poll(&mut cx), Poll::Ready(None)));
        // And later ones are not sent.
        let posted = worker.outbox.0.borrow().len();
        assert!(run(find_path::<InTest>(query(&mask, 0.0)), &mut worker).is_none());
        assert_eq!(worker.outbox.0.borrow().len(), posted);
        // Unreadable bytes from a worker fail it the same way.
        let mut worker = Worker::start(8);
        worker.say_ready(PROTOCOL_VERSION);
        InTest::with(|c| c.received(b"not a message"));
        assert!(run(find_path::<InTest>(query(&mask, 0.0)), &mut worker).is_none());
    }
}
