//! Input quoted back in messages: escaped, and bounded in length and in the
//! work it takes.
//!
//! A tool name, an argument key or a value a model sent may hold terminal
//! escape sequences, or be megabytes long. Whatever a message repeats of it
//! goes through here: control characters are shown escaped (`\u{1b}`),
//! names are cut at [`MAX_NAME`] characters and values at [`MAX_VALUE`],
//! with `…` where something was cut, and building the text reads no more of
//! the input than it shows.
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::__private::quote;
//!
//! assert_eq!(quote::name("calc\u{1b}[31m"), "calc\\u{1b}[31m");
//! assert_eq!(quote::name(&"n".repeat(100)).chars().count(), quote::MAX_NAME + 1);
//! assert_eq!(quote::value(&json!({"a": [1, "b"]})), r#"{"a":[1,"b"]}"#);
//! assert!(quote::value(&json!("x".repeat(1 << 20))).ends_with('…'));
//! ```

use serde_json::Value;

/// The most characters of a name (a tool name, an argument key) a message
/// repeats.
pub const MAX_NAME: usize = 64;

/// The most characters of a value's JSON text a message repeats.
pub const MAX_VALUE: usize = 60;

/// A name as a message shows it, without quotes: control characters
/// escaped, cut at [`MAX_NAME`] characters.
pub fn name(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    for c in chars.by_ref().take(MAX_NAME) {
        push_escaped(&mut out, c);
    }
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// Text with its control characters escaped, whole.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}')
}

fn push_escaped(out: &mut String, c: char) {
    if needs_escape(c) {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    } else {
        out.push(c);
    }
}

/// A value's JSON text as a message shows it, cut after [`MAX_VALUE`]
/// characters with `…`. The work is bounded by what is shown: a string of
/// megabytes costs no more than a short one.
pub fn value(value: &Value) -> String {
    let mut out = Bounded::new(MAX_VALUE);
    write_value(&mut out, value);
    out.finish()
}

/// Output that stops taking characters once it is full.
struct Bounded {
    out: String,
    room: usize,
    cut: bool,
}

impl Bounded {
    fn new(room: usize) -> Self {
        Self {
            out: String::new(),
            room,
            cut: false,
        }
    }

    fn full(&self) -> bool {
        self.cut
    }

    fn push(&mut self, c: char) {
        if self.room == 0 {
            self.cut = true;
        } else {
            self.room -= 1;
            self.out.push(c);
        }
    }

    fn push_str(&mut self, text: &str) {
        for c in text.chars() {
            if self.full() {
                return;
            }
            self.push(c);
        }
    }

    /// A JSON string literal, escaped as JSON escapes it.
    fn string(&mut self, text: &str) {
        self.push('"');
        for c in text.chars() {
            if self.full() {
                return;
            }
            match c {
                '"' => self.push_str("\\\""),
                '\\' => self.push_str("\\\\"),
                '\n' => self.push_str("\\n"),
                '\r' => self.push_str("\\r"),
                '\t' => self.push_str("\\t"),
                c if needs_escape(c) => self.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.push(c),
            }
        }
        self.push('"');
    }

    fn finish(mut self) -> String {
        if self.cut {
            self.out.push('…');
        }
        self.out
    }
}

/// Where the walk is inside a container.
enum Frame<'a> {
    Array(std::slice::Iter<'a, Value>, bool),
    Object(serde_json::map::Iter<'a>, bool),
}

/// Writes `value` as compact JSON until `out` is full, without recursion.
fn write_value(out: &mut Bounded, value: &Value) {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if out.full() {
            return;
        }
        if let Some(value) = next.take() {
            match value {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) => out.push_str(&n.to_string()),
                Value::String(s) => out.string(s),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Frame::Array(items.iter(), true));
                }
                Value::Object(members) => {
                    out.push('{');
                    stack.push(Frame::Object(members.iter(), true));
                }
            }
            continue;
        }
        let Some(frame) = stack.last_mut() else {
            return;
        };
        match frame {
            Frame::Array(items, first) => match items.next() {
                Some(item) => {
                    if !std::mem::take(first) {
                        out.push(',');
                    }
                    next = Some(item);
                }
                None => {
                    out.push(']');
                    stack.pop();
                }
            },
            Frame::Object(members, first) => match members.next() {
                Some((key, item)) => {
                    if !std::mem::take(first) {
                        out.push(',');
                    }
                    out.string(key);
                    out.push(':');
                    next = Some(item);
                }
                None => {
                    out.push('}');
                    stack.pop();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_escaped_and_cut() {
        assert_eq!(name("calc\u{1b}[31mulator"), "calc\\u{1b}[31mulator");
        let long = "x".repeat(1_000_000);
        let shown = name(&long);
        assert_eq!(shown.chars().count(), MAX_NAME + 1);
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn values_are_json_cut_short() {
        assert_eq!(value(&json!("three")), r#""three""#);
        assert_eq!(
            value(&json!({"a": [1, 2], "b": null})),
            r#"{"a":[1,2],"b":null}"#
        );
        assert_eq!(value(&json!("a\u{1b}b")), r#""a\u001bb""#);
        let big = Value::String("y".repeat(4 << 20));
        let shown = value(&big);
        assert_eq!(shown.chars().count(), MAX_VALUE + 1);
        assert!(shown.starts_with("\"yyy") && shown.ends_with('…'));
        let wide = Value::Array(vec![json!(1); 1_000_000]);
        assert!(value(&wide).ends_with('…'));
    }

    #[test]
    fn deep_values_are_walked_without_recursion() {
        let mut deep = json!(0);
        for _ in 0..200_000 {
            deep = Value::Array(vec![deep]);
        }
        assert!(value(&deep).starts_with("[[[["));
        crate::spec::args::dismantle(deep);
    }
}
