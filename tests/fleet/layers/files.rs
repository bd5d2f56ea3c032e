//! The import graph between the files of one part of `src/`: every path that names a module of
//! the part (`crate::PART::…`, `super::…`, `self::…`, and in a `use`, a child module by its bare
//! name) is resolved to the file that holds it, by the files that exist (`x.rs` or `x/mod.rs`).
//! `super::` inside an inline module (`mod tests { … }`) counts that module. Declarations
//! (`mod x;`) are not imports; an import of an item of the file itself is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One import between two files of a part (paths relative to `src/PART`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Import {
    /// The importing file.
    pub from: String,
    /// Its line (1-based).
    pub line: usize,
    /// The imported file.
    pub to: String,
}

/// The files of `src/PART` (relative paths, sorted).
pub fn files_of(part_dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    super::sources(part_dir, &mut found);
    let mut rel: Vec<String> = found
        .iter()
        .map(|p| p.strip_prefix(part_dir).unwrap().to_string_lossy().into_owned())
        .collect();
    rel.sort();
    rel
}

/// Every import between two different files of the part at `part_dir`, named `part`.
pub fn imports(part_dir: &Path, part: &str) -> Vec<Import> {
    let mut out = BTreeSet::new();
    for file in files_of(part_dir) {
        let text = std::fs::read_to_string(part_dir.join(&file)).unwrap();
        for (line, path) in paths_in(&text, part) {
            let to = resolve(part_dir, &file, &path);
            if to != file {
                out.insert(Import {
                    from: file.clone(),
                    line,
                    to,
                });
            }
        }
    }
    out.into_iter().collect()
}

/// A path found in a file: where it starts and its segments after the prefix.
#[derive(Debug)]
pub struct FoundPath {
    /// `Some(n)` for `super::` n times (`self::` is 0, a bare child name in a `use` too);
    /// `None` for `crate::PART::`.
    ups: Option<usize>,
    /// Inline modules (`mod x { … }`) the path sits in.
    inline_depth: usize,
    /// Segments after the prefix (a `{…}` group expanded: one path per member).
    segments: Vec<String>,
}

/// The text without `//` comments, and for each line how many inline modules enclose it.
fn code_and_depths(text: &str) -> (Vec<&str>, Vec<usize>) {
    let mut code = Vec::new();
    let mut depths = Vec::new();
    let mut open: Vec<i64> = Vec::new(); // brace depth at which each inline module opened
    let mut braces: i64 = 0;
    for line in text.lines() {
        let c = line.split("//").next().unwrap_or("");
        let words: Vec<&str> = c.split_whitespace().collect();
        let opens_module = c.trim_end().ends_with('{')
            && words
                .iter()
                .position(|w| *w == "mod")
                .is_some_and(|i| i + 3 == words.len());
        depths.push(open.len());
        if opens_module {
            open.push(braces);
        }
        braces += c.matches('{').count() as i64 - c.matches('}').count() as i64;
        while open.last().is_some_and(|&at| braces <= at) {
            open.pop();
        }
        code.push(c);
    }
    (code, depths)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every module path in `text` that may name a file of `part`, with its line.
pub fn paths_in(text: &str, part: &str) -> Vec<(usize, FoundPath)> {
    let (code, depths) = code_and_depths(text);
    let joined = code.join("\n");
    let crate_prefix = format!("crate::{part}::");
    let mut out = Vec::new();
    let mut at = 0;
    while at < joined.len() {
        let rest = &joined[at..];
        let before = joined[..at].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let (ups, prefix_len) = if rest.starts_with(&crate_prefix) {
            (None, crate_prefix.len())
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            let mut n = 0;
            let mut len = 0;
            if rest.starts_with("self::") {
                len = "self::".len();
            }
            while rest[len..].starts_with("super::") {
                n += 1;
                len += "super::".len();
            }
            (Some(n), len)
        } else if let Some(len) = bare_use(rest, &joined[..at]) {
            (Some(0), len)
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let tail = path_tail(&rest[prefix_len..]);
        for (segments, offset) in expand(tail, 0) {
            let line = joined[..at + prefix_len + offset].matches('\n').count();
            let inline_depth = depths[line];
            let found = FoundPath {
                ups,
                inline_depth,
                segments,
            };
            out.push((line + 1, found));
        }
        at += prefix_len + tail.len().max(1);
    }
    out
}

/// After `use ` (or `pub use `), the length of nothing: a bare path starts right here. Returns
/// `Some(0)` when `before` ends a `use` keyword and the text is an identifier followed by `::`.
fn bare_use(rest: &str, before: &str) -> Option<usize> {
    let b = before.trim_end_matches(' ');
    let after_use = b.ends_with("use") && !b[..b.len() - 3].ends_with(is_ident) && b.len() < before.len();
    let name_len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
    let keyword = ["crate", "super", "self", "std", "core", "alloc"].contains(&&rest[..name_len]);
    (after_use && name_len > 0 && !keyword && rest[name_len..].starts_with("::")).then_some(0)
}

/// The path text: identifiers, `::`, and one balanced `{…}` group.
fn path_tail(text: &str) -> &str {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return &text[..i],
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[..=i];
                }
            }
            c if depth > 0 || is_ident(c) || c == ':' => {}
            _ => return &text[..i],
        }
    }
    text
}

/// `a::{b::C, d}` as `[[a, b, C], [a, d]]`, each with where it starts in `path` (plus `at`).
fn expand(path: &str, at: usize) -> Vec<(Vec<String>, usize)> {
    let segments =
        |text: &str| -> Vec<String> { text.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect() };
    let Some(open) = path.find('{') else {
        return vec![(segments(path), at)];
    };
    let head = segments(&path[..open]);
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let (mut members, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push((start, &inner[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    members.push((start, &inner[start..]));
    let mut out = Vec::new();
    for (start, member) in members {
        let trimmed = member.trim_start();
        if trimmed.trim_end().is_empty() {
            continue;
        }
        let member_at = at + open + 1 + start + (member.len() - trimmed.len());
        for (tail, tail_at) in expand(trimmed.trim_end(), member_at) {
            out.push((head.iter().cloned().chain(tail).collect(), tail_at));
        }
    }
    out
}

/// The module path of a file (`a/mod.rs` is `[a]`, `a/b.rs` is `[a, b]`, `mod.rs` is `[]`).
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The file that holds `module` (relative to the part).
fn file_of(part_dir: &Path, module: &[String]) -> String {
    if module.is_empty() {
        return "mod.rs".into();
    }
    let dir = module.join("/");
    if part_dir.join(&dir).join("mod.rs").is_file() {
        format!("{dir}/mod.rs")
    } else {
        format!("{dir}.rs")
    }
}

/// The file a path found in `file` names: the deepest module its segments reach.
fn resolve(part_dir: &Path, file: &str, path: &FoundPath) -> String {
    let mut module = match path.ups {
        None => Vec::new(),
        Some(ups) => {
            let mut m = module_of(file);
            let ups = ups.saturating_sub(path.inline_depth);
            m.truncate(m.len().saturating_sub(ups));
            m
        }
    };
    for seg in &path.segments {
        let candidate = module.iter().chain([seg]).cloned().collect::<Vec<_>>().join("/");
        if part_dir.join(&candidate).is_dir() || part_dir.join(format!("{candidate}.rs")).is_file() {
            module.push(seg.clone());
        } else {
            break;
        }
    }
    file_of(part_dir, &module)
}

/// The files of each circle (files that import each other, directly or through others), with
/// the imports inside it; Tarjan's strongly connected components of more than one file.
pub fn circles(imports: &[Import]) -> Vec<(Vec<String>, Vec<Import>)> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for i in imports {
        next.entry(&i.from).or_default().insert(&i.to);
        next.entry(&i.to).or_default();
    }
    let mut t = Tarjan::default();
    for v in next.keys() {
        if !t.index.contains_key(v) {
            t.visit(v, &next);
        }
    }
    t.components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|mut c| {
            c.sort();
            let inside = imports
                .iter()
                .filter(|i| c.iter().any(|f| *f == i.from) && c.iter().any(|f| *f == i.to))
                .cloned()
                .collect();
            (c.into_iter().map(str::to_string).collect(), inside)
        })
        .collect()
}

#[derive(Default)]
struct Tarjan<'a> {
    index: BTreeMap<&'a str, usize>,
    low: BTreeMap<&'a str, usize>,
    stack: Vec<&'a str>,
    components: Vec<Vec<&'a str>>,
}

impl<'a> Tarjan<'a> {
    fn visit(&mut self, v: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>) {
        let n = self.index.len();
        self.index.insert(v, n);
        self.low.insert(v, n);
        self.stack.push(v);
        for &w in &next[v] {
            if !self.index.contains_key(w) {
                self.visit(w, next);
                let low = self.low[v].min(self.low[w]);
                self.low.insert(v, low);
            } else if self.stack.contains(&w) {
                let low = self.low[v].min(self.index[w]);
                self.low.insert(v, low);
            }
        }
        if self.low[v] == self.index[v] {
            let at = self.stack.iter().rposition(|&x| x == v).unwrap();
            self.components.push(self.stack.split_off(at));
        }
    }
}
