//! The one integration-test binary; each area is a submodule.

mod transport;
