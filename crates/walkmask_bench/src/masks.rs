//! The benchmark masks and their queries: rooms, a spiral and a maze generated in code,
//! the Moving AI maps with their scenarios, and real adventure-game walk masks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use walkmask::los::line_of_sight;
use walkmask::{AreaSet, DecodeRule, NavGrid, Point, WalkMask};

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

/// Pixels are blocked unless painted with an area id.
fn blank(w: u32, h: u32) -> Vec<u8> {
    vec![0u8; w as usize * h as usize]
}

/// A furnished room at `width x height`: a trapezoid floor (area 1 on the left of a
/// wall, area 2 on the right), the wall with two doors, an alcove (area 3) at the back,
/// a separate balcony (area 4, not connected), and 16 rectangles and 12 ellipses of
/// furniture. The layout is in fractions of the size, so the 4K room is the 1080p
/// room at twice the resolution.
pub fn room(width: u32, height: u32, seed: u64) -> WalkMask {
    let (w, h) = (width as f64, height as f64);
    let scale = w / 1920.0;
    let mut a = blank(width, height);
    let idx = |x: u32, y: u32| y as usize * width as usize + x as usize;
    let (floor_top, floor_bottom) = (0.42, 0.97);
    let wall_u = 0.58;
    let wall_half = 6.0 * scale / w; // 12 px thick at 1080p
    let doors = [(0.55, 0.62), (0.82, 0.90)];
    for y in 0..height {
        let v = (y as f64 + 0.5) / h;
        for x in 0..width {
            let u = (x as f64 + 0.5) / w;
            let mut area = 0;
            if (floor_top..floor_bottom).contains(&v) {
                let inset = 0.04 + (floor_bottom - v) * 0.15;
                if u >= inset && u <= 1.0 - inset {
                    area = if u < wall_u { 1 } else { 2 };
                    let in_wall = (u - wall_u).abs() <= wall_half;
                    let in_door = doors.iter().any(|&(d0, d1)| (d0..d1).contains(&v));
                    if in_wall && !in_door {
                        area = 0;
                    }
                }
            }
            if (0.20..0.40).contains(&u) && (0.30..floor_top).contains(&v) {
                area = 3;
            }
            if (0.70..0.90).contains(&u) && (0.12..0.24).contains(&v) {
                area = 4;
            }
            a[idx(x, y)] = area;
        }
    }
    // Furniture, kept clear of the doors.
    let mut rng = Rng::new(seed);
    let keep_clear = |cu: f64, cv: f64, ru: f64, rv: f64| {
        doors.iter().any(|&(d0, d1)| {
            (cu - wall_u).abs() < ru + 0.03 && cv + rv > d0 - 0.03 && cv - rv < d1 + 0.03
        })
    };
    let mut placed = 0;
    while placed < 28 {
        let cu = rng.range(0.08, 0.92);
        let cv = rng.range(floor_top + 0.03, floor_bottom - 0.03);
        let ellipse = placed >= 16;
        let (ru, rv) = if ellipse {
            (rng.range(0.008, 0.045), rng.range(0.015, 0.07))
        } else {
            (rng.range(0.01, 0.06), rng.range(0.015, 0.05))
        };
        if keep_clear(cu, cv, ru, rv) {
            continue;
        }
        placed += 1;
        let x0 = ((cu - ru) * w).floor().max(0.0) as u32;
        let x1 = (((cu + ru) * w).ceil() as u32).min(width - 1);
        let y0 = ((cv - rv) * h).floor().max(0.0) as u32;
        let y1 = (((cv + rv) * h).ceil() as u32).min(height - 1);
        for y in y0..=y1 {
            let v = (y as f64 + 0.5) / h;
            for x in x0..=x1 {
                let u = (x as f64 + 0.5) / w;
                let (nu, nv) = ((u - cu) / ru, (v - cv) / rv);
                let inside = if ellipse {
                    nu * nu + nv * nv <= 1.0
                } else {
                    nu.abs() <= 1.0 && nv.abs() <= 1.0
                };
                if inside {
                    a[idx(x, y)] = 0;
                }
            }
        }
    }
    WalkMask::new(width, height, a).expect("valid size")
}

/// A rectangular spiral of 1-pixel walls: one corridor of width `corridor` winding from
/// the top-left corner to the centre.
pub fn spiral(width: u32, height: u32, corridor: u32) -> WalkMask {
    let (w, h) = (width as i64, height as i64);
    let s = corridor as i64 + 1;
    let mut a = vec![1u8; width as usize * height as usize];
    let dirs = [(1i64, 0i64), (0, 1), (-1, 0), (0, -1)];
    let (mut x, mut y) = (0i64, 0i64);
    a[0] = 0;
    for k in 0i64.. {
        let len = if k == 0 {
            w - 1
        } else if k % 2 == 0 {
            w - 1 - s * (k / 2 - 1)
        } else {
            h - 1 - s * ((k - 1) / 2)
        };
        if len < s {
            break;
        }
        let (dx, dy) = dirs[(k % 4) as usize];
        for _ in 0..len {
            x += dx;
            y += dy;
            a[(y * w + x) as usize] = 0;
        }
    }
    WalkMask::new(width, height, a).expect("valid size")
}

/// A perfect maze (one path between any two cells) of `corridor`-pixel corridors and
/// 1-pixel walls, carved by a randomised depth-first search.
pub fn maze(width: u32, height: u32, corridor: u32, seed: u64) -> WalkMask {
    let pitch = corridor + 1;
    let cw = (width - 1) / pitch;
    let ch = (height - 1) / pitch;
    let mut a = blank(width, height);
    let idx = |x: u32, y: u32| y as usize * width as usize + x as usize;
    let open_rect = |a: &mut Vec<u8>, x0: u32, y0: u32, x1: u32, y1: u32| {
        for y in y0..y1 {
            for x in x0..x1 {
                a[idx(x, y)] = 1;
            }
        }
    };
    for cy in 0..ch {
        for cx in 0..cw {
            let (x0, y0) = (cx * pitch + 1, cy * pitch + 1);
            open_rect(&mut a, x0, y0, x0 + corridor, y0 + corridor);
        }
    }
    let mut rng = Rng::new(seed);
    let mut seen = vec![false; (cw * ch) as usize];
    let mut stack = vec![(0u32, 0u32)];
    seen[0] = true;
    while let Some(&(cx, cy)) = stack.last() {
        let mut options = [(0u32, 0u32); 4];
        let mut n = 0;
        for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (cx as i64 + dx, cy as i64 + dy);
            if nx >= 0 && ny >= 0 && nx < cw as i64 && ny < ch as i64 {
                let (nx, ny) = (nx as u32, ny as u32);
                if !seen[(ny * cw + nx) as usize] {
                    options[n] = (nx, ny);
                    n += 1;
                }
            }
        }
        if n == 0 {
            stack.pop();
            continue;
        }
        let (nx, ny) = options[rng.below(n as u64) as usize];
        seen[(ny * cw + nx) as usize] = true;
        // Open the wall between the two cells.
        let (x0, y0) = (cx.min(nx) * pitch + 1, cy.min(ny) * pitch + 1);
        if nx != cx {
            open_rect(&mut a, x0 + corridor, y0, x0 + corridor + 1, y0 + corridor);
        } else {
            open_rect(&mut a, x0, y0 + corridor, x0 + corridor, y0 + corridor + 1);
        }
        stack.push((nx, ny));
    }
    WalkMask::new(width, height, a).expect("valid size")
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

/// The directory `shared/data`, found by walking up from this crate.
pub fn shared_data_dir() -> Option<PathBuf> {
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    loop {
        let candidate = dir.join("shared").join("data");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
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
