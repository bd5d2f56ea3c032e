//! Past runs: the transcripts saved under the state directory (`agent/*.jsonl`, one per run the
//! console made), read when the runs list opens; files that are not transcripts are skipped.

use std::path::Path;

use super::{AgentPane, Focus, Run};
use crate::mcp::agent::Transcript;

/// The saved runs in `dir`, oldest first (by file name, which starts with the time).
pub fn saved_runs(dir: &Path) -> Vec<Run> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| Transcript::read(&p).ok().map(|t| Run::from_transcript(t, Some(p))))
        .collect()
}

impl AgentPane {
    /// Opens the runs list, adding the saved runs not listed yet (this session's own runs are
    /// listed once: as they ran, not again from their file).
    pub(super) fn open_runs(&mut self) {
        if let Some(dir) = self.runs_dir.clone() {
            let known: Vec<_> = self.runs.iter().filter_map(|r| r.file.clone()).collect();
            let new: Vec<Run> = saved_runs(&dir)
                .into_iter()
                .filter(|r| r.file.as_ref().is_some_and(|f| !known.contains(f)))
                .collect();
            // Older runs from files go before this session's.
            if !self.runs.is_empty() {
                self.shown += new.len();
            }
            self.runs.splice(0..0, new);
        }
        self.list_cursor = self.shown.min(self.runs.len().saturating_sub(1));
        self.focus = Focus::Runs;
    }

    /// Shows the run under the list cursor.
    pub(super) fn show_listed(&mut self) {
        if self.list_cursor < self.runs.len() {
            self.shown = self.list_cursor;
            self.cursor = 0;
        }
        self.focus = Focus::Conversation;
    }
}
