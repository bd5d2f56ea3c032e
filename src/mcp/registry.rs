//! The MCP server registry: the `mcpServers` JSON format that Claude Desktop, Cursor and the MCP
//! Inspector read. `command`, `args`, `env`, `cwd` describe a stdio server; `url`, `headers` an
//! HTTP one; an optional `transport` (or `type`) of `stdio`, `http` (streamable HTTP) or `sse`
//! (legacy HTTP+SSE) is inferred when absent: a URL ending in `/sse` is SSE, any other URL
//! streamable HTTP, a command stdio. `${VAR}` references are expanded from the environment.
//! Header and environment values are secrets: `Debug` and `Display` never show them. An HTTP
//! server behind OAuth may name the client registered for sagedeck out of band and the scopes to
//! ask for: `"oauth": {"clientId": "...", "clientSecret": "${SECRET}", "scopes": ["read"]}`
//! (without a `clientId`, sagedeck registers itself where the authorization server offers it).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A value that must not be printed (a token, a password, an API key).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP (one endpoint, POST and optional SSE answers).
    Http,
    /// Legacy HTTP+SSE (GET an event stream, POST to the endpoint it announces).
    Sse,
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
        })
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    /// Its key in `mcpServers`.
    pub name: String,
    /// How it is reached.
    pub transport: TransportKind,
    /// Program to run (stdio).
    pub command: Option<String>,
    /// Its arguments (stdio).
    pub args: Vec<String>,
    /// Extra environment of the child (stdio); values are secrets.
    pub env: BTreeMap<String, Secret>,
    /// Working directory of the child (stdio).
    pub cwd: Option<PathBuf>,
    /// Server URL (http, sse).
    pub url: Option<String>,
    /// Extra HTTP headers (http, sse); values are secrets.
    pub headers: BTreeMap<String, Secret>,
    /// OAuth client settings (http).
    pub oauth: OAuthSettings,
}

/// The `oauth` object of an HTTP server: a client registered out of band, and scopes to ask for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OAuthSettings {
    /// A pre-registered client id (else dynamic registration).
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<Secret>,
    /// Scopes asked for at login (besides those the server names).
    pub scopes: Vec<String>,
    /// The authorization server is `sagedeck demo`'s own, which approves at once: the login
    /// follows the authorization URL itself instead of opening a browser. Never read from a
    /// file: only the demo's own entry sets it.
    pub approves_at_once: bool,
}

impl ServerEntry {
    /// A one-line description without secrets: the command line or the URL.
    pub fn target(&self) -> String {
        match self.transport {
            TransportKind::Stdio => {
                let mut s = self.command.clone().unwrap_or_default();
                for a in &self.args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            _ => self.url.clone().unwrap_or_default(),
        }
    }
}

impl fmt::Display for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}: {})", self.name, self.transport, self.target())
    }
}

/// The servers of one configuration, in name order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registry {
    /// The servers.
    pub servers: Vec<ServerEntry>,
    /// Where they were read from (None: built in code).
    pub source: Option<PathBuf>,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(rename = "mcpServers", alias = "servers", default)]
    mcp_servers: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    #[serde(alias = "type")]
    transport: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    #[serde(alias = "serverUrl")]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    disabled: bool,
    oauth: Option<RawOAuth>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOAuth {
    #[serde(alias = "client_id")]
    client_id: Option<String>,
    #[serde(alias = "client_secret")]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

/// Expands `${VAR}` (and `${VAR:-default}`) from `lookup`; an unset variable without a default
/// is an error naming it. `$$` is a literal `$`.
pub fn expand_vars(input: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body
                .find('}')
                .ok_or_else(|| format!("unterminated ${{...}} in `{input}`"))?;
            let expr = &body[..end];
            let (name, default) = match expr.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (expr, None),
            };
            let value = lookup(name).filter(|v| !v.is_empty() || default.is_none());
            match (value, default) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => return Err(format!("environment variable {name} is not set")),
            }
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn parse_transport(name: &str, raw: Option<&str>, entry: &RawEntry) -> Result<TransportKind, String> {
    match raw.map(|s| s.trim().to_ascii_lowercase()) {
        Some(t) => match t.as_str() {
            "stdio" => Ok(TransportKind::Stdio),
            "http" | "streamable-http" | "streamablehttp" | "streamable_http" => Ok(TransportKind::Http),
            "sse" => Ok(TransportKind::Sse),
            other => Err(format!(
                "server `{name}`: unknown transport `{other}` (use stdio, http or sse)"
            )),
        },
        None => match (&entry.command, &entry.url) {
            (_, Some(url)) => {
                let path = url.split(['?', '#']).next().unwrap_or(url).trim_end_matches('/');
                Ok(if path.ends_with("/sse") {
                    TransportKind::Sse
                } else {
                    TransportKind::Http
                })
            }
            (Some(_), None) => Ok(TransportKind::Stdio),
            (None, None) => Err(format!(
                "server `{name}`: give a `command` (stdio) or a `url` (http, sse)"
            )),
        },
    }
}

impl Registry {
    /// Parses a configuration, expanding `${VAR}` with `lookup`. Disabled entries are skipped.
    pub fn parse(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Registry, String> {
        let file: RawFile = serde_json::from_str(text).map_err(|e| format!("not an mcpServers file: {e}"))?;
        let mut servers = Vec::new();
        for (name, value) in file.mcp_servers {
            let raw: RawEntry = serde_json::from_value(value).map_err(|e| format!("server `{name}`: {e}"))?;
            if raw.disabled {
                continue;
            }
            let transport = parse_transport(&name, raw.transport.as_deref(), &raw)?;
            let x = |s: &str| expand_vars(s, lookup).map_err(|e| format!("server `{name}`: {e}"));
            let entry = ServerEntry {
                transport,
                command: raw.command.as_deref().map(x).transpose()?,
                args: raw.args.iter().map(|a| x(a)).collect::<Result<_, _>>()?,
                env: raw
                    .env
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Secret(x(v)?))))
                    .collect::<Result<_, String>>()?,
                cwd: raw.cwd.as_deref().map(x).transpose()?.map(PathBuf::from),
                url: raw.url.as_deref().map(x).transpose()?,
                headers: raw
                    .headers
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Secret(x(v)?))))
                    .collect::<Result<_, String>>()?,
                oauth: match &raw.oauth {
                    Some(o) => OAuthSettings {
                        client_id: o.client_id.as_deref().map(x).transpose()?,
                        client_secret: o.client_secret.as_deref().map(x).transpose()?.map(Secret),
                        scopes: o.scopes.clone(),
                        approves_at_once: false,
                    },
                    None => OAuthSettings::default(),
                },
                name: name.clone(),
            };
            match transport {
                TransportKind::Stdio if entry.command.as_deref().is_none_or(str::is_empty) => {
                    return Err(format!("server `{name}`: transport stdio needs a `command`"));
                }
                TransportKind::Http | TransportKind::Sse if entry.url.is_none() => {
                    return Err(format!("server `{name}`: transport {transport} needs a `url`"));
                }
                TransportKind::Http | TransportKind::Sse => check_http(&entry)?,
                _ => {}
            }
            servers.push(entry);
        }
        Ok(Registry { servers, source: None })
    }

    /// Reads `path` (expanding from the process environment).
    pub fn load(path: &Path) -> Result<Registry, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut r =
            Registry::parse(&text, &|k| std::env::var(k).ok()).map_err(|e| format!("{}: {e}", path.display()))?;
        r.source = Some(path.to_path_buf());
        Ok(r)
    }

    /// `--mcp-config FILE` when given, else `~/.config/sagedeck/mcp.json` (`$XDG_CONFIG_HOME`
    /// honoured) when it exists, else an empty registry.
    pub fn load_default(explicit: Option<&Path>) -> Result<Registry, String> {
        if let Some(p) = explicit {
            return Registry::load(p);
        }
        match default_path() {
            Some(p) if p.exists() => Registry::load(&p),
            _ => Ok(Registry::default()),
        }
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&ServerEntry> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The server names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.servers.iter().map(|s| s.name.as_str()).collect()
    }
}

/// Checks what an HTTP entry sends before anything is: an `http(s)://HOST` URL, and header names
/// and values HTTP can carry (values are never quoted: they are secrets).
fn check_http(entry: &ServerEntry) -> Result<(), String> {
    let name = &entry.name;
    let url = entry.url.as_deref().unwrap_or_default();
    let parsed = reqwest::Url::parse(url).ok();
    if !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some()) {
        return Err(format!(
            "server `{name}`: `url` {url:?} is not an http:// or https:// URL with a host"
        ));
    }
    for (k, v) in &entry.headers {
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
            return Err(format!("server `{name}`: `headers`: {k:?} is not a valid header name"));
        }
        if reqwest::header::HeaderValue::from_str(v.expose()).is_err() {
            return Err(format!(
                "server `{name}`: `headers`: the value of {k} is not valid in HTTP (a control character or a line break?)"
            ));
        }
    }
    Ok(())
}

/// `$XDG_CONFIG_HOME/sagedeck/mcp.json`, else `~/.config/sagedeck/mcp.json`.
pub fn default_path() -> Option<PathBuf> {
    crate::local::dirs::config_dir().map(|d| d.join("mcp.json"))
}

/// The entry of sagedeck's own demo server, `EXE mcp serve --demo-tools` pointed at the sandbox
/// at `endpoint_url` with the sandbox's static credentials: what `sagedeck demo` registers (with
/// `std::env::current_exe()` as `exe`).
pub fn demo_entry(exe: &Path, endpoint_url: &str) -> ServerEntry {
    let env = [
        ("AWS_ACCESS_KEY_ID", "AKIDSANDBOX"),
        ("AWS_SECRET_ACCESS_KEY", "sandbox-secret"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_EC2_METADATA_DISABLED", "true"),
    ];
    ServerEntry {
        name: "sagedeck-demo".into(),
        transport: TransportKind::Stdio,
        command: Some(exe.to_string_lossy().into_owned()),
        args: vec![
            "mcp".into(),
            "serve".into(),
            "--demo-tools".into(),
            "--endpoint-url".into(),
            endpoint_url.into(),
        ],
        env: env.iter().map(|(k, v)| (k.to_string(), Secret::new(*v))).collect(),
        cwd: None,
        url: None,
        headers: BTreeMap::new(),
        oauth: OAuthSettings::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "TOKEN" => Some("s3cr3t".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expansion() {
        assert_eq!(expand_vars("Bearer ${TOKEN}", &env).unwrap(), "Bearer s3cr3t");
        assert_eq!(expand_vars("${NOPE:-x}/${EMPTY:-d}", &env).unwrap(), "x/d");
        assert_eq!(expand_vars("$$5 and $HOME", &env).unwrap(), "$5 and $HOME");
        assert!(expand_vars("${NOPE}", &env).unwrap_err().contains("NOPE"));
        assert!(expand_vars("${TOKEN", &env).is_err());
    }

    #[test]
    fn inference_and_redaction() {
        let text = r#"{"mcpServers": {
            "a": {"command": "python", "args": ["server.py"], "env": {"KEY": "${TOKEN}"}},
            "b": {"url": "http://127.0.0.1:8000/sse"},
            "c": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "d": {"type": "sse", "url": "http://x/events"},
            "e": {"command": "x", "disabled": true}
        }}"#;
        let r = Registry::parse(text, &env).unwrap();
        let kinds: Vec<_> = r.servers.iter().map(|s| (s.name.as_str(), s.transport)).collect();
        assert_eq!(
            kinds,
            vec![
                ("a", TransportKind::Stdio),
                ("b", TransportKind::Sse),
                ("c", TransportKind::Http),
                ("d", TransportKind::Sse)
            ]
        );
        let c = r.get("c").unwrap();
        assert_eq!(c.headers["Authorization"].expose(), "Bearer s3cr3t");
        let shown = format!("{r:?} {} {}", c, r.get("a").unwrap());
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(Registry::parse(r#"{"mcpServers": {"x": {}}}"#, &env).is_err());
        assert!(Registry::parse(r#"{"mcpServers": {"x": {"transport": "ws", "url": "u"}}}"#, &env).is_err());
        assert!(Registry::parse(r#"{"mcpServers": {"x": {"transport": "http"}}}"#, &env).is_err());
    }

    #[test]
    fn oauth_settings() {
        let text = r#"{"mcpServers": {
            "a": {"url": "http://h/mcp", "oauth": {"clientId": "sagedeck", "clientSecret": "${TOKEN}", "scopes": ["read"]}},
            "b": {"url": "http://h/mcp"}
        }}"#;
        let r = Registry::parse(text, &env).unwrap();
        let a = &r.get("a").unwrap().oauth;
        assert_eq!(a.client_id.as_deref(), Some("sagedeck"));
        assert_eq!(a.client_secret.as_ref().map(Secret::expose), Some("s3cr3t"));
        assert_eq!(a.scopes, ["read"]);
        assert!(!format!("{r:?}").contains("s3cr3t"));
        assert_eq!(r.get("b").unwrap().oauth, OAuthSettings::default());
        let typo = r#"{"mcpServers": {"a": {"url": "http://h/mcp", "oauth": {"clientid": "x"}}}}"#;
        assert!(
            Registry::parse(typo, &env).is_err(),
            "a misspelt key is an error, not ignored"
        );
    }
}
