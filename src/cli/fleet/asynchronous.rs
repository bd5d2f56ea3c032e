//! `sagedeck invoke-async ENDPOINT (--body JSON | --body-file F | --input-location s3://…)
//! [--input-prefix s3://…] [--inference-id ID] [--wait [--timeout S]]`: one asynchronous request;
//! prints its InferenceId and output location, and with `--wait` follows it to its output or
//! failure object (the status call AWS lacks) and prints the result or the failure.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::aws::invoke::asynchronous::{AsyncAccepted, AsyncInput, AsyncOutcome, AsyncSpec};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_EXPIRED, EXIT_MODEL, Exit};
use crate::cli::fleet::invoke::{body_value, read_body_from};
use crate::cli::output::{outln, print_json, say, say_err};
use crate::format::body_text;

/// `sagedeck invoke-async`.
#[derive(Debug, Args)]
pub struct InvokeAsyncArgs {
    /// Endpoint name (an asynchronous one).
    pub endpoint: String,
    /// Request body (inline; sent in the request up to 128,000 bytes, else uploaded under
    /// --input-prefix first).
    #[arg(long, conflicts_with_all = ["body_file", "input_location"])]
    pub body: Option<String>,
    /// Request body from a file (`-` for standard input).
    #[arg(long, conflicts_with = "input_location")]
    pub body_file: Option<String>,
    /// The input already in S3 (`s3://bucket/key`).
    #[arg(long)]
    pub input_location: Option<String>,
    /// Upload the body under this S3 prefix first (`s3://bucket/prefix/`) and send its location.
    #[arg(long, conflicts_with = "input_location")]
    pub input_prefix: Option<String>,
    /// Content-Type of the input.
    #[arg(long, default_value = "application/json")]
    pub content_type: String,
    /// Accept.
    #[arg(long)]
    pub accept: Option<String>,
    /// InferenceId (SageMaker makes one up without it).
    #[arg(long)]
    pub inference_id: Option<String>,
    /// RequestTTLSeconds: how long the request may wait in the queue (60–21600).
    #[arg(long, value_name = "SECONDS")]
    pub ttl: Option<i32>,
    /// InvocationTimeoutSeconds: how long the model may take (1–3600).
    #[arg(long, value_name = "SECONDS")]
    pub invocation_timeout: Option<i32>,
    /// Follow the request to its output or failure object and print it.
    #[arg(long)]
    pub wait: bool,
    /// How long --wait follows it, in seconds.
    #[arg(long, default_value_t = 900, requires = "wait")]
    pub timeout: u64,
}

/// The input the arguments name.
fn input_of(args: &InvokeAsyncArgs) -> Result<AsyncInput, String> {
    if let Some(uri) = &args.input_location {
        return Ok(AsyncInput::Location(uri.clone()));
    }
    let body = read_body_from(&args.body, &args.body_file).map_err(|_| {
        "give the input with --body JSON, --body-file FILE or --input-location s3://BUCKET/KEY".to_string()
    })?;
    Ok(AsyncInput::Body {
        body,
        upload_prefix: args.input_prefix.clone(),
    })
}

/// Runs `invoke-async`.
pub async fn run(g: &GlobalArgs, args: InvokeAsyncArgs) -> CmdResult {
    let input = input_of(&args).map_err(Exit::usage)?;
    let spec = AsyncSpec {
        endpoint: args.endpoint.clone(),
        input,
        content_type: args.content_type.clone(),
        accept: args.accept.clone(),
        inference_id: args.inference_id.clone(),
        request_ttl_s: args.ttl,
        invocation_timeout_s: args.invocation_timeout,
    };
    let fleet = g.connect().await?;
    let accepted = fleet.invoke_async(&spec).await?;
    if !g.json {
        print_accepted(&accepted)?;
    }
    if !args.wait {
        return if g.json {
            print_json(&json!({ "accepted": accepted }))
        } else {
            Ok(())
        };
    }
    let quiet = g.json;
    let outcome = fleet
        .wait_async(&accepted, Duration::from_secs(args.timeout), |look| {
            if !quiet && look > 1 && look.is_power_of_two() {
                eprintln!(
                    "sagedeck: {} still queued or running (look {look})",
                    accepted.inference_id
                );
            }
        })
        .await?;
    print_outcome(g, &accepted, outcome, args.timeout)
}

/// The InferenceId and where its output and failure will be written.
fn print_accepted(a: &AsyncAccepted) -> CmdResult {
    say(format!("InferenceId  {}", a.inference_id))?;
    if let Some(input) = &a.uploaded_input {
        say(format!("Input        {input} (uploaded)"))?;
    }
    say(format!("Output       {}", a.output_location.as_deref().unwrap_or("-")))?;
    say(format!("Failure      {}", a.failure_location.as_deref().unwrap_or("-")))
}

/// The result on stdout (exit 0), the failure (exit 4), its expiry in the queue (exit 10), or
/// that it is still pending (exit 3).
fn print_outcome(g: &GlobalArgs, a: &AsyncAccepted, outcome: Option<AsyncOutcome>, timeout: u64) -> CmdResult {
    if g.json {
        let body = outcome.as_ref().map(|o| match o {
            AsyncOutcome::Succeeded { content_type, body, .. } => body_value(content_type.as_deref(), body),
            AsyncOutcome::Failed { body, .. } | AsyncOutcome::Expired { body, .. } => body_value(None, body),
        });
        print_json(&json!({ "accepted": a, "outcome": outcome, "body": body }))?;
    }
    match outcome {
        Some(AsyncOutcome::Succeeded {
            content_type,
            body,
            location,
        }) => {
            if !g.json {
                outln!(
                    "{}",
                    crate::format::escape_text(&body_text(content_type.as_deref(), &body))
                )?;
                say_err(format!("sagedeck: {} succeeded: {location}", a.inference_id));
            }
            Ok(())
        }
        Some(AsyncOutcome::Failed { body, location }) => Err(ended(EXIT_MODEL, a, "failed", &body, &location, "")),
        Some(AsyncOutcome::Expired { body, location }) => Err(ended(
            EXIT_EXPIRED,
            a,
            "expired in the queue, never run",
            &body,
            &location,
            "; send it again once the endpoint has capacity, or with a longer --ttl",
        )),
        None => Err(Exit::new(
            EXIT_AWS,
            format!(
                "{} has neither output nor failure after {timeout}s (still queued or running; its output will appear at {})",
                a.inference_id,
                a.output_location.as_deref().unwrap_or("its S3OutputPath")
            ),
        )),
    }
}

/// A request that ended with its failure object: `ID WHAT: MESSAGE (LOCATION)HINT`, escaped.
fn ended(code: i32, a: &AsyncAccepted, what: &str, body: &[u8], location: &str, hint: &str) -> Exit {
    let message = String::from_utf8_lossy(body);
    let line = format!("{} {what}: {} ({location}){hint}", a.inference_id, message.trim());
    Exit::new(code, crate::format::escape_line(&line))
}
