//! The shapes of the API model's constraints: a member's rule, its pattern, required or optional.

/// A regular expression of the model, and how AWS's messages show it.
pub struct Pattern {
    pub(super) regex: &'static str,
    pub(super) shown: &'static str,
}

/// What the model allows for one member.
pub enum Rule {
    /// A string of `min..=max` characters matching the pattern, if any.
    Text(usize, usize, Option<&'static Pattern>),
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// An integer within the bounds.
    Int(Option<i64>, Option<i64>),
    /// A number at least this.
    FloatMin(f64),
    /// A list of `min..=max` members, each checked by the rule.
    List(usize, usize, &'static Rule),
    /// A structure with these members.
    Struct(&'static [Member]),
    /// A string map of at most this many entries, keys and values checked by the rules.
    Map(usize, &'static Rule, &'static Rule),
    /// A boolean (present; its type is the decoder's to refuse).
    Bool,
    /// A serverless memory size: 1024 to 6144 MB in steps of 1024.
    ServerlessMemory,
}

/// One member of a structure.
pub struct Member {
    pub(super) name: &'static str,
    pub(super) required: bool,
    pub(super) rule: Rule,
}

pub(crate) const fn opt(name: &'static str, rule: Rule) -> Member {
    Member {
        name,
        required: false,
        rule,
    }
}

pub(crate) const fn req(name: &'static str, rule: Rule) -> Member {
    Member {
        name,
        required: true,
        rule,
    }
}
