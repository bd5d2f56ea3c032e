//! The client side of a connection: the type implementing rmcp's [`ClientHandler`], which
//! answers what a server sends sagedeck unasked (progress and log lines, both kept in the
//! server's log; list changes; resource updates) and what it asks (elicitation, handed to the
//! connection's [`Elicitor`]; sampling, handed to its [`Sampler`]; the same two when they come
//! as a 2026-07-28 call's input requests), which extensions it declares (tasks), and the state it
//! shares with its [`super::client::McpConnection`].

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, ProgressNotificationParam, ProgressToken,
    ResourceUpdatedNotificationParam, Tool, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use tokio::sync::{broadcast, mpsc};

use crate::format::{escape_line, has_controls};

use super::elicit::{self, ElicitAnswer, Elicitor};
use super::events::{LogSource, Progress, ServerEvent, ServerLog};
use super::sampling::Sampler;
use super::stdio_lines::CloseReason;

/// State shared by a connection and its notification handler.
pub(super) struct Shared {
    pub(super) log: ServerLog,
    pub(super) events: broadcast::Sender<ServerEvent>,
    /// Progress token of each running call → its progress channel.
    pub(super) routes: Mutex<HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>>,
    pub(super) tools: RwLock<Vec<Tool>>,
    /// Why this side closed the connection (a stdio message over the limit), if it did.
    pub(super) closed_why: CloseReason,
    /// The tools left out of the last listing (their names, escaped), and why.
    pub(super) refused: RwLock<Vec<String>>,
    /// The server's registry name (elicitations carry it).
    pub(super) server: String,
    /// Who answers the server's elicitations (None: they are declined).
    pub(super) elicitor: Option<Elicitor>,
    /// Who answers its sampling requests (None: sampling is not declared).
    pub(super) sampler: Option<Arc<Sampler>>,
    /// Whether the tasks extension is declared (a server may then answer a call with a task).
    pub(super) tasks: bool,
}

impl Shared {
    /// Asks the connection's elicitor (or declines when there is none), logs the answer and
    /// announces it: a server's `elicitation/create`, or an elicitation among a 2026-07-28
    /// `input_required` answer's input requests.
    pub(super) async fn elicit(&self, request: ElicitRequestParams) -> ElicitResult {
        let asked = elicit::from_params(request);
        let (answer, why) = match &self.elicitor {
            Some(e) => (e.ask(&self.server, asked.clone()).await, ""),
            None => (ElicitAnswer::Decline, " (nobody to ask)"),
        };
        let message = asked.message().to_string();
        self.log.push(
            LogSource::Client,
            format!("elicitation/create {}{why}: {}", answer.verb(), escape_line(&message)),
        );
        let _ = self.events.send(ServerEvent::Elicited {
            message,
            answer: answer.verb().into(),
        });
        elicit::to_result(&asked, answer)
    }

    /// Has the connection's sampler answer a sampling request (or refuses it, saying how to
    /// enable sampling), and logs what happened.
    #[allow(deprecated)]
    pub(super) async fn sample(
        &self,
        params: &rmcp::model::CreateMessageRequestParams,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let Some(sampler) = &self.sampler else {
            self.log
                .push(LogSource::Client, "sampling/createMessage declined: no --sampling-llm");
            return Err(super::sampling::not_enabled());
        };
        let answer = sampler.answer(&self.server, params).await;
        let line = match &answer {
            Ok(_) => format!("sampling/createMessage answered by {}", sampler.llm().name()),
            Err(e) => format!("sampling/createMessage declined ({}): {}", e.code.0, e.message),
        };
        self.log.push(LogSource::Client, line);
        answer
    }

    /// Keeps `tools` as the listing, leaving out (with a warning in the log) every tool whose
    /// name holds a control character: such a name could rewrite what a terminal shows around
    /// it (an approval question), and nothing could call it by a name a person can type.
    pub(super) fn keep_tools(&self, tools: Vec<Tool>) -> Vec<Tool> {
        let (kept, refused): (Vec<Tool>, Vec<Tool>) = tools.into_iter().partition(|t| !has_controls(&t.name));
        let warnings: Vec<String> = refused
            .iter()
            .map(|t| {
                format!(
                    "tool `{}` left out: its name holds control characters",
                    escape_line(&t.name)
                )
            })
            .collect();
        for w in &warnings {
            self.log.push(LogSource::Client, w.clone());
        }
        *self.refused.write() = warnings;
        *self.tools.write() = kept.clone();
        kept
    }
}

/// What sagedeck answers a server on one connection: the notifications it sends (progress,
/// log lines, list changes) and the requests it makes of the client. One per connection,
/// sharing [`Shared`] with it.
#[derive(Clone)]
pub struct McpClientHandler(pub(super) Arc<Shared>);

fn token_text(t: &ProgressToken) -> String {
    serde_json::to_value(&t.0)
        .map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
        .unwrap_or_default()
}

impl ClientHandler for McpClientHandler {
    async fn on_progress(&self, params: ProgressNotificationParam, _ctx: NotificationContext<RoleClient>) {
        let p = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
            task: None,
        };
        let total = p.total.map(|t| format!("/{t}")).unwrap_or_default();
        let msg = p.message.as_deref().map(|m| format!(" {m}")).unwrap_or_default();
        self.0.log.push(
            LogSource::Notification("progress".into()),
            format!("{}{total}{msg}", p.progress),
        );
        let routed = match self.0.routes.lock().get(&params.progress_token) {
            Some(tx) => tx.send(p.clone()).is_ok(),
            None => false,
        };
        let _ = self.0.events.send(ServerEvent::Progress {
            token: token_text(&params.progress_token),
            progress: p,
            late: !routed,
        });
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "info".into());
        let text = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.0.log.push(LogSource::Notification(level.clone()), text.clone());
        let _ = self.0.events.send(ServerEvent::Log {
            level,
            logger: params.logger,
            text,
        });
    }

    async fn on_tool_list_changed(&self, ctx: NotificationContext<RoleClient>) {
        let shared = self.0.clone();
        let peer = ctx.peer.clone();
        tokio::spawn(async move {
            match peer.list_all_tools().await {
                Ok(tools) => {
                    let count = shared.keep_tools(tools).len();
                    shared
                        .log
                        .push(LogSource::Client, format!("tools/list_changed: {count} tools now"));
                    let _ = shared.events.send(ServerEvent::ToolsChanged { count });
                }
                Err(e) => shared
                    .log
                    .push(LogSource::Client, format!("tools/list_changed: re-listing failed: {e}")),
            }
        });
    }

    async fn on_resource_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.0.log.push(LogSource::Client, "resources/list_changed");
        let _ = self.0.events.send(ServerEvent::ResourcesChanged);
    }

    async fn on_prompt_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.0.log.push(LogSource::Client, "prompts/list_changed");
        let _ = self.0.events.send(ServerEvent::PromptsChanged);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.0
            .log
            .push(LogSource::Client, format!("resources/updated: {}", params.uri));
        let _ = self.0.events.send(ServerEvent::ResourceUpdated { uri: params.uri });
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.0.elicit(request).await)
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        self.0.sample(&params).await
    }

    #[allow(deprecated)]
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if let Some(sampler) = &self.0.sampler {
            let mut sampling = rmcp::model::SamplingCapability::default();
            // Tools in sampling (2025-11-25) where the sampler's shape offers them to its model.
            sampling.tools = sampler.answers_tools().then(Default::default);
            caps.sampling = Some(sampling);
        }
        caps.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new().with_schema_validation(true))
                .with_url(UrlElicitationCapability::new()),
        );
        if self.0.tasks {
            caps.extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::TASKS_EXTENSION_ID.to_string(), Default::default());
        }
        ClientConfig::new(caps, Implementation::new("sagedeck", env!("CARGO_PKG_VERSION")))
    }
}
