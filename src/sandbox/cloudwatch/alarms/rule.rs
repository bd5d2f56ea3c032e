//! Composite alarm rules: `ALARM(name)`, `OK(name)`, `INSUFFICIENT_DATA(name)`, `TRUE`, `FALSE`,
//! combined with `NOT`, `AND`, `OR` and parentheses (precedence NOT > AND > OR, as usual).
//!
//! An alarm is named by its name or its ARN, quoted (`ALARM("my alarm")`, `\"` and `\\`
//! escapes) or bare (`ALARM(cpu-high)`: everything up to the closing parenthesis, trimmed).

use super::state_value::StateValue;

/// A parsed alarm rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `TRUE` or `FALSE`.
    Const(bool),
    /// `ALARM(x)` / `OK(x)` / `INSUFFICIENT_DATA(x)`: whether alarm `x` is in that state.
    State(StateValue, String),
    /// `NOT r`.
    Not(Box<Rule>),
    /// `a AND b AND ...`.
    And(Vec<Rule>),
    /// `a OR b OR ...`.
    Or(Vec<Rule>),
}

impl Rule {
    /// Parses a rule; the error says what is wrong and where.
    pub fn parse(text: &str) -> Result<Rule, String> {
        let mut p = Parser {
            chars: text.chars().collect(),
            pos: 0,
        };
        let rule = p.or()?;
        p.skip_space();
        if p.pos < p.chars.len() {
            return Err(format!("unexpected text at position {}", p.pos + 1));
        }
        Ok(rule)
    }

    /// The alarm names the rule refers to (ARNs reduced to names), in order of appearance.
    pub fn alarm_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names(&self, out: &mut Vec<String>) {
        match self {
            Rule::Const(_) => {}
            Rule::State(_, name) => {
                let name = name_of(name).to_string();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
            Rule::Not(r) => r.collect_names(out),
            Rule::And(rs) | Rule::Or(rs) => rs.iter().for_each(|r| r.collect_names(out)),
        }
    }

    /// Evaluates the rule; `state` answers the current state of an alarm by name (`None` for an
    /// alarm that no longer exists, which matches no state).
    pub fn eval(&self, state: &dyn Fn(&str) -> Option<StateValue>) -> bool {
        match self {
            Rule::Const(b) => *b,
            Rule::State(want, name) => state(name_of(name)) == Some(*want),
            Rule::Not(r) => !r.eval(state),
            Rule::And(rs) => rs.iter().all(|r| r.eval(state)),
            Rule::Or(rs) => rs.iter().any(|r| r.eval(state)),
        }
    }
}

/// The alarm name of a name or an alarm ARN (`arn:aws:cloudwatch:REGION:ACCOUNT:alarm:NAME`).
pub fn name_of(name_or_arn: &str) -> &str {
    if name_or_arn.starts_with("arn:")
        && let Some((_, name)) = name_or_arn.split_once(":alarm:")
    {
        return name;
    }
    name_or_arn
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    /// The next keyword-like word (letters and underscores), without consuming it.
    fn peek_word(&mut self) -> String {
        self.skip_space();
        self.chars[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic() || **c == '_')
            .collect()
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == word {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_space();
        if self.chars.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{c}' at position {}", self.pos + 1))
        }
    }

    fn or(&mut self) -> Result<Rule, String> {
        let mut terms = vec![self.and()?];
        while self.eat_word("OR") {
            terms.push(self.and()?);
        }
        Ok(if terms.len() == 1 {
            terms.remove(0)
        } else {
            Rule::Or(terms)
        })
    }

    fn and(&mut self) -> Result<Rule, String> {
        let mut terms = vec![self.not()?];
        while self.eat_word("AND") {
            terms.push(self.not()?);
        }
        Ok(if terms.len() == 1 {
            terms.remove(0)
        } else {
            Rule::And(terms)
        })
    }

    fn not(&mut self) -> Result<Rule, String> {
        if self.eat_word("NOT") {
            return Ok(Rule::Not(Box::new(self.not()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Rule, String> {
        self.skip_space();
        if self.chars.get(self.pos) == Some(&'(') {
            self.pos += 1;
            let inner = self.or()?;
            self.expect(')')?;
            return Ok(inner);
        }
        let at = self.pos + 1;
        let word = self.peek_word();
        let state = match word.as_str() {
            "TRUE" | "FALSE" => {
                self.pos += word.len();
                return Ok(Rule::Const(word == "TRUE"));
            }
            "ALARM" => StateValue::Alarm,
            "OK" => StateValue::Ok,
            "INSUFFICIENT_DATA" => StateValue::InsufficientData,
            "" => return Err(format!("expected an expression at position {at}")),
            other => return Err(format!("unknown function or keyword {other:?} at position {at}")),
        };
        self.pos += word.len();
        self.expect('(')?;
        let name = self.alarm_name()?;
        self.expect(')')?;
        Ok(Rule::State(state, name))
    }

    fn alarm_name(&mut self) -> Result<String, String> {
        self.skip_space();
        let start = self.pos + 1;
        let name = if self.chars.get(self.pos) == Some(&'"') {
            self.pos += 1;
            let mut out = String::new();
            loop {
                match self.chars.get(self.pos) {
                    None => return Err(format!("unterminated quoted alarm name at position {start}")),
                    Some('"') => {
                        self.pos += 1;
                        break;
                    }
                    Some('\\') if self.pos + 1 < self.chars.len() => {
                        out.push(self.chars[self.pos + 1]);
                        self.pos += 2;
                    }
                    Some(c) => {
                        out.push(*c);
                        self.pos += 1;
                    }
                }
            }
            out
        } else {
            let raw: String = self.chars[self.pos..].iter().take_while(|c| **c != ')').collect();
            self.pos += raw.chars().count();
            raw.trim().to_string()
        };
        if name.is_empty() {
            return Err(format!("empty alarm name at position {start}"));
        }
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(name: &str) -> Option<StateValue> {
        match name {
            "a" => Some(StateValue::Alarm),
            "b" => Some(StateValue::Ok),
            "my alarm" => Some(StateValue::InsufficientData),
            _ => None,
        }
    }

    #[test]
    fn precedence_and_parentheses() {
        let r = Rule::parse("ALARM(a) OR ALARM(b) AND FALSE").unwrap();
        assert!(r.eval(&states));
        let r = Rule::parse("(ALARM(a) OR ALARM(b)) AND FALSE").unwrap();
        assert!(!r.eval(&states));
        let r = Rule::parse("NOT OK(b) OR INSUFFICIENT_DATA(\"my alarm\")").unwrap();
        assert!(r.eval(&states));
    }

    #[test]
    fn arns_and_names() {
        let r = Rule::parse("ALARM(arn:aws:cloudwatch:us-east-1:123456789012:alarm:a) AND OK( b )").unwrap();
        assert!(r.eval(&states));
        assert_eq!(r.alarm_names(), vec!["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn errors_say_where() {
        assert!(Rule::parse("ALARM(a) AND").unwrap_err().contains("position"));
        assert!(Rule::parse("FOO(a)").unwrap_err().contains("FOO"));
        assert!(Rule::parse("ALARM(a").is_err());
        assert!(Rule::parse("ALARM()").is_err());
        assert!(Rule::parse("ALARM(\"a)").is_err());
        assert!(Rule::parse("ALARM(a) b").is_err());
    }
}
