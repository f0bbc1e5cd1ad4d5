//! What every stage runs on, without being a stage: reading a file ctx
//! was pointed at within bounds (`bounded`), the settings (`config`), the
//! data directory (`home`), token counting (`tokens`), injected faults for
//! tests (`fault`), and trust in project-local files (`trust`). Each is
//! re-exported at the crate root (`crate::config`), the one path code
//! uses.

pub mod bounded;
pub mod config;
pub mod fault;
pub mod home;
pub mod tokens;
pub mod trust;
