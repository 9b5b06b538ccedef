//! Emitters: pure functions of a finished, redacted `Report`, one module per format.
