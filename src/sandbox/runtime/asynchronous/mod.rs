//! Asynchronous inference: InvokeEndpointAsync (`POST /endpoints/NAME/async-invocations`) accepts
//! a request (its input in the sandbox's S3 at `X-Amzn-SageMaker-InputLocation`, or the inline
//! body newer SDKs send), queues it and answers 202 with the InferenceId and the output and
//! failure locations; `process.rs` works the queues on every tick. A synchronous invoke of an
//! asynchronous endpoint is refused (`sync_refusal`).
//!
//! Texts of the refusals are the sandbox's (UNVERIFIED against AWS); the ranges are the API
//! model's (RequestTTLSeconds 60–21600, InvocationTimeoutSeconds 1–3600, an inline body of at
//! most 128,000 bytes, InferenceId 1–64 characters).

pub mod config;
pub mod process;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::json;

use crate::sandbox::http::wire::{ApiError, Protocol, bytes_response};
use crate::sandbox::runtime::errors::validation_error;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::queue::{AsyncInput, AsyncRequest};
use crate::sandbox::world::sandbox::Sandbox;
use config::{async_settings, split_s3};

/// Largest inline body of InvokeEndpointAsync.
pub const MAX_INLINE_BODY: usize = 128_000;

/// The refusal of a synchronous invoke (or response stream) on an asynchronous endpoint.
pub fn sync_refusal(sb: &Sandbox, endpoint: &str) -> Option<ApiError> {
    async_settings(&sb.world.read(), endpoint)?;
    Some(validation_error(format!(
        "Endpoint {endpoint} of account {} is an asynchronous endpoint: invoke it with InvokeEndpointAsync.",
        sb.config.account
    )))
}

/// Serves InvokeEndpointAsync on endpoint `name`.
pub fn handle(sb: &Sandbox, name: &str, headers: &HeaderMap, body: &Bytes) -> Response {
    match accept(sb, name, headers, body) {
        Ok(resp) => resp,
        Err(e) => e.into_response(Protocol::RestJson1),
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// An integer header within `range`, or its ValidationError.
fn seconds(
    headers: &HeaderMap,
    name: &str,
    range: std::ops::RangeInclusive<i64>,
    default: i64,
) -> Result<i64, ApiError> {
    let Some(text) = header(headers, &format!("x-amzn-sagemaker-{}", name.to_lowercase())) else {
        return Ok(default);
    };
    match text.parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(validation_error(format!(
            "1 validation error detected: Value '{text}' at '{}' failed to satisfy constraint: Member must have value between {} and {}",
            lower_first(name),
            range.start(),
            range.end()
        ))),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn accept(sb: &Sandbox, name: &str, headers: &HeaderMap, body: &Bytes) -> Result<Response, ApiError> {
    let settings = {
        let world = sb.world.read();
        if !world.endpoints.contains_key(name) {
            return Err(validation_error(format!(
                "Endpoint {name} of account {} not found.",
                sb.config.account
            )));
        }
        async_settings(&world, name).ok_or_else(|| {
            validation_error(format!(
                "Endpoint {name} is a real-time endpoint: InvokeEndpointAsync needs an endpoint configuration with an AsyncInferenceConfig. Use InvokeEndpoint."
            ))
        })?
    };
    let input = input_of(headers, body)?;
    let ttl = seconds(headers, "RequestTTLSeconds", 60..=21_600, 21_600)?;
    let timeout = seconds(headers, "InvocationTimeoutSeconds", 1..=3_600, 900)?;
    let id = match header(headers, "x-amzn-sagemaker-inference-id") {
        Some(id) if id.is_empty() || id.len() > 64 => {
            return Err(validation_error(
                "1 validation error detected: Value at 'inferenceId' failed to satisfy constraint: Member must have length between 1 and 64",
            ));
        }
        Some(id) => id.to_string(),
        None => new_inference_id(),
    };
    let extension = header(headers, "x-amzn-sagemaker-s3outputpathextension")
        .map(|e| format!("/{}", e.trim_matches('/')))
        .unwrap_or_default();
    let output_url = format!("{}{extension}/{id}.out", settings.output_path);
    let failure_url = settings.failure_path.as_ref().map(|p| format!("{p}/{id}-error.out"));
    let output = split_s3(&output_url)
        .ok_or_else(|| validation_error(format!("The endpoint's S3OutputPath ({output_url}) is not an S3 URI.")))?;
    let now = now_epoch();
    let request = AsyncRequest {
        inference_id: id.clone(),
        input,
        content_type: header(headers, "x-amzn-sagemaker-content-type")
            .unwrap_or("application/octet-stream")
            .to_string(),
        accept: header(headers, "x-amzn-sagemaker-accept").map(str::to_string),
        received: now,
        expires: now + ttl as f64,
        timeout_secs: timeout as f64,
        output,
        failure: failure_url.as_deref().and_then(split_s3),
    };
    sb.async_queues
        .lock()
        .by_endpoint
        .entry(name.to_string())
        .or_default()
        .waiting
        .push_back(request);
    let mut resp = bytes_response(
        StatusCode::ACCEPTED,
        "application/json",
        json!({ "InferenceId": id }).to_string().into_bytes(),
    );
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&output_url) {
        h.insert("x-amzn-sagemaker-outputlocation", v);
    }
    if let Some(v) = failure_url.and_then(|f| HeaderValue::from_str(&f).ok()) {
        h.insert("x-amzn-sagemaker-failurelocation", v);
    }
    Ok(resp)
}

/// Queues a generated request (inline input, default TTL and timeout) on endpoint `name`;
/// false when the endpoint is not asynchronous (the generator invokes it synchronously then).
pub fn enqueue_generated(sb: &Sandbox, name: &str, content_type: &str, body: &[u8], now: f64) -> bool {
    let Some(settings) = async_settings(&sb.world.read(), name) else {
        return false;
    };
    let id = new_inference_id();
    let Some(output) = split_s3(&format!("{}/{id}.out", settings.output_path)) else {
        return true;
    };
    let request = AsyncRequest {
        failure: settings
            .failure_path
            .as_ref()
            .and_then(|p| split_s3(&format!("{p}/{id}-error.out"))),
        inference_id: id,
        input: AsyncInput::Inline(body.to_vec()),
        content_type: content_type.to_string(),
        accept: None,
        received: now,
        expires: now + 21_600.0,
        timeout_secs: 900.0,
        output,
    };
    let mut queues = sb.async_queues.lock();
    queues
        .by_endpoint
        .entry(name.to_string())
        .or_default()
        .waiting
        .push_back(request);
    true
}

/// The request's input: an S3 InputLocation, or the inline body (at most 128,000 bytes).
fn input_of(headers: &HeaderMap, body: &Bytes) -> Result<AsyncInput, ApiError> {
    if let Some(location) = header(headers, "x-amzn-sagemaker-inputlocation") {
        let (bucket, key) = split_s3(location).ok_or_else(|| {
            validation_error(format!(
                "InputLocation {location} is not a valid S3 URI (s3://bucket/key)."
            ))
        })?;
        return Ok(AsyncInput::Location(bucket, key));
    }
    if body.is_empty() {
        return Err(validation_error("Either InputLocation or Body must be provided."));
    }
    if body.len() > MAX_INLINE_BODY {
        return Err(validation_error(format!(
            "Received an inline body of {} bytes, which exceeds the maximum of {MAX_INLINE_BODY} bytes; upload it to S3 and give its InputLocation.",
            body.len()
        )));
    }
    Ok(AsyncInput::Inline(body.to_vec()))
}

/// A random UUID (version 4), as AWS generates InferenceIds.
fn new_inference_id() -> String {
    let r: u128 = rand::random();
    let h = format!("{r:032x}");
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}
