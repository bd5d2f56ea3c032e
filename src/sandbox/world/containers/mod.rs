//! Simulated model containers, chosen by image (or `SAGEDECK_CONTAINER`): a Hugging Face text
//! classifier, a TGI-style text generator (a tool-calling model, see `llm`), an XGBoost-style CSV scorer and an image classifier.
//! Each answers deterministically for a given input, refuses content types it does not serve with
//! the status a real serving stack gives, and reports how much work the request was.

pub mod answer;
pub mod llm;

use std::hash::{Hash, Hasher};

use crate::sandbox::world::resources::Container;
use answer::{ContainerError, Reply};
use llm::LlmFault;

/// What a container does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    /// Hugging Face Inference Toolkit text classification.
    Classifier,
    /// Text Generation Inference.
    Generator,
    /// Built-in XGBoost: CSV in, CSV out.
    CsvScorer,
    /// Built-in image classification: JPEG/PNG in, JSON labels out.
    ImageClassifier,
}

fn err(status: u16, message: impl Into<String>) -> ContainerError {
    ContainerError {
        status,
        message: message.into(),
    }
}

const INTENTS: [&str; 6] = [
    "book_flight",
    "check_weather",
    "play_music",
    "get_news",
    "set_reminder",
    "smalltalk",
];
const IMAGE_LABELS: [&str; 8] = [
    "tabby cat",
    "golden retriever",
    "espresso",
    "mountain bike",
    "laptop",
    "sunflower",
    "container ship",
    "pizza",
];

fn hash_of(data: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

fn base_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

fn accepts(accept: Option<&str>, offered: &[&str]) -> Option<String> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Some(offered[0].to_string());
    };
    for part in accept.split(',') {
        let t = base_type(part);
        if t == "*/*" {
            return Some(offered[0].to_string());
        }
        if let Some(o) = offered.iter().find(|o| **o == t) {
            return Some(o.to_string());
        }
    }
    None
}

/// Deterministic scores over `labels` for an input, softmax-normalised, sorted best first.
fn scores(seed: u64, labels: &[&str]) -> Vec<(String, f64)> {
    let mut logits: Vec<(String, f64)> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let h = seed.rotate_left(i as u32 * 7) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            (l.to_string(), (h % 1000) as f64 / 180.0)
        })
        .collect();
    let max = logits.iter().map(|l| l.1).fold(f64::MIN, f64::max);
    let total: f64 = logits.iter().map(|l| (l.1 - max).exp()).sum();
    for l in &mut logits {
        l.1 = ((l.1 - max).exp() / total * 1e6).round() / 1e6;
    }
    logits.sort_by(|a, b| b.1.total_cmp(&a.1));
    logits
}

fn parse_json_request(body: &[u8]) -> Result<serde_json::Value, ContainerError> {
    let v: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        err(
            400,
            format!(r#"{{"code": 400, "type": "InternalServerException", "message": "{e}"}}"#),
        )
    })?;
    if v.get("inputs").is_none() {
        return Err(err(
            400,
            r#"{"code": 400, "type": "InternalServerException", "message": "\"inputs\" key is required in the request body"}"#,
        ));
    }
    Ok(v)
}

impl ContainerKind {
    /// The kind a container simulates: `SAGEDECK_CONTAINER` in its environment, else its image.
    pub fn of(container: &Container) -> ContainerKind {
        let hint = container
            .environment
            .get("SAGEDECK_CONTAINER")
            .cloned()
            .unwrap_or_else(|| container.image.to_ascii_lowercase());
        if hint.contains("tgi") || hint.contains("generat") || hint.contains("llm") {
            ContainerKind::Generator
        } else if hint.contains("xgboost") || hint.contains("csv") || hint.contains("linear-learner") {
            ContainerKind::CsvScorer
        } else if hint.contains("image") || hint.contains("resnet") {
            ContainerKind::ImageClassifier
        } else {
            ContainerKind::Classifier
        }
    }

    /// Typical model latency of one request in milliseconds (the median of its distribution).
    pub fn base_latency_ms(self) -> f64 {
        match self {
            ContainerKind::Classifier => 22.0,
            ContainerKind::Generator => 35.0,
            ContainerKind::CsvScorer => 3.0,
            ContainerKind::ImageClassifier => 48.0,
        }
    }

    /// A warm-up payload this container accepts: `(content type, body)`.
    pub fn sample_request(self) -> (&'static str, Vec<u8>) {
        match self {
            ContainerKind::Classifier => ("application/json", br#"{"inputs": "warmup"}"#.to_vec()),
            ContainerKind::Generator => (
                "application/json",
                br#"{"inputs": "warmup", "parameters": {"max_new_tokens": 8}}"#.to_vec(),
            ),
            ContainerKind::CsvScorer => ("text/csv", b"0.5,1.0,3,12.5,0".to_vec()),
            ContainerKind::ImageClassifier => (
                "image/jpeg",
                vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F'],
            ),
        }
    }

    /// Runs one request through the container.
    pub fn invoke(self, content_type: &str, accept: Option<&str>, body: &[u8]) -> Result<Reply, ContainerError> {
        self.invoke_with(content_type, accept, body, None)
    }

    /// Runs one request through the container, with an injected model fault (generators only).
    pub fn invoke_with(
        self,
        content_type: &str,
        accept: Option<&str>,
        body: &[u8],
        fault: Option<LlmFault>,
    ) -> Result<Reply, ContainerError> {
        let ct = base_type(content_type);
        match self {
            ContainerKind::Classifier => classify(&ct, accept, body),
            ContainerKind::Generator => {
                tgi_content_type(&ct)?;
                let out_ct = accepts(accept, &["application/json", "text/event-stream"])
                    .ok_or_else(|| not_acceptable(accept, "application/json"))?;
                let (body, work) = llm::invoke(body, fault)?;
                Ok(Reply {
                    body,
                    content_type: out_ct,
                    work,
                })
            }
            ContainerKind::CsvScorer => score_csv(&ct, accept, body),
            ContainerKind::ImageClassifier => classify_image(&ct, accept, body),
        }
    }

    /// The streamed answer of a generator: TGI server-sent-event lines, one per token, as the
    /// payload parts of InvokeEndpointWithResponseStream. Other kinds stream their whole reply
    /// as one part.
    pub fn invoke_stream(
        self,
        content_type: &str,
        accept: Option<&str>,
        body: &[u8],
        fault: Option<LlmFault>,
    ) -> Result<Vec<Vec<u8>>, ContainerError> {
        if self != ContainerKind::Generator {
            return self.invoke(content_type, accept, body).map(|r| vec![r.body]);
        }
        tgi_content_type(&base_type(content_type))?;
        llm::invoke_stream(body, fault)
    }
}

fn tgi_content_type(ct: &str) -> Result<(), ContainerError> {
    if ct != "application/json" {
        return Err(err(
            415,
            format!("Content type {ct} is not supported by TGI; send application/json"),
        ));
    }
    Ok(())
}

/// 406 for an Accept the container cannot produce.
fn not_acceptable(accept: Option<&str>, use_instead: &str) -> ContainerError {
    err(
        406,
        format!("Accept {} is not supported; use {use_instead}", accept.unwrap_or("")),
    )
}

/// The Hugging Face text classifier: JSON in, ranked labels out.
fn classify(ct: &str, accept: Option<&str>, body: &[u8]) -> Result<Reply, ContainerError> {
    if ct != "application/json" {
        return Err(err(
            415,
            format!("Content type {ct} is not supported by this container; send application/json"),
        ));
    }
    let out_ct = accepts(accept, &["application/json"]).ok_or_else(|| not_acceptable(accept, "application/json"))?;
    let req = parse_json_request(body)?;
    let all = req
        .pointer("/parameters/return_all_scores")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let text = req["inputs"].to_string();
    let ranked = scores(hash_of(text.as_bytes()), &INTENTS);
    let take = if all { ranked.len() } else { 1 };
    let out: Vec<serde_json::Value> = ranked
        .into_iter()
        .take(take)
        .map(|(label, score)| serde_json::json!({"label": label, "score": score}))
        .collect();
    Ok(Reply {
        body: serde_json::to_vec(&out).unwrap_or_default(),
        content_type: out_ct,
        work: 1.0 + text.len() as f64 / 2000.0,
    })
}

/// The XGBoost-style scorer: CSV rows in, one probability per row out (CSV or JSON).
fn score_csv(ct: &str, accept: Option<&str>, body: &[u8]) -> Result<Reply, ContainerError> {
    if ct != "text/csv" {
        return Err(err(
            415,
            format!("Content type {ct} is not supported by this algorithm; send text/csv"),
        ));
    }
    let out_ct =
        accepts(accept, &["text/csv", "application/json"]).ok_or_else(|| not_acceptable(accept, "text/csv"))?;
    let text = std::str::from_utf8(body).map_err(|_| err(400, "Unable to decode payload as UTF-8 CSV"))?;
    let mut preds = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut z = -0.8;
        for (i, cell) in line.split(',').enumerate() {
            let x: f64 = cell
                .trim()
                .parse()
                .map_err(|_| err(400, format!("could not convert string to float: '{}'", cell.trim())))?;
            z += x * [0.35, -0.2, 0.12, 0.03, 0.6][i % 5];
        }
        preds.push(((1.0 / (1.0 + (-z).exp())) * 1e6).round() / 1e6);
    }
    if preds.is_empty() {
        return Err(err(400, "Empty CSV payload"));
    }
    let body = if out_ct == "text/csv" {
        preds.iter().map(|p| format!("{p}\n")).collect::<String>().into_bytes()
    } else {
        let rows: Vec<_> = preds.iter().map(|p| serde_json::json!({"score": p})).collect();
        serde_json::to_vec(&serde_json::json!({ "predictions": rows })).unwrap_or_default()
    };
    Ok(Reply {
        body,
        content_type: out_ct,
        work: 1.0 + preds.len() as f64 * 0.05,
    })
}

/// The image classifier: JPEG or PNG bytes in, the top five labels out.
fn classify_image(ct: &str, accept: Option<&str>, body: &[u8]) -> Result<Reply, ContainerError> {
    if ct != "image/jpeg" && ct != "image/png" && ct != "application/x-image" {
        return Err(err(
            415,
            format!("Content type {ct} is not supported; send image/jpeg or image/png"),
        ));
    }
    let out_ct = accepts(accept, &["application/json"]).ok_or_else(|| not_acceptable(accept, "application/json"))?;
    let is_jpeg = body.starts_with(&[0xFF, 0xD8, 0xFF]);
    let is_png = body.starts_with(&[0x89, b'P', b'N', b'G']);
    if !(is_jpeg || is_png) {
        return Err(err(400, "cannot identify image file <_io.BytesIO object>"));
    }
    let ranked = scores(hash_of(body), &IMAGE_LABELS);
    let out: Vec<_> = ranked
        .into_iter()
        .take(5)
        .map(|(label, score)| serde_json::json!({"label": label, "score": score}))
        .collect();
    Ok(Reply {
        body: serde_json::to_vec(&out).unwrap_or_default(),
        content_type: out_ct,
        work: 1.0 + body.len() as f64 / 500_000.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifier_returns_all_scores_sorted_when_asked() {
        let body = br#"{"inputs": "book me a flight", "parameters": {"return_all_scores": true}}"#;
        let r = ContainerKind::Classifier
            .invoke("application/json", Some("application/json"), body)
            .unwrap();
        let v: Vec<serde_json::Value> = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v.len(), INTENTS.len());
        let s: Vec<f64> = v.iter().map(|x| x["score"].as_f64().unwrap()).collect();
        assert!(s.windows(2).all(|w| w[0] >= w[1]));
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-3);
    }

    #[test]
    fn wrong_content_type_is_415_and_bad_json_is_400() {
        assert_eq!(
            ContainerKind::Classifier
                .invoke("text/csv", None, b"1,2")
                .unwrap_err()
                .status,
            415
        );
        assert_eq!(
            ContainerKind::Classifier
                .invoke("application/json", None, b"{nope")
                .unwrap_err()
                .status,
            400
        );
        assert_eq!(
            ContainerKind::CsvScorer
                .invoke("text/csv", None, b"1,abc")
                .unwrap_err()
                .status,
            400
        );
    }

    #[test]
    fn generator_streams_tokens_that_add_up() {
        let body = br#"{"inputs": "hi", "parameters": {"max_new_tokens": 5}}"#;
        let parts = ContainerKind::Generator
            .invoke_stream("application/json", None, body, None)
            .unwrap();
        assert_eq!(parts.len(), 5);
        let whole = ContainerKind::Generator.invoke("application/json", None, body).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&whole.body).unwrap();
        let last = String::from_utf8(parts[4].clone()).unwrap();
        assert!(last.contains(v[0]["generated_text"].as_str().unwrap()));
    }

    #[test]
    fn csv_scores_each_row() {
        let r = ContainerKind::CsvScorer
            .invoke("text/csv", Some("text/csv"), b"1,2,3\n4,5,6\n")
            .unwrap();
        assert_eq!(String::from_utf8(r.body).unwrap().lines().count(), 2);
    }
}
