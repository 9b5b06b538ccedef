//! The one integration-test binary; each area is a submodule.

mod common;
mod protocol;
mod transport;
