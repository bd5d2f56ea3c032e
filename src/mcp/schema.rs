//! A small JSON Schema validator for tool arguments and structured results: `type` (one or a
//! list, `integer` included), `enum`, `const`, `properties`, `required`,
//! `additionalProperties`, `items` (one schema or a tuple), `min/maxItems`, `min/maxLength`,
//! `minimum`/`maximum` and their exclusive forms, `anyOf`/`oneOf`/`allOf`/`not`, and `$ref` to
//! `#/$defs/...` or `#/definitions/...`. Keywords it does not know are accepted, never failed.

use serde_json::Value;

const MAX_DEPTH: usize = 64;

/// Validates `value` against `schema`; returns every violation as `path: what`, empty when it
/// conforms.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", 0, &mut errors);
    errors
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(want: &str, v: &Value) -> bool {
    let got = type_of(v);
    want == got || (want == "number" && got == "integer")
}

/// The schema a local `$ref` (`#`, `#/$defs/X`) points at in `root`.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str, depth: usize, errors: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        errors.push(format!("{path}: schema nests too deeply (a $ref cycle?)"));
        return;
    }
    let s = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            errors.push(format!("{path}: no value is allowed here"));
            return;
        }
        Value::Object(s) => s,
        _ => return,
    };
    if let Some(Value::String(r)) = s.get("$ref") {
        match resolve_ref(root, r) {
            Some(target) => check(root, target, v, path, depth + 1, errors),
            None => errors.push(format!("{path}: unresolvable $ref {r}")),
        }
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_matches(t, v) => {
            errors.push(format!("{path}: expected {t}, got {}", type_of(v)));
            return;
        }
        Some(Value::Array(ts)) if !ts.iter().filter_map(Value::as_str).any(|t| type_matches(t, v)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            errors.push(format!("{path}: expected {}, got {}", names.join(" or "), type_of(v)));
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(v)
    {
        errors.push(format!("{path}: {v} is not one of {}", Value::Array(options.clone())));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        errors.push(format!("{path}: must be {c}"));
    }
    check_combinators(root, s, v, path, depth, errors);
    match v {
        Value::Object(obj) => {
            if let Some(Value::Array(req)) = s.get("required") {
                for k in req.iter().filter_map(Value::as_str) {
                    if !obj.contains_key(k) {
                        errors.push(format!("{path}: missing required property `{k}`"));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (k, item) in obj {
                let sub = format!("{path}.{k}");
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => check(root, ps, item, &sub, depth + 1, errors),
                    None => match s.get("additionalProperties") {
                        Some(Value::Bool(false)) => errors.push(format!("{path}: unexpected property `{k}`")),
                        Some(ap @ Value::Object(_)) => check(root, ap, item, &sub, depth + 1, errors),
                        _ => {}
                    },
                }
            }
        }
        Value::Array(items) => {
            let n = items.len() as u64;
            if let Some(min) = s.get("minItems").and_then(Value::as_u64)
                && n < min
            {
                errors.push(format!("{path}: needs at least {min} items, has {n}"));
            }
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
                && n > max
            {
                errors.push(format!("{path}: allows at most {max} items, has {n}"));
            }
            match s.get("items").or_else(|| s.get("prefixItems")) {
                Some(Value::Array(tuple)) => {
                    for (i, (item, is)) in items.iter().zip(tuple).enumerate() {
                        check(root, is, item, &format!("{path}[{i}]"), depth + 1, errors);
                    }
                }
                Some(is) => {
                    for (i, item) in items.iter().enumerate() {
                        check(root, is, item, &format!("{path}[{i}]"), depth + 1, errors);
                    }
                }
                None => {}
            }
        }
        Value::String(text) => {
            let n = text.chars().count() as u64;
            if let Some(min) = s.get("minLength").and_then(Value::as_u64)
                && n < min
            {
                errors.push(format!("{path}: needs at least {min} character(s)"));
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
                && n > max
            {
                errors.push(format!("{path}: allows at most {max} character(s)"));
            }
        }
        Value::Number(num) => check_number(s, num.as_f64().unwrap_or(0.0), path, errors),
        _ => {}
    }
}

fn check_combinators(
    root: &Value,
    s: &serde_json::Map<String, Value>,
    v: &Value,
    path: &str,
    depth: usize,
    errors: &mut Vec<String>,
) {
    let passes = |sub: &Value| {
        let mut e = Vec::new();
        check(root, sub, v, path, depth + 1, &mut e);
        e
    };
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            errors.extend(passes(sub));
        }
    }
    if let Some(Value::Array(any)) = s.get("anyOf") {
        let results: Vec<Vec<String>> = any.iter().map(passes).collect();
        if !results.iter().any(Vec::is_empty) {
            let first = results.iter().flatten().next().cloned().unwrap_or_default();
            errors.push(format!("{path}: matches none of the anyOf choices ({first})"));
        }
    }
    if let Some(Value::Array(one)) = s.get("oneOf") {
        let ok = one.iter().filter(|sub| passes(sub).is_empty()).count();
        if ok != 1 {
            errors.push(format!("{path}: matches {ok} of the oneOf choices, not exactly one"));
        }
    }
    if let Some(not) = s.get("not")
        && passes(not).is_empty()
    {
        errors.push(format!("{path}: matches a schema it must not match"));
    }
}

fn check_number(s: &serde_json::Map<String, Value>, x: f64, path: &str, errors: &mut Vec<String>) {
    let bound = |k: &str| s.get(k).and_then(Value::as_f64);
    if let Some(m) = bound("minimum")
        && x < m
    {
        errors.push(format!("{path}: {x} is below the minimum {m}"));
    }
    if let Some(m) = bound("maximum")
        && x > m
    {
        errors.push(format!("{path}: {x} is above the maximum {m}"));
    }
    if let Some(m) = bound("exclusiveMinimum")
        && x <= m
    {
        errors.push(format!("{path}: {x} must be above {m}"));
    }
    if let Some(m) = bound("exclusiveMaximum")
        && x >= m
    {
        errors.push(format!("{path}: {x} must be below {m}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_types_and_refs() {
        let schema = json!({
            "type": "object",
            "properties": {
                "sign": {"type": "string", "minLength": 2},
                "n": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
                "mode": {"enum": ["a", "b"]},
                "x": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["sign"],
            "additionalProperties": false,
            "$defs": {"tag": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]}}
        });
        assert!(
            validate(
                &schema,
                &json!({"sign": "WZPZ", "n": 2, "tags": [{"k": "v"}], "x": null})
            )
            .is_empty()
        );
        let e = validate(
            &schema,
            &json!({"n": 0.5, "tags": [{}], "mode": "c", "extra": 1, "x": 3}),
        );
        let text = e.join("\n");
        for want in [
            "missing required property `sign`",
            "$.n: expected integer",
            "$.tags[0]: missing required property `k`",
            "is not one of",
            "unexpected property `extra`",
            "anyOf",
        ] {
            assert!(text.contains(want), "{want} not in:\n{text}");
        }
        assert!(validate(&json!({"type": "number"}), &json!(3)).is_empty());
        assert_eq!(
            validate(&json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}), &json!(3)).len(),
            1
        );
        assert_eq!(
            validate(
                &json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}),
                &json!(1)
            )
            .len(),
            1
        );
    }
}
