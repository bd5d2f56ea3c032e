//! Drives the real `sagedeck` binary in a tmux session: start it, send keys, poll the screen
//! with a deadline. Shared by every end-to-end console test.

use std::process::Command;
use std::time::{Duration, Instant};

/// A console running in its own tmux session (killed on drop), with a private `HOME` (its
/// state and configuration under it, whatever XDG directories the tmux server was started with).
pub struct Tmux {
    session: String,
    _home: tempfile::TempDir,
}

impl Tmux {
    pub fn start(args: &str) -> Tmux {
        Tmux::start_then("e2e", args, "")
    }

    /// Starts the console in session `sagedeck-NAME-PID`; the shell then prints its exit status
    /// and runs `then`.
    pub fn start_then(name: &str, args: &str, then: &str) -> Tmux {
        Tmux::start_sized(name, args, then, 160, 45)
    }

    /// As [`Tmux::start_then`], on a terminal of `width` x `height` cells.
    pub fn start_sized(name: &str, args: &str, then: &str, width: u16, height: u16) -> Tmux {
        let session = format!("sagedeck-{name}-{}", std::process::id());
        let home = tempfile::tempdir().unwrap();
        let bin = env!("CARGO_BIN_EXE_sagedeck");
        let cmd = format!(
            "env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME={} TERM=xterm-256color {bin} {args}; echo sagedeck-exit:$?; {then}",
            home.path().display()
        );
        // Tests start consoles in parallel, and when no tmux server runs yet, concurrent
        // `new-session`s race to start one and the losers fail: retry until a deadline.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let out = Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-s",
                    &session,
                    "-x",
                    &width.to_string(),
                    "-y",
                    &height.to_string(),
                    &cmd,
                ])
                .output()
                .expect("tmux is installed (.ci/run installs it)");
            if out.status.success() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "tmux could not start the console: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("tmux")
            .args(["set-option", "-t", &session, "remain-on-exit", "on"])
            .status();
        Tmux { session, _home: home }
    }

    /// The console's private `HOME`.
    pub fn home(&self) -> &std::path::Path {
        self._home.path()
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.session])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn display(&self, format: &str) -> String {
        let out = Command::new("tmux")
            .args(["display-message", "-p", "-t", &self.session, format])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let ok = Command::new("tmux")
                .args(["send-keys", "-t", &self.session, k])
                .status()
                .unwrap();
            assert!(ok.success());
        }
    }

    /// The console's process id (the child of the pane's shell).
    pub fn console_pid(&self) -> String {
        let shell = self.display("#{pane_pid}");
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        let pid = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        assert!(!pid.is_empty(), "no console process under the pane's shell {shell}");
        pid
    }

    /// Filters the Endpoints tab on `filter`, opens the first row's Variants tab and waits until
    /// it shows `endpoint` described: its title and its baseline and canary rows (the Endpoints
    /// table and the header name variants too, so "Stable" on screen proves nothing).
    pub fn open_variants(&self, filter: &str, endpoint: &str) -> String {
        self.keys(&["/", filter, "Enter", "Enter"]);
        let title = format!("Variants of {endpoint}");
        self.wait_for("the Variants pane", Duration::from_secs(20), |s| {
            s.contains(&title) && s.contains("BASELINE") && s.contains("CANARY")
        })
    }

    /// Polls the screen until `pred` holds, or fails with the last screen and the console's
    /// message log (the toasts that may have said why, gone from the screen by then).
    pub fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        match self.poll(timeout, pred) {
            Ok(s) => s,
            Err(s) => {
                self.keys(&["e"]);
                let log = self.poll(Duration::from_secs(2), |m| m.contains("Messages, newest first"));
                let log = log.unwrap_or_else(|m| m);
                panic!("timed out waiting for {what}; screen:\n{s}\nmessages (after `e`):\n{log}");
            }
        }
    }

    /// Polls the screen until `pred` holds (Ok, that screen) or `timeout` passes (Err, the last).
    pub fn poll(&self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return Ok(s);
            }
            if start.elapsed() > timeout {
                return Err(s);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .status();
    }
}
