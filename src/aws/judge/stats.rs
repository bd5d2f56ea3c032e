//! Two-sample statistics for the promotion judge: the Mann-Whitney U test (two-sided) and the
//! Hodges-Lehmann shift estimate.
//!
//! The test follows SciPy's `mannwhitneyu` defaults (`alternative="two-sided"`,
//! `use_continuity=True`, `method="auto"`), so its answers can be checked against SciPy:
//! - the statistic is U₁ = R₁ − n₁(n₁+1)/2 of the first sample (average ranks for ties);
//! - `auto` chooses the exact distribution when there are no ties and at least one sample has 8
//!   or fewer values, the normal approximation otherwise;
//! - exact: p = 2·P(U ≥ max(U₁, U₂)), from the counts of U over all arrangements (the
//!   coefficients of the Gaussian binomial coefficient [n₁+n₂ choose n₁]_q);
//! - asymptotic: z = (max(U₁, U₂) − n₁n₂/2 − 0.5) / σ with the tie-corrected
//!   σ² = n₁n₂/12 · ((n+1) − Σ(t³−t)/(n(n−1))), p = 2·(1 − Φ(z)); σ = 0 (all values equal)
//!   gives p = 1;
//! - p is clipped to [0, 1].

use serde::{Deserialize, Serialize};

/// How the p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The exact distribution of U.
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Asymptotic,
}

/// The result of a two-sided Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first sample.
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// How p was computed.
    pub method: Method,
}

/// Average ranks (1-based) of `values` and the sizes of the tie groups.
fn ranks(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && values[order[j]] == values[order[i]] {
            j += 1;
        }
        // Positions i..j (0-based) share the average of ranks i+1..=j.
        let average = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = average;
        }
        ties.push(j - i);
        i = j;
    }
    (ranks, ties)
}

/// Two-sided Mann-Whitney U test of `x` against `y` (SciPy's defaults, see the module docs).
/// `None` when a sample is empty or holds a non-finite value.
pub fn mann_whitney_u(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let (n1, n2) = (x.len(), y.len());
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r[..n1].iter().sum();
    let u1 = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let u2 = (n1 * n2) as f64 - u1;
    let u = u1.max(u2);
    let has_ties = ties.iter().any(|&t| t > 1);
    let exact = !has_ties && (n1 <= 8 || n2 <= 8);
    let p = if exact {
        2.0 * exact_sf(u.round() as usize, n1.min(n2), n1.max(n2))
    } else {
        let n = (n1 + n2) as f64;
        let tie_term: f64 = ties.iter().map(|&t| (t as f64).powi(3) - t as f64).sum();
        let variance = (n1 * n2) as f64 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
        let sigma = variance.max(0.0).sqrt();
        if sigma == 0.0 {
            1.0
        } else {
            let z = (u - (n1 * n2) as f64 / 2.0 - 0.5) / sigma;
            2.0 * normal_sf(z)
        }
    };
    Some(MannWhitney {
        u: u1,
        p_value: p.clamp(0.0, 1.0),
        method: if exact { Method::Exact } else { Method::Asymptotic },
    })
}

/// P(U ≥ u) under the null for samples of sizes `m` ≤ `n` without ties.
fn exact_sf(u: usize, m: usize, n: usize) -> f64 {
    let counts = u_counts(m, n);
    let total: f64 = counts.iter().sum();
    let tail: f64 = counts.iter().skip(u).sum();
    tail / total
}

/// How many arrangements of `m` + `n` values give each U (0..=m·n): the coefficients of
/// ∏_{i=1..m} (1 − q^{n+i}) / (1 − q^i).
fn u_counts(m: usize, n: usize) -> Vec<f64> {
    let max = m * n;
    let mut poly = vec![0.0; max + n + m + 2];
    poly[0] = 1.0;
    let mut degree = 0;
    for i in 1..=m {
        // Multiply by (1 − q^{n+i}).
        let shift = n + i;
        for k in (shift..=degree + shift).rev() {
            poly[k] -= poly[k - shift];
        }
        degree += shift;
        // Divide by (1 − q^i): r_k = p_k + r_{k−i}.
        for k in i..=degree {
            poly[k] += poly[k - i];
        }
        degree -= i;
    }
    poly.truncate(max + 1);
    poly
}

/// 1 − Φ(z) for the standard normal distribution.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The Hodges-Lehmann estimate of the shift of `x` relative to `y`: the median of all pairwise
/// differences xᵢ − yⱼ. `None` when a sample is empty.
pub fn hodges_lehmann(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.is_empty() || y.is_empty() {
        return None;
    }
    let mut diffs: Vec<f64> = x.iter().flat_map(|a| y.iter().map(move |b| a - b)).collect();
    diffs.sort_by(f64::total_cmp);
    median_sorted(&diffs)
}

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u_counts_are_gaussian_binomial_coefficients() {
        // m = 2, n = 2: U in 0..=4 with counts 1 1 2 1 1 (C(4,2) = 6 arrangements).
        assert_eq!(u_counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        let c = u_counts(3, 5);
        assert_eq!(c.iter().sum::<f64>(), 56.0);
        assert_eq!(c.len(), 16);
    }

    #[test]
    fn ranks_average_ties() {
        let (r, t) = ranks(&[3.0, 1.0, 3.0, 2.0]);
        assert_eq!(r, vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(t, vec![1, 1, 2]);
    }

    #[test]
    fn identical_samples_are_not_different() {
        let r = mann_whitney_u(&[1.0; 10], &[1.0; 12]).expect("result");
        assert_eq!(r.p_value, 1.0);
        assert_eq!(r.method, Method::Asymptotic);
        assert!(mann_whitney_u(&[], &[1.0]).is_none());
        assert_eq!(hodges_lehmann(&[5.0, 6.0], &[1.0, 2.0]), Some(4.0));
    }
}
