//! Installing external test peers (Python venvs, npm packages) under the target directory: built
//! once in a private directory and renamed into place, so concurrent test processes never see a
//! half-built one; a setup that cannot finish fails the test, never skips it.

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The cargo target directory (where peers are installed).
pub fn target_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => manifest.join(dir),
        None => manifest.join("target"),
    }
}

/// A process's status and both outputs, for failure messages.
pub fn show(out: &std::process::Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs one setup step of `peer`, failing the test with its output when it does not succeed.
pub fn run_step(peer: &str, what: &str, cmd: &mut std::process::Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{peer} setup: cannot run {what}: {e}"));
    assert!(out.status.success(), "{peer} setup: {what} failed\n{}", show(&out));
}

/// Removes a half-built directory when setup panics.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmp_beside(dir: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("peer");
    dir.with_file_name(format!("{name}.tmp-{}-{nanos}", std::process::id()))
}

/// Builds `dir` for `peer` with `build(tmp)`, checks it with `ready`, and renames it into place
/// (another process that finished first wins; its copy is used).
pub fn build_atomically(peer: &str, dir: &Path, build: impl FnOnce(&Path), ready: impl Fn(&Path) -> bool) {
    let started = Instant::now();
    let tmp = tmp_beside(dir);
    let _ = std::fs::remove_dir_all(&tmp);
    let _cleanup = RemoveOnDrop(tmp.clone());
    build(&tmp);
    assert!(ready(&tmp), "{peer} setup: {} built but not usable", tmp.display());
    if ready(dir) {
        return; // another test process finished first
    }
    if dir.exists() {
        let _ = std::fs::remove_dir_all(dir); // stale: other versions, or half-built by hand
    }
    if let Err(e) = std::fs::rename(&tmp, dir) {
        assert!(
            ready(dir),
            "{peer} setup: cannot move {} into place: {e}",
            dir.display()
        );
    }
    eprintln!("{peer} installed at {} in {:?}", dir.display(), started.elapsed());
}

/// Whether the venv at `dir` imports `pins` at their versions (`probe` prints them, in order).
fn venv_has(dir: &Path, pins: &[(&str, &str)], probe: &str) -> bool {
    let want: Vec<&str> = pins.iter().map(|(_, v)| *v).collect();
    std::process::Command::new(dir.join("bin/python"))
        .args(["-c", probe])
        .env("PYTHONNOUSERSITE", "1")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == want.join(" "))
}

/// A Python venv `<target>/NAME` with `pins` installed from PyPI, reused while `probe` (a
/// script printing the installed versions, space-separated, in the order of `pins`) shows them;
/// built in a private directory and renamed into place. Fails the test when it cannot be built.
pub fn pinned_venv(name: &str, pins: &[(&str, &str)], probe: &str) -> PathBuf {
    let dir = target_dir().join(name);
    if venv_has(&dir, pins, probe) {
        return dir;
    }
    std::fs::create_dir_all(target_dir()).expect("target dir");
    let build = |tmp: &Path| {
        run_step(
            name,
            "python3 -m venv",
            std::process::Command::new("python3").args(["-m", "venv"]).arg(tmp),
        );
        let specs: Vec<String> = pins.iter().map(|(p, v)| format!("{p}=={v}")).collect();
        run_step(
            name,
            "pip install",
            std::process::Command::new(tmp.join("bin/python"))
                .args(["-m", "pip", "install", "--disable-pip-version-check", "--no-input"])
                .args(&specs)
                .env("PYTHONNOUSERSITE", "1"),
        );
    };
    build_atomically(name, &dir, build, |d| venv_has(d, pins, probe));
    dir
}
