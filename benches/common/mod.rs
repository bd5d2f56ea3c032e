//! Helpers shared by the benches: environment knobs, summary statistics and SDK configuration
//! for a sandbox URL.
#![allow(dead_code)]

/// The number in environment variable `name`, or `default` when unset or not a number.
pub fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Median of `v` (mean of the two middle values for an even count; NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Smallest and largest value of `v`.
pub fn min_max(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// SDK configuration for `url`: static test credentials, us-east-1.
pub async fn sdk_config(url: &str) -> aws_config::SdkConfig {
    sdk_config_in(url, "us-east-1").await
}

/// SDK configuration for `url` in `region` (the sandbox serves each region's fleet by the
/// signing region): static test credentials.
pub async fn sdk_config_in(url: &str, region: &str) -> aws_config::SdkConfig {
    sagedeck::aws::config::local_sdk_config_in(url, region).await
}
