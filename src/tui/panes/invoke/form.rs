//! The Invoke pane's request form: body editor, content type, accept, target variant, target
//! model (or the inference component, on an endpoint that hosts them) and repeat count of one
//! endpoint; the default payload guessed from the container image;
//! the inline body check (JSON with line and column); and the bytes a body stands for (`hex:`
//! bytes, `@path` files, or the text itself).

use ratatui_textarea::{CursorMove, TextArea};
use serde::de::IgnoredAny;

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::endpoints::kind::EndpointKind;
use crate::aws::invoke::call::{MAX_PAYLOAD, is_json};

/// The form's fields, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Content-Type.
    ContentType,
    /// Accept.
    Accept,
    /// TargetVariant (cycles through the endpoint's variants, or none).
    Variant,
    /// TargetModel (multi-model endpoints only).
    Model,
    /// InferenceComponentName (cycles through the components of an endpoint that hosts them).
    Component,
    /// How many times to invoke.
    Repeat,
    /// The request body.
    Body,
}

const ORDER: [Field; 7] = [
    Field::ContentType,
    Field::Accept,
    Field::Variant,
    Field::Model,
    Field::Component,
    Field::Repeat,
    Field::Body,
];

/// Content types offered with ↑↓ in the Content-Type and Accept fields.
pub const CONTENT_TYPES: [&str; 8] = [
    "application/json",
    "application/jsonlines",
    "text/csv",
    "text/plain",
    "image/jpeg",
    "image/png",
    "application/x-npy",
    "application/octet-stream",
];

/// Largest repeat count the form accepts.
pub const MAX_REPEAT: u32 = 1000;

/// The payload family an endpoint's container expects, guessed from its image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    /// Hugging Face text classification (and the fallback): `{"inputs", "parameters"}` JSON.
    Classifier,
    /// TGI text generation: JSON with `max_new_tokens`.
    Generator,
    /// Built-in XGBoost / Linear Learner: a CSV row.
    Csv,
    /// Built-in image classification: binary JPEG.
    Image,
}

impl PayloadKind {
    /// The kind of an endpoint, from its variants' container images.
    pub fn of(e: &EndpointInfo) -> PayloadKind {
        let image = e
            .variants
            .iter()
            .filter_map(|v| v.image.as_deref())
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if image.contains("tgi") || image.contains("llm") || image.contains("generat") {
            PayloadKind::Generator
        } else if image.contains("xgboost") || image.contains("linear-learner") || image.contains("csv") {
            PayloadKind::Csv
        } else if image.contains("image-classification") || image.contains("resnet") || image.contains("image") {
            PayloadKind::Image
        } else {
            PayloadKind::Classifier
        }
    }

    /// Default (content type, accept, body text).
    pub fn defaults(self) -> (&'static str, &'static str, &'static str) {
        match self {
            PayloadKind::Classifier => (
                "application/json",
                "application/json",
                "{\n  \"inputs\": \"Book me a flight to Seattle tomorrow morning\",\n  \"parameters\": {\n    \"max_length\": 128,\n    \"return_all_scores\": true\n  }\n}",
            ),
            PayloadKind::Generator => (
                "application/json",
                "application/json",
                "{\n  \"inputs\": \"What is Amazon SageMaker?\",\n  \"parameters\": {\n    \"max_new_tokens\": 64,\n    \"temperature\": 0.7\n  }\n}",
            ),
            PayloadKind::Csv => ("text/csv", "text/csv", "0.5,1.0,3,12.5,0"),
            // A JPEG header: enough for a container to recognise the format.
            PayloadKind::Image => ("image/jpeg", "application/json", "hex:ffd8ffe000104a46494600"),
        }
    }
}

/// What the body check found.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyCheck {
    /// Nothing to send.
    Empty,
    /// Valid JSON (or JSON Lines) for a JSON content type.
    Json,
    /// Text sent as is.
    Text(usize),
    /// `hex:` bytes.
    Hex(usize),
    /// `@path`: the file is read when sending.
    File(String),
    /// Not sendable: the message, and where (1-based line and column) when known.
    Invalid {
        /// What is wrong.
        message: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
    },
}

/// The request being prepared for one endpoint.
#[derive(Debug, Clone)]
pub struct Form {
    /// Endpoint.
    pub endpoint: String,
    /// Payload family of the endpoint.
    pub kind: PayloadKind,
    /// Variants to cycle through.
    pub variants: Vec<String>,
    /// Whether the endpoint is multi-model.
    pub multi_model: bool,
    /// Whether the endpoint hosts inference components (a call must name one).
    pub hosts_components: bool,
    /// Whether the endpoint is asynchronous (sent with InvokeEndpointAsync, then followed).
    pub asynchronous: bool,
    /// The endpoint's components, once read.
    pub components: Vec<String>,
    /// InferenceComponentName.
    pub component: Option<String>,
    /// The body editor.
    pub body: TextArea<'static>,
    /// Content-Type.
    pub content_type: String,
    /// Accept (empty = none).
    pub accept: String,
    /// TargetVariant (None = routed by weight).
    pub variant: Option<String>,
    /// TargetModel text (MME).
    pub model: String,
    /// Highlighted completion of the model field.
    pub model_pick: usize,
    /// Whether the model field waits for the catalog to preselect its first model.
    pub model_pending: bool,
    /// Repeat count text.
    pub repeat: String,
    /// The body check, kept current with every edit.
    pub check: BodyCheck,
}

impl Form {
    /// A form with the defaults for this endpoint (the first catalog model as the target of an MME).
    pub fn new(e: &EndpointInfo, first_model: Option<&str>) -> Form {
        let kind = PayloadKind::of(e);
        let (ct, accept, body) = kind.defaults();
        let mut form = Form {
            endpoint: e.name.clone(),
            kind,
            variants: e.variants.iter().map(|v| v.name.clone()).collect(),
            multi_model: e.multi_model,
            hosts_components: e.kind == EndpointKind::InferenceComponents,
            asynchronous: e.kind.is_async(),
            components: Vec::new(),
            component: None,
            body: TextArea::default(),
            content_type: ct.into(),
            accept: accept.into(),
            variant: None,
            model: first_model.unwrap_or_default().into(),
            model_pick: 0,
            model_pending: e.multi_model && first_model.is_none(),
            repeat: "1".into(),
            check: BodyCheck::Empty,
        };
        form.set_body(body);
        form
    }

    /// Replaces the body text.
    pub fn set_body(&mut self, text: &str) {
        self.body = TextArea::new(text.split('\n').map(str::to_string).collect());
        self.recheck();
    }

    /// The body as typed.
    pub fn body_text(&self) -> String {
        self.body.lines().join("\n")
    }

    /// Re-runs the body check (after an edit or a content type change).
    pub fn recheck(&mut self) {
        self.check = check_body(&self.content_type, &self.body_text());
    }

    /// Fields reachable with Tab (Model only on a multi-model endpoint, Component only on one
    /// that hosts inference components).
    fn order(&self) -> Vec<Field> {
        ORDER
            .iter()
            .copied()
            .filter(|f| *f != Field::Model || self.multi_model)
            .filter(|f| *f != Field::Component || self.hosts_components)
            .collect()
    }

    /// Takes the endpoint's components as read: the chosen one stays when still there, else the
    /// first is chosen.
    pub fn set_components(&mut self, names: Vec<String>) {
        if self.component.as_ref().is_none_or(|c| !names.contains(c)) {
            self.component = names.first().cloned();
        }
        self.components = names;
    }

    /// Cycles the component through the endpoint's components.
    pub fn cycle_component(&mut self, back: bool) {
        let n = self.components.len();
        if n == 0 {
            return;
        }
        let i = self
            .component
            .as_ref()
            .and_then(|c| self.components.iter().position(|x| x == c))
            .unwrap_or(0);
        self.component = Some(self.components[if back { (i + n - 1) % n } else { (i + 1) % n }].clone());
    }

    /// The field after (or before) `from`.
    pub fn next_field(&self, from: Field, back: bool) -> Field {
        let order = self.order();
        let i = order.iter().position(|f| *f == from).unwrap_or(0);
        let n = order.len();
        order[if back { (i + n - 1) % n } else { (i + 1) % n }]
    }

    /// Cycles the target variant: none → each variant → none.
    pub fn cycle_variant(&mut self, back: bool) {
        let mut options: Vec<Option<String>> = vec![None];
        options.extend(self.variants.iter().cloned().map(Some));
        let i = options.iter().position(|o| *o == self.variant).unwrap_or(0);
        let n = options.len();
        self.variant = options[if back { (i + n - 1) % n } else { (i + 1) % n }].clone();
    }

    /// The repeat count, when valid.
    pub fn repeat_count(&self) -> Result<u32, String> {
        match self.repeat.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_REPEAT).contains(&n) => Ok(n),
            _ => Err(format!("repeat must be a number from 1 to {MAX_REPEAT}")),
        }
    }

    /// Pretty-prints a JSON body in place (keys keep their order); false when it is not JSON.
    pub fn pretty_print(&mut self) -> bool {
        match reindent(&self.body_text()) {
            Some(text) => {
                self.set_body(&text);
                true
            }
            None => false,
        }
    }

    /// Moves the editor's cursor to a 1-based line and column.
    pub fn jump_to(&mut self, line: usize, column: usize) {
        let row = line.saturating_sub(1).min(u16::MAX as usize) as u16;
        let col = column.saturating_sub(1).min(u16::MAX as usize) as u16;
        self.body.move_cursor(CursorMove::Jump(row, col));
    }
}

/// Checks a body for a content type: JSON (each line for JSON Lines) must parse, `hex:` must
/// decode; the error names the line and column.
pub fn check_body(content_type: &str, text: &str) -> BodyCheck {
    if text.trim().is_empty() {
        return BodyCheck::Empty;
    }
    if let Some(hex) = text.trim_start().strip_prefix("hex:") {
        return match decode_hex(hex) {
            Ok(b) => BodyCheck::Hex(b.len()),
            Err(message) => BodyCheck::Invalid {
                message,
                line: 1,
                column: 1,
            },
        };
    }
    if let Some(path) = file_path(text) {
        return BodyCheck::File(path);
    }
    let base = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if base == "application/jsonlines" {
        for (i, line) in text.split('\n').enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            if let Err(e) = serde_json::from_str::<IgnoredAny>(line) {
                return invalid_json(&e, i + 1);
            }
        }
        BodyCheck::Json
    } else if is_json(content_type) {
        match serde_json::from_str::<IgnoredAny>(text) {
            Ok(_) => BodyCheck::Json,
            Err(e) => invalid_json(&e, 0),
        }
    } else {
        BodyCheck::Text(text.len())
    }
}

fn invalid_json(e: &serde_json::Error, line_offset: usize) -> BodyCheck {
    // serde_json's message ends with " at line L column C"; keep the first part.
    let full = e.to_string();
    let message = full.split(" at line ").next().unwrap_or(&full).to_string();
    let line = if line_offset > 0 { line_offset } else { e.line() };
    BodyCheck::Invalid {
        message,
        line,
        column: e.column(),
    }
}

/// The path of an `@path` body (one line starting with `@`), `~` expanded.
fn file_path(text: &str) -> Option<String> {
    let t = text.trim();
    let path = t.strip_prefix('@')?;
    if path.is_empty() || t.contains('\n') {
        return None;
    }
    Some(match path.strip_prefix("~/") {
        Some(rest) => format!("{}/{rest}", std::env::var("HOME").unwrap_or_default()),
        None => path.to_string(),
    })
}

fn decode_hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err("hex: needs an even number of digits".into());
    }
    digits
        .chunks(2)
        .map(|p| {
            let s: String = p.iter().collect();
            u8::from_str_radix(&s, 16).map_err(|_| format!("hex: {s:?} is not a hex byte"))
        })
        .collect()
}

/// The bytes to send for a body: decoded `hex:`, the file of `@path`, or the text.
pub fn body_bytes(text: &str) -> Result<Vec<u8>, String> {
    if let Some(hex) = text.trim_start().strip_prefix("hex:") {
        return decode_hex(hex);
    }
    if let Some(path) = file_path(text) {
        let len = std::fs::metadata(&path)
            .map_err(|e| format!("cannot read {path}: {e}"))?
            .len();
        if len > MAX_PAYLOAD as u64 {
            return Err(format!(
                "{path} is {len} bytes; SageMaker accepts at most {MAX_PAYLOAD} bytes"
            ));
        }
        return std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"));
    }
    Ok(text.as_bytes().to_vec())
}

/// Re-indents valid JSON with two spaces, keeping keys in their order and numbers as written;
/// None when the text is not JSON.
pub fn reindent(text: &str) -> Option<String> {
    serde_json::from_str::<IgnoredAny>(text).ok()?;
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let (mut in_str, mut escaped) = (false, false);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                let next = chars[i..].iter().position(|x| !x.is_whitespace());
                if next.is_some_and(|n| chars[i + n] == close) {
                    out.push(c);
                    out.push(close);
                    i += next.unwrap_or(0) + 1;
                } else {
                    out.push(c);
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// Catalog keys matching the typed text: prefix matches first, then substring matches.
pub fn completions<'a>(keys: impl Iterator<Item = &'a str>, typed: &str) -> Vec<&'a str> {
    let t = typed.to_ascii_lowercase();
    let (mut prefix, mut inner): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for k in keys {
        let l = k.to_ascii_lowercase();
        if l.starts_with(&t) {
            prefix.push(k);
        } else if l.contains(&t) {
            inner.push(k);
        }
    }
    prefix.extend(inner);
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindent_keeps_key_order() {
        let t = reindent(r#"{"z": 1, "a": [1, {}], "s": "a,{b}:\"c"}"#).unwrap();
        assert_eq!(
            t,
            "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {}\n  ],\n  \"s\": \"a,{b}:\\\"c\"\n}"
        );
        assert!(reindent("{").is_none());
    }

    #[test]
    fn body_checks() {
        assert_eq!(check_body("application/json", "{}"), BodyCheck::Json);
        let BodyCheck::Invalid { line, column, .. } = check_body("application/json", "{\n  \"a\": 1,\n}") else {
            panic!("expected invalid");
        };
        assert_eq!((line, column), (3, 1));
        assert!(matches!(
            check_body("application/jsonlines", "{}\n{oops}"),
            BodyCheck::Invalid { line: 2, .. }
        ));
        assert_eq!(check_body("image/jpeg", "hex:ffd8 ff"), BodyCheck::Hex(3));
        assert!(matches!(check_body("image/jpeg", "hex:fz"), BodyCheck::Invalid { .. }));
        assert_eq!(check_body("text/csv", "1,2"), BodyCheck::Text(3));
        assert_eq!(body_bytes("hex:ffd8").unwrap(), vec![0xff, 0xd8]);
    }
}
