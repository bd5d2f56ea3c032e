//! The schema side of the form: `$ref` and `allOf` resolution, the editor kind of a schema, the
//! labels of `anyOf`/`oneOf` options.

use serde_json::{Map, Value};

use super::Kind;

/// Follows `$ref` (to `#/...` pointers) and merges `allOf` members, keeping the referring
/// schema's own keywords (description, default) over the target's.
pub fn resolve(root: &Value, schema: &Value) -> Value {
    let mut s = schema.clone();
    for _ in 0..32 {
        let Some(r) = s.get("$ref").and_then(Value::as_str).map(str::to_string) else {
            break;
        };
        let target = crate::mcp::schema::resolve_ref(root, &r)
            .cloned()
            .unwrap_or(Value::Bool(true));
        let mut merged = match target {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if let Value::Object(own) = &s {
            for (k, v) in own {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        s = Value::Object(merged);
    }
    if let Some(Value::Array(all)) = s.get("allOf").cloned()
        && let Value::Object(out) = &mut s
    {
        out.remove("allOf");
        for member in all {
            if let Value::Object(m) = resolve(root, &member) {
                for (k, v) in m {
                    match (k.as_str(), out.get_mut(&k)) {
                        ("properties", Some(Value::Object(p))) => {
                            if let Value::Object(add) = v {
                                p.extend(add);
                            }
                        }
                        ("required", Some(Value::Array(r))) => {
                            if let Value::Array(add) = v {
                                r.extend(add);
                            }
                        }
                        (_, Some(_)) => {}
                        (_, None) => {
                            out.insert(k, v);
                        }
                    }
                }
            }
        }
    }
    s
}

pub(super) fn is_null_schema(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("null")
}

/// The label of a choice option: its title, const, `$ref` name or type.
pub(super) fn option_label(root: &Value, option: &Value, i: usize) -> String {
    if let Some(t) = option.get("title").and_then(Value::as_str) {
        return t.to_string();
    }
    if let Some(r) = option.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or(r).to_string();
    }
    let r = resolve(root, option);
    if let Some(t) = r.get("title").and_then(Value::as_str) {
        return t.to_string();
    }
    if let Some(c) = r.get("const") {
        return c.to_string();
    }
    match r.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None => format!("option {}", i + 1),
    }
}

pub(super) fn kind_of(s: &Value) -> Kind {
    if let Some(Value::Array(values)) = s.get("enum") {
        return Kind::Enum(values.clone());
    }
    if let Some(c) = s.get("const") {
        return Kind::Enum(vec![c.clone()]);
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    match ty {
        Some("string") => Kind::Text,
        Some("number") => Kind::Number,
        Some("integer") => Kind::Integer,
        Some("boolean") => Kind::Bool,
        Some("object") => Kind::Object,
        Some("array") => Kind::Array,
        None if s.get("properties").is_some() => Kind::Object,
        None if s.get("items").is_some() => Kind::Array,
        _ => Kind::Json,
    }
}
