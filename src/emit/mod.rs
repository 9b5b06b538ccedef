//! Emitters: pure functions of a finished, redacted [`Report`], one module per format. They
//! write; they never compute a score, talk to a server or see an unredacted secret.
//! Every file is written to a temporary file beside the target and renamed into place, so a
//! crash never leaves a half-written report for the upload step.

pub mod badge;
pub mod common;
pub mod conformance;
pub mod diff;
pub mod events;
pub mod expectations;
pub mod github;
pub mod gitlab;
pub mod har;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod outputs;
pub mod pinning;
pub mod sarif;
pub mod text;

#[allow(unused_imports)]
use crate::report::Report;

pub use crate::report::file::write_atomic;
