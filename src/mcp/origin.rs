//! The browser origins `sagedeck mcp serve --http` accepts: its own, and those given with
//! `--allow-origin` (checked here).

use std::net::SocketAddr;

/// Checks an `--allow-origin` value: `null`, or `http(s)://HOST[:PORT]` with nothing after.
pub fn check_origin(origin: &str) -> Result<(), String> {
    if origin == "null" {
        return Ok(());
    }
    let bad = || format!("--allow-origin `{origin}` is not an origin such as https://console.example.com:8443");
    let url = reqwest::Url::parse(origin).map_err(|_| bad())?;
    let bare = url.path() == "/" && url.query().is_none() && url.fragment().is_none() && !origin.ends_with('/');
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() || !bare {
        return Err(bad());
    }
    Ok(())
}

/// The browser origins of a server listening on `addr`: `http://ADDR`, and on loopback also
/// `localhost`, `127.0.0.1` and `[::1]` with its port. `null` (a sandboxed frame, a `file:` page,
/// a redirected request) is not one of them: any page can send it, so it is allowed only when
/// given with `--allow-origin null`.
pub fn own_origins(addr: SocketAddr) -> Vec<String> {
    let mut out = vec![format!("http://{addr}")];
    if addr.ip().is_loopback() {
        let port = addr.port();
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            out.push(format!("http://{host}:{port}"));
        }
        out.dedup();
    }
    out
}
