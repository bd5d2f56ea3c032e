//! A form generated from a tool's JSON input schema: strings, numbers, integers, booleans, enums
//! (and `const`), nested objects, arrays (of anything, objects included), `required`, `default`,
//! `description`, `$ref` into `$defs`/`definitions`, `allOf` merged, and `anyOf`/`oneOf` as a
//! choice between options (an option of `{"type": "null"}` beside one other makes that field
//! optional instead). Anything else is edited as raw JSON text. The form produces the arguments
//! object, can be filled back from one (the raw JSON editor and remembered arguments do that), and
//! validates it inline with [`crate::mcp::schema::validate`], each problem attached to its row.
//!
//! Schema helpers are in `schema_form_schema.rs`, editing keys and rows in `schema_form_edit.rs`,
//! drawing in `schema_form_view.rs`.

mod edit;
mod schema;
mod view;

use std::collections::HashMap;

use serde_json::{Map, Value};

pub use edit::Row;
pub use schema::resolve;
use schema::{is_null_schema, kind_of, option_label};

/// Nesting beyond which a field is edited as raw JSON (recursive `$ref`s stop here).
const MAX_DEPTH: usize = 8;

/// What kind of editor a field gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Free text.
    Text,
    /// A number (any).
    Number,
    /// An integer.
    Integer,
    /// True or false.
    Bool,
    /// One of these values (`enum` or `const`).
    Enum(Vec<Value>),
    /// An object: one child per property.
    Object,
    /// An array: one child per item.
    Array,
    /// `anyOf`/`oneOf`: one child, built from the chosen option.
    Choice,
    /// Raw JSON text.
    Json,
}

/// One field of the form.
#[derive(Debug, Clone)]
pub struct Node {
    /// Property name (`[i]` for an array item, `value` for a choice's inner field).
    pub key: String,
    /// JSON path used by the validator (`$.a.b[0]`).
    pub path: String,
    /// The field's schema, `$ref`s and `allOf` resolved.
    pub schema: Value,
    /// Editor kind.
    pub kind: Kind,
    /// Whether the property is required (array items always are).
    pub required: bool,
    /// Description (or title).
    pub description: Option<String>,
    /// Text of Text, Number, Integer and Json fields.
    pub text: String,
    /// Value of a Bool field (None: unset).
    pub flag: Option<bool>,
    /// Enum value index, or the chosen option of a Choice.
    pub pick: Option<usize>,
    /// Properties of an Object, items of an Array, the inner field of a Choice.
    pub children: Vec<Node>,
    /// Labels and schemas of a Choice's options.
    pub choices: Vec<(String, Value)>,
    /// Keys of an Object outside its properties, kept so the raw JSON round-trips.
    pub extra: Map<String, Value>,
    /// Whether an optional Object or Array is sent even when empty.
    pub include: bool,
}

/// The form of one tool.
#[derive(Debug, Clone)]
pub struct SchemaForm {
    /// The input schema (the root of `$ref`s and of validation).
    pub root_schema: Value,
    /// The root object field.
    pub root: Node,
    /// Visible rows (recomputed after each structural change).
    pub rows: Vec<Row>,
    /// Row under the cursor.
    pub cursor: usize,
    /// Whether the cursor row's text is being edited.
    pub editing: bool,
    /// Every validation problem (`path: what`), empty when the arguments conform.
    pub errors: Vec<String>,
    /// Problems by the path of the row they belong to.
    pub row_errors: HashMap<String, Vec<String>>,
}

impl Node {
    fn blank(key: &str, schema: Value, kind: Kind, required: bool) -> Node {
        let description = schema
            .get("description")
            .or_else(|| schema.get("title"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Node {
            key: key.to_string(),
            path: String::new(),
            schema,
            kind,
            required,
            description,
            text: String::new(),
            flag: None,
            pick: None,
            children: Vec::new(),
            choices: Vec::new(),
            extra: Map::new(),
            include: false,
        }
    }

    /// Builds the field for `schema` (defaults applied).
    pub fn build(root: &Value, key: &str, schema: &Value, required: bool, depth: usize) -> Node {
        let s = resolve(root, schema);
        if depth > MAX_DEPTH {
            return Node::blank(key, s, Kind::Json, required);
        }
        let options = s
            .get("oneOf")
            .or_else(|| s.get("anyOf"))
            .and_then(Value::as_array)
            .cloned();
        let mut node = if let Some(options) = options {
            let real: Vec<&Value> = options.iter().filter(|o| !is_null_schema(&resolve(root, o))).collect();
            if real.len() == 1 {
                // Optional[X]: the field is X, and may be left out.
                let mut inner = resolve(root, real[0]);
                if let (Value::Object(i), Value::Object(outer)) = (&mut inner, &s) {
                    for (k, v) in outer {
                        if !matches!(k.as_str(), "anyOf" | "oneOf") {
                            i.insert(k.clone(), v.clone());
                        }
                    }
                }
                return Node::build(root, key, &inner, required, depth);
            }
            let mut n = Node::blank(key, s.clone(), Kind::Choice, required);
            n.choices = options
                .iter()
                .enumerate()
                .map(|(i, o)| (option_label(root, o, i), o.clone()))
                .collect();
            n.choose(root, 0, depth);
            n
        } else {
            let kind = kind_of(&s);
            let mut n = Node::blank(key, s.clone(), kind.clone(), required);
            if kind == Kind::Object {
                let req: Vec<&str> = s
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(Value::Object(props)) = s.get("properties") {
                    let mut children: Vec<Node> = props
                        .iter()
                        .map(|(k, ps)| Node::build(root, k, ps, req.contains(&k.as_str()), depth + 1))
                        .collect();
                    children.sort_by_key(|c| !c.required);
                    n.children = children;
                }
            } else if kind == Kind::Array && required {
                let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(16);
                for _ in 0..min {
                    n.push_item(root, depth);
                }
            }
            n
        };
        // `default: null` (an Optional left out) keeps the fields' own defaults.
        if let Some(d) = s.get("default").filter(|d| !d.is_null()).cloned() {
            node.set(root, Some(&d), depth);
        }
        node
    }

    /// The schema of a new array item.
    fn item_schema(&self) -> Value {
        match self.schema.get("items") {
            Some(Value::Array(tuple)) => tuple.get(self.children.len()).cloned().unwrap_or(Value::Bool(true)),
            Some(s) => s.clone(),
            None => Value::Bool(true),
        }
    }

    /// Appends an item to an Array.
    pub fn push_item(&mut self, root: &Value, depth: usize) {
        let schema = self.item_schema();
        let key = format!("[{}]", self.children.len());
        let mut item = Node::build(root, &key, &schema, true, depth + 1);
        if item.kind == Kind::Object {
            item.include = true;
        }
        self.children.push(item);
        self.include = true;
    }

    /// Makes option `i` of a Choice the chosen one (its field rebuilt).
    pub fn choose(&mut self, root: &Value, i: usize, depth: usize) {
        let Some((_, schema)) = self.choices.get(i).cloned() else {
            return;
        };
        self.pick = Some(i);
        let mut inner = Node::build(root, "value", &schema, self.required, depth + 1);
        if inner.description.is_none() {
            inner.description = self.description.clone();
        }
        self.children = vec![inner];
    }

    /// The field's value (None: left out).
    pub fn value(&self) -> Option<Value> {
        let text = self.text.trim();
        match &self.kind {
            // An empty required property is left out (the validator names it), an empty array
            // item is "".
            Kind::Text => {
                (!self.text.is_empty() || self.key.starts_with('[')).then(|| Value::String(self.text.clone()))
            }
            Kind::Number | Kind::Integer => {
                if text.is_empty() {
                    return None;
                }
                if let Ok(i) = text.parse::<i64>() {
                    return Some(Value::from(i));
                }
                match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                    Some(n) => Some(Value::Number(n)),
                    None => Some(Value::String(self.text.clone())),
                }
            }
            Kind::Bool => self.flag.map(Value::Bool),
            Kind::Enum(values) => self.pick.and_then(|i| values.get(i).cloned()),
            Kind::Json => (!text.is_empty()).then(|| serde_json::from_str(text).unwrap_or(Value::String(text.into()))),
            Kind::Object => {
                let mut m = self.extra.clone();
                for c in &self.children {
                    if let Some(v) = c.value() {
                        m.insert(c.key.clone(), v);
                    }
                }
                (self.required || self.include || self.has_input()).then_some(Value::Object(m))
            }
            Kind::Array => (self.required || self.include || !self.children.is_empty())
                .then(|| Value::Array(self.children.iter().map(|c| c.value().unwrap_or(Value::Null)).collect())),
            Kind::Choice => self.children.first().and_then(Node::value),
        }
    }

    /// Whether anything was entered in the field (or below it); a default is not an entry, so
    /// an optional object whose fields only hold defaults is left out.
    pub fn has_input(&self) -> bool {
        if let Some(d) = self.schema.get("default")
            && !matches!(self.kind, Kind::Object | Kind::Array)
            && self.value().as_ref() == Some(d)
        {
            return false;
        }
        match self.kind {
            Kind::Text => !self.text.is_empty(),
            Kind::Number | Kind::Integer | Kind::Json => !self.text.trim().is_empty(),
            Kind::Bool => self.flag.is_some(),
            Kind::Enum(_) => self.pick.is_some(),
            Kind::Object => self.include || !self.extra.is_empty() || self.children.iter().any(Node::has_input),
            Kind::Array => self.include || !self.children.is_empty(),
            Kind::Choice => self.children.iter().any(Node::has_input),
        }
    }

    /// Sets the field from a value (None clears it).
    pub fn set(&mut self, root: &Value, v: Option<&Value>, depth: usize) {
        match (&self.kind.clone(), v) {
            (Kind::Object, _) => {
                let map = v.and_then(Value::as_object);
                for c in &mut self.children {
                    c.set(root, map.and_then(|m| m.get(&c.key)), depth + 1);
                }
                self.extra = map
                    .map(|m| {
                        m.iter()
                            .filter(|(k, _)| !self.children.iter().any(|c| &c.key == *k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                self.include = map.is_some();
            }
            (Kind::Array, _) => {
                self.children.clear();
                self.include = false;
                if let Some(Value::Array(items)) = v {
                    for item in items {
                        self.push_item(root, depth);
                        if let Some(last) = self.children.last_mut() {
                            last.set(root, Some(item), depth + 1);
                        }
                    }
                    self.include = true;
                }
            }
            (Kind::Choice, None) => {
                if let Some(c) = self.children.first_mut() {
                    c.set(root, None, depth + 1);
                }
            }
            (Kind::Choice, Some(v)) => {
                let fits = |schema: &Value| {
                    let mut s = resolve(root, schema);
                    if let (Value::Object(m), Some(defs)) = (&mut s, root.get("$defs")) {
                        m.entry("$defs").or_insert(defs.clone());
                    }
                    if let (Value::Object(m), Some(defs)) = (&mut s, root.get("definitions")) {
                        m.entry("definitions").or_insert(defs.clone());
                    }
                    crate::mcp::schema::validate(&s, v).is_empty()
                };
                if let Some(i) = self.choices.iter().position(|(_, s)| fits(s))
                    && self.pick != Some(i)
                {
                    self.choose(root, i, depth);
                }
                if let Some(c) = self.children.first_mut() {
                    c.set(root, Some(v), depth + 1);
                }
            }
            (_, None) => {
                self.text.clear();
                self.flag = None;
                self.pick = None;
            }
            (Kind::Text, Some(Value::String(s))) => self.text = s.clone(),
            (Kind::Bool, Some(x)) => self.flag = x.as_bool(),
            (Kind::Enum(values), Some(x)) => self.pick = values.iter().position(|e| e == x),
            (_, Some(x)) => {
                self.text = match x {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }
            }
        }
    }
}

/// A validation problem (`PATH: WHAT`) in parts: the path, what is wrong, and for a missing
/// required property the path of that property.
pub fn problem_parts(e: &str) -> (&str, &str, Option<String>) {
    let (path, what) = e.split_once(": ").unwrap_or(("$", e));
    let missing = what
        .strip_prefix("missing required property `")
        .and_then(|r| r.strip_suffix('`'))
        .map(|k| format!("{path}.{k}"));
    (path, what, missing)
}

impl SchemaForm {
    /// The form of a tool's input schema, defaults applied.
    pub fn new(schema: &Value) -> SchemaForm {
        let root_schema = if schema.is_object() {
            schema.clone()
        } else {
            serde_json::json!({"type": "object"})
        };
        let mut root = Node::build(&root_schema, "arguments", &root_schema, true, 0);
        if root.kind != Kind::Object {
            root = Node::blank("arguments", root_schema.clone(), Kind::Object, true);
        }
        let mut form = SchemaForm {
            root_schema,
            root,
            rows: Vec::new(),
            cursor: 0,
            editing: false,
            errors: Vec::new(),
            row_errors: HashMap::new(),
        };
        form.refresh();
        form
    }

    /// The arguments object.
    pub fn value(&self) -> Value {
        self.root.value().unwrap_or_else(|| Value::Object(Map::new()))
    }

    /// Fills the form from an arguments object (the raw editor, remembered arguments).
    pub fn set_value(&mut self, v: &Value) {
        let root = self.root_schema.clone();
        self.root.set(&root, Some(v), 0);
        self.refresh();
    }

    /// The arguments as pretty JSON (what the raw editor shows).
    pub fn json_text(&self) -> String {
        serde_json::to_string_pretty(&self.value()).unwrap_or_else(|_| "{}".into())
    }

    /// Recomputes rows, paths and validation after a change.
    pub fn refresh(&mut self) {
        self.rows = edit::flatten(&mut self.root);
        self.cursor = self.cursor.min(self.rows.len().saturating_sub(1));
        self.errors = crate::mcp::schema::validate(&self.root_schema, &self.value());
        self.row_errors.clear();
        for e in &self.errors {
            let (path, what, missing) = problem_parts(e);
            // A missing required property is told on its own row as "required".
            let missing = missing.filter(|at| self.rows.iter().any(|r| &r.path == at));
            match missing {
                Some(at) => self.row_errors.entry(at).or_default().push("required".into()),
                None => self
                    .row_errors
                    .entry(path.to_string())
                    .or_default()
                    .push(what.to_string()),
            }
        }
    }

    /// Whether the arguments conform to the schema.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}
