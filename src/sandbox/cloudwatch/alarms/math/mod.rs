//! Metric-math alarms: PutMetricAlarm's `Metrics` (MetricDataQuery items, each a `MetricStat`
//! or an `Expression`, exactly one with `ReturnData` true), validated as CloudWatch validates
//! them, and evaluated one period at a time over the sandbox's metric store.

pub mod expression;

use std::collections::BTreeMap;

use crate::sandbox::cloudwatch::metrics::query::Stat;
use crate::sandbox::cloudwatch::metrics::{MetricStore, SeriesKey};
pub use expression::Expr;

/// The most queries a metric-math alarm may hold.
pub const MAX_QUERIES: usize = 10;

/// A `MetricStat`: one metric's statistic over a period.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricStatQuery {
    /// Namespace.
    pub namespace: String,
    /// MetricName.
    pub metric_name: String,
    /// Dimensions (name, value).
    pub dimensions: Vec<(String, String)>,
    /// Period in seconds: 10, 20, 30 or a multiple of 60.
    pub period: u32,
    /// Stat (`Sum`, `Average`, `p99`, ...).
    pub stat: String,
    /// Unit, when only data in that unit counts.
    pub unit: Option<String>,
}

/// What a query computes.
#[derive(Debug, Clone, PartialEq)]
pub enum QuerySource {
    /// A metric's statistic.
    Stat(MetricStatQuery),
    /// A metric math expression over the other queries' ids.
    Expression(String),
}

/// One MetricDataQuery of a metric-math alarm.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricQuery {
    /// Id (`^[a-z][a-zA-Z0-9_]*$`, unique in the alarm).
    pub id: String,
    /// The metric or the expression.
    pub source: QuerySource,
    /// Label (echoed).
    pub label: Option<String>,
    /// ReturnData as given (absent counts as true).
    pub return_data: Option<bool>,
    /// Period of an expression query (echoed).
    pub period: Option<u32>,
    /// AccountId (echoed).
    pub account_id: Option<String>,
}

impl MetricQuery {
    /// Whether this query is the alarm's value (ReturnData absent or true).
    pub fn returns(&self) -> bool {
        self.return_data.unwrap_or(true)
    }
}

/// Whether `period` is an alarm period: 10, 20, 30 or a multiple of 60.
pub fn valid_period(p: u32) -> bool {
    p == 10 || p == 20 || p == 30 || (p >= 60 && p.is_multiple_of(60))
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= 255
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks an alarm's `Metrics` (the error is an InvalidParameterValue message) and answers the period it is evaluated at (that of its
/// MetricStats, which must agree): ids valid and unique, exactly one ReturnData true, every
/// MetricStat with a valid period and statistic, every expression parsed, naming only ids of
/// the alarm and not itself through others.
pub fn validate(queries: &[MetricQuery]) -> Result<u32, String> {
    if queries.is_empty() || queries.len() > MAX_QUERIES {
        return Err(format!(
            "The collection Metrics must have a size between 1 and {MAX_QUERIES}."
        ));
    }
    let mut ids: Vec<&str> = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        if !valid_id(&q.id) {
            return Err(format!(
                "The value {} for parameter Metrics.member.{}.Id is not matching the expected pattern ^[a-z][a-zA-Z0-9_]*$.",
                q.id,
                i + 1
            ));
        }
        if ids.contains(&q.id.as_str()) {
            return Err(format!(
                "The values for parameter Id in Metrics are not unique ({}).",
                q.id
            ));
        }
        ids.push(&q.id);
    }
    if queries.iter().filter(|q| q.returns()).count() != 1 {
        return Err("Exactly one element of the Metrics list must have ReturnData set to true.".into());
    }
    let period = stat_period(queries)?;
    let parsed = parse_expressions(queries)?;
    for q in queries {
        check_acyclic(&q.id, &parsed, &mut Vec::new())?;
    }
    Ok(period)
}

/// The period the MetricStats share; refused when one is invalid, they differ or none exists.
fn stat_period(queries: &[MetricQuery]) -> Result<u32, String> {
    let mut period = None;
    for q in queries {
        let QuerySource::Stat(s) = &q.source else { continue };
        if s.namespace.is_empty() || s.metric_name.is_empty() {
            return Err(format!(
                "The MetricStat of {} must name a Namespace and a MetricName.",
                q.id
            ));
        }
        if !valid_period(s.period) {
            return Err(format!(
                "The parameter MetricStat.Period of {} must be 10, 20, 30 or a multiple of 60 (got {}).",
                q.id, s.period
            ));
        }
        if Stat::parse(&s.stat).is_none() {
            return Err(format!(
                "The value {} for parameter MetricStat.Stat of {} is not supported.",
                s.stat, q.id
            ));
        }
        match period {
            Some(p) if p != s.period => {
                return Err("All metrics in a metric math alarm must have the same Period.".into());
            }
            _ => period = Some(s.period),
        }
    }
    period.ok_or_else(|| "The Metrics list must contain at least one MetricStat.".into())
}

/// Each expression query's parsed expression, by id; refused when one does not parse or names
/// an id the alarm does not have.
fn parse_expressions(queries: &[MetricQuery]) -> Result<BTreeMap<&str, Expr>, String> {
    let mut parsed = BTreeMap::new();
    for q in queries {
        let QuerySource::Expression(text) = &q.source else {
            continue;
        };
        if text.is_empty() || text.chars().count() > 2048 {
            return Err(format!(
                "The Expression of {} must have a length between 1 and 2048.",
                q.id
            ));
        }
        let expr = Expr::parse(text).map_err(|e| format!("Invalid metrics expression {text:?} of {}: {e}.", q.id))?;
        if let Some(unknown) = expr.ids().into_iter().find(|id| !queries.iter().any(|q| q.id == *id)) {
            return Err(format!(
                "The expression of {} uses {unknown}, which is not the Id of a query in Metrics.",
                q.id
            ));
        }
        parsed.insert(q.id.as_str(), expr);
    }
    Ok(parsed)
}

/// Refuses an expression that reaches itself through the ids it names.
fn check_acyclic<'a>(id: &'a str, parsed: &'a BTreeMap<&str, Expr>, path: &mut Vec<&'a str>) -> Result<(), String> {
    if path.contains(&id) {
        return Err(format!("The expressions in Metrics form a cycle through {id}."));
    }
    let Some(expr) = parsed.get(id) else { return Ok(()) };
    path.push(id);
    for next in expr.ids() {
        check_acyclic(next, parsed, path)?;
    }
    path.pop();
    Ok(())
}

/// The value of the returned query in each period starting at `starts` (each `period` long);
/// `None` where it has none. `queries` must have passed [`validate`].
pub fn period_values(queries: &[MetricQuery], metrics: &MetricStore, starts: &[f64], period: u32) -> Vec<Option<f64>> {
    let (Some(first), Some(last)) = (
        starts.iter().copied().reduce(f64::min),
        starts.iter().copied().reduce(f64::max),
    ) else {
        return Vec::new();
    };
    let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    let mut expressions: BTreeMap<&str, Expr> = BTreeMap::new();
    for q in queries {
        match &q.source {
            QuerySource::Stat(s) => {
                let key = SeriesKey::from_owned(s.namespace.clone(), s.metric_name.clone(), s.dimensions.clone());
                let points = Stat::parse(&s.stat)
                    .map(|stat| metrics.query(&key, s.unit.as_deref(), first, last + f64::from(period), period, stat))
                    .unwrap_or_default();
                series.insert(&q.id, points.iter().map(|p| (p.timestamp, p.value)).collect());
            }
            QuerySource::Expression(text) => {
                if let Ok(e) = Expr::parse(text) {
                    expressions.insert(&q.id, e);
                }
            }
        }
    }
    let Some(returned) = queries.iter().find(|q| q.returns()) else {
        return vec![None; starts.len()];
    };
    starts
        .iter()
        .map(|at| value_at(&returned.id, *at, &series, &expressions, 0))
        .collect()
}

/// The value of query `id` in the period starting at `at`.
fn value_at(
    id: &str,
    at: f64,
    series: &BTreeMap<&str, Vec<(f64, f64)>>,
    expressions: &BTreeMap<&str, Expr>,
    depth: usize,
) -> Option<f64> {
    if let Some(points) = series.get(id) {
        return points.iter().find(|(t, _)| *t == at).map(|(_, v)| *v);
    }
    if depth > MAX_QUERIES {
        return None;
    }
    let expr = expressions.get(id)?;
    expr.eval(&|other| value_at(other, at, series, expressions, depth + 1))
}
