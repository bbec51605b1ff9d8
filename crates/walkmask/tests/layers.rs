//! Property tests of room layers: the ids a straight move passes over, against dense
//! sampling of the segment, the pixel of an id nearest a point, cut-outs, and the scale
//! between a layer and its walk mask.

use proptest::prelude::*;
use walkmask::layer::{
    LayerScale, block_ids, cut_out, depth_inside, id_at, ids_along, nearest_with_id,
};
use walkmask::{AreaSet, Point, WalkMask};

/// A random layer of ids 0..4 and a segment whose ends may lie off it.
fn layer_and_segment() -> impl Strategy<Value = (WalkMask, Point, Point)> {
    (1u32..20, 1u32..20).prop_flat_map(|(w, h)| {
        let (wf, hf) = (w as f32, h as f32);
        (
            prop::collection::vec(0u8..4, (w * h) as usize),
            (-3.0f32..wf + 3.0, -3.0f32..hf + 3.0),
            (-3.0f32..wf + 3.0, -3.0f32..hf + 3.0),
        )
            .prop_map(move |(ids, a, b)| {
                let layer =
                    WalkMask::from_fn(w, h, |x, y| ids[(y * w + x) as usize]).expect("size");
                (layer, Point::new(a.0, a.1), Point::new(b.0, b.1))
            })
    })
}

/// The ids met by sampling the segment every thousandth of a pixel, runs once.
fn dense_ids(layer: &WalkMask, from: Point, to: Point) -> Vec<u8> {
    let length = (to.x - from.x).hypot(to.y - from.y);
    let samples = (length * 1000.0).ceil() as usize + 1;
    let mut ids: Vec<u8> = Vec::new();
    for i in 0..=samples {
        let t = i as f32 / samples as f32;
        let p = Point::new(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
        let id = id_at(layer, p);
        if ids.last() != Some(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Whether `small` is `big` with some entries left out.
fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut rest = big.iter();
    small.iter().all(|id| rest.any(|b| b == id))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// A cut-out is the smallest rectangle holding the id's pixels, has the picture's
    /// pixel exactly where the layer has the id and is transparent elsewhere.
    #[test]
    fn a_cut_out_holds_exactly_the_ids_pixels((layer, _, _) in layer_and_segment(), id in 0u8..5) {
        let picture = |x: u32, y: u32| [x as u8, y as u8, 7, 200];
        let has = |x: u32, y: u32| id != 0 && layer.area_at(x, y) == Some(id);
        let pixels: Vec<(u32, u32)> = (0..layer.height())
            .flat_map(|y| (0..layer.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| has(x, y))
            .collect();
        let Some(cut) = cut_out(&layer, id, picture) else {
            prop_assert!(pixels.is_empty());
            return Ok(());
        };
        let min_x = pixels.iter().map(|p| p.0).min().unwrap();
        let max_x = pixels.iter().map(|p| p.0).max().unwrap();
        let min_y = pixels.iter().map(|p| p.1).min().unwrap();
        let max_y = pixels.iter().map(|p| p.1).max().unwrap();
        prop_assert_eq!((cut.x, cut.y), (min_x, min_y));
        prop_assert_eq!((cut.width, cut.height), (max_x - min_x + 1, max_y - min_y + 1));
        prop_assert_eq!(cut.rgba.len() as u32, cut.width * cut.height * 4);
        for (i, px) in cut.rgba.chunks(4).enumerate() {
            let (x, y) = (cut.x + i as u32 % cut.width, cut.y + i as u32 / cut.width);
            let expected = if has(x, y) { picture(x, y) } else { [0; 4] };
            prop_assert_eq!(px, &expected[..], "at ({}, {})", x, y);
        }
    }

    /// The pixel of an id nearest a point is a pixel of that id, and no pixel of that
    /// id is nearer; `None` exactly when the id has no pixel (or is 0).
    #[test]
    fn nearest_with_id_is_the_nearest((layer, from, _) in layer_and_segment(), id in 0u8..5) {
        let found = nearest_with_id(&layer, id, from);
        let distance = |p: Point| (p.x - from.x).hypot(p.y - from.y);
        let mut best: Option<f32> = None;
        for y in 0..layer.height() {
            for x in 0..layer.width() {
                if id != 0 && layer.area_at(x, y) == Some(id) {
                    let d = distance(Point::new(x as f32 + 0.5, y as f32 + 0.5));
                    best = Some(best.map_or(d, |b: f32| b.min(d)));
                }
            }
        }
        match (found, best) {
            (Some(p), Some(b)) => {
                prop_assert_eq!(id_at(&layer, p), id);
                prop_assert!((distance(p) - b).abs() < 1e-4, "{} vs {}", distance(p), b);
            }
            (None, None) => {}
            (found, best) => prop_assert!(false, "found {:?}, nearest at {:?}", found, best),
        }
    }

    /// The depth inside a region is the distance to the nearest pixel of another id
    /// on the layer (to its square), capped at the fade; 0 outside every region.
    #[test]
    fn depth_inside_is_the_distance_to_another_id((layer, from, _) in layer_and_segment(), max in 0.0f32..12.0) {
        let depth = depth_inside(&layer, from, max);
        let id = id_at(&layer, from);
        let mut expected = if id == 0 { 0.0 } else { max };
        if id != 0 {
            for y in 0..layer.height() {
                for x in 0..layer.width() {
                    if layer.area_at(x, y) != Some(id) {
                        let dx = (x as f32 - from.x).max(from.x - (x + 1) as f32).max(0.0);
                        let dy = (y as f32 - from.y).max(from.y - (y + 1) as f32).max(0.0);
                        expected = expected.min(dx.hypot(dy));
                    }
                }
            }
        }
        prop_assert!((depth - expected).abs() < 1e-4, "{} vs {}", depth, expected);
        prop_assert!((0.0..=max).contains(&depth));
    }

    /// Blocking ids: a pixel is blocked exactly when it was or the layer pixel over
    /// it has one of the ids, whatever the layer's whole factor.
    #[test]
    fn block_ids_blocks_exactly_the_pixels_under_the_ids(
        (layer, _, _) in layer_and_segment(),
        factor in 1u32..4,
        floor in prop::collection::vec(0u8..3, 1..1200),
        ids in prop::collection::vec(0u8..5, 0..3),
    ) {
        let (w, h) = (layer.width() * factor, layer.height() * factor);
        let mask = WalkMask::from_fn(w, h, |x, y| floor[((y * w + x) as usize) % floor.len()]).unwrap();
        let set = AreaSet::only(&ids);
        let blocked = block_ids(&mask, &layer, LayerScale { factor }, &set);
        prop_assert_eq!((blocked.width(), blocked.height()), (w, h));
        for y in 0..h {
            for x in 0..w {
                let under = layer.area_at(x / factor, y / factor).unwrap();
                let was = mask.area_at(x, y).unwrap();
                let expected = if under != 0 && ids.contains(&under) { 0 } else { was };
                prop_assert_eq!(blocked.area_at(x, y).unwrap(), expected, "pixel {} {}", x, y);
            }
        }
    }

    /// Every id that dense sampling meets is met, in the same order; the walk starts
    /// at the id under `from`, ends at the id under `to`, and lists each run once.
    #[test]
    fn ids_along_meets_what_dense_sampling_meets((layer, from, to) in layer_and_segment()) {
        let mut ids = Vec::new();
        ids_along(&layer, from, to, &mut ids);
        let dense = dense_ids(&layer, from, to);
        prop_assert_eq!(ids.first().copied(), Some(id_at(&layer, from)));
        prop_assert_eq!(ids.last().copied(), Some(id_at(&layer, to)));
        prop_assert!(ids.windows(2).all(|w| w[0] != w[1]), "a run listed twice: {:?}", ids);
        prop_assert!(is_subsequence(&dense, &ids), "dense {:?} not in {:?}", dense, ids);
        // Never more than one extra id per pixel corner grazed: at most the pixels
        // a segment can touch.
        let touched = (to.x.floor() - from.x.floor()).abs() + (to.y.floor() - from.y.floor()).abs() + 1.0;
        prop_assert!(ids.len() as f32 <= touched, "{} ids for {} pixels", ids.len(), touched);
    }

    /// Walking a segment backwards meets the same ids in reverse order, but for the
    /// choice of pixel at a corner the segment passes exactly through.
    #[test]
    fn ids_along_is_symmetric_up_to_corners((layer, from, to) in layer_and_segment()) {
        let (mut forward, mut backward) = (Vec::new(), Vec::new());
        ids_along(&layer, from, to, &mut forward);
        ids_along(&layer, to, from, &mut backward);
        backward.reverse();
        let dense = dense_ids(&layer, from, to);
        prop_assert!(is_subsequence(&dense, &backward));
        prop_assert_eq!(forward.first(), backward.first());
        prop_assert_eq!(forward.last(), backward.last());
    }
}

#[test]
fn a_region_one_pixel_wide_crossed_in_one_step_is_met() {
    let layer = WalkMask::from_fn(100, 3, |x, _| if x == 50 { 9 } else { 1 }).unwrap();
    let mut ids = Vec::new();
    ids_along(
        &layer,
        Point::new(0.5, 1.5),
        Point::new(99.5, 1.2),
        &mut ids,
    );
    assert_eq!(ids, [1, 9, 1]);
    // Along the region's edge without entering it: never met.
    ids_along(
        &layer,
        Point::new(49.5, 0.5),
        Point::new(49.9, 2.5),
        &mut ids,
    );
    assert_eq!(ids, [1]);
}

#[test]
fn points_far_off_the_layer_or_not_finite_read_as_no_region() {
    let layer = WalkMask::from_fn(8, 8, |_, _| 4).unwrap();
    let mut ids = Vec::new();
    // From far away, across the layer, to far away: cost bounded by the clip.
    ids_along(
        &layer,
        Point::new(-1e7, 4.5),
        Point::new(1e7, 4.7),
        &mut ids,
    );
    assert_eq!(ids, [0, 4, 0]);
    // So far that a float cannot say where the segment crosses: no panic, and the
    // ends are off the layer.
    ids_along(
        &layer,
        Point::new(-1e30, 4.5),
        Point::new(1e30, -4.5),
        &mut ids,
    );
    assert_eq!((ids.first(), ids.last()), (Some(&0), Some(&0)));
    ids_along(
        &layer,
        Point::new(f32::NAN, 1.0),
        Point::new(2.5, 2.5),
        &mut ids,
    );
    assert_eq!(ids, [4]);
    ids_along(
        &layer,
        Point::new(2.5, 2.5),
        Point::new(f32::INFINITY, 1.0),
        &mut ids,
    );
    assert_eq!(ids, [4]);
    ids_along(
        &layer,
        Point::new(f32::NAN, 1.0),
        Point::new(f32::NAN, 2.5),
        &mut ids,
    );
    assert_eq!(ids, [0]);
    assert_eq!(id_at(&layer, Point::new(-0.5, 3.0)), 0);
    assert_eq!(id_at(&layer, Point::new(8.0, 3.0)), 0);
}

#[test]
fn layer_scales_are_whole_fractions_of_the_mask() {
    assert_eq!(
        LayerScale::between((640, 360), (640, 360)).unwrap().factor,
        1
    );
    assert_eq!(
        LayerScale::between((640, 360), (160, 90)).unwrap().factor,
        4
    );
    for (layer, why) in [
        ((0, 360), "0 x 360"),
        ((641, 360), "not the 640 x 360"),
        ((320, 90), "not the 640 x 360"),
        ((300, 180), "not the 640 x 360"),
    ] {
        let error = LayerScale::between((640, 360), layer).unwrap_err();
        assert!(error.contains(why), "{error}");
    }
    let scale = LayerScale::between((640, 360), (320, 180)).unwrap();
    assert_eq!(scale.to_layer(Point::new(3.0, 5.0)), Point::new(1.5, 2.5));
}
