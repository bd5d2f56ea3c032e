//! Elicitation: a server asking the person at sagedeck for input (`elicitation/create`), in
//! form mode (a flat JSON Schema of primitive fields) or URL mode (a page to visit). A
//! connection hands each request to its [`Elicitor`] (the console's form, the CLI's terminal
//! prompt or its answers file) and waits for the answer; with no elicitor the request is
//! declined and the server's log says why. Accept, decline and cancel are answered as the
//! specification says: content only with accept, and only for a form.

use std::collections::VecDeque;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::schema;

/// What a server asks for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Elicitation {
    /// Fill in a form.
    Form {
        /// Why the server asks.
        message: String,
        /// The requested schema (an object of primitive properties).
        schema: Value,
    },
    /// Visit a page (out of band: the answer never carries what was entered there).
    Url {
        /// Why the server asks.
        message: String,
        /// The page.
        url: String,
        /// The request's id (empty on 2026-07-28).
        id: String,
    },
}

impl Elicitation {
    /// The server's message.
    pub fn message(&self) -> &str {
        match self {
            Elicitation::Form { message, .. } | Elicitation::Url { message, .. } => message,
        }
    }
}

/// The answer to an elicitation, as an answers file spells it:
/// `{"action": "accept", "content": {...}}`, `{"action": "decline"}`, `{"action": "cancel"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ElicitAnswer {
    /// The person gave the input (a form's content; nothing for a URL).
    Accept {
        /// The form's values.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Value>,
    },
    /// The person said no; the operation goes on without it.
    Decline,
    /// The person dismissed the request; the operation stops.
    Cancel,
}

impl ElicitAnswer {
    /// `accepted`, `declined`, `cancelled`.
    pub fn verb(&self) -> &'static str {
        match self {
            ElicitAnswer::Accept { .. } => "accepted",
            ElicitAnswer::Decline => "declined",
            ElicitAnswer::Cancel => "cancelled",
        }
    }
}

/// One request waiting for its answer; answered once (dropping it answers cancel).
#[derive(Debug)]
pub struct ElicitAsk {
    /// The server that asks (its registry name).
    pub server: String,
    /// What it asks.
    pub request: Elicitation,
    reply: oneshot::Sender<ElicitAnswer>,
}

impl ElicitAsk {
    /// Answers the request.
    pub fn answer(self, answer: ElicitAnswer) {
        let _ = self.reply.send(answer);
    }
}

/// Where a connection's elicitation requests go (cloned into every connection of a hub).
#[derive(Debug, Clone)]
pub struct Elicitor(mpsc::UnboundedSender<ElicitAsk>);

impl Elicitor {
    /// An elicitor and the receiving end that answers its requests.
    pub fn channel() -> (Elicitor, mpsc::UnboundedReceiver<ElicitAsk>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Elicitor(tx), rx)
    }

    /// Asks and waits; cancel when nobody is left to answer.
    pub async fn ask(&self, server: &str, request: Elicitation) -> ElicitAnswer {
        let (reply, answer) = oneshot::channel();
        let ask = ElicitAsk {
            server: server.to_string(),
            request,
            reply,
        };
        if self.0.send(ask).is_err() {
            return ElicitAnswer::Cancel;
        }
        answer.await.unwrap_or(ElicitAnswer::Cancel)
    }
}

/// The request as sagedeck shows it.
pub fn from_params(p: ElicitRequestParams) -> Elicitation {
    match p {
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => Elicitation::Url {
            message,
            url,
            id: elicitation_id,
        },
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Elicitation::Form {
            message,
            schema: serde_json::to_value(requested_schema).unwrap_or(Value::Null),
        },
        #[allow(unreachable_patterns)]
        _ => Elicitation::Form {
            message: "an elicitation of a kind this version does not know".into(),
            schema: Value::Null,
        },
    }
}

/// The answer on the wire: content only for an accepted form.
pub fn to_result(request: &Elicitation, answer: ElicitAnswer) -> ElicitResult {
    match (request, answer) {
        (Elicitation::Form { .. }, ElicitAnswer::Accept { content }) => {
            let content = content.unwrap_or_else(|| Value::Object(Default::default()));
            ElicitResult::new(ElicitationAction::Accept).with_content(content)
        }
        (Elicitation::Url { .. }, ElicitAnswer::Accept { .. }) => ElicitResult::new(ElicitationAction::Accept),
        (_, ElicitAnswer::Decline) => ElicitResult::new(ElicitationAction::Decline),
        (_, ElicitAnswer::Cancel) => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// What is wrong with an accepted answer to `request` (empty when it may be sent): a form's
/// content must be an object conforming to the requested schema.
pub fn problems(request: &Elicitation, answer: &ElicitAnswer) -> Vec<String> {
    match (request, answer) {
        (Elicitation::Form { schema, .. }, ElicitAnswer::Accept { content }) => match content {
            Some(v @ Value::Object(_)) => schema::validate(schema, v),
            Some(_) => vec!["the content must be a JSON object".into()],
            None => schema::validate(schema, &Value::Object(Default::default())),
        },
        _ => Vec::new(),
    }
}

/// Answers read from a file (`--elicit FILE.json`): one answer, or a list answered in order;
/// a request beyond the list is declined.
#[derive(Debug, Clone, Default)]
pub struct ScriptedAnswers(VecDeque<ElicitAnswer>);

impl ScriptedAnswers {
    /// Parses a file's text.
    pub fn parse(text: &str) -> Result<ScriptedAnswers, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let items = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        let answers = items
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                serde_json::from_value(v).map_err(|e| {
                    format!(
                        "answer {}: {e} (want {{\"action\": \"accept\"|\"decline\"|\"cancel\", \"content\": {{...}}}})",
                        i + 1
                    )
                })
            })
            .collect::<Result<VecDeque<_>, _>>()?;
        Ok(ScriptedAnswers(answers))
    }

    /// The next answer, if any is left.
    pub fn next_answer(&mut self) -> Option<ElicitAnswer> {
        self.0.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_follow_the_spec() {
        let form = Elicitation::Form {
            message: "m".into(),
            schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        };
        let url = Elicitation::Url {
            message: "m".into(),
            url: "https://x".into(),
            id: "1".into(),
        };
        let ok = ElicitAnswer::Accept {
            content: Some(json!({"n": 2})),
        };
        assert!(problems(&form, &ok).is_empty());
        let wire = serde_json::to_value(to_result(&form, ok)).unwrap();
        assert_eq!(wire, json!({"action": "accept", "content": {"n": 2}}));
        let bad = ElicitAnswer::Accept {
            content: Some(json!({"n": "two"})),
        };
        assert_eq!(problems(&form, &bad).len(), 1);
        let wire = serde_json::to_value(to_result(&url, ElicitAnswer::Accept { content: None })).unwrap();
        assert_eq!(wire, json!({"action": "accept"}), "a URL answer carries no content");
        let wire = serde_json::to_value(to_result(&form, ElicitAnswer::Decline)).unwrap();
        assert_eq!(wire, json!({"action": "decline"}));
    }

    #[test]
    fn scripted_answers_in_order() {
        let mut s = ScriptedAnswers::parse(r#"[{"action":"accept","content":{"a":1}},{"action":"cancel"}]"#).unwrap();
        assert_eq!(
            s.next_answer(),
            Some(ElicitAnswer::Accept {
                content: Some(json!({"a": 1}))
            })
        );
        assert_eq!(s.next_answer(), Some(ElicitAnswer::Cancel));
        assert_eq!(s.next_answer(), None);
        assert!(ScriptedAnswers::parse(r#"{"action":"maybe"}"#).is_err());
        assert!(ScriptedAnswers::parse(r#"{"action":"decline"}"#).is_ok());
    }
}
