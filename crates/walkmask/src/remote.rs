//! Path searches answered away from where they are asked: on another thread, or in a
//! browser's Web Worker that runs the core as a wasm module of its own.
//!
//! The asking side sends a [`Request`] as bytes ([`Request::encode`]): a grid's mask
//! once ([`Request::LoadGrid`]), then queries on it ([`Request::FindPath`]). The
//! answering side keeps the grids and their subgoal indexes in a [`RemoteSearches`]
//! and sends one [`Reply`] back for each request but [`Request::ForgetGrid`]. Messages
//! are plain little-endian bytes behind a version header, so both sides must be built
//! from the same version of this crate ([`PROTOCOL_VERSION`]); a message of another
//! version is refused, never misread.
//!
//! ```
//! use walkmask::remote::{PathRequest, RemoteSearches, Reply, Request};
//! use walkmask::{AreaSet, PathOptions, Point, WalkMask};
//!
//! // A 64 x 32 room: area 1 everywhere but a wall at x = 30 with a gap at the bottom.
//! let mask = WalkMask::from_fn(64, 32, |x, y| if x == 30 && y < 28 { 0 } else { 1 }).unwrap();
//! let mut searches = RemoteSearches::new(4);
//! let load = Request::LoadGrid {
//!     grid: 7,
//!     mask,
//!     areas: AreaSet::only(&[1]),
//!     clearance: 0.0,
//!     index: true,
//! };
//! // What crosses the thread or worker boundary is bytes.
//! let reply = searches.answer_bytes(&load.encode()).unwrap();
//! assert!(matches!(Reply::decode(&reply), Ok(Reply::Loaded { grid: 7, .. })));
//!
//! let query = Request::FindPath(PathRequest {
//!     id: 1,
//!     grid: 7,
//!     start: Point::new(5.5, 5.5),
//!     goal: Point::new(60.5, 5.5),
//!     options: PathOptions::default(),
//!     obstacles: Vec::new(),
//! });
//! let reply = Reply::decode(&searches.answer_bytes(&query.encode()).unwrap()).unwrap();
//! let Reply::Path { id: 1, result: Ok(path) } = reply else { panic!("{reply:?}") };
//! assert_eq!(path.waypoints.last(), Some(&Point::new(60.5, 5.5)));
//! assert!(path.waypoints.iter().any(|p| p.y > 28.0)); // through the gap
//! ```

use std::collections::HashMap;
use std::time::Duration;

use thiserror::Error;
use web_time::Instant;

use crate::obstacles::{Footprint, Obstacle, Obstacles};
use crate::query::{ObstacleDetours, PathStats, PathStatus};
use crate::subgoal::IndexPolicy;
use crate::{
    AreaSet, MaskError, NavGrid, PathOptions, PathResult, Pathfinder, Point, QueryError, WalkMask,
};

/// The version of the message layout. Both sides must speak the same one.
pub const PROTOCOL_VERSION: u16 = 1;

/// The first two bytes of every message.
const MAGIC: [u8; 2] = *b"WM";

/// What the asking side sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Make grid `grid` (a number the asking side chooses) from `mask` with `areas`
    /// walkable for walkers of `clearance` pixels, as
    /// [`NavGrid::with_clearance`], with its subgoal index
    /// ([`IndexPolicy::WhenItPays`]) when `index`. A grid of the same number is
    /// replaced. Answered by [`Reply::Loaded`], or [`Reply::Refused`] when the mask
    /// is not a valid one.
    LoadGrid {
        /// The grid's number.
        grid: u32,
        /// The mask's area ids.
        mask: WalkMask,
        /// The areas walkers may use.
        areas: AreaSet,
        /// The walkers' clearance radius in pixels.
        clearance: f32,
        /// Whether to build the subgoal index.
        index: bool,
    },
    /// Drop grid `grid`. Not answered.
    ForgetGrid {
        /// The grid's number.
        grid: u32,
    },
    /// A path query. Answered by [`Reply::Path`], or [`Reply::UnknownGrid`] when the
    /// grid was never loaded or has been dropped to make room for others.
    FindPath(PathRequest),
}

/// A path query on a loaded grid: [`Pathfinder::find_path_among`] with these
/// options among these obstacles.
#[derive(Clone, Debug, PartialEq)]
pub struct PathRequest {
    /// A number the asking side chooses; the reply carries it.
    pub id: u32,
    /// The grid, as loaded by [`Request::LoadGrid`].
    pub grid: u32,
    /// Where the walk starts, in mask pixels.
    pub start: Point,
    /// Where it should end, in mask pixels.
    pub goal: Point,
    /// The query's options.
    pub options: PathOptions,
    /// Obstacles in mask pixels, widened by the grid's clearance. One that is not
    /// valid (a centre or size that is not finite) is left out.
    pub obstacles: Vec<Obstacle>,
}

/// What the answering side sends back.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The answering side is up and speaks `version` (sent once, by the side that
    /// starts answering, before any other reply).
    Ready {
        /// Its [`PROTOCOL_VERSION`].
        version: u16,
    },
    /// A grid was made.
    Loaded {
        /// The grid's number.
        grid: u32,
        /// How long the grid and its index took to build.
        elapsed: Duration,
    },
    /// A path query's answer, exactly as [`Pathfinder::find_path_among`] gave it.
    Path {
        /// The query's number.
        id: u32,
        /// Its answer.
        result: Result<PathResult, QueryError>,
    },
    /// A path query on a grid that is not there: load it again and ask again.
    UnknownGrid {
        /// The query's number.
        id: u32,
    },
    /// A request that could not be read or carried out.
    Refused {
        /// Why.
        error: String,
    },
}

/// Why a message could not be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RemoteError {
    /// The bytes do not start with the message header.
    #[error("not a walkmask message")]
    NotAMessage,
    /// The other side speaks another version of the messages.
    #[error("message version {found}, expected {PROTOCOL_VERSION}")]
    WrongVersion {
        /// The version the message carries.
        found: u16,
    },
    /// The message ends too early.
    #[error("message cut short")]
    Truncated,
    /// The message goes on after its end.
    #[error("{0} bytes after the end of the message")]
    TrailingBytes(usize),
    /// A kind or a field's code this version does not know.
    #[error("unknown {what} code {code}")]
    UnknownCode {
        /// Which field.
        what: &'static str,
        /// The code.
        code: u8,
    },
    /// The mask of a [`Request::LoadGrid`] is not valid.
    #[error("mask: {0}")]
    Mask(String),
}

impl Request {
    /// The request as bytes, to be read by [`Request::decode`].
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Writer::header(match self {
            Request::LoadGrid { .. } => 1,
            Request::ForgetGrid { .. } => 2,
            Request::FindPath(_) => 3,
        });
        match self {
            Request::LoadGrid {
                grid,
                mask,
                areas,
                clearance,
                index,
            } => {
                out.u32(*grid);
                out.f32(*clearance);
                out.bool(*index);
                let ids: Vec<u8> = areas.iter().collect();
                out.u16(ids.len() as u16);
                out.bytes(&ids);
                out.u32(mask.width());
                out.u32(mask.height());
                out.bytes(mask.areas());
            }
            Request::ForgetGrid { grid } => out.u32(*grid),
            Request::FindPath(query) => {
                out.u32(query.id);
                out.u32(query.grid);
                out.point(query.start);
                out.point(query.goal);
                let o = &query.options;
                out.u8(u8::from(o.snap_destination)
                    | u8::from(o.beautify) << 1
                    | u8::from(o.taut) << 2
                    | u8::from(o.grid_steps) << 3
                    | u8::from(o.use_index) << 4);
                out.u8(match o.obstacle_detours {
                    ObstacleDetours::Shortest => 0,
                    ObstacleDetours::Local => 1,
                });
                out.u32(query.obstacles.len() as u32);
                for obstacle in &query.obstacles {
                    out.point(obstacle.center);
                    let [a, b] = obstacle.footprint.sizes();
                    out.u8(obstacle.footprint.kind());
                    out.f32(a);
                    out.f32(b);
                }
            }
        }
        out.0
    }

    /// The request in `bytes`, as [`Request::encode`] wrote it.
    pub fn decode(bytes: &[u8]) -> Result<Self, RemoteError> {
        let (kind, mut input) = Reader::header(bytes)?;
        let request = match kind {
            1 => {
                let grid = input.u32()?;
                let clearance = input.f32()?;
                let index = input.bool()?;
                let count = input.u16()? as usize;
                let areas = AreaSet::only(input.bytes(count)?);
                let width = input.u32()?;
                let height = input.u32()?;
                let len = (width as usize)
                    .checked_mul(height as usize)
                    .ok_or(RemoteError::Truncated)?;
                let pixels = input.bytes(len)?.to_vec();
                Request::LoadGrid {
                    grid,
                    mask: WalkMask::new(width, height, pixels)
                        .map_err(|error: MaskError| RemoteError::Mask(error.to_string()))?,
                    areas,
                    clearance,
                    index,
                }
            }
            2 => Request::ForgetGrid { grid: input.u32()? },
            3 => {
                let id = input.u32()?;
                let grid = input.u32()?;
                let start = input.point()?;
                let goal = input.point()?;
                let flags = input.u8()?;
                let obstacle_detours = match input.u8()? {
                    0 => ObstacleDetours::Shortest,
                    1 => ObstacleDetours::Local,
                    code => {
                        return Err(RemoteError::UnknownCode {
                            what: "obstacle detours",
                            code,
                        });
                    }
                };
                let options = PathOptions {
                    snap_destination: flags & 1 != 0,
                    beautify: flags & 2 != 0,
                    taut: flags & 4 != 0,
                    grid_steps: flags & 8 != 0,
                    use_index: flags & 16 != 0,
                    obstacle_detours,
                };
                let count = input.u32()? as usize;
                // Each obstacle takes 17 bytes: a count beyond what is left is a
                // damaged message, not a reason to allocate.
                if count > input.left() / 17 {
                    return Err(RemoteError::Truncated);
                }
                let mut obstacles = Vec::with_capacity(count);
                for _ in 0..count {
                    let center = input.point()?;
                    let kind = input.u8()?;
                    let (a, b) = (input.f32()?, input.f32()?);
                    let footprint =
                        Footprint::from_kind(kind, a, b).ok_or(RemoteError::UnknownCode {
                            what: "footprint",
                            code: kind,
                        })?;
                    obstacles.push(Obstacle { center, footprint });
                }
                Request::FindPath(PathRequest {
                    id,
                    grid,
                    start,
                    goal,
                    options,
                    obstacles,
                })
            }
            code => {
                return Err(RemoteError::UnknownCode {
                    what: "request",
                    code,
                });
            }
        };
        input.end()?;
        Ok(request)
    }
}

impl Reply {
    /// The reply as bytes, to be read by [`Reply::decode`].
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Writer::header(match self {
            Reply::Ready { .. } => 1,
            Reply::Loaded { .. } => 2,
            Reply::Path { result: Ok(_), .. } => 3,
            Reply::Path { result: Err(_), .. } => 4,
            Reply::UnknownGrid { .. } => 5,
            Reply::Refused { .. } => 6,
        });
        match self {
            Reply::Ready { version } => out.u16(*version),
            Reply::Loaded { grid, elapsed } => {
                out.u32(*grid);
                out.duration(*elapsed);
            }
            Reply::Path { id, result } => {
                out.u32(*id);
                match result {
                    Ok(path) => {
                        out.u8(match path.status {
                            PathStatus::Found => 0,
                            PathStatus::Snapped => 1,
                            PathStatus::Unreachable => 2,
                        });
                        out.u32(path.waypoints.len() as u32);
                        for &point in &path.waypoints {
                            out.point(point);
                        }
                        out.f32(path.length);
                        out.bool(path.start_moved);
                        out.u64(path.stats.visited as u64);
                        out.u64(path.stats.local_detours as u64);
                        out.bool(path.stats.filled);
                        out.duration(path.stats.elapsed);
                    }
                    Err(QueryError::NotFinite { which, x, y }) => {
                        out.u8(0);
                        out.u8(which_code(which));
                        out.point(Point::new(*x, *y));
                    }
                    Err(QueryError::OutsideMask {
                        which,
                        x,
                        y,
                        width,
                        height,
                    }) => {
                        out.u8(1);
                        out.u8(which_code(which));
                        out.point(Point::new(*x, *y));
                        out.u32(*width);
                        out.u32(*height);
                    }
                }
            }
            Reply::UnknownGrid { id } => out.u32(*id),
            Reply::Refused { error } => {
                out.u32(error.len() as u32);
                out.bytes(error.as_bytes());
            }
        }
        out.0
    }

    /// The reply in `bytes`, as [`Reply::encode`] wrote it.
    pub fn decode(bytes: &[u8]) -> Result<Self, RemoteError> {
        let (kind, mut input) = Reader::header(bytes)?;
        let reply = match kind {
            1 => Reply::Ready {
                version: input.u16()?,
            },
            2 => Reply::Loaded {
                grid: input.u32()?,
                elapsed: input.duration()?,
            },
            3 => {
                let id = input.u32()?;
                let status = match input.u8()? {
                    0 => PathStatus::Found,
                    1 => PathStatus::Snapped,
                    2 => PathStatus::Unreachable,
                    code => {
                        return Err(RemoteError::UnknownCode {
                            what: "path status",
                            code,
                        });
                    }
                };
                let count = input.u32()? as usize;
                if count > input.left() / 8 {
                    return Err(RemoteError::Truncated);
                }
                let waypoints = (0..count)
                    .map(|_| input.point())
                    .collect::<Result<Vec<_>, _>>()?;
                let length = input.f32()?;
                let start_moved = input.bool()?;
                let stats = PathStats {
                    visited: input.u64()? as usize,
                    local_detours: input.u64()? as usize,
                    filled: input.bool()?,
                    elapsed: input.duration()?,
                };
                Reply::Path {
                    id,
                    result: Ok(PathResult {
                        status,
                        waypoints,
                        length,
                        start_moved,
                        stats,
                    }),
                }
            }
            4 => {
                let id = input.u32()?;
                let kind = input.u8()?;
                let which = match input.u8()? {
                    0 => "start",
                    1 => "destination",
                    code => {
                        return Err(RemoteError::UnknownCode {
                            what: "query point",
                            code,
                        });
                    }
                };
                let Point { x, y } = input.point()?;
                let error = match kind {
                    0 => QueryError::NotFinite { which, x, y },
                    1 => QueryError::OutsideMask {
                        which,
                        x,
                        y,
                        width: input.u32()?,
                        height: input.u32()?,
                    },
                    code => {
                        return Err(RemoteError::UnknownCode {
                            what: "query error",
                            code,
                        });
                    }
                };
                Reply::Path {
                    id,
                    result: Err(error),
                }
            }
            5 => Reply::UnknownGrid { id: input.u32()? },
            6 => {
                let len = input.u32()? as usize;
                let error = String::from_utf8_lossy(input.bytes(len)?).into_owned();
                Reply::Refused { error }
            }
            code => {
                return Err(RemoteError::UnknownCode {
                    what: "reply",
                    code,
                });
            }
        };
        input.end()?;
        Ok(reply)
    }
}

/// `QueryError`'s `which` as a byte: it is `"start"` or `"destination"`.
fn which_code(which: &str) -> u8 {
    u8::from(which != "start")
}

/// The answering side: grids by number, each with its subgoal index, one
/// [`Pathfinder`] whose buffers serve every query, and the pixels of the obstacles
/// earlier queries ran among (each worked out once per grid).
pub struct RemoteSearches {
    /// The grids, the one used last at the end.
    grids: Vec<(u32, NavGrid)>,
    /// How many grids are kept; loading one more drops the one used longest ago.
    keep: usize,
    pathfinder: Pathfinder,
    /// The pixels of each obstacle earlier queries ran among, by grid number and
    /// [`Obstacle::key`], each alone: queries among characters that stand still see
    /// the same obstacles again and again.
    rasters: HashMap<(u32, [u32; 5]), Obstacles>,
}

impl RemoteSearches {
    /// Obstacles whose pixels are kept; past it the store starts afresh.
    const KEEP_RASTERS: usize = 4096;

    /// Searches that keep at most `keep_grids` grids (at least one).
    pub fn new(keep_grids: usize) -> Self {
        Self {
            grids: Vec::new(),
            keep: keep_grids.max(1),
            pathfinder: Pathfinder::new(),
            rasters: HashMap::new(),
        }
    }

    /// Drops grid `grid` and the obstacle pixels kept for it.
    fn forget(&mut self, grid: u32) {
        self.grids.retain(|&(id, _)| id != grid);
        self.rasters.retain(|&(id, _), _| id != grid);
    }

    /// `list` as obstacles on `grid` (number `id`), from the pixels kept where they
    /// are kept; invalid obstacles are left out, as the asking side's own searches
    /// do.
    fn obstacles(&mut self, id: u32, grid: &NavGrid, list: Vec<Obstacle>) -> Obstacles {
        let mut out = Obstacles::new(grid);
        for obstacle in list {
            let key = (id, obstacle.key());
            if let Some(kept) = self.rasters.get(&key) {
                out.push_from(kept, 0);
                continue;
            }
            let mut alone = Obstacles::new(grid);
            if alone.push(obstacle).is_ok() {
                out.push_from(&alone, 0);
                if self.rasters.len() >= Self::KEEP_RASTERS {
                    self.rasters.clear();
                }
                self.rasters.insert(key, alone);
            }
        }
        out
    }

    /// The numbers of the grids held, the one used last at the end.
    pub fn grids(&self) -> impl Iterator<Item = u32> + '_ {
        self.grids.iter().map(|&(id, _)| id)
    }

    /// Carries out `request`; its reply, if it has one.
    pub fn answer(&mut self, request: Request) -> Option<Reply> {
        match request {
            Request::LoadGrid {
                grid,
                mask,
                areas,
                clearance,
                index,
            } => {
                let started = Instant::now();
                let built = match NavGrid::with_clearance(mask, areas, clearance) {
                    Ok(built) => built,
                    Err(error) => {
                        return Some(Reply::Refused {
                            error: format!("grid {grid}: {error}"),
                        });
                    }
                };
                if index {
                    built.build_index(IndexPolicy::WhenItPays);
                }
                self.forget(grid);
                if self.grids.len() >= self.keep {
                    let oldest = self.grids[0].0;
                    self.forget(oldest);
                }
                self.grids.push((grid, built));
                Some(Reply::Loaded {
                    grid,
                    elapsed: started.elapsed(),
                })
            }
            Request::ForgetGrid { grid } => {
                self.forget(grid);
                None
            }
            Request::FindPath(query) => {
                let Some(at) = self.grids.iter().position(|&(id, _)| id == query.grid) else {
                    return Some(Reply::UnknownGrid { id: query.id });
                };
                let entry = self.grids.remove(at);
                let grid = &entry.1;
                let obstacles = self.obstacles(query.grid, grid, query.obstacles);
                self.pathfinder.set_options(query.options);
                let result =
                    self.pathfinder
                        .find_path_among(grid, &obstacles, query.start, query.goal);
                self.grids.push(entry);
                Some(Reply::Path {
                    id: query.id,
                    result,
                })
            }
        }
    }

    /// Reads a request from `bytes`, carries it out and returns its reply as bytes;
    /// bytes that are not a request are answered by [`Reply::Refused`].
    pub fn answer_bytes(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        let reply = match Request::decode(bytes) {
            Ok(request) => self.answer(request)?,
            Err(error) => Reply::Refused {
                error: error.to_string(),
            },
        };
        Some(reply.encode())
    }
}

impl std::fmt::Debug for RemoteSearches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSearches")
            .field("grids", &self.grids().collect::<Vec<_>>())
            .field("keep", &self.keep)
            .finish_non_exhaustive()
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn header(kind: u8) -> Self {
        let mut out = Writer(Vec::with_capacity(64));
        out.bytes(&MAGIC);
        out.u16(PROTOCOL_VERSION);
        out.u8(kind);
        out
    }
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn bool(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }
    fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.bytes(&v.to_le_bytes());
    }
    fn point(&mut self, p: Point) {
        self.f32(p.x);
        self.f32(p.y);
    }
    fn duration(&mut self, d: Duration) {
        self.u64(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The message's kind and a reader of what follows its header.
    fn header(bytes: &'a [u8]) -> Result<(u8, Self), RemoteError> {
        if bytes.len() < 2 || bytes[..2] != MAGIC {
            return Err(RemoteError::NotAMessage);
        }
        let mut input = Reader(&bytes[2..]);
        let found = input.u16()?;
        if found != PROTOCOL_VERSION {
            return Err(RemoteError::WrongVersion { found });
        }
        Ok((input.u8()?, input))
    }
    fn left(&self) -> usize {
        self.0.len()
    }
    fn end(&self) -> Result<(), RemoteError> {
        match self.0.len() {
            0 => Ok(()),
            n => Err(RemoteError::TrailingBytes(n)),
        }
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], RemoteError> {
        if n > self.0.len() {
            return Err(RemoteError::Truncated);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], RemoteError> {
        Ok(self.bytes(N)?.try_into().expect("N bytes"))
    }
    fn u8(&mut self) -> Result<u8, RemoteError> {
        Ok(self.array::<1>()?[0])
    }
    fn bool(&mut self) -> Result<bool, RemoteError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            code => Err(RemoteError::UnknownCode {
                what: "yes or no",
                code,
            }),
        }
    }
    fn u16(&mut self) -> Result<u16, RemoteError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, RemoteError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, RemoteError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32, RemoteError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    fn point(&mut self) -> Result<Point, RemoteError> {
        Ok(Point::new(self.f32()?, self.f32()?))
    }
    fn duration(&mut self) -> Result<Duration, RemoteError> {
        Ok(Duration::from_nanos(self.u64()?))
    }
}
