//! SageMaker Runtime (restJson1): InvokeEndpoint, InvokeEndpointWithResponseStream (AWS
//! event-stream frames), InvokeEndpointAsync (`asynchronous/`), and the OpenAI-compatible
//! Chat Completions paths (`openai/`). One synchronous core,
//! [`invoke::invoke`], serves both the HTTP front end (`http.rs`) and the traffic generator, so
//! generated and real invocations feed the same metrics.

pub mod asynchronous;
pub mod component;
pub mod errors;
pub mod http;
pub mod instance;
pub mod invoke;
pub mod openai;
pub mod request;
pub mod serverless;
pub mod sessions;
pub mod shadow;
pub mod stream;
