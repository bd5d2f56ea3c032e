//! The audit log's record of a minted bearer token: `openai.token`, for which endpoint (and
//! component), on which base URL and until when — never the token. `sagedeck openai-env`, the
//! agent's `--shape openai` and the console's OpenAI mode all write this one record, the intent
//! before the token is minted and its result after.

use std::sync::Arc;

use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::aws::invoke::openai::{MintFinish, MintGate, MintNotice};

/// The audited action of a mint.
pub const TOKEN_ACTION: &str = "openai.token";

/// The record of a token minted for `notice`'s endpoint in `region`.
pub fn token_mutation(notice: &MintNotice, region: &str, reason: Option<String>) -> Mutation {
    let target = match &notice.component {
        Some(ic) => format!("{}/{ic}", notice.endpoint),
        None => notice.endpoint.clone(),
    };
    let until = humantime::format_rfc3339_seconds(notice.until).to_string();
    Mutation {
        action: TOKEN_ACTION.into(),
        target,
        before: serde_json::Value::Null,
        after: json!({"endpoint": notice.endpoint, "inference_component": notice.component,
            "base_url": notice.base_url, "expires": until, "region": region}),
        reason,
    }
}

impl Audited {
    /// A gate that writes the record of each mint to this log first (a log that cannot be
    /// written refuses the mint) and its result after.
    pub fn token_gate(&self, reason: Option<String>) -> MintGate {
        let audited = self.clone();
        Arc::new(move |notice: &MintNotice| {
            let m = token_mutation(notice, &audited.ctx.region, reason.clone());
            let pending = audited.intent_now(m).map_err(|e| format!("{e}; no token was minted"))?;
            let audited = audited.clone();
            let finish: MintFinish = Box::new(move |outcome| {
                if let Err(e) = audited.finish(&pending, outcome.map(|()| None)) {
                    tracing::warn!("{e}");
                }
            });
            Ok(finish)
        })
    }
}
