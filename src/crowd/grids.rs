//! The grid a walker plans on (its room, areas and radius), for steps off its path:
//! slides along walls, lines of sight and free spots, in world units.

use bevy::prelude::*;
use walkmask::crowd::{SpotScratch, free_spot};
use walkmask::los::line_of_sight;
use walkmask::{NavGrid, Point};

use crate::asset::WalkMask;
use crate::plan::basis::{Rooms, current_basis};
use crate::plan::worker::Planner;
use crate::room::{MaskMapping, WalkAreas};
use crate::walker::Walker;

/// A walker's mask and grid, for steps off its path.
#[derive(Clone)]
pub(crate) struct WalkerGrid {
    mapping: MaskMapping,
    grid: NavGrid,
}

impl WalkerGrid {
    /// The grid `walker` at `position` plans on (its room, areas and radius), when it
    /// is built.
    pub(crate) fn of(
        walker: &Walker,
        position: Vec2,
        rooms: &Rooms,
        masks: &Assets<WalkMask>,
        planner: &Planner,
    ) -> Option<Self> {
        let (basis, mask) = current_basis(walker, position, rooms, masks, None).ok()?;
        let grid = planner.main_thread_grid(basis.key, mask.core())?;
        Some(Self {
            mapping: basis.mapping,
            grid,
        })
    }

    /// Where a walker at `from` gets to stepping by `step` (world), sliding along
    /// walls ([`walkmask::steer::slide`]); `None` when it stands on a blocked pixel.
    pub(crate) fn slide(&self, from: Vec2, step: Vec2) -> Option<Vec2> {
        let a = self.mapping.world_to_mask(from);
        let b = self.mapping.world_to_mask(from + step);
        let to = walkmask::steer::slide(&self.grid, a, (b.x - a.x, b.y - a.y))?;
        let to = self.mapping.mask_to_world(to);
        to.is_finite().then_some(to)
    }

    /// Where a walker standing at `from` (world), on a pixel its grid blocks (a
    /// region that began to block under it, a wall it is too wide to stand beside),
    /// steps off to: the centre of the pixel [`walkmask::snap::nearest_step_off`]
    /// finds. `None` when it stands on a walkable pixel, off the mask, or has nowhere
    /// to go.
    pub(crate) fn step_off(&self, from: Vec2) -> Option<Vec2> {
        let at = self.mapping.world_to_mask(from);
        if !self.grid.contains(at) || self.grid.walkable_at(at) {
            return None;
        }
        let (x, y) = walkmask::snap::nearest_step_off(&self.grid, at)?;
        Some(self.pixel_centre((x, y))).filter(|p| p.is_finite())
    }

    /// Whether the straight walk from `a` to `b` (world) is clear.
    pub(crate) fn sees(&self, a: Vec2, b: Vec2) -> bool {
        let (a, b) = (self.mapping.world_to_mask(a), self.mapping.world_to_mask(b));
        self.grid.contains(a) && self.grid.contains(b) && line_of_sight(&self.grid, a, b)
    }

    /// The free spot nearest to `end` for a walker of `radius` at `position`
    /// ([`free_spot`], in mask pixels), clear of `taken` by `gap` (world).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn free_spot(
        &self,
        end: Vec2,
        position: Vec2,
        radius: f32,
        gap: f32,
        taken: &[(Vec2, f32)],
        taken_mask: &mut Vec<(Point, f32)>,
        scratch: &mut SpotScratch,
    ) -> Option<Vec2> {
        let pixel = self.pixel().max(f32::MIN_POSITIVE);
        taken_mask.clear();
        taken_mask.extend(
            taken
                .iter()
                .map(|&(at, r)| (self.mapping.world_to_mask(at), r / pixel)),
        );
        let footprint = (2.0 * radius + gap) / pixel;
        let max_distance = footprint * (2.0 * ((taken.len() + 1) as f32).sqrt() + 2.0);
        let found = free_spot(
            &self.grid,
            self.mapping.world_to_mask(end),
            self.mapping.world_to_mask(position),
            radius / pixel,
            gap / pixel,
            taken_mask,
            max_distance,
            scratch,
        )?;
        let at = self.mapping.mask_to_world(found);
        at.is_finite().then_some(at)
    }

    /// The mask pixel under world point `p` (clamped to the mask).
    pub(crate) fn pixel_under(&self, p: Vec2) -> Option<(u32, u32)> {
        self.mapping.pixel_under(p)
    }

    /// Whether a walker can stand on mask pixel (tile) `(x, y)`.
    pub(crate) fn walkable(&self, (x, y): (u32, u32)) -> bool {
        self.grid.is_walkable(x, y)
    }

    /// The world centre of mask pixel (tile) `(x, y)`.
    pub(crate) fn pixel_centre(&self, (x, y): (u32, u32)) -> Vec2 {
        self.mapping
            .mask_to_world(Point::new(x as f32 + 0.5, y as f32 + 0.5))
    }

    /// World units per mask pixel (the smaller side).
    pub(crate) fn pixel(&self) -> f32 {
        self.mapping.pixel_size().min_element()
    }
}

/// Where a walker's mask and grid come from, for steps off its path: looked up once
/// a frame per room, radius and areas.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct WalkerGrids<'w, 's> {
    rooms: Rooms<'w, 's>,
    masks: Res<'w, Assets<WalkMask>>,
    planner: Res<'w, Planner>,
    memo: Local<'s, Vec<(GridMemoKey, Option<WalkerGrid>)>>,
    /// Whether there is one room at most, once looked up this frame.
    one_room: Local<'s, Option<bool>>,
    /// The last grid looked up by where a walker stands.
    unmemoized: Local<'s, Option<WalkerGrid>>,
}

/// What a walker's grid depends on besides where it stands (which matters only with
/// several rooms and no room named).
type GridMemoKey = (Option<Entity>, u32, Option<WalkAreas>);

impl WalkerGrids<'_, '_> {
    /// Forgets last frame's look-ups.
    pub(crate) fn new_frame(&mut self) {
        self.memo.clear();
        *self.one_room = None;
    }

    /// The grid of `walker` at `position` ([`WalkerGrid::of`]), looked up once a frame
    /// per room, radius and areas.
    pub(crate) fn of(&mut self, walker: &Walker, position: Vec2) -> Option<&WalkerGrid> {
        let one_room = *self
            .one_room
            .get_or_insert_with(|| self.rooms.iter().nth(1).is_none());
        let key = (walker.room, walker.radius.to_bits(), walker.areas);
        if walker.room.is_some() || one_room {
            let at = match self.memo.iter().position(|(k, _)| *k == key) {
                Some(at) => at,
                None => {
                    let grid =
                        WalkerGrid::of(walker, position, &self.rooms, &self.masks, &self.planner);
                    self.memo.push((key, grid));
                    self.memo.len() - 1
                }
            };
            return self.memo[at].1.as_ref();
        }
        // Several rooms and none named: the room depends on where the walker stands.
        *self.unmemoized =
            WalkerGrid::of(walker, position, &self.rooms, &self.masks, &self.planner);
        self.unmemoized.as_ref()
    }
}
