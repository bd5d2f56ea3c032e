//! The Invoke pane's `:session new|ID|off`: the stateful session its next calls are sent in.

use crate::aws::invoke::session::NEW_SESSION;

/// The session after `:session ARG` (from `current`), and what to tell the operator.
pub(super) fn command(current: Option<String>, arg: Option<&str>) -> (Option<String>, String) {
    let next = match arg.map(str::trim) {
        None | Some("") => {
            let now = current.as_deref().unwrap_or("off").to_string();
            return (current, format!("session: {now} (:session new|ID|off)"));
        }
        Some("off") => None,
        Some("new") => Some(NEW_SESSION.to_string()),
        Some(id) => Some(id.to_string()),
    };
    let text = match next.as_deref() {
        None => "session off: calls go where the router sends them".to_string(),
        Some(NEW_SESSION) => "session: the next call opens one".to_string(),
        Some(id) => format!("session {id}: the next calls keep it"),
    };
    (next, text)
}
