//! Wall-clock time in epoch seconds, the unit every AWS timestamp on the wire uses.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, with sub-second precision.
pub fn now_epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Formats epoch seconds as ISO 8601 with milliseconds (`2026-12-02T18:00:00.000Z`), as S3 does.
pub fn iso8601(epoch: f64) -> String {
    let millis = (epoch * 1000.0).round() as i64;
    let whole = aws_smithy_types::DateTime::from_secs(millis.div_euclid(1000));
    let text = whole
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    format!("{}.{:03}Z", text.trim_end_matches('Z'), millis.rem_euclid(1000))
}

/// Formats epoch seconds as an HTTP date (`Wed, 02 Dec 2026 18:00:00 GMT`).
pub fn http_date(epoch: f64) -> String {
    let dt = aws_smithy_types::DateTime::from_secs_f64(epoch);
    dt.fmt(aws_smithy_types::date_time::Format::HttpDate)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso8601_has_exactly_three_fraction_digits() {
        assert_eq!(super::iso8601(1_700_000_000.587_4), "2023-11-14T22:13:20.587Z");
        assert_eq!(super::iso8601(1_700_000_000.0), "2023-11-14T22:13:20.000Z");
    }
}
