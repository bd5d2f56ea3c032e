//! The queues of asynchronous endpoints: each request InvokeEndpointAsync accepted, waiting or
//! running, until its output or failure object is written (by `runtime/asynchronous/`).

use std::collections::{BTreeMap, VecDeque};

/// Where a request's input is.
#[derive(Debug, Clone)]
pub enum AsyncInput {
    /// The body sent inline.
    Inline(Vec<u8>),
    /// An object in the sandbox's S3: (bucket, key), read when the request starts.
    Location(String, String),
}

/// One accepted request.
#[derive(Debug, Clone)]
pub struct AsyncRequest {
    /// InferenceId (given or generated).
    pub inference_id: String,
    /// The input.
    pub input: AsyncInput,
    /// X-Amzn-SageMaker-Content-Type.
    pub content_type: String,
    /// X-Amzn-SageMaker-Accept.
    pub accept: Option<String>,
    /// When it was accepted.
    pub received: f64,
    /// Past this, still queued, it expires (RequestTTLSeconds).
    pub expires: f64,
    /// InvocationTimeoutSeconds.
    pub timeout_secs: f64,
    /// (bucket, key) of the output object.
    pub output: (String, String),
    /// (bucket, key) of the failure object, when the configuration has an S3FailurePath.
    pub failure: Option<(String, String)>,
}

/// A request being processed: its variant, when it started and ends, and what it ends with
/// (the output bytes, or the failure's message).
#[derive(Debug, Clone)]
pub struct Running {
    /// The request.
    pub request: AsyncRequest,
    /// The variant processing it.
    pub variant: String,
    /// When processing started.
    pub started: f64,
    /// When it ends.
    pub until: f64,
    /// The output, or the failure's message.
    pub result: Result<Vec<u8>, String>,
}

/// One endpoint's queue.
#[derive(Debug, Default)]
pub struct EndpointQueue {
    /// Waiting, oldest first.
    pub waiting: VecDeque<AsyncRequest>,
    /// Being processed.
    pub running: Vec<Running>,
    /// When the queue gauges were last recorded.
    pub last_gauges: f64,
}

/// Every asynchronous endpoint's queue, by endpoint name.
#[derive(Debug, Default)]
pub struct AsyncQueues {
    /// Queues by endpoint.
    pub by_endpoint: BTreeMap<String, EndpointQueue>,
    /// The asynchronous endpoints as last found, and when (`runtime/asynchronous/process.rs`
    /// looks at every endpoint once a second, not on every tick).
    pub known: (Vec<String>, f64),
}

impl AsyncQueues {
    /// Requests waiting or running for an endpoint.
    pub fn backlog(&self, endpoint: &str) -> usize {
        self.by_endpoint
            .get(endpoint)
            .map_or(0, |q| q.waiting.len() + q.running.len())
    }
}
