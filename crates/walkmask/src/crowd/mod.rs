//! Walkers that see each other: local avoidance while walking, and free spots to
//! stand on when many arrive at one place.
//!
//! The planner finds each walker's path as if it were alone (solid obstacles
//! aside). This stage runs every frame after it, for walkers that move:
//!
//! 1. [`NeighbourGrid`]: the walkers bucketed by position, to find each one's
//!    nearest neighbours without comparing every pair;
//! 2. [`Avoider`]: optimal reciprocal collision avoidance (ORCA; van den Berg, Guy,
//!    Lin and Manocha, "Reciprocal n-Body Collision Avoidance", 2011): each
//!    neighbour gives a half-plane of velocities that keep the two apart for a time
//!    horizon, each walker taking its [`share`] of the correction, and a small linear
//!    program picks the allowed velocity nearest to the one the walker wants
//!    ([`orca`]);
//! 3. the step then goes through [`steer::slide`](crate::steer::slide) on the
//!    walker's grid, so avoidance never puts a walker on a blocked pixel;
//! 4. [`free_spot`]: where a walker sent to an occupied point stands instead (the
//!    nearest spot by walking distance, seen from the point, clear of everyone
//!    standing or heading there).
//!
//! Nothing here allocates once its buffers have grown, and nothing is random: the
//! same inputs give the same velocities, in any order of the agents.

mod avoid;
mod neighbours;
pub mod orca;
mod spots;

pub use avoid::{Agent, AvoidanceParams, Avoided, Avoider, share};
pub use neighbours::NeighbourGrid;
pub use orca::Vector;
pub use spots::{SpotScratch, free_spot};
