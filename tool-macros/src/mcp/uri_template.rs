//! The URI template grammar of tool-mcp's `UriTemplate::parse`, checked at
//! compile time: what it accepts and refuses, with the same reasons (a
//! test in tool-mcp's `tests/content/macros.rs` reads the same list of
//! templates through both).

/// A template's variables, each with whether a URI may leave it out
/// (`{?a,b}`).
pub struct Variables(pub Vec<(String, bool)>);

/// Reads `template`: its variables, or why it is refused.
pub fn parse(template: &str) -> Result<Variables, &'static str> {
    #[derive(PartialEq)]
    enum Last {
        None,
        Literal,
        Variable,
        Query,
    }
    let mut names: Vec<(String, bool)> = Vec::new();
    let mut last = Last::None;
    let mut first_literal: Option<&str> = None;
    let mut rest = template;
    while !rest.is_empty() {
        if last == Last::Query {
            return Err("`{?...}` must come last");
        }
        if let Some(expression) = rest.strip_prefix('{') {
            let end = expression.find('}').ok_or("a `{` is not closed")?;
            let (body, after) = (&expression[..end], &expression[end + 1..]);
            if last == Last::Variable {
                return Err("two variables need literal text between them");
            }
            let (new_names, optional, next) = match body.chars().next() {
                Some('+') => (vec![&body[1..]], false, Last::Variable),
                Some('?') => (body[1..].split(',').collect(), true, Last::Query),
                _ => (vec![body], false, Last::Variable),
            };
            for name in new_names {
                if !valid_name(name) {
                    return Err(
                        "a variable is `{name}`, `{+name}` or `{?a,b}`, names of letters, \
                         digits, `_` and `.`",
                    );
                }
                if names.iter().any(|(known, _)| known == name) {
                    return Err("a variable's name appears twice");
                }
                names.push((name.to_owned(), optional));
            }
            if last == Last::None {
                first_literal = Some("");
            }
            last = next;
            rest = after;
        } else {
            let end = rest.find(['{', '}']).unwrap_or(rest.len());
            if end == 0 {
                return Err("a `}` is not opened");
            }
            if last == Last::None {
                first_literal = Some(&rest[..end]);
            }
            last = Last::Literal;
            rest = &rest[end..];
        }
    }
    if !first_literal.is_some_and(has_scheme) {
        return Err("it must start with the URI's scheme, as `scheme://`");
    }
    Ok(Variables(names))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// Whether `text` starts with a URI scheme and its colon (RFC 3986:
/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`).
pub fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_variables_and_refuses_what_the_runtime_refuses() {
        let vars = parse("test://template/{id}/data{?q,page}").unwrap();
        assert_eq!(
            vars.0,
            [
                ("id".to_owned(), false),
                ("q".to_owned(), true),
                ("page".to_owned(), true)
            ]
        );
        assert!(parse("file:///{+path}").is_ok());
        assert!(parse("test://static-text").is_ok());
        for (bad, reason) in [
            ("{id}/data", "scheme"),
            ("no-scheme/{id}", "scheme"),
            ("test://{a}{b}", "literal text between"),
            ("test://{a}/{a}", "twice"),
            ("test://{a", "not closed"),
            ("test://a}", "not opened"),
            ("test://{#frag}", "names of letters"),
            ("test://{?q}/more", "last"),
        ] {
            let error = parse(bad).err().unwrap_or_else(|| panic!("{bad} parsed"));
            assert!(error.contains(reason), "{bad}: {error}");
        }
    }
}
