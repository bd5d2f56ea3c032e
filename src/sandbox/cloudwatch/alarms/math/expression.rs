//! Metric math expressions as metric-math alarms use them: numbers, query ids, `+ - * /`, unary
//! minus, parentheses, comparisons (`> < >= <= == !=`, 1 when true, 0 when false), `AND`/`&&`,
//! `OR`/`||` and `IF(condition, then[, else])`, evaluated one period at a time. A period in
//! which an operand has no value, or a division by zero, has no value (no datapoint). Other
//! functions (`SUM`, `METRICS()`, `FILL`, ...) are not emulated and refused when parsing.

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number literal.
    Number(f64),
    /// Another query of the alarm, by id.
    Id(String),
    /// `-e`.
    Negate(Box<Expr>),
    /// A binary operation.
    Binary(Op, Box<Expr>, Box<Expr>),
    /// `IF(condition, then, else)`; no `else` means no value when the condition is false.
    If(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterOrEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessOrEqual,
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `AND` / `&&`.
    And,
    /// `OR` / `||`.
    Or,
}

impl Op {
    fn apply(self, a: f64, b: f64) -> Option<f64> {
        let truth = |c: bool| Some(if c { 1.0 } else { 0.0 });
        match self {
            Op::Add => Some(a + b),
            Op::Sub => Some(a - b),
            Op::Mul => Some(a * b),
            Op::Div if b == 0.0 => None,
            Op::Div => Some(a / b),
            Op::Greater => truth(a > b),
            Op::GreaterOrEqual => truth(a >= b),
            Op::Less => truth(a < b),
            Op::LessOrEqual => truth(a <= b),
            Op::Equal => truth(a == b),
            Op::NotEqual => truth(a != b),
            Op::And => truth(a != 0.0 && b != 0.0),
            Op::Or => truth(a != 0.0 || b != 0.0),
        }
    }
}

impl Expr {
    /// Parses `text`; the error says what is wrong and where.
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        let mut parser = Parser { tokens, at: 0 };
        let expr = parser.or()?;
        match parser.peek() {
            None => Ok(expr),
            Some(t) => Err(format!("unexpected {t:?} after the expression")),
        }
    }

    /// The query ids the expression names, in order of appearance.
    pub fn ids(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_ids(&mut out);
        out
    }

    fn collect_ids<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Number(_) => {}
            Expr::Id(id) => out.push(id),
            Expr::Negate(e) => e.collect_ids(out),
            Expr::Binary(_, a, b) => {
                a.collect_ids(out);
                b.collect_ids(out);
            }
            Expr::If(c, t, e) => {
                c.collect_ids(out);
                t.collect_ids(out);
                if let Some(e) = e {
                    e.collect_ids(out);
                }
            }
        }
    }

    /// The value in one period, `value_of` giving each id's (`None`: no datapoint).
    pub fn eval(&self, value_of: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
        let v = match self {
            Expr::Number(n) => *n,
            Expr::Id(id) => value_of(id)?,
            Expr::Negate(e) => -e.eval(value_of)?,
            Expr::Binary(op, a, b) => op.apply(a.eval(value_of)?, b.eval(value_of)?)?,
            Expr::If(c, t, e) => {
                if c.eval(value_of)? != 0.0 {
                    t.eval(value_of)?
                } else {
                    e.as_ref()?.eval(value_of)?
                }
            }
        };
        v.is_finite().then_some(v)
    }
}

/// A lexical token.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Word(String),
    Symbol(&'static str),
}

const SYMBOLS: [&str; 14] = [
    ">=", "<=", "==", "!=", "&&", "||", ">", "<", "+", "-", "*", "/", "(", ")",
];

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut rest = text.trim_start();
    while let Some(c) = rest.chars().next() {
        if c == ',' {
            tokens.push(Token::Symbol(","));
            rest = &rest[1..];
        } else if let Some(s) = SYMBOLS.iter().find(|s| rest.starts_with(**s)) {
            tokens.push(Token::Symbol(s));
            rest = &rest[s.len()..];
        } else if c.is_ascii_digit() || c == '.' {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
                .unwrap_or(rest.len());
            let n = rest[..end]
                .parse::<f64>()
                .map_err(|_| format!("bad number {:?}", &rest[..end]))?;
            tokens.push(Token::Number(n));
            rest = &rest[end..];
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            tokens.push(Token::Word(rest[..end].to_string()));
            rest = &rest[end..];
        } else {
            return Err(format!("unexpected character {c:?}"));
        }
        rest = rest.trim_start();
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, symbol: &str) -> Result<(), String> {
        match self.next() {
            Some(Token::Symbol(s)) if s == symbol => Ok(()),
            Some(t) => Err(format!("expected {symbol:?}, found {t:?}")),
            None => Err(format!("expected {symbol:?} at the end")),
        }
    }

    /// The binary operator at the cursor if it is one of `ops` (symbol or keyword).
    fn operator(&self, ops: &[(&str, Op)]) -> Option<Op> {
        let text = match self.peek()? {
            Token::Symbol(s) => s.to_string(),
            Token::Word(w) => w.to_ascii_uppercase(),
            Token::Number(_) => return None,
        };
        ops.iter().find(|(s, _)| *s == text).map(|(_, op)| *op)
    }

    /// A left-associative chain of `ops` over `operand`.
    fn chain(&mut self, ops: &[(&str, Op)], operand: fn(&mut Parser) -> Result<Expr, String>) -> Result<Expr, String> {
        let mut left = operand(self)?;
        while let Some(op) = self.operator(ops) {
            self.at += 1;
            let right = operand(self)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn or(&mut self) -> Result<Expr, String> {
        self.chain(&[("OR", Op::Or), ("||", Op::Or)], Parser::and)
    }

    fn and(&mut self) -> Result<Expr, String> {
        self.chain(&[("AND", Op::And), ("&&", Op::And)], Parser::comparison)
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        const OPS: [(&str, Op); 6] = [
            (">", Op::Greater),
            (">=", Op::GreaterOrEqual),
            ("<", Op::Less),
            ("<=", Op::LessOrEqual),
            ("==", Op::Equal),
            ("!=", Op::NotEqual),
        ];
        self.chain(&OPS, Parser::sum)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        self.chain(&[("+", Op::Add), ("-", Op::Sub)], Parser::product)
    }

    fn product(&mut self) -> Result<Expr, String> {
        self.chain(&[("*", Op::Mul), ("/", Op::Div)], Parser::unary)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.peek() == Some(&Token::Symbol("-")) {
            self.at += 1;
            return Ok(Expr::Negate(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Token::Number(n)) => Ok(Expr::Number(n)),
            Some(Token::Symbol("(")) => {
                let e = self.or()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Token::Word(w)) if self.peek() == Some(&Token::Symbol("(")) => self.function(&w),
            Some(Token::Word(w)) => Ok(Expr::Id(w)),
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("the expression ends too early".into()),
        }
    }

    /// `IF(c, t[, e])`; any other function is refused.
    fn function(&mut self, name: &str) -> Result<Expr, String> {
        if !name.eq_ignore_ascii_case("IF") {
            return Err(format!("the function {name} is not emulated by the sandbox"));
        }
        self.expect("(")?;
        let condition = self.or()?;
        self.expect(",")?;
        let then = self.or()?;
        let otherwise = if self.peek() == Some(&Token::Symbol(",")) {
            self.at += 1;
            Some(Box::new(self.or()?))
        } else {
            None
        };
        self.expect(")")?;
        Ok(Expr::If(Box::new(condition), Box::new(then), otherwise))
    }
}

#[cfg(test)]
mod tests {
    use super::Expr;

    fn eval(text: &str, m1: Option<f64>, m2: Option<f64>) -> Option<f64> {
        let e = Expr::parse(text).expect("parses");
        e.eval(&|id| match id {
            "m1" => m1,
            "m2" => m2,
            _ => None,
        })
    }

    #[test]
    fn arithmetic_follows_precedence_and_parentheses() {
        assert_eq!(eval("100*(m2/m1)", Some(200.0), Some(3.0)), Some(1.5));
        assert_eq!(eval("1 + 2 * 3 - -m1", Some(1.0), None), Some(8.0));
        assert_eq!(eval("(1 + 2) * 3", None, None), Some(9.0));
        assert_eq!(eval("m2 / m1", Some(0.0), Some(3.0)), None);
        assert_eq!(eval("m1 + m2", Some(1.0), None), None);
    }

    #[test]
    fn conditions_pick_a_branch() {
        let rate = "IF(m1 > 0, 100 * m2 / m1, 0)";
        assert_eq!(eval(rate, Some(0.0), Some(0.0)), Some(0.0));
        assert_eq!(eval(rate, Some(50.0), Some(5.0)), Some(10.0));
        assert_eq!(eval("IF(m1 >= 1 AND m2 != 0, 1)", Some(1.0), Some(0.0)), None);
        assert_eq!(eval("m1 < 1 || m2 == 2", Some(5.0), Some(2.0)), Some(1.0));
    }

    #[test]
    fn malformed_and_unemulated_expressions_are_refused() {
        for bad in ["", "m1 +", "(m1", "m1 m2", "SUM(METRICS())", "m1 % 2", "IF(m1)"] {
            assert!(Expr::parse(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(
            Expr::parse("IF(errors > 0, 100*errors/invocations)").unwrap().ids(),
            vec!["errors", "errors", "invocations"]
        );
    }
}
