//! Hand-made wire helpers for the CloudWatch tests: a tiny CBOR writer that can produce the
//! encodings the SDK never sends (indefinite lengths, chunked strings, tag-1 integers), gzip,
//! and a raw HTTP/1.1 POST over a TCP stream.

use std::io::Write;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A CBOR item to encode.
pub enum Cbor {
    Uint(u64),
    F64(f64),
    Text(String),
    /// An indefinite-length text string made of these chunks.
    TextIndef(Vec<&'static str>),
    Array(Vec<Cbor>),
    ArrayIndef(Vec<Cbor>),
    Map(Vec<(String, Cbor)>),
    MapIndef(Vec<(String, Cbor)>),
    /// Tag 1 (epoch seconds) around an unsigned integer.
    Tag1Int(u64),
    /// Tag 1 around a double.
    Tag1F64(f64),
}

fn head(major: u8, n: u64, out: &mut Vec<u8>) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend([m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend(n.to_be_bytes());
        }
    }
}

fn text(s: &str, out: &mut Vec<u8>) {
    head(3, s.len() as u64, out);
    out.extend(s.as_bytes());
}

impl Cbor {
    /// The encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Cbor::Uint(n) => head(0, *n, out),
            Cbor::F64(f) => {
                out.push(0xfb);
                out.extend(f.to_be_bytes());
            }
            Cbor::Text(s) => text(s, out),
            Cbor::TextIndef(chunks) => {
                out.push(0x7f);
                for c in chunks {
                    text(c, out);
                }
                out.push(0xff);
            }
            Cbor::Array(items) => {
                head(4, items.len() as u64, out);
                items.iter().for_each(|i| i.write(out));
            }
            Cbor::ArrayIndef(items) => {
                out.push(0x9f);
                items.iter().for_each(|i| i.write(out));
                out.push(0xff);
            }
            Cbor::Map(pairs) => {
                head(5, pairs.len() as u64, out);
                for (k, v) in pairs {
                    text(k, out);
                    v.write(out);
                }
            }
            Cbor::MapIndef(pairs) => {
                out.push(0xbf);
                for (k, v) in pairs {
                    text(k, out);
                    v.write(out);
                }
                out.push(0xff);
            }
            Cbor::Tag1Int(n) => {
                out.push(0xc1);
                head(0, *n, out);
            }
            Cbor::Tag1F64(f) => {
                out.push(0xc1);
                Cbor::F64(*f).write(out);
            }
        }
    }
}

/// Decodes a response body that must be exactly one CBOR data item.
pub fn cbor_value(body: &[u8]) -> ciborium::Value {
    let mut cursor = std::io::Cursor::new(body);
    let v: ciborium::Value = ciborium::from_reader(&mut cursor).expect("valid CBOR");
    assert_eq!(
        cursor.position() as usize,
        body.len(),
        "exactly one CBOR item, no trailing bytes"
    );
    v
}

/// Gzips `data`.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).expect("gzip");
    enc.finish().expect("gzip")
}

/// A raw HTTP response.
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// POSTs `body` to `path` with `headers` in a hand-written HTTP/1.1 request.
pub async fn raw_post(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: &[u8]) -> RawResponse {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).await.expect("write head");
    stream.write_all(body).await.expect("write body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("end of head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    RawResponse { status, headers, body }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&data[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 4 + size..];
    }
}
