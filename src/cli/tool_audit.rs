//! The audit of `tools call`, as the console audits its tool calls: an intent line before the
//! call is sent (an unwritable log refuses the call), a result line after it.

use serde_json::Value;

use super::{EXIT_REFUSED, GlobalArgs};
use crate::aws::Fleet;
use crate::aws::audit::{Audit, AuditContext, Mutation, Pending};
use crate::aws::guard::Audited;

/// Who is calling: the AWS principal when AWS is configured (STS, 5 s at most), else the
/// profile and region alone. Meant to run while the MCP server connects.
pub async fn context(g: &GlobalArgs) -> AuditContext {
    match Fleet::connect(&g.aws_options()).await {
        Ok(fleet) => AuditContext::from_fleet(&fleet).await,
        Err(_) => AuditContext {
            principal: None,
            profile: g
                .profile
                .clone()
                .or_else(|| std::env::var("AWS_PROFILE").ok())
                .unwrap_or_else(|| "default".into()),
            region: g.region.clone().unwrap_or_default(),
            endpoint_url: g.endpoint_url.clone(),
        },
    }
}

/// An intent written for one tool call, waiting for its result.
pub struct ToolAudit {
    audited: Audited,
    pending: Pending,
}

/// Writes the intent of calling `server/tool` with `arguments` (secrets are redacted by the
/// log); `Err(exit code 6)` after saying why when it cannot be written: do not call then.
pub fn intent(
    g: &GlobalArgs,
    ctx: AuditContext,
    server: &str,
    tool: &str,
    arguments: &Value,
) -> Result<ToolAudit, i32> {
    let refuse = |e: &dyn std::fmt::Display| {
        eprintln!("sagedeck: {e}");
        EXIT_REFUSED
    };
    let Some(path) = g.audit_path() else {
        return Err(refuse(
            &"no audit log location (HOME is not set); pass --audit-file PATH; nothing was sent",
        ));
    };
    let audit = Audit::open(&path).map_err(|e| refuse(&e))?;
    let audited = Audited {
        audit: std::sync::Arc::new(audit),
        ctx,
    };
    let pending = audited
        .intent(Mutation {
            action: "tool.call".into(),
            target: format!("{server}/{tool}"),
            before: Value::Null,
            after: serde_json::json!({ "arguments": arguments, "repeat": 1 }),
            reason: g.reason.clone(),
        })
        .map_err(|e| refuse(&e))?;
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
