//! Files only their owner may read: directories created 0700 and append-only files opened 0600
//! (a file made before, or by hand, with wider permissions is narrowed to the owner; a symbolic
//! link is refused, not followed). The audit log (it names who changed what) and the variant log
//! (it may hold inputs) are opened here.

use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` and its missing parents readable by the owner only (0700, whatever the umask).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Opens `path` for appending, creating it 0600 and its directory 0700; an existing file
/// readable or writable by others is made private. A symbolic link at `path` is not followed
/// (its target would be written and made private): the error is then [`is_symlink_refusal`].
pub fn open_private_append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dir(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(file)
}

/// Whether `e` (from [`open_private_append`]) is the refusal of a symbolic link.
pub fn is_symlink_refusal(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}
