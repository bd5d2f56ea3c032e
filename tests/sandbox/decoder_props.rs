//! Property tests (bounded runs, part of the normal suite) for the sandbox's request decoders:
//! JSON and CBOR bodies and awsQuery forms. Any bytes decode or fail cleanly, never panic, and
//! what an SDK would encode decodes back to the same document.

use proptest::prelude::*;
use sagedeck::sandbox::http::wire::{Out, decode_cbor, decode_json};
use sagedeck::sandbox::sts::action;
use serde_json::Value;

/// JSON documents without null or fractional numbers (CBOR maps null to an empty map and
/// fractions keep their own float width).
fn document() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map("[A-Za-z]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_bytes_decode_or_fail_cleanly(body in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode_json(&body);
        let _ = decode_cbor(&body);
        let _ = action(&body);
    }

    #[test]
    fn json_documents_round_trip(doc in document()) {
        let body = serde_json::to_vec(&doc).unwrap();
        prop_assert_eq!(decode_json(&body).ok(), Some(doc));
    }

    #[test]
    fn cbor_documents_round_trip(doc in document()) {
        let body = Out::from_json(&doc).to_cbor();
        prop_assert_eq!(decode_cbor(&body).ok(), Some(doc));
    }

    #[test]
    fn form_actions_round_trip(name in "\\PC{0,24}", version in "[0-9-]{0,10}") {
        let body = serde_urlencoded::to_string([("Version", version.as_str()), ("Action", name.as_str())]).unwrap();
        prop_assert_eq!(action(body.as_bytes()), Some(name));
    }
}
