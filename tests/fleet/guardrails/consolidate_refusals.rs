//! `promote --consolidate` checks its precondition before anything is sent: while the variant to
//! keep does not hold 100 % of the traffic it is refused (exit 6, the shares named), a variant
//! the endpoint lacks is invalid input (exit 2); with one variant holding all the weight,
//! `--canary` is inferred.

use super::support::{EP, State, canary_config};
use crate::common::sandbox_with;

const SENT: [&str; 3] = [
    "CreateEndpointConfig",
    "UpdateEndpoint",
    "UpdateEndpointWeightsAndCapacities",
];

#[tokio::test]
async fn consolidation_is_refused_until_one_variant_holds_all_the_traffic() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    let sent = |sb: &sagedeck::sandbox::SandboxHandle| SENT.map(|op| sb.sandbox.request_count(op));
    for (args, code, needle) in [
        (
            vec!["--canary", "Canary"],
            6,
            "Canary does not hold 100% of fleet-ep-0000's traffic (Stable 90%, Canary 10%)",
        ),
        (vec![], 6, "no variant of fleet-ep-0000 holds 100% of its traffic"),
        (vec!["--canary", "Nope"], 2, "has no variant Nope"),
    ] {
        let mut a = vec!["promote", EP, "--consolidate", "--yes"];
        a.extend(args);
        let r = st.cli(&sb, &a).await;
        assert_eq!(r.code, code, "{a:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{a:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert_eq!(sent(&sb), [0, 0, 0], "{a:?}: nothing is sent");
    }

    let moved = st
        .cli(
            &sb,
            &[
                "weights",
                EP,
                "--set",
                "Stable=0",
                "--set",
                "Canary=10",
                "--yes",
                "--wait",
            ],
        )
        .await;
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    let r = st
        .cli(
            &sb,
            &["promote", EP, "--consolidate", "--yes", "--poll-ms", "100", "--json"],
        )
        .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let state = r.json();
    assert_eq!((&state["phase"], &state["winner"]), (&"done".into(), &"Canary".into()));
    let world = sb.sandbox.world.read();
    let names: Vec<&str> = world.endpoints[EP].variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Canary"]);
}
