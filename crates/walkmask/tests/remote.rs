//! Searches answered through messages (`walkmask::remote`), as a Web Worker answers
//! them:
//!
//! - a query sent as bytes gets exactly the answer the same query gets on the asking
//!   side (waypoints, status, length, counters), with and without the index, among
//!   obstacles, with any options and with points outside the mask or not finite;
//! - every request and reply reads back as written;
//! - damaged or foreign bytes are refused with an error, never a panic or a misread;
//! - grids are kept up to the limit, the one used longest ago dropped first, and a
//!   query on a dropped grid says so.

mod support;

use std::time::Duration;

use proptest::prelude::*;
use walkmask::obstacles::{Footprint, Obstacle, Obstacles};
use walkmask::remote::{
    PROTOCOL_VERSION, PathRequest, RemoteError, RemoteSearches, Reply, Request,
};
use walkmask::subgoal::IndexPolicy;
use walkmask::{
    AreaSet, NavGrid, ObstacleDetours, PathOptions, PathResult, Pathfinder, Point, QueryError,
    WalkMask,
};

use support::cases::{Scenario, config, make_point, point_spec, scenario};

fn options(bits: u8) -> PathOptions {
    PathOptions {
        snap_destination: bits & 1 != 0,
        beautify: bits & 2 != 0,
        taut: bits & 4 != 0,
        grid_steps: bits & 8 != 0,
        use_index: bits & 16 != 0,
        obstacle_detours: if bits & 32 != 0 {
            ObstacleDetours::Local
        } else {
            ObstacleDetours::Shortest
        },
    }
}

fn footprint(kind: u8, a: f32, b: f32) -> Footprint {
    match kind % 3 {
        0 => Footprint::Rect {
            half_width: a,
            half_height: b,
        },
        1 => Footprint::Circle { radius: a },
        _ => Footprint::Ellipse {
            radius_x: a,
            radius_y: b,
        },
    }
}

/// Obstacles drawn inside and round a `w x h` mask, now and then one that is not
/// valid.
fn obstacles(w: u32, h: u32) -> impl Strategy<Value = Vec<Obstacle>> {
    prop::collection::vec(
        (point_spec(), 0u8..3, 0.0f32..6.0, 0.0f32..6.0, 0u8..20),
        0..5,
    )
    .prop_map(move |list| {
        list.into_iter()
            .map(|(at, kind, a, b, odd)| {
                let center = match odd {
                    0 => Point::new(f32::NAN, 1.0),
                    1 => Point::new(-3.0, h as f32 + 2.0),
                    _ => make_point(at, w, h),
                };
                Obstacle {
                    center,
                    footprint: footprint(kind, a, b),
                }
            })
            .collect()
    })
}

fn query_case() -> impl Strategy<Value = (Scenario, Vec<Obstacle>, u8, bool, u8, u8)> {
    scenario().prop_flat_map(|sc| {
        let (w, h) = (sc.case.w, sc.case.h);
        (
            Just(sc),
            obstacles(w, h),
            any::<u8>(),
            any::<bool>(),
            0u8..4,
            0u8..8,
        )
    })
}

/// The answer without its wall time, which differs between any two runs.
fn timeless(result: Result<PathResult, QueryError>) -> Result<PathResult, QueryError> {
    result.map(|mut path| {
        path.stats.elapsed = Duration::ZERO;
        path
    })
}

fn ask(searches: &mut RemoteSearches, request: &Request) -> Reply {
    let bytes = searches
        .answer_bytes(&request.encode())
        .expect("a request with a reply");
    Reply::decode(&bytes).expect("a reply that reads back")
}

proptest! {
    #![proptest_config(config(256))]

    /// The answer through messages is the asking side's own, bit for bit.
    #[test]
    fn a_query_through_messages_is_answered_as_at_home(
        (sc, list, option_bits, index, clearance_quarters, odd_point) in query_case()
    ) {
        let clearance = f32::from(clearance_quarters) * 0.75;
        let mask = WalkMask::new(sc.case.w, sc.case.h, sc.case.cells.clone()).unwrap();
        let (start, goal) = match odd_point {
            0 => (Point::new(f32::NAN, sc.start.y), sc.goal),
            1 => (sc.start, Point::new(sc.goal.x, f32::INFINITY)),
            2 => (sc.start, Point::new(-1.0, sc.goal.y)),
            _ => (sc.start, sc.goal),
        };
        let options = options(option_bits);

        let home = NavGrid::with_clearance(mask.clone(), sc.case.areas, clearance).unwrap();
        if index {
            home.build_index(IndexPolicy::WhenItPays);
        }
        let mut home_obstacles = Obstacles::for_size(sc.case.w, sc.case.h, clearance);
        for &obstacle in &list {
            let _ = home_obstacles.push(obstacle);
        }
        let expected = Pathfinder::with_options(options)
            .find_path_among(&home, &home_obstacles, start, goal);

        let mut searches = RemoteSearches::new(2);
        let loaded = ask(&mut searches, &Request::LoadGrid {
            grid: 3,
            mask,
            areas: sc.case.areas,
            clearance,
            index,
        });
        prop_assert!(matches!(loaded, Reply::Loaded { grid: 3, .. }), "{loaded:?}");
        let reply = ask(&mut searches, &Request::FindPath(PathRequest {
            id: 99,
            grid: 3,
            start,
            goal,
            options,
            obstacles: list.clone(),
        }));
        let Reply::Path { id, result } = reply else {
            return Err(TestCaseError::fail(format!("not a path: {reply:?}")));
        };
        prop_assert_eq!(id, 99);
        // Compared as printed: a point that is not a number is equal to itself there.
        prop_assert_eq!(
            format!("{:?}", timeless(result)),
            format!("{:?}", timeless(expected))
        );

        // Asked again among the same obstacles in the other order: their pixels are
        // the ones kept from the first query, and the answer is still the home's.
        let reversed: Vec<Obstacle> = list.iter().rev().copied().collect();
        let mut home_reversed = Obstacles::for_size(sc.case.w, sc.case.h, clearance);
        for &obstacle in &reversed {
            let _ = home_reversed.push(obstacle);
        }
        let expected = Pathfinder::with_options(options)
            .find_path_among(&home, &home_reversed, goal, start);
        let reply = ask(&mut searches, &Request::FindPath(PathRequest {
            id: 100,
            grid: 3,
            start: goal,
            goal: start,
            options,
            obstacles: reversed,
        }));
        let Reply::Path { id, result } = reply else {
            return Err(TestCaseError::fail(format!("not a path: {reply:?}")));
        };
        prop_assert_eq!(id, 100);
        prop_assert_eq!(
            format!("{:?}", timeless(result)),
            format!("{:?}", timeless(expected))
        );
    }

    /// Requests read back as written; so do replies.
    #[test]
    fn messages_read_back_as_written(
        (sc, list, option_bits, index, clearance_quarters, _) in query_case(),
        id in any::<u32>(),
        nanos in any::<u64>(),
    ) {
        let mask = WalkMask::new(sc.case.w, sc.case.h, sc.case.cells.clone()).unwrap();
        let requests = [
            Request::LoadGrid {
                grid: id,
                mask,
                areas: sc.case.areas,
                clearance: f32::from(clearance_quarters),
                index,
            },
            Request::ForgetGrid { grid: id },
            Request::FindPath(PathRequest {
                id,
                grid: id ^ 1,
                start: sc.start,
                goal: sc.goal,
                options: options(option_bits),
                obstacles: list.into_iter().filter(|o| o.center.is_finite()).collect(),
            }),
        ];
        for request in requests {
            prop_assert_eq!(Request::decode(&request.encode()), Ok(request));
        }
        let grid = sc.case.grid();
        let path = Pathfinder::new().find_path(&grid, sc.start, sc.goal);
        let replies = [
            Reply::Ready { version: PROTOCOL_VERSION },
            Reply::Loaded { grid: id, elapsed: Duration::from_nanos(nanos) },
            Reply::Path { id, result: path },
            Reply::Path {
                id,
                result: Err(QueryError::NotFinite { which: "destination", x: 1.5, y: f32::INFINITY }),
            },
            Reply::Path {
                id,
                result: Err(QueryError::OutsideMask {
                    which: "start", x: -2.0, y: 3.0, width: sc.case.w, height: sc.case.h,
                }),
            },
            Reply::UnknownGrid { id },
            Reply::Refused { error: format!("grid {id}: no ü") },
        ];
        for reply in replies {
            prop_assert_eq!(Reply::decode(&reply.encode()), Ok(reply));
        }
    }

    /// Any bytes: read as a request or refused, never a panic; a message cut short
    /// or with bytes after its end is refused.
    #[test]
    fn damaged_bytes_are_refused(
        (sc, list, option_bits, index, _, _) in query_case(),
        cut in any::<prop::sample::Index>(),
        noise in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let mask = WalkMask::new(sc.case.w, sc.case.h, sc.case.cells.clone()).unwrap();
        let load = Request::LoadGrid { grid: 1, mask, areas: sc.case.areas, clearance: 0.0, index };
        let query = Request::FindPath(PathRequest {
            id: 1, grid: 1, start: sc.start, goal: sc.goal, options: options(option_bits),
            obstacles: list,
        });
        let mut searches = RemoteSearches::new(1);
        for request in [load, query] {
            let bytes = request.encode();
            let short = &bytes[..cut.index(bytes.len())];
            prop_assert!(Request::decode(short).is_err());
            let mut long = bytes.clone();
            long.push(0);
            prop_assert_eq!(Request::decode(&long), Err(RemoteError::TrailingBytes(1)));
            let refused = Reply::decode(&searches.answer_bytes(short).unwrap()).unwrap();
            prop_assert!(matches!(refused, Reply::Refused { .. }), "{refused:?}");
        }
        let _ = Request::decode(&noise);
        let _ = Reply::decode(&noise);
        let mut headed = b"WM".to_vec();
        headed.extend(PROTOCOL_VERSION.to_le_bytes());
        headed.extend(&noise);
        let _ = Request::decode(&headed);
        let _ = Reply::decode(&headed);
        // Every request but forgetting a grid has a reply, even one that is refused.
        let forgets = matches!(Request::decode(&headed), Ok(Request::ForgetGrid { .. }));
        let replied = searches.answer_bytes(&headed).is_some();
        prop_assert_eq!(replied, !forgets);
    }
}

fn room() -> WalkMask {
    WalkMask::from_fn(40, 20, |x, y| u8::from(!(x == 20 && y < 15))).unwrap()
}

fn load(grid: u32) -> Request {
    Request::LoadGrid {
        grid,
        mask: room(),
        areas: AreaSet::only(&[1]),
        clearance: 0.0,
        index: true,
    }
}

fn find(id: u32, grid: u32) -> Request {
    Request::FindPath(PathRequest {
        id,
        grid,
        start: Point::new(2.5, 2.5),
        goal: Point::new(37.5, 2.5),
        options: PathOptions::default(),
        obstacles: vec![Obstacle::new(
            Point::new(30.0, 3.0),
            Footprint::Circle { radius: 2.0 },
        )],
    })
}

#[test]
fn grids_are_kept_up_to_the_limit_and_the_one_used_longest_ago_goes_first() {
    let mut searches = RemoteSearches::new(2);
    for grid in [1, 2] {
        assert!(matches!(
            ask(&mut searches, &load(grid)),
            Reply::Loaded { .. }
        ));
    }
    // Grid 1 used: grid 2 is now the one used longest ago.
    assert!(matches!(
        ask(&mut searches, &find(10, 1)),
        Reply::Path {
            id: 10,
            result: Ok(_)
        }
    ));
    assert!(matches!(ask(&mut searches, &load(3)), Reply::Loaded { .. }));
    assert_eq!(searches.grids().collect::<Vec<_>>(), [1, 3]);
    assert_eq!(
        ask(&mut searches, &find(11, 2)),
        Reply::UnknownGrid { id: 11 }
    );
    // Loaded again, it answers.
    assert!(matches!(ask(&mut searches, &load(2)), Reply::Loaded { .. }));
    let Reply::Path {
        id: 12,
        result: Ok(path),
    } = ask(&mut searches, &find(12, 2))
    else {
        panic!("no path");
    };
    assert!(path.waypoints.iter().any(|p| p.y > 15.0), "round the wall");
    assert_eq!(path.waypoints.last(), Some(&Point::new(37.5, 2.5)));
    // Forgotten, it does not, and forgetting has no reply.
    assert_eq!(
        searches.answer_bytes(&Request::ForgetGrid { grid: 2 }.encode()),
        None
    );
    assert_eq!(
        ask(&mut searches, &find(13, 2)),
        Reply::UnknownGrid { id: 13 }
    );
}

#[test]
fn another_version_or_a_bad_mask_is_refused() {
    let mut bytes = find(1, 1).encode();
    bytes[2..4].copy_from_slice(&(PROTOCOL_VERSION + 1).to_le_bytes());
    assert_eq!(
        Request::decode(&bytes),
        Err(RemoteError::WrongVersion {
            found: PROTOCOL_VERSION + 1
        })
    );
    assert_eq!(Request::decode(b"PNG"), Err(RemoteError::NotAMessage));

    let mut searches = RemoteSearches::new(2);
    let Reply::Refused { error } = ask(
        &mut searches,
        &Request::LoadGrid {
            grid: 1,
            mask: room(),
            areas: AreaSet::all(),
            clearance: f32::NAN,
            index: false,
        },
    ) else {
        panic!("a NaN clearance is refused");
    };
    assert!(error.starts_with("grid 1:"), "{error}");
    assert_eq!(searches.grids().count(), 0);

    // A zero-sized mask in the bytes.
    let mut bytes = load(4).encode();
    let at = bytes.len() - 40 * 20 - 8;
    bytes.truncate(at);
    bytes.extend(0u32.to_le_bytes());
    bytes.extend(20u32.to_le_bytes());
    assert!(matches!(Request::decode(&bytes), Err(RemoteError::Mask(_))));
}
