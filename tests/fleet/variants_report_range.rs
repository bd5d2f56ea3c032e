//! `variants-report` and records out of range: one record dated 1e18 (or with a negative
//! latency) once stretched every period to 2147483647 s and made every verdict inconclusive; such
//! records are skipped and counted with the unreadable lines, and the report judges the rest.

use std::io::Write;
use std::path::Path;

use sagedeck::aws::invoke::log::{InvocationLog, InvocationRecord, Status};

use crate::common::{demo_config, run_cli, sandbox_with};

/// 20 minutes of `per_minute` calls of `variant` on `ep`: `base` ms plus up to 10 ms, every
/// `fail_every`-th call failing.
fn calls(log: &InvocationLog, variant: &str, per_minute: u32, base: f64, fail_every: u32) {
    let start = 1_780_000_000.0;
    for n in 0..20 * per_minute {
        let mut r = InvocationRecord::new("test", b"{}");
        r.epoch = start + f64::from(n) * 60.0 / f64::from(per_minute);
        r.endpoint = Some("ep".into());
        r.variant = Some(variant.into());
        r.latency_ms = base + f64::from(n * 7919 % 100) / 10.0;
        if n % fail_every == 0 {
            r.status = Status::Error;
            r.error_class = Some("model_error".into());
        }
        assert!(log.append(r, b"{}").is_none());
    }
}

fn write_log(path: &Path, out_of_range: &[(f64, f64)]) {
    let log = InvocationLog::open(path, false).unwrap();
    calls(&log, "Stable", 20, 20.0, 50);
    calls(&log, "Canary", 10, 40.0, 4);
    drop(log);
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for (epoch, latency) in out_of_range {
        let mut r = InvocationRecord::new("test", b"{}");
        (r.epoch, r.latency_ms) = (*epoch, *latency);
        r.endpoint = Some("ep".into());
        r.variant = Some("Canary".into());
        writeln!(f, "{}", serde_json::to_string(&r).unwrap()).unwrap();
    }
}

#[tokio::test]
async fn records_out_of_range_are_skipped_and_counted() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inv.jsonl");
    write_log(&path, &[(1e18, 20.0), (-5.0, 20.0), (1_780_000_100.0, -3.0)]);
    let file = path.to_string_lossy().into_owned();
    let r = run_cli(&sb, &["variants-report", &file, "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("skipped 3 line(s)") && r.stderr.contains("out of range") && r.stderr.contains("line 601"),
        "{}",
        r.stderr
    );
    let j = r.json();
    assert_eq!((j["bad_lines"].as_u64(), j["records"].as_u64()), (Some(3), Some(600)));
    assert_eq!(j["period_seconds"], 60, "{j}");
    let canary = &j["endpoints"][0]["variants"][1];
    assert_eq!(
        (canary["variant"].as_str(), canary["outcome"].as_str()),
        (Some("Canary"), Some("fail")),
        "{canary}"
    );
}
