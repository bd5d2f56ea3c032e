//! The layers of `src/`, enforced: each top-level folder may import only the parts of sagedeck
//! its row of the table names. The test reads every source file and fails naming the file and
//! line of each import that breaks the table.

use std::path::{Path, PathBuf};

/// Which parts each part may import (`format` is the text both the CLI and the console show).
const ALLOWED: &[(&str, &[&str])] = &[
    ("cli", &["tui", "mcp", "aws", "sandbox", "format"]),
    ("tui", &["mcp", "aws", "format"]),
    ("mcp", &["aws", "format"]),
    ("aws", &[]),
    ("sandbox", &[]),
    ("format", &[]),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn ident(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The parts of sagedeck a line names through `crate::PART` or `crate::{PART, ...}`.
fn parts_named(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    let mut parts = Vec::new();
    for (i, m) in code.match_indices("crate::") {
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + m.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                parts.extend(group.split(',').map(ident).filter(|p| !p.is_empty()));
            }
            None => parts.push(ident(rest)),
        }
    }
    parts
}

/// Every import of `src/` that breaks the table, as `file:line: part imports other`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let Some(part) = rel.components().next().and_then(|c| c.as_os_str().to_str()) else {
            continue;
        };
        let Some((_, allowed)) = ALLOWED.iter().find(|(p, _)| *p == part) else {
            continue; // lib.rs and main.rs sit above the layers
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for other in parts_named(line) {
                if other != part && ALLOWED.iter().any(|(p, _)| *p == other) && !allowed.contains(&other) {
                    found.push(format!("src/{}:{}: {part} imports {other}", rel.display(), n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn every_import_follows_the_layer_table() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "imports that break the layers:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_backward_import() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("aws")).unwrap();
    std::fs::create_dir_all(dir.path().join("tui")).unwrap();
    std::fs::write(dir.path().join("aws/x.rs"), "use crate::tui::app::App; // backwards\n").unwrap();
    std::fs::write(
        dir.path().join("tui/y.rs"),
        "fn f() { crate::aws::dirs::state_dir(); }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("tui/z.rs"), "\nuse crate::{format::bar, cli::Cli};\n").unwrap();
    assert_eq!(
        violations(dir.path()),
        ["src/aws/x.rs:1: aws imports tui", "src/tui/z.rs:2: tui imports cli"]
    );
}
