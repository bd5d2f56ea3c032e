//! The Agent pane's `:` commands that change what new runs (and re-runs) send:
//! `:agent-shape openai|messages|generate` (the request shape: Chat Completions on the OpenAI
//! path, the messages body or the generate body) and `:agent-session new|ID|off` (one stateful
//! session per run: `new` opens one at the run's first call, an id joins that one, `off` none).

use crate::mcp::agent::Shape;
use crate::tui::config::AgentDefaults;
use crate::tui::widgets::toasts::Level;

/// Applies `:name arg` to `settings`: the toast that says what changed or why not; None when
/// `name` is not one of these commands.
pub(super) fn settings_command(settings: &mut AgentDefaults, name: &str, arg: Option<&str>) -> Option<(Level, String)> {
    let said = match (name, arg) {
        ("agent-shape", Some(shape)) => match Shape::named(shape) {
            Ok(_) => {
                settings.shape = Some(shape.to_string());
                (Level::Info, format!("Agent: new runs use the {shape} shape"))
            }
            Err(e) => (Level::Warn, format!(":agent-shape: {e}")),
        },
        ("agent-session", Some("off")) => {
            settings.session = None;
            (Level::Info, "Agent: new runs keep no session".to_string())
        }
        ("agent-session", Some(session)) => session_on(settings, session),
        ("agent-shape" | "agent-session", None) => (Level::Warn, format!(":{name} needs a value (see ? for help)")),
        _ => return None,
    };
    Some(said)
}

/// `:agent-session new|ID`: refused where SageMaker refuses it (NEW_SESSION on a response
/// stream outside the OpenAI path), as `sagedeck agent --stream --session new` is.
fn session_on(settings: &mut AgentDefaults, session: &str) -> (Level, String) {
    let openai = settings.shape.as_deref() == Some("openai");
    if session == "new" && settings.stream.unwrap_or(false) && !openai {
        let why = "a streamed run cannot open a session (SageMaker refuses NEW_SESSION on a response stream): give an open session's id, or :agent-shape openai";
        return (Level::Warn, format!(":agent-session new: {why}"));
    }
    settings.session = Some(session.to_string());
    let text = match session {
        "new" => "Agent: each new run opens a session at its first call and keeps it".to_string(),
        id => format!("Agent: new runs are sent in session {}", crate::format::escape_line(id)),
    };
    (Level::Info, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_and_session_change_what_new_runs_send() {
        let mut s = AgentDefaults::default();
        let (level, _) = settings_command(&mut s, "agent-shape", Some("openai")).unwrap();
        assert_eq!((level, s.shape.as_deref()), (Level::Info, Some("openai")));
        let (level, text) = settings_command(&mut s, "agent-shape", Some("xml")).unwrap();
        assert!(level == Level::Warn && text.contains("not messages, generate or openai"), "{text}");
        assert_eq!(s.shape.as_deref(), Some("openai"), "a refused shape changes nothing");
        settings_command(&mut s, "agent-session", Some("new")).unwrap();
        assert_eq!(s.session.as_deref(), Some("new"));
        settings_command(&mut s, "agent-session", Some("off")).unwrap();
        assert_eq!(s.session, None);
        assert!(settings_command(&mut s, "agent-llm", Some("x")).is_none());
    }

    #[test]
    fn a_streamed_run_cannot_open_a_session_outside_the_openai_path() {
        let mut s = AgentDefaults {
            shape: Some("messages".into()),
            stream: Some(true),
            ..Default::default()
        };
        let (level, text) = settings_command(&mut s, "agent-session", Some("new")).unwrap();
        assert_eq!(level, Level::Warn, "{text}");
        assert_eq!(s.session, None);
        settings_command(&mut s, "agent-session", Some("abc")).unwrap();
        assert_eq!(s.session.as_deref(), Some("abc"), "an open session's id is taken");
    }
}
