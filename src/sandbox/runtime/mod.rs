//! SageMaker Runtime (restJson1): InvokeEndpoint, InvokeEndpointWithResponseStream (AWS
//! event-stream frames) and InvokeEndpointAsync (`asynchronous/`). One synchronous core,
//! [`invoke::invoke`], serves both the HTTP front end (`http.rs`) and the traffic generator, so
//! generated and real invocations feed the same metrics.

pub mod asynchronous;
pub mod component;
pub mod errors;
pub mod http;
pub mod invoke;
pub mod request;
pub mod serverless;
pub mod shadow;
pub mod stream;
