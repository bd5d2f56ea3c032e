//! A tool result as sagedeck shows it: each content block rendered (text, JSON pretty-printed,
//! image and audio as MIME type and size, resource links, embedded resources), the structured
//! content checked against the tool's outputSchema, and `is_error` kept apart.

use base64::Engine;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde::Serialize;
use serde_json::Value;

use super::schema;

/// One rendered content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// Text that parsed as a JSON object or array.
    Json {
        /// The value.
        value: Value,
    },
    /// An image.
    Image {
        /// Its MIME type.
        mime_type: String,
        /// Decoded size in bytes (None: the base64 is invalid).
        bytes: Option<usize>,
    },
    /// Audio.
    Audio {
        /// Its MIME type.
        mime_type: String,
        /// Decoded size in bytes (None: the base64 is invalid).
        bytes: Option<usize>,
    },
    /// A link to a resource.
    ResourceLink {
        /// URI.
        uri: String,
        /// Name.
        name: String,
        /// Its title (the name people read), when given.
        title: Option<String>,
        /// MIME type.
        mime_type: Option<String>,
        /// Description.
        description: Option<String>,
        /// Its icons' sources.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        icons: Vec<String>,
    },
    /// An embedded resource.
    Resource {
        /// URI.
        uri: String,
        /// MIME type.
        mime_type: Option<String>,
        /// Its text, when textual.
        text: Option<String>,
        /// Decoded blob size, when binary.
        bytes: Option<usize>,
    },
    /// A block this version does not know.
    Other {
        /// Its JSON.
        value: Value,
    },
}

/// A rendered tool result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderedResult {
    /// The tool reported an error (in-band `isError: true`).
    pub is_error: bool,
    /// The content blocks.
    pub blocks: Vec<Block>,
    /// The structured content.
    pub structured: Option<Value>,
    /// Output-schema check: None when there is nothing to check (no outputSchema, or an error
    /// result); otherwise the violations (empty = valid).
    pub schema_errors: Option<Vec<String>>,
}

fn decoded_len(data: &str) -> Option<usize> {
    base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .ok()
        .map(|b| b.len())
}

/// The sources of `icons` (none when absent).
pub fn icon_sources(icons: Option<&Vec<rmcp::model::Icon>>) -> Vec<String> {
    icons
        .map(|v| v.iter().map(|i| i.src.clone()).collect())
        .unwrap_or_default()
}

/// One content block as sagedeck shows it.
pub fn render_block(b: &ContentBlock) -> Block {
    match b {
        ContentBlock::Text(t) => {
            let trimmed = t.text.trim_start();
            if (trimmed.starts_with('{') || trimmed.starts_with('['))
                && let Ok(value) = serde_json::from_str::<Value>(&t.text)
            {
                return Block::Json { value };
            }
            Block::Text { text: t.text.clone() }
        }
        ContentBlock::Image(i) => Block::Image {
            mime_type: i.mime_type.clone(),
            bytes: decoded_len(&i.data),
        },
        ContentBlock::Audio(a) => Block::Audio {
            mime_type: a.mime_type.clone(),
            bytes: decoded_len(&a.data),
        },
        ContentBlock::ResourceLink(r) => Block::ResourceLink {
            uri: r.uri.clone(),
            name: r.name.clone(),
            title: r.title.clone(),
            mime_type: r.mime_type.clone(),
            description: r.description.clone(),
            icons: icon_sources(r.icons.as_ref()),
        },
        ContentBlock::Resource(e) => match &e.resource {
            ResourceContents::TextResourceContents {
                uri, mime_type, text, ..
            } => Block::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: Some(text.clone()),
                bytes: None,
            },
            ResourceContents::BlobResourceContents {
                uri, mime_type, blob, ..
            } => Block::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: None,
                bytes: decoded_len(blob),
            },
            #[allow(unreachable_patterns)]
            other => Block::Other {
                value: serde_json::to_value(other).unwrap_or(Value::Null),
            },
        },
        #[allow(unreachable_patterns)]
        other => Block::Other {
            value: serde_json::to_value(other).unwrap_or(Value::Null),
        },
    }
}

/// Renders `result`, checking its structured content against `output_schema` when the tool
/// has one and the result is not an error.
pub fn render(result: &CallToolResult, output_schema: Option<&Value>) -> RenderedResult {
    let is_error = result.is_error == Some(true);
    let schema_errors = match (output_schema, is_error) {
        (Some(s), false) => Some(match &result.structured_content {
            Some(v) => schema::validate(s, v),
            None => vec!["the tool has an outputSchema but returned no structuredContent".to_string()],
        }),
        _ => None,
    };
    RenderedResult {
        is_error,
        blocks: result.content.iter().map(render_block).collect(),
        structured: result.structured_content.clone(),
        schema_errors,
    }
}

fn size_text(bytes: Option<usize>) -> String {
    match bytes {
        Some(b) if b >= 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        Some(b) => format!("{b} bytes"),
        None => "invalid base64".into(),
    }
}

/// ` · icon SRC` for the first icon (`+N` more), empty without one.
pub fn icons_suffix(icons: &[String]) -> String {
    match icons {
        [] => String::new(),
        [one] => format!(" · icon {one}"),
        [one, rest @ ..] => format!(" · icon {one} +{}", rest.len()),
    }
}

impl RenderedResult {
    /// Human lines: each block, then the structured content and the schema check.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        if self.is_error {
            out.push("ERROR (the tool reported isError)".to_string());
        }
        for b in &self.blocks {
            out.push(match b {
                Block::Text { text } => text.clone(),
                Block::Json { value } => serde_json::to_string_pretty(value).unwrap_or_default(),
                Block::Image { mime_type, bytes } => format!("[image {mime_type}, {}]", size_text(*bytes)),
                Block::Audio { mime_type, bytes } => format!("[audio {mime_type}, {}]", size_text(*bytes)),
                Block::ResourceLink {
                    uri,
                    name,
                    title,
                    mime_type,
                    description,
                    icons,
                } => format!(
                    "[resource link {}: {uri}{}{}{}]",
                    title
                        .as_deref()
                        .map(|t| format!("{t} ({name})"))
                        .unwrap_or_else(|| name.clone()),
                    mime_type.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(),
                    description.as_deref().map(|d| format!(" — {d}")).unwrap_or_default(),
                    icons_suffix(icons)
                ),
                Block::Resource {
                    uri,
                    mime_type,
                    text,
                    bytes,
                } => match text {
                    Some(t) => format!(
                        "[resource {uri}{}]\n{t}",
                        mime_type.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
                    ),
                    None => format!(
                        "[resource {uri}{}, {}]",
                        mime_type.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(),
                        size_text(*bytes)
                    ),
                },
                Block::Other { value } => value.to_string(),
            });
        }
        if let Some(s) = &self.structured {
            let duplicate = self
                .blocks
                .iter()
                .any(|b| matches!(b, Block::Json { value } if value == s));
            if !duplicate {
                out.push(format!(
                    "structured content:\n{}",
                    serde_json::to_string_pretty(s).unwrap_or_default()
                ));
            }
        }
        match &self.schema_errors {
            Some(e) if e.is_empty() => out.push("structured content matches the outputSchema".into()),
            Some(e) => out.push(format!(
                "structured content violates the outputSchema: {}",
                e.join("; ")
            )),
            None => {}
        }
        out.join("\n")
    }

    /// The first text of the result (an error message, usually).
    pub fn first_text(&self) -> Option<String> {
        self.blocks.iter().find_map(|b| match b {
            Block::Text { text } => Some(text.clone()),
            Block::Json { value } => Some(value.to_string()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_blocks_and_checks_schema() {
        let mut r = CallToolResult::success(vec![
            ContentBlock::text("{\"a\": 1}"),
            ContentBlock::text("plain"),
            ContentBlock::image("aGVsbG8=", "image/png"),
        ]);
        r.structured_content = Some(json!({"a": 1}));
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let out = render(&r, Some(&schema));
        assert_eq!(out.blocks[0], Block::Json { value: json!({"a": 1}) });
        assert_eq!(
            out.blocks[2],
            Block::Image {
                mime_type: "image/png".into(),
                bytes: Some(5)
            }
        );
        assert_eq!(out.schema_errors.as_ref().map(Vec::len), Some(1));
        let text = out.to_text();
        assert!(
            text.contains("[image image/png, 5 bytes]") && text.contains("violates"),
            "{text}"
        );
        let err = render(&CallToolResult::error(vec![ContentBlock::text("boom")]), Some(&schema));
        assert!(err.is_error && err.schema_errors.is_none());
        assert_eq!(err.first_text().as_deref(), Some("boom"));
    }
}
