//! A small stable string hash for seeding and for names derived from other names.

/// A small stable string hash (FNV-1a) for seeding.
pub fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
