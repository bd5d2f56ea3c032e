//! The other side of sampling: a tool of `sagedeck mcp serve` whose spec has a
//! `[tools.sampling]` section asks its client's model for a completion once the endpoint has
//! answered (the prompt filled from the arguments and the answer fields), and puts the text in
//! the result. A client that offers no sampling, or declines, leaves the field null with the
//! reason beside it (`sampling_declined`): the endpoint's answer stands either way.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, still in 2025-11-25 and served here

use rmcp::model::{CallToolResult, CreateMessageRequestParams, Role, SamplingMessage, SamplingMessageContentBlock};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::tools_config::SamplingSpec;

/// `template` with every `${name}` replaced by the value of `name` in `values` (strings as they
/// are, other values as JSON); unknown names stay as written.
pub fn fill(template: &str, values: &Map<String, Value>) -> String {
    let mut out = template.to_string();
    for (k, v) in values {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out = out.replace(&format!("${{{k}}}"), &text);
    }
    out
}

/// Adds the client's completion to a successful structured `result` (an error stays as it is).
pub async fn enrich(
    peer: &Peer<RoleServer>,
    spec: &SamplingSpec,
    args: &Map<String, Value>,
    mut result: CallToolResult,
) -> CallToolResult {
    if result.is_error == Some(true) {
        return result;
    }
    let Some(Value::Object(fields)) = result.structured_content.as_mut() else {
        return result;
    };
    let mut values = args.clone();
    values.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
    let outcome = match peer.peer_info().is_some_and(|i| i.capabilities.sampling.is_some()) {
        false => Err("the client offers no sampling".to_string()),
        true => ask(peer, spec, &values).await,
    };
    match outcome {
        Ok((text, model)) => {
            fields.insert(spec.field(), json!(text));
            fields.insert("sampled_by".into(), json!(model));
        }
        Err(why) => {
            fields.insert(spec.field(), Value::Null);
            fields.insert("sampling_declined".into(), json!(why));
        }
    }
    let text = serde_json::to_string(&result.structured_content).unwrap_or_default();
    result.content = vec![rmcp::model::ContentBlock::text(text)];
    result
}

async fn ask(
    peer: &Peer<RoleServer>,
    spec: &SamplingSpec,
    values: &Map<String, Value>,
) -> Result<(String, String), String> {
    let message = SamplingMessage::new(
        Role::User,
        SamplingMessageContentBlock::text(fill(&spec.prompt, values)),
    );
    let mut params = CreateMessageRequestParams::new(vec![message], spec.max_tokens.unwrap_or(128));
    params.system_prompt = spec.system_prompt.as_deref().map(|s| fill(s, values));
    match peer.create_message(params).await {
        Ok(r) => {
            let text = (r.message.content.into_vec().into_iter())
                .filter_map(|b| match b {
                    SamplingMessageContentBlock::Text(t) => Some(t.text),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n");
            Ok((text, r.model))
        }
        Err(ServiceError::McpError(e)) => Err(format!("{} ({})", e.message, e.code.0)),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_filled_from_arguments_and_answers() {
        let v = json!({"user_input": "refund please", "score": 0.9});
        let filled = fill("why ${user_input} scores ${score} (${none})", v.as_object().unwrap());
        assert_eq!(filled, "why refund please scores 0.9 (${none})");
    }
}
