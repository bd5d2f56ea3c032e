//! SageMaker Runtime (restJson1): InvokeEndpoint, InvokeEndpointWithResponseStream (AWS
//! event-stream frames), a clear refusal of InvokeEndpointAsync, and the OpenAI-compatible
//! Chat Completions paths (`openai/`). One synchronous core,
//! [`invoke::invoke`], serves both the HTTP front end (`http.rs`) and the traffic generator, so
//! generated and real invocations feed the same metrics.

pub mod component;
pub mod errors;
pub mod http;
pub mod instance;
pub mod invoke;
pub mod openai;
pub mod request;
pub mod sessions;
pub mod stream;
