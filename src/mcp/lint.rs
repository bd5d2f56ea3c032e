//! The tool schema lint (`tools list --lint`): what makes a server's tools hard for a person or
//! an agent to call right — an input or output schema that is not valid JSON Schema (or an
//! input schema that is not an object), `required` names missing from `properties`,
//! descriptions missing (the tool's, its parameters'), and annotations absent, so that an agent
//! cannot tell a read from a change and must ask before every call.

use rmcp::model::Tool;
use serde::Serialize;
use serde_json::Value;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The tool.
    pub tool: String,
    /// The rule (`invalid_schema`, `required_not_in_properties`, `missing_description`,
    /// `missing_annotations`).
    pub rule: &'static str,
    /// What is wrong, in one line.
    pub message: String,
}

/// Lints every tool.
pub fn lint(tools: &[Tool]) -> Vec<Finding> {
    tools.iter().flat_map(lint_tool).collect()
}

fn finding(tool: &Tool, rule: &'static str, message: String) -> Finding {
    Finding {
        tool: tool.name.to_string(),
        rule,
        message,
    }
}

/// Lints one tool.
pub fn lint_tool(tool: &Tool) -> Vec<Finding> {
    let mut out = Vec::new();
    let input = Value::Object((*tool.input_schema).clone());
    if let Err(e) = jsonschema::options().build(&input) {
        out.push(finding(
            tool,
            "invalid_schema",
            format!("inputSchema is not valid JSON Schema: {e}"),
        ));
    }
    if input.get("type").and_then(Value::as_str) != Some("object") {
        out.push(finding(
            tool,
            "invalid_schema",
            "inputSchema must be of \"type\": \"object\"".into(),
        ));
    }
    if let Some(output) = &tool.output_schema {
        let output = Value::Object((**output).clone());
        if let Err(e) = jsonschema::options().build(&output) {
            out.push(finding(
                tool,
                "invalid_schema",
                format!("outputSchema is not valid JSON Schema: {e}"),
            ));
        }
    }
    for (path, name) in required_missing(&input, "$") {
        out.push(finding(
            tool,
            "required_not_in_properties",
            format!("{path} requires `{name}`, which its properties do not define"),
        ));
    }
    if tool.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
        out.push(finding(
            tool,
            "missing_description",
            "the tool has no description".into(),
        ));
    }
    if let Some(props) = input.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            if p.get("description")
                .and_then(Value::as_str)
                .is_none_or(|d| d.trim().is_empty())
            {
                out.push(finding(
                    tool,
                    "missing_description",
                    format!("parameter `{name}` has no description"),
                ));
            }
        }
    }
    let hinted = tool
        .annotations
        .as_ref()
        .is_some_and(|a| a.read_only_hint.is_some() || a.destructive_hint.is_some());
    if !hinted {
        out.push(finding(
            tool,
            "missing_annotations",
            "no readOnlyHint or destructiveHint: an agent cannot tell a read from a change and must ask before every call"
                .into(),
        ));
    }
    out
}

/// Every `required` name missing from its object's `properties`, at any depth.
fn required_missing(schema: &Value, path: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(name)) {
                out.push((path.to_string(), name.to_string()));
            }
        }
    }
    for (name, p) in props.into_iter().flatten() {
        out.extend(required_missing(p, &format!("{path}.{name}")));
    }
    if let Some(items) = schema.get("items") {
        out.extend(required_missing(items, &format!("{path}[]")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;
    use serde_json::json;
    use std::sync::Arc;

    fn tool(schema: Value, desc: Option<&str>) -> Tool {
        let mut t = Tool::new(
            "t",
            desc.unwrap_or("").to_string(),
            Arc::new(schema.as_object().cloned().unwrap()),
        );
        if desc.is_none() {
            t.description = None;
        }
        t
    }

    #[test]
    fn each_rule_finds_its_fault() {
        let bad = tool(
            json!({"type": "object", "properties": {"a": {"type": "nonsense"}, "o": {"type": "object", "required": ["z"]}}, "required": ["b"]}),
            None,
        );
        let rules: Vec<&str> = lint_tool(&bad).iter().map(|f| f.rule).collect();
        assert!(rules.contains(&"invalid_schema"), "{rules:?}");
        assert_eq!(rules.iter().filter(|r| **r == "required_not_in_properties").count(), 2);
        assert_eq!(rules.iter().filter(|r| **r == "missing_description").count(), 3);
        assert!(rules.contains(&"missing_annotations"));
        let mut good = tool(
            json!({"type": "object", "properties": {"a": {"type": "string", "description": "A"}}, "required": ["a"]}),
            Some("does a"),
        );
        good.annotations = Some(ToolAnnotations::new().read_only(true));
        assert_eq!(lint_tool(&good), vec![]);
    }
}
