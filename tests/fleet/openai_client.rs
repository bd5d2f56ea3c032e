//! The official OpenAI Python client against the sandbox with nothing but what `sagedeck
//! openai-env` prints (`eval` in sh; the client reads `OPENAI_BASE_URL` and `OPENAI_API_KEY`):
//! chat with a native tool call, whole and streamed; and no token in any file sagedeck wrote.
//!
//! The venv is the sandbox tests' `<target>/openai-venv` (same pins, reused while it has them);
//! if it cannot be created the test fails: it never skips.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::common::peer_setup::{pinned_venv, show};
use crate::common::{cli_command, demo_config, sandbox_with};
use crate::openai_env::walk;

/// As tests/sandbox/openai/python.rs pins them (one venv serves both).
const PINS: [(&str, &str); 3] = [("openai", "3.63.0"), ("sagemaker-core", "2.27.0"), ("boto3", "1.44.8")];

fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let probe = "import openai, boto3, importlib.metadata as m; print(openai.__version__, m.version('sagemaker-core'), boto3.__version__)";
        pinned_venv("openai-venv", &PINS, probe)
    })
}

const SCRIPT: &str = r#"
import json, os, openai
tools = [{"type": "function", "function": {"name": "top_song",
    "description": "Get the most popular song played on a radio station.",
    "parameters": {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}}}]
messages = [{"role": "user", "content": "What is the most played song on WZPZ?"}]
client = openai.OpenAI(max_retries=0)
out = {"base_url": str(client.base_url)}
r = client.chat.completions.create(model="llm-tgi-chat", messages=messages, tools=tools)
call = r.choices[0].message.tool_calls[0]
out["call"] = {"name": call.function.name, "arguments": json.loads(call.function.arguments)}
parts = []
for chunk in client.chat.completions.create(model="llm-tgi-chat", messages=messages, tools=tools, stream=True):
    for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
        parts.append(tc.function.arguments or "")
out["streamed_call"] = json.loads("".join(parts))
out["key_prefix"] = os.environ["OPENAI_API_KEY"][:18]
print(json.dumps(out))
"#;

#[tokio::test]
async fn the_openai_client_chats_with_what_openai_env_prints() {
    let venv = tokio::task::spawn_blocking(venv).await.expect("the venv is built");
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let sagedeck = cli_command(&sb, home.path(), &["openai-env", "llm-tgi-chat"], &[]);
    let sagedeck = sagedeck.as_std();
    let line = std::iter::once(sagedeck.get_program())
        .chain(sagedeck.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    let script = format!(
        "eval \"$({line})\" && exec '{}' -c \"$0\"",
        venv.join("bin/python").display()
    );
    let out = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(SCRIPT)
        .env_clear()
        .envs(sagedeck.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .env("PYTHONNOUSERSITE", "1")
        .output()
        .await
        .expect("sh runs");
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(&out)));
    assert_eq!(
        v["base_url"],
        format!("{}/endpoints/llm-tgi-chat/openai/v1/", sb.endpoint_url())
    );
    assert_eq!(v["key_prefix"], "sagemaker-api-key-");
    assert_eq!(v["call"], json!({"name": "top_song", "arguments": {"sign": "WZPZ"}}));
    assert_eq!(v["streamed_call"], json!({"sign": "WZPZ"}));
    let state = home.path().join(".local/state/sagedeck");
    let files = walk(&state);
    assert!(!files.is_empty(), "the audit log was written");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        // The prefix, and the base64 every token's body opens with (`sagemaker.amazonaws.com/?Action`).
        assert!(!text.contains("sagemaker-api-key-"), "{}", file.display());
        assert!(
            !text.contains("c2FnZW1ha2VyLmFtYXpvbmF3cy5jb20vP0FjdGlvbj"),
            "{}",
            file.display()
        );
    }
}
