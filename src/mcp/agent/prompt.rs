//! The system prompt: the seed's words by default, with each tool listed as the JSON object the
//! seed shows (`{"name", "description", "parameters"}`), or a file of the operator's with a
//! `{tools}` placeholder for that list.

use serde_json::{Value, json};

use super::ToolRef;

/// The placeholder a custom system prompt puts the tool list in.
pub const TOOLS_PLACEHOLDER: &str = "{tools}";

/// The seed's system prompt, `{tools}` where the tool list goes.
pub const SEED_PROMPT: &str = "You are a helpful assistant with access to these tools:\n\n{tools}\n\
Choose the appropriate tool based on the user's question. If no tool is needed, reply directly.\n\n\
IMPORTANT: When you need to use a tool, you must ONLY respond with the exact JSON object format below, nothing else:\n\
{\n \"tool\": \"tool-name\",\n \"arguments\": {\n \"argument-name\": \"value\"\n }\n}\n\n\
After receiving a tool's response:\n\
1. Transform the raw data into a natural, conversational response\n\
2. Keep responses concise but informative\n\
3. Focus on the most relevant information\n\
4. Use appropriate context from the user's question\n\
5. Avoid simply repeating the raw data\n\n\
Please use only the tools that are explicitly defined above.";

/// A tool as the seed's JSON schema example shows it.
pub fn tool_json(t: &ToolRef) -> Value {
    json!({
        "name": t.name,
        "description": t.description,
        "parameters": t.input_schema,
    })
}

/// The tools in the native `tools` field's form (`{"type": "function", "function": {...}}`).
pub fn native_tools(tools: &[ToolRef]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| json!({"type": "function", "function": tool_json(t)}))
            .collect(),
    )
}

/// The tool list: one JSON object per line.
pub fn tools_description(tools: &[ToolRef]) -> String {
    tools.iter().map(|t| format!("{}\n", tool_json(t))).collect()
}

/// The system prompt from `template` (the seed's when None); a template without the placeholder
/// gets the list appended.
pub fn system_prompt(template: Option<&str>, tools: &[ToolRef]) -> String {
    let template = template.unwrap_or(SEED_PROMPT);
    let list = tools_description(tools);
    if template.contains(TOOLS_PLACEHOLDER) {
        template.replace(TOOLS_PLACEHOLDER, &list)
    } else {
        format!("{template}\n\n{list}")
    }
}
