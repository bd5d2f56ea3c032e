//! The `sagedeck` binary.

use clap::Parser;

fn main() {
    limit_malloc_arenas();
    let cli = sagedeck::cli::Cli::parse();
    std::process::exit(sagedeck::cli::run(cli));
}

/// glibc gives every thread that allocates its own arena (up to 8 per core); the console's few
/// threads then keep ~15 MB of freed, fragmented memory resident after each inventory of a large
/// fleet. Two arenas keep the resident set of a 1,000-endpoint console well under 50 MB
/// (`benches/console_live.sh`) at no measurable cost: allocation is not on any hot path here.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; it is called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
