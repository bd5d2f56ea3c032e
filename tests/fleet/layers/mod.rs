//! The layers of `src/`, enforced: each top-level folder may import only the parts of sagedeck
//! its row of [`ALLOWED`] names; inside a part listed in [`FLOORS`], a file imports only files
//! on its floor or below; and no two files of a part listed in [`CIRCLE_FREE`] import each
//! other, directly or through others. Each test reads every source file and fails naming the
//! file and line of each import that breaks its rule.

mod files;

use std::path::{Path, PathBuf};

use files::{Import, circles, files_of, imports};

/// Which parts each part may import (`format` is the text both the CLI and the console show;
/// `local` is where files live on this machine, below everything).
const ALLOWED: &[(&str, &[&str])] = &[
    ("cli", &["tui", "mcp", "aws", "sandbox", "format", "local"]),
    ("tui", &["mcp", "aws", "format", "local"]),
    ("mcp", &["aws", "format", "local"]),
    ("aws", &["local"]),
    ("sandbox", &[]),
    ("format", &[]),
    ("local", &[]),
];

/// The floors inside a part, bottom first: each a list of files and folders (relative to
/// `src/PART`). A file may import files on its own floor and below, never above; every file of
/// the part must be on a floor. Adding a part is one row.
///
/// `aws`: the core at the root (`Fleet`, errors, retries, the describe cache) < what the fleet
/// holds and invoking it < changing it (weights, the guard, the audit record) < observing it
/// (metrics, logs, alarms, the timeline, which reads the audit log) < the judge (it compares
/// metric series and the variant log) < the features built on all of them, scaling and
/// promotion.
///
/// `sandbox`: the world's plain records, clock, the wire codecs and CloudTrail's callers and
/// events < the stores services keep (containers, metrics, alarms, logs, scaling targets, fault
/// rules, CloudTrail's history) < the world's state < the
/// shared `Sandbox` < the services that answer requests < the simulated world that drives them
/// (the ticker, traffic, the demo fleet) < the HTTP front door < the module's entry points.
///
/// `cli`: the exit type < output < the AWS options < the pieces features share (tables, flags,
/// views) < the commands other commands build on < the commands < the clap tree < the read-only
/// gate < dispatch.
const FLOORS: &[(&str, &[&[&str]])] = &[
    (
        "aws",
        &[
            &["mod.rs", "config.rs", "error.rs", "retry.rs", "cache.rs", "budget.rs"],
            &["endpoints", "invoke", "trail"],
            &["change"],
            &["components"],
            &["observe"],
            &["judge"],
            &["scaling", "promote", "deploy"],
        ],
    ),
    (
        "sandbox",
        &[
            &[
                "world/clock.rs",
                "world/hash.rs",
                "world/config.rs",
                "world/resources.rs",
                "world/deployment.rs",
                "http/wire.rs",
                "calls",
                "cloudtrail/identity.rs",
                "cloudtrail/event.rs",
            ],
            &[
                "world/containers",
                "world/serverless.rs",
                "world/queue.rs",
                "cloudwatch/metrics",
                "cloudwatch/alarms",
                "logs/store.rs",
                "autoscaling/store.rs",
                "faults/mod.rs",
                "world/sessions.rs",
                "cloudtrail/store.rs",
            ],
            &["world/variant.rs", "world/components", "world/state.rs"],
            &["world/sandbox.rs"],
            &[
                "sagemaker",
                "runtime",
                "cloudwatch",
                "cloudwatch/alarms/api",
                "logs",
                "autoscaling",
                "faults",
                "s3",
                "sts.rs",
                "cloudtrail",
            ],
            &["world"],
            &["http"],
            &["mod.rs"],
        ],
    ),
    (
        "cli",
        &[
            &["exit.rs"],
            &["output.rs"],
            &["args.rs"],
            &[
                "fleet/view.rs",
                "change/autoscaling/args.rs",
                "components/args.rs",
                "components/view.rs",
                "promote/args.rs",
                "promote/view.rs",
                "mcp/audit.rs",
                "mcp/args.rs",
                "mcp/elicit.rs",
                "mcp/sampling.rs",
                "agent/view.rs",
                "console/sandbox.rs",
            ],
            &[
                "fleet/inventory.rs",
                "promote/consolidate.rs",
                "promote/drive.rs",
                "mcp/tools.rs",
                "change/autoscaling/show.rs",
                "change/autoscaling/apply.rs",
            ],
            &["fleet", "promote", "mcp", "deploy"],
            &["change", "components", "console", "agent"],
            &["command.rs"],
            &["gate.rs"],
            &["mod.rs"],
        ],
    ),
];

/// The parts whose files must not import each other in a circle.
const CIRCLE_FREE: &[&str] = &["aws", "sandbox", "cli"];

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

/// The floor of `file` in `floors` (its index), if any: the floor of the longest entry that
/// names it, so a file listed on its own is placed apart from the rest of its folder.
fn floor_of(floors: &[&[&str]], file: &str) -> Option<usize> {
    floors
        .iter()
        .enumerate()
        .flat_map(|(i, floor)| floor.iter().map(move |e| (i, *e)))
        .filter(|(_, e)| file == *e || file.strip_prefix(e).is_some_and(|r| r.starts_with('/')))
        .max_by_key(|(_, e)| e.len())
        .map(|(i, _)| i)
}

/// Every import of `src/PART` that runs up its floors, and every file on no floor.
fn upward_imports(src: &Path, part: &str, floors: &[&[&str]]) -> Vec<String> {
    let dir = src.join(part);
    let mut found: Vec<String> = files_of(&dir)
        .into_iter()
        .filter(|f| floor_of(floors, f).is_none())
        .map(|f| format!("src/{part}/{f}: on no floor of {part}"))
        .collect();
    for Import { from, line, to } in imports(&dir, part) {
        let (Some(a), Some(b)) = (floor_of(floors, &from), floor_of(floors, &to)) else {
            continue;
        };
        if b > a {
            let (fa, fb) = (floors[a].join(", "), floors[b].join(", "));
            found.push(format!(
                "src/{part}/{from}:{line}: imports src/{part}/{to}, a floor above ({fa} < {fb})"
            ));
        }
    }
    found
}

/// Every circle between the files of `src/PART`, with the imports that close it.
fn circular_imports(src: &Path, part: &str) -> Vec<String> {
    circles(&imports(&src.join(part), part))
        .into_iter()
        .map(|(files, inside)| {
            let lines: Vec<String> = inside
                .iter()
                .map(|i| format!("  src/{part}/{}:{} imports {}", i.from, i.line, i.to))
                .collect();
            format!(
                "src/{part}: a circle between {}:\n{}",
                files.join(", "),
                lines.join("\n")
            )
        })
        .collect()
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
        "fn f() { crate::local::dirs::state_dir(); }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("tui/z.rs"), "\nuse crate::{format::bar, cli::Cli};\n").unwrap();
    assert_eq!(
        violations(dir.path()),
        ["src/aws/x.rs:1: aws imports tui", "src/tui/z.rs:2: tui imports cli"]
    );
}

#[test]
fn no_import_runs_up_the_floors_of_a_part() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found: Vec<String> = FLOORS
        .iter()
        .flat_map(|(part, floors)| upward_imports(&src, part, floors))
        .collect();
    assert!(
        found.is_empty(),
        "imports that run upward inside a part:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_two_files_of_a_part_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found: Vec<String> = CIRCLE_FREE
        .iter()
        .flat_map(|part| circular_imports(&src, part))
        .collect();
    assert!(found.is_empty(), "circles of imports:\n{}", found.join("\n"));
}

#[test]
fn the_checks_find_an_upward_import_and_a_circle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("aws/mod.rs", "pub mod config;\npub use config::Fleet;\n");
    write(
        "aws/config.rs",
        "use crate::aws::top::x::Thing; // upward\npub struct Fleet;\n",
    );
    write("aws/feat/mod.rs", "pub mod a;\npub mod b;\npub use a::A;\n");
    write(
        "aws/feat/a.rs",
        "use super::b::B;\npub struct A;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
    );
    write(
        "aws/feat/b.rs",
        "use crate::aws::{\n    Fleet,\n    feat::a::A,\n};\nfn f() { super::super::config::Fleet; }\n",
    );
    write("aws/top/x.rs", "pub struct Thing;\n");
    write("aws/stray.rs", "");
    let floors: &[&[&str]] = &[&["mod.rs", "config.rs"], &["feat"], &["top"]];
    assert_eq!(
        upward_imports(dir.path(), "aws", floors),
        [
            "src/aws/stray.rs: on no floor of aws",
            "src/aws/config.rs:1: imports src/aws/top/x.rs, a floor above (mod.rs, config.rs < top)",
        ]
    );
    assert_eq!(
        circular_imports(dir.path(), "aws"),
        ["src/aws: a circle between feat/a.rs, feat/b.rs:\n  \
          src/aws/feat/a.rs:1 imports feat/b.rs\n  src/aws/feat/b.rs:3 imports feat/a.rs"]
    );
    let from_b: Vec<(usize, String)> = imports(&dir.path().join("aws"), "aws")
        .into_iter()
        .filter(|i| i.from == "feat/b.rs")
        .map(|i| (i.line, i.to))
        .collect();
    let expected = [(2, "mod.rs"), (3, "feat/a.rs"), (5, "config.rs")].map(|(l, f)| (l, f.to_string()));
    assert_eq!(
        from_b, expected,
        "members of a group on their own lines; super::super from a file"
    );
}
