//! Endpoint metrics from CloudWatch: one GetMetricData plan per refresh covering every variant
//! (latency percentiles, invocations, errors; for multi-model endpoints the cache and loading
//! metrics and LoadedModelCount; for inference components, by `InferenceComponentName`, their
//! latency, calls, copies and utilization of their reservation), split into calls of at most 500 queries, each following its
//! NextToken. Query ids are `q<N>`, the index into the plan: they satisfy CloudWatch's
//! `^[a-z][a-zA-Z0-9_]*$`, are unique, and carry no endpoint or variant names (which may hold
//! characters ids cannot). Latencies are converted from microseconds to milliseconds.

//!
//! The plan of queries is `plan.rs`, the calls `fetch.rs`, the figures `summary.rs`, those of inference
//! components `components.rs`, those of a serverless variant and an asynchronous endpoint `shape.rs`.

mod components;
mod fetch;
mod plan;
mod shape;
mod summary;

pub use components::summarize_component;
pub use plan::{
    MAX_QUERIES_PER_CALL, Metric, MetricsPlan, NS_ENDPOINTS, NS_INFERENCE_COMPONENTS, NS_SAGEMAKER, PlannedQuery,
    series_name,
};
pub use shape::{AsyncFigures, ServerlessFigures, async_figures, serverless_figures};
pub use summary::{
    ComponentMetrics, ComponentSummary, MetricsSnapshot, Series, VariantMetrics, VariantSummary, summarize,
    summarize_until,
};
