//! Property tests (bounded runs) for the legacy SSE framing bound: however a stream is cut into
//! chunks, events within the limit always pass, and a line over it always fails.

use proptest::prelude::*;
use sagedeck::mcp::transport_sse::FrameLimit;

/// `bytes` fed to a fresh limit of `max` in chunks cut at `cuts` (positions, any order).
fn feed(max: usize, bytes: &[u8], cuts: &[usize]) -> bool {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    at.extend([0, bytes.len()]);
    at.sort_unstable();
    let mut limit = FrameLimit::new(max);
    at.windows(2).all(|w| limit.check(&bytes[w[0]..w[1]]).is_ok())
}

fn terminator() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r"), Just("\r\n")]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn events_within_the_limit_pass(
        events in prop::collection::vec(("[a-z:{} ]{0,30}", terminator()), 1..20),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        // Each event is one line of at most 30 bytes, then a blank line.
        let stream: String = events.iter().map(|(line, t)| format!("{line}{t}{t}")).collect();
        prop_assert!(feed(30, stream.as_bytes(), &cuts));
    }

    #[test]
    fn a_line_over_the_limit_fails(
        extra in 1usize..64,
        before in "[a-z]{0,20}",
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let stream = format!("{before}\n\ndata: {}", "x".repeat(64 + extra));
        prop_assert!(!feed(64, stream.as_bytes(), &cuts));
    }
}
