//! How `tools call` answers a server's sampling requests: `--sampling-llm ENDPOINT[/COMPONENT]`
//! (or `[mcp] sampling_llm` in config.toml) in a request shape, approved by
//! `--approve-sampling auto|ask|never` (ask: the server, the messages and the model preferences
//! on the terminal, y approves), audited, and summed up on stderr after the call.

use std::io::{BufRead, Write};
use std::sync::Arc;

use clap::Args;

use crate::cli::args::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::say_err;
use crate::format::escape_line;
use crate::mcp::agent::{Shape, Template};
use crate::mcp::sampling::{Sampler, SamplingApproval, SamplingLlm, SamplingRequest};
use crate::tui::config::McpDefaults;

/// The sampling options of the commands that call tools.
#[derive(Debug, Args, Clone, Default)]
pub struct SamplingArgs {
    /// Answer the server's sampling requests with this SageMaker LLM: ENDPOINT or
    /// ENDPOINT/COMPONENT (default: `[mcp] sampling_llm`; none: sampling is declined).
    #[arg(long, value_name = "ENDPOINT[/COMPONENT]")]
    pub sampling_llm: Option<String>,
    /// Who approves each sampling request (default: ask).
    #[arg(long, value_enum, value_name = "MODE")]
    pub approve_sampling: Option<SamplingApproval>,
    /// The sampling LLM's request shape (default: messages).
    #[arg(long, value_enum, value_name = "SHAPE")]
    pub sampling_shape: Option<Shape>,
    /// Chat template of the generate shape: chatml, llama3, mistral or a tokenizer_config.json.
    #[arg(long, value_name = "TEMPLATE")]
    pub sampling_template: Option<String>,
}

/// The sampler the flags and the config ask for (None: sampling declined), its fleet connected
/// and its audit log open (exit 6 when the log cannot be opened).
pub async fn sampler(g: &GlobalArgs, a: &SamplingArgs) -> Result<Option<Arc<Sampler>>, Exit> {
    let d: McpDefaults = g.settings().mcp.unwrap_or_default();
    let Some(llm) = a.sampling_llm.clone().or(d.sampling_llm) else {
        return Ok(None);
    };
    let llm = SamplingLlm::parse(&llm).map_err(Exit::usage)?;
    let shape = match (a.sampling_shape, d.sampling_shape.as_deref()) {
        (Some(s), _) => s,
        (None, Some(name)) => Shape::named(name).map_err(Exit::usage)?,
        (None, None) => Shape::Messages,
    };
    let template = (a.sampling_template.clone().or(d.sampling_template))
        .map(|t| Template::named(&t))
        .transpose()
        .map_err(Exit::usage)?
        .unwrap_or(Template::Chatml);
    let approval = match (a.approve_sampling, d.approve_sampling.as_deref()) {
        (Some(m), _) => m,
        (None, Some(name)) => SamplingApproval::named(name).map_err(Exit::usage)?,
        (None, None) => SamplingApproval::Ask,
    };
    let fleet = g.connect().await?;
    // The team's trail too, as every audited change (`--audit-log-group`).
    let audited = g.audited(&fleet).await?;
    let sampler = Sampler::new(fleet, llm, shape, template, approval)
        .with_approver(Arc::new(ask_terminal))
        .with_audit(audited, g.reason.clone());
    Ok(Some(Arc::new(sampler)))
}

/// What the operator reads before saying yes: the server, the model, the preferences, the
/// limit, and each message on a line (escaped: they come from a server).
pub fn question(req: &SamplingRequest) -> Vec<String> {
    let mut lines = vec![format!(
        "{} asks {} for a completion (up to {} tokens; preferences: {})",
        req.server, req.model, req.max_tokens, req.preferences
    )];
    if !req.tools.is_empty() {
        lines.push(format!("  tools offered: {}", req.tools));
    }
    for m in &req.messages {
        let text: String = m.content.chars().take(400).collect();
        lines.push(format!("  {}: {}", m.role, text));
    }
    lines.into_iter().map(|l| escape_line(&l).into_owned()).collect()
}

/// Asks on the terminal: y approves, anything else (or no terminal) denies.
pub fn ask_terminal(req: SamplingRequest) -> bool {
    let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        say_err(format!(
            "sagedeck: {} asked for sampling and there is no terminal to ask: declined (use --approve-sampling auto to allow)",
            escape_line(&req.server)
        ));
        return false;
    };
    let mut out = &tty;
    for line in question(&req) {
        let _ = writeln!(out, "{line}");
    }
    let _ = write!(out, "send it to {}? [y]es / [n]o: ", req.model);
    let _ = out.flush();
    let answer = std::io::BufReader::new(&tty).lines().next().and_then(Result::ok);
    matches!(answer.as_deref().map(str::trim), Some("y") | Some("yes"))
}

/// The line printed after a call that sampled (nothing when no request came).
pub fn summary(s: &Sampler) -> Option<String> {
    let t = s.totals();
    (t.answered + t.declined > 0).then(|| {
        format!(
            "sagedeck: sampling: {} answered by {}, {} declined; {} tokens in, {} out",
            t.answered,
            s.llm().name(),
            t.declined,
            t.tokens_in,
            t.tokens_out
        )
    })
}
