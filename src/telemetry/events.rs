//! NDJSON event stream of a run. SKELETON: filled in by the transport work.

use crate::report::Report;

/// Renders the run as NDJSON events. SKELETON: empty until the transport branch lands.
pub fn render(_report: &Report) -> String {
    // SKELETON
    String::new()
}
