//! Property tests of the Tools tab's schema form (bounded runs): any arguments that fit a tool's
//! input schema go into the form and come back out unchanged (the raw JSON editor and the form
//! stay in sync), and no sequence of keys makes the form panic or lose its validity check.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;
use sagedeck::tui::widgets::schema_form::SchemaForm;
use serde_json::{Value, json};

/// A schema with every kind the form builds a row for: text, numbers, a flag, an enum, a list,
/// a nested object.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["fast", "exact"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "inner": {"type": "object", "properties": {"name": {"type": "string"}, "depth": {"type": "integer"}}}
        },
        "required": ["text"]
    })
}

/// Arguments that fit [`schema`].
fn arguments() -> impl Strategy<Value = Value> {
    (
        "[a-zA-Z0-9 ]{1,12}",
        proptest::option::of(-1000i64..1000),
        proptest::option::of((-1000i32..1000).prop_map(|n| f64::from(n) / 8.0)),
        proptest::option::of(any::<bool>()),
        proptest::option::of(prop_oneof![Just("fast"), Just("exact")]),
        proptest::option::of(proptest::collection::vec("[a-z]{1,6}", 1..4)),
        proptest::option::of(("[a-z]{1,6}", 0i64..9)),
    )
        .prop_map(|(text, count, ratio, flag, mode, tags, inner)| {
            let mut v = json!({ "text": text });
            let o = v.as_object_mut().unwrap();
            if let Some(c) = count {
                o.insert("count".into(), json!(c));
            }
            if let Some(r) = ratio {
                o.insert("ratio".into(), json!(r));
            }
            if let Some(f) = flag {
                o.insert("flag".into(), json!(f));
            }
            if let Some(m) = mode {
                o.insert("mode".into(), json!(m));
            }
            if let Some(t) = tags {
                o.insert("tags".into(), json!(t));
            }
            if let Some((name, depth)) = inner {
                o.insert("inner".into(), json!({"name": name, "depth": depth}));
            }
            v
        })
}

fn key() -> impl Strategy<Value = KeyEvent> {
    let code = prop_oneof![
        Just(KeyCode::Up),
        Just(KeyCode::Down),
        Just(KeyCode::Left),
        Just(KeyCode::Right),
        Just(KeyCode::Enter),
        Just(KeyCode::Esc),
        Just(KeyCode::Backspace),
        Just(KeyCode::Tab),
        Just(KeyCode::Char(' ')),
        Just(KeyCode::Char('a')),
        Just(KeyCode::Char('d')),
        Just(KeyCode::Char('7')),
        Just(KeyCode::Char('-')),
        Just(KeyCode::Char('x')),
    ];
    code.prop_map(|c| KeyEvent::new(c, KeyModifiers::NONE))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn arguments_that_fit_go_in_and_come_back_unchanged(args in arguments()) {
        let mut form = SchemaForm::new(&schema());
        form.set_value(&args);
        prop_assert_eq!(form.value(), args.clone());
        prop_assert!(form.is_valid(), "{:?}", form.errors);
        let text: Value = serde_json::from_str(&form.json_text()).unwrap();
        prop_assert_eq!(text, args);
    }

    #[test]
    fn no_key_sequence_breaks_the_form(args in arguments(), keys in proptest::collection::vec(key(), 0..60)) {
        let mut form = SchemaForm::new(&schema());
        form.set_value(&args);
        for k in keys {
            form.handle_key(k);
        }
        // Whatever was typed, the form still says whether its value fits the schema.
        let value = form.value();
        let errors = sagedeck::mcp::schema::validate(&schema(), &value);
        prop_assert_eq!(form.is_valid(), errors.is_empty(), "{} {:?}", value, errors);
    }
}
