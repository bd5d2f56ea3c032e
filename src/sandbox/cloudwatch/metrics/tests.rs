//! Unit tests of the metric store (`cargo test --lib sandbox::cloudwatch::metrics`).

use super::query::*;
use super::*;

const T0: f64 = 1_700_000_040.0; // a multiple of 60

fn key() -> SeriesKey {
    SeriesKey::new(
        "AWS/SageMaker",
        "ModelLatency",
        &[("VariantName", "v1"), ("EndpointName", "ep")],
    )
}

fn one(store: &MetricStore, start: f64, end: f64, period: u32, stat: Stat) -> Vec<(f64, f64)> {
    store
        .query(&key(), None, start, end, period, stat)
        .into_iter()
        .map(|d| (d.timestamp, d.value))
        .collect()
}

#[test]
fn key_sorts_dimensions() {
    let k = key();
    assert_eq!(k.dimensions[0].0, "EndpointName");
    assert_eq!(k.dimensions[1].0, "VariantName");
    assert_eq!(
        k,
        SeriesKey::new(
            "AWS/SageMaker",
            "ModelLatency",
            &[("EndpointName", "ep"), ("VariantName", "v1")]
        )
    );
}

#[test]
fn stat_parsing() {
    assert_eq!(Stat::parse("Sum"), Some(Stat::Sum));
    assert_eq!(Stat::parse("p99"), Some(Stat::Percentile(99.0)));
    assert_eq!(Stat::parse("p99.99"), Some(Stat::Percentile(99.99)));
    assert_eq!(Stat::parse("p100"), Some(Stat::Percentile(100.0)));
    for bad in ["p", "p101", "p99.999", "p9.", "px", "TM99", "sum", "p-1", "p.5"] {
        assert_eq!(Stat::parse(bad), None, "{bad}");
    }
}

#[test]
fn exact_statistics_and_percentiles_of_a_known_sample() {
    let store = MetricStore::new();
    let h = store.series(&key(), "Microseconds");
    // 1..=1000 spread over the first 50 s of one minute: 5 slots of 200 samples each, so every
    // slot keeps only a 64-sample reservoir.
    {
        let mut s = h.lock();
        for i in 1..=1000 {
            s.record(T0 + f64::from((i - 1) % 50), f64::from(i));
        }
    }
    let q = |stat| one(&store, T0, T0 + 60.0, 60, stat);
    assert_eq!(q(Stat::SampleCount), vec![(T0, 1000.0)]);
    assert_eq!(q(Stat::Sum), vec![(T0, 500_500.0)]);
    assert_eq!(q(Stat::Average), vec![(T0, 500.5)]);
    assert_eq!(q(Stat::Minimum), vec![(T0, 1.0)]);
    assert_eq!(q(Stat::Maximum), vec![(T0, 1000.0)]);
    assert_eq!(q(Stat::Percentile(100.0)), vec![(T0, 1000.0)]);
    // Sampled: approximately right.
    let p50 = q(Stat::Percentile(50.0))[0].1;
    assert!((380.0..=620.0).contains(&p50), "p50 {p50}");
    let p99 = q(Stat::Percentile(99.0))[0].1;
    assert!(p99 >= 900.0, "p99 {p99}");
}

#[test]
fn percentiles_are_exact_when_slots_keep_all_samples() {
    let store = MetricStore::new();
    let h = store.series(&key(), "Microseconds");
    // 1..=1000 across 20 slots of 50 samples (< 64): nothing is dropped, and the percentile is
    // the nearest rank over the merged samples of all slots of the period.
    {
        let mut s = h.lock();
        for i in 1..=1000 {
            s.record(T0 + f64::from(i % 20) * 10.0, f64::from(i));
        }
    }
    let q = |stat| one(&store, T0, T0 + 200.0, 200 * 60, stat);
    let t = (T0 / 12000.0).floor() * 12000.0;
    assert_eq!(q(Stat::Percentile(50.0)), vec![(t, 500.0)]);
    assert_eq!(q(Stat::Percentile(99.0)), vec![(t, 990.0)]);
    assert_eq!(q(Stat::Percentile(90.0)), vec![(t, 900.0)]);
    assert_eq!(q(Stat::Percentile(0.0)), vec![(t, 1.0)]);
    assert_eq!(q(Stat::Percentile(99.9)), vec![(t, 999.0)]);
}

#[test]
fn weighted_merge_across_slots() {
    // Slot A: 1000 observations of 10 (reservoir holds 64 of them, weight 1000/64 each);
    // slot B: 10 observations of 1000. Merged, 10 is 99% of the weight: p50 and p99 are 10,
    // p99.5 is 1000. An average of per-slot p50s would give 505.
    let store = MetricStore::new();
    let h = store.series(&key(), "Microseconds");
    {
        let mut s = h.lock();
        for _ in 0..1000 {
            s.record(T0 + 1.0, 10.0);
        }
        s.record_values(T0 + 11.0, &[1000.0], &[10.0]);
    }
    let q = |stat| one(&store, T0, T0 + 60.0, 60, stat);
    assert_eq!(q(Stat::Percentile(50.0)), vec![(T0, 10.0)]);
    assert_eq!(q(Stat::Percentile(99.0)), vec![(T0, 10.0)]);
    assert_eq!(q(Stat::Percentile(99.5)), vec![(T0, 1000.0)]);
    assert_eq!(q(Stat::SampleCount), vec![(T0, 1010.0)]);
    assert_eq!(q(Stat::Sum), vec![(T0, 20_000.0)]);
}

#[test]
fn values_counts_and_statistic_sets() {
    let store = MetricStore::new();
    let h = store.series(&key(), "None");
    {
        let mut s = h.lock();
        s.record_values(T0, &[1.0, 2.0, 3.0], &[1.0, 2.0]); // missing count = 1
        s.record_values(T0, &[5.0, 6.0], &[0.0, -1.0]); // skipped
        s.record_stats(T0 + 30.0, 4.0, 40.0, 5.0, 20.0);
        s.record_values(T0, &[1e9], &[1e12]); // a huge count is sampled without looping
    }
    let q = |stat| one(&store, T0, T0 + 60.0, 60, stat);
    assert_eq!(q(Stat::SampleCount), vec![(T0, 1e12 + 8.0)]);
    assert_eq!(q(Stat::Minimum), vec![(T0, 1.0)]);
    assert_eq!(q(Stat::Maximum), vec![(T0, 1e9)]);
    assert_eq!(q(Stat::Percentile(50.0)), vec![(T0, 1e9)]);
    // A non-degenerate statistic set alone gives no percentile.
    let other = SeriesKey::new("X", "Y", &[]);
    store
        .series(&other, "None")
        .lock()
        .record_stats(T0, 4.0, 40.0, 5.0, 20.0);
    assert!(
        store
            .query(&other, None, T0, T0 + 60.0, 60, Stat::Percentile(50.0))
            .is_empty()
    );
    assert_eq!(
        store.query(&other, None, T0, T0 + 60.0, 60, Stat::Average)[0].value,
        10.0
    );
}

#[test]
fn period_alignment_and_bounds() {
    let store = MetricStore::new();
    for m in 0..10 {
        store.record(&key(), "None", T0 + f64::from(m) * 60.0 + 5.0, f64::from(m));
    }
    // Start inclusive, end exclusive, only periods with data.
    let got = one(&store, T0 + 60.0, T0 + 180.0, 60, Stat::Sum);
    assert_eq!(got, vec![(T0 + 60.0, 1.0), (T0 + 120.0, 2.0)]);
    // An unaligned start is rounded down to its period boundary.
    let got = one(&store, T0 + 90.0, T0 + 150.0, 60, Stat::Sum);
    assert_eq!(got, vec![(T0 + 60.0, 1.0), (T0 + 120.0, 2.0)]);
    // 5-minute periods, aligned to multiples of 300 s since the epoch.
    let base = (T0 / 300.0).floor() * 300.0;
    let got = one(&store, T0, T0 + 600.0, 300, Stat::SampleCount);
    let total: f64 = got.iter().map(|d| d.1).sum();
    assert_eq!(total, 10.0);
    assert!(got.iter().all(|d| (d.0 - base) % 300.0 == 0.0));
    // Sub-10 s periods answer per 10-second slot.
    let got = one(&store, T0, T0 + 60.0, 1, Stat::Sum);
    assert_eq!(got, vec![(T0, 0.0)]);
    // Empty and inverted ranges, unknown series, wrong unit.
    assert!(one(&store, T0 + 60.0, T0 + 60.0, 60, Stat::Sum).is_empty());
    assert!(one(&store, T0 + 60.0, T0, 60, Stat::Sum).is_empty());
    assert!(
        store
            .query(&SeriesKey::new("a", "b", &[]), None, T0, T0 + 600.0, 60, Stat::Sum)
            .is_empty()
    );
    assert!(
        store
            .query(&key(), Some("Seconds"), T0, T0 + 600.0, 60, Stat::Sum)
            .is_empty()
    );
    assert_eq!(
        store.query(&key(), Some("None"), T0, T0 + 600.0, 600, Stat::Sum).len(),
        2
    );
}

#[test]
fn out_of_order_writes_land_in_their_slots() {
    let store = MetricStore::new();
    let h = store.series(&key(), "None");
    {
        let mut s = h.lock();
        s.record(T0 + 100.0, 1.0);
        s.record(T0 + 5.0, 2.0); // older than the open slot
        s.record(T0 + 100.0, 3.0);
        s.record(T0 + 200.0, 4.0); // closes the open slot
        s.record(T0 + 105.0, 5.0); // same slot as the first, now closed
        assert_eq!(s.slot_count(), 3);
    }
    let got = one(&store, T0, T0 + 300.0, 10, Stat::Sum);
    assert_eq!(got, vec![(T0, 2.0), (T0 + 100.0, 9.0), (T0 + 200.0, 4.0)]);
}

#[test]
fn prune_drops_slots_older_than_25_hours_but_keeps_series() {
    let store = MetricStore::new();
    let now = T0 + 30.0 * 3600.0;
    for h in 0..30 {
        store.record(&key(), "None", T0 + f64::from(h) * 3600.0, 1.0);
    }
    store.prune(now);
    let got = one(&store, T0, now + 1.0, 3600, Stat::SampleCount);
    assert_eq!(got.len(), 25, "{got:?}");
    assert!(got[0].0 >= now - RETENTION_SECONDS - 3600.0);
    store.prune(now + 100.0 * 3600.0);
    assert!(one(&store, T0, now + 1e6, 3600, Stat::SampleCount).is_empty());
    assert_eq!(store.series_count(), 1);
    // Still listed (it had data), but not as recently active.
    let (keys, more) = store.list(&ListFilter::default(), None, 10);
    assert_eq!((keys.len(), more), (1, false));
    let recent = ListFilter {
        active_since: Some(now + 99.0 * 3600.0),
        ..Default::default()
    };
    assert!(store.list(&recent, None, 10).0.is_empty());
}

#[test]
fn listing_filters_and_pages() {
    let store = MetricStore::new();
    for ep in ["a", "b", "c"] {
        for name in ["Invocations", "ModelLatency"] {
            store.record(
                &SeriesKey::new("AWS/SageMaker", name, &[("EndpointName", ep), ("VariantName", "v")]),
                "None",
                T0,
                1.0,
            );
        }
    }
    store.record(&SeriesKey::new("Custom", "Invocations", &[]), "None", T0, 1.0);
    store.series(&SeriesKey::new("AWS/SageMaker", "NoData", &[]), "None");
    let all = ListFilter::default();
    assert_eq!(store.list(&all, None, 100).0.len(), 7);
    let by_ns = ListFilter {
        namespace: Some("AWS/SageMaker".into()),
        ..Default::default()
    };
    assert_eq!(store.list(&by_ns, None, 100).0.len(), 6);
    let by_name = ListFilter {
        metric_name: Some("Invocations".into()),
        ..Default::default()
    };
    assert_eq!(store.list(&by_name, None, 100).0.len(), 4);
    let by_dim = ListFilter {
        dimensions: vec![("EndpointName".into(), Some("b".into()))],
        ..Default::default()
    };
    assert_eq!(store.list(&by_dim, None, 100).0.len(), 2);
    let any_val = ListFilter {
        dimensions: vec![("VariantName".into(), None)],
        ..Default::default()
    };
    assert_eq!(store.list(&any_val, None, 100).0.len(), 6);
    // Pages of 4: 4 + 3.
    let (p1, more) = store.list(&all, None, 4);
    assert!(more);
    let (p2, more) = store.list(&all, p1.last(), 4);
    assert!(!more);
    assert_eq!(p1.len() + p2.len(), 7);
    assert!(p1.last() < p2.first());
}

#[test]
fn hot_path_does_not_grow_memory_within_a_slot() {
    let store = MetricStore::new();
    let h = store.series(&key(), "None");
    let mut s = h.lock();
    for i in 0..100_000 {
        s.record(T0 + 1.0, f64::from(i));
    }
    assert_eq!(s.slot_count(), 1);
    let cap = s.open.as_ref().map(|(_, slot)| slot.samples.capacity());
    assert_eq!(cap, Some(RESERVOIR));
}

#[test]
fn window_statistics() {
    let store = MetricStore::new();
    for s in 0..120 {
        store.record(&key(), "None", T0 + f64::from(s), 1.0);
    }
    // The last minute: slots whose midpoint lies in [T0 + 60, T0 + 120): 6 slots of 10.
    assert_eq!(store.window_stat(&key(), T0 + 60.0, T0 + 120.0, "Sum"), Some(60.0));
    assert_eq!(
        store.window_stat(&key(), T0 + 63.0, T0 + 123.0, "SampleCount"),
        Some(60.0)
    );
    assert_eq!(store.window_stat(&key(), T0 + 60.0, T0 + 120.0, "Average"), Some(1.0));
    assert_eq!(store.window_stat(&key(), T0 + 60.0, T0 + 120.0, "p99"), Some(1.0));
    assert_eq!(store.window_stat(&key(), T0 + 600.0, T0 + 660.0, "Sum"), None);
    assert_eq!(store.window_stat(&key(), T0, T0 + 60.0, "TM99"), None);
    assert_eq!(
        store.window_stat(&SeriesKey::new("a", "b", &[]), T0, T0 + 60.0, "Sum"),
        None
    );
}

#[test]
fn absurd_times_do_not_panic() {
    let store = MetricStore::new();
    for ts in [f64::MAX, f64::MIN, -1e300, 1e300, 0.0] {
        store.record(&key(), "None", ts, 1.0);
    }
    assert!(!one(&store, f64::MIN, f64::MAX, 60, Stat::Sum).is_empty());
    assert!(one(&store, -1e300, 1e300, u32::MAX, Stat::Percentile(50.0)).len() <= 3);
    let _ = store.window_stat(&key(), f64::MIN, f64::MAX, "Sum");
    store.prune(f64::MAX);
    store.prune(f64::MIN);
}
