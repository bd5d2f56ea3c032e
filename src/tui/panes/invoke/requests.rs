//! The Invoke pane's asynchronous requests: what InvokeEndpointAsync accepted this session, each
//! with its inference id, when it was sent, its state as last seen (queued until its output or
//! failure object appears, expired when its time to live passed first) and that object's
//! location and content (control characters escaped) once it is there. The pane only records
//! what the background polling reports; nothing here waits.

use crate::aws::invoke::asynchronous::{AsyncAccepted, AsyncOutcome};
use crate::format::{body_text, escape_text};

/// Where an asynchronous request is, as last seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsyncRequestState {
    /// Accepted; neither its output nor its failure object has appeared yet.
    Queued,
    /// Its output object appeared.
    Succeeded,
    /// Its failure object appeared.
    Failed,
    /// It expired in the queue (its failure object says so), or its time to live passed
    /// before either object appeared.
    Expired,
}

impl AsyncRequestState {
    /// The word the list shows.
    pub fn label(self) -> &'static str {
        match self {
            AsyncRequestState::Queued => "queued",
            AsyncRequestState::Succeeded => "succeeded",
            AsyncRequestState::Failed => "failed",
            AsyncRequestState::Expired => "expired",
        }
    }

    /// Whether the request is over (polling stops, Enter shows its result).
    pub fn finished(self) -> bool {
        self != AsyncRequestState::Queued
    }
}

/// One asynchronous request sent from the pane.
#[derive(Debug, Clone, PartialEq)]
pub struct AsyncRequest {
    /// What InvokeEndpointAsync answered.
    pub accepted: AsyncAccepted,
    /// When it was sent (epoch seconds).
    pub sent_at: f64,
    /// Its state as last seen.
    pub state: AsyncRequestState,
    /// The output or failure object's content, escaped, once it appeared.
    pub result_text: Option<String>,
}

impl AsyncRequest {
    /// The location that matters now: the failure object's for a failed request or one whose
    /// failure object says it expired, else the output's.
    pub fn location(&self) -> Option<&str> {
        match self.state {
            AsyncRequestState::Failed => self.accepted.failure_location.as_deref(),
            AsyncRequestState::Expired if self.result_text.is_some() => self.accepted.failure_location.as_deref(),
            _ => self.accepted.output_location.as_deref(),
        }
    }
}

/// The session's asynchronous requests, oldest first.
#[derive(Debug, Default)]
pub struct AsyncRequests {
    list: Vec<AsyncRequest>,
}

impl AsyncRequests {
    /// Every request, oldest first.
    pub fn all(&self) -> &[AsyncRequest] {
        &self.list
    }

    /// Records a request InvokeEndpointAsync accepted, queued.
    pub fn accepted(&mut self, accepted: AsyncAccepted, sent_at: f64) {
        self.list.push(AsyncRequest {
            accepted,
            sent_at,
            state: AsyncRequestState::Queued,
            result_text: None,
        });
    }

    /// Records how a request ended (a report for an unknown or finished one changes nothing).
    pub fn settled(&mut self, inference_id: &str, outcome: &AsyncOutcome) {
        let Some(request) = self.queued_mut(inference_id) else {
            return;
        };
        request.state = match outcome {
            AsyncOutcome::Succeeded { .. } => AsyncRequestState::Succeeded,
            AsyncOutcome::Failed { .. } => AsyncRequestState::Failed,
            AsyncOutcome::Expired { .. } => AsyncRequestState::Expired,
        };
        let content_type = match outcome {
            AsyncOutcome::Succeeded { content_type, .. } => content_type.as_deref(),
            AsyncOutcome::Failed { .. } | AsyncOutcome::Expired { .. } => None,
        };
        let text = body_text(content_type, outcome.body());
        request.result_text = Some(escape_text(&text).into_owned());
    }

    /// Records that a request's time to live passed with nothing written.
    pub fn expired(&mut self, inference_id: &str) {
        if let Some(request) = self.queued_mut(inference_id) {
            request.state = AsyncRequestState::Expired;
        }
    }

    /// Records that a request could not be followed (its objects could not be read): it stays
    /// queued, with why in place of a result.
    pub fn unfollowed(&mut self, inference_id: &str, why: &str) {
        if let Some(request) = self.queued_mut(inference_id) {
            request.result_text = Some(format!("not followed: {}", escape_text(why)));
        }
    }

    /// Ids of the requests still to poll.
    pub fn queued_ids(&self) -> impl Iterator<Item = &str> {
        self.list
            .iter()
            .filter(|r| !r.state.finished())
            .map(|r| r.accepted.inference_id.as_str())
    }

    fn queued_mut(&mut self, inference_id: &str) -> Option<&mut AsyncRequest> {
        self.list
            .iter_mut()
            .find(|r| r.accepted.inference_id == inference_id && !r.state.finished())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(id: &str) -> AsyncAccepted {
        AsyncAccepted {
            endpoint: "queue".into(),
            inference_id: id.into(),
            output_location: Some(format!("s3://b/out/{id}.out")),
            failure_location: Some(format!("s3://b/fail/{id}.out")),
            uploaded_input: None,
        }
    }

    #[test]
    fn requests_go_from_queued_to_what_their_objects_say() {
        let mut requests = AsyncRequests::default();
        requests.accepted(accepted("a"), 1.0);
        requests.accepted(accepted("b"), 2.0);
        requests.accepted(accepted("c"), 3.0);
        let failed = AsyncOutcome::Failed {
            location: "s3://b/fail/b.out".into(),
            body: b"boom\x1b[31m".to_vec(),
        };
        requests.settled("b", &failed);
        requests.accepted(accepted("d"), 4.0);
        let expired = AsyncOutcome::Expired {
            location: "s3://b/fail/d.out".into(),
            body: b"Request expired in the queue".to_vec(),
        };
        requests.settled("d", &expired);
        requests.expired("c");
        // A late report on a finished request changes nothing.
        requests.settled("c", &failed);
        let states: Vec<_> = requests.all().iter().map(|r| r.state.label()).collect();
        assert_eq!(states, ["queued", "failed", "expired", "expired"]);
        assert_eq!(requests.all()[3].location(), Some("s3://b/fail/d.out"));
        assert_eq!(requests.all()[2].location(), Some("s3://b/out/c.out"));
        assert_eq!(requests.queued_ids().collect::<Vec<_>>(), ["a"]);
        let b = &requests.all()[1];
        assert_eq!(b.location(), Some("s3://b/fail/b.out"));
        let text = b.result_text.as_deref().unwrap();
        assert!(text.starts_with("boom") && !text.contains('\x1b'), "{text}");
    }
}
