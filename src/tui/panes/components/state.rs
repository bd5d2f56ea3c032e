//! What a component's row says, worked out from its description and metrics: the zero state
//! (AT ZERO, WAKING since t, SERVING), the copies bar, the reservation and how much of it is
//! used. Pure: the pane draws these, the tests read them.

use crate::aws::components::{Component, Reservation};
use crate::aws::observe::metrics::ComponentSummary;

/// Where a component stands against zero copies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZeroState {
    /// No copy asked for and none placed: a call is refused until it is woken.
    AtZero,
    /// Copies asked for, none placed yet; since when (epoch seconds).
    Waking {
        /// When the wake was asked (by this console), else when the component last changed.
        since: f64,
    },
    /// At least one copy serves.
    Serving,
    /// The component failed: neither serving nor on its way.
    Failed,
}

impl ZeroState {
    /// The state of `c`; `woken_at` is when this console woke it, if it did.
    pub fn of(c: &Component, woken_at: Option<f64>) -> ZeroState {
        if c.status == "Failed" {
            ZeroState::Failed
        } else if c.copies.current > 0 {
            ZeroState::Serving
        } else if c.copies.desired > 0 {
            ZeroState::Waking {
                since: woken_at.unwrap_or(c.modified),
            }
        } else {
            ZeroState::AtZero
        }
    }

    /// The badge: `AT ZERO`, `WAKING 1m12s` (elapsed at `now`), `SERVING`, `FAILED`.
    pub fn badge(self, now: f64) -> String {
        match self {
            ZeroState::AtZero => "AT ZERO".into(),
            ZeroState::Waking { since } => format!("WAKING {}", elapsed(now - since)),
            ZeroState::Serving => "SERVING".into(),
            ZeroState::Failed => "FAILED".into(),
        }
    }
}

/// `4s`, `1m12s`, `2h05m` from seconds (never negative).
pub fn elapsed(secs: f64) -> String {
    crate::tui::widgets::header::age(std::time::Duration::from_secs_f64(secs.max(0.0)))
}

/// The copies bar: `██░░ 1/2` (current of desired; `░░░░ 0/0` at zero).
pub fn copies_bar(c: &Component, width: usize) -> String {
    let share = match c.copies.desired {
        0 => 0.0,
        d => f64::from(c.copies.current) / f64::from(d),
    };
    format!(
        "{} {}/{}",
        crate::format::bar(share.min(1.0), width),
        c.copies.current,
        c.copies.desired
    )
}

/// What one copy reserves, in short: `4 cpu · 1 acc · 16 GiB` (`adapter` when it has none of
/// its own: it runs in its base component's copies).
pub fn reservation_text(c: &Component) -> String {
    let Some(r) = &c.reservation else {
        return if c.is_adapter() { "adapter".into() } else { "-".into() };
    };
    reservation_parts(r).join(" · ")
}

fn reservation_parts(r: &Reservation) -> Vec<String> {
    let number = |x: f32| {
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x}")
        }
    };
    let mut parts = Vec::new();
    if let Some(cpu) = r.cpu_cores {
        parts.push(format!("{} cpu", number(cpu)));
    }
    if let Some(profile) = &r.partition_profile {
        parts.push(crate::format::escape_line(profile).into_owned());
    } else if let Some(acc) = r.accelerators {
        parts.push(format!("{} acc", number(acc)));
    }
    if let Some(mb) = r.memory_min_mb {
        parts.push(memory_text(mb));
    }
    parts
}

/// `512 MiB`, `16 GiB`, `1.5 GiB`.
fn memory_text(mb: i32) -> String {
    if mb < 1024 {
        return format!("{mb} MiB");
    }
    let gib = f64::from(mb) / 1024.0;
    if gib.fract() == 0.0 {
        format!("{gib:.0} GiB")
    } else {
        format!("{gib:.1} GiB")
    }
}

/// The whole reservation for the detail: every figure with its name.
pub fn reservation_detail(r: &Reservation) -> String {
    let mut parts = Vec::new();
    if let Some(cpu) = r.cpu_cores {
        parts.push(format!("{cpu} CPU cores"));
    }
    if let Some(acc) = r.accelerators {
        parts.push(format!("{acc} accelerator{}", if acc == 1.0 { "" } else { "s" }));
    }
    if let Some(p) = &r.partition_profile {
        parts.push(format!("GPU partition {}", crate::format::escape_line(p)));
    }
    match (r.memory_min_mb, r.memory_max_mb) {
        (Some(min), Some(max)) => parts.push(format!("memory {}–{}", memory_text(min), memory_text(max))),
        (Some(min), None) => parts.push(format!("memory {}", memory_text(min))),
        _ => {}
    }
    if let Some(t) = &r.instance_type {
        parts.push(format!("on {t}"));
    }
    parts.join(" · ")
}

/// How much of its reservation the component uses, in %, from the last complete minute:
/// `cpu42 gpu71 mem64` (`-` before any figure).
pub fn utilization_text(s: Option<&ComponentSummary>) -> String {
    let Some(s) = s else { return "-".into() };
    let parts: Vec<String> = [
        ("cpu", s.cpu_utilization),
        ("gpu", s.gpu_utilization),
        ("mem", s.memory_utilization),
    ]
    .into_iter()
    .filter_map(|(name, v)| v.map(|v| format!("{name}{v:.0}")))
    .collect();
    if parts.is_empty() { "-".into() } else { parts.join(" ") }
}

/// Invocations per copy in the last complete minute (`-` without a figure).
pub fn per_copy_text(s: Option<&ComponentSummary>) -> String {
    match s.and_then(|s| s.invocations_per_copy) {
        Some(v) if v >= 10.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
        None => "-".into(),
    }
}

/// [`utilization_text`] in full for the detail: `CPU 38% · GPU 71% · memory 64%`.
pub fn utilization_detail(s: &ComponentSummary) -> String {
    let parts: Vec<String> = [
        ("CPU", s.cpu_utilization),
        ("GPU", s.gpu_utilization),
        ("memory", s.memory_utilization),
    ]
    .into_iter()
    .filter_map(|(name, v)| v.map(|v| format!("{name} {v:.0}%")))
    .collect();
    if parts.is_empty() { "-".into() } else { parts.join(" · ") }
}
