//! Memory stays flat while masks come and go: 50 masks of different sizes are loaded,
//! walked on (warm fields on, so grids, fields and pathfinder scratch all fill up),
//! unloaded, and the whole round is repeated. The live heap is measured by a counting
//! global allocator (this test binary holds only this test, so nothing else
//! allocates meanwhile), and every cache stays within its budget.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use bevy::prelude::*;
use bevy_walkmask::prelude::*;
use bevy_walkmask::{NavGridCache, PlannerStatus, WarmFieldCache};
use common::{
    Kind, LOAD_UPDATES, Log, add_log, create_generated_dir, deterministic, headless_app, load_mask,
    run, run_until, wait_for, write_grey_png,
};

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MASKS: u32 = 50;
const GRID_BUDGET: usize = 1 << 20;
const FIELD_BUDGET: usize = 1 << 20;
const SCRATCH_BUDGET: usize = 1 << 20;

fn size(i: u32) -> (u32, u32) {
    (40 + i * 7, 30 + i * 5)
}

fn name(i: u32) -> String {
    format!("generated/memory_{i}.walk.png")
}

/// Loads each mask, walks on it, unloads it.
fn one_round(app: &mut App) {
    for i in 0..MASKS {
        let (w, h) = size(i);
        let mask = load_mask(app, &name(i));
        let room = app.world_mut().spawn(WalkRoom::new(mask.clone())).id();
        let walker = app
            .world_mut()
            .spawn((
                Walker::new(4000.0),
                bevy_walkmask::PlayerWalker,
                Transform::from_xyz(-(w as f32) / 2.0 + 2.5, 0.0, 1.0),
            ))
            .id();
        // Stand still long enough to be warmed up, then walk across.
        wait_for(app, LOAD_UPDATES, |world| {
            world.resource::<WarmFieldCache>().stats().fills > 0
                || world.resource::<WarmFieldCache>().stats().entries > 0
        });
        common::request(
            app,
            walker,
            Vec2::new(w as f32 / 2.0 - 2.5, -(h as f32) / 4.0),
        );
        run_until(app, 1000, |world| {
            world
                .resource::<Log>()
                .has(walker, |k| matches!(k, Kind::Arrived(_)))
        });
        app.world_mut().despawn(walker);
        app.world_mut().despawn(room);
        let id = mask.id();
        drop(mask);
        wait_for(app, LOAD_UPDATES, |world| {
            !world.resource::<Assets<WalkMask>>().contains(id)
        });
        app.world_mut().resource_mut::<Log>().observed.clear();
        app.world_mut().resource_mut::<Log>().messages.clear();
        check_budgets(app);
    }
    run(app, 5);
}

fn check_budgets(app: &App) {
    let grids = app.world().resource::<NavGridCache>().stats();
    let fields = app.world().resource::<WarmFieldCache>().stats();
    let scratch = app
        .world()
        .resource::<PlannerStatus>()
        .idle_pathfinder_bytes();
    // One grid or field larger than its budget may be kept while in use.
    let (w, h) = size(MASKS - 1);
    let largest = (w as usize + 2) * (h as usize + 2) * 4;
    assert!(grids.bytes <= GRID_BUDGET.max(largest), "{grids:?}");
    assert!(fields.bytes <= FIELD_BUDGET, "{fields:?}");
    assert!(scratch <= SCRATCH_BUDGET, "{scratch}");
}

#[test]
fn loading_and_unloading_fifty_masks_keeps_memory_flat() {
    create_generated_dir();
    for i in 0..MASKS {
        let (w, h) = size(i);
        // A wall with a gap, so that walks search.
        write_grey_png(&name(i), (w, h), |x, y| {
            if x == w / 2 && y < h * 3 / 4 { 0 } else { 255 }
        });
    }
    let mut app = headless_app(WalkmaskPlugin {
        warm_fields: true,
        grid_cache_bytes: GRID_BUDGET,
        field_cache_bytes: FIELD_BUDGET,
        pathfinder_bytes: SCRATCH_BUDGET,
        ..deterministic()
    });
    add_log(&mut app);
    run(&mut app, 5);
    one_round(&mut app);
    let after_first = LIVE.load(Ordering::Relaxed);
    one_round(&mut app);
    one_round(&mut app);
    let after_third = LIVE.load(Ordering::Relaxed);
    let growth = after_third - after_first;
    println!("live heap after round 1: {after_first} B, after round 3: {after_third} B");
    assert!(
        growth < 256 << 10,
        "the live heap grew by {growth} bytes over two rounds of 50 masks"
    );
}
