//! The model catalog of a multi-model endpoint: every S3 object under the model's ModelDataUrl
//! prefix (ListObjectsV2, all pages), keyed relative to the prefix exactly as `TargetModel`
//! expects it. There is no AWS API listing the models loaded on an MME; this is what can be
//! invoked, not what is in memory.

use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// One model artifact an MME can serve.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CatalogEntry {
    /// The key relative to the ModelDataUrl prefix: the `TargetModel` to invoke.
    pub key: String,
    /// Artifact size in bytes.
    pub size: u64,
    /// Last modification (epoch seconds), when S3 reported it.
    pub last_modified: Option<f64>,
    /// ETag as S3 reported it (quotes included).
    pub etag: Option<String>,
}

/// A listed catalog with where it came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Catalog {
    /// Bucket.
    pub bucket: String,
    /// Key prefix inside the bucket (may be empty).
    pub prefix: String,
    /// Models, in S3 key order.
    pub models: Vec<CatalogEntry>,
    /// ListObjectsV2 pages read.
    pub pages: usize,
}

impl Catalog {
    /// The entry with this relative key.
    pub fn get(&self, key: &str) -> Option<&CatalogEntry> {
        self.models.iter().find(|m| m.key == key)
    }

    /// The keys of `wanted` that are not in the catalog, in the order given.
    pub fn unknown<'a>(&self, wanted: &'a [String]) -> Vec<&'a str> {
        wanted
            .iter()
            .filter(|w| self.get(w).is_none())
            .map(String::as_str)
            .collect()
    }

    /// Total bytes of every model.
    pub fn total_bytes(&self) -> u64 {
        self.models.iter().map(|m| m.size).sum()
    }
}

/// Splits `s3://bucket/some/prefix/` into `("bucket", "some/prefix/")`.
pub fn split_s3_url(url: &str) -> Result<(String, String), AwsError> {
    let rest = url
        .strip_prefix("s3://")
        .ok_or_else(|| AwsError::Validation(format!("{url:?} is not an s3:// URL")))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(AwsError::Validation(format!("{url:?} names no bucket")));
    }
    Ok((bucket.to_string(), prefix.to_string()))
}

/// The `TargetModel` of a full S3 key under `prefix`; `None` for the prefix itself and for
/// "directory" placeholder keys (ending in `/`).
pub fn relative_key(prefix: &str, key: &str) -> Option<String> {
    let rel = key.strip_prefix(prefix)?;
    if rel.is_empty() || rel.ends_with('/') {
        return None;
    }
    Some(rel.to_string())
}

impl Fleet {
    /// Every model under an MME's ModelDataUrl (`s3://bucket/prefix/`), all pages, keys relative
    /// to the prefix, directory placeholders skipped.
    pub async fn model_catalog(&self, model_data_url: &str) -> Result<Vec<CatalogEntry>, AwsError> {
        Ok(self.list_catalog(model_data_url, None).await?.models)
    }

    /// [`Fleet::model_catalog`] with its bucket, prefix and page count; `page_size` sets
    /// `max-keys` (1-1000, S3's default 1000 when `None`).
    pub async fn list_catalog(&self, model_data_url: &str, page_size: Option<i32>) -> Result<Catalog, AwsError> {
        let (bucket, prefix) = split_s3_url(model_data_url)?;
        let mut catalog = Catalog {
            bucket,
            prefix,
            models: Vec::new(),
            pages: 0,
        };
        let mut token: Option<String> = None;
        loop {
            let page = self
                .s3
                .list_objects_v2()
                .bucket(&catalog.bucket)
                .prefix(&catalog.prefix)
                .set_max_keys(page_size)
                .set_continuation_token(token.take())
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            catalog.pages += 1;
            for obj in page.contents() {
                let Some(key) = obj.key().and_then(|k| relative_key(&catalog.prefix, k)) else {
                    continue;
                };
                catalog.models.push(CatalogEntry {
                    key,
                    size: obj.size().unwrap_or(0).max(0) as u64,
                    last_modified: obj.last_modified().map(|t| t.as_secs_f64()),
                    etag: obj.e_tag().map(str::to_string),
                });
            }
            token = page.next_continuation_token().map(str::to_string);
            // A truncated page without a token would loop forever; S3 always sends one.
            if token.is_none() || page.is_truncated() == Some(false) {
                return Ok(catalog);
            }
        }
    }
}

/// Bytes in decimal units as S3's console shows them (`812.4 MB`, `40.0 GB`).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64;
    let mut unit = "B";
    for u in UNITS {
        if v < 1000.0 {
            break;
        }
        v /= 1000.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_relative_keys() {
        assert_eq!(
            split_s3_url("s3://b/tenants/").unwrap(),
            ("b".to_string(), "tenants/".to_string())
        );
        assert_eq!(split_s3_url("s3://b").unwrap(), ("b".to_string(), String::new()));
        assert!(split_s3_url("https://b/x").is_err());
        assert!(split_s3_url("s3:///x").is_err());
        assert_eq!(
            relative_key("tenants/", "tenants/a.tar.gz").as_deref(),
            Some("a.tar.gz")
        );
        assert_eq!(
            relative_key("tenants/", "tenants/sub/a.tar.gz").as_deref(),
            Some("sub/a.tar.gz")
        );
        assert_eq!(relative_key("tenants/", "tenants/"), None);
        assert_eq!(relative_key("tenants/", "tenants/sub/"), None);
        assert_eq!(relative_key("tenants/", "models/a.tar.gz"), None);
    }

    #[test]
    fn sizes_read_like_the_s3_console() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(812_400_000), "812.4 MB");
        assert_eq!(human_size(40_000_000_000), "40.0 GB");
    }
}
