//! What a container answers: a reply, or an error with the status a real serving stack gives.

/// A container's successful answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Response body.
    pub body: Vec<u8>,
    /// Response content type.
    pub content_type: String,
    /// Relative cost of the request (1.0 = a typical one); scales simulated latency.
    pub work: f64,
}

/// A container's non-2xx answer (surfaces as ModelError with OriginalStatusCode).
#[derive(Debug, Clone)]
pub struct ContainerError {
    /// HTTP status the container returned.
    pub status: u16,
    /// The container's response body.
    pub message: String,
}
