//! Walk masks drawn from code for measurements: the synthetic masks (a furnished
//! room, a spiral, a maze, a harbour) that the benchmark and the plugin's cost
//! examples run on. The `walkmask_demo_assets` binary draws the demo room's art.

pub mod synthetic;
