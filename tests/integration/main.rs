//! The one integration-test binary; each area is a submodule.

mod catalog;
mod execution;
mod phase_fixtures;
mod tools_call;
mod transport;
