//! Everything the CLI prints on standard output goes through here: [`outln!`] and [`out!`] (in
//! place of `println!`/`print!`, which panic when the reader has gone away), human tables
//! (kubectl-style: aligned columns, no borders) and JSON. A write into a closed pipe (`| head`,
//! `| grep -m1`) is [`Exit::output_closed`]: the command stops there and ends quietly; every
//! later write fails the same way, so a loop that prints learns it at its next line.
//!
//! Lines of human output that carry text from outside (MCP servers, models, endpoints, logs,
//! config files) go through [`say`] and [`say_err`], which write out its control characters, as
//! tables do in every cell, so no escape sequence of theirs reaches the terminal. (JSON output
//! escapes them already.)

use std::fmt;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};
use serde::Serialize;

use super::exit::{CmdResult, EXIT_AWS, EXIT_OK, Exit};

/// Set once a write to standard output has failed: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether standard output has been closed by its reader (or failed) during this run.
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Writes `args` to standard output (flushed when `flush`): [`Exit::output_closed`] when the
/// reader went away, exit 3 with the reason on any other failure.
pub fn write_out(args: fmt::Arguments<'_>, flush: bool) -> CmdResult {
    if closed() {
        return Err(Exit::output_closed());
    }
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|()| if flush { out.flush() } else { Ok(()) });
    written.map_err(failed)
}

/// Writes `bytes` as they are to standard output, flushed (a response stream's parts).
pub fn write_raw(bytes: &[u8]) -> CmdResult {
    if closed() {
        return Err(Exit::output_closed());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush()).map_err(failed)
}

/// The exit of a failed write to standard output; nothing more is written after it.
fn failed(e: std::io::Error) -> Exit {
    CLOSED.store(true, Ordering::Relaxed);
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Exit::output_closed()
    } else {
        Exit::new(EXIT_AWS, format!("cannot write to standard output: {e}"))
    }
}

/// Writes a line to standard error, ignoring a closed one (`eprintln!` panics then).
pub fn eprint_line(args: fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// `println!` that returns [`CmdResult`] instead of panicking on a closed pipe.
macro_rules! outln {
    () => {
        $crate::cli::output::write_out(format_args!("\n"), false)
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(format_args!("{}\n", format_args!($($arg)*)), false)
    };
}
pub(crate) use outln;

/// `print!` (flushed) that returns [`CmdResult`] instead of panicking on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(format_args!($($arg)*), true)
    };
}
pub(crate) use out;

/// Prints rows under headers as aligned columns.
pub fn print_table(headers: &[&str], rows: Vec<Vec<String>>) -> CmdResult {
    let mut t = Table::new();
    t.load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers.to_vec());
    for r in rows {
        t.add_row(r.iter().map(|cell| crate::format::escape_line(cell).into_owned()));
    }
    // comfy-table pads the first column with one leading space in this preset; trim it.
    for line in t.to_string().lines() {
        outln!("{}", line.strip_prefix(' ').unwrap_or(line).trim_end())?;
    }
    Ok(())
}

/// Prints a line (or lines) of human output on stdout through [`outln!`], control characters
/// written out (newlines and tabs kept).
pub fn say(text: impl AsRef<str>) -> CmdResult {
    outln!("{}", crate::format::escape_text(text.as_ref()))
}

/// [`say`] on stderr (a closed standard error is ignored, as in [`eprint_line`]).
pub fn say_err(text: impl AsRef<str>) {
    eprint_line(format_args!("{}", crate::format::escape_text(text.as_ref())));
}

/// Prints a value as pretty JSON.
pub fn print_json<T: Serialize>(value: &T) -> CmdResult {
    match serde_json::to_string_pretty(value) {
        Ok(s) => outln!("{s}"),
        Err(e) => {
            eprint_line(format_args!("sagedeck: cannot encode JSON output: {e}"));
            Ok(())
        }
    }
}

/// Asks `question [y/N]` on the terminal and reads the answer from stdin.
fn confirm(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes" | "YES")
}

/// Whether to go on with a change: at once with `--yes` (`yes`), else when `question` is
/// answered yes on the terminal. Err: exit 2 without a terminal to ask on (`--yes` is needed to
/// `verb`), exit 0 "not applied" when the answer is no.
pub fn approve(yes: bool, question: &str, verb: &str) -> CmdResult {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(Exit::usage(format!(
            "not applied: pass --yes to {verb} without a terminal to confirm on"
        )));
    }
    if !confirm(question) {
        return Err(Exit::new(EXIT_OK, "not applied"));
    }
    Ok(())
}

/// `12.3` for a float with one decimal, `-` for none.
pub fn opt_f(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "-".into())
}

/// A weight without a trailing `.0` when whole.
pub use crate::aws::change::weights::weight_text as weight;

/// A share as a percentage.
pub fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}
