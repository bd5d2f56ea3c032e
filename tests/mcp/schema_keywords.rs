//! Tool-argument, tool-result and `mcp serve` input schemas are judged on every keyword,
//! including those the first, hand-written validator ignored: pattern, format, multipleOf,
//! uniqueItems, patternProperties and if/then/else; problems keep their `$.a[0]` paths.

use sagedeck::mcp::schema::validate;
use serde_json::{Value, json};

fn problems(schema: Value, value: Value) -> String {
    validate(&schema, &value).join("\n")
}

#[test]
fn keywords_the_old_validator_ignored_are_enforced() {
    let cases = [
        (
            json!({"type": "string", "pattern": "^[A-Z]{4}$"}),
            json!("WZPZ"),
            json!("wzpz"),
        ),
        (
            json!({"type": "string", "format": "email"}),
            json!("oncall@example.com"),
            json!("not an email"),
        ),
        (
            json!({"type": "string", "format": "date-time"}),
            json!("2026-12-04T05:00:00Z"),
            json!("yesterday"),
        ),
        (json!({"type": "number", "multipleOf": 0.5}), json!(2.5), json!(2.3)),
        (
            json!({"type": "array", "uniqueItems": true}),
            json!([1, 2]),
            json!([1, 1]),
        ),
        (
            json!({"type": "object", "patternProperties": {"^x_": {"type": "integer"}}}),
            json!({"x_a": 1, "other": "s"}),
            json!({"x_a": "one"}),
        ),
        (
            json!({"type": "object", "if": {"properties": {"mode": {"const": "mme"}}, "required": ["mode"]},
                   "then": {"required": ["target_model"]}, "else": {"not": {"required": ["target_model"]}}}),
            json!({"mode": "mme", "target_model": "a.tar.gz"}),
            json!({"mode": "mme"}),
        ),
    ];
    for (schema, good, bad) in cases {
        assert_eq!(problems(schema.clone(), good.clone()), "", "{schema} accepts {good}");
        let text = problems(schema.clone(), bad.clone());
        assert!(text.starts_with('$'), "{schema} refuses {bad} with a path: {text:?}");
    }
    let nested = problems(
        json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"pattern": "^[a-z]+$"}}}}),
        json!({"tags": ["ok", "NOT OK"]}),
    );
    assert!(nested.starts_with("$.tags[1]: "), "{nested}");
    let extra = problems(
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}),
        json!({"a": 1, "b": 2}),
    );
    assert!(extra.starts_with("$: ") && extra.contains('b'), "{extra}");
}
