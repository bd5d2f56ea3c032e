//! Widgets shared by the panes: header, footer, toasts, overlays (help, describe, confirm, error
//! log, weight editor), the `:` command line.

pub mod command_line;
pub mod confirm;
pub mod describe;
pub mod footer;
pub mod header;
pub mod help;
pub mod schema_form;
pub mod toasts;
pub mod weight_editor;

use ratatui::layout::Rect;

/// A modal layer over the panes; it gets every key first.
#[derive(Debug)]
pub enum Overlay {
    /// Every key of the current context.
    Help {
        /// Scroll offset (clamped when drawn).
        scroll: u16,
    },
    /// The error log.
    ErrorLog {
        /// Scroll offset.
        scroll: u16,
    },
    /// The full description of an endpoint.
    Describe(describe::DescribeView),
    /// A yes/no confirmation that starts jobs.
    Confirm(confirm::Confirm),
    /// The weight editor of the Variants pane.
    WeightEditor(weight_editor::WeightEditor),
}

/// A rectangle of `pct_w` × `pct_h` percent centred in `area`, at least `min_w` × `min_h`.
pub fn centered(area: Rect, pct_w: u16, pct_h: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (area.width * pct_w / 100).max(min_w).min(area.width);
    let h = (area.height * pct_h / 100).max(min_h).min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
