//! S3 (restXml, path-style) for the multi-model catalog and asynchronous inference: ListBuckets,
//! ListObjectsV2 (prefix, delimiter, max-keys, continuation token, start-after,
//! `encoding-type=url`), HeadObject, GetObject answering the bytes written (`objects.rs`:
//! CreateBucket, PutObject) or a synthetic artifact of the listed size.

pub mod objects;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use base64::Engine;
use serde::Serialize;

use crate::sandbox::http::wire::{ApiError, Protocol, XmlNode, bytes_response, xml_document};
use crate::sandbox::world::clock::{http_date, iso8601};
use crate::sandbox::world::sandbox::Sandbox;

/// The namespace of S3's XML answers.
const S3_XMLNS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

#[derive(Serialize)]
#[serde(rename = "ListBucketResult")]
struct ListBucketResult {
    #[serde(rename = "@xmlns")]
    xmlns: &'static str,
    #[serde(rename = "Name")]
    name: String,
    #[serde(rename = "Prefix")]
    prefix: String,
    #[serde(rename = "Delimiter", skip_serializing_if = "Option::is_none")]
    delimiter: Option<String>,
    #[serde(rename = "MaxKeys")]
    max_keys: usize,
    #[serde(rename = "KeyCount")]
    key_count: usize,
    #[serde(rename = "IsTruncated")]
    is_truncated: bool,
    #[serde(rename = "EncodingType", skip_serializing_if = "Option::is_none")]
    encoding_type: Option<String>,
    #[serde(rename = "ContinuationToken", skip_serializing_if = "Option::is_none")]
    continuation_token: Option<String>,
    #[serde(rename = "NextContinuationToken", skip_serializing_if = "Option::is_none")]
    next_continuation_token: Option<String>,
    #[serde(rename = "StartAfter", skip_serializing_if = "Option::is_none")]
    start_after: Option<String>,
    #[serde(rename = "Contents", default)]
    contents: Vec<ObjectEntry>,
    #[serde(rename = "CommonPrefixes", default)]
    common_prefixes: Vec<CommonPrefix>,
}

#[derive(Serialize)]
struct ObjectEntry {
    #[serde(rename = "Key")]
    key: String,
    #[serde(rename = "LastModified")]
    last_modified: String,
    #[serde(rename = "ETag")]
    etag: String,
    #[serde(rename = "Size")]
    size: u64,
    #[serde(rename = "StorageClass")]
    storage_class: &'static str,
}

#[derive(Serialize)]
struct CommonPrefix {
    #[serde(rename = "Prefix")]
    prefix: String,
}

fn no_such_bucket(bucket: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "NoSuchBucket",
        format!("The specified bucket does not exist: {bucket}"),
    )
}

/// Percent-encodes a key as S3 does for `encoding-type=url` (unreserved characters and `/` kept).
fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// GetObject or HeadObject of an object whose bytes were written.
fn written_object(sb: &Sandbox, method: &Method, (bucket, key): (&str, &str), bytes: Vec<u8>) -> Response {
    let world = sb.world.read();
    let Some(obj) = world.buckets.get(bucket).and_then(|b| b.get(key)) else {
        return ApiError::new(StatusCode::NOT_FOUND, "NoSuchKey", "The specified key does not exist.")
            .into_response(Protocol::RestXml);
    };
    let len = bytes.len();
    let mut resp = if method == Method::HEAD {
        Response::new(Body::empty())
    } else {
        Response::new(Body::from(bytes))
    };
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    if let Ok(v) = HeaderValue::from_str(&obj.etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&http_date(obj.last_modified)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    resp
}

fn xml_response(body: String) -> Response {
    bytes_response(
        StatusCode::OK,
        "application/xml",
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}").into_bytes(),
    )
}

/// Serves a PUT (CreateBucket, PutObject) that no other service claimed.
pub fn handle_put(sb: &Sandbox, path: &str, headers: &axum::http::HeaderMap, body: &Bytes) -> Response {
    let trimmed = path.trim_start_matches('/');
    let (bucket, key) = trimmed.split_once('/').unwrap_or((trimmed, ""));
    let (bucket, key) = (percent_decode(bucket), percent_decode(key));
    objects::put(sb, (&bucket, &key), headers, body).unwrap_or_else(|e| e.into_response(Protocol::RestXml))
}

/// Serves a GET or HEAD request that no other service claimed.
pub fn handle(sb: &Sandbox, method: &Method, path: &str, query: Option<&str>) -> Response {
    let params: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or("")).unwrap_or_default();
    let param = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let trimmed = path.trim_start_matches('/');
    let (bucket, key) = trimmed.split_once('/').unwrap_or((trimmed, ""));
    let bucket = percent_decode(bucket);
    let key = percent_decode(key);
    if !key.is_empty()
        && let Some(bytes) = objects::read_object(sb, &bucket, &key)
    {
        return written_object(sb, method, (&bucket, &key), bytes);
    }
    if bucket.is_empty() {
        return list_buckets(sb);
    }
    if key.is_empty() {
        return match list_objects(sb, &bucket, &param) {
            Ok(r) => r,
            Err(e) => e.into_response(Protocol::RestXml),
        };
    }
    let world = sb.world.read();
    let Some(objects) = world.buckets.get(&bucket) else {
        return no_such_bucket(&bucket).into_response(Protocol::RestXml);
    };
    let Some(obj) = objects.get(&key) else {
        if method == Method::HEAD {
            return bytes_response(StatusCode::NOT_FOUND, "application/xml", Vec::new());
        }
        return ApiError::new(StatusCode::NOT_FOUND, "NoSuchKey", "The specified key does not exist.")
            .into_response(Protocol::RestXml);
    };
    let size = obj.size;
    let mut resp = if method == Method::HEAD {
        Response::new(Body::empty())
    } else {
        // A synthetic artifact of the listed size, streamed in zeroed chunks.
        const CHUNK: u64 = 64 * 1024;
        let chunks = size.div_ceil(CHUNK);
        let stream = futures_util::stream::iter((0..chunks).map(move |i| {
            let len = if i + 1 == chunks { size - i * CHUNK } else { CHUNK };
            Ok::<Bytes, std::convert::Infallible>(Bytes::from(vec![0u8; len as usize]))
        }));
        Response::new(Body::from_stream(stream))
    };
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-gzip"));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    if let Ok(v) = HeaderValue::from_str(&obj.etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&http_date(obj.last_modified)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    resp
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn list_buckets(sb: &Sandbox) -> Response {
    let world = sb.world.read();
    let buckets = world
        .buckets
        .keys()
        .map(|b| {
            XmlNode::Parent(
                "Bucket",
                vec![
                    XmlNode::text("Name", b),
                    XmlNode::text("CreationDate", "2026-01-01T00:00:00.000Z"),
                ],
            )
        })
        .collect();
    let children = [
        XmlNode::Parent("Owner", vec![XmlNode::text("ID", "sandbox")]),
        XmlNode::Parent("Buckets", buckets),
    ];
    let body = xml_document(true, "ListAllMyBucketsResult", Some(S3_XMLNS), &children);
    bytes_response(StatusCode::OK, "application/xml", body)
}

fn invalid_argument(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "InvalidArgument", message)
}

/// One page of a ListObjectsV2 walk: the objects, the common prefixes rolled up by the
/// delimiter, the last key seen and whether more remain.
struct ListPage {
    contents: Vec<ObjectEntry>,
    prefixes: Vec<String>,
    last_key: Option<String>,
    truncated: bool,
}

/// Walks `objects` under `prefix` after `resume_after`, up to `max_keys` entries.
fn walk(
    objects: &std::collections::BTreeMap<String, crate::sandbox::world::resources::S3Object>,
    prefix: &str,
    delimiter: Option<&str>,
    resume_after: Option<&str>,
    max_keys: usize,
    enc: &dyn Fn(&str) -> String,
) -> ListPage {
    let mut page = ListPage {
        contents: Vec::new(),
        prefixes: Vec::new(),
        last_key: None,
        truncated: false,
    };
    for (key, obj) in objects
        .range(prefix.to_string()..)
        .take_while(|(k, _)| k.starts_with(prefix))
    {
        if resume_after.is_some_and(|r| key.as_str() <= r) {
            continue;
        }
        if page.contents.len() + page.prefixes.len() >= max_keys {
            page.truncated = true;
            break;
        }
        if let Some(d) = delimiter
            && let Some(pos) = key[prefix.len()..].find(d)
        {
            let cp = key[..prefix.len() + pos + d.len()].to_string();
            if page.prefixes.last() != Some(&cp) {
                page.prefixes.push(cp);
            }
            page.last_key = Some(key.clone());
            continue;
        }
        page.contents.push(ObjectEntry {
            key: enc(key),
            last_modified: iso8601(obj.last_modified),
            etag: obj.etag.clone(),
            size: obj.size,
            storage_class: "STANDARD",
        });
        page.last_key = Some(key.clone());
    }
    page
}

fn list_objects(sb: &Sandbox, bucket: &str, param: &dyn Fn(&str) -> Option<String>) -> Result<Response, ApiError> {
    let prefix = param("prefix").unwrap_or_default();
    let delimiter = param("delimiter").filter(|d| !d.is_empty());
    let max_keys = match param("max-keys") {
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| invalid_argument(format!("Provided max-keys not an integer or within integer range: {v}")))?,
        None => 1000,
    }
    .min(1000);
    let token = param("continuation-token");
    let start_after = param("start-after");
    let resume_after = match &token {
        Some(t) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(t)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| invalid_argument("The continuation token provided is incorrect"))?,
        ),
        None => start_after.clone(),
    };
    let encode = param("encoding-type").filter(|e| e == "url");
    let encoding = encode.is_some();
    let enc = |s: &str| {
        if encoding { url_encode(s) } else { s.to_string() }
    };
    let world = sb.world.read();
    let objects = world.buckets.get(bucket).ok_or_else(|| no_such_bucket(bucket))?;
    let ListPage {
        contents,
        prefixes,
        last_key,
        truncated,
    } = walk(
        objects,
        &prefix,
        delimiter.as_deref(),
        resume_after.as_deref(),
        max_keys,
        &enc,
    );
    let result = ListBucketResult {
        xmlns: S3_XMLNS,
        name: bucket.to_string(),
        prefix: enc(&prefix),
        delimiter: delimiter.map(|d| enc(&d)),
        max_keys,
        key_count: contents.len() + prefixes.len(),
        is_truncated: truncated,
        encoding_type: encode,
        continuation_token: token,
        next_continuation_token: if truncated {
            last_key.map(|k| base64::engine::general_purpose::STANDARD.encode(k))
        } else {
            None
        },
        start_after: start_after.map(|s| enc(&s)),
        contents,
        common_prefixes: prefixes.into_iter().map(|p| CommonPrefix { prefix: enc(&p) }).collect(),
    };
    let xml = quick_xml::se::to_string(&result).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            format!("XML encoding failed: {e}"),
        )
    })?;
    Ok(xml_response(xml))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_encoding_and_decoding_round_trip() {
        assert_eq!(url_encode("a b/c+d.tar.gz"), "a%20b/c%2Bd.tar.gz");
        assert_eq!(percent_decode("a%20b/c%2Bd.tar.gz"), "a b/c+d.tar.gz");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
