//! Input requests by retry (2026-07-28, SEP-2322): a server may answer a call with
//! `resultType: "input_required"` — elicitations, sampling requests or a roots listing it needs
//! first, and an opaque `requestState` — instead of a result. Each request is answered where a
//! server-to-client request would have been (elicitation: the connection's elicitor, the
//! console's dialog, the terminal's prompt or `--elicit FILE`; sampling: `--sampling-llm`, or
//! refused saying how to enable it; roots: none), and the call is sent again with the answers
//! (`inputResponses`) and the state echoed. rmcp 3.11 drives these rounds only in its
//! `RunningService::call_tool`, which sagedeck cannot use (its calls restart their timeout on
//! progress and follow tasks), so the rounds are driven here through `call_tool_once`'s answer
//! types.

use rmcp::model::{InputRequest, InputRequests, InputRequiredResult, InputResponses};
use serde_json::{Value, json};

use super::call::CallError;
use super::client::McpConnection;
use super::events::LogSource;

/// How many `input_required` answers one call may get before it gives up (rmcp's default).
pub const MAX_INPUT_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// What one `input_required` answer asks: each request's key and kind (`elicitation`,
/// `sampling`, `roots`).
pub fn kinds(requests: &InputRequests) -> Vec<(String, &'static str)> {
    requests
        .iter()
        .map(|(key, r)| {
            let kind = match r {
                InputRequest::CreateMessage(_) => "sampling",
                InputRequest::Elicitation(_) => "elicitation",
                InputRequest::ListRoots(_) => "roots",
                _ => "unknown",
            };
            (key.clone(), kind)
        })
        .collect()
}

impl McpConnection {
    /// Answers the input requests of `asked` (one at a time: a person answers them) and returns
    /// what the retry carries: the answers, and the request state echoed verbatim.
    pub(crate) async fn answer_input(
        &self,
        tool: &str,
        asked: InputRequiredResult,
    ) -> Result<(Option<InputResponses>, Option<String>), CallError> {
        let requests = asked.input_requests.unwrap_or_default();
        if requests.is_empty() && asked.request_state.is_none() {
            return Err(CallError::Other(format!(
                "{tool}: the server answered input_required with neither input requests nor a request state"
            )));
        }
        let listed: Vec<String> = kinds(&requests).iter().map(|(k, kind)| format!("{kind} {k}")).collect();
        self.shared.log.push(
            LogSource::Client,
            format!(
                "{tool}: input_required ({}); answering, then calling again",
                listed.join(", ")
            ),
        );
        let responses = self.answer_requests(requests).await?;
        Ok(((!responses.is_empty()).then_some(responses), asked.request_state))
    }

    /// Answers each request of `requests` (also a task's outstanding input requests).
    pub(crate) async fn answer_requests(&self, requests: InputRequests) -> Result<InputResponses, CallError> {
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let answer = match request {
                InputRequest::Elicitation(r) => to_value(self.shared.elicit(r.params).await)?,
                InputRequest::CreateMessage(r) => match self.shared.sample(&r.params).await {
                    Ok(m) => to_value(m)?,
                    Err(e) => {
                        return Err(CallError::JsonRpc {
                            code: e.code.0,
                            message: format!("the server asked for a completion: {}", e.message),
                            data: e.data,
                        });
                    }
                },
                InputRequest::ListRoots(_) => json!({"roots": []}),
                _ => {
                    return Err(CallError::Other(format!(
                        "input request {key}: a kind sagedeck does not know"
                    )));
                }
            };
            responses.insert(key, answer);
        }
        Ok(responses)
    }
}

fn to_value(v: impl serde::Serialize) -> Result<Value, CallError> {
    serde_json::to_value(v).map_err(|e| CallError::Other(format!("cannot encode an input response: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_input_request_is_named_by_its_kind() {
        let requests: InputRequests = serde_json::from_value(json!({
            "a": {"method": "elicitation/create", "params": {"mode": "form", "message": "m",
                "requestedSchema": {"type": "object", "properties": {}}}},
            "b": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}},
            "c": {"method": "roots/list"}
        }))
        .unwrap();
        let named = kinds(&requests);
        assert_eq!(
            named,
            [
                ("a".into(), "elicitation"),
                ("b".into(), "sampling"),
                ("c".into(), "roots")
            ]
        );
    }
}
