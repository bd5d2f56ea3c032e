//! `sagedeck openai-env ENDPOINT [--inference-component IC] [--expires 1h] [--shell sh|fish|json]`:
//! the base URL of the endpoint's OpenAI-compatible API (from the runtime endpoint the SDK would
//! use, so `--endpoint-url` and the sandbox work) and a bearer token minted from the session's
//! credentials, as `OPENAI_BASE_URL` / `OPENAI_API_KEY` for any OpenAI client (the way
//! `aws ecr get-login-password` serves docker). A token invokes: read-only refuses it, and the
//! audit log records that one was minted, for which endpoint and until when — never the token.

use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::invoke::openai::MAX_TOKEN_LIFE;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{outln, print_json};

/// How the variables are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellKind {
    /// `export NAME='value'` (bash, zsh, sh): `eval "$(sagedeck openai-env EP)"`.
    Sh,
    /// `set -gx NAME 'value';` (fish): `sagedeck openai-env EP --shell fish | source`.
    Fish,
    /// One JSON object.
    Json,
}

/// `sagedeck openai-env`.
#[derive(Debug, Args)]
pub struct OpenAiEnvArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// The inference component to address, on an endpoint that hosts components.
    #[arg(long, value_name = "IC")]
    pub inference_component: Option<String>,
    /// The token's life (1s to 12h).
    #[arg(long, default_value = "1h", value_parser = crate::format::parse_duration)]
    pub expires: Duration,
    /// Output: `sh` exports, `fish` set commands, or `json` (also `--json`).
    #[arg(long, value_enum, default_value = "sh")]
    pub shell: ShellKind,
}

/// `'value'` with single quotes escaped for sh and fish.
fn quoted(value: &str, shell: ShellKind) -> String {
    match shell {
        ShellKind::Fish => format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'")),
        _ => format!("'{}'", value.replace('\'', "'\\''")),
    }
}

/// Runs `openai-env`.
pub async fn run(g: &GlobalArgs, args: OpenAiEnvArgs) -> CmdResult {
    if args.expires.is_zero() || args.expires > MAX_TOKEN_LIFE {
        return Err(Exit::usage(
            "--expires must be between 1s and 12h (AWS's longest token life)",
        ));
    }
    let fleet = g.connect().await?;
    let base_url = fleet
        .openai_base_url(&args.endpoint, args.inference_component.as_deref())
        .await?;
    let audited = g.audited(&fleet).await?;
    let target = match &args.inference_component {
        Some(ic) => format!("{}/{ic}", args.endpoint),
        None => args.endpoint.clone(),
    };
    let until = humantime::format_rfc3339_seconds(std::time::SystemTime::now() + args.expires).to_string();
    let pending = audited
        .intent(Mutation {
            action: "openai.token".into(),
            target,
            before: serde_json::Value::Null,
            after: json!({"endpoint": args.endpoint, "inference_component": args.inference_component,
                "base_url": base_url, "expires": until, "region": fleet.region}),
            reason: g.reason.clone(),
        })
        .await
        .map_err(|e| Exit::refused(format!("{e}; no token was minted")))?;
    let token = match fleet.mint_bearer_token(args.expires).await {
        Ok(t) => t,
        Err(e) => {
            let _ = audited.finish(&pending, Err(e.to_string()));
            return Err(e.into());
        }
    };
    let expires = humantime::format_rfc3339_seconds(token.expires_at).to_string();
    if let Err(e) = audited.finish(&pending, Ok(None)) {
        tracing::warn!("{e}");
    }
    let shell = if g.json { ShellKind::Json } else { args.shell };
    match shell {
        ShellKind::Json => print_json(&json!({
            "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": token.expose(), "expires": expires,
            "endpoint": args.endpoint, "inference_component": args.inference_component,
        })),
        ShellKind::Sh => {
            outln!("# sagedeck: a bearer token for {base_url}, valid until {expires}")?;
            outln!("export OPENAI_BASE_URL={}", quoted(&base_url, shell))?;
            outln!("export OPENAI_API_KEY={}", quoted(token.expose(), shell))?;
            Ok(())
        }
        ShellKind::Fish => {
            outln!("# sagedeck: a bearer token for {base_url}, valid until {expires}")?;
            outln!("set -gx OPENAI_BASE_URL {};", quoted(&base_url, shell))?;
            outln!("set -gx OPENAI_API_KEY {};", quoted(token.expose(), shell))?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_for_each_shell() {
        assert_eq!(quoted("a'b", ShellKind::Sh), "'a'\\''b'");
        assert_eq!(quoted("a'b\\", ShellKind::Fish), "'a\\'b\\\\'");
    }
}
