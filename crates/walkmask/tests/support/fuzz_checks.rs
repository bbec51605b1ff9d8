//! The checks the fuzz targets run on each input (`fuzz/fuzz_targets`), shared with
//! the stable test that replays the kept corpus (`tests/fuzz_corpus.rs`).
//!
//! A check panics when the library misbehaves: a panic (caught or not), a mask that
//! breaks its limits, a path that crosses a blocked pixel or squeezes between two
//! that touch at a corner, a status that disagrees with an independent flood fill, a
//! wrong snap or a wrong end.

use walkmask::{
    AreaColor, AreaSet, ColorChannel, DecodeRule, MaskError, MaskLimits, NavGrid, PathOptions,
    PathStatus, Pathfinder, Point, QueryError, WalkMask,
};

use super::{check_path_strict, flood, walkable};

/// Small limits, so that the fuzzer explores formats rather than allocations.
pub fn fuzz_limits() -> MaskLimits {
    MaskLimits {
        max_width: 512,
        max_height: 512,
        max_pixels: 64 * 1024,
        max_alloc_bytes: 8 << 20,
    }
}

/// The rule chosen by a selector byte.
pub fn rule_of(selector: u8) -> DecodeRule {
    match selector % 5 {
        0 => DecodeRule::Luma,
        1 => DecodeRule::Alpha,
        2 => DecodeRule::Channel {
            channel: [
                ColorChannel::Red,
                ColorChannel::Green,
                ColorChannel::Blue,
                ColorChannel::Alpha,
            ][(selector / 5 % 4) as usize],
            threshold: selector,
        },
        3 => DecodeRule::Indexed,
        _ => DecodeRule::Colors(vec![
            AreaColor {
                rgb: [255, 255, 255],
                area: 1,
            },
            AreaColor {
                rgb: [0, 255, 0],
                area: 2,
            },
            AreaColor {
                rgb: [selector, 0, 0],
                area: 3,
            },
        ]),
    }
}

/// `data[0]` picks the rule (or a Moving AI parse), the rest is the file.
pub fn check_decode(data: &[u8]) {
    let Some((&selector, file)) = data.split_first() else {
        return;
    };
    let limits = fuzz_limits();
    let (result, movingai) = if selector >= 250 {
        let text = String::from_utf8_lossy(file);
        (WalkMask::parse_movingai_with_limits(&text, &limits), true)
    } else {
        (
            WalkMask::decode_with_limits(file, &rule_of(selector), &limits),
            false,
        )
    };
    match result {
        Ok(mask) => {
            let (w, h) = (mask.width(), mask.height());
            assert!(w >= 1 && h >= 1 && w <= limits.max_width && h <= limits.max_height);
            assert!(w as u64 * h as u64 <= limits.max_pixels);
            assert_eq!(mask.areas().len(), w as usize * h as usize);
            if movingai {
                assert!(mask.areas().iter().all(|&a| a <= 1));
            }
        }
        Err(MaskError::DecoderPanic(message)) => panic!("a decoder panicked: {message}"),
        Err(error) => {
            // Every error can be shown.
            assert!(!error.to_string().is_empty());
        }
    }
}

/// Reads bytes in order, zero past the end.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A coordinate around `0..size`: mostly inside, sometimes on an edge, outside,
    /// or not a number.
    fn coordinate(&mut self, size: u32) -> f32 {
        let (kind, fine) = (self.byte(), self.byte());
        let whole = (kind as u32 % (size + 2)) as f32 - 1.0;
        match kind % 16 {
            0 => f32::NAN,
            1 => size as f32,
            2 => 0.0,
            3 => -f32::MIN_POSITIVE,
            4 => size as f32 - f32::EPSILON * size as f32,
            _ => whole + fine as f32 / 256.0,
        }
    }
}

/// A mask of up to 24 x 24 pixels in areas 0..=3, an area set, two points and the
/// options, all read from `data`; then one query checked against a flood fill.
pub fn check_path_query(data: &[u8]) {
    let mut bytes = Bytes(data);
    let width = 1 + bytes.byte() as u32 % 24;
    let height = 1 + bytes.byte() as u32 % 24;
    let enabled = bytes.byte();
    let options = bytes.byte();
    let start = Point::new(bytes.coordinate(width), bytes.coordinate(height));
    let goal = Point::new(bytes.coordinate(width), bytes.coordinate(height));
    let cells: Vec<u8> = (0..width * height)
        .map(|_| {
            let b = bytes.byte();
            // Mostly walkable area 1, so that paths have room to turn.
            if b < 96 { 1 } else { b % 4 }
        })
        .collect();
    let mask = WalkMask::new(width, height, cells).expect("within the default limits");
    let areas = AreaSet::only(
        &(1..=3)
            .filter(|a| enabled & (1 << a) == 0)
            .collect::<Vec<u8>>(),
    );
    let grid = NavGrid::new(mask, areas);
    if options & 8 != 0 {
        grid.build_index(walkmask::subgoal::IndexPolicy::Always);
    }
    let options = PathOptions {
        snap_destination: options & 1 == 0,
        beautify: options & 2 == 0,
        taut: options & 4 == 0,
        grid_steps: false,
        use_index: true,
        obstacle_detours: walkmask::ObstacleDetours::Shortest,
    };
    check_query(&grid, start, goal, &options);
}

/// One query on `grid`, checked against a flood fill and brute-force nearest pixels.
pub fn check_query(grid: &NavGrid, start: Point, goal: Point, options: &PathOptions) {
    let result = Pathfinder::with_options(*options).find_path(grid, start, goal);
    let path = match result {
        Err(QueryError::NotFinite { .. }) => {
            assert!(!start.is_finite() || !goal.is_finite());
            return;
        }
        Err(QueryError::OutsideMask { .. }) => {
            assert!(!grid.contains(start) || !grid.contains(goal));
            return;
        }
        Ok(path) => path,
    };
    assert!(grid.contains(start) && grid.contains(goal));
    assert!(path.length.is_finite() && path.length.is_sign_positive());
    let walkables: Vec<(u32, u32)> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| walkable(grid, x as i64, y as i64))
        .collect();
    let start_pixel = start.pixel().unwrap();
    let goal_pixel = goal.pixel().unwrap();
    let squared = |p: Point, (x, y): (u32, u32)| {
        (x as f64 + 0.5 - p.x as f64).powi(2) + (y as f64 + 0.5 - p.y as f64).powi(2)
    };
    let nearest = |p: Point, set: &dyn Fn((u32, u32)) -> bool| -> Vec<(u32, u32)> {
        let best = walkables
            .iter()
            .filter(|&&q| set(q))
            .map(|&q| squared(p, q))
            .fold(f64::INFINITY, f64::min);
        walkables
            .iter()
            .copied()
            .filter(|&q| set(q) && squared(p, q) == best)
            .collect()
    };
    if walkables.is_empty() {
        assert_eq!(path.status, PathStatus::Unreachable);
        return;
    }
    let start_blocked = !walkable(grid, start_pixel.0 as i64, start_pixel.1 as i64);
    assert_eq!(path.start_moved, start_blocked && path.is_walkable());
    let from = if start_blocked {
        let candidates = nearest(start, &|_| true);
        if !path.is_walkable() {
            // Only when no candidate's region reaches the goal and snapping is off.
            assert!(!options.snap_destination);
            return;
        }
        let first = path.waypoints[0];
        let pixel = first.pixel().unwrap();
        assert_eq!(first, Point::pixel_center(pixel.0, pixel.1));
        assert!(
            candidates.contains(&pixel),
            "{pixel:?} not in {candidates:?}"
        );
        // Among equally near pixels, one from which the goal is reachable wins.
        let reaches = |from: (u32, u32)| {
            flood(grid, from)[(goal_pixel.1 * grid.width() + goal_pixel.0) as usize]
        };
        if candidates.iter().any(|&c| reaches(c)) {
            assert!(reaches(pixel), "stepped to {pixel:?}, away from the goal");
        }
        pixel
    } else {
        start_pixel
    };
    let reach = flood(grid, from);
    let w = grid.width();
    let reaches_goal = reach[(goal_pixel.1 * w + goal_pixel.0) as usize];
    match path.status {
        PathStatus::Found => {
            assert!(reaches_goal);
            assert_eq!(*path.waypoints.last().unwrap(), goal);
        }
        PathStatus::Snapped => {
            assert!(!reaches_goal && options.snap_destination);
            let end = *path.waypoints.last().unwrap();
            let pixel = end.pixel().unwrap();
            assert_eq!(end, Point::pixel_center(pixel.0, pixel.1));
            let within = |(x, y): (u32, u32)| reach[(y * w + x) as usize];
            assert!(nearest(goal, &within).contains(&pixel));
        }
        PathStatus::Unreachable => {
            assert!(!reaches_goal && !options.snap_destination);
            return;
        }
    }
    if !start_blocked {
        assert_eq!(path.waypoints[0], start);
    }
    check_path_strict(grid, &path.waypoints).unwrap_or_else(|e| panic!("{e}"));
}
