//! JSON Schema validation of tool arguments, structured tool results and `mcp serve` inputs with
//! the `jsonschema` crate: every keyword of the draft the schema names (2020-12 when it names
//! none), `format` asserted, local `$ref`s; remote `$ref`s are not fetched. Problems read
//! `PATH: WHAT` with `$.a.b[0]` paths (the form the console attaches to its rows); a missing
//! required property reads ``missing required property `k` ``. A schema that does not compile
//! cannot judge anything: the value is accepted and the problem logged.

use std::fmt::Write;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::{Location, LocationSegment};
use serde_json::Value;

/// Validates `value` against `schema`; returns every violation as `path: what`, empty when it
/// conforms.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let validator = match jsonschema::options().should_validate_formats(true).build(schema) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("a JSON Schema does not compile, so nothing is checked against it: {e}");
            return Vec::new();
        }
    };
    validator.iter_errors(value).flat_map(|e| problem(&e)).collect()
}

/// `$`, `$.a.b[0]`: the path of an instance location.
fn path_of(location: &Location) -> String {
    let mut out = String::from("$");
    for segment in location.segments() {
        match segment {
            LocationSegment::Property(p) => {
                out.push('.');
                out.push_str(&p);
            }
            LocationSegment::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// One violation as `PATH: WHAT` lines (one per unexpected property), in the wording the console
/// and the tools have always shown; the crate's own message for the rest.
fn problem(e: &ValidationError<'_>) -> Vec<String> {
    let path = path_of(e.instance_path());
    let v = e.instance();
    let what = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
            format!("missing required property `{name}`")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            return unexpected
                .iter()
                .map(|k| format!("{path}: unexpected property `{k}`"))
                .collect();
        }
        ValidationErrorKind::Minimum { limit } => format!("{v} is below the minimum {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("{v} is above the maximum {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("{v} must be above {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("{v} must be below {limit}"),
        ValidationErrorKind::Enum { options } => format!("{v} is not one of {options}"),
        ValidationErrorKind::Constant { expected_value } => format!("must be {expected_value}"),
        ValidationErrorKind::MinLength { limit } => format!("needs at least {limit} character(s)"),
        ValidationErrorKind::MaxLength { limit } => format!("allows at most {limit} character(s)"),
        ValidationErrorKind::AnyOf { context } => {
            let first = context.iter().flatten().flat_map(problem).next().unwrap_or_default();
            format!("matches none of the anyOf choices ({first})")
        }
        ValidationErrorKind::OneOfNotValid { .. } => "matches 0 of the oneOf choices, not exactly one".into(),
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the oneOf choices, not exactly one".into()
        }
        ValidationErrorKind::Not { .. } => "matches a schema it must not match".into(),
        ValidationErrorKind::FalseSchema => "no value is allowed here".into(),
        _ => e.to_string(),
    };
    vec![format!("{path}: {what}")]
}

/// The schema a local `$ref` (`#`, `#/$defs/X`) points at in `root`.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_and_required_read_as_the_console_expects() {
        let schema = json!({
            "type": "object",
            "properties": {
                "sign": {"type": "string", "minLength": 2},
                "n": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
            },
            "required": ["sign"],
            "$defs": {"tag": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]}}
        });
        assert!(validate(&schema, &json!({"sign": "WZPZ", "n": 2, "tags": [{"k": "v"}]})).is_empty());
        let text = validate(&schema, &json!({"n": 0.5, "tags": [{}]})).join("\n");
        for want in [
            "$: missing required property `sign`",
            "$.n: ",
            "$.tags[0]: missing required property `k`",
            "$.n: 0.5 is below the minimum 1",
        ] {
            assert!(text.contains(want), "{want} not in:\n{text}");
        }
        assert!(
            validate(&json!({"type": "no-such-type"}), &json!(1)).is_empty(),
            "an invalid schema judges nothing"
        );
    }
}
