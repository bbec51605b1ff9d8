//! Runs the built `walkmask` binary on masks written to a temporary directory and on
//! a Moving AI map from the repository's test data.

use std::path::{Path, PathBuf};
use std::process::Command;

use image::{Rgb, RgbImage, Rgba, RgbaImage};
use serde_json::Value;

/// A fresh directory for one test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("walkmask_cli_{}_{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(file);
        std::fs::write(&p, contents).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The stdout lines parsed as JSON objects.
    fn objects(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON `{l}`: {e}")))
            .collect()
    }

    fn object(&self) -> Value {
        let objects = self.objects();
        assert_eq!(
            objects.len(),
            1,
            "expected one object, got: {}",
            self.stdout
        );
        objects.into_iter().next().unwrap()
    }
}

fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = Command::new(env!("CARGO_BIN_EXE_walkmask"))
        .args(args)
        .output()
        .expect("the walkmask binary runs");
    Run {
        code: out.status.code().expect("exited normally"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A 20 x 10 room, white walkable on black, with a wall at x = 10 for y < 8 (a gap
/// in the bottom two rows) and a blocked pixel at (4, 8).
fn room_png(dir: &TempDir) -> PathBuf {
    let img = RgbImage::from_fn(20, 10, |x, y| {
        if (x == 10 && y < 8) || (x, y) == (4, 8) {
            Rgb([0, 0, 0])
        } else {
            Rgb([255, 255, 255])
        }
    });
    let p = dir.path("room.png");
    img.save(&p).unwrap();
    p
}

/// Two 8 x 6 rooms side by side with a solid wall between them.
fn two_rooms_png(dir: &TempDir) -> PathBuf {
    let img = RgbImage::from_fn(17, 6, |x, _| {
        if x == 8 {
            Rgb([0, 0, 0])
        } else {
            Rgb([255, 255, 255])
        }
    });
    let p = dir.path("two_rooms.png");
    img.save(&p).unwrap();
    p
}

fn point(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn waypoints(obj: &Value) -> Vec<(f64, f64)> {
    obj["waypoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(point)
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The repository's `testdata` folder (real Moving AI maps and walk masks).
fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

#[test]
fn path_found_around_a_wall() {
    let dir = TempDir::new("found");
    let mask = room_png(&dir);
    let r = run(["path", s(&mask), "--from", "2,2", "--to", "17,2"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o = r.object();
    assert_eq!(o["status"], "found");
    let w = waypoints(&o);
    assert_eq!(w.first(), Some(&(2.5, 2.5)));
    assert_eq!(w.last(), Some(&(17.5, 2.5)));
    assert!(w.len() > 2, "goes around the wall: {w:?}");
    // Every waypoint between the ends is below the wall, through the gap.
    assert!(w[1..w.len() - 1].iter().all(|p| p.1 >= 8.0), "{w:?}");
    let length = o["length"].as_f64().unwrap();
    let polyline: f64 = w
        .windows(2)
        .map(|p| (p[1].0 - p[0].0).hypot(p[1].1 - p[0].1))
        .sum();
    assert!((length - polyline).abs() < 1e-3, "{length} vs {polyline}");
    // Taut round the wall's foot, corners (10, 8) and (11, 8).
    let taut = 7.5f64.hypot(5.5) + 1.0 + 6.5f64.hypot(5.5);
    assert!(
        length >= taut - 1e-3 && length < taut + 0.01,
        "a detour through the gap: {length} vs {taut}"
    );
    assert!(o["visited"].as_u64().unwrap() > 0);
    assert!(o["micros"].as_f64().unwrap() >= 0.0);
    assert!(o.get("error").is_none() && o.get("optimal").is_none());

    // A clear straight line needs no search; decimals are points as given.
    let r = run(["path", s(&mask), "--from", "1.25,1.0", "--to", "8.75,6"]);
    let o = r.object();
    assert_eq!(o["status"], "found");
    assert_eq!(waypoints(&o), vec![(1.25, 1.0), (8.75, 6.5)]);
    assert_eq!(o["visited"], 0);
}

#[test]
fn path_planners_agree_on_status_and_ends() {
    let dir = TempDir::new("planners");
    let mask = room_png(&dir);
    for planner in ["fill", "astar", "bfs"] {
        let r = run([
            "path",
            s(&mask),
            "--from",
            "2,2",
            "--to",
            "17,2",
            "--planner",
            planner,
        ]);
        assert_eq!(r.code, 0, "{planner}: {}", r.stderr);
        let o = r.object();
        assert_eq!(o["status"], "found", "{planner}");
        let w = waypoints(&o);
        assert_eq!(
            (w[0], *w.last().unwrap()),
            ((2.5, 2.5), (17.5, 2.5)),
            "{planner}"
        );
    }
    assert_eq!(
        run([
            "path",
            s(&mask),
            "--from",
            "2,2",
            "--to",
            "17,2",
            "--planner",
            "dijkstra"
        ])
        .code,
        2
    );
}

#[test]
fn path_snapped_and_unreachable() {
    let dir = TempDir::new("snapped");
    let mask = room_png(&dir);
    // The destination is the blocked pixel (4, 8): the walk ends next to it.
    let o = run(["path", s(&mask), "--from", "1,8", "--to", "4,8"]).object();
    assert_eq!(o["status"], "snapped");
    let end = *waypoints(&o).last().unwrap();
    assert_ne!(end, (4.5, 8.5));
    assert!(
        (end.0 - 4.5).abs() <= 1.0 && (end.1 - 8.5).abs() <= 1.0,
        "{end:?}"
    );
    assert_eq!((end.0.fract(), end.1.fract()), (0.5, 0.5), "a pixel centre");

    // No snapping: a destination in the other room is unreachable.
    let rooms = two_rooms_png(&dir);
    let o = run([
        "path",
        s(&rooms),
        "--from",
        "1,1",
        "--to",
        "14,1",
        "--no-snap",
    ])
    .object();
    assert_eq!(o["status"], "unreachable");
    assert_eq!(o["waypoints"], Value::Array(vec![]));
    assert_eq!(o["length"], 0.0);
    // With snapping, it ends at the near side of the wall.
    let o = run(["path", s(&rooms), "--from", "1,1", "--to", "14,1"]).object();
    assert_eq!(o["status"], "snapped");
    assert_eq!(waypoints(&o).last(), Some(&(7.5, 1.5)));

    // Only area 7 enabled and the mask has none: nothing is walkable.
    let o = run([
        "path",
        s(&mask),
        "--from",
        "1,1",
        "--to",
        "3,3",
        "--areas",
        "7",
    ])
    .object();
    assert_eq!(o["status"], "unreachable");
}

#[test]
fn path_query_errors_are_objects() {
    let dir = TempDir::new("qerr");
    let mask = room_png(&dir);
    let r = run(["path", s(&mask), "--from", "2,2", "--to", "20,3"]);
    assert_eq!(r.code, 0);
    let o = r.object();
    assert_eq!(o["status"], "error");
    assert!(o["error"].as_str().unwrap().contains("outside"), "{o}");
    assert_eq!(o["waypoints"], Value::Array(vec![]));

    let o = run(["path", s(&mask), "--from", "-1,2", "--to", "3,3"]).object();
    assert_eq!(o["status"], "error");
    let o = run(["path", s(&mask), "--from", "nan,2", "--to", "3,3"]).object();
    assert_eq!(o["status"], "error");
    assert!(o["error"].as_str().unwrap().contains("finite"), "{o}");
}

#[test]
fn batch_keeps_order_and_goes_on_after_bad_lines() {
    let dir = TempDir::new("batch");
    let mask = room_png(&dir);
    let queries = dir.write(
        "q.txt",
        "# start and goal pixels\n\
         2 2 17 2\n\
         \n\
         1 1 x 4\n\
         \t3,3,5,5\n\
         # outside the mask\n\
         2 2 25 2\n\
         1 2 3\n\
         17.5 2.5 2.5 2.5\n\
         nan 1 2 2\n\
         1 9 4 8\n",
    );
    let r = run(["batch", s(&mask), "--queries", s(&queries)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o = r.objects();
    let statuses: Vec<&str> = o.iter().map(|v| v["status"].as_str().unwrap()).collect();
    assert_eq!(
        statuses,
        [
            "found", "error", "found", "error", "error", "found", "error", "snapped"
        ]
    );
    assert_eq!(waypoints(&o[0]).last(), Some(&(17.5, 2.5)));
    assert!(
        o[1]["error"].as_str().unwrap().starts_with("line 4:"),
        "{}",
        o[1]
    );
    assert_eq!(waypoints(&o[2]), vec![(3.5, 3.5), (5.5, 5.5)]);
    assert!(
        o[3]["error"].as_str().unwrap().contains("outside"),
        "{}",
        o[3]
    );
    assert!(
        o[4]["error"].as_str().unwrap().starts_with("line 8:"),
        "{}",
        o[4]
    );
    assert_eq!(waypoints(&o[5]).first(), Some(&(17.5, 2.5)));
    assert_eq!(waypoints(&o[5]).last(), Some(&(2.5, 2.5)));
    for v in &o {
        assert!(v.get("optimal").is_none());
        assert_eq!(v.get("error").is_some(), v["status"] == "error");
    }

    // The same queries through the baselines give the same statuses.
    for planner in ["astar", "bfs"] {
        let r = run([
            "batch",
            s(&mask),
            "--queries",
            s(&queries),
            "--planner",
            planner,
        ]);
        let got: Vec<String> = r
            .objects()
            .iter()
            .map(|v| v["status"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, statuses, "{planner}");
    }
}

#[test]
fn batch_reads_queries_from_stdin() {
    use std::io::Write;
    let dir = TempDir::new("stdin");
    let mask = room_png(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_walkmask"))
        .args(["batch", s(&mask), "--queries", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"2 2 17 2\n1 1 1 1\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["status"], "found");
    assert_eq!(waypoints(&lines[1]), vec![(1.5, 1.5)]);
}

#[test]
fn scen_on_a_moving_ai_map() {
    let data = testdata();
    let map = data.join("movingai/maps/dao/arena.map");
    let scen = data.join("movingai/scenarios/dao/arena.map.scen");
    let r = run(["batch", s(&map), "--scen", s(&scen)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = std::fs::read_to_string(&scen)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    let o = r.objects();
    assert_eq!(o.len(), expected);
    assert!(expected >= 100);
    for (i, v) in o.iter().enumerate() {
        assert_eq!(v["status"], "found", "query {i}: {v}");
        let length = v["length"].as_f64().unwrap();
        let optimal = v["optimal"].as_f64().unwrap();
        assert!(
            length <= optimal * 1.02 + 1e-4,
            "query {i}: {length} > 1.02 x {optimal}"
        );
    }
    // The first scenario line: (1, 11) -> (1, 12), optimal 1.
    assert_eq!(waypoints(&o[0]), vec![(1.5, 11.5), (1.5, 12.5)]);
    assert_eq!(o[0]["optimal"], 1.0);

    // A scenario for another map size answers error objects, and the batch goes on.
    let dir = TempDir::new("scen");
    let other = dir.write(
        "other.scen",
        "version 1\n0\tx.map\t50\t50\t1\t1\t2\t2\t2.5\n0\tx.map\t49\t49\t1\t11\t1\t12\t1\n",
    );
    let o = run(["batch", s(&map), "--scen", s(&other)]).objects();
    assert_eq!(o[0]["status"], "error");
    assert_eq!(o[0]["optimal"], 2.5);
    assert_eq!(o[1]["status"], "found");
    // No header: not a scenario file.
    let bad = dir.write("bad.scen", "0\tx.map\t49\t49\t1\t11\t1\t12\t1\n");
    let r = run(["batch", s(&map), "--scen", s(&bad)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("version 1"), "{}", r.stderr);
}

#[test]
fn movingai_map_from_a_file() {
    let dir = TempDir::new("map");
    let map = dir.write(
        "tiny.map",
        "type octile\nheight 3\nwidth 5\nmap\n.....\n.@@@.\n.....\n",
    );
    // --rule is ignored for .map files.
    let o = run([
        "path",
        s(&map),
        "--from",
        "0,1",
        "--to",
        "4,1",
        "--rule",
        "alpha",
    ])
    .object();
    assert_eq!(o["status"], "found");
    assert!(waypoints(&o).len() > 2);
}

#[test]
fn colors_and_channel_rules() {
    let dir = TempDir::new("rules");
    // Left third red (area 1), middle third green (area 2), right third red again,
    // a blue row along the bottom (blocked under colors).
    let img = RgbaImage::from_fn(30, 10, |x, y| {
        if y == 9 {
            Rgba([0, 0, 255, 255])
        } else if (10..20).contains(&x) {
            Rgba([0, 255, 0, 255])
        } else {
            Rgba([255, 0, 0, 255])
        }
    });
    let mask = dir.path("colors.png");
    img.save(&mask).unwrap();
    let colors = [
        "--rule",
        "colors",
        "--area-color",
        "1=#ff0000",
        "--area-color",
        "2=#00FF00",
    ];
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = ["path", s(&mask), "--from", "2,2", "--to", "27,2"]
            .iter()
            .map(|a| a.to_string())
            .collect();
        v.extend(extra.iter().map(|a| a.to_string()));
        v
    };
    let o = run(args(&colors)).object();
    assert_eq!(o["status"], "found");
    assert_eq!(o["visited"], 0, "a straight line across both areas");

    // Area 2 closed: the right room is cut off, the walk stops at the green edge.
    let mut only1 = colors.to_vec();
    only1.extend(["--areas", "1"]);
    let o = run(args(&only1)).object();
    assert_eq!(o["status"], "snapped");
    assert_eq!(waypoints(&o).last(), Some(&(9.5, 2.5)));

    // --area-color alone implies the colors rule.
    let o = run(args(&["--area-color", "1=#ff0000", "--areas", "1"])).object();
    assert_eq!(o["status"], "snapped");

    // The blue row is blocked under colors: a destination on it snaps.
    let o = run([
        "path",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "2,9",
        "--rule",
        "colors",
        "--area-color",
        "1=#ff0000",
    ])
    .object();
    assert_eq!(o["status"], "snapped");
    assert_eq!(waypoints(&o).last(), Some(&(2.5, 8.5)));

    // channel:b:128 makes only the bottom row walkable; channel:g:128 only the middle.
    let o = run([
        "path",
        s(&mask),
        "--from",
        "0,9",
        "--to",
        "29,9",
        "--rule",
        "channel:b:128",
    ])
    .object();
    assert_eq!(o["status"], "found");
    let o = run([
        "path",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "27,2",
        "--rule",
        "channel:g:128",
    ])
    .object();
    assert_eq!(o["status"], "snapped");
    assert_eq!(
        waypoints(&o).first(),
        Some(&(10.5, 2.5)),
        "the start moved onto green"
    );
    assert_eq!(waypoints(&o).last(), Some(&(19.5, 2.5)));

    // Luma (the default) sees none of these colours as light enough except green.
    let o = run(["path", s(&mask), "--from", "11,2", "--to", "18,2"]).object();
    assert_eq!(o["status"], "found");

    // Rule mistakes are unusable input.
    for bad in [
        vec!["--rule", "colors"],
        vec!["--rule", "alpha", "--area-color", "1=#ff0000"],
        vec!["--rule", "channel:q:1"],
        vec!["--rule", "channel:b"],
        vec!["--rule", "sepia"],
        vec!["--area-color", "1=red"],
        vec!["--areas", "0"],
        vec!["--areas", "1,x"],
    ] {
        let r = run(args(&bad));
        assert_eq!(r.code, 2, "{bad:?}: {}", r.stdout);
        assert!(r.stdout.is_empty());
        assert!(!r.stderr.trim().is_empty());
    }
}

#[test]
fn alpha_and_indexed_rules() {
    let dir = TempDir::new("alpha");
    // Transparent everywhere except an opaque band y in 2..5.
    let img = RgbaImage::from_fn(12, 8, |_, y| {
        if (2..5).contains(&y) {
            Rgba([10, 10, 10, 200])
        } else {
            Rgba([255, 255, 255, 0])
        }
    });
    let mask = dir.path("alpha.png");
    img.save(&mask).unwrap();
    let o = run([
        "path",
        s(&mask),
        "--from",
        "0,3",
        "--to",
        "11,3",
        "--rule",
        "alpha",
    ])
    .object();
    assert_eq!(o["status"], "found");
    let o = run([
        "path",
        s(&mask),
        "--from",
        "0,3",
        "--to",
        "11,7",
        "--rule",
        "alpha",
    ])
    .object();
    assert_eq!(o["status"], "snapped");
    assert_eq!(waypoints(&o).last(), Some(&(11.5, 4.5)));

    // Grey levels as area ids: 1 on the left, 2 on the right.
    let grey = image::GrayImage::from_fn(10, 4, |x, _| image::Luma([if x < 5 { 1 } else { 2 }]));
    let gmask = dir.path("grey.png");
    grey.save(&gmask).unwrap();
    let o = run([
        "path",
        s(&gmask),
        "--from",
        "0,0",
        "--to",
        "9,0",
        "--rule",
        "indexed",
        "--areas",
        "2",
    ])
    .object();
    assert_eq!(o["status"], "found");
    assert_eq!(
        waypoints(&o).first(),
        Some(&(5.5, 0.5)),
        "start moved into area 2"
    );
    let o = run([
        "path",
        s(&gmask),
        "--from",
        "0,0",
        "--to",
        "9,0",
        "--rule",
        "indexed",
    ])
    .object();
    assert_eq!(waypoints(&o).first(), Some(&(0.5, 0.5)));
}

#[test]
fn render_writes_a_scaled_png() {
    let dir = TempDir::new("render");
    let mask = room_png(&dir);
    let out = dir.path("out.png");
    let r = run([
        "render",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "17,2",
        "--scale",
        "4",
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.object()["status"], "found");
    let img = image::open(&out).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (80, 40));
    // The wall pixel (10, 0) is dark.
    let wall = img.get_pixel(10 * 4 + 2, 1);
    assert!(wall.0.iter().all(|&c| c < 60), "{wall:?}");
    // The start is marked green, the end red.
    assert_eq!(img.get_pixel(10, 10).0, [40, 200, 70]);
    assert_eq!(img.get_pixel(70, 10).0, [230, 40, 40]);
    // Reachable pixels are tinted by distance: the far corner differs from the
    // corner next to the destination.
    assert_ne!(img.get_pixel(1, 38), img.get_pixel(78, 1));

    // Scale 1 by default; a render with no path still writes the mask.
    let out1 = dir.path("one.png");
    let r = run([
        "render",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "17,2",
        "--areas",
        "9",
        "-o",
        s(&out1),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.object()["status"], "unreachable");
    assert_eq!(image::open(&out1).unwrap().to_rgb8().dimensions(), (20, 10));

    // An output directory that does not exist is unusable input.
    let r = run([
        "render",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "17,2",
        "-o",
        s(&dir.path("no/such/dir.png")),
    ]);
    assert_eq!(r.code, 2);
    let r = run([
        "render",
        s(&mask),
        "--from",
        "2,2",
        "--to",
        "17,2",
        "--scale",
        "0",
        "-o",
        s(&out1),
    ]);
    assert_eq!(r.code, 2);
}

#[test]
fn unusable_input_exits_2_with_one_line() {
    let dir = TempDir::new("exit2");
    let mask = room_png(&dir);
    let garbage = dir.write("garbage.png", b"this is not an image at all");
    let bad_map = dir.write("bad.map", "type octile\nheight 2\nwidth 9\nmap\n..\n");
    let queries = dir.write("q.txt", "1 1 2 2\n");
    let missing = dir.path("missing.png");
    let no_queries = dir.path("nope.txt");
    // (arguments, whether the message is ours: one line) — clap's usage errors add
    // a usage line.
    let cases: Vec<(Vec<&str>, bool)> = vec![
        (
            vec!["path", s(&missing), "--from", "1,1", "--to", "2,2"],
            true,
        ),
        (
            vec!["path", s(&garbage), "--from", "1,1", "--to", "2,2"],
            true,
        ),
        (
            vec!["path", s(&bad_map), "--from", "1,1", "--to", "2,2"],
            true,
        ),
        (
            vec!["path", s(&mask), "--from", "abc", "--to", "2,2"],
            false,
        ),
        (
            vec!["path", s(&mask), "--from", "1;1", "--to", "2,2"],
            false,
        ),
        (vec!["path", s(&mask), "--to", "2,2"], false),
        (vec!["batch", s(&mask)], false),
        (vec!["batch", s(&mask), "--queries", s(&no_queries)], true),
        (vec!["batch", s(&missing), "--queries", s(&queries)], true),
        (
            vec![
                "batch",
                s(&mask),
                "--queries",
                s(&queries),
                "--scen",
                s(&queries),
            ],
            false,
        ),
        (
            vec![
                "render",
                s(&garbage),
                "--from",
                "1,1",
                "--to",
                "2,2",
                "-o",
                "x.png",
            ],
            true,
        ),
        (vec!["frobnicate"], false),
    ];
    for (args, ours) in cases {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert!(!r.stderr.trim().is_empty(), "{args:?}");
        if ours {
            assert_eq!(r.stderr.trim().lines().count(), 1, "{args:?}: {}", r.stderr);
            assert!(r.stderr.starts_with("walkmask: error: "), "{}", r.stderr);
        }
    }
    let r = run(["path", s(&missing), "--from", "1,1", "--to", "2,2"]);
    assert!(r.stderr.contains("missing.png"), "{}", r.stderr);
    assert_eq!(run(["--help"]).code, 0);
}

#[test]
fn batch_lines_that_are_not_utf8_or_start_with_a_byte_order_mark() {
    let dir = TempDir::new("bytes");
    let mask = room_png(&dir);
    let mut bytes = b"\xEF\xBB\xBF2 2 17 2\r\n1 1 \xFF 4\n".to_vec();
    bytes.extend_from_slice(&vec![b'7'; 70_000]);
    bytes.extend_from_slice(b"\n3 3 3 3\n");
    let queries = dir.write("q.txt", bytes);
    let r = run(["batch", s(&mask), "--queries", s(&queries)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o = r.objects();
    let statuses: Vec<&str> = o.iter().map(|v| v["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["found", "error", "error", "found"]);
    let error = |i: usize| o[i]["error"].as_str().unwrap().to_string();
    assert!(error(1).starts_with("line 2: not UTF-8"), "{}", error(1));
    assert!(
        error(2).starts_with("line 3:") && error(2).contains("longer"),
        "{}",
        error(2)
    );
    // A one-point path has length 0, not -0.
    assert_eq!(waypoints(&o[3]), vec![(3.5, 3.5)]);
    let line = r.stdout.lines().nth(3).unwrap();
    assert!(line.contains("\"length\":0.0"), "{line}");
}

#[test]
fn endless_inputs_are_refused_or_answered_as_they_arrive() {
    let dir = TempDir::new("endless");
    let mask = room_png(&dir);
    // A mask that never ends is refused at the read limit.
    let r = run(["path", "/dev/zero", "--from", "1,1", "--to", "2,2"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("larger than the limit"), "{}", r.stderr);
    // A query stream is answered line by line as it arrives, before it ends.
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_walkmask"))
        .args(["batch", s(&mask), "--queries", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"2 2 17 2\n").unwrap();
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (sender, first_answer) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        sender.send(first).unwrap();
        stdout.lines().count()
    });
    // Waiting only guards against a hang: the answer comes in milliseconds.
    let first = first_answer
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("no answer while the input was still open");
    assert!(first.contains("\"found\""), "{first}");
    for _ in 0..20_000 {
        stdin.write_all(b"2 2 17 2\n1 1 1 1\n").unwrap();
    }
    drop(stdin);
    assert_eq!(reader.join().unwrap(), 40_000);
    assert!(child.wait().unwrap().success());
}

#[test]
fn ags_room_writes_a_room_file_and_its_images() {
    let dir = TempDir::new("ags_room");
    let crm = testdata().join("ags/3.6.2/room3.crm");
    let r = run(["ags-room", s(&crm), "-o", s(&dir.0)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(written.len(), 6, "{}", r.stdout);
    for file in [
        "room3.room.ron",
        "room3.png",
        "room3.walk.png",
        "room3.hotspots.ids.png",
        "room3.regions.ids.png",
        "room3.behind.ids.png",
    ] {
        assert!(dir.path(file).is_file(), "{file} not written");
    }
    let text = std::fs::read_to_string(dir.path("room3.room.ron")).unwrap();
    let room = walkmask::room_file::RoomFile::from_ron(&text).unwrap();
    assert_eq!(room.size, (640, 400));
    assert_eq!(room.walk_mask.image, "room3.walk.png");
    // The walk mask written is the room's, pixel for pixel.
    let walk = walkmask::WalkMask::open(dir.path("room3.walk.png"), &walkmask::DecodeRule::Indexed)
        .unwrap();
    let ags = walkmask::ags::AgsRoom::read_crm(&std::fs::read(&crm).unwrap()).unwrap();
    assert_eq!(walk.areas(), ags.walkable.areas());
    assert!(walk.areas().contains(&2));
    // The AGS 4 folder of room 1, named as asked.
    let folder = testdata().join("ags/4.0/Rooms/1");
    let r = run(["ags-room", s(&folder), "-o", s(&dir.0), "--name", "hall"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(dir.path("hall.room.ron").is_file());
    // Not a room: exit 2, and it says so.
    let r = run(["ags-room", s(&dir.path("room3.png")), "-o", s(&dir.0)]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("not an Adventure Game Studio room"),
        "{}",
        r.stderr
    );
}

#[test]
fn lint_prints_and_draws_what_is_wrong_and_fails_on_errors() {
    let dir = TempDir::new("lint");
    // 40 x 20: floor left of a wall at x = 20, and an island right of it.
    let walk = image::GrayImage::from_fn(40, 20, |x, _| image::Luma([u8::from(x != 20)]));
    walk.save(dir.path("hall.walk.png")).unwrap();
    // Hotspot 1 (listed) and hotspot 2 (not listed), both on the left.
    let hotspots = image::GrayImage::from_fn(40, 20, |x, y| {
        image::Luma([match (x, y) {
            (2..=6, 2..=6) => 1,
            (10..=14, 12..=16) => 2,
            _ => 0,
        }])
    });
    hotspots.save(dir.path("hall.hotspots.ids.png")).unwrap();
    let room = r#"(
        size: (40, 20),
        walk_mask: (image: "hall.walk.png"),
        hotspots: (image: "hall.hotspots.ids.png", ids: { 1: (name: "bell", walk_to: (4.5, 10.5)) }),
        spawn_points: [(name: "start", at: (10.5, 10.5)), (name: "in the wall", at: (20.5, 3.5))],
    )"#;
    let file = dir.write("hall.room.ron", room);
    let picture = dir.path("hall.lint.png");
    let r = run(["lint", s(&file), "-o", s(&picture)]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].starts_with("error: spawn_points[1]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("that no spawn point reaches"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("hotspot id 2"), "{}", r.stdout);
    assert!(
        lines.last().unwrap().ends_with("1 error, 2 warnings"),
        "{}",
        r.stdout
    );
    // The picture marks the island magenta and the unclaimed hotspot yellow.
    let drawn = image::open(&picture).unwrap().to_rgb8();
    assert_eq!(drawn.dimensions(), (40, 20));
    let island = drawn.get_pixel(25, 15).0;
    assert!(
        island[0] > 150 && island[1] < 100 && island[2] > 150,
        "{island:?}"
    );
    let unclaimed = drawn.get_pixel(12, 14).0;
    assert!(
        unclaimed[0] > 150 && unclaimed[1] > 150 && unclaimed[2] < 100,
        "{unclaimed:?}"
    );
    // As JSON; and with the errors mended, exit 0.
    let r = run(["lint", s(&file), "--json"]);
    let report = r.object();
    assert_eq!(report["errors"], 1);
    assert_eq!(report["problems"][0]["kind"], "OffFloor");
    assert_eq!(report["problems"][0]["at"], serde_json::json!([20.5, 3.5]));
    dir.write("hall.room.ron", room.replace("(20.5, 3.5)", "(30.5, 15.5)"));
    let r = run(["lint", s(&file)]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.ends_with("0 errors, 1 warning\n"), "{}", r.stdout);
    // A prop whose picture is not there is an error that names it.
    let with_prop = room.replace("(20.5, 3.5)", "(30.5, 15.5)").replace(
        "spawn_points:",
        r#"props: [(name: "desk", image: "props/desk.png", at: (2, 2))], spawn_points:"#,
    );
    dir.write("hall.room.ron", &with_prop);
    let r = run(["lint", s(&file)]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.stdout.contains("props[0].image = \"props/desk.png\""),
        "{}",
        r.stdout
    );
    std::fs::create_dir_all(dir.path("props")).unwrap();
    image::RgbaImage::new(4, 4)
        .save(dir.path("props/desk.png"))
        .unwrap();
    let r = run(["lint", s(&file)]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}
