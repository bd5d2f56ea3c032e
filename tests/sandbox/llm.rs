//! The TGI-style container's tool-calling model over the wire: the chat Messages body (native
//! `tool_calls`, the seed's JSON as text, a final answer after a tool result, usage), the
//! generate body with ChatML / Llama 3 / Mistral prompts and `details`, both streamed as TGI's
//! server-sent events, the malformed/unknown tool-call faults, and boto3 doing the same.

use aws_sdk_sagemakerruntime::Client;
use aws_sdk_sagemakerruntime::operation::invoke_endpoint::builders::InvokeEndpointFluentBuilder;
use aws_sdk_sagemakerruntime::primitives::Blob;
use aws_sdk_sagemakerruntime::types::ResponseStream;
use sagedeck::sandbox::faults::FaultSpec;
use serde_json::{Value, json};

use crate::common::peer_setup::show;
use crate::common::{demo_config, sandbox_with, sdk_config};
use crate::compat_boto3::{ClientEnv, venv_async};

const LLM: &str = "llm-tgi-chat";
const QUESTION: &str = "What is the most played song on WZPZ?";

fn top_song() -> Value {
    json!({"name": "top_song", "description": "Get the most popular song played on a radio station.",
        "parameters": {"type": "object", "properties": {"sign": {"type": "string",
        "description": "The call sign for the radio station for which you want the most popular song."}},
        "required": ["sign"]}})
}

fn system_prompt() -> String {
    format!(
        "You are a helpful assistant with access to these tools:\n\n{}\n{}\nChoose the appropriate tool based on the user's question.",
        top_song(),
        json!({"name": "count_slowly", "description": "Count to steps.", "parameters": {"type": "object", "properties": {"steps": {"type": "integer"}}, "required": ["steps"]}})
    )
}

fn request(rt: &Client, body: &Value) -> InvokeEndpointFluentBuilder {
    rt.invoke_endpoint()
        .endpoint_name(LLM)
        .content_type("application/json")
        .body(Blob::new(body.to_string()))
}

async fn invoke(rt: &Client, body: &Value) -> Value {
    let out = request(rt, body).send().await.unwrap();
    serde_json::from_slice(out.body().unwrap().as_ref()).unwrap()
}

async fn stream(rt: &Client, body: &Value) -> Vec<String> {
    let mut out = rt
        .invoke_endpoint_with_response_stream()
        .endpoint_name(LLM)
        .content_type("application/json")
        .body(Blob::new(body.to_string()))
        .send()
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Some(ev) = out.body.recv().await.unwrap() {
        if let ResponseStream::PayloadPart(p) = ev {
            events.push(String::from_utf8(p.bytes().unwrap().as_ref().to_vec()).unwrap());
        }
    }
    events
}

fn data(event: &str) -> Value {
    let text = event.strip_prefix("data: ").expect("TGI writes `data: `").trim();
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {event}"))
}

#[tokio::test]
async fn chat_with_tools_answers_native_tool_calls_then_a_final_answer() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let tools = json!([{"type": "function", "function": top_song()}]);
    let body = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools, "max_tokens": 200});
    let v = invoke(&rt, &body).await;
    assert_eq!(v["object"], "chat.completion");
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "stop");
    let message = choice["message"].as_object().unwrap();
    assert!(!message.contains_key("content"), "{v}");
    let f = &message["tool_calls"][0]["function"];
    assert_eq!(f["name"], "top_song");
    let arguments: Value = serde_json::from_str(f["arguments"].as_str().expect("a JSON string")).unwrap();
    assert_eq!(arguments, json!({"sign": "WZPZ"}));
    let usage = &v["usage"];
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap())
    );

    let body = json!({"messages": [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "tool_calls": message["tool_calls"]},
        {"role": "tool", "content": "{\"song\": \"In the end\", \"author\": \"Linkin Park\"}"}],
        "tools": tools});
    let v = invoke(&rt, &body).await;
    let answer = v["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(answer.contains("In the end") && answer.contains("top_song"), "{answer}");

    // tool_choice none answers in prose.
    let body = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools, "tool_choice": "none"});
    assert!(invoke(&rt, &body).await["choices"][0]["message"]["content"].is_string());
}

#[tokio::test]
async fn chat_without_tools_answers_the_seeds_json_from_the_system_prompt() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let body =
        json!({"messages": [{"role": "system", "content": system_prompt()}, {"role": "user", "content": QUESTION}]});
    let v = invoke(&rt, &body).await;
    let content = v["choices"][0]["message"]["content"].as_str().unwrap();
    let call: Value = serde_json::from_str(content).unwrap();
    assert_eq!(call, json!({"tool": "top_song", "arguments": {"sign": "WZPZ"}}));
    assert!(content.starts_with("{\n  \"tool\""), "the seed's layout: {content}");
}

fn rendered(template: &str) -> String {
    let sys = system_prompt();
    match template {
        "chatml" => format!(
            "<|im_start|>system\n{sys}<|im_end|>\n<|im_start|>user\n{QUESTION}<|im_end|>\n<|im_start|>assistant\n"
        ),
        "llama3" => format!(
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n{sys}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n{QUESTION}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        ),
        _ => format!("<s>[INST] {sys}\n\n{QUESTION} [/INST]"),
    }
}

#[tokio::test]
async fn generate_reads_chatml_llama3_and_mistral_prompts() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    for template in ["chatml", "llama3", "mistral"] {
        let body = json!({"inputs": rendered(template),
            "parameters": {"max_new_tokens": 100, "return_full_text": false, "details": true}});
        let v = invoke(&rt, &body).await;
        let text = v[0]["generated_text"].as_str().unwrap();
        let call: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{template}: {e}: {text}"));
        assert_eq!(call["arguments"]["sign"], "WZPZ", "{template}");
        let details = &v[0]["details"];
        assert_eq!(details["finish_reason"], "eos_token");
        assert_eq!(
            details["generated_tokens"].as_u64().unwrap() as usize,
            details["tokens"].as_array().unwrap().len()
        );
        // A tool result in the next user turn gets a final answer.
        let follow = format!(
            "{}{text}<|im_end|>\n<|im_start|>user\nTool top_song returned: {{\"song\": \"In the end\"}}<|im_end|>\n<|im_start|>assistant\n",
            rendered("chatml")
        );
        let v = invoke(
            &rt,
            &json!({"inputs": follow, "parameters": {"return_full_text": false}}),
        )
        .await;
        assert!(v[0]["generated_text"].as_str().unwrap().contains("In the end"));
    }
    // return_full_text defaults to true on /invocations.
    let v = invoke(
        &rt,
        &json!({"inputs": rendered("chatml"), "parameters": {"max_new_tokens": 50}}),
    )
    .await;
    assert!(
        v[0]["generated_text"]
            .as_str()
            .unwrap()
            .starts_with("<|im_start|>system")
    );
    // max_new_tokens cuts the answer short and says so.
    let v = invoke(&rt, &json!({"inputs": rendered("chatml"), "parameters": {"max_new_tokens": 2, "details": true, "return_full_text": false}})).await;
    assert_eq!(v[0]["details"]["finish_reason"], "length");
}

#[tokio::test]
async fn both_shapes_stream_tgi_events() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let tools = json!([{"type": "function", "function": top_song()}]);
    let body = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools, "stream": true,
        "stream_options": {"include_usage": true}});
    let events = stream(&rt, &body).await;
    assert_eq!(events.last().unwrap(), "data: [DONE]\n\n");
    let chunks: Vec<Value> = events[..events.len() - 1].iter().map(|e| data(e)).collect();
    let calls: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0/function"))
        .collect();
    assert_eq!(calls[0]["name"], "top_song");
    assert_eq!(calls[0]["arguments"], "{");
    assert!(calls[1]["name"].is_null());
    let joined: String = calls.iter().map(|f| f["arguments"].as_str().unwrap()).collect();
    assert_eq!(serde_json::from_str::<Value>(&joined).unwrap(), json!({"sign": "WZPZ"}));
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert!(usage["usage"]["completion_tokens"].as_u64().unwrap() > 0);

    let body = json!({"inputs": rendered("llama3"), "stream": true,
        "parameters": {"return_full_text": false, "details": true}});
    let events = stream(&rt, &body).await;
    assert!(events.len() > 3, "one event per token: {events:?}");
    let tokens: String = events
        .iter()
        .map(|e| data(e)["token"]["text"].as_str().unwrap().to_string())
        .collect();
    let last = data(events.last().unwrap());
    assert_eq!(last["generated_text"].as_str().unwrap(), tokens);
    assert_eq!(last["details"]["finish_reason"], "eos_token");
    assert!(data(&events[0])["generated_text"].is_null());
}

#[tokio::test]
async fn faults_make_tool_calls_malformed_or_unknown() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let body =
        json!({"messages": [{"role": "system", "content": system_prompt()}, {"role": "user", "content": QUESTION}]});
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=malformed_tool_call,endpoint={LLM},count=1")).unwrap());
    let content = invoke(&rt, &body).await["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        content.contains("top_song") && serde_json::from_str::<Value>(&content).is_err(),
        "{content}"
    );
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=unknown_tool,endpoint={LLM},count=1")).unwrap());
    let tools = json!([{"type": "function", "function": top_song()}]);
    let native = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools});
    let v = invoke(&rt, &native).await;
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "top_song_v2"
    );
    // Both were counted once; the next answer is whole again.
    let content = invoke(&rt, &body).await["choices"][0]["message"]["content"].clone();
    assert!(serde_json::from_str::<Value>(content.as_str().unwrap()).is_ok());
}

#[tokio::test]
async fn invalid_bodies_answer_tgi_validation_errors() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    for body in [
        json!({"prompt": "x"}),
        json!({"inputs": "x", "parameters": {"temperature": 0}}),
    ] {
        let err = request(&rt, &body).send().await.unwrap_err();
        let aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError::ModelError(me) =
            err.into_service_error()
        else {
            panic!("expected ModelError");
        };
        assert_eq!(me.original_status_code(), Some(422));
        assert!(me.original_message().unwrap().contains("\"error_type\":\"validation\""));
    }
}

const BOTO3_SCRIPT: &str = r#"
import json, sys, boto3
rt = boto3.client("sagemaker-runtime")
q = "What is the most played song on WZPZ?"
tool = {"name": "top_song", "description": "Get the most popular song played on a radio station.",
        "parameters": {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}}
body = {"messages": [{"role": "user", "content": q}], "tools": [{"type": "function", "function": tool}]}
r = rt.invoke_endpoint(EndpointName="llm-tgi-chat", ContentType="application/json", Body=json.dumps(body))
msg = json.loads(r["Body"].read())["choices"][0]["message"]
print("chat", msg["tool_calls"][0]["function"]["name"], msg["tool_calls"][0]["function"]["arguments"])
prompt = "<|im_start|>system\n" + json.dumps(tool) + "<|im_end|>\n<|im_start|>user\n" + q + "<|im_end|>\n<|im_start|>assistant\n"
gen = {"inputs": prompt, "parameters": {"return_full_text": False}, "stream": True}
r = rt.invoke_endpoint_with_response_stream(EndpointName="llm-tgi-chat", ContentType="application/json", Body=json.dumps(gen))
buf, last = b"", None
for ev in r["Body"]:
    buf += ev["PayloadPart"]["Bytes"]
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        if line.startswith(b"data: "):
            last = json.loads(line[6:])
print("generate", json.dumps(json.loads(last["generated_text"])))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_speaks_both_shapes_to_the_model() {
    let venv = venv_async().await;
    let sb = sandbox_with(demo_config()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let out = env.run(venv, "boto3 llm script", &["-c", BOTO3_SCRIPT]).await;
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("chat top_song {\"sign\":\"WZPZ\"}"), "{stdout}");
    assert!(
        stdout.contains("generate {\"tool\": \"top_song\", \"arguments\": {\"sign\": \"WZPZ\"}}"),
        "{stdout}"
    );
}
