//! The types and text rules the stages share: the artifact, the typed
//! evidence, contracts, the plan and the delivery handed between stages,
//! ctx's word forms. Leaves: nothing here runs a stage.

pub mod artifact;
pub mod command;
pub mod contract;
pub mod delivery;
pub mod delivery_plan;
pub mod evidence;
pub mod format;
pub mod line_index;
pub mod mapped;
pub mod normalize;
pub mod note;
pub mod retention;
pub mod words;
pub mod workspace;
