//! Tools that ask their client for a missing choice before they invoke: a tool whose spec has
//! `ask = { argument, message, choices }`, called without that argument, asks through
//! elicitation for one of the choices (a form of one field), then invokes with it. Declined or
//! cancelled, nothing is invoked and the result says which; a client that cannot be asked gets
//! the tool's error naming the argument and its choices. On 2025-11-25 and before the server
//! asks with `elicitation/create`; on 2026-07-28, which has no server-to-client requests, the
//! call answers `input_required` with the same request and is asked again with the answer.

use rmcp::model::{
    CallToolResult, ClientResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, ProtocolVersion, ServerRequest,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::tools_config::AskSpec;

/// The key of the elicitation in an `input_required` result and its answer.
pub const ASK_KEY: &str = "choice";

/// Where asking left a call.
#[derive(Debug)]
pub enum Asked {
    /// The arguments to invoke with (the choice among them).
    Ready(Map<String, Value>),
    /// Nothing is invoked: the result says why (declined, cancelled, nobody to ask).
    Stop(CallToolResult),
    /// 2026-07-28: the client is to ask and call again with the answer.
    Input(InputRequiredResult),
}

fn stop(text: String) -> Asked {
    Asked::Stop(CallToolResult::error(vec![ContentBlock::text(text)]))
}

/// The elicitation a tool sends: a form of one required field, `spec.argument`, one of the
/// choices.
pub fn request(spec: &AskSpec) -> Result<ElicitRequestParams, ErrorData> {
    let mut field = json!({"type": "string", "title": spec.argument, "enum": spec.choices});
    if let Some(d) = &spec.description {
        field["description"] = json!(d);
    }
    let params = json!({
        "mode": "form",
        "message": spec.message,
        "requestedSchema": {
            "type": "object",
            "properties": {spec.argument.clone(): field},
            "required": [spec.argument],
        },
    });
    serde_json::from_value(params).map_err(|e| ErrorData::internal_error(format!("the elicitation form: {e}"), None))
}

/// Reads the client's answer into where the call stands.
pub fn answered(spec: &AskSpec, tool: &str, mut args: Map<String, Value>, answer: ElicitResult) -> Asked {
    let choices = spec.choices.join(", ");
    match answer.action {
        ElicitationAction::Decline => stop(format!(
            "The user declined to choose {} (one of {choices}): {tool} invoked nothing.",
            spec.argument
        )),
        ElicitationAction::Accept => {
            let chosen = (answer.content.as_ref())
                .and_then(|c| c.get(&spec.argument))
                .and_then(Value::as_str)
                .filter(|c| spec.choices.iter().any(|x| x == c));
            match chosen {
                Some(c) => {
                    args.insert(spec.argument.clone(), json!(c));
                    Asked::Ready(args)
                }
                None => stop(format!(
                    "The answer holds no {} among {choices}: {tool} invoked nothing.",
                    spec.argument
                )),
            }
        }
        // Cancel, and any action a later revision adds: the person did not choose.
        _ => stop(format!(
            "The user dismissed the choice of {}: {tool} invoked nothing.",
            spec.argument
        )),
    }
}

/// The arguments of a call to `tool` once its missing choice is known: given by the call, in
/// the answer a 2026-07-28 client sends back (`responses`), or asked now.
pub async fn complete(
    spec: &AskSpec,
    tool: &str,
    args: Map<String, Value>,
    responses: Option<&InputResponses>,
    context: &RequestContext<RoleServer>,
) -> Result<Asked, ErrorData> {
    if args.get(&spec.argument).is_some_and(|v| !v.is_null()) {
        return Ok(Asked::Ready(args));
    }
    if let Some(answer) = responses.and_then(|r| r.get(ASK_KEY)) {
        let answer: ElicitResult = serde_json::from_value(answer.clone())
            .map_err(|e| ErrorData::invalid_params(format!("the answer to `{ASK_KEY}`: {e}"), None))?;
        return Ok(answered(spec, tool, args, answer));
    }
    if context.client_capabilities().is_none_or(|c| c.elicitation.is_none()) {
        return Ok(stop(format!(
            "Give {} (one of {}): {tool} asks for it when it is missing, and this client cannot be asked (it declares no elicitation).",
            spec.argument,
            spec.choices.join(", ")
        )));
    }
    let params = request(spec)?;
    if context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
    {
        let asks = InputRequests::from([(
            ASK_KEY.to_string(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        )]);
        return Ok(Asked::Input(InputRequiredResult::from_input_requests(asks)));
    }
    // `elicitation/create` (rmcp's helper sits behind a feature that pulls in schemars).
    let sent = context
        .peer
        .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)));
    match sent.await {
        Ok(ClientResult::ElicitResult(answer)) => Ok(answered(spec, tool, args, answer)),
        Ok(_) => Ok(stop(format!(
            "The client answered the question for {} with something else: {tool} invoked nothing.",
            spec.argument
        ))),
        Err(e) => Ok(stop(format!(
            "Asking for {} failed ({e}): {tool} invoked nothing.",
            spec.argument
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> AskSpec {
        AskSpec {
            argument: "target_variant".into(),
            message: "Which variant?".into(),
            description: None,
            choices: vec!["Stable".into(), "Canary".into()],
        }
    }

    fn answer(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        serde_json::from_value(json!({"action": action, "content": content})).unwrap()
    }

    #[test]
    fn the_form_asks_for_one_of_the_choices() {
        let p = serde_json::to_value(request(&spec()).unwrap()).unwrap();
        assert_eq!(p["mode"], "form");
        let s = &p["requestedSchema"];
        assert_eq!(s["properties"]["target_variant"]["enum"], json!(["Stable", "Canary"]));
        assert_eq!(s["required"], json!(["target_variant"]));
    }

    #[test]
    fn answers_become_arguments_or_a_stop() {
        let ok = answered(
            &spec(),
            "t",
            Map::new(),
            answer(ElicitationAction::Accept, Some(json!({"target_variant": "Canary"}))),
        );
        assert!(matches!(ok, Asked::Ready(a) if a["target_variant"] == "Canary"));
        let outside = answer(ElicitationAction::Accept, Some(json!({"target_variant": "Other"})));
        for (a, says) in [
            (outside, "no target_variant among"),
            (answer(ElicitationAction::Decline, None), "declined"),
            (answer(ElicitationAction::Cancel, None), "dismissed"),
        ] {
            let Asked::Stop(r) = answered(&spec(), "t", Map::new(), a) else {
                panic!("{says}: not a stop")
            };
            assert_eq!(r.is_error, Some(true));
            assert!(format!("{:?}", r.content).contains(says), "{says}: {:?}", r.content);
        }
    }
}
