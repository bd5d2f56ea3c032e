//! Property tests of the agent's tool-call parser: a call in random prose, in code fences, with
//! nested arguments, with `arguments` as a JSON string, is found whole; a call cut short is never
//! taken for a call; prose alone is an answer.

use proptest::prelude::*;
use sagedeck::mcp::agent::parse::{Found, find_call};
use serde_json::{Value, json};

/// Prose without braces (models write anything around a call).
fn prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,:;!?'\"\\n()\\[\\]-]{0,80}"
}

/// JSON argument values, nested up to a few levels.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(|b| json!(b)),
        "[a-zA-Z0-9 {}\\[\\]\"\\\\:,]{0,12}".prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z_]{1,8}", value(), 0..4).prop_map(|m| Value::Object(m.into_iter().collect()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_call_in_prose_or_fences_is_found_whole(
        before in prose(), after in prose(), name in "[a-z_]{1,12}", args in arguments(),
        fenced in any::<bool>(), pretty in any::<bool>(), as_string in any::<bool>(), wrapped in any::<bool>(),
    ) {
        let arg_field = if as_string { json!(args.to_string()) } else { args.clone() };
        let mut call = json!({"tool": name, "arguments": arg_field});
        if wrapped {
            call = json!({"response": {"action": call}});
        }
        let body = if pretty { serde_json::to_string_pretty(&call).unwrap() } else { call.to_string() };
        let body = if fenced { format!("```json\n{body}\n```") } else { body };
        let text = format!("{before}{body}{after}");
        match find_call(&text) {
            Found::Call(c) => {
                prop_assert_eq!(c.name, name);
                prop_assert_eq!(c.arguments, args);
            }
            other => prop_assert!(false, "{:?} in {}", other, text),
        }
    }

    #[test]
    fn a_call_cut_short_is_never_taken_for_a_call(
        before in prose(), name in "[a-z_]{1,12}", args in arguments(), cut in 0.0f64..1.0,
    ) {
        let body = json!({"tool": name, "arguments": args}).to_string();
        let at = ((body.len() - 1) as f64 * cut) as usize;
        prop_assume!(body.is_char_boundary(at));
        let text = format!("{before}{}", &body[..at]);
        // Cut anywhere before its last brace, the call must not come back as a call with these
        // arguments (it may be an answer or malformed, never a wrong call).
        if let Found::Call(c) = find_call(&text) {
            prop_assert!(c.name != name || c.arguments != args, "{} found in {}", c.name, text);
        }
    }

    #[test]
    fn prose_alone_is_an_answer(text in prose()) {
        prop_assert_eq!(find_call(&text), Found::Answer);
    }
}
