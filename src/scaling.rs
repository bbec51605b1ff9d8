//! Perspective scaling: characters grow as they come toward the camera.

use bevy::prelude::*;
use walkmask::Point;

use crate::asset::WalkMask;
use crate::placement::{Parents, walker_xy};
use crate::plan::basis::Rooms;
use crate::walk::membership::CurrentRoom;

/// How characters scale in one area of a room's mask.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub enum AreaScale {
    /// The same scale everywhere in the area.
    Fixed(f32),
    /// Linear in depth between the area's top row and its bottom row (Adventure Game
    /// Studio's min and max scaling): `top` at the top row, `bottom` at the bottom
    /// row, and in between along y.
    Linear {
        /// Scale at the area's top row (far from the camera).
        top: f32,
        /// Scale at the area's bottom row (near the camera).
        bottom: f32,
    },
}

impl AreaScale {
    /// The scale at row `y` (pixels, y down) of an image in which the area (or
    /// region) spans `rows` (its first and last row); `None` for a linear rule of an
    /// area without rows.
    pub(crate) fn at(self, rows: Option<(u32, u32)>, y: f32) -> Option<f32> {
        Some(match self {
            AreaScale::Fixed(s) => s,
            AreaScale::Linear { top, bottom } => {
                let (first, last) = rows?;
                let span = (last - first) as f32;
                let t = if span > 0.0 {
                    ((y - (first as f32 + 0.5)) / span).clamp(0.0, 1.0)
                } else {
                    0.5
                };
                top + (bottom - top) * t
            }
        })
    }
}

/// A greyscale image of the room whose grey level gives the scale: 0 is `min`, 255
/// is `max`, linear in between, sampled with bilinear interpolation so that the scale
/// changes smoothly. It is loaded as a [`WalkMask`] read with
/// [`DecodeRule::Indexed`](walkmask::DecodeRule::Indexed) (grey level = value), at
/// the mask's size or coarser: it is stretched over the mask.
#[derive(Reflect, Clone, Debug, PartialEq)]
pub struct ScaleMap {
    /// The image.
    pub image: Handle<WalkMask>,
    /// Scale at grey level 0.
    pub min: f32,
    /// Scale at grey level 255.
    pub max: f32,
}

/// How characters scale with depth in a room: put it on the [`WalkRoom`](crate::WalkRoom)
/// entity. A rule of the region under a walker ([`Region::scale`](crate::Region::scale))
/// wins, then a rule for the area under it; elsewhere the scale map, if any;
/// where neither applies (an area without a rule and no map, or a blocked pixel) the
/// walker keeps its own scale.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{AreaScale, DepthScale, WalkRoom, WalkScaling, Walker};
///
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         WalkRoom::new(assets.load("rooms/lobby.walk.png")),
///         // The lobby floor (area 1): 60 % at the back, full size at the front.
///         WalkScaling::default().with_area(1, AreaScale::Linear { top: 0.6, bottom: 1.0 }),
///     ));
///     // A walker that follows the room's scaling, in size and in speed.
///     commands.spawn((Walker::new(200.0), DepthScale::default().with_speed(true)));
/// }
/// # bevy::ecs::system::assert_is_system(setup);
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Clone, Debug, Default)]
pub struct WalkScaling {
    /// Rules per area id.
    pub areas: Vec<(u8, AreaScale)>,
    /// The scale map used where no area rule applies.
    pub map: Option<ScaleMap>,
}

impl WalkScaling {
    /// Adds (or replaces) the rule of area `id`.
    ///
    /// ```
    /// # use bevy_walkmask::{AreaScale, WalkScaling};
    /// let scaling = WalkScaling::default().with_area(2, AreaScale::Fixed(0.8));
    /// assert_eq!(scaling.areas, vec![(2, AreaScale::Fixed(0.8))]);
    /// ```
    pub fn with_area(mut self, id: u8, scale: AreaScale) -> Self {
        self.areas.retain(|(a, _)| *a != id);
        self.areas.push((id, scale));
        self
    }

    /// Uses the greyscale `image` as a scale map from `min` (black) to `max` (white).
    pub fn with_map(mut self, image: Handle<WalkMask>, min: f32, max: f32) -> Self {
        self.map = Some(ScaleMap { image, min, max });
        self
    }

    /// The scale at mask point `p` of `mask`, or `None` where no rule applies (or the
    /// map is not loaded yet).
    pub fn scale_at(&self, mask: &WalkMask, p: Point, maps: &Assets<WalkMask>) -> Option<f32> {
        let (x, y) = p.pixel()?;
        let area = mask.area_at(x, y)?;
        let rule = self
            .areas
            .iter()
            .find(|(id, _)| *id == area && area != 0)
            .map(|(_, rule)| *rule);
        let scale = match rule {
            Some(rule) => rule.at(mask.area_rows(area), p.y)?,
            None => {
                let map = self.map.as_ref()?;
                let image = maps.get(&map.image)?;
                let v = bilinear(image, p, mask.size());
                map.min + (map.max - map.min) * v / 255.0
            }
        };
        scale.is_finite().then_some(scale)
    }
}

/// The grey level of `image` at mask point `p` of a `size` mask (the image stretched
/// over the mask), interpolated between pixel centres.
fn bilinear(image: &WalkMask, p: Point, size: UVec2) -> f32 {
    let (w, h) = (image.width() as f32, image.height() as f32);
    let x = (p.x * w / size.x as f32 - 0.5).clamp(0.0, w - 1.0);
    let y = (p.y * h / size.y as f32 - 0.5).clamp(0.0, h - 1.0);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let at = |x: f32, y: f32| {
        let (x, y) = (x.min(w - 1.0) as u32, y.min(h - 1.0) as u32);
        image.area_at(x, y).unwrap_or(0) as f32
    };
    let top = at(x0, y0) * (1.0 - fx) + at(x0 + 1.0, y0) * fx;
    let bottom = at(x0, y0 + 1.0) * (1.0 - fx) + at(x0 + 1.0, y0 + 1.0) * fx;
    top * (1.0 - fy) + bottom * fy
}

/// Makes a walker follow its room's [`WalkScaling`]: its `Transform::scale` becomes
/// `base` times the scale where its feet are, every frame after it moves, and with
/// `speed` its speed is multiplied by the scale as well (a character far away takes
/// smaller steps). Where no rule applies it keeps `base`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_walkmask::{DepthScale, Walker};
///
/// fn spawn(mut commands: Commands) {
///     // A sprite drawn at twice the size it should have at scale 1.
///     commands.spawn((Walker::new(150.0), DepthScale::new(Vec3::splat(0.5))));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Clone, Debug, Default)]
pub struct DepthScale {
    /// The walker's own scale (at room scale 1).
    pub base: Vec3,
    /// Whether the walking speed follows the scale too.
    pub speed: bool,
    /// The room's scale where the walker stands (1 where no rule applies). The plugin
    /// writes it.
    pub current: f32,
}

impl Default for DepthScale {
    /// Base scale one, speed unchanged.
    fn default() -> Self {
        Self::new(Vec3::ONE)
    }
}

impl DepthScale {
    /// Follows the room's scaling from `base`.
    pub fn new(base: Vec3) -> Self {
        Self {
            base,
            speed: false,
            current: 1.0,
        }
    }

    /// Makes the speed follow the scale too (or not).
    ///
    /// ```
    /// # use bevy_walkmask::DepthScale;
    /// assert!(DepthScale::default().with_speed(true).speed);
    /// ```
    pub fn with_speed(mut self, speed: bool) -> Self {
        self.speed = speed;
        self
    }

    /// The factor the walking speed is multiplied by now.
    pub fn speed_factor(&self) -> f32 {
        if self.speed && self.current.is_finite() && self.current > 0.0 {
            self.current
        } else {
            1.0
        }
    }
}

/// The factor a walker's speed is multiplied by in the region it stands in
/// ([`WalkRegions::with_speed`](crate::WalkRegions::with_speed)), kept by the plugin.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct RegionSpeed(pub(crate) f32);

/// The scale the rule of the region a walker is in gives it (`None`: no rule):
/// written by region tracking, read by [`follow_depth`].
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct RegionScale(pub(crate) Option<f32>);

/// A walker that follows its room's scaling.
type ScaledWalker = (
    &'static CurrentRoom,
    &'static mut Transform,
    Option<&'static ChildOf>,
    &'static mut DepthScale,
    Option<&'static RegionScale>,
);

/// Sets each [`DepthScale`] walker's scale from where it stands (after it moved).
pub(crate) fn follow_depth(
    mut walkers: Query<ScaledWalker>,
    parents: Parents,
    rooms: Rooms,
    scalings: Query<&WalkScaling>,
    masks: Res<Assets<WalkMask>>,
) {
    for (current, mut transform, child_of, mut depth, region) in &mut walkers {
        let position = walker_xy(&transform, child_of, &parents);
        let region_scale = region.and_then(|r| r.0).filter(|s| s.is_finite());
        let scale = match region_scale {
            Some(scale) => Some(scale),
            None => current.get().and_then(|entity| {
                let (_, room, placed) = rooms.get(entity).ok()?;
                let scaling = scalings.get(entity).ok()?;
                let mask = masks.get(&room.mask)?;
                let mapping = room.mapping(placed, mask.size());
                scaling.scale_at(mask, mapping.world_to_mask(position), &masks)
            }),
        }
        .unwrap_or(1.0);
        if depth.current != scale {
            depth.current = scale;
        }
        let wanted = depth.base * scale;
        if transform.scale != wanted {
            transform.scale = wanted;
        }
    }
}
