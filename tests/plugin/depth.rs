//! Depth: entities with a `Baseline` are drawn back to front by baseline (lower in
//! front), equal baselines keep one order, and walk-behinds are cut from the room's
//! picture by their layer and sorted with the characters.

use crate::common;

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use common::{Pace, headless_app};

fn z(app: &App, entity: Entity) -> f32 {
    app.world().get::<Transform>(entity).unwrap().translation.z
}

/// The z `entity` is drawn at (after its parents').
fn world_z(app: &App, entity: Entity) -> f32 {
    app.world()
        .get::<GlobalTransform>(entity)
        .unwrap()
        .translation()
        .z
}

fn spawn_at(app: &mut App, y: f32, baseline: Baseline) -> Entity {
    app.world_mut()
        .spawn((Transform::from_xyz(0.0, y, 3.0), baseline))
        .id()
}

/// Back to front: baselines from high to low; ties in entity order, frame after
/// frame; `Off` keeps its z; a child's z is set in its parent's frame; switching the
/// sorting off leaves every z alone.
#[test]
fn lower_baselines_are_drawn_in_front_and_ties_keep_their_order() {
    let mut app = headless_app(Pace::Exact(0).plugin());
    let top = spawn_at(&mut app, 40.0, Baseline::Feet);
    let tie_a = spawn_at(&mut app, 5.0, Baseline::Feet);
    let fixed = spawn_at(&mut app, 100.0, Baseline::At(-10.0));
    let tie_b = spawn_at(&mut app, 5.0, Baseline::Feet);
    let off = spawn_at(&mut app, -500.0, Baseline::Off);
    let parent = app
        .world_mut()
        .spawn(Transform::from_xyz(0.0, -30.0, 20.0))
        .id();
    let child = app
        .world_mut()
        .spawn((
            Transform::from_xyz(0.0, 0.0, 0.0),
            Baseline::Feet,
            ChildOf(parent),
        ))
        .id();
    for _ in 0..3 {
        app.update();
        let order = [top, tie_a, tie_b, fixed];
        for pair in order.windows(2) {
            assert!(
                z(&app, pair[0]) < z(&app, pair[1]),
                "{pair:?} {} {}",
                z(&app, pair[0]),
                z(&app, pair[1])
            );
        }
        // The child's feet are at world y = -30: in front of all of them.
        let child_world = world_z(&app, child);
        assert!(child_world > z(&app, fixed), "{child_world}");
        assert!((z(&app, child) + 20.0 - child_world).abs() < 1e-4);
        assert_eq!(z(&app, off), 3.0);
        let sorting = DepthSorting::default();
        for e in [top, tie_a, tie_b, fixed] {
            assert!((sorting.back..=sorting.front).contains(&z(&app, e)));
        }
    }
    // The top one walks down past the others: now in front of all but the child.
    app.world_mut()
        .get_mut::<Transform>(top)
        .unwrap()
        .translation
        .y = -20.0;
    app.update();
    let child_world = world_z(&app, child);
    assert!(z(&app, top) > z(&app, fixed) && z(&app, top) < child_world);
    app.world_mut().resource_mut::<DepthSorting>().enabled = false;
    let before = z(&app, top);
    app.world_mut()
        .get_mut::<Transform>(top)
        .unwrap()
        .translation
        .y = 90.0;
    app.update();
    assert_eq!(z(&app, top), before);
}

/// A child of a scaled parent is drawn at the z its rank gives, whatever the
/// parent's scale (before, its local z was set as if the parent were not scaled, so
/// a parent at scale 2 drew it in front of everything); and a character's feet on
/// a fixed baseline are in front of it, whichever was spawned first (before, the
/// order of equal baselines followed entity indices, and flipped when cut-outs were
/// spawned again by a reload).
#[test]
fn ranks_hold_under_a_scaled_parent_and_feet_win_ties_with_fixed_baselines() {
    let mut app = headless_app(Pace::Exact(0).plugin());
    let back = spawn_at(&mut app, 40.0, Baseline::Feet);
    let front = spawn_at(&mut app, -40.0, Baseline::Feet);
    let parent = app
        .world_mut()
        .spawn(Transform::from_xyz(0.0, 0.0, 10.0).with_scale(Vec3::splat(2.0)))
        .id();
    // Feet at world y 0: between `back` and `front`.
    let child = app
        .world_mut()
        .spawn((Transform::default(), Baseline::Feet, ChildOf(parent)))
        .id();
    let feet = spawn_at(&mut app, -10.0, Baseline::Feet);
    let walk_behind = spawn_at(&mut app, 0.0, Baseline::At(-10.0));
    for _ in 0..3 {
        app.update();
        let (b, c, w) = (z(&app, back), world_z(&app, child), z(&app, walk_behind));
        assert!(b < c && c < w, "{b} {c} {w}");
        assert!(w < z(&app, feet) && z(&app, feet) < z(&app, front));
    }
}

/// A prop's baseline given as a row of its room (room pixels) sorts at the world y
/// where the room's placement puts that row: in a room moved and drawn twice its
/// size, and under a half-resolution mask (`WalkRoom::with_scale`), as the room
/// moves; before the room's mask has loaded it sorts at the back.
#[test]
fn a_row_baseline_follows_its_room_where_it_is_drawn() {
    // (mask size, `WalkRoom::scale`): 40 x 30 room pixels either way.
    for (size, scale) in [(UVec2::new(40, 30), 1.0), (UVec2::new(20, 15), 2.0)] {
        let mut app = headless_app(Pace::Exact(0).plugin());
        let mask = common::add_mask(&mut app, size.x, size.y, |_, _| 1);
        let loading = app.world().resource::<Assets<WalkMask>>().reserve_handle();
        let (room, prop, waiting) = {
            let world = app.world_mut();
            // Row 20 is 5 room pixels below the middle row (15): 10 world units below
            // the room's origin at (100, 50), drawn twice its size: world y 40.
            let room = world
                .spawn((
                    WalkRoom::new(mask).with_scale(scale),
                    Transform::from_xyz(100.0, 50.0, 0.0).with_scale(Vec3::splat(2.0)),
                ))
                .id();
            let prop = world
                .spawn((
                    Transform::from_xyz(-6.0, 0.0, 0.0),
                    Baseline::Row(20.0),
                    ChildOf(room),
                ))
                .id();
            let unloaded = world
                .spawn((WalkRoom::new(loading), Transform::default()))
                .id();
            let waiting = world
                .spawn((Transform::default(), Baseline::Row(0.0), ChildOf(unloaded)))
                .id();
            (room, prop, waiting)
        };
        let behind = spawn_at(&mut app, 45.0, Baseline::Feet);
        let in_front = spawn_at(&mut app, 35.0, Baseline::Feet);
        let far_back = spawn_at(&mut app, 1000.0, Baseline::Feet);
        for _ in 0..2 {
            app.update();
        }
        let z_of = |app: &App, e| world_z(app, e);
        assert!(
            z_of(&app, behind) < z_of(&app, prop) && z_of(&app, prop) < z_of(&app, in_front),
            "scale {scale}: {} {} {}",
            z_of(&app, behind),
            z_of(&app, prop),
            z_of(&app, in_front)
        );
        assert!(z_of(&app, waiting) < z_of(&app, far_back), "scale {scale}");
        // The room moves up by 20: its row 20 is at world y 60, above both.
        app.world_mut()
            .get_mut::<Transform>(room)
            .unwrap()
            .translation
            .y += 20.0;
        for _ in 0..2 {
            app.update();
        }
        assert!(z_of(&app, prop) < z_of(&app, behind), "scale {scale}");
        assert!(z_of(&app, prop) < z_of(&app, in_front), "scale {scale}");
    }
}

#[cfg(feature = "walk_behinds")]
mod walk_behinds {
    use super::*;
    use bevy::asset::RenderAssetUsages;
    use common::add_mask;

    /// An 8 x 6 picture whose pixel (x, y) is (10 x, 10 y, 5, 255).
    fn picture(app: &mut App) -> Handle<Image> {
        let buffer = image::RgbaImage::from_fn(8, 6, |x, y| {
            image::Rgba([10 * x as u8, 10 * y as u8, 5, 255])
        });
        let image = Image::from_dynamic(
            image::DynamicImage::ImageRgba8(buffer),
            true,
            RenderAssetUsages::default(),
        );
        app.world_mut().resource_mut::<Assets<Image>>().add(image)
    }

    fn cut_outs(app: &mut App) -> Vec<(u8, Entity)> {
        let mut found: Vec<(u8, Entity)> = app
            .world_mut()
            .query::<(Entity, &WalkBehind)>()
            .iter(app.world())
            .map(|(e, w)| (w.id, e))
            .collect();
        found.sort();
        found
    }

    /// The pixels of the cut-out of `entity`, as RGBA rows.
    fn pixels(app: &App, entity: Entity) -> (UVec2, Vec<[u8; 4]>) {
        let sprite = app.world().get::<Sprite>(entity).unwrap();
        let image = app
            .world()
            .resource::<Assets<Image>>()
            .get(&sprite.image)
            .unwrap();
        let rgba = image.clone().try_into_dynamic().unwrap().to_rgba8();
        (image.size(), rgba.pixels().map(|p| p.0).collect())
    }

    /// A pillar (id 1, x = 2..=3, y = 1..=4) and a counter (id 2, the bottom row,
    /// x = 5..=7) become sprites with the picture's pixels where the layer has them,
    /// centred where they are in the picture, at their baselines; a baseline moved
    /// in `WalkBehinds` moves, `None` hides the walk-behind; a layer replaced is cut
    /// again.
    #[test]
    fn walk_behinds_are_cut_from_the_picture_and_sorted_at_their_baselines() {
        let mut app = headless_app(Pace::Exact(0).plugin());
        app.init_asset::<Image>();
        let picture = picture(&mut app);
        let layer_pixel = |x: u32, y: u32| match (x, y) {
            (2..=3, 1..=4) => 1,
            (5..=7, 5) => 2,
            _ => 0,
        };
        let layer = add_mask(&mut app, 8, 6, layer_pixel);
        let mask = add_mask(&mut app, 8, 6, |_, _| 1);
        let room = app
            .world_mut()
            .spawn((
                WalkRoom::new(mask),
                WalkBehinds::new(layer.clone(), picture)
                    // Rows 4 and 6: world y -1 and -3.
                    .with_walk_behind(1, 4.0)
                    .with_walk_behind(2, 6.0),
                Transform::default(),
            ))
            .id();
        app.update();
        let found = cut_outs(&mut app);
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [1, 2]);
        let (pillar, counter) = (found[0].1, found[1].1);
        let (size, px) = pixels(&app, pillar);
        assert_eq!(size, UVec2::new(2, 4));
        for (i, p) in px.iter().enumerate() {
            let (x, y) = (2 + i as u32 % 2, 1 + i as u32 / 2);
            assert_eq!(*p, [10 * x as u8, 10 * y as u8, 5, 255], "({x}, {y})");
        }
        // Centred on its pixels: x 2..4 of 8 is -1 from the middle, y 1..5 of 6 is 0.
        let t = app.world().get::<Transform>(pillar).unwrap().translation;
        assert_eq!(t.truncate(), Vec2::new(-1.0, 0.0));
        assert_eq!(app.world().get::<ChildOf>(pillar).unwrap().parent(), room);
        assert_eq!(
            app.world().get::<Baseline>(pillar),
            Some(&Baseline::Row(4.0))
        );
        assert_eq!(pixels(&app, counter).0, UVec2::new(3, 1));
        // A character at y = -2 is in front of the pillar and behind the counter.
        let character = spawn_at(&mut app, -2.0, Baseline::Feet);
        app.update();
        assert!(world_z(&app, pillar) < world_z(&app, character));
        assert!(world_z(&app, character) < world_z(&app, counter));
        // The counter's baseline moves above the character (row 2: world y 1), then it
        // is switched off.
        let mut behinds = app.world_mut().get_mut::<WalkBehinds>(room).unwrap();
        behinds.set_baseline(2, Some(2.0));
        app.update();
        app.update();
        assert!(world_z(&app, counter) < world_z(&app, character));
        assert_eq!(cut_outs(&mut app).len(), 2, "moved, not cut again");
        let mut behinds = app.world_mut().get_mut::<WalkBehinds>(room).unwrap();
        behinds.set_baseline(2, None);
        app.update();
        assert_eq!(
            app.world().get::<Visibility>(counter),
            Some(&Visibility::Hidden)
        );
        // The layer replaced: the pillar is one column wide now.
        let narrower = bevy_walkmask::walkmask::WalkMask::from_fn(8, 6, |x, y| {
            if x == 2 { layer_pixel(x, y) } else { 0 }
        })
        .unwrap();
        *app.world_mut()
            .resource_mut::<Assets<WalkMask>>()
            .get_mut(&layer)
            .unwrap() = WalkMask::new(narrower);
        app.update();
        app.update();
        let found = cut_outs(&mut app);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(pixels(&app, found[0].1).0, UVec2::new(1, 4));
    }
}
