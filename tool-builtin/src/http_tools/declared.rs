//! The `http_tools` section: each entry one tool that makes one HTTP
//! request from a URL template, query parameters, headers and a JSON body.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use tool_manifest::pointer_token;
use ureq::http;

use super::template::{Env, JsonTemplate, Part, Template, valid_parameter_name};
use super::{
    Body, Context, Endpoint, HttpToolEntry, LIMIT_KEYS, Loaded, LoadedTool, Problems, QueryParam,
    ToolShape, guard_for, limits, make_tool, read_env,
};

/// The keys an entry may have.
const KEYS: [&str; 9] = [
    "name",
    "description",
    "title",
    "method",
    "url",
    "parameters",
    "query",
    "headers",
    "body",
];

/// The types a parameter of the short form may have.
const TYPES: [&str; 6] = ["string", "integer", "number", "boolean", "array", "object"];

/// Reads one entry into a tool, or into problems.
pub(super) fn load(context: &Context<'_>, entry: &HttpToolEntry, loaded: &mut Loaded) {
    let mut problems = Problems {
        manifest: context.manifest,
        pointer: entry.pointer.clone(),
        prefix: format!(
            "HTTP tool \"{}\": ",
            tool_runtime::__private::quote::name(&entry.name)
        ),
        at: entry.location,
        list: Vec::new(),
    };
    let definition = &entry.definition;
    let known: Vec<&str> = KEYS.iter().chain(LIMIT_KEYS.iter()).copied().collect();
    problems.unknown_keys(
        definition,
        &known,
        "an HTTP tool has `name`, `description`, `url`, and optionally `title`, `method`, `parameters`, `query`, `headers`, `body` and limits (`timeout_ms`, ...)",
    );
    let name = entry.name.clone();
    check_name(&name, &mut problems);
    let description = description(definition, &mut problems);
    let title = title(definition, &mut problems);
    let method = method(definition, &mut problems);

    let (schema, declared) = parameters(definition.get("parameters"), &mut problems);
    let (template, url) = url_template(definition.get("url"), &mut problems);
    let query = query(definition.get("query"), &mut problems);
    let headers = headers(definition.get("headers"), &mut problems);
    let body = body(definition.get("body"), &mut problems);

    // Every placeholder names a parameter; every parameter is used.
    let body_templates = body
        .as_ref()
        .map(JsonTemplate::templates)
        .unwrap_or_default();
    let placed = placed(template.as_ref(), &query, &headers, &body_templates);
    let used = check_placeholders(&placed, &declared, &mut problems);
    if let Some(template) = &template {
        check_path_parameters(template, &declared, &mut problems);
    }
    check_unused(&declared, &used, &mut problems);

    let mut env = Env::default();
    read_env(
        context,
        placed.iter().filter(|(key, _)| key != "url").cloned(),
        &mut env,
        &mut problems,
    );
    check_header_values(&headers, &env, &mut problems);
    let config = limits(definition, &mut problems);
    let guard = url
        .as_ref()
        .and_then(|parsed| match guard_for(parsed, config) {
            Ok(guard) => Some(guard),
            Err(message) => {
                problems.at_value("url", message);
                None
            }
        });

    let name_at = problems.value_location("name");
    let problems_found = !problems.list.is_empty();
    loaded.problems.append(&mut problems.list);
    let (Some(url), Some(parsed), Some(guard)) = (template, url, guard) else {
        return;
    };
    if problems_found {
        return;
    }
    let host = match parsed.port() {
        Some(port) => format!("{}:{port}", parsed.host_str().unwrap_or_default()),
        None => parsed.host_str().unwrap_or_default().to_owned(),
    };
    let shown_url = url.as_written();
    let defaults: Map<String, Value> = declared
        .iter()
        .filter_map(|d| Some((d.name.clone(), d.default.clone()?)))
        .collect();
    let endpoint = Endpoint {
        shown: format!("{method} {shown_url}"),
        method,
        url,
        query,
        headers,
        body: body.map_or(Body::None, Body::Json),
        defaults,
        env,
        guard,
        has_output_schema: false,
    };
    let shape = ToolShape {
        name: name.clone(),
        description,
        title,
        input_schema: schema,
        output_schema: None,
    };
    match make_tool(shape, endpoint) {
        Ok(tool) => loaded.tools.push(LoadedTool {
            tool,
            origin: format!("http:{host}"),
            target: parsed.origin().ascii_serialization(),
            location: name_at,
        }),
        Err(message) => loaded.problems.push(tool_manifest::ManifestProblem {
            location: Some(entry.location),
            message: format!("HTTP tool \"{name}\": {message}"),
        }),
    }
}

/// A tool's name is 1 to 64 letters, digits, `_` or `-`.
fn check_name(name: &str, problems: &mut Problems<'_>) {
    if name.is_empty()
        || name.len() > 64
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        problems.at_value(
            "name",
            "a tool's name is 1 to 64 letters, digits, `_` or `-`",
        );
    }
}

/// The entry's `description`, which it must have.
fn description(definition: &Value, problems: &mut Problems<'_>) -> String {
    match definition.get("description") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.trim().to_owned(),
        Some(_) => {
            problems.at_value(
                "description",
                "`description` is text that tells the model what the tool does",
            );
            String::new()
        }
        None => {
            problems.at_key(
                "name",
                "missing `description`: tell the model what the tool does",
            );
            String::new()
        }
    }
}

/// The entry's `title`, if any.
fn title(definition: &Value, problems: &mut Problems<'_>) -> Option<String> {
    match definition.get("title") {
        None => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(_) => {
            problems.at_value("title", "`title` is text");
            None
        }
    }
}

/// The entry's `method`: GET unless it says otherwise.
fn method(definition: &Value, problems: &mut Problems<'_>) -> http::Method {
    match definition.get("method") {
        None => http::Method::GET,
        Some(Value::String(text)) => match text.to_ascii_uppercase().as_str() {
            "GET" => http::Method::GET,
            "POST" => http::Method::POST,
            "PUT" => http::Method::PUT,
            "PATCH" => http::Method::PATCH,
            "DELETE" => http::Method::DELETE,
            _ => {
                problems.at_value(
                    "method",
                    format!("unknown method {text:?}; use GET, POST, PUT, PATCH or DELETE"),
                );
                http::Method::GET
            }
        },
        Some(_) => {
            problems.at_value("method", "`method` is GET, POST, PUT, PATCH or DELETE");
            http::Method::GET
        }
    }
}

/// The entry's `body`: a JSON template, if any.
fn body(value: Option<&Value>, problems: &mut Problems<'_>) -> Option<JsonTemplate> {
    match value {
        None => None,
        Some(value) => match JsonTemplate::parse(value) {
            Ok(template) => Some(template),
            Err(bad) => {
                for (at, message) in bad {
                    problems.at_value(&format!("body{at}"), message);
                }
                None
            }
        },
    }
}

/// Every template of the entry, with the key it is written at: the URL,
/// the query's, the headers' and the body's.
fn placed<'a>(
    url: Option<&'a Template>,
    query: &'a [QueryParam],
    headers: &'a [(String, Template)],
    body: &'a [Template],
) -> Vec<(String, &'a Template)> {
    let mut placed: Vec<(String, &Template)> = Vec::new();
    if let Some(template) = url {
        placed.push(("url".into(), template));
    }
    for param in query {
        placed.push((
            format!("query/{}", pointer_token(&param.name)),
            &param.value,
        ));
    }
    for (header, template) in headers {
        placed.push((format!("headers/{}", pointer_token(header)), template));
    }
    for template in body {
        placed.push(("body".into(), template));
    }
    placed
}

/// A problem for each placeholder that names no declared parameter; the
/// names of the parameters the placeholders use.
fn check_placeholders(
    placed: &[(String, &Template)],
    declared: &[Declared],
    problems: &mut Problems<'_>,
) -> BTreeSet<String> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (key, template) in placed {
        for param in template.params() {
            used.insert(param.to_owned());
            if !declared.iter().any(|d| d.name == param) {
                let suggestion = tool_runtime::__private::names::closest(
                    param,
                    declared.iter().map(|d| d.name.as_str()),
                )
                .map(|s| format!("did you mean {{{s}}}? "))
                .unwrap_or_default();
                let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
                let list = if names.is_empty() {
                    "no parameters are declared".to_owned()
                } else {
                    format!("the parameters are: {}", names.join(", "))
                };
                let place = key.split('/').next().unwrap_or(key);
                problems.at_value(
                    key,
                    format!("unknown placeholder {{{param}}} in `{place}`; {suggestion}{list}"),
                );
            }
        }
    }
    used
}

/// A parameter in the URL's path must be given: required, or with a
/// default.
fn check_path_parameters(url: &Template, declared: &[Declared], problems: &mut Problems<'_>) {
    for param in url.params() {
        if let Some(d) = declared.iter().find(|d| d.name == param)
            && !d.required
            && d.default.is_none()
        {
            problems.push(
                d.at,
                format!("parameter \"{param}\" is in the URL's path, so it must be `required: true` (or have a `default`)"),
            );
        }
    }
}

/// A problem for each declared parameter no placeholder uses.
fn check_unused(declared: &[Declared], used: &BTreeSet<String>, problems: &mut Problems<'_>) {
    for d in declared {
        if !used.contains(&d.name) {
            problems.push(
                d.at,
                format!(
                    "parameter \"{}\" is used nowhere: put {{{}}} in `url`, `query`, `headers` or `body`, or remove it",
                    d.name, d.name
                ),
            );
        }
    }
}

/// A header whose value is known now (text and `${VAR}`s) is checked now;
/// its value is not shown.
fn check_header_values(headers: &[(String, Template)], env: &Env, problems: &mut Problems<'_>) {
    for (header, template) in headers {
        if template.params().next().is_none() {
            let value = template
                .render(&Map::new(), env, str::to_owned)
                .unwrap_or_default();
            if http::HeaderValue::from_str(&value).is_err() {
                let from: Vec<String> = template.envs().map(|e| format!("${{{e}}}")).collect();
                let source = if from.is_empty() {
                    String::new()
                } else {
                    format!(" (its value comes from {})", from.join(", "))
                };
                problems.at_value(
                    &format!("headers/{}", pointer_token(header)),
                    format!("the value of header \"{header}\" is not a valid header value{source}: no line breaks or control characters"),
                );
            }
        }
    }
}

/// A declared parameter.
struct Declared {
    name: String,
    required: bool,
    default: Option<Value>,
    at: tool_manifest::Location,
}

/// The input schema and the parameters it declares, from `parameters`: a
/// list of `name: {type, description, required, default, enum, items}`
/// (or `name: type`), or a JSON Schema of an object.
fn parameters(value: Option<&Value>, problems: &mut Problems<'_>) -> (Value, Vec<Declared>) {
    let mut declared: Vec<Declared> = Vec::new();
    match value {
        None => (
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            declared,
        ),
        Some(Value::Object(schema)) => {
            if schema.get("type") != Some(&json!("object")) {
                problems.at_value(
                    "parameters",
                    "`parameters` as a mapping is a JSON Schema with \"type\": \"object\"; for the short form write a list (`- id: {type: string, required: true}`)",
                );
            }
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, property) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let key = format!("parameters/properties/{}", pointer_token(name));
                if !valid_parameter_name(name) {
                    problems.at_key(&key, format!("parameter name {name:?} is not 1 to 64 letters, digits, `_`, `-` or `.`"));
                }
                declared.push(Declared {
                    name: name.clone(),
                    required: required.contains(&name.as_str()),
                    default: property.get("default").cloned(),
                    at: problems
                        .manifest
                        .key_location_of(&format!("{}/{key}", problems.pointer))
                        .unwrap_or(problems.at),
                });
            }
            (Value::Object(schema.clone()), declared)
        }
        Some(Value::Array(items)) => {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let Some((name, spec)) = item
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.iter().next())
                else {
                    problems.at_value(
                        &format!("parameters/{index}"),
                        "each parameter is `name: {type, description, required, default}` (or `name: type`)",
                    );
                    continue;
                };
                let key = format!("parameters/{index}/{}", pointer_token(name));
                let at = problems
                    .manifest
                    .key_location_of(&format!("{}/{key}", problems.pointer))
                    .unwrap_or(problems.at);
                if !valid_parameter_name(name) {
                    problems.push(at, format!("parameter name {name:?} is not 1 to 64 letters, digits, `_`, `-` or `.`"));
                    continue;
                }
                if let Some(first) = declared.iter().find(|d| d.name == *name) {
                    let line = first.at.line;
                    problems.push(at, format!("parameter \"{name}\" is named twice (first at line {line}); remove or rename one"));
                    continue;
                }
                let (property, is_required) = short_parameter(spec, &key, problems);
                if is_required {
                    required.push(Value::String(name.clone()));
                }
                declared.push(Declared {
                    name: name.clone(),
                    required: is_required,
                    default: property.get("default").cloned(),
                    at,
                });
                properties.insert(name.clone(), property);
            }
            let mut schema = json!({"type": "object", "properties": properties});
            if !required.is_empty() {
                schema["required"] = Value::Array(required);
            }
            schema["additionalProperties"] = json!(false);
            (schema, declared)
        }
        Some(_) => {
            problems.at_value(
                "parameters",
                "`parameters` is a list (`- id: {type: string, required: true}`) or a JSON Schema",
            );
            (json!({"type": "object"}), declared)
        }
    }
}

/// One parameter of the short form, as a property's schema, and whether
/// it is required.
fn short_parameter(spec: &Value, key: &str, problems: &mut Problems<'_>) -> (Value, bool) {
    let spec = match spec {
        Value::String(kind) => json!({"type": kind}),
        Value::Null => json!({}),
        other => other.clone(),
    };
    let Some(fields) = spec.as_object() else {
        problems.at_value(
            key,
            "a parameter is `{type, description, required, default, enum, items}` or a type's name",
        );
        return (json!({}), false);
    };
    let known = [
        "type",
        "description",
        "required",
        "default",
        "enum",
        "items",
    ];
    for field in fields.keys() {
        if !known.contains(&field.as_str()) {
            let suggestion = tool_runtime::__private::names::closest(field, known.into_iter())
                .map(|s| format!("did you mean `{s}`? "))
                .unwrap_or_default();
            problems.at_key(
                &format!("{key}/{}", pointer_token(field)),
                format!("unknown key `{field}`; {suggestion}a parameter has `type`, `description`, `required`, `default`, `enum` and `items`"),
            );
        }
    }
    let kind = fields
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    if !TYPES.contains(&kind) {
        problems.at_value(
            &format!("{key}/type"),
            format!("unknown type {kind:?}; use one of {}", TYPES.join(", ")),
        );
    }
    let mut property = json!({"type": kind});
    if let Some(description) = fields.get("description") {
        match description.as_str() {
            Some(text) => property["description"] = json!(text),
            None => problems.at_value(&format!("{key}/description"), "`description` is text"),
        }
    }
    if let Some(values) = fields.get("enum") {
        match values.as_array() {
            Some(values) if !values.is_empty() => property["enum"] = json!(values),
            _ => problems.at_value(
                &format!("{key}/enum"),
                "`enum` is a list of the values allowed",
            ),
        }
    }
    if kind == "array" {
        let items = fields
            .get("items")
            .and_then(Value::as_str)
            .unwrap_or("string");
        if !TYPES.contains(&items) {
            problems.at_value(
                &format!("{key}/items"),
                format!("unknown type {items:?}; use one of {}", TYPES.join(", ")),
            );
        }
        property["items"] = json!({"type": items});
    } else if fields.contains_key("items") {
        problems.at_key(
            &format!("{key}/items"),
            "`items` is for a parameter of type array",
        );
    }
    if let Some(default) = fields.get("default") {
        let fits = match (kind, default) {
            ("string", Value::String(_))
            | ("boolean", Value::Bool(_))
            | ("array", Value::Array(_))
            | ("object", Value::Object(_)) => true,
            ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
            ("number", Value::Number(_)) => true,
            _ => false,
        };
        if fits {
            property["default"] = default.clone();
        } else {
            problems.at_value(
                &format!("{key}/default"),
                format!("the default is not of type {kind}"),
            );
        }
    }
    let required = match fields.get("required") {
        None => false,
        Some(Value::Bool(required)) => *required,
        Some(_) => {
            problems.at_value(&format!("{key}/required"), "`required` is true or false");
            false
        }
    };
    (property, required)
}

/// The URL template (when it reads as one), and the URL it makes with
/// every placeholder filled (when that is a URL a tool may call).
fn url_template(
    value: Option<&Value>,
    problems: &mut Problems<'_>,
) -> (Option<Template>, Option<url::Url>) {
    let template = url_text(value, problems);
    let url = template
        .as_ref()
        .and_then(|template| checked_url(template, problems));
    (template, url)
}

/// The `url` key read as a template.
fn url_text(value: Option<&Value>, problems: &mut Problems<'_>) -> Option<Template> {
    let text = match value {
        Some(Value::String(text)) => text,
        Some(_) => {
            problems.at_value(
                "url",
                "`url` is a URL template such as \"https://api.example.com/items/{id}\"",
            );
            return None;
        }
        None => {
            problems.at_key(
                "name",
                "missing `url`: the URL template, such as \"https://api.example.com/items/{id}\"",
            );
            return None;
        }
    };
    let template = match Template::parse(text) {
        Ok(template) => template,
        Err(message) => {
            problems.at_value("url", message);
            return None;
        }
    };
    if template.envs().next().is_some() {
        problems.at_value("url", "`${...}` is not allowed in `url` (URLs show up in messages); put a secret in `headers` or `query`");
        return None;
    }
    Some(template)
}

/// The URL `template` makes, checked: a full http(s) URL with a host,
/// placeholders in its path alone.
fn checked_url(template: &Template, problems: &mut Problems<'_>) -> Option<url::Url> {
    let text = template.as_written();
    let probe: String = template
        .parts
        .iter()
        .map(|part| match part {
            Part::Text(text) => text.as_str(),
            _ => "x",
        })
        .collect();
    let parsed = match url::Url::parse(&probe) {
        Ok(parsed) => parsed,
        Err(error) => {
            problems.at_value("url", format!("{text:?} is not a valid URL ({error}); write a full URL such as \"https://api.example.com/items/{{id}}\""));
            return None;
        }
    };
    if let Err(error) = crate::http::check_shape(&parsed) {
        problems.at_value("url", error);
        return None;
    }
    // Placeholders go in the path alone: the host is fixed, and the query
    // has `query`.
    let mut offset = 0;
    for part in &template.parts {
        match part {
            Part::Text(text) => offset += text.len(),
            _ => {
                let path_start = probe
                    .find("://")
                    .and_then(|scheme| probe[scheme + 3..].find('/').map(|p| p + scheme + 3));
                let in_query = probe[..offset].contains(['?', '#']);
                if path_start.is_none_or(|start| offset < start) || in_query {
                    problems.at_value("url", "placeholders go in the URL's path only; the host is fixed, and query parameters go in `query`");
                    return None;
                }
                offset += 1;
            }
        }
    }
    Some(parsed)
}

/// The query parameters: a mapping of name to template (or value), or a
/// list of parameter names sent under their own names.
fn query(value: Option<&Value>, problems: &mut Problems<'_>) -> Vec<QueryParam> {
    let mut out = Vec::new();
    match value {
        None => {}
        Some(Value::Array(names)) => {
            for (index, name) in names.iter().enumerate() {
                match name.as_str() {
                    Some(name) => out.push(QueryParam {
                        name: name.to_owned(),
                        value: Template::param(name),
                        explode: true,
                    }),
                    None => problems.at_value(
                        &format!("query/{index}"),
                        "`query` as a list holds parameters' names",
                    ),
                }
            }
        }
        Some(Value::Object(pairs)) => {
            for (name, value) in pairs {
                let key = format!("query/{}", pointer_token(name));
                let text = match value {
                    Value::String(text) => text.clone(),
                    Value::Number(_) | Value::Bool(_) => value.to_string(),
                    _ => {
                        problems.at_value(&key, "a query parameter's value is a template such as \"{limit}\", or a number or boolean");
                        continue;
                    }
                };
                match Template::parse(&text) {
                    Ok(template) => out.push(QueryParam {
                        name: name.clone(),
                        value: template,
                        explode: true,
                    }),
                    Err(message) => problems.at_value(&key, message),
                }
            }
        }
        Some(_) => problems.at_value(
            "query",
            "`query` maps names to templates (`limit: \"{limit}\"`), or lists parameters' names",
        ),
    }
    out
}

/// The headers: a mapping of name to template.
fn headers(value: Option<&Value>, problems: &mut Problems<'_>) -> Vec<(String, Template)> {
    let mut out = Vec::new();
    match value {
        None => {}
        Some(Value::Object(pairs)) => {
            for (name, value) in pairs {
                let key = format!("headers/{}", pointer_token(name));
                let text = match value {
                    Value::String(text) => text.clone(),
                    Value::Number(_) | Value::Bool(_) => value.to_string(),
                    _ => {
                        problems.at_value(
                            &key,
                            "a header's value is a template such as \"Bearer ${API_TOKEN}\"",
                        );
                        continue;
                    }
                };
                let checked = crate::http::request_headers([(name.clone(), "x".to_owned())].into());
                if let Err(error) = checked {
                    problems.at_key(&key, error);
                    continue;
                }
                match Template::parse(&text) {
                    Ok(template) => out.push((name.clone(), template)),
                    Err(message) => problems.at_value(&key, message),
                }
            }
        }
        Some(_) => problems.at_value("headers", "`headers` maps each header's name to its value"),
    }
    out
}
