//! The components table: endpoint, component, status, model (or base), copies desired/current,
//! placement per instance type, reservation per copy.

use crate::aws::components::{Component, Reservation};
use crate::cli::exit::CmdResult;
use crate::cli::output::print_table;

/// `8 GiB` for whole gibibytes, else `1536 MiB`.
fn memory_text(mb: i32) -> String {
    if mb >= 1024 && mb % 1024 == 0 {
        format!("{} GiB", mb / 1024)
    } else {
        format!("{mb} MiB")
    }
}

/// `2 CPU, 1 accel, 8-16 GiB` or `partition 1g.10gb, 8 GiB`.
pub fn reservation_text(r: &Reservation) -> String {
    let number = |n: f32| {
        if n.fract() == 0.0 {
            format!("{n:.0}")
        } else {
            format!("{n}")
        }
    };
    let mut parts = Vec::new();
    if let Some(c) = r.cpu_cores {
        parts.push(format!("{} CPU", number(c)));
    }
    if let Some(p) = &r.partition_profile {
        parts.push(format!("partition {p}"));
    } else if let Some(a) = r.accelerators {
        parts.push(format!("{} accel", number(a)));
    }
    match (r.memory_min_mb, r.memory_max_mb) {
        (Some(min), Some(max)) if max != min => parts.push(format!("{}-{}", memory_text(min), memory_text(max))),
        (Some(min), _) => parts.push(memory_text(min)),
        (None, Some(max)) => parts.push(format!("≤{}", memory_text(max))),
        (None, None) => {}
    }
    if parts.is_empty() { "-".into() } else { parts.join(", ") }
}

/// `ml.g5.2xlarge×2 ml.g5.xlarge×1`, `-` when no copy is placed.
pub fn placement_text(c: &Component) -> String {
    if c.placement.is_empty() {
        return "-".into();
    }
    c.placement
        .iter()
        .map(|p| format!("{}×{}", p.instance_type, p.copies))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The status, with AT ZERO for a component serving no copy because none is wanted.
fn status_text(c: &Component) -> String {
    if c.status == "InService" && c.copies.desired == 0 && c.copies.current == 0 && !c.is_adapter() {
        "InService (AT ZERO)".into()
    } else {
        c.status.clone()
    }
}

/// One table row of a component.
pub fn row(c: &Component) -> Vec<String> {
    vec![
        c.endpoint.clone(),
        c.name.clone(),
        status_text(c),
        c.model_text(),
        format!("{}/{}", c.copies.desired, c.copies.current),
        placement_text(c),
        c.reservation
            .as_ref()
            .map(reservation_text)
            .unwrap_or_else(|| "-".into()),
    ]
}

/// The components table's columns.
pub const HEADERS: [&str; 7] = [
    "ENDPOINT",
    "COMPONENT",
    "STATUS",
    "MODEL/BASE",
    "COPIES D/C",
    "PLACEMENT",
    "RESERVATION",
];

/// Prints the components table.
pub fn print_components(components: &[Component]) -> CmdResult {
    print_table(&HEADERS, components.iter().map(row).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_read_in_one_cell() {
        let r = Reservation {
            cpu_cores: Some(2.0),
            accelerators: Some(1.0),
            memory_min_mb: Some(8192),
            memory_max_mb: Some(16384),
            ..Default::default()
        };
        assert_eq!(reservation_text(&r), "2 CPU, 1 accel, 8 GiB-16 GiB");
        let p = Reservation {
            partition_profile: Some("1g.10gb".into()),
            accelerators: Some(1.0),
            memory_min_mb: Some(1536),
            ..Default::default()
        };
        assert_eq!(reservation_text(&p), "partition 1g.10gb, 1536 MiB");
        assert_eq!(reservation_text(&Reservation::default()), "-");
    }
}
