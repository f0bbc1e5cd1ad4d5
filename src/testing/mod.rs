//! Test support: recorded runs under `fixtures/` and synthetic token
//! samples. Used by the tests, benches and examples; the binary never
//! reaches it.

pub mod fixture;
pub mod sequence;
pub mod synthetic;
