//! json output. SKELETON: filled in by the emitter work.
