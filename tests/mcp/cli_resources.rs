//! `sagedeck tools resources|read|prompts|prompt`, `tools call --elicit` and `tools list
//! --lint` as a user runs them, against the Python Library server: tables, `--json`, binary
//! contents saved with `--out`, elicitation answered from a file or declined without a terminal,
//! lint findings with exit 8.

use serde_json::json;

use crate::common::{CliRun, demo_config, run_cli, sandbox_with};
use crate::peers::{library_script, python, setup};
use sagedeck::sandbox::SandboxHandle;

async fn library_config(dir: &tempfile::TempDir) -> String {
    let py = setup(python).await;
    let path = dir.path().join("mcp.json");
    let servers = json!({"library": {"command": py.to_string_lossy(), "args": [library_script(), "stdio"]}});
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn resources_read_and_prompts() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = library_config(&dir).await;
    let c = |extra: &[&str]| {
        let mut v: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        v.extend(["--mcp-config".to_string(), cfg.clone()]);
        v
    };
    let run = |args: Vec<String>| {
        let sb = &sb;
        async move {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            run_cli(sb, &a).await
        }
    };

    let r = run(c(&["tools", "resources", "library"])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Library catalog (catalog)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("library://books/{isbn}") && r.stdout.contains("isbn"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("icon https://library.example/catalog.png"),
        "{}",
        r.stdout
    );

    let book = ["tools", "read", "library", "library://books/{isbn}", "--arg"];
    let r = run(c(&[&book[..], &["isbn=42"]].concat())).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "book 42: on the shelf");

    let out = dir.path().join("cover.png");
    let out_s = out.to_string_lossy().into_owned();
    let r = run(c(&[
        "tools",
        "read",
        "library",
        "library://cover.png",
        "--out",
        &out_s,
        "--json",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["contents"][0]["size"], 32);
    assert_eq!(v["contents"][0]["mime_type"], "image/png");
    assert!(v["contents"][0]["base64"].as_str().unwrap().starts_with("iVBORw0KGg"));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!((bytes.len(), &bytes[..4]), (32, &b"\x89PNG"[..]));
    let r = run(c(&["tools", "read", "library", "library://cover.png"])).await;
    assert!(r.stdout.contains("[binary image/png, 32 bytes]"), "{}", r.stdout);

    let r = run(c(&[&book[..], &["nope=1"]].concat())).await;
    assert_eq!(r.code, 2, "an argument the template lacks: {}", r.stderr);
    assert!(r.stderr.contains("no variable `nope`"), "{}", r.stderr);

    let r = run(c(&["tools", "prompts", "library"])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("Summarize a book (summarize)") && r.stdout.contains("title*,tone"),
        "{}",
        r.stdout
    );

    let interview = ["tools", "prompt", "library", "interview", "--arg", "author=Le Guin"];
    let r = run(c(&[&interview[..], &["--json"]].concat())).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["messages"][0]["role"], "user");
    assert_eq!(v["messages"][1]["content"]["text"], "Hello Le Guin, welcome.");
    let r = run(c(&interview)).await;
    assert!(
        r.stdout.contains("[assistant]\nHello Le Guin, welcome."),
        "{}",
        r.stdout
    );
}

/// `tools call library reserve --arg title=Dune`, with `answers` (JSON) as its `--elicit` file
/// when given.
async fn reserve(sb: &SandboxHandle, dir: &tempfile::TempDir, cfg: &str, answers: Option<&str>) -> CliRun {
    let path = dir.path().join("answers.json");
    let path = path.to_string_lossy().into_owned();
    let mut args = vec![
        "tools",
        "call",
        "library",
        "reserve",
        "--arg",
        "title=Dune",
        "--mcp-config",
        cfg,
    ];
    if let Some(text) = answers {
        std::fs::write(&path, text).unwrap();
        args.extend(["--elicit", &path]);
    }
    run_cli(sb, &args).await
}

#[tokio::test]
async fn elicitation_from_a_file_or_declined() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = library_config(&dir).await;
    let r = reserve(
        &sb,
        &dir,
        &cfg,
        Some(r#"[{"action": "accept", "content": {"days": 4}}]"#),
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("reserved Dune for 4 days (pickup False)"),
        "{}",
        r.stdout
    );
    let asked = "asked for input (\"Reserve Dune: for how long?\"): accepted";
    assert!(r.stderr.contains(asked), "{}", r.stderr);

    // Standard input is not a terminal and no file: declined, saying why.
    let r = reserve(&sb, &dir, &cfg, None).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("reservation decline"), "{}", r.stdout);
    assert!(
        r.stderr.contains("declined: standard input is not a terminal"),
        "{}",
        r.stderr
    );

    // An answer that does not fit the schema is not sent: declined.
    let r = reserve(
        &sb,
        &dir,
        &cfg,
        Some(r#"{"action": "accept", "content": {"days": "many"}}"#),
    )
    .await;
    assert!(r.stdout.contains("reservation decline"), "{}", r.stdout);
    assert!(r.stderr.contains("does not fit its schema"), "{}", r.stderr);

    let r = reserve(&sb, &dir, &cfg, Some(r#"{"action": "cancel"}"#)).await;
    assert!(r.stdout.contains("reservation cancel"), "{}", r.stdout);
}

#[tokio::test]
async fn lint_finds_and_exits_8() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = library_config(&dir).await;
    let r = run_cli(&sb, &["tools", "list", "--lint", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 8, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("missing_annotations"), "{}", r.stdout);
    assert!(r.stdout.contains("Link a book"), "a tool's title: {}", r.stdout);
    assert!(
        r.stdout.contains("icon https://library.example/link.png"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("the lint found"), "{}", r.stderr);
    let r = run_cli(&sb, &["tools", "list", "--lint", "--json", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 8);
    let v = r.json();
    assert!(v[0]["protocol_version"].as_str().unwrap().starts_with("20"), "{v}");
    let lint = v[0]["lint"].as_array().unwrap();
    assert!(
        lint.iter()
            .any(|f| f["tool"] == "reserve" && f["rule"] == "missing_annotations"),
        "{lint:?}"
    );
    // Without --lint the same server lists cleanly.
    let r = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
}
