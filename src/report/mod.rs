//! The report model: findings, per-server reports, scoring and the gate.

pub mod baseline;
pub mod check;
pub mod diff;
pub mod exchange;
pub mod exposure;
pub mod file;
pub mod finding;
pub mod gate;
pub mod grounds;
pub mod host;
pub mod integer;
pub mod model;
pub mod score;
pub mod wording;

pub use finding::{Era, Finding, FindingBuilder, Phase, Severity, SkipReason, Status, Suppression};
pub use gate::{GateConfig, GateResult};
pub use model::{Anchor, CategoryScore, EraKind, Report, ServerReport, TransportKind};
