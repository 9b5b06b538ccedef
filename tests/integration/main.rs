//! The one integration-test binary; each area is a submodule.

mod baseline;
mod common;
mod emit;
mod sample;
