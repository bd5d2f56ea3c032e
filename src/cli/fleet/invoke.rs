//! `sagedeck invoke ENDPOINT [--body JSON | --body-file FILE] ... [--repeat N] [--stream]
//! [--inference-component IC [--wait-for-capacity] [--deadline 15m]] [--session new|ID
//! [--close-session]] [--prefix-aware-id ID]`.

use crate::format::body_text;
use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use clap::Args;
use serde_json::json;

use crate::aws::invoke::call::{InvokeFailure, InvokeSpec, is_json, validate_body};
use crate::aws::invoke::session::NEW_SESSION;
use crate::aws::observe::latency::LatencyStats;
use crate::aws::{AwsError, RetryPolicy};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_MODEL, Exit, exit_code};
use crate::cli::fleet::capacity::retry_at_zero;
use crate::cli::output::{outln, print_json, write_raw};

/// `sagedeck invoke`.
#[derive(Debug, Args)]
pub struct InvokeArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// Request body (inline).
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Request body from a file (`-` for standard input).
    #[arg(long)]
    pub body_file: Option<String>,
    /// Content-Type of the body.
    #[arg(long, default_value = "application/json")]
    pub content_type: String,
    /// Accept.
    #[arg(long)]
    pub accept: Option<String>,
    /// Send to this variant, bypassing the weights.
    #[arg(long)]
    pub target_variant: Option<String>,
    /// Multi-model endpoint model key.
    #[arg(long)]
    pub target_model: Option<String>,
    /// Custom attributes for the container.
    #[arg(long)]
    pub custom_attributes: Option<String>,
    /// Inference id.
    #[arg(long)]
    pub inference_id: Option<String>,
    /// The inference component to call, on an endpoint that hosts components.
    #[arg(long, value_name = "IC")]
    pub inference_component: Option<String>,
    /// When the component is at zero copies: wake it (the wake is audited), show its progress
    /// until it serves, then call again, within --deadline.
    #[arg(long, requires = "inference_component")]
    pub wait_for_capacity: bool,
    /// How long --wait-for-capacity may wait (90s, 15m, 1h).
    #[arg(long, default_value = "15m", value_parser = crate::format::parse_duration, requires = "wait_for_capacity")]
    pub deadline: Duration,
    /// Invoke N times and report p50/p95/p99 and the variant split.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Use InvokeEndpointWithResponseStream and print parts as they arrive.
    #[arg(long)]
    pub stream: bool,
    /// A stateful session: `new` opens one (its id and expiry are printed), an id keeps the
    /// call on the session's instance.
    #[arg(long, value_name = "new|ID")]
    pub session: Option<String>,
    /// Close the `--session ID` with this call (the container is sent `{"requestType":
    /// "CLOSE"}` when no body is given).
    #[arg(long, requires = "session")]
    pub close_session: bool,
    /// The prefix-aware routing hint (`PrefixAwareId`).
    #[arg(long, value_name = "ID")]
    pub prefix_aware_id: Option<String>,
    /// Attempts per invocation (retrying throttling, 500, 503 and ModelNotReady).
    #[arg(long, default_value_t = 4)]
    pub max_attempts: u32,
}

fn read_body(args: &InvokeArgs) -> Result<Vec<u8>, String> {
    if args.body.is_none() && args.body_file.is_none() && args.close_session {
        return Ok(br#"{"requestType": "CLOSE"}"#.to_vec());
    }
    read_body_from(&args.body, &args.body_file)
}

/// The body from `--body` or `--body-file` (`-` for standard input).
pub fn read_body_from(body: &Option<String>, body_file: &Option<String>) -> Result<Vec<u8>, String> {
    match (body, body_file) {
        (Some(b), _) => Ok(b.clone().into_bytes()),
        (None, Some(f)) if f == "-" => {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(buf)
        }
        (None, Some(f)) => std::fs::read(f).map_err(|e| format!("cannot read body file {f}: {e}")),
        (None, None) => Err("give a body with --body JSON or --body-file FILE".into()),
    }
}

/// The body as JSON when it parses, else text when UTF-8, else base64 (for `--json`).
pub fn body_value(content_type: Option<&str>, body: &[u8]) -> serde_json::Value {
    if content_type.is_none_or(is_json)
        && let Ok(v) = serde_json::from_slice::<serde_json::Value>(body)
    {
        return v;
    }
    match std::str::from_utf8(body) {
        Ok(s) => json!(s),
        Err(_) => json!({ "base64": base64::engine::general_purpose::STANDARD.encode(body) }),
    }
}

/// Runs `invoke`.
pub async fn run(g: &GlobalArgs, args: InvokeArgs) -> CmdResult {
    let body = read_body(&args).map_err(Exit::usage)?;
    validate_body(&args.content_type, &body).map_err(|e| Exit::usage(format!("{e}; nothing was sent")))?;
    if args.repeat == 0 {
        return Err(Exit::usage("--repeat must be at least 1"));
    }
    if args.stream && (args.repeat > 1 || args.target_model.is_some()) {
        return Err(Exit::usage("--stream takes neither --repeat nor --target-model"));
    }
    if args.wait_for_capacity && args.repeat > 1 {
        return Err(Exit::usage(
            "--wait-for-capacity takes no --repeat (wake the component first with `sagedeck components ENDPOINT --wake IC --wait`)",
        ));
    }
    let session_id = match args.session.as_deref() {
        Some("new" | "NEW_SESSION") if args.close_session => {
            return Err(Exit::usage("--close-session closes a session by its id: --session ID"));
        }
        Some("new" | "NEW_SESSION") => Some(NEW_SESSION.to_string()),
        other => other.map(str::to_string),
    };
    if session_id.is_some() && args.repeat > 1 {
        return Err(Exit::usage(
            "--session takes no --repeat (one call at a time keeps the session in view)",
        ));
    }
    let spec = InvokeSpec {
        session_id,
        prefix_aware_id: args.prefix_aware_id.clone(),
        endpoint: args.endpoint.clone(),
        body,
        content_type: args.content_type.clone(),
        accept: args.accept.clone(),
        target_variant: args.target_variant.clone(),
        target_model: args.target_model.clone(),
        custom_attributes: args.custom_attributes.clone(),
        inference_id: args.inference_id.clone(),
        inference_component: args.inference_component.clone(),
    };
    let wait = args.wait_for_capacity.then_some(args.deadline);
    let fleet = g.connect().await?;
    if args.stream {
        return stream(g, &fleet, &spec, wait).await;
    }
    let policy = RetryPolicy {
        max_attempts: args.max_attempts.max(1),
        ..Default::default()
    };
    if args.repeat == 1 {
        return once(g, &fleet, &spec, &policy, wait).await;
    }
    repeat(g, &fleet, &spec, &policy, args.repeat).await
}

/// `--stream`: the parts as they arrive on stdout (or collected, with `--json`), a summary on
/// stderr.
async fn stream(g: &GlobalArgs, fleet: &crate::aws::Fleet, spec: &InvokeSpec, wait: Option<Duration>) -> CmdResult {
    let json_out = g.json;
    let parts = std::cell::RefCell::new(Vec::new());
    // A closed output is noticed at the next part and ends the command once the stream does.
    // A component at zero refuses the call before any part, so a retry starts clean.
    let r = retry_at_zero(
        g,
        fleet,
        wait,
        |e: &AwsError| e,
        || {
            fleet.invoke_stream(spec, |p| {
                if json_out {
                    parts.borrow_mut().push(String::from_utf8_lossy(p).into_owned());
                } else {
                    let _ = write_raw(p);
                }
            })
        },
    )
    .await?;
    match r {
        Ok(s) if json_out => print_json(&json!({ "stream": s, "parts": parts.into_inner() })),
        Ok(s) => {
            eprintln!(
                "\nsagedeck: {} parts, {} bytes from variant {} in {:.1} ms",
                s.parts,
                s.bytes,
                s.invoked_variant.as_deref().unwrap_or("?"),
                s.total.as_secs_f64() * 1000.0
            );
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

fn failure_error(f: &InvokeFailure) -> &AwsError {
    &f.error
}

/// One invocation (with its retries): the body on stdout, variant, latency and attempts on
/// stderr.
async fn once(
    g: &GlobalArgs,
    fleet: &crate::aws::Fleet,
    spec: &InvokeSpec,
    policy: &RetryPolicy,
    wait: Option<Duration>,
) -> CmdResult {
    match retry_at_zero(g, fleet, wait, failure_error, || fleet.invoke(spec, policy)).await? {
        Ok(r) => {
            if g.json {
                print_json(&json!({
                    "endpoint": spec.endpoint, "inference_component": spec.inference_component,
                    "result": r, "body": body_value(r.content_type.as_deref(), &r.body),
                }))?;
            } else {
                outln!("{}", body_text(r.content_type.as_deref(), &r.body))?;
                eprintln!(
                    "sagedeck: variant {}{}{} · {:.1} ms · {} attempt{}{}",
                    r.invoked_variant.as_deref().unwrap_or("?"),
                    r.instance
                        .as_deref()
                        .map(|i| format!(" · instance {}", crate::format::escape_line(i)))
                        .unwrap_or_default(),
                    r.session
                        .line()
                        .map(|s| format!(" · {}", crate::format::escape_line(&s)))
                        .unwrap_or_default(),
                    r.latency.as_secs_f64() * 1000.0,
                    r.attempts,
                    if r.attempts == 1 { "" } else { "s" },
                    if r.retried.is_empty() {
                        String::new()
                    } else {
                        format!(" (retried: {})", r.retried.join(", "))
                    }
                );
            }
            Ok(())
        }
        Err(f) if g.json => {
            print_json(&json!({ "endpoint": spec.endpoint, "error": f }))?;
            Err(Exit::from(&f.error))
        }
        // An asynchronous endpoint: one line that names the command to use.
        Err(f) if matches!(f.error, AwsError::AsyncOnly { .. }) => Err(Exit::from(&f.error)),
        Err(f) => {
            eprintln!("sagedeck: {}", f.error);
            Err(Exit::new(
                exit_code(&f.error),
                format!(
                    "after {} attempt(s) in {:.1} ms",
                    f.attempts,
                    f.total.as_secs_f64() * 1000.0
                ),
            ))
        }
    }
}

async fn repeat(
    g: &GlobalArgs,
    fleet: &crate::aws::Fleet,
    spec: &InvokeSpec,
    policy: &RetryPolicy,
    n: u32,
) -> CmdResult {
    let mut stats = LatencyStats::new();
    let mut variants: BTreeMap<String, u32> = BTreeMap::new();
    let mut errors: BTreeMap<String, u32> = BTreeMap::new();
    let mut attempts = 0;
    let mut model_errors = 0;
    for _ in 0..n {
        match fleet.invoke(spec, policy).await {
            Ok(r) => {
                stats.record(r.latency);
                attempts += r.attempts;
                *variants
                    .entry(r.invoked_variant.unwrap_or_else(|| "?".into()))
                    .or_default() += 1;
            }
            Err(f) => {
                attempts += f.attempts;
                if exit_code(&f.error) == EXIT_MODEL {
                    model_errors += 1;
                }
                *errors.entry(f.error.class().to_string()).or_default() += 1;
            }
        }
    }
    let p = stats.percentiles();
    if g.json {
        print_json(&json!({
            "endpoint": spec.endpoint, "invocations": n, "succeeded": stats.count(), "attempts": attempts,
            "latency": p, "variants": variants, "errors": errors,
        }))?;
    } else {
        outln!(
            "{} invocations of {}: {} succeeded, {} attempts",
            n,
            spec.endpoint,
            stats.count(),
            attempts
        )?;
        if let Some(p) = p {
            outln!(
                "latency ms  p50 {:.1}  p95 {:.1}  p99 {:.1}  min {:.1}  max {:.1}",
                p.p50_ms,
                p.p95_ms,
                p.p99_ms,
                p.min_ms,
                p.max_ms
            )?;
        }
        let ok = stats.count().max(1) as f64;
        for (v, c) in &variants {
            outln!("variant {v}: {c} ({:.1}%)", *c as f64 * 100.0 / ok)?;
        }
        for (e, c) in &errors {
            outln!("error {e}: {c}")?;
        }
    }
    if errors.is_empty() {
        Ok(())
    } else if model_errors > 0 {
        Err(Exit::code(EXIT_MODEL))
    } else {
        Err(Exit::code(EXIT_AWS))
    }
}
