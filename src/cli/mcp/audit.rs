//! The audit of `tools call`, as the console audits its tool calls: an intent line before the
//! call is sent (an unwritable log refuses the call), a result line after it; with a team trail
//! (`--audit-log-group`, `audit_log_group`) both also go to its CloudWatch Logs group, as every
//! other mutation's do.

use serde_json::Value;

use crate::aws::Fleet;
use crate::aws::change::audit::{AuditContext, Mutation, Pending};
use crate::aws::change::guard::Audited;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::Exit;

/// Who is calling, and the fleet that writes the team's trail.
pub struct Caller {
    ctx: AuditContext,
    fleet: Result<Fleet, String>,
}

/// Who is calling: the AWS principal when AWS is configured (STS, 5 s at most), else the
/// profile and region alone. Meant to run while the MCP server connects.
pub async fn context(g: &GlobalArgs) -> Caller {
    match Fleet::connect(&g.aws_options()).await {
        Ok(fleet) => Caller {
            ctx: AuditContext::from_fleet(&fleet).await,
            fleet: Ok(fleet),
        },
        Err(e) => Caller {
            ctx: AuditContext {
                principal: None,
                profile: g.profile_name(),
                region: g.region.clone().unwrap_or_default(),
                endpoint_url: g.endpoint_url.clone(),
            },
            fleet: Err(e.to_string()),
        },
    }
}

/// An intent written for one tool call, waiting for its result.
pub struct ToolAudit {
    audited: Audited,
    pending: Pending,
}

/// Writes the intent of calling `server/tool` with `arguments` (secrets are redacted by the
/// log) to the file and to the team's trail when one is configured; exit 6 when neither holds
/// it: do not call then. A trail that cannot be written is said once on stderr.
pub async fn intent(
    g: &GlobalArgs,
    caller: Caller,
    server: &str,
    tool: &str,
    arguments: &Value,
) -> Result<ToolAudit, Exit> {
    let audited = Audited {
        audit: g.open_audit()?,
        ctx: caller.ctx,
    };
    match (&caller.fleet, g.audit_log_group()) {
        (Ok(fleet), _) => g.attach_team(&audited.audit, fleet, audited.ctx.principal.as_deref()),
        (Err(e), Some(group)) => eprintln!(
            "sagedeck: warning: the team's audit trail {group} was not written (no AWS connection: {e}); the audit file still guards every change"
        ),
        (Err(_), None) => {}
    }
    let pending = audited
        .intent(Mutation {
            action: "tool.call".into(),
            target: format!("{server}/{tool}"),
            before: Value::Null,
            after: serde_json::json!({ "arguments": arguments, "repeat": 1 }),
            reason: g.reason.clone(),
        })
        .await
        .map_err(Exit::refused)?;
    Ok(ToolAudit { audited, pending })
}

impl ToolAudit {
    /// Writes the result line: `Ok(())`, or what went wrong. The call has happened, so a log
    /// that fails now is reported, not fatal.
    pub fn finish(self, outcome: Result<(), String>) {
        if let Err(e) = self.audited.finish(&self.pending, outcome.map(|()| None)) {
            eprintln!("sagedeck: warning: {e}");
        }
    }
}
