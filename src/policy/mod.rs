//! The safety policy, schema-driven arguments, output validation and the rate limiter.
