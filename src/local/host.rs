//! This machine's name, as the plan lock and the team's audit trail name it.

/// This machine's host name (`SAGEDECK_HOST` when set, so tests can play two machines; `?`
/// when it cannot be read).
pub fn host_name() -> String {
    if let Ok(h) = std::env::var("SAGEDECK_HOST")
        && !h.is_empty()
    {
        return h;
    }
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "?".into()
    }
}
