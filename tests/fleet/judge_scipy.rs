//! The judge's statistics against an independent implementation: SciPy's `mannwhitneyu`
//! (default method choice, two-sided, continuity correction) and NumPy's median of pairwise
//! differences, on fixed data sets with ties, small and unbalanced samples. The setup installs
//! numpy and scipy into `<target>/scipy-venv` from PyPI; the test fails when it cannot.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sagedeck::aws::judge::stats::{Method, hodges_lehmann, mann_whitney_u};

use crate::common::peer_setup::{pinned_venv, show};

const PINS: [(&str, &str); 2] = [("numpy", "2.4.6"), ("scipy", "1.17.1")];

fn scipy_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let probe = "import numpy, scipy; print(numpy.__version__, scipy.__version__)";
        pinned_venv("scipy-venv", &PINS, probe)
    })
}

const SCRIPT: &str = r#"
import json, sys
import numpy as np
from scipy.stats import mannwhitneyu
out = []
for x, y in json.load(sys.stdin):
    r = mannwhitneyu(x, y)
    hl = float(np.median(np.subtract.outer(np.array(x), np.array(y))))
    out.append([float(r.statistic), float(r.pvalue), hl])
print(json.dumps(out))
"#;

/// Deterministic pseudo-random values (no two equal unless `round` makes them so).
fn wave(n: usize, seed: f64, scale: f64, offset: f64) -> Vec<f64> {
    (0..n)
        .map(|i| offset + scale * ((i as f64 * 12.9898 + seed).sin() * 43758.5453).fract().abs())
        .collect()
}

fn rounded(v: Vec<f64>) -> Vec<f64> {
    v.into_iter().map(|x| (x * 2.0).round() / 2.0).collect()
}

fn data_sets() -> Vec<(Vec<f64>, Vec<f64>, Method)> {
    vec![
        // Small, no ties: exact.
        (vec![1.1, 2.3, 3.5, 4.2, 5.9], vec![6.1, 7.3, 8.8, 9.4], Method::Exact),
        (vec![1.0], vec![2.0], Method::Exact),
        (vec![3.0, 1.0, 7.0], vec![2.0, 5.0, 4.0, 6.0, 8.0, 9.0], Method::Exact),
        // One small, one large sample, no ties: still exact.
        (wave(5, 1.0, 10.0, 100.0), wave(40, 2.0, 10.0, 101.0), Method::Exact),
        (wave(8, 3.0, 5.0, 50.0), wave(20, 4.0, 5.0, 49.0), Method::Exact),
        // Small with ties: asymptotic.
        (
            vec![1.0, 2.0, 2.0, 3.0],
            vec![2.0, 3.0, 4.0, 4.0, 5.0],
            Method::Asymptotic,
        ),
        // Both above 8: asymptotic.
        (wave(9, 5.0, 1.0, 0.0), wave(9, 6.0, 1.0, 0.2), Method::Asymptotic),
        (
            wave(30, 7.0, 40.0, 200.0),
            wave(25, 8.0, 40.0, 190.0),
            Method::Asymptotic,
        ),
        // Error rates per minute: mostly zeros.
        (
            vec![0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.02, 0.0, 0.0, 0.0],
            vec![0.0; 10],
            Method::Asymptotic,
        ),
        // Heavy ties from rounding, unbalanced.
        (
            rounded(wave(12, 9.0, 4.0, 10.0)),
            rounded(wave(7, 10.0, 4.0, 11.0)),
            Method::Asymptotic,
        ),
        // Every value equal.
        (vec![5.0; 6], vec![5.0; 6], Method::Asymptotic),
    ]
}

#[test]
fn mann_whitney_and_hodges_lehmann_match_scipy() {
    let venv = scipy_venv();
    let sets = data_sets();
    let input = serde_json::to_string(&sets.iter().map(|(x, y, _)| (x, y)).collect::<Vec<_>>()).expect("json");
    let mut child = std::process::Command::new(venv.join("bin/python"))
        .args(["-c", SCRIPT])
        .env("PYTHONNOUSERSITE", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python starts");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write data sets");
    }
    let out = child.wait_with_output().expect("python finishes");
    assert!(out.status.success(), "scipy script failed\n{}", show(&out));
    let expected: Vec<(f64, f64, f64)> = serde_json::from_slice(&out.stdout).expect("scipy answers JSON");
    assert_eq!(expected.len(), sets.len());
    for (i, ((x, y, method), (u, p, hl))) in sets.iter().zip(&expected).enumerate() {
        let ours = mann_whitney_u(x, y).expect("a result");
        assert_eq!(ours.method, *method, "set {i}: method");
        assert!((ours.u - u).abs() < 1e-9, "set {i}: U {} vs SciPy {u}", ours.u);
        assert!(
            (ours.p_value - p).abs() <= 1e-9 * p.max(1e-300) + 1e-14,
            "set {i}: p {} vs SciPy {p}",
            ours.p_value
        );
        let ours_hl = hodges_lehmann(x, y).expect("a shift");
        assert!((ours_hl - hl).abs() < 1e-9, "set {i}: HL {ours_hl} vs NumPy {hl}");
    }
}
