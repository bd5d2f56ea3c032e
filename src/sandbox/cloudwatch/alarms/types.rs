//! Alarm configurations, states and errors, with PutMetricAlarm's and PutCompositeAlarm's
//! validation (shared by the wire operations and in-process callers).

use super::math::{self, MetricQuery, QuerySource};
use super::rule::Rule;
use super::state_value::StateValue;
use crate::sandbox::cloudwatch::metrics::query::Stat;

/// A threshold comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `GreaterThanOrEqualToThreshold`.
    GreaterOrEqual,
    /// `GreaterThanThreshold`.
    Greater,
    /// `LessThanThreshold`.
    Less,
    /// `LessThanOrEqualToThreshold`.
    LessOrEqual,
}

impl Comparison {
    /// Parses a wire name (anomaly-detection operators are not emulated: `None`).
    pub fn parse(s: &str) -> Option<Comparison> {
        match s {
            "GreaterThanOrEqualToThreshold" => Some(Comparison::GreaterOrEqual),
            "GreaterThanThreshold" => Some(Comparison::Greater),
            "LessThanThreshold" => Some(Comparison::Less),
            "LessThanOrEqualToThreshold" => Some(Comparison::LessOrEqual),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Comparison::GreaterOrEqual => "GreaterThanOrEqualToThreshold",
            Comparison::Greater => "GreaterThanThreshold",
            Comparison::Less => "LessThanThreshold",
            Comparison::LessOrEqual => "LessThanOrEqualToThreshold",
        }
    }

    /// The words used in state reasons (`greater than or equal to`).
    pub fn phrase(self) -> &'static str {
        match self {
            Comparison::GreaterOrEqual => "greater than or equal to",
            Comparison::Greater => "greater than",
            Comparison::Less => "less than",
            Comparison::LessOrEqual => "less than or equal to",
        }
    }

    /// Whether `value` breaches `threshold`.
    pub fn breaches(self, value: f64, threshold: f64) -> bool {
        match self {
            Comparison::GreaterOrEqual => value >= threshold,
            Comparison::Greater => value > threshold,
            Comparison::Less => value < threshold,
            Comparison::LessOrEqual => value <= threshold,
        }
    }
}

/// How periods without data count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreatMissing {
    /// `missing` (the default): they do not count; all missing = INSUFFICIENT_DATA.
    Missing,
    /// `ignore`: they do not count; all missing keeps the current state.
    Ignore,
    /// `breaching`: they count as breaching.
    Breaching,
    /// `notBreaching`: they count as within the threshold.
    NotBreaching,
}

impl TreatMissing {
    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<TreatMissing> {
        match s {
            "missing" => Some(TreatMissing::Missing),
            "ignore" => Some(TreatMissing::Ignore),
            "breaching" => Some(TreatMissing::Breaching),
            "notBreaching" => Some(TreatMissing::NotBreaching),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TreatMissing::Missing => "missing",
            TreatMissing::Ignore => "ignore",
            TreatMissing::Breaching => "breaching",
            TreatMissing::NotBreaching => "notBreaching",
        }
    }
}

/// The state of an alarm.
#[derive(Debug, Clone, PartialEq)]
pub struct AlarmState {
    /// Alarm name.
    pub name: String,
    /// Current state.
    pub value: StateValue,
    /// Why (AWS-like text: `Threshold Crossed: ...`).
    pub reason: String,
    /// JSON details of the reason.
    pub reason_data: Option<String>,
    /// When the state (or its reason) was last set (epoch seconds).
    pub updated: f64,
}

/// Why an alarm operation was refused.
#[derive(Debug, Clone, PartialEq)]
pub struct AlarmError {
    /// CloudWatch's awsQuery error code (`InvalidParameterValue`, `ResourceNotFound`, ...).
    pub code: &'static str,
    /// The message.
    pub message: String,
}

impl AlarmError {
    /// `InvalidParameterValue`.
    pub fn invalid(message: String) -> Self {
        AlarmError {
            code: "InvalidParameterValue",
            message,
        }
    }

    /// `InvalidParameterCombination`.
    pub fn combination(message: String) -> Self {
        AlarmError {
            code: "InvalidParameterCombination",
            message,
        }
    }

    /// `MissingParameter`.
    pub fn missing(parameter: &str) -> Self {
        AlarmError {
            code: "MissingParameter",
            message: format!("The parameter {parameter} is required."),
        }
    }

    /// `ResourceNotFound`.
    pub fn not_found(message: String) -> Self {
        AlarmError {
            code: "ResourceNotFound",
            message,
        }
    }
}

/// A metric alarm's configuration (PutMetricAlarm's members the sandbox evaluates or echoes).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricAlarmSpec {
    /// AlarmName (1-255 characters).
    pub name: String,
    /// AlarmDescription.
    pub description: Option<String>,
    /// ActionsEnabled (default true).
    pub actions_enabled: bool,
    /// OKActions, AlarmActions, InsufficientDataActions (at most 5 each; echoed, never run).
    pub actions: [Vec<String>; 3],
    /// Namespace.
    pub namespace: String,
    /// MetricName.
    pub metric_name: String,
    /// Dimensions (name, value).
    pub dimensions: Vec<(String, String)>,
    /// Statistic (`Average`, ...), exclusive with `extended_statistic`.
    pub statistic: Option<String>,
    /// ExtendedStatistic (`p99`, ...), exclusive with `statistic`.
    pub extended_statistic: Option<String>,
    /// Period in seconds: 10, 20, 30 or a multiple of 60.
    pub period: u32,
    /// Unit, when the alarm only matches data in that unit.
    pub unit: Option<String>,
    /// EvaluationPeriods (>= 1).
    pub evaluation_periods: u32,
    /// DatapointsToAlarm (1..=EvaluationPeriods; default EvaluationPeriods).
    pub datapoints_to_alarm: Option<u32>,
    /// Threshold.
    pub threshold: f64,
    /// ComparisonOperator.
    pub comparison: Comparison,
    /// TreatMissingData.
    pub treat_missing: TreatMissing,
    /// EvaluateLowSampleCountPercentile (echoed).
    pub evaluate_low_sample_count_percentile: Option<String>,
    /// Metrics: a metric-math alarm's queries (then Namespace, MetricName, Dimensions,
    /// Statistic, ExtendedStatistic, Unit are empty and Period 0); empty for a metric alarm.
    pub metrics: Vec<MetricQuery>,
}

impl MetricAlarmSpec {
    /// An alarm on `namespace`/`metric_name` with defaults: Average over 60 s, 1 of 1 period,
    /// `GreaterThanThreshold` 0, missing data `missing`, actions enabled, none configured.
    pub fn new(name: &str, namespace: &str, metric_name: &str) -> Self {
        MetricAlarmSpec {
            name: name.to_string(),
            description: None,
            actions_enabled: true,
            actions: Default::default(),
            namespace: namespace.to_string(),
            metric_name: metric_name.to_string(),
            dimensions: Vec::new(),
            statistic: Some("Average".to_string()),
            extended_statistic: None,
            period: 60,
            unit: None,
            evaluation_periods: 1,
            datapoints_to_alarm: None,
            threshold: 0.0,
            comparison: Comparison::Greater,
            treat_missing: TreatMissing::Missing,
            evaluate_low_sample_count_percentile: None,
            metrics: Vec::new(),
        }
    }

    /// A metric-math alarm over `metrics` with the defaults of [`MetricAlarmSpec::new`].
    pub fn math(name: &str, metrics: Vec<MetricQuery>) -> Self {
        MetricAlarmSpec {
            namespace: String::new(),
            metric_name: String::new(),
            statistic: None,
            period: 0,
            metrics,
            ..MetricAlarmSpec::new(name, "", "")
        }
    }

    /// Whether this is a metric-math alarm (it has `Metrics`).
    pub fn is_math(&self) -> bool {
        !self.metrics.is_empty()
    }

    /// The period evaluated: Period, or for a metric-math alarm its MetricStats' period.
    pub(crate) fn evaluation_period(&self) -> u32 {
        self.metrics
            .iter()
            .find_map(|q| match &q.source {
                QuerySource::Stat(s) => Some(s.period),
                QuerySource::Expression(_) => None,
            })
            .unwrap_or(self.period)
    }

    /// The statistic evaluated (validated by [`MetricAlarmSpec::validate`]).
    pub(crate) fn stat(&self) -> Option<Stat> {
        match (&self.statistic, &self.extended_statistic) {
            (Some(s), None) => Stat::parse(s).filter(|s| !matches!(s, Stat::Percentile(_))),
            (None, Some(e)) => Stat::parse(e).filter(|s| matches!(s, Stat::Percentile(_))),
            _ => None,
        }
    }

    /// The statistic's wire name.
    pub(crate) fn stat_name(&self) -> &str {
        self.statistic
            .as_deref()
            .or(self.extended_statistic.as_deref())
            .unwrap_or("")
    }

    /// DatapointsToAlarm or its default.
    pub(crate) fn datapoints(&self) -> u32 {
        self.datapoints_to_alarm.unwrap_or(self.evaluation_periods)
    }

    /// PutMetricAlarm's checks.
    pub fn validate(&self) -> Result<(), AlarmError> {
        check_name("AlarmName", &self.name)?;
        if self.is_math() {
            self.check_math()?;
        } else {
            self.check_metric()?;
        }
        if self.evaluation_periods == 0 {
            return Err(AlarmError::invalid(
                "The parameter EvaluationPeriods must be greater than or equal to 1.".into(),
            ));
        }
        let p = self.evaluation_period();
        if u64::from(p) * u64::from(self.evaluation_periods) > 7 * 86_400 {
            return Err(AlarmError::invalid(
                "The evaluation period (Period * EvaluationPeriods) must not exceed 7 days.".into(),
            ));
        }
        if let Some(m) = self.datapoints_to_alarm
            && (m == 0 || m > self.evaluation_periods)
        {
            return Err(AlarmError::invalid(format!(
                "DatapointsToAlarm ({m}) must be between 1 and EvaluationPeriods ({}).",
                self.evaluation_periods
            )));
        }
        if !self.threshold.is_finite() {
            return Err(AlarmError::invalid(
                "The parameter Threshold must be a finite number.".into(),
            ));
        }
        check_actions(&self.actions)
    }

    /// A metric-math alarm's checks: `Metrics` valid and none of the single metric's members.
    fn check_math(&self) -> Result<(), AlarmError> {
        let single = !self.namespace.is_empty()
            || !self.metric_name.is_empty()
            || !self.dimensions.is_empty()
            || self.statistic.is_some()
            || self.extended_statistic.is_some()
            || self.unit.is_some()
            || self.period != 0;
        if single {
            return Err(AlarmError::combination(
                "When Metrics is specified, MetricName, Namespace, Dimensions, Period, Unit, Statistic and ExtendedStatistic must not be.".into(),
            ));
        }
        math::validate(&self.metrics).map(|_| ()).map_err(AlarmError::invalid)
    }

    /// A single-metric alarm's checks.
    fn check_metric(&self) -> Result<(), AlarmError> {
        for (what, s) in [("Namespace", &self.namespace), ("MetricName", &self.metric_name)] {
            if s.is_empty() || s.chars().count() > 255 {
                return Err(AlarmError::invalid(format!(
                    "The value for parameter {what} must have a length between 1 and 255."
                )));
            }
        }
        if self.dimensions.len() > 30 {
            return Err(AlarmError::invalid(
                "The collection Dimensions must not have a size greater than 30.".into(),
            ));
        }
        match (&self.statistic, &self.extended_statistic) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(AlarmError::combination(
                    "Exactly one of the parameters Statistic or ExtendedStatistic must be specified.".into(),
                ));
            }
            _ => {}
        }
        if self.stat().is_none() {
            return Err(AlarmError::invalid(format!(
                "The value {} for parameter {} is not supported.",
                self.stat_name(),
                if self.statistic.is_some() {
                    "Statistic"
                } else {
                    "ExtendedStatistic"
                }
            )));
        }
        let p = self.period;
        if !math::valid_period(p) {
            return Err(AlarmError::invalid(format!(
                "The parameter Period must be 10, 20, 30 or a multiple of 60 (got {p})."
            )));
        }
        Ok(())
    }
}

/// A composite alarm's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct CompositeAlarmSpec {
    /// AlarmName.
    pub name: String,
    /// AlarmDescription.
    pub description: Option<String>,
    /// ActionsEnabled (default true).
    pub actions_enabled: bool,
    /// OKActions, AlarmActions, InsufficientDataActions (echoed, never run).
    pub actions: [Vec<String>; 3],
    /// AlarmRule (1-10240 characters).
    pub rule: String,
}

impl CompositeAlarmSpec {
    /// PutCompositeAlarm's checks; the parsed rule.
    pub fn validate(&self) -> Result<Rule, AlarmError> {
        check_name("AlarmName", &self.name)?;
        if self.rule.is_empty() || self.rule.chars().count() > 10_240 {
            return Err(AlarmError::invalid(
                "The value for parameter AlarmRule must have a length between 1 and 10240.".into(),
            ));
        }
        check_actions(&self.actions)?;
        Rule::parse(&self.rule).map_err(|e| AlarmError::invalid(format!("The AlarmRule is not valid: {e}.")))
    }
}

fn check_name(what: &str, name: &str) -> Result<(), AlarmError> {
    if name.is_empty() || name.chars().count() > 255 {
        return Err(AlarmError::invalid(format!(
            "The value for parameter {what} must have a length between 1 and 255."
        )));
    }
    Ok(())
}

fn check_actions(actions: &[Vec<String>; 3]) -> Result<(), AlarmError> {
    for (what, list) in ["OKActions", "AlarmActions", "InsufficientDataActions"]
        .iter()
        .zip(actions)
    {
        if list.len() > 5 {
            return Err(AlarmError::invalid(format!(
                "The collection {what} must not have a size greater than 5."
            )));
        }
    }
    Ok(())
}
