//! What the alarm operations share: the state values' enum text and numeric members.

use crate::sandbox::cloudwatch::params::{invalid_value, validation_error};
use crate::sandbox::http::wire::ApiError;

/// The state values, as a validation message lists them.
pub(super) const STATES: &str = "[OK, ALARM, INSUFFICIENT_DATA]";

/// A ValidationError for a value outside an enum.
pub(super) fn enum_error(value: &str, member: &str, allowed: &str) -> ApiError {
    validation_error(format!(
        "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: Member must satisfy enum value set: {allowed}"
    ))
}

/// A non-negative integral number member.
pub(super) fn whole(value: Option<f64>, member: &str) -> Result<Option<u32>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) => Ok(Some(v as u32)),
        Some(v) => Err(invalid_value(format!(
            "The value {v} for parameter {member} must be a whole number >= 0."
        ))),
    }
}
