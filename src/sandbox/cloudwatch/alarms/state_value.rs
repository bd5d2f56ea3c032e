//! An alarm's state value: `OK`, `ALARM` or `INSUFFICIENT_DATA`.

/// An alarm state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateValue {
    /// `OK`.
    Ok,
    /// `ALARM`.
    Alarm,
    /// `INSUFFICIENT_DATA`.
    InsufficientData,
}

impl StateValue {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            StateValue::Ok => "OK",
            StateValue::Alarm => "ALARM",
            StateValue::InsufficientData => "INSUFFICIENT_DATA",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<StateValue> {
        match s {
            "OK" => Some(StateValue::Ok),
            "ALARM" => Some(StateValue::Alarm),
            "INSUFFICIENT_DATA" => Some(StateValue::InsufficientData),
            _ => None,
        }
    }
}
