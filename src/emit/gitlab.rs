//! gitlab output. SKELETON: filled in by the emitter work (branch `emit`).

use crate::report::Report;

/// Renders the gitlab report. SKELETON: returns an empty document until the emitter branch lands.
pub fn render(_report: &Report) -> String {
    // SKELETON
    String::new()
}
