//! The benchmark masks and their queries: rooms, a spiral and a maze generated in code,
//! the Moving AI maps with their scenarios, and real adventure-game walk masks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use walkmask::los::line_of_sight;
use walkmask::{AreaSet, DecodeRule, NavGrid, Point, WalkMask};

use walkmask_demo_assets::synthetic;

use crate::rng::Rng;

/// What kind of mask, for grouping results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MaskClass {
    /// A 1920 x 1080 room with furniture.
    Room1080p,
    /// The same room at 3840 x 2160.
    Room4k,
    /// A spiral of 1-pixel walls and a 1-pixel corridor, 1920 x 1080.
    Spiral1080p,
    /// A maze of 3-pixel corridors, 1920 x 1080.
    Maze1080p,
    /// Moving AI maps of at least a million cells.
    MovingAiLarge,
    /// Smaller Moving AI maps.
    MovingAiSmall,
    /// Walk masks of a real adventure game.
    Monoags,
}

impl MaskClass {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            MaskClass::Room1080p => "room-1080p",
            MaskClass::Room4k => "room-4k",
            MaskClass::Spiral1080p => "spiral-1080p",
            MaskClass::Maze1080p => "maze-1080p",
            MaskClass::MovingAiLarge => "movingai-large",
            MaskClass::MovingAiSmall => "movingai-small",
            MaskClass::Monoags => "monoags",
        }
    }

    /// Whether the class is generated in code.
    pub fn is_generated(self) -> bool {
        matches!(
            self,
            MaskClass::Room1080p
                | MaskClass::Room4k
                | MaskClass::Spiral1080p
                | MaskClass::Maze1080p
        )
    }
}

/// One query: pixel coordinates of both ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Query {
    /// Start pixel.
    pub start: (u32, u32),
    /// Goal pixel.
    pub goal: (u32, u32),
    /// Optimal 8-neighbour path length without corner cutting, when a scenario gives it.
    pub optimum: Option<f64>,
    /// Queries with the same group share their start (one warm field per group).
    pub group: usize,
    /// Whether the straight segment between the two pixel centres is clear.
    pub straight: bool,
}

/// A mask with its queries.
#[derive(Clone, Debug)]
pub struct BenchMask {
    /// Display name.
    pub name: String,
    /// Class.
    pub class: MaskClass,
    /// The mask (all areas enabled).
    pub mask: WalkMask,
    /// The queries.
    pub queries: Vec<Query>,
}

/// A furnished room at `width x height`: a trapezoid floor (area 1 on the left of a
/// wall, area 2 on the right), the wall with two doors, an alcove (area 3) at the back,
/// a separate balcony (area 4, not connected), and 16 rectangles and 12 ellipses of
/// furniture. The layout is in fractions of the size, so the 4K room is the 1080p
/// room at twice the resolution.
pub fn room(width: u32, height: u32, seed: u64) -> WalkMask {
    WalkMask::new(width, height, synthetic::room(width, height, seed)).expect("valid size")
}

/// A rectangular spiral of 1-pixel walls: one corridor of width `corridor` winding from
/// the top-left corner to the centre.
pub fn spiral(width: u32, height: u32, corridor: u32) -> WalkMask {
    WalkMask::new(width, height, synthetic::spiral(width, height, corridor)).expect("valid size")
}

/// A perfect maze (one path between any two cells) of `corridor`-pixel corridors and
/// 1-pixel walls, carved by a randomised depth-first search.
pub fn maze(width: u32, height: u32, corridor: u32, seed: u64) -> WalkMask {
    WalkMask::new(
        width,
        height,
        synthetic::maze(width, height, corridor, seed),
    )
    .expect("valid size")
}

/// Region id and size of every region, by scanning the grid.
fn region_sizes(grid: &NavGrid) -> HashMap<u32, usize> {
    let mut sizes = HashMap::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            if let Some(r) = grid.region(x, y) {
                *sizes.entry(r).or_insert(0) += 1;
            }
        }
    }
    sizes
}

/// Whether the segment between the centres of two pixels is clear.
pub fn straight_clear(grid: &NavGrid, a: (u32, u32), b: (u32, u32)) -> bool {
    line_of_sight(
        grid,
        Point::pixel_center(a.0, a.1),
        Point::pixel_center(b.0, b.1),
    )
}

/// `starts x goals_per_start` random queries between walkable pixels of the same
/// region. Starts lie in regions holding at least 2 % of the walkable pixels (so that
/// a query is not confined to a tiny pocket). At most `max_straight` of all the
/// queries have a clear straight line; other straight pairs are drawn again (up to
/// 200 times per goal).
pub fn random_queries(
    grid: &NavGrid,
    starts: usize,
    goals_per_start: usize,
    max_straight: usize,
    seed: u64,
) -> Vec<Query> {
    let sizes = region_sizes(grid);
    let total: usize = sizes.values().sum();
    if total == 0 {
        return Vec::new();
    }
    let big = |r: u32| sizes.get(&r).copied().unwrap_or(0) * 50 >= total;
    let mut rng = Rng::new(seed);
    let (w, h) = (grid.width() as u64, grid.height() as u64);
    let pick = |rng: &mut Rng, want: Option<u32>| -> (u32, u32) {
        loop {
            let (x, y) = (rng.below(w) as u32, rng.below(h) as u32);
            match (grid.region(x, y), want) {
                (Some(r), None) if big(r) => return (x, y),
                (Some(r), Some(want)) if r == want => return (x, y),
                _ => {}
            }
        }
    };
    let mut queries = Vec::with_capacity(starts * goals_per_start);
    let mut straight_count = 0;
    for group in 0..starts {
        let start = pick(&mut rng, None);
        let region = grid.region(start.0, start.1).expect("walkable");
        for _ in 0..goals_per_start {
            let mut tries = 0;
            let (goal, straight) = loop {
                let goal = pick(&mut rng, Some(region));
                let straight = straight_clear(grid, start, goal);
                tries += 1;
                if goal != start && (!straight || straight_count < max_straight || tries > 200) {
                    break (goal, straight);
                }
            };
            straight_count += straight as usize;
            queries.push(Query {
                start,
                goal,
                optimum: None,
                group,
                straight,
            });
        }
    }
    queries
}

/// The folder of real maps and masks: the full benchmark sets `WALKMASK_DATA` names,
/// or else the repository's `testdata` (eight Moving AI maps and the MonoAGS masks).
/// Gives `None` only when neither is a folder.
pub fn data_dir() -> Option<PathBuf> {
    match std::env::var_os("WALKMASK_DATA") {
        Some(dir) => Some(PathBuf::from(dir)).filter(|d| d.is_dir()),
        None => Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata"))
            .filter(|d| d.is_dir()),
    }
}

/// Whether the real maps are the full sets (`WALKMASK_DATA`) or the repository's subset.
pub fn data_is_full() -> bool {
    std::env::var_os("WALKMASK_DATA").is_some()
}

/// A Moving AI map with the path of its scenario file.
#[derive(Clone, Debug)]
pub struct MovingAiMap {
    /// The `.map` file.
    pub map: PathBuf,
    /// The `.scen` file.
    pub scen: PathBuf,
}

/// Every Moving AI map under `data/movingai` that has a scenario file, sorted by path.
pub fn movingai_maps(data: &Path) -> Vec<MovingAiMap> {
    let root = data.join("movingai");
    let mut out = Vec::new();
    let maps = root.join("maps");
    if let Ok(dirs) = std::fs::read_dir(&maps) {
        for dir in dirs.flatten() {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let map = f.path();
                if map.extension().is_some_and(|e| e == "map") {
                    let mut scen = root.join("scenarios").join(dir.file_name());
                    scen.push(format!("{}.scen", f.file_name().to_string_lossy()));
                    if scen.is_file() {
                        out.push(MovingAiMap { map, scen });
                    }
                }
            }
        }
    }
    if let Ok(files) = std::fs::read_dir(root.join("gppc2012")) {
        for f in files.flatten() {
            let map = f.path();
            if map.extension().is_some_and(|e| e == "map") {
                let scen = PathBuf::from(format!("{}.scen", map.display()));
                if scen.is_file() {
                    out.push(MovingAiMap { map, scen });
                }
            }
        }
    }
    out.sort_by(|a, b| a.map.cmp(&b.map));
    out
}

/// One line of a Moving AI scenario file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scenario {
    /// Start cell.
    pub start: (u32, u32),
    /// Goal cell.
    pub goal: (u32, u32),
    /// Optimal length (diagonals cost the square root of two, no corner cutting).
    pub optimum: f64,
}

/// Parses a `.scen` file (`version 1` header, then tab-separated
/// `bucket map width height sx sy gx gy optimum`).
pub fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("version") {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 9 {
            return Err(format!(
                "line {}: expected 9 fields, got {}",
                n + 1,
                f.len()
            ));
        }
        let num = |i: usize| -> Result<u32, String> {
            f[i].parse()
                .map_err(|_| format!("line {}: bad number {:?}", n + 1, f[i]))
        };
        let optimum: f64 = f[8]
            .parse()
            .map_err(|_| format!("line {}: bad optimum {:?}", n + 1, f[8]))?;
        out.push(Scenario {
            start: (num(4)?, num(5)?),
            goal: (num(6)?, num(7)?),
            optimum,
        });
    }
    Ok(out)
}

/// `n` scenarios spread evenly over the file (which is sorted by length bucket, so
/// every bucket is represented), as queries on `grid`. Scenarios whose ends are not
/// walkable on the mask are dropped.
pub fn scenario_queries(grid: &NavGrid, scenarios: &[Scenario], n: usize) -> Vec<Query> {
    let n = n.min(scenarios.len());
    (0..n)
        .map(|i| scenarios[i * scenarios.len() / n])
        .filter(|s| grid.is_walkable(s.start.0, s.start.1) && grid.is_walkable(s.goal.0, s.goal.1))
        .enumerate()
        .map(|(group, s)| Query {
            start: s.start,
            goal: s.goal,
            optimum: Some(s.optimum),
            group,
            straight: straight_clear(grid, s.start, s.goal),
        })
        .collect()
}

/// The adventure-game walk masks: every `*.png` under `walkmasks/monoags/*/` except
/// the background pictures (`bg.png`), sorted.
pub fn monoags_masks(data: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let root = data.join("walkmasks").join("monoags");
    if let Ok(dirs) = std::fs::read_dir(root) {
        for dir in dirs.flatten() {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let p = f.path();
                let is_png = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
                if is_png && f.file_name() != "bg.png" {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// Loads an adventure-game mask (walkable where alpha > 0).
pub fn load_monoags(path: &Path) -> Result<WalkMask, String> {
    catch(|| WalkMask::open(path, &DecodeRule::Alpha))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Loads a Moving AI map.
pub fn load_movingai(path: &Path) -> Result<WalkMask, String> {
    catch(|| WalkMask::open(path, &DecodeRule::default()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs a decoder, turning both its errors and a panic (an unfinished decoder) into
/// an error message.
fn catch(
    f: impl FnOnce() -> Result<WalkMask, walkmask::MaskError> + std::panic::UnwindSafe,
) -> Result<WalkMask, String> {
    match std::panic::catch_unwind(f) {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "decoder panicked".into())),
    }
}

/// A grid with every area enabled.
pub fn grid_of(mask: &WalkMask) -> NavGrid {
    NavGrid::new(mask.clone(), AreaSet::all())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spiral_is_one_long_corridor() {
        let m = spiral(64, 40, 1);
        let g = grid_of(&m);
        assert_eq!(g.region_count(), 1);
        // About half the pixels are corridor.
        let walk = g.walkable_count();
        assert!(walk > 64 * 40 * 2 / 5 && walk < 64 * 40 * 3 / 5, "{walk}");
        // One corridor: walking from its outer end, the farthest pixel is about as
        // many steps away as there are walkable pixels.
        let field = walkmask::DistanceField::new(&g, (1, 1)).expect("corridor end");
        let farthest = (0..40)
            .flat_map(|y| (0..64).map(move |x| (x, y)))
            .filter_map(|(x, y)| field.distance(x, y))
            .max()
            .unwrap() as usize
            / walkmask::fill::CARDINAL as usize;
        assert!(farthest * 10 >= walk * 9, "farthest {farthest} of {walk}");
    }

    #[test]
    fn maze_is_connected_with_three_pixel_corridors() {
        let m = maze(81, 41, 3, 1);
        let g = grid_of(&m);
        assert_eq!(g.region_count(), 1);
        // 20 x 10 cells of 3 x 3, plus 199 openings of 3 pixels (a spanning tree).
        assert_eq!(g.walkable_count(), 200 * 9 + 199 * 3);
    }

    #[test]
    fn room_has_areas_regions_and_furniture() {
        let m = room(480, 270, 3);
        let g = grid_of(&m);
        for area in 1..=4u8 {
            assert!(m.areas().contains(&area), "area {area} missing");
        }
        // The balcony is separate from the floor.
        assert!(g.region_count() >= 2);
        let walk = g.walkable_count();
        assert!(walk > 480 * 270 / 5 && walk < 480 * 270 * 3 / 5, "{walk}");
        // Both doors connect the two sides of the wall.
        let first = |xs: std::ops::Range<u32>| xs.into_iter().find_map(|x| g.region(x, 200));
        let left = first(40..240).expect("floor left of the wall");
        let right = first(300..440).expect("floor right of the wall");
        assert_eq!(left, right);
    }

    #[test]
    fn queries_stay_in_one_region_and_are_mostly_not_straight() {
        let m = room(480, 270, 3);
        let g = grid_of(&m);
        let qs = random_queries(&g, 10, 4, 4, 9);
        assert_eq!(qs.len(), 40);
        for q in &qs {
            assert_eq!(g.region(q.start.0, q.start.1), g.region(q.goal.0, q.goal.1));
            assert_eq!(q.straight, straight_clear(&g, q.start, q.goal));
        }
        assert!(qs.iter().filter(|q| q.straight).count() <= 4);
        assert_eq!(qs, random_queries(&g, 10, 4, 4, 9));
    }

    #[test]
    fn scenario_lines_parse() {
        let text = "version 1\n1\tmaps/a.map\t4\t4\t0\t1\t3\t2\t3.41421\n";
        let s = parse_scenarios(text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].start, (0, 1));
        assert_eq!(s[0].goal, (3, 2));
        assert!((s[0].optimum - 3.41421).abs() < 1e-9);
        assert!(parse_scenarios("1\tm\t4\t4\t0\n").is_err());
        assert!(parse_scenarios("1\tm\t4\t4\t0\t1\tx\t2\t3\n").is_err());
    }
}
