//! The console's answer to servers' sampling requests: `[mcp] sampling_llm` of config.toml (the
//! demo's `llm-tgi-chat`) answers them, approved in a dialog (`approve_sampling`, ask by
//! default: the request is sent to the app with a channel, and the handler waits on it on a
//! blocking thread), written to the audit log first. The sampler's fleet connects at the first
//! request unless the console already has one, so the console never waits on AWS to start.
//! With a team trail (`audit_log_group`), the lines go to its group too, as every change's do.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::aws::change::audit::{Audit, AuditContext, default_audit_path};
use crate::aws::change::guard::Audited;
use crate::aws::change::team::Notify;
use crate::aws::{AwsOptions, Fleet};
use crate::mcp::agent::{Shape, Template};
use crate::mcp::sampling::{Sampler, SamplingApproval, SamplingApprover, SamplingLlm, SamplingRequest};
use crate::tui::config::McpDefaults;
use crate::tui::event::AppEvent;
use crate::tui::widgets::sampling::SamplingAsk;

/// How long a dialog may stay unanswered before the request is declined.
const ASK_LIMIT: Duration = Duration::from_secs(600);

/// The sampler `[mcp]` asks for (None: sampling declined), or why sampling is off.
pub fn console_sampler(
    s: &McpDefaults,
    aws: &AwsOptions,
    fleet: Option<&Fleet>,
    (audit_file, team): (Option<&std::path::Path>, Option<&str>),
    (events, reason): (UnboundedSender<AppEvent>, Option<String>),
) -> Result<Option<Arc<Sampler>>, String> {
    let Some(llm) = s.sampling_llm.as_deref() else {
        return Ok(None);
    };
    let off = |e: String| format!("[mcp] sampling is off: {e}");
    let llm = SamplingLlm::parse(llm).map_err(off)?;
    let shape = Shape::named(s.sampling_shape.as_deref().unwrap_or("messages")).map_err(off)?;
    let template = Template::named(s.sampling_template.as_deref().unwrap_or("chatml")).map_err(off)?;
    let approval = SamplingApproval::named(s.approve_sampling.as_deref().unwrap_or("ask")).map_err(off)?;
    let path = audit_file
        .map(std::path::Path::to_path_buf)
        .or_else(default_audit_path)
        .ok_or_else(|| off("no audit log location (HOME is not set)".into()))?;
    let audit = Audit::open(&path).map_err(|e| off(e.to_string()))?;
    let ctx = AuditContext {
        principal: None,
        profile: aws.profile.clone().unwrap_or_else(|| "default".into()),
        region: aws.region.clone().unwrap_or_default(),
        endpoint_url: aws.endpoint_url.clone(),
    };
    let sampler = match fleet {
        Some(f) => Sampler::new(f.clone(), llm, shape, template, approval),
        None => Sampler::connecting(aws.clone(), llm, shape, template, approval),
    };
    let audited = Audited {
        audit: Arc::new(audit),
        ctx,
    };
    let mut sampler = sampler.with_audit(audited, reason);
    if let Some(group) = team {
        let told = events.clone();
        let notify: Notify = Arc::new(move |text: String| super::guard::notice(&told, true, text));
        sampler = sampler.with_team(group.to_string(), notify);
    }
    Ok(Some(Arc::new(sampler.with_approver(dialog(events)))))
}

/// Asks in the console's dialog and waits for the answer (a closed console, or no answer
/// within [`ASK_LIMIT`], declines).
fn dialog(events: UnboundedSender<AppEvent>) -> SamplingApprover {
    Arc::new(move |request: SamplingRequest| {
        let (answer, rx) = std::sync::mpsc::channel();
        if events
            .send(AppEvent::SamplingAsked(SamplingAsk { request, answer }))
            .is_err()
        {
            return false;
        }
        rx.recv_timeout(ASK_LIMIT).unwrap_or(false)
    })
}
