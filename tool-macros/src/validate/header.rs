//! Header parameters (`#[tool(header)]`): the types and names MCP allows.

use super::constraints::TypeKind;
use super::types::{first_reference, type_text};
use crate::errors::Errors;
use crate::model::{ArgParam, Header, Param, ToolFn};

/// `#[tool(header)]`: MCP allows header parameters of a string, integer or
/// boolean type only, each named with an HTTP token. The type is judged as
/// written: `String`, `bool`, the integer types, or an `Option` of one.
/// Anything else (a struct, an enum, a type alias, a float) is refused,
/// since the schema it stands for cannot be seen from here.
pub(super) fn header(param: &Param, arg: &ArgParam, header: &Header, errors: &mut Errors) {
    let at = param
        .key_span("header")
        .unwrap_or_else(|| header.name.span());
    let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
    let rust_name = &arg.rust_name;
    // A borrowed type is reported on its own (`owned_param_type`).
    if first_reference(&param.ty).is_none() {
        let written = type_text(ty);
        let problem = match TypeKind::of(ty) {
            TypeKind::Integer | TypeKind::Text | TypeKind::Bool => None,
            TypeKind::Float => Some(format!(
                "`header` cannot go on `{rust_name}`, a floating-point number (`{written}`): MCP \
                 allows header parameters of type string, integer or boolean only. Take an \
                 integer (in a smaller unit) or a `String`, or remove `header`"
            )),
            kind @ (TypeKind::List | TypeKind::Map) => Some(format!(
                "`header` cannot go on `{rust_name}`, {} (`{written}`): a header carries one \
                 string, integer or boolean. Remove `header`, or give the value to send as a \
                 header a parameter of its own (`String`, an integer type or `bool`)",
                kind.noun()
            )),
            TypeKind::Unknown => Some(format!(
                "`header` needs a parameter whose type is written as `String`, `bool` or an \
                 integer type (`u32`, `i64`, ...), or an `Option` of one, and `{rust_name}` is \
                 `{written}`: MCP allows header parameters of type string, integer or boolean \
                 only, and the macro cannot see what another type (a struct, an enum, a type \
                 alias) stands for. Write the primitive type, such as `{rust_name}: String`, or \
                 remove `header`"
            )),
        };
        if let Some(problem) = problem {
            errors.push(at, problem);
            return;
        }
    }
    let name = header.name.as_str();
    if header.written {
        let prefix = "Mcp-Param-";
        if name.len() > prefix.len()
            && name.is_char_boundary(prefix.len())
            && name[..prefix.len()].eq_ignore_ascii_case(prefix)
        {
            errors.push(
                header.name.span(),
                format!(
                    "write the header's name without `{prefix}`, which the client adds: \
                     header = \"{}\"",
                    &name[prefix.len()..]
                ),
            );
        } else if let Some(problem) = header_name_problem(name) {
            errors.push(
                header.name.span(),
                format!(
                    "invalid header name \"{name}\": {problem}. A header name is letters, \
                     digits and `-` (or any of !#$%&'*+.^_`|~), as in header = \"Region\""
                ),
            );
        }
    } else if let Some(problem) = header_name_problem(name) {
        errors.push(
            at,
            format!(
                "the header name made from `{}` is not a valid HTTP header name \
                 ({problem}); name the header: header = \"Name\"",
                arg.name.as_str()
            ),
        );
    }
}

/// What keeps `name` from being an HTTP token (RFC 9110's `1*tchar`).
pub(super) fn header_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(*c)))
        .map(|c| format!("{c:?} is not allowed"))
}

/// No two header parameters of a tool may share a header, ignoring case.
pub(super) fn unique_headers(tool: &ToolFn, errors: &mut Errors) {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (_, param, arg) in tool.args() {
        let Some(header) = &arg.header else {
            continue;
        };
        let lower = header.name.to_ascii_lowercase();
        match seen.iter().find(|(name, _)| *name == lower) {
            Some((_, other)) => errors.push(
                if header.written {
                    header.name.span()
                } else {
                    param
                        .key_span("header")
                        .unwrap_or_else(|| header.name.span())
                },
                format!(
                    "`{}` also sends the header Mcp-Param-{} (header names are compared \
                     ignoring case); give this one another name: header = \"...\"",
                    other,
                    header.name.as_str()
                ),
            ),
            None => seen.push((lower, &arg.rust_name)),
        }
    }
}
