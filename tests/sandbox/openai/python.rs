//! The official OpenAI Python client against the sandbox with a token from AWS's own generator
//! (`sagemaker.core.token_generator` from sagemaker-core): chat with tool calls, streamed and
//! not, on an endpoint; the same client refused with the token mangled and with one that has
//! expired (signed two hours ago by the generator for one hour).
//!
//! Setup creates a virtualenv at `<target>/openai-venv` from PyPI with pinned versions (reused
//! while it has them). If it cannot be created the tests fail: they never skip.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::common::peer_setup::{pinned_venv, show};
use crate::common::{demo_config, sandbox_with};
use crate::compat_boto3::ClientEnv;

/// Pinned, checked together: sagemaker-core 2.27 needs boto3 ≥ 1.43.90.
const PINS: [(&str, &str); 3] = [("openai", "3.63.0"), ("sagemaker-core", "2.27.0"), ("boto3", "1.44.8")];

fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let probe = "import openai, boto3, importlib.metadata as m; print(openai.__version__, m.version('sagemaker-core'), boto3.__version__)";
        pinned_venv("openai-venv", &PINS, probe)
    })
}

/// The venv, built off the async runtime.
pub(crate) async fn openai_venv() -> &'static Path {
    match tokio::task::spawn_blocking(venv).await {
        Ok(dir) => dir,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Chats through the OpenAI client with a generator-made token; prints one JSON object.
const SCRIPT: &str = r#"
import datetime, json, sys
import botocore.auth
import openai
from sagemaker.core.token_generator import generate_token

base = sys.argv[1] + "/endpoints/llm-tgi-chat/openai/v1"
tools = [{"type": "function", "function": {"name": "top_song",
    "description": "Get the most popular song played on a radio station.",
    "parameters": {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}}}]
messages = [{"role": "user", "content": "What is the most played song on WZPZ?"}]
token = generate_token(region="us-east-1", expiry=datetime.timedelta(hours=1))
client = openai.OpenAI(base_url=base, api_key=token, max_retries=0)
out = {"prefix": token.startswith("sagemaker-api-key-")}

r = client.chat.completions.create(model="", messages=messages, tools=tools)
call = r.choices[0].message.tool_calls[0]
out["call"] = {"name": call.function.name, "arguments": json.loads(call.function.arguments)}
out["usage"] = r.usage.total_tokens

parts = []
for chunk in client.chat.completions.create(model="", messages=messages, tools=tools, stream=True):
    for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
        parts.append(tc.function.arguments or "")
out["streamed_call"] = json.loads("".join(parts))
text = []
for chunk in client.chat.completions.create(model="", stream=True, max_tokens=8,
        messages=[{"role": "user", "content": "Say hello."}]):
    if chunk.choices and chunk.choices[0].delta.content:
        text.append(chunk.choices[0].delta.content)
out["streamed_text"] = "".join(text)

def refused(api_key):
    try:
        openai.OpenAI(base_url=base, api_key=api_key, max_retries=0).chat.completions.create(
            model="", messages=messages)
        return None
    except openai.APIStatusError as e:
        return {"status": e.status_code, "message": str(e)}

out["mangled"] = refused(token[:-8] + ("A" if token[-8] != "A" else "B") + token[-7:])
# The generator signing two hours ago (botocore's clock moved back) for one hour.
now = botocore.auth.get_current_datetime
botocore.auth.get_current_datetime = lambda: now() - datetime.timedelta(hours=2)
out["expired"] = refused(generate_token(region="us-east-1", expiry=datetime.timedelta(hours=1)))
print(json.dumps(out))
"#;

#[tokio::test]
async fn the_openai_client_chats_with_a_token_from_aws_generator_and_is_refused_a_bad_one() {
    let venv = openai_venv().await;
    let sb = sandbox_with(demo_config()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let out = env
        .run(venv, "the OpenAI client", &["-c", SCRIPT, &sb.endpoint_url()])
        .await;
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(&out)));
    assert_eq!(v["prefix"], true);
    assert_eq!(v["call"], json!({"name": "top_song", "arguments": {"sign": "WZPZ"}}));
    assert!(v["usage"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["streamed_call"], json!({"sign": "WZPZ"}));
    assert!(!v["streamed_text"].as_str().unwrap().trim().is_empty(), "{v}");
    assert_eq!(v["mangled"]["status"], 403, "{v}");
    assert_eq!(v["expired"]["status"], 403, "{v}");
    assert!(v["expired"]["message"].as_str().unwrap().contains("expired"), "{v}");
}
