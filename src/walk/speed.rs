//! What a walker's speed is multiplied by.

use super::hurry::Hurried;
use crate::scaling::{DepthScale, RegionSpeed};

/// What a walker's speed is multiplied by now: its depth's factor, its region's and
/// its hurry's.
pub(crate) type SpeedFactors = (
    Option<&'static DepthScale>,
    Option<&'static RegionSpeed>,
    Option<&'static Hurried>,
);

/// The product of a walker's [`SpeedFactors`] (1 for those it has not).
pub(crate) fn speed_factor(
    (depth, region, hurried): (Option<&DepthScale>, Option<&RegionSpeed>, Option<&Hurried>),
) -> f32 {
    depth.map_or(1.0, DepthScale::speed_factor)
        * region.map_or(1.0, |r| r.0)
        * hurried.map_or(1.0, Hurried::speed_factor)
}
