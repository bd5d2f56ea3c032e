//! What the model produced for one request, and how its text splits into tokens.

/// What the model produced for one request.
#[derive(Debug, Clone)]
pub struct Output {
    /// Text of the answer (for a native tool call: empty).
    pub text: String,
    /// A native tool call: name and arguments as a JSON string.
    pub call: Option<(String, String)>,
    /// `stop` / `eos_token` or `length`.
    pub truncated: bool,
    /// Input tokens.
    pub prompt_tokens: usize,
    /// Output tokens.
    pub completion_tokens: usize,
}

/// Splits text into tokens: each is a run of non-space characters with the spaces before it,
/// so the tokens add up to the text exactly (one token per word).
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && in_word {
            out.push(&text[start..i]);
            start = i;
            in_word = false;
        } else if !c.is_whitespace() {
            in_word = true;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}
