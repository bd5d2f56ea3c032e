//! MME catalog and prewarm.
