//! The `--tools FILE.toml` of `sagedeck mcp serve`: each tool names a SageMaker endpoint, its
//! content type (json, csv, binary as base64) and accept, an input schema, how the arguments
//! become the request body (default: the seeds' `{"inputs": ..., "parameters": {...}}`), and how
//! the answer is picked from the response (JSON pointers such as `/0/label`), with optional
//! `target_model` / `target_variant` arguments, and a fixed `inference_component` for an endpoint
//! that hosts components. See `demo_tools.toml` for every form.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::payload::parse_response;
use crate::aws::RetryPolicy;
use crate::aws::invoke::call::{InvokeSpec, is_json};

/// The demo tools over the sandbox fleet (`sagedeck mcp serve --demo-tools`).
pub const DEMO_TOOLS: &str = include_str!("demo_tools.toml");

/// A whole tools file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsConfig {
    /// Server identity.
    #[serde(default)]
    pub server: ServerSection,
    /// Retry policy of every tool (each tool may override it).
    #[serde(default)]
    pub retry: RetrySection,
    /// The tools.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
}

/// `[server]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Name announced in the handshake (default `sagedeck`).
    pub name: Option<String>,
    /// Instructions announced in the handshake.
    pub instructions: Option<String>,
}

/// `[retry]`: the fleet layer's retry policy, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrySection {
    /// Attempts at most (1 = no retry).
    pub max_attempts: Option<u32>,
    /// First backoff ceiling.
    pub base_ms: Option<u64>,
    /// Largest backoff ceiling.
    pub cap_ms: Option<u64>,
    /// No attempt starts after this much time.
    pub deadline_ms: Option<u64>,
}

impl RetrySection {
    /// This section over `base`: fields set here win.
    pub fn policy(&self, base: RetryPolicy) -> RetryPolicy {
        let ms = std::time::Duration::from_millis;
        RetryPolicy {
            max_attempts: self.max_attempts.unwrap_or(base.max_attempts).max(1),
            base: self.base_ms.map(ms).unwrap_or(base.base),
            cap: self.cap_ms.map(ms).unwrap_or(base.cap),
            deadline: self.deadline_ms.map(ms).unwrap_or(base.deadline),
        }
    }
}

/// How arguments become the body.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadSpec {
    /// `inputs` (default for json), `arguments` (the arguments object as is), `template`,
    /// `csv` (default for csv), `base64` (default for binary).
    pub kind: Option<String>,
    /// `inputs`: the argument that becomes `"inputs"` (default: the schema's first required
    /// property).
    pub inputs: Option<String>,
    /// `inputs`: fixed `"parameters"`.
    pub parameters: Option<Map<String, Value>>,
    /// `inputs`: arguments copied into `"parameters"` when given.
    #[serde(default)]
    pub parameter_arguments: Vec<String>,
    /// `template`: a JSON value whose strings `"${arg}"` are replaced by the argument's value.
    pub template: Option<Value>,
    /// `csv`: arguments in column order (one row).
    #[serde(default)]
    pub columns: Vec<String>,
    /// `csv`: an argument holding one row (array) or rows (array of arrays).
    pub rows_argument: Option<String>,
    /// `base64`: the argument holding the base64 body.
    pub data_argument: Option<String>,
}

/// One tool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// Human title.
    pub title: Option<String>,
    /// Description shown to the model.
    pub description: String,
    /// SageMaker endpoint.
    pub endpoint: String,
    /// `json`, `csv`, `binary`, or a MIME type.
    #[serde(default = "default_ct")]
    pub content_type: String,
    /// Accept header.
    pub accept: Option<String>,
    /// Input schema (a JSON Schema object; default: one required string, `inputs`).
    pub input_schema: Option<Map<String, Value>>,
    /// How arguments become the body.
    #[serde(default)]
    pub payload: PayloadSpec,
    /// Output field → JSON pointer into the response (default: the whole response as
    /// `response`).
    #[serde(default)]
    pub answer: BTreeMap<String, String>,
    /// Fixed MME target model.
    pub target_model: Option<String>,
    /// Expose a `target_model` argument (the fixed one is its default).
    #[serde(default)]
    pub target_model_argument: bool,
    /// Fixed target variant.
    pub target_variant: Option<String>,
    /// Expose a `target_variant` argument.
    #[serde(default)]
    pub target_variant_argument: bool,
    /// The inference component to call, on an endpoint that hosts components.
    pub inference_component: Option<String>,
    /// Retry policy overrides.
    pub retry: Option<RetrySection>,
    /// Read-only hint (default true: inference changes nothing).
    pub read_only: Option<bool>,
    /// Call the endpoint with InvokeEndpointAsync and serve the tool as a task tool (default:
    /// whether DescribeEndpoint shows an asynchronous endpoint when `mcp serve` starts).
    pub asynchronous: Option<bool>,
    /// After the endpoint answers, ask the client's model for a completion (sampling).
    pub sampling: Option<SamplingSpec>,
    /// Before invoking, ask the client for an argument the call left out (elicitation).
    pub ask: Option<AskSpec>,
}

/// `ask`: an argument a call may leave out, asked of the client (elicitation) before invoking.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskSpec {
    /// The argument asked for.
    pub argument: String,
    /// Why the server asks, shown to the person.
    pub message: String,
    /// The field's description in the form.
    pub description: Option<String>,
    /// The values the person chooses among.
    pub choices: Vec<String>,
}

/// `[tools.sampling]`: what a tool asks its client's model once the endpoint has answered.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplingSpec {
    /// The user message; `${name}` is an argument's or an answer field's value.
    pub prompt: String,
    /// A system prompt.
    pub system_prompt: Option<String>,
    /// Tokens the answer may take (default 128).
    pub max_tokens: Option<u32>,
    /// The result field the answer goes to (default `completion`).
    pub field: Option<String>,
}

impl SamplingSpec {
    /// The result field the answer goes to.
    pub fn field(&self) -> String {
        self.field.clone().unwrap_or_else(|| "completion".into())
    }
}

fn default_ct() -> String {
    "json".into()
}

impl ToolsConfig {
    /// Parses and checks a tools file.
    pub fn parse(text: &str) -> Result<ToolsConfig, String> {
        let c: ToolsConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut seen = std::collections::HashSet::new();
        for t in &c.tools {
            if t.name.is_empty() || !seen.insert(t.name.clone()) {
                return Err(format!("tool names must be unique and non-empty (`{}`)", t.name));
            }
            if t.endpoint.is_empty() {
                return Err(format!("tool `{}` needs an endpoint", t.name));
            }
            let kind = t.payload_kind();
            if !["inputs", "arguments", "template", "csv", "base64"].contains(&kind.as_str()) {
                return Err(format!("tool `{}`: unknown payload kind `{kind}`", t.name));
            }
            if kind == "template" && t.payload.template.is_none() {
                return Err(format!("tool `{}`: payload kind template needs `template`", t.name));
            }
            if let Some(a) = &t.ask
                && (a.argument.is_empty() || a.choices.is_empty())
            {
                return Err(format!("tool `{}`: ask needs an argument and choices", t.name));
            }
            for (field, ptr) in &t.answer {
                if !ptr.is_empty() && !ptr.starts_with('/') {
                    return Err(format!(
                        "tool `{}`: answer.{field} `{ptr}` is not a JSON pointer",
                        t.name
                    ));
                }
            }
        }
        if c.tools.is_empty() {
            return Err("no [[tools]] defined".into());
        }
        Ok(c)
    }

    /// Reads a tools file.
    pub fn load(path: &std::path::Path) -> Result<ToolsConfig, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        ToolsConfig::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The embedded demo tools.
    pub fn demo() -> ToolsConfig {
        // The embedded file is checked by a unit test; an empty config is never served.
        ToolsConfig::parse(DEMO_TOOLS).unwrap_or(ToolsConfig {
            server: ServerSection::default(),
            retry: RetrySection::default(),
            tools: Vec::new(),
        })
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }
}

impl ToolSpec {
    /// The Content-Type sent.
    pub fn mime(&self) -> String {
        match self.content_type.as_str() {
            "json" => "application/json".into(),
            "csv" => "text/csv".into(),
            "binary" => "application/octet-stream".into(),
            other => other.to_string(),
        }
    }

    /// The payload kind in effect.
    pub fn payload_kind(&self) -> String {
        if let Some(k) = &self.payload.kind {
            return k.clone();
        }
        match self.content_type.as_str() {
            "csv" | "text/csv" => "csv".into(),
            "json" => "inputs".into(),
            ct if is_json(ct) => "inputs".into(),
            _ => "base64".into(),
        }
    }

    /// The argument that becomes `"inputs"` (or holds the CSV rows / base64 data by default).
    pub(super) fn inputs_arg(&self) -> String {
        if let Some(a) = &self.payload.inputs {
            return a.clone();
        }
        self.input_schema
            .as_ref()
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(Value::as_str)
            .unwrap_or("inputs")
            .to_string()
    }

    /// The input schema announced, with `target_model` / `target_variant` added when exposed.
    pub fn input_schema(&self) -> Map<String, Value> {
        let mut s = self.input_schema.clone().unwrap_or_else(|| {
            let arg = self.inputs_arg();
            let mut m = Map::new();
            m.insert("type".into(), json!("object"));
            m.insert("properties".into(), json!({ arg.clone(): {"type": "string"} }));
            m.insert("required".into(), json!([arg]));
            m
        });
        s.entry("type").or_insert(json!("object"));
        let mut add = |name: &str, text: String| {
            if let Some(Value::Object(props)) = s.get_mut("properties") {
                props
                    .entry(name)
                    .or_insert(json!({"type": "string", "description": text}));
            } else {
                s.insert(
                    "properties".into(),
                    json!({ name: {"type": "string", "description": text} }),
                );
            }
        };
        if self.target_model_argument {
            let d = self
                .target_model
                .as_deref()
                .map(|m| format!(" (default {m})"))
                .unwrap_or_default();
            add(
                "target_model",
                format!("Multi-model endpoint model key, relative to the model data prefix{d}"),
            );
        }
        if self.target_variant_argument {
            add(
                "target_variant",
                "Production variant to invoke, bypassing the traffic weights".into(),
            );
        }
        s
    }

    /// The output schema announced: the answer fields and the `sagemaker` block.
    pub fn output_schema(&self) -> Map<String, Value> {
        let mut props = Map::new();
        if self.answer.is_empty() {
            props.insert("response".into(), json!({}));
        }
        for field in self.answer.keys() {
            props.insert(field.clone(), json!({}));
        }
        if let Some(s) = &self.sampling {
            props.insert(s.field(), json!({"type": ["string", "null"]}));
        }
        props.insert(
            "sagemaker".into(),
            json!({
                "type": "object",
                "properties": {
                    "endpoint": {"type": "string"},
                    "invoked_variant": {"type": ["string", "null"]},
                    "target_model": {"type": ["string", "null"]},
                    "inference_component": {"type": ["string", "null"]},
                    "attempts": {"type": "integer", "minimum": 1},
                    "latency_ms": {"type": "number"},
                    "total_ms": {"type": "number"},
                    "retried": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["endpoint", "attempts"]
            }),
        );
        let mut s = Map::new();
        s.insert("type".into(), json!("object"));
        s.insert("properties".into(), Value::Object(props));
        s.insert("required".into(), json!(["sagemaker"]));
        s
    }

    /// The request for these arguments once they match the input schema; else what is wrong,
    /// as the model is told (`invalid arguments: ...`).
    pub fn checked_request(&self, args: &Map<String, Value>) -> Result<InvokeSpec, String> {
        let errors = super::schema::validate(&Value::Object(self.input_schema()), &Value::Object(args.clone()));
        if !errors.is_empty() {
            return Err(format!("invalid arguments: {}", errors.join("; ")));
        }
        self.request(args).map_err(|e| format!("invalid arguments: {e}"))
    }

    /// The InvokeEndpoint request for these arguments.
    pub fn request(&self, args: &Map<String, Value>) -> Result<InvokeSpec, String> {
        let pick = |name: &str, exposed: bool, fixed: &Option<String>| {
            exposed
                .then(|| args.get(name).and_then(Value::as_str).map(str::to_string))
                .flatten()
                .or_else(|| fixed.clone())
        };
        Ok(InvokeSpec {
            endpoint: self.endpoint.clone(),
            body: self.body(args)?,
            content_type: self.mime(),
            accept: self.accept.clone(),
            target_variant: pick("target_variant", self.target_variant_argument, &self.target_variant),
            target_model: pick("target_model", self.target_model_argument, &self.target_model),
            inference_component: self.inference_component.clone(),
            ..Default::default()
        })
    }

    /// The answer fields picked from a response body.
    pub fn answer(&self, content_type: Option<&str>, body: &[u8]) -> Result<Map<String, Value>, String> {
        let response = parse_response(content_type, body);
        let mut out = Map::new();
        if self.answer.is_empty() {
            out.insert("response".into(), response);
            return Ok(out);
        }
        for (field, ptr) in &self.answer {
            let v = response.pointer(ptr).cloned().ok_or_else(|| {
                let mut shown = response.to_string();
                shown.truncate(300);
                format!("the response has nothing at {ptr} (for `{field}`): {shown}")
            })?;
            out.insert(field.clone(), v);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn demo_tools_parse_and_build_requests() {
        let c = ToolsConfig::parse(DEMO_TOOLS).unwrap();
        let names: Vec<_> = c.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "classify_intent",
                "generate_text",
                "score_churn",
                "tenant_classify",
                "explain_intent",
                "summarize_async",
                "classify_on_variant"
            ]
        );
        let ci = c.tool("classify_intent").unwrap();
        let r = ci.request(&args(json!({"user_input": "refund please"}))).unwrap();
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            body,
            json!({"inputs": "refund please", "parameters": {"max_length": 128, "return_all_scores": true}})
        );
        let picked = ci
            .answer(Some("application/json"), br#"[{"label": "billing", "score": 0.9}]"#)
            .unwrap();
        assert_eq!(Value::Object(picked), json!({"intent": "billing", "score": 0.9}));
        let churn = c.tool("score_churn").unwrap();
        let r = churn
            .request(&args(json!({"support_calls": 4, "tenure_years": 3, "late_payments": 1, "monthly_charges": 70.5, "has_fiber": 1})))
            .unwrap();
        assert_eq!(String::from_utf8(r.body).unwrap(), "4,3,1,70.5,1");
        assert_eq!(r.content_type, "text/csv");
        let picked = churn.answer(Some("text/csv"), b"0.734\n").unwrap();
        assert_eq!(picked["churn_probability"], json!(0.734));
        let tenant = c.tool("tenant_classify").unwrap();
        let r = tenant.request(&args(json!({"user_input": "hi"}))).unwrap();
        assert_eq!(r.target_model.as_deref(), Some("tenant-acme-finetuned-v2.tar.gz"));
        let r = tenant
            .request(&args(
                json!({"user_input": "hi", "target_model": "tenant-globex-finetuned-v1.tar.gz"}),
            ))
            .unwrap();
        assert_eq!(r.target_model.as_deref(), Some("tenant-globex-finetuned-v1.tar.gz"));
        assert!(tenant.input_schema()["properties"].get("target_model").is_some());
        assert!(ci.request(&args(json!({}))).unwrap_err().contains("user_input"));
    }

    #[test]
    fn other_payload_kinds() {
        let t: ToolsConfig = ToolsConfig::parse(
            r#"
            [[tools]]
            name = "t"
            description = "d"
            endpoint = "e"
            payload = { kind = "template", template = { text = "${q}", opts = { k = "${k}" }, fixed = "${" } }
            [[tools]]
            name = "b"
            description = "d"
            endpoint = "e"
            content_type = "binary"
            payload = { data_argument = "image" }
            "#,
        )
        .unwrap();
        let r = t.tools[0].request(&args(json!({"q": "x", "k": 3}))).unwrap();
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body, json!({"text": "x", "opts": {"k": 3}, "fixed": "${"}));
        let r = t.tools[1].request(&args(json!({"image": "/9j/4A=="}))).unwrap();
        assert_eq!(r.body, vec![0xFF, 0xD8, 0xFF, 0xE0]);
        assert_eq!(r.content_type, "application/octet-stream");
        assert!(ToolsConfig::parse("[[tools]]\nname='x'\ndescription='d'\nendpoint='e'\nanswer={a='0/x'}").is_err());
    }
}
