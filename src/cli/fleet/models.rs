//! `sagedeck models` (a multi-model endpoint's S3 catalog) and `sagedeck prewarm` (one warm-up
//! invocation per model, cold or warm per model; `--from` a warm-set file, `--watch` to keep the
//! set warm). Every prewarm round is audited (intent before, result after).

use std::io::IsTerminal;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, GuardError};
use crate::aws::endpoints::catalog::{Catalog, CatalogEntry, human_size};
use crate::aws::endpoints::warmset::WarmSet;
use crate::aws::invoke::call::validate_body;
use crate::aws::invoke::prewarm::PrewarmReport;
use crate::aws::invoke::prewarm::{PrewarmEvent, PrewarmOptions, PrewarmStatus};
use crate::aws::{AwsError, Fleet};
use crate::cli::args::{GlobalArgs, interrupts};
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_MODEL, EXIT_OK, Exit};
use crate::cli::output::{outln, print_json, print_table};

/// `sagedeck models ENDPOINT [--filter SUBSTR]`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Endpoint name (a multi-model endpoint).
    pub endpoint: String,
    /// Only models whose key contains this text (case-insensitive).
    #[arg(long)]
    pub filter: Option<String>,
}

/// `sagedeck prewarm ENDPOINT [MODEL ...] [--all]`.
#[derive(Debug, Args)]
#[command(after_help = "Exit codes: 0 every model answered, 2 usage or unknown model, \
3 a model failed on an AWS error (throttling, not ready by the deadline ...), \
4 the container refused the warm-up payload (model error) and nothing worse failed.")]
pub struct PrewarmArgs {
    /// Endpoint name (a multi-model endpoint).
    pub endpoint: String,
    /// Model keys to prewarm, relative to the endpoint's S3 prefix (see `sagedeck models`).
    pub models: Vec<String>,
    /// Prewarm every model of the catalog.
    #[arg(long, conflicts_with = "models")]
    pub all: bool,
    /// Prewarm the endpoint's models of a warm-set file (TOML or JSON; see `aws::endpoints::warmset`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["models", "all"])]
    pub from: Option<std::path::PathBuf>,
    /// Keep going: every --interval, probe the models again and re-prewarm the evicted ones
    /// (a cold answer). Ctrl-C stops.
    #[arg(long)]
    pub watch: bool,
    /// Seconds between watch rounds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub interval: u64,
    /// Stop watching after this many rounds (default: until Ctrl-C).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Warm-up invocations in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub concurrency: u16,
    /// Per model, give up after this many seconds (ModelNotReady is retried until then).
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub deadline: u64,
    /// Warm-up body (default: `{"inputs": "warmup"}` for JSON, a row of zeros for CSV).
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the warm-up body from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<std::path::PathBuf>,
    /// Content-Type of the warm-up body.
    #[arg(long, default_value = "application/json")]
    pub content_type: String,
    /// Accept header.
    #[arg(long)]
    pub accept: Option<String>,
    /// A first answer at least this slow (ms) counts as a cold load.
    #[arg(long, default_value_t = 1000)]
    pub cold_threshold_ms: u64,
    /// The inference component to warm (with no models named: the component itself, once).
    #[arg(long, value_name = "IC")]
    pub inference_component: Option<String>,
}

/// Describes `endpoint`, refuses anything but a multi-model endpoint (exit 2) and lists its
/// catalog.
async fn mme_catalog(fleet: &Fleet, endpoint: &str) -> Result<(String, Catalog, String), Exit> {
    let calls = AtomicUsize::new(0);
    let info = fleet.describe_endpoint_info(endpoint, &calls).await?;
    let Some(url) = info.mme_prefix().map(str::to_string) else {
        return Err(Exit::usage(format!(
            "{endpoint} is not a multi-model endpoint (no variant serves a MultiModel container); models and prewarm apply to MMEs only"
        )));
    };
    let catalog = fleet.list_catalog(&url, None).await?;
    Ok((url, catalog, info.status))
}

#[derive(Serialize)]
struct ModelsDoc<'a> {
    endpoint: &'a str,
    model_data_url: &'a str,
    bucket: &'a str,
    prefix: &'a str,
    filter: Option<&'a str>,
    count: usize,
    total_bytes: u64,
    models: Vec<&'a CatalogEntry>,
}

fn date(epoch: Option<f64>) -> String {
    epoch
        .and_then(|t| {
            aws_smithy_types::DateTime::from_secs(t as i64)
                .fmt(aws_smithy_types::date_time::Format::DateTime)
                .ok()
        })
        .unwrap_or_else(|| "-".into())
}

/// Runs `models`.
pub async fn run_models(g: &GlobalArgs, args: ModelsArgs) -> CmdResult {
    let fleet = g.connect().await?;
    let (url, catalog, _) = mme_catalog(&fleet, &args.endpoint).await?;
    let needle = args.filter.as_deref().map(str::to_lowercase);
    let models: Vec<&CatalogEntry> = catalog
        .models
        .iter()
        .filter(|m| needle.as_deref().is_none_or(|n| m.key.to_lowercase().contains(n)))
        .collect();
    if g.json {
        return print_json(&ModelsDoc {
            endpoint: &args.endpoint,
            model_data_url: &url,
            bucket: &catalog.bucket,
            prefix: &catalog.prefix,
            filter: args.filter.as_deref(),
            count: models.len(),
            total_bytes: models.iter().map(|m| m.size).sum(),
            models,
        });
    }
    if models.is_empty() {
        eprintln!(
            "sagedeck: no models under {url}{}",
            args.filter
                .as_deref()
                .map(|f| format!(" matching {f:?}"))
                .unwrap_or_default()
        );
        return Ok(());
    }
    let rows = models
        .iter()
        .map(|m| vec![m.key.clone(), human_size(m.size), date(m.last_modified)])
        .collect();
    print_table(&["MODEL", "SIZE", "LAST MODIFIED"], rows)
}

#[derive(Serialize)]
struct PrewarmDoc<'a> {
    #[serde(flatten)]
    report: &'a crate::aws::invoke::prewarm::PrewarmReport,
    content_type: &'a str,
    concurrency: usize,
    deadline_secs: u64,
    cold_threshold_ms: u64,
}

fn warmup_body(args: &PrewarmArgs) -> Result<Option<Vec<u8>>, String> {
    let body = match (&args.body, &args.body_file) {
        (Some(b), _) => Some(b.clone().into_bytes()),
        (None, Some(path)) => {
            Some(std::fs::read(path).map_err(|e| format!("cannot read the body file {}: {e}", path.display()))?)
        }
        (None, None) => None,
    };
    if let Some(b) = &body {
        validate_body(&args.content_type, b)?;
    }
    Ok(body)
}

/// The exit code of a prewarm: 3 when a model failed on an AWS error, else 4 when one failed on
/// a model error, else 0.
fn prewarm_code(errors: &[&AwsError]) -> i32 {
    if errors.iter().any(|e| !matches!(e, AwsError::ModelError { .. })) {
        EXIT_AWS
    } else if errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_MODEL
    }
}

/// Runs `prewarm`.
pub async fn run_prewarm(g: &GlobalArgs, args: PrewarmArgs) -> CmdResult {
    let component_only =
        args.inference_component.is_some() && args.models.is_empty() && !args.all && args.from.is_none();
    if component_only {
        return prewarm_component(g, args).await;
    }
    if args.models.is_empty() && !args.all && args.from.is_none() {
        return Err(Exit::usage(
            "name the models to prewarm, or pass --all or --from FILE (see `sagedeck models ENDPOINT`)",
        ));
    }
    let from = args
        .from
        .as_deref()
        .map(WarmSet::load)
        .transpose()
        .map_err(Exit::usage)?;
    if let Some(w) = &from
        && w.models(&args.endpoint).is_empty()
    {
        return Err(Exit::usage(format!(
            "the warm set has no models for {} (it lists: {})",
            args.endpoint,
            w.endpoints.keys().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    let opts = prewarm_options(&args).map_err(Exit::usage)?;
    // A cold load answers after up to 60 s (then ModelNotReady): read longer than that.
    let mut aws = g.aws_options();
    aws.read_timeout = Some(Duration::from_secs(90));
    let fleet = Fleet::connect(&aws).await?;
    let (_, catalog, status) = mme_catalog(&fleet, &args.endpoint).await?;
    if status != "InService" {
        let endpoint = args.endpoint.clone();
        return Err(GuardError::NotInService { endpoint, status }.into());
    }
    let models = chosen_models(&args, from.as_ref(), &catalog).map_err(Exit::usage)?;
    if models.is_empty() {
        eprintln!(
            "sagedeck: the catalog of {} is empty; nothing to prewarm",
            args.endpoint
        );
        return Ok(());
    }
    let audited = g.audited(&fleet).await?;
    let mut sigint = interrupts();
    let mut round = 0u32;
    loop {
        round += 1;
        let code = prewarm_round(g, &fleet, &audited, &args, &models, &opts).await?;
        let result = if code == EXIT_OK { Ok(()) } else { Err(Exit::code(code)) };
        if !args.watch || args.rounds.is_some_and(|n| round >= n) {
            return result;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(args.interval)) => {}
            _ = sigint.recv() => return result,
        }
    }
}

/// `prewarm ENDPOINT --inference-component IC`: one audited warm-up call to the component.
async fn prewarm_component(g: &GlobalArgs, args: PrewarmArgs) -> CmdResult {
    if args.watch {
        return Err(Exit::usage(
            "--watch re-prewarms evicted MME models; a component is warmed once (name its models to watch them)",
        ));
    }
    let opts = prewarm_options(&args).map_err(Exit::usage)?;
    let fleet = g.connect().await?;
    let info = fleet
        .describe_endpoint_info(&args.endpoint, &AtomicUsize::new(0))
        .await?;
    if info.status != "InService" {
        let (endpoint, status) = (args.endpoint.clone(), info.status);
        return Err(GuardError::NotInService { endpoint, status }.into());
    }
    let audited = g.audited(&fleet).await?;
    let code = prewarm_round(g, &fleet, &audited, &args, &[], &opts).await?;
    if code == EXIT_OK { Ok(()) } else { Err(Exit::code(code)) }
}

/// The prewarm's options from the flags; why not, when no warm-up payload can be built.
fn prewarm_options(args: &PrewarmArgs) -> Result<PrewarmOptions, String> {
    let opts = PrewarmOptions {
        concurrency: args.concurrency as usize,
        deadline: Duration::from_secs(args.deadline),
        cold_threshold: Duration::from_millis(args.cold_threshold_ms),
        body: warmup_body(args)?,
        content_type: args.content_type.clone(),
        accept: args.accept.clone(),
        inference_component: args.inference_component.clone(),
        ..Default::default()
    };
    if opts.warmup_body().is_err() {
        return Err(format!(
            "no default warm-up payload for content type {}; pass --body or --body-file",
            opts.content_type
        ));
    }
    Ok(opts)
}

/// The models to prewarm: the whole catalog (`--all`), the warm set's or those named, each
/// checked against the catalog.
fn chosen_models(args: &PrewarmArgs, from: Option<&WarmSet>, catalog: &Catalog) -> Result<Vec<String>, String> {
    if args.all {
        return Ok(catalog.models.iter().map(|m| m.key.clone()).collect());
    }
    let asked: Vec<String> = match from {
        Some(w) => w.models(&args.endpoint).to_vec(),
        None => args.models.clone(),
    };
    let unknown = catalog.unknown(&asked);
    if !unknown.is_empty() {
        return Err(format!(
            "unknown model{} for {}: {} (see `sagedeck models {}`)",
            if unknown.len() == 1 { "" } else { "s" },
            args.endpoint,
            unknown.join(", "),
            args.endpoint
        ));
    }
    Ok(asked)
}

/// One audited prewarm of `models`, printed, and its exit code; Err when it could not be sent.
async fn prewarm_round(
    g: &GlobalArgs,
    fleet: &Fleet,
    audited: &Audited,
    args: &PrewarmArgs,
    models: &[String],
    opts: &PrewarmOptions,
) -> Result<i32, Exit> {
    let pending = audited
        .intent(Mutation {
            action: "prewarm".into(),
            target: args.endpoint.clone(),
            before: serde_json::Value::Null,
            after: serde_json::json!({ "models": models, "inference_component": args.inference_component, "watch": args.watch }),
            reason: g.reason.clone(),
        }).await
        .map_err(Exit::refused)?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PrewarmEvent>();
    let total = models.len();
    let show_progress = std::io::stderr().is_terminal();
    let progress = tokio::spawn(async move {
        let mut done = 0;
        while let Some(ev) = rx.recv().await {
            if let (true, PrewarmEvent::Finished(r)) = (show_progress, &ev) {
                done += 1;
                eprintln!("[{done}/{total}] {} {}", r.model, r.status.as_str());
            }
        }
    });
    let result = fleet.prewarm(&args.endpoint, models, opts, Some(&tx)).await;
    drop(tx);
    let _ = progress.await;
    let report_ = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = audited.audit.finish(&pending, Err(e.to_string()));
            return Err(e.into());
        }
    };
    let summary = format!(
        "{} cold, {} warm, {} failed{}",
        report_.cold,
        report_.warm,
        report_.failed,
        report_
            .results
            .iter()
            .filter(|r| r.status == PrewarmStatus::Cold)
            .map(|r| format!("; re-warmed {}", r.model))
            .collect::<String>()
    );
    let logged = if report_.failed == 0 {
        Ok(None)
    } else {
        Err(summary.clone())
    };
    if let Err(e) = audited.audit.finish(&pending, logged) {
        eprintln!("sagedeck: warning: the prewarm ran but its result could not be logged: {e}");
    }
    let errors: Vec<&AwsError> = report_.results.iter().filter_map(|r| r.error.as_ref()).collect();
    let code = prewarm_code(&errors);
    print_round(g, args, opts, &report_, &summary)?;
    Ok(code)
}

/// Prints one round's report: a JSON document (a line per round in watch mode), or a table
/// with the round's summary and the failures.
fn print_round(
    g: &GlobalArgs,
    args: &PrewarmArgs,
    opts: &PrewarmOptions,
    report_: &PrewarmReport,
    summary: &str,
) -> CmdResult {
    if g.json {
        let doc = PrewarmDoc {
            report: report_,
            content_type: &opts.content_type,
            concurrency: opts.concurrency,
            deadline_secs: args.deadline,
            cold_threshold_ms: args.cold_threshold_ms,
        };
        // One document per round: a JSON line in watch mode, pretty otherwise.
        if args.watch {
            return outln!("{}", serde_json::to_string(&doc).unwrap_or_default());
        }
        return print_json(&doc);
    }
    if args.watch {
        outln!("round: {summary}")?;
    }
    let rows = report_
        .results
        .iter()
        .map(|r| {
            vec![
                r.model.clone(),
                r.status.as_str().to_string(),
                r.latency
                    .map(|l| format!("{:.0}", l.as_secs_f64() * 1e3))
                    .unwrap_or_else(|| "-".into()),
                r.attempts.to_string(),
                r.error.as_ref().map(|e| e.to_string()).unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    print_table(&["MODEL", "STATUS", "LATENCY_MS", "ATTEMPTS", "ERROR"], rows)?;
    if report_.failed > 0 {
        eprintln!(
            "sagedeck: {} of {} models failed to prewarm",
            report_.failed,
            report_.results.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_rank_aws_errors_over_model_errors() {
        let me = AwsError::ModelError {
            original_status: Some(400),
            original_message: None,
            message: "m".into(),
            log_stream_arn: None,
        };
        let nr = AwsError::ModelNotReady("x".into());
        assert_eq!(prewarm_code(&[]), EXIT_OK);
        assert_eq!(prewarm_code(&[&me]), EXIT_MODEL);
        assert_eq!(prewarm_code(&[&me, &nr]), EXIT_AWS);
    }
}
