//! OpenAI mode's tools: those of a connected MCP server (the Tools pane's hub), chosen with `t`
//! (each connected server with tools in turn, then none) and sent as the Chat Completions
//! request's `tools`, in its function form — unless the typed request sets `tools` itself.

use serde_json::{Value, json};

use crate::mcp::{ServerStatus, ServerView};

/// A tool in Chat Completions' form: `{"type": "function", "function": {name, description,
/// parameters}}` (the input schema as the parameters).
pub fn function_tool(t: &rmcp::model::Tool) -> Value {
    json!({"type": "function", "function": {
        "name": t.name,
        "description": t.description,
        "parameters": &*t.input_schema,
    }})
}

/// The connected servers' tools and the one chosen.
#[derive(Debug, Default)]
pub struct ToolChoice {
    /// Connected servers with tools: name and their tools in function form.
    servers: Vec<(String, Vec<Value>)>,
    /// The chosen server's name.
    chosen: Option<String>,
}

impl ToolChoice {
    /// The hub's servers as they stand: a chosen server that is no longer connected is dropped.
    pub fn update(&mut self, servers: &[ServerView]) {
        self.servers = servers
            .iter()
            .filter(|s| matches!(s.status, ServerStatus::Connected { .. }) && !s.tools.is_empty())
            .map(|s| (s.name.clone(), s.tools.iter().map(function_tool).collect()))
            .collect();
        if let Some(c) = &self.chosen
            && !self.servers.iter().any(|(name, _)| name == c)
        {
            self.chosen = None;
        }
    }

    /// Moves to the next connected server (after the last: none); the server now chosen.
    pub fn cycle(&mut self) -> Option<&str> {
        let next = match &self.chosen {
            None => 0,
            Some(c) => self.servers.iter().position(|(name, _)| name == c).map_or(0, |i| i + 1),
        };
        self.chosen = self.servers.get(next).map(|(name, _)| name.clone());
        self.chosen.as_deref()
    }

    /// Whether any connected server has tools.
    pub fn any(&self) -> bool {
        !self.servers.is_empty()
    }

    /// The chosen server and its tools.
    pub fn chosen(&self) -> Option<(&str, &[Value])> {
        let name = self.chosen.as_deref()?;
        let (_, tools) = self.servers.iter().find(|(n, _)| n == name)?;
        Some((name, tools))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::mcp::TransportKind;

    fn server(name: &str, connected: bool, tools: &[&str]) -> ServerView {
        let schema: serde_json::Map<String, Value> = serde_json::from_value(json!({"type": "object"})).unwrap();
        ServerView {
            name: name.into(),
            transport: TransportKind::Stdio,
            target: "x".into(),
            status: if connected {
                ServerStatus::Connected {
                    protocol_version: "2025-06-18".into(),
                    connect_ms: 1.0,
                }
            } else {
                ServerStatus::Idle
            },
            server: None,
            auth: crate::mcp::oauth::AuthState::None,
            tools: tools
                .iter()
                .map(|t| rmcp::model::Tool::new(t.to_string(), "does it", Arc::new(schema.clone())))
                .collect(),
        }
    }

    #[test]
    fn t_cycles_through_the_connected_servers_then_none() {
        let mut c = ToolChoice::default();
        c.update(&[server("radio", true, &["top_song"]), server("off", false, &["x"]), server("demo", true, &["a", "b"])]);
        assert_eq!(c.cycle(), Some("radio"));
        let (_, tools) = c.chosen().unwrap();
        assert_eq!(tools[0]["function"]["name"], "top_song");
        assert_eq!(tools[0]["function"]["parameters"], json!({"type": "object"}));
        assert_eq!(c.cycle(), Some("demo"));
        assert_eq!(c.chosen().unwrap().1.len(), 2);
        assert_eq!(c.cycle(), None, "after the last: none");
        c.cycle();
        c.update(&[server("demo", true, &["a"])]);
        assert_eq!(c.chosen(), None, "radio left the hub");
    }
}
