//! `calculator`: arithmetic on real numbers, nothing else.
//!
//! The expression is parsed by `evalexpr` and evaluated here over `f64`,
//! with a fixed set of operators, functions and constants. Anything else in
//! the language `evalexpr` accepts (variables, assignment, `;` chains,
//! strings, booleans, comparisons) is refused before it is evaluated.

use std::fmt;

use evalexpr::{DefaultNumericTypes, EvalexprError, Node, Operator, Value};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

/// How the `calculator` tool is set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CalculatorConfig {
    /// The longest expression accepted, in characters.
    #[schemars(range(min = 1, max = 10000))]
    pub max_length: u32,
    /// The deepest nesting of parentheses accepted.
    #[schemars(range(min = 1, max = 200))]
    pub max_depth: u32,
}

impl Default for CalculatorConfig {
    fn default() -> Self {
        Self {
            max_length: 1000,
            max_depth: 64,
        }
    }
}

/// The value of an expression.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Calculation {
    /// The expression, as given.
    pub expression: String,
    /// Its value.
    pub result: f64,
}

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcError {
    /// What went wrong, for the model.
    pub message: String,
    /// Where, as a 1-based character column, when it is known.
    pub position: Option<usize>,
}

impl CalcError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            position: None,
        }
    }

    fn at(message: impl Into<String>, position: usize) -> Self {
        Self {
            message: message.into(),
            position: Some(position),
        }
    }
}

impl fmt::Display for CalcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(position) => write!(f, "{} (at character {position})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Evaluate an arithmetic expression, e.g. "2 * (3 + 4) ^ 2 / sqrt(16)".
///
/// Operators: + - * / % (remainder) ^ (power, right-associative), unary
/// minus, parentheses. Functions: sqrt, cbrt, abs, exp, ln, log (base 10, or
/// log(x, base)), log2, log10, sin, cos, tan, asin, acos, atan, atan2(y, x),
/// sinh, cosh, tanh, floor, ceil, round, trunc, sign, pow(x, y), hypot(x, y),
/// min(a, b, ...), max(a, b, ...). Constants: pi, e, tau. Angles are in
/// radians. No variables or assignment: one expression per call.
#[tool(
    register = false,
    config = CalculatorConfig,
    read_only,
    idempotent,
    open_world = false,
    timeout = "5s"
)]
pub fn calculator(
    /// The expression, e.g. "sqrt(2) * sin(pi / 4)"
    #[tool(length(min = 1, max = 10000))]
    expression: String,
    config: Config<CalculatorConfig>,
) -> Result<Calculation, ToolError> {
    let length = expression.chars().count();
    if length > config.max_length as usize {
        return Err(ToolError::new(format!(
            "the expression is {length} characters long; the limit is {}",
            config.max_length
        )));
    }
    let result = evaluate_with_depth(&expression, config.max_depth as usize)
        .map_err(|error| ToolError::new(format!("cannot evaluate {expression:?}: {error}")))?;
    Ok(Calculation { expression, result })
}

/// Evaluates an arithmetic expression as the `calculator` tool does (with
/// its default nesting limit).
///
/// ```
/// assert_eq!(tool_builtin::calculator::evaluate("2^3^2").unwrap(), 512.0);
/// let error = tool_builtin::calculator::evaluate("(1 + 2").unwrap_err();
/// assert_eq!(error.position, Some(1));
/// ```
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    evaluate_with_depth(expression, CalculatorConfig::default().max_depth as usize)
}

fn evaluate_with_depth(expression: &str, max_depth: usize) -> Result<f64, CalcError> {
    if expression.trim().is_empty() {
        return Err(CalcError::new("the expression is empty"));
    }
    check_parentheses(expression, max_depth)?;
    let tree = evalexpr::build_operator_tree::<DefaultNumericTypes>(expression)
        .map_err(|error| parse_error(expression, &error))?;
    if tree_depth(&tree) > MAX_TREE_DEPTH {
        return Err(CalcError::new(format!(
            "the expression has more than {MAX_TREE_DEPTH} nested operations; split it into smaller calculations"
        )));
    }
    let value = Evaluator { source: expression }.eval(&tree)?;
    finite(value, || "the result".to_owned())
}

/// Finds unbalanced or too deeply nested parentheses, with their position
/// (which `evalexpr` does not report).
fn check_parentheses(expression: &str, max_depth: usize) -> Result<(), CalcError> {
    let mut open = Vec::new();
    for (index, c) in expression.chars().enumerate() {
        match c {
            '(' => {
                open.push(index + 1);
                if open.len() > max_depth {
                    return Err(CalcError::at(
                        format!("parentheses are nested more than {max_depth} deep"),
                        index + 1,
                    ));
                }
            }
            ')' if open.pop().is_none() => {
                return Err(CalcError::at(
                    "this ')' closes no '('; remove it or add the '(' it closes",
                    index + 1,
                ));
            }
            _ => {}
        }
    }
    match open.first() {
        Some(&position) => Err(CalcError::at(
            "this '(' is never closed; add a ')'",
            position,
        )),
        None => Ok(()),
    }
}

fn parse_error(source: &str, error: &EvalexprError<DefaultNumericTypes>) -> CalcError {
    match error {
        EvalexprError::MissingOperatorOutsideOfBrace => CalcError::new(
            "a value is directly followed by '(' (or ')' by a value); write the operator, e.g. 2 * (3 + 4)",
        ),
        EvalexprError::AppendedToLeafNode => {
            CalcError::new("two values follow each other without an operator between them")
        }
        EvalexprError::UnmatchedDoubleQuote | EvalexprError::IllegalEscapeSequence(_) => {
            CalcError::new("text in quotes is not arithmetic; use numbers only")
        }
        EvalexprError::UnmatchedPartialToken { first, .. } => {
            let token = first.to_string();
            let message = format!("{token:?} is not an operator of the calculator");
            match find_token(source, &token) {
                Some(position) => CalcError::at(message, position),
                None => CalcError::new(message),
            }
        }
        other => CalcError::new(format!("the expression does not parse: {other}")),
    }
}

/// The 1-based character column of the first whole-word occurrence of
/// `token` in `source`.
fn find_token(source: &str, token: &str) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut start = 0;
    while let Some(offset) = source[start..].find(token) {
        let begin = start + offset;
        let end = begin + token.len();
        let before_ok = source[..begin].chars().next_back().is_none_or(|c| !word(c));
        let after_ok = source[end..].chars().next().is_none_or(|c| !word(c));
        if before_ok && after_ok || !token.chars().all(word) {
            return Some(source[..begin].chars().count() + 1);
        }
        start = end;
    }
    None
}

/// The deepest operator tree evaluated (evaluation recurses over it).
const MAX_TREE_DEPTH: usize = 1000;

/// The depth of the operator tree, found without recursion.
fn tree_depth(root: &Tree) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root, 1)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        stack.extend(node.children().iter().map(|child| (child, depth + 1)));
    }
    deepest
}

fn finite(value: f64, what: impl FnOnce() -> String) -> Result<f64, CalcError> {
    if value.is_nan() {
        Err(CalcError::new(format!("{} is not a real number", what())))
    } else if value.is_infinite() {
        Err(CalcError::new(format!(
            "{} overflows: it is too large for a 64-bit float",
            what()
        )))
    } else {
        Ok(value)
    }
}

const CONSTANTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
];

/// The functions, with their accepted argument counts (`usize::MAX`: any
/// number from the minimum up).
const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("sqrt", 1, 1),
    ("cbrt", 1, 1),
    ("abs", 1, 1),
    ("exp", 1, 1),
    ("ln", 1, 1),
    ("log", 1, 2),
    ("log2", 1, 1),
    ("log10", 1, 1),
    ("sin", 1, 1),
    ("cos", 1, 1),
    ("tan", 1, 1),
    ("asin", 1, 1),
    ("acos", 1, 1),
    ("atan", 1, 1),
    ("atan2", 2, 2),
    ("sinh", 1, 1),
    ("cosh", 1, 1),
    ("tanh", 1, 1),
    ("floor", 1, 1),
    ("ceil", 1, 1),
    ("round", 1, 1),
    ("trunc", 1, 1),
    ("sign", 1, 1),
    ("pow", 2, 2),
    ("hypot", 2, 2),
    ("min", 1, usize::MAX),
    ("max", 1, usize::MAX),
];

struct Evaluator<'a> {
    source: &'a str,
}

type Tree = Node<DefaultNumericTypes>;

impl Evaluator<'_> {
    fn eval(&self, node: &Tree) -> Result<f64, CalcError> {
        use Operator as Op;
        let children = node.children();
        match node.operator() {
            Op::RootNode => match children {
                [single] => self.eval(single),
                [] => Err(CalcError::new("empty parentheses: put a value inside")),
                _ => Err(CalcError::new("unexpected values; one expression only")),
            },
            Op::Const { value } => self.constant(value),
            Op::VariableIdentifierRead { identifier } => self.name(identifier),
            Op::FunctionIdentifier { identifier } => self.function(identifier, children),
            Op::Neg => {
                let [operand] = self.operands::<1>(node, "-")?;
                Ok(-self.eval(operand)?)
            }
            Op::Add => self.binary(node, "+", |a, b| Ok(a + b)),
            Op::Sub => self.binary(node, "-", |a, b| Ok(a - b)),
            Op::Mul => self.binary(node, "*", |a, b| Ok(a * b)),
            Op::Div => self.binary(node, "/", |a, b| {
                if b == 0.0 {
                    Err(CalcError::new(format!("division by zero in {a} / {b}")))
                } else {
                    Ok(a / b)
                }
            }),
            Op::Mod => self.binary(node, "%", |a, b| {
                if b == 0.0 {
                    Err(CalcError::new(format!(
                        "remainder of a division by zero in {a} % {b}"
                    )))
                } else {
                    Ok(a % b)
                }
            }),
            Op::Exp => self.power_chain(node),
            Op::Tuple => Err(CalcError::new(
                "a comma separates the arguments of a function, e.g. max(1, 2); it cannot stand alone",
            )),
            Op::Chain => Err(CalcError::new(
                "';' is not supported: give one expression per call",
            )),
            Op::Assign
            | Op::AddAssign
            | Op::SubAssign
            | Op::MulAssign
            | Op::DivAssign
            | Op::ModAssign
            | Op::ExpAssign
            | Op::AndAssign
            | Op::OrAssign
            | Op::VariableIdentifierWrite { .. } => Err(CalcError::new(
                "assignment is not supported: the calculator has no variables",
            )),
            Op::Eq | Op::Neq | Op::Gt | Op::Lt | Op::Geq | Op::Leq | Op::And | Op::Or | Op::Not => {
                Err(CalcError::new(format!(
                    "{} is not supported: the calculator does arithmetic only",
                    describe(node.operator())
                )))
            }
        }
    }

    fn constant(&self, value: &Value<DefaultNumericTypes>) -> Result<f64, CalcError> {
        match value {
            // Every number is a float: 7 / 2 is 3.5, not 3.
            Value::Int(int) => Ok(*int as f64),
            Value::Float(float) => finite(*float, || format!("the number {float}")),
            Value::Boolean(_) => Err(CalcError::new(
                "true and false are not numbers; the calculator does arithmetic only",
            )),
            Value::String(_) => Err(CalcError::new(
                "text in quotes is not arithmetic; use numbers only",
            )),
            Value::Tuple(_) | Value::Empty => Err(CalcError::new("expected a number")),
        }
    }

    fn name(&self, identifier: &str) -> Result<f64, CalcError> {
        if let Some((_, value)) = CONSTANTS.iter().find(|(name, _)| *name == identifier) {
            return Ok(*value);
        }
        let known = if FUNCTIONS.iter().any(|(name, _, _)| *name == identifier) {
            format!("{identifier} is a function: call it with parentheses, e.g. {identifier}(2)")
        } else {
            let hint = suggest(identifier, CONSTANTS.iter().map(|(name, _)| *name));
            format!(
                "unknown name {identifier:?}{hint}; the calculator has no variables, only the constants pi, e and tau"
            )
        };
        Err(self.located(known, identifier))
    }

    fn located(&self, message: String, identifier: &str) -> CalcError {
        match find_token(self.source, identifier) {
            Some(position) => CalcError::at(message, position),
            None => CalcError::new(message),
        }
    }

    fn function(&self, identifier: &str, children: &[Tree]) -> Result<f64, CalcError> {
        let Some(&(name, min, max)) = FUNCTIONS.iter().find(|(name, _, _)| *name == identifier)
        else {
            let hint = suggest(identifier, FUNCTIONS.iter().map(|(name, _, _)| *name));
            let names: Vec<&str> = FUNCTIONS.iter().map(|(name, _, _)| *name).collect();
            return Err(self.located(
                format!(
                    "unknown function {identifier:?}{hint}; the functions are {}",
                    names.join(", ")
                ),
                identifier,
            ));
        };
        let args = self.arguments(children)?;
        if args.len() < min || args.len() > max {
            let expected = match (min, max) {
                (min, usize::MAX) => format!("at least {min}"),
                (min, max) if min == max => min.to_string(),
                (min, max) => format!("{min} or {max}"),
            };
            return Err(self.located(
                format!(
                    "{name} takes {expected} argument{}, got {}",
                    if max == 1 { "" } else { "s" },
                    args.len()
                ),
                identifier,
            ));
        }
        let x = args[0];
        let value = match name {
            "sqrt" if x < 0.0 => {
                return Err(CalcError::new(format!(
                    "sqrt({x}) is not a real number: the argument must not be negative"
                )));
            }
            "ln" | "log" | "log2" | "log10" if x <= 0.0 => {
                return Err(CalcError::new(format!(
                    "{name}({x}) is undefined: the argument must be positive"
                )));
            }
            "sqrt" => x.sqrt(),
            "cbrt" => x.cbrt(),
            "abs" => x.abs(),
            "exp" => x.exp(),
            "ln" => x.ln(),
            "log" => match args.get(1) {
                Some(&base) if base <= 0.0 || base == 1.0 => {
                    return Err(CalcError::new(format!(
                        "log({x}, {base}) is undefined: the base must be positive and not 1"
                    )));
                }
                Some(&base) => x.log(base),
                None => x.log10(),
            },
            "log2" => x.log2(),
            "log10" => x.log10(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" => x.atan(),
            "atan2" => x.atan2(args[1]),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "tanh" => x.tanh(),
            "floor" => x.floor(),
            "ceil" => x.ceil(),
            "round" => x.round(),
            "trunc" => x.trunc(),
            "sign" => {
                if x == 0.0 {
                    0.0
                } else {
                    x.signum()
                }
            }
            "pow" => power(x, args[1])?,
            "hypot" => x.hypot(args[1]),
            "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
            "max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => return Err(CalcError::new(format!("{name} is not implemented"))),
        };
        let shown: Vec<String> = args.iter().map(f64::to_string).collect();
        finite(value, || format!("{name}({})", shown.join(", ")))
    }

    /// The argument list of a call: `f(a, b)` has a tuple under its
    /// parentheses, `f(a)` a single value, `f()` nothing.
    fn arguments(&self, children: &[Tree]) -> Result<Vec<f64>, CalcError> {
        let node = match children {
            [single] => single,
            [] => return Ok(Vec::new()),
            _ => return Err(CalcError::new("unexpected function arguments")),
        };
        let inner = if matches!(node.operator(), Operator::RootNode) {
            match node.children() {
                [] => return Ok(Vec::new()),
                [one] => one,
                _ => return Err(CalcError::new("unexpected function arguments")),
            }
        } else {
            node
        };
        if matches!(inner.operator(), Operator::Tuple) {
            inner.children().iter().map(|arg| self.eval(arg)).collect()
        } else {
            Ok(vec![self.eval(inner)?])
        }
    }

    fn operands<'n, const N: usize>(
        &self,
        node: &'n Tree,
        symbol: &str,
    ) -> Result<[&'n Tree; N], CalcError> {
        let children: Vec<&Tree> = node.children().iter().collect();
        children.try_into().map_err(|_| {
            let message = format!("the operator {symbol} is missing an operand");
            match find_token(self.source, symbol) {
                Some(position) => CalcError::at(message, position),
                None => CalcError::new(message),
            }
        })
    }

    fn binary(
        &self,
        node: &Tree,
        symbol: &str,
        apply: impl Fn(f64, f64) -> Result<f64, CalcError>,
    ) -> Result<f64, CalcError> {
        let [left, right] = self.operands::<2>(node, symbol)?;
        let (a, b) = (self.eval(left)?, self.eval(right)?);
        let value = apply(a, b)?;
        finite(value, || format!("{a} {symbol} {b}"))
    }

    /// `^` chains. `evalexpr` groups `a ^ b ^ c` as `(a ^ b) ^ c`; arithmetic
    /// groups it as `a ^ (b ^ c)`. A parenthesised base stays a separate
    /// node (a root node), so only the unparenthesised chain is regrouped.
    /// A negated exponent inside the chain binds looser than `^`, as in
    /// `2 ^ -3 ^ 2` = `2 ^ -(3 ^ 2)`.
    fn power_chain(&self, node: &Tree) -> Result<f64, CalcError> {
        let mut chain = Vec::new();
        let mut current = node;
        loop {
            let [base, exponent] = self.operands::<2>(current, "^")?;
            chain.push(exponent);
            if matches!(base.operator(), Operator::Exp) {
                current = base;
            } else {
                chain.push(base);
                break;
            }
        }
        // `chain` is [last exponent, ..., first exponent, base].
        let mut iter = chain.into_iter();
        let mut acc = match iter.next() {
            Some(last) => self.eval(last)?,
            None => return Err(CalcError::new("the operator ^ is missing an operand")),
        };
        for element in iter {
            acc = self.raise(element, acc)?;
        }
        Ok(acc)
    }

    fn raise(&self, base: &Tree, exponent: f64) -> Result<f64, CalcError> {
        if matches!(base.operator(), Operator::Neg) {
            let [inner] = self.operands::<1>(base, "-")?;
            return Ok(-self.raise(inner, exponent)?);
        }
        power(self.eval(base)?, exponent)
    }
}

fn power(base: f64, exponent: f64) -> Result<f64, CalcError> {
    if base == 0.0 && exponent < 0.0 {
        return Err(CalcError::new(format!(
            "division by zero in {base} ^ {exponent}"
        )));
    }
    finite(base.powf(exponent), || format!("{base} ^ {exponent}"))
}

fn describe(operator: &Operator<DefaultNumericTypes>) -> &'static str {
    use Operator as Op;
    match operator {
        Op::And | Op::Or | Op::Not => "logic (&&, ||, !)",
        _ => "comparison (==, !=, <, >, <=, >=)",
    }
}

fn suggest<'a>(input: &str, names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|name| (strsim::jaro_winkler(input, name), name))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| format!(" (did you mean {name:?}?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(expression: &str) -> f64 {
        evaluate(expression).unwrap_or_else(|error| panic!("{expression}: {error}"))
    }

    fn fails(expression: &str) -> CalcError {
        match evaluate(expression) {
            Ok(value) => panic!("{expression} evaluated to {value}"),
            Err(error) => error,
        }
    }

    #[test]
    fn arithmetic_follows_the_usual_rules() {
        assert_eq!(eval("1 + 2 * 3"), 7.0);
        assert_eq!(eval("(1 + 2) * 3"), 9.0);
        assert_eq!(eval("7 / 2"), 3.5);
        assert_eq!(eval("7 % 4"), 3.0);
        assert_eq!(eval("2^3^2"), 512.0);
        assert_eq!(eval("(2^3)^2"), 64.0);
        assert_eq!(eval("-2^2"), -4.0);
        assert_eq!(eval("2^-1"), 0.5);
        assert_eq!(eval("2^-3^2"), 2f64.powf(-9.0));
        assert_eq!(eval("4 - -2"), 6.0);
        assert_eq!(eval("1e3 + .5"), 1000.5);
    }

    #[test]
    fn functions_and_constants() {
        assert_eq!(eval("sqrt(16)"), 4.0);
        assert!((eval("sin(pi / 2)") - 1.0).abs() < 1e-12);
        assert!((eval("cos(0)") - 1.0).abs() < 1e-12);
        assert!((eval("ln(e)") - 1.0).abs() < 1e-12);
        assert_eq!(eval("log(1000)"), 3.0);
        assert!((eval("log(8, 2)") - 3.0).abs() < 1e-12);
        assert_eq!(eval("abs(-3.5)"), 3.5);
        assert_eq!(eval("min(4, 2, 8)"), 2.0);
        assert_eq!(eval("max(4, 2, 8)"), 8.0);
        assert_eq!(eval("max(3)"), 3.0);
        assert_eq!(eval("pow(2, 10)"), 1024.0);
        assert_eq!(eval("hypot(3, 4)"), 5.0);
        assert_eq!(eval("sqrt(16)^2"), 16.0);
        assert_eq!(
            eval("round(2.5) + floor(-1.5) + ceil(1.2)"),
            3.0 - 2.0 + 2.0
        );
    }

    #[test]
    fn division_by_zero_is_an_error() {
        assert!(fails("1 / 0").message.contains("division by zero"));
        assert!(fails("1 / (2 - 2)").message.contains("division by zero"));
        assert!(fails("5 % 0").message.contains("division by zero"));
        assert!(fails("0 ^ -1").message.contains("division by zero"));
    }

    #[test]
    fn non_finite_results_are_errors() {
        assert!(fails("10 ^ 400").message.contains("overflows"));
        assert!(fails("exp(1000)").message.contains("overflows"));
        assert!(fails("1e400").message.contains("overflows"));
        assert!(fails("sqrt(-1)").message.contains("not a real number"));
        assert!(fails("ln(0)").message.contains("must be positive"));
        assert!(fails("asin(2)").message.contains("not a real number"));
    }

    #[test]
    fn syntax_errors_carry_a_position_where_known() {
        let error = fails("(1 + 2");
        assert_eq!(error.position, Some(1));
        assert!(error.message.contains("never closed"));
        let error = fails("1 + 2)");
        assert_eq!(error.position, Some(6));
        let error = fails("2 * foo(3)");
        assert_eq!(error.position, Some(5));
        assert!(error.message.contains("unknown function \"foo\""));
        let error = fails("sqr(4)");
        assert!(error.message.contains("did you mean \"sqrt\"?"), "{error}");
        let error = fails("1 + x");
        assert_eq!(error.position, Some(5));
        assert!(error.message.contains("no variables"));
        assert!(fails("1 +").message.contains("missing an operand"));
        assert!(fails("2 ** 3").message.contains("missing an operand"));
        assert!(fails("2(3)").message.contains("write the operator"));
        assert!(fails("3 4").message.contains("without an operator"));
        assert!(fails("").message.contains("empty"));
        assert!(fails("()").message.contains("empty parentheses"));
    }

    #[test]
    fn only_arithmetic_is_accepted() {
        assert!(fails("a = 3").message.contains("no variables"));
        assert!(fails("1; 2").message.contains("one expression"));
        assert!(fails("1 < 2").message.contains("arithmetic only"));
        assert!(fails("true").message.contains("not numbers"));
        assert!(fails("\"text\"").message.contains("not arithmetic"));
        assert!(fails("1, 2").message.contains("comma"));
        assert!(fails("sqrt").message.contains("is a function"));
        assert!(fails("sqrt(1, 2)").message.contains("takes 1 argument"));
        assert!(fails("min()").message.contains("at least 1"));
    }

    #[test]
    fn long_chains_are_limited() {
        let long = vec!["1"; 400].join("+");
        assert_eq!(eval(&long), 400.0);
        let too_long = vec!["1"; 2000].join("+");
        assert!(fails(&too_long).message.contains("nested operations"));
    }

    #[test]
    fn nesting_is_limited() {
        let deep = format!("{}1{}", "(".repeat(65), ")".repeat(65));
        let error = fails(&deep);
        assert_eq!(error.position, Some(65));
        let fine = format!("{}1{}", "(".repeat(64), ")".repeat(64));
        assert_eq!(eval(&fine), 1.0);
    }
}
