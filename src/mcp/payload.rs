//! How a tool's arguments become the request body (`inputs`, `arguments`, `template`, `csv`,
//! `base64`), and how a response body becomes JSON for the answer pointers.

use base64::Engine;
use serde_json::{Map, Value, json};

use super::tools_config::ToolSpec;
use crate::aws::invoke::call::is_json;

fn arg_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn fill_template(t: &Value, args: &Map<String, Value>) -> Value {
    match t {
        Value::String(s) => match s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
            Some(name) if !name.contains(['{', '}', '$']) => args.get(name).cloned().unwrap_or(Value::Null),
            _ => Value::String(s.clone()),
        },
        Value::Array(a) => Value::Array(a.iter().map(|v| fill_template(v, args)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), fill_template(v, args))).collect()),
        other => other.clone(),
    }
}

impl ToolSpec {
    /// The request body for these arguments.
    pub(super) fn body(&self, args: &Map<String, Value>) -> Result<Vec<u8>, String> {
        let missing = |a: &str| format!("missing argument `{a}`");
        let body = match self.payload_kind().as_str() {
            "inputs" => {
                let arg = self.inputs_arg();
                let inputs = args.get(&arg).cloned().ok_or_else(|| missing(&arg))?;
                let mut params = self.payload.parameters.clone().unwrap_or_default();
                for p in &self.payload.parameter_arguments {
                    if let Some(v) = args.get(p) {
                        params.insert(p.clone(), v.clone());
                    }
                }
                let mut body = Map::new();
                body.insert("inputs".into(), inputs);
                if !params.is_empty() {
                    body.insert("parameters".into(), Value::Object(params));
                }
                serde_json::to_vec(&body)
            }
            "arguments" => {
                let mut a = args.clone();
                a.remove("target_model");
                a.remove("target_variant");
                serde_json::to_vec(&a)
            }
            "template" => serde_json::to_vec(&fill_template(
                self.payload.template.as_ref().unwrap_or(&Value::Null),
                args,
            )),
            "csv" => return self.csv_body(args),
            _ => {
                let arg = self.payload.data_argument.clone().unwrap_or_else(|| self.inputs_arg());
                let data = args.get(&arg).and_then(Value::as_str).ok_or_else(|| missing(&arg))?;
                return base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| format!("argument `{arg}` is not base64: {e}"));
            }
        };
        body.map_err(|e| e.to_string())
    }

    fn csv_body(&self, args: &Map<String, Value>) -> Result<Vec<u8>, String> {
        let row = |cells: &[Value]| cells.iter().map(arg_text).collect::<Vec<_>>().join(",");
        if !self.payload.columns.is_empty() {
            let cells = self
                .payload
                .columns
                .iter()
                .map(|c| args.get(c).cloned().ok_or_else(|| format!("missing argument `{c}`")))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(row(&cells).into_bytes());
        }
        let arg = self.payload.rows_argument.clone().unwrap_or_else(|| self.inputs_arg());
        match args.get(&arg) {
            Some(Value::Array(items)) if items.iter().all(Value::is_array) => Ok(items
                .iter()
                .map(|r| row(r.as_array().map(Vec::as_slice).unwrap_or(&[])))
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()),
            Some(Value::Array(items)) => Ok(row(items).into_bytes()),
            Some(Value::String(s)) => Ok(s.clone().into_bytes()),
            _ => Err(format!(
                "argument `{arg}` must be an array of values (a row) or of rows"
            )),
        }
    }
}

fn csv_cell(c: &str) -> Value {
    let c = c.trim();
    c.parse::<f64>()
        .ok()
        .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
        .unwrap_or_else(|| Value::String(c.to_string()))
}

/// A response body as JSON: parsed JSON, CSV as rows of cells (numbers where they parse), other
/// text as a string, binary as `{"base64": ...}`.
pub fn parse_response(content_type: Option<&str>, body: &[u8]) -> Value {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    if (ct.is_empty() || is_json(&ct))
        && let Ok(v) = serde_json::from_slice::<Value>(body)
    {
        return v;
    }
    match std::str::from_utf8(body) {
        Ok(text) if ct.starts_with("text/csv") => Value::Array(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| Value::Array(l.split(',').map(csv_cell).collect()))
                .collect(),
        ),
        Ok(text) => Value::String(text.to_string()),
        Err(_) => json!({ "base64": base64::engine::general_purpose::STANDARD.encode(body) }),
    }
}
