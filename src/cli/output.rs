//! Human tables (kubectl-style: aligned columns, no borders), JSON output, and the lines of
//! human output that carry text from outside (MCP servers, models, endpoints, logs, config
//! files): [`say`] and [`say_err`] write out its control characters, as tables do in every cell,
//! so no escape sequence of theirs reaches the terminal. (JSON output escapes them already.)

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};
use serde::Serialize;

/// Prints rows under headers as aligned columns.
pub fn print_table(headers: &[&str], rows: Vec<Vec<String>>) {
    let mut t = Table::new();
    t.load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers.to_vec());
    for r in rows {
        t.add_row(r.iter().map(|cell| crate::format::escape_line(cell).into_owned()));
    }
    // comfy-table pads the first column with one leading space in this preset; trim it.
    for line in t.to_string().lines() {
        println!("{}", line.strip_prefix(' ').unwrap_or(line).trim_end());
    }
}

/// Prints a line (or lines) of human output on stdout, control characters written out (newlines
/// and tabs kept).
pub fn say(text: impl AsRef<str>) {
    println!("{}", crate::format::escape_text(text.as_ref()));
}

/// [`say`] on stderr.
pub fn say_err(text: impl AsRef<str>) {
    eprintln!("{}", crate::format::escape_text(text.as_ref()));
}

/// Prints a value as pretty JSON.
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("sagedeck: cannot encode JSON output: {e}"),
    }
}

/// `12.3` for a float with one decimal, `-` for none.
pub fn opt_f(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "-".into())
}

/// A weight without a trailing `.0` when whole.
pub use crate::aws::weights::weight_text as weight;

/// A share as a percentage.
pub fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}
