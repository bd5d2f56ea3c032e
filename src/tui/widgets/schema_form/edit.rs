//! The schema form's rows (the fields flattened depth-first, each with its validator path) and
//! its keys: move, edit text, toggle booleans, cycle enums and choices, add and delete array
//! items, clear a field.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Kind, Node, SchemaForm};

/// One visible row of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Child indices from the root to the field.
    pub addr: Vec<usize>,
    /// Indentation level.
    pub depth: usize,
    /// Validator path of the field.
    pub path: String,
}

fn child_path(parent: &str, parent_kind: &Kind, key: &str) -> String {
    match parent_kind {
        Kind::Array => format!("{parent}{key}"),
        Kind::Choice => parent.to_string(),
        _ => format!("{parent}.{key}"),
    }
}

fn visit(n: &mut Node, addr: Vec<usize>, depth: usize, path: String, rows: &mut Vec<Row>) {
    n.path = path.clone();
    rows.push(Row {
        addr: addr.clone(),
        depth,
        path: path.clone(),
    });
    visit_children(n, addr, depth, &path, rows);
}

fn visit_children(n: &mut Node, addr: Vec<usize>, depth: usize, path: &str, rows: &mut Vec<Row>) {
    let kind = n.kind.clone();
    if kind == Kind::Choice {
        let Some(inner) = n.children.first_mut() else { return };
        let mut a = addr.clone();
        a.push(0);
        if matches!(inner.kind, Kind::Object | Kind::Array) {
            inner.path = path.to_string();
            visit_children(inner, a, depth, path, rows);
        } else {
            visit(inner, a, depth + 1, path.to_string(), rows);
        }
        return;
    }
    for (i, c) in n.children.iter_mut().enumerate() {
        if kind == Kind::Array {
            c.key = format!("[{i}]");
        }
        let mut a = addr.clone();
        a.push(i);
        let p = child_path(path, &kind, &c.key);
        visit(c, a, depth + 1, p, rows);
    }
}

/// The rows of the root object's fields.
pub(super) fn flatten(root: &mut Node) -> Vec<Row> {
    let mut rows = Vec::new();
    root.path = "$".into();
    visit_children(root, Vec::new(), 0, "$", &mut rows);
    for r in &mut rows {
        r.depth = r.depth.saturating_sub(1);
    }
    rows
}

fn node_mut<'a>(root: &'a mut Node, addr: &[usize]) -> Option<&'a mut Node> {
    let mut n = root;
    for &i in addr {
        n = n.children.get_mut(i)?;
    }
    Some(n)
}

fn node<'a>(root: &'a Node, addr: &[usize]) -> Option<&'a Node> {
    let mut n = root;
    for &i in addr {
        n = n.children.get(i)?;
    }
    Some(n)
}

/// Whether a field of this kind is edited as text.
pub fn is_text(kind: &Kind) -> bool {
    matches!(kind, Kind::Text | Kind::Number | Kind::Integer | Kind::Json)
}

impl SchemaForm {
    /// The field under the cursor.
    pub fn current(&self) -> Option<&Node> {
        self.rows.get(self.cursor).and_then(|r| node(&self.root, &r.addr))
    }

    /// The field at a row.
    pub fn node_at(&self, row: usize) -> Option<&Node> {
        self.rows.get(row).and_then(|r| node(&self.root, &r.addr))
    }

    /// Moves the cursor to the row of `path` (the first one), if there is one.
    pub fn focus_path(&mut self, path: &str) -> bool {
        match self.rows.iter().position(|r| r.path == path) {
            Some(i) => {
                self.cursor = i;
                true
            }
            None => false,
        }
    }

    fn move_by(&mut self, delta: isize) {
        let n = self.rows.len();
        if n == 0 {
            return;
        }
        self.cursor = (self.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
    }

    /// Cycles a Bool, Enum or Choice field forward or back.
    fn cycle(&mut self, back: bool) -> bool {
        let Some(row) = self.rows.get(self.cursor).cloned() else {
            return false;
        };
        let root = self.root_schema.clone();
        let Some(n) = node_mut(&mut self.root, &row.addr) else {
            return false;
        };
        match n.kind.clone() {
            Kind::Bool => {
                n.flag = match (n.flag, n.required) {
                    (None, _) => Some(!back),
                    (Some(true), _) if !back => Some(false),
                    (Some(false), _) if back => Some(true),
                    (Some(b), true) => Some(!b),
                    (Some(_), false) => None,
                };
            }
            Kind::Enum(values) => {
                let len = values.len();
                if len == 0 {
                    return false;
                }
                n.pick = Some(match n.pick {
                    None if back => len - 1,
                    None => 0,
                    Some(i) if back => (i + len - 1) % len,
                    Some(i) => (i + 1) % len,
                });
            }
            Kind::Choice => {
                let len = n.choices.len();
                if len == 0 {
                    return false;
                }
                let i = n.pick.unwrap_or(0);
                let next = if back { (i + len - 1) % len } else { (i + 1) % len };
                n.choose(&root, next, row.depth + 1);
            }
            _ => return false,
        }
        true
    }

    /// Adds an item to the array at the cursor (or holding the cursor's item).
    pub fn add_item(&mut self) -> bool {
        let Some(row) = self.rows.get(self.cursor).cloned() else {
            return false;
        };
        let root = self.root_schema.clone();
        let mut addr = row.addr.clone();
        loop {
            match node_mut(&mut self.root, &addr) {
                Some(n) if n.kind == Kind::Array => {
                    n.push_item(&root, row.depth);
                    let target = {
                        let mut a = addr.clone();
                        a.push(n.children.len() - 1);
                        a
                    };
                    self.refresh();
                    if let Some(i) = self.rows.iter().position(|r| r.addr == target) {
                        self.cursor = i;
                    }
                    return true;
                }
                _ if addr.is_empty() => return false,
                _ => {
                    addr.pop();
                }
            }
        }
    }

    /// Deletes the array item at the cursor, or clears the field.
    pub fn delete(&mut self) -> bool {
        let Some(row) = self.rows.get(self.cursor).cloned() else {
            return false;
        };
        let root = self.root_schema.clone();
        if let Some((last, parent)) = row.addr.split_last()
            && let Some(p) = node_mut(&mut self.root, parent)
            && p.kind == Kind::Array
        {
            p.children.remove(*last);
            return true;
        }
        if let Some(n) = node_mut(&mut self.root, &row.addr) {
            n.set(&root, None, row.depth);
            n.include = false;
            return true;
        }
        false
    }

    /// Answers a key; returns whether it was the form's. The caller re-syncs the raw editor
    /// when the value changed (`changed` is set).
    pub fn handle_key(&mut self, key: KeyEvent) -> (bool, bool) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let text_row = self.current().is_some_and(|n| is_text(&n.kind));
        if self.editing {
            let Some(row) = self.rows.get(self.cursor).cloned() else {
                self.editing = false;
                return (true, false);
            };
            let mut changed = false;
            match key.code {
                KeyCode::Esc | KeyCode::Enter => self.editing = false,
                KeyCode::Tab | KeyCode::Down | KeyCode::BackTab | KeyCode::Up => {
                    let back = matches!(key.code, KeyCode::BackTab | KeyCode::Up);
                    self.move_by(if back { -1 } else { 1 });
                    self.editing = self.current().is_some_and(|n| is_text(&n.kind));
                }
                KeyCode::Char('u') if ctrl => {
                    if let Some(n) = node_mut(&mut self.root, &row.addr) {
                        n.text.clear();
                        changed = true;
                    }
                }
                KeyCode::Backspace => {
                    if let Some(n) = node_mut(&mut self.root, &row.addr) {
                        changed = n.text.pop().is_some();
                    }
                }
                KeyCode::Char(c) if !ctrl => {
                    if let Some(n) = node_mut(&mut self.root, &row.addr) {
                        n.text.push(c);
                        changed = true;
                    }
                }
                _ => {}
            }
            if changed {
                self.refresh();
            }
            return (true, changed);
        }
        let changed = match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.move_by(-1);
                false
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.move_by(1);
                false
            }
            KeyCode::Home => {
                self.cursor = 0;
                false
            }
            KeyCode::End => {
                self.cursor = self.rows.len().saturating_sub(1);
                false
            }
            KeyCode::Enter | KeyCode::Char('i') if text_row => {
                self.editing = true;
                false
            }
            KeyCode::Enter | KeyCode::Char(' ') | KeyCode::Right => self.cycle(false),
            KeyCode::Left => self.cycle(true),
            KeyCode::Char('a') => self.add_item(),
            KeyCode::Char('d') | KeyCode::Delete => self.delete(),
            _ => return (false, false),
        };
        if changed {
            self.refresh();
        }
        (true, changed)
    }
}
