//! HAR 1.2 export, one file per server. SKELETON: filled in by the transport work.

use crate::report::ServerReport;

/// Renders one server's exchanges as HAR. SKELETON: empty until the transport branch lands.
pub fn render(_server: &ServerReport) -> String {
    // SKELETON
    String::new()
}
