//! S3's writes, path-style as the reads: CreateBucket (`PUT /BUCKET`) and PutObject
//! (`PUT /BUCKET/KEY`, a plain body or the `aws-chunked` encoding newer SDKs send with a trailing
//! checksum), and the objects' bytes for GetObject. [`write_object`] is also how asynchronous
//! inference writes its outputs.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use sha2::Digest;

use crate::sandbox::http::wire::{ApiError, bytes_response};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::resources::S3Object;
use crate::sandbox::world::sandbox::Sandbox;

/// Serves a PUT: CreateBucket on `/BUCKET`, PutObject on `/BUCKET/KEY`.
pub fn put(sb: &Sandbox, (bucket, key): (&str, &str), headers: &HeaderMap, body: &Bytes) -> Result<Response, ApiError> {
    if key.is_empty() {
        return create_bucket(sb, bucket);
    }
    let bytes = decoded_body(headers, body)?;
    let etag = write_object(sb, (bucket, key), bytes)?;
    let mut resp = bytes_response(StatusCode::OK, "application/xml", Vec::new());
    if let Ok(v) = HeaderValue::from_str(&etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    Ok(resp)
}

/// CreateBucket: a new bucket, or `BucketAlreadyOwnedByYou` (409) for one that exists.
fn create_bucket(sb: &Sandbox, bucket: &str) -> Result<Response, ApiError> {
    let valid = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if !valid {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "InvalidBucketName",
            "The specified bucket is not valid.",
        ));
    }
    let mut world = sb.world.write();
    if world.buckets.contains_key(bucket) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
        ));
    }
    world.buckets.insert(bucket.to_string(), Default::default());
    let mut resp = bytes_response(StatusCode::OK, "application/xml", Vec::new());
    if let Ok(v) = HeaderValue::from_str(&format!("/{bucket}")) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// Stores `bytes` at `bucket`/`key` (the bucket must exist); returns the ETag.
pub fn write_object(sb: &Sandbox, (bucket, key): (&str, &str), bytes: Vec<u8>) -> Result<String, ApiError> {
    let digest = sha2::Sha256::digest(&bytes);
    let etag = format!(
        "\"{}\"",
        digest[..16].iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let mut world = sb.world.write();
    let Some(objects) = world.buckets.get_mut(bucket) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "NoSuchBucket",
            format!("The specified bucket does not exist: {bucket}"),
        ));
    };
    objects.insert(
        key.to_string(),
        S3Object {
            size: bytes.len() as u64,
            last_modified: now_epoch(),
            etag: etag.clone(),
        },
    );
    world.object_bodies.insert((bucket.to_string(), key.to_string()), bytes);
    Ok(etag)
}

/// The bytes of an object PutObject (or the sandbox) wrote, if any.
pub fn read_object(sb: &Sandbox, bucket: &str, key: &str) -> Option<Vec<u8>> {
    let world = sb.world.read();
    world.buckets.get(bucket)?.get(key)?;
    world.object_bodies.get(&(bucket.to_string(), key.to_string())).cloned()
}

/// The object's bytes: the body as sent, or decoded from `aws-chunked` (chunks of
/// `HEX[;chunk-signature=...]\r\nDATA\r\n`, a zero chunk, then trailers).
fn decoded_body(headers: &HeaderMap, body: &Bytes) -> Result<Vec<u8>, ApiError> {
    let text = |h: &str| headers.get(h).and_then(|v| v.to_str().ok()).unwrap_or("");
    let chunked =
        text("content-encoding").contains("aws-chunked") || text("x-amz-content-sha256").starts_with("STREAMING-");
    if !chunked {
        return Ok(body.to_vec());
    }
    let bad = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "IncompleteBody",
            "The aws-chunked body is malformed.",
        )
    };
    let mut out = Vec::new();
    let mut rest: &[u8] = body;
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").ok_or_else(bad)?;
        let size_text = std::str::from_utf8(&rest[..line_end]).map_err(|_| bad())?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16).map_err(|_| bad())?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size + 2 {
            return Err(bad());
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aws_chunked_body_is_decoded_without_its_trailer() {
        let mut h = HeaderMap::new();
        h.insert("content-encoding", HeaderValue::from_static("aws-chunked"));
        let body =
            Bytes::from_static(b"5\r\nhello\r\n3;chunk-signature=ab\r\n, w\r\n0\r\nx-amz-checksum-crc32:AAAA\r\n\r\n");
        assert_eq!(decoded_body(&h, &body).unwrap(), b"hello, w");
    }
}
