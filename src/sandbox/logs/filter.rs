//! CloudWatch Logs filter patterns: terms (all must appear, case-sensitive), quoted phrases,
//! `?term` alternatives (any one of them), `-term` exclusions, `%regex%`, and JSON patterns
//! `{ $.a.b = value }` with `=`, `!=`, `<`, `<=`, `>`, `>=`, `*` wildcards in strings, joined by
//! `&&` or `||` (evaluated left to right; no parentheses).

use regex::Regex;

/// A compiled filter pattern.
#[derive(Debug)]
pub enum FilterPattern {
    /// Matches everything (empty pattern).
    All,
    /// Unstructured terms.
    Terms {
        /// Terms that must all appear.
        required: Vec<String>,
        /// Terms of which one must appear (when any).
        any: Vec<String>,
        /// Terms that must not appear.
        excluded: Vec<String>,
        /// `%regex%`.
        regex: Option<Regex>,
    },
    /// A JSON pattern: comparisons joined by `&&` / `||`.
    Json(Vec<(Join, Comparison)>),
}

/// How a JSON comparison joins the previous result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Join {
    /// `&&` (and the first comparison).
    And,
    /// `||`.
    Or,
}

/// `$.selector OP value`.
#[derive(Debug)]
pub struct Comparison {
    path: Vec<String>,
    op: String,
    value: String,
}

fn tokens(pattern: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in pattern.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if quoted {
        return Err("unbalanced quote".into());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

impl FilterPattern {
    /// Parses a pattern; an invalid one is `Err(why)` (InvalidParameterException).
    pub fn parse(pattern: &str) -> Result<FilterPattern, String> {
        let p = pattern.trim();
        if p.is_empty() || p == "\"\"" {
            return Ok(FilterPattern::All);
        }
        if let Some(inner) = p.strip_prefix('{') {
            let inner = inner.strip_suffix('}').ok_or("a JSON pattern must end with }")?;
            return parse_json(inner).map(FilterPattern::Json);
        }
        if let Some(re) = p.strip_prefix('%').and_then(|r| r.strip_suffix('%')) {
            let regex = Regex::new(re).map_err(|e| format!("invalid regular expression: {e}"))?;
            return Ok(FilterPattern::Terms {
                required: vec![],
                any: vec![],
                excluded: vec![],
                regex: Some(regex),
            });
        }
        let (mut required, mut any, mut excluded) = (vec![], vec![], vec![]);
        for t in tokens(p)? {
            if let Some(rest) = t.strip_prefix('?').filter(|r| !r.is_empty()) {
                any.push(rest.to_string());
            } else if let Some(rest) = t.strip_prefix('-').filter(|r| !r.is_empty()) {
                excluded.push(rest.to_string());
            } else {
                required.push(t);
            }
        }
        Ok(FilterPattern::Terms {
            required,
            any,
            excluded,
            regex: None,
        })
    }

    /// Whether a message matches.
    pub fn matches(&self, message: &str) -> bool {
        match self {
            FilterPattern::All => true,
            FilterPattern::Terms {
                required,
                any,
                excluded,
                regex,
            } => {
                required.iter().all(|t| message.contains(t.as_str()))
                    && (any.is_empty() || any.iter().any(|t| message.contains(t.as_str())))
                    && !excluded.iter().any(|t| message.contains(t.as_str()))
                    && regex.as_ref().is_none_or(|r| r.is_match(message))
            }
            FilterPattern::Json(parts) => {
                let Ok(doc) = serde_json::from_str::<serde_json::Value>(message) else {
                    return false;
                };
                parts.iter().fold(true, |acc, (join, c)| match join {
                    Join::And => acc && c.eval(&doc),
                    Join::Or => acc || c.eval(&doc),
                })
            }
        }
    }
}

fn parse_json(inner: &str) -> Result<Vec<(Join, Comparison)>, String> {
    let mut out = Vec::new();
    let mut rest = inner.trim().to_string();
    let mut join = Join::And;
    loop {
        let (part, next) = match (rest.find("&&"), rest.find("||")) {
            (Some(a), Some(o)) if a < o => (rest[..a].to_string(), Some((Join::And, rest[a + 2..].to_string()))),
            (_, Some(o)) => (rest[..o].to_string(), Some((Join::Or, rest[o + 2..].to_string()))),
            (Some(a), None) => (rest[..a].to_string(), Some((Join::And, rest[a + 2..].to_string()))),
            (None, None) => (rest.clone(), None),
        };
        out.push((
            join,
            parse_comparison(part.trim().trim_matches(|c| c == '(' || c == ')'))?,
        ));
        match next {
            Some((j, r)) => {
                join = j;
                rest = r;
            }
            None => return Ok(out),
        }
    }
}

fn parse_comparison(text: &str) -> Result<Comparison, String> {
    let sel = text.strip_prefix("$.").ok_or("a JSON comparison starts with $.")?;
    let ops = ["!=", "<=", ">=", "=", "<", ">"];
    let (at, op) = ops
        .iter()
        .filter_map(|op| sel.find(op).map(|i| (i, *op)))
        .min_by_key(|(i, op)| (*i, std::cmp::Reverse(op.len())))
        .ok_or("a JSON comparison needs an operator")?;
    let path = sel[..at].trim().split('.').map(str::to_string).collect();
    let value = sel[at + op.len()..].trim().trim_matches('"').to_string();
    Ok(Comparison {
        path,
        op: op.to_string(),
        value,
    })
}

impl Comparison {
    fn eval(&self, doc: &serde_json::Value) -> bool {
        let mut node = doc;
        for key in &self.path {
            match node.get(key) {
                Some(n) => node = n,
                None => return false,
            }
        }
        if let (Some(n), Ok(v)) = (node.as_f64(), self.value.parse::<f64>()) {
            return match self.op.as_str() {
                "=" => n == v,
                "!=" => n != v,
                "<" => n < v,
                "<=" => n <= v,
                ">" => n > v,
                _ => n >= v,
            };
        }
        let text = match node {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let glob = regex::escape(&self.value).replace("\\*", ".*");
        let equal = Regex::new(&format!("^{glob}$")).is_ok_and(|r| r.is_match(&text));
        match self.op.as_str() {
            "=" => equal,
            "!=" => !equal,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FilterPattern;

    fn m(p: &str, msg: &str) -> bool {
        FilterPattern::parse(p).unwrap().matches(msg)
    }

    #[test]
    fn terms_phrases_alternatives_and_exclusions() {
        assert!(m("ERROR Exception", "[ERROR] Exception on /invocations"));
        assert!(!m("ERROR Exception", "[ERROR] nothing"));
        assert!(m("\"on /invocations\"", "Exception on /invocations"));
        assert!(!m("\"on /ping\"", "Exception on /invocations"));
        assert!(m("?Traceback ?ERROR", "Traceback (most recent call last):"));
        assert!(!m("?Traceback ?ERROR", "all fine"));
        assert!(m("POST -ping", "POST /invocations"));
        assert!(!m("GET -ping", "GET /ping"));
        assert!(m("%status=[45]\\d\\d%", "status=503"));
    }

    #[test]
    fn json_patterns() {
        let line = r#"{"level":"ERROR","fields":{"message":"boom","ms":12}}"#;
        assert!(m("{ $.level = \"ERROR\" }", line));
        assert!(m("{ $.level = ERR* }", line));
        assert!(m("{ $.fields.ms > 10 && $.level != \"INFO\" }", line));
        assert!(!m("{ $.fields.ms < 10 }", line));
        assert!(m("{ $.fields.ms < 10 || $.level = \"ERROR\" }", line));
        assert!(!m("{ $.level = \"ERROR\" }", "not json"));
        assert!(FilterPattern::parse("{ level = 1 }").is_err());
    }
}
