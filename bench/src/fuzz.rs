//! Generated arguments for every tool of a registry, through the agent path
//! and the text path, with a fixed seed.
//!
//! Each case starts from arguments made from the tool's own schema, then
//! spoils them one way: a right key with a wrong type, a missing or an
//! extra key, `null`, huge and negative numbers, long and non-ASCII
//! strings, deep nesting, a root that is not an object, or text that is
//! not quite JSON (duplicate keys, lone surrogates, truncation). A case
//! fails when a panic escapes, or when a wrong-typed or missing argument
//! is reported without naming its field.
//!
//! ```sh
//! cargo run --release -p bench --bin fuzz -- 1000000 7   # cases, seed
//! ```

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tool_runtime::{Registry, ToolContext, ToolUse, registry::Linked, spec::ToolErrorKind};

/// What a run found.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Cases run (each through one path).
    pub cases: u64,
    /// Panics that escaped a call.
    pub escaped_panics: u64,
    /// Cases whose error did not name the field it was about.
    pub unnamed: Vec<String>,
    /// Calls stopped at [`CALL_LIMIT`] (valid arguments that ask a tool
    /// to wait that long).
    pub timed_out: u64,
    /// The slowest call, and what it was.
    pub slowest: (Duration, String),
}

/// How one case spoils its arguments.
#[derive(Debug, Clone, Copy)]
enum Spoil {
    Valid,
    WrongType,
    Missing,
    Extra,
    Null,
    Numbers,
    Strings,
    Deep,
    NotAnObject,
    BadText,
}

const SPOILS: [Spoil; 10] = [
    Spoil::Valid,
    Spoil::WrongType,
    Spoil::Missing,
    Spoil::Extra,
    Spoil::Null,
    Spoil::Numbers,
    Spoil::Strings,
    Spoil::Deep,
    Spoil::NotAnObject,
    Spoil::BadText,
];

/// How long one call may run, on either path: valid arguments may ask a
/// tool to wait (process_document's pause).
pub const CALL_LIMIT: Duration = Duration::from_millis(100);

/// Every example and built-in tool, configured to stay on this machine:
/// the file tools inside `root`, `http_request` with no host allowed,
/// `search` with a made-up key.
pub fn registry(root: &std::path::Path) -> Registry {
    let root = root.to_string_lossy();
    Registry::builder()
        .linked(Linked::crates(["examples"]))
        .tools(tool_builtin::ALL)
        .configure("search", json!({"api_key": "fuzz"}))
        .configure("file_read", json!({"root": root}))
        .configure("file_write", json!({"root": root}))
        .configure("file_list", json!({"root": root}))
        .configure("python_exec", json!({"timeout_ms": 2000}))
        .config_from_env(false)
        .build()
        .expect("the example and built-in tools form a registry")
}

/// Runs `cases` cases against `registry`'s tools with `seed`, on a
/// current-thread runtime.
pub fn run(registry: &Registry, cases: u64, seed: u64) -> Report {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut rng = fastrand::Rng::with_seed(seed);
    let specs: Vec<_> = registry.specs().cloned().collect();
    let ctx = ToolContext::new();
    let mut report = Report::default();
    // FUZZ_TRACE=1 names each case before it runs, to find one that hangs.
    let trace = std::env::var_os("FUZZ_TRACE").is_some();
    for case in 0..cases {
        let spec = &specs[rng.usize(..specs.len())];
        let schema = spec.input_schema();
        let spoil = SPOILS[rng.usize(..SPOILS.len())];
        let mut args = object(&mut rng, schema, schema);
        let named = spoil_args(&mut rng, spoil, &mut args, schema);
        let text_path = rng.bool();
        let levels = depth(&mut rng);
        let text = if matches!(spoil, Spoil::BadText) {
            bad_text(&mut rng, &args)
        } else if text_path {
            deep_text(&args, levels)
        } else {
            String::new()
        };
        if !text_path {
            deep_value(&mut args, levels);
        }
        let label = format!("case {case}: {} {spoil:?} text={text_path}", spec.name);
        if trace {
            eprintln!("{label}");
        }
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            if text_path {
                let tool = registry.get(&spec.name).expect("a listed tool");
                let call =
                    async { tokio::time::timeout(CALL_LIMIT, tool.call_str(&text, &ctx)).await };
                match runtime.block_on(call) {
                    Ok(outcome) => outcome.err().map(|e| (e.kind(), e.to_string())),
                    Err(_) => Some((ToolErrorKind::TimedOut, String::new())),
                }
            } else {
                let input = if matches!(spoil, Spoil::BadText) {
                    serde_json::from_str(&text).unwrap_or(Value::Null)
                } else {
                    args
                };
                let call = registry.invoke(ToolUse::new("f", spec.name.clone(), input), &ctx);
                let call = async { tokio::time::timeout(CALL_LIMIT, call).await };
                match runtime.block_on(call) {
                    Ok(result) => result
                        .error_kind
                        .filter(|_| result.is_error())
                        .map(|kind| (kind, result.text_content())),
                    Err(_) => Some((ToolErrorKind::TimedOut, String::new())),
                }
            }
        }));
        let elapsed = started.elapsed();
        if elapsed > report.slowest.0 {
            report.slowest = (elapsed, label.clone());
        }
        report.cases += 1;
        match outcome {
            Err(_) => report.escaped_panics += 1,
            Ok(Some((ToolErrorKind::InvalidArguments, message))) => {
                if let Some(field) = named
                    && !message.contains(&field)
                    && report.unnamed.len() < 20
                {
                    report
                        .unnamed
                        .push(format!("{label}: {field} not in {message}"));
                }
            }
            Ok(Some((ToolErrorKind::TimedOut, _))) => report.timed_out += 1,
            Ok(_) => {}
        }
    }
    report
}

/// Spoils `args`; returns the field an error must then name, if any.
fn spoil_args(
    rng: &mut fastrand::Rng,
    spoil: Spoil,
    args: &mut Value,
    schema: &Value,
) -> Option<String> {
    let Value::Object(members) = args else {
        return None;
    };
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let required: Vec<String> = schema["required"]
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let pick = |rng: &mut fastrand::Rng, names: Vec<String>| -> Option<String> {
        (!names.is_empty()).then(|| names[rng.usize(..names.len())].clone())
    };
    match spoil {
        Spoil::Valid => None,
        Spoil::WrongType => {
            let name = pick(rng, properties.keys().cloned().collect())?;
            let wrong = wrong_type(rng, &properties[&name])?;
            members.insert(name.clone(), wrong);
            Some(name)
        }
        Spoil::Missing => {
            let name = pick(rng, required)?;
            members.shift_remove(&name);
            Some(name)
        }
        Spoil::Extra => {
            let name = match rng.u8(..4) {
                0 => "x".repeat(rng.usize(1..5000)),
                1 => "\u{1b}[31mred".to_owned(),
                2 => "ключ🔑".to_owned(),
                _ => format!("extra_{}", rng.u16(..)),
            };
            members.insert(name, random_value(rng, 2));
            None
        }
        Spoil::Null => {
            let name = pick(rng, properties.keys().cloned().collect())?;
            members.insert(name, Value::Null);
            None
        }
        Spoil::Numbers => {
            let name = pick(rng, properties.keys().cloned().collect())?;
            let number = [
                json!(u64::MAX),
                json!(i64::MIN),
                json!(-1),
                json!(1e308),
                json!(-0.5),
                json!(4_294_967_296u64),
            ][rng.usize(..6)]
            .clone();
            members.insert(name, number);
            None
        }
        Spoil::Strings => {
            let name = pick(rng, properties.keys().cloned().collect())?;
            members.insert(name, Value::String(odd_string(rng)));
            None
        }
        Spoil::Deep => {
            // A marker, replaced by the nesting itself in the value or the
            // text the case sends (see `deep_value` and `deep_text`).
            let name = pick(rng, properties.keys().cloned().collect())?;
            members.insert(name, Value::String(DEEP.to_owned()));
            None
        }
        Spoil::NotAnObject => {
            *args = [json!([1, 2]), json!("text"), json!(3), json!(true)][rng.usize(..4)].clone();
            None
        }
        Spoil::BadText => None,
    }
}

/// Where a spoiled case nests deeply.
const DEEP: &str = "\u{0}deep\u{0}";

/// How deeply the deep cases nest.
fn depth(rng: &mut fastrand::Rng) -> usize {
    rng.usize(100..20_000)
}

/// `args` with the deep marker replaced by arrays `levels` deep, built and
/// later dropped without recursion (the registry takes too-deep
/// arguments apart itself).
fn deep_value(args: &mut Value, levels: usize) {
    if let Value::Object(members) = args {
        for slot in members.values_mut() {
            if slot.as_str() == Some(DEEP) {
                let mut value = json!(1);
                for _ in 0..levels {
                    value = Value::Array(vec![value]);
                }
                *slot = value;
            }
        }
    }
}

/// The text of `args` with the deep marker replaced by nesting `levels`
/// deep, written out directly.
fn deep_text(args: &Value, levels: usize) -> String {
    let marker = Value::String(DEEP.to_owned()).to_string();
    let nested = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    args.to_string().replace(&marker, &nested)
}

/// JSON text that is not quite right.
fn bad_text(rng: &mut fastrand::Rng, args: &Value) -> String {
    let text = args.to_string();
    match rng.u8(..4) {
        0 => {
            // A key given twice.
            let first = args
                .as_object()
                .and_then(|m| m.keys().next().cloned())
                .unwrap_or_default();
            format!("{{\"{first}\": 1, {}", text.trim_start_matches('{'))
        }
        1 => r#"{"code": "\ud800", "city": "\udfff\ud800x"}"#.to_owned(),
        2 => {
            let cut = rng.usize(..text.len().max(1));
            text.char_indices()
                .take_while(|(i, _)| *i < cut)
                .map(|(_, c)| c)
                .collect()
        }
        _ => format!("\u{feff}{text}"),
    }
}

/// A value of another JSON type than `schema` allows, when one is known.
fn wrong_type(rng: &mut fastrand::Rng, schema: &Value) -> Option<Value> {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let candidates: Vec<Value> = [
        ("string", json!("wrong")),
        ("integer", json!(7)),
        ("number", json!(7.5)),
        ("boolean", json!(true)),
        ("array", json!([1])),
        ("object", json!({"k": 1})),
    ]
    .into_iter()
    // An integer is a number too.
    .filter(|(kind, _)| {
        let accepted = types.contains(kind) || (*kind == "integer" && types.contains(&"number"));
        !accepted
    })
    .map(|(_, value)| value)
    .collect();
    (!candidates.is_empty()).then(|| candidates[rng.usize(..candidates.len())].clone())
}

fn odd_string(rng: &mut fastrand::Rng) -> String {
    match rng.u8(..5) {
        0 => "é".repeat(rng.usize(1..100_000)),
        1 => "\u{0}\u{7}\u{1b}[2J".to_owned(),
        2 => "🦀".repeat(rng.usize(1..1000)),
        3 => String::new(),
        _ => "a".repeat(rng.usize(1..1_000_000)),
    }
}

fn random_value(rng: &mut fastrand::Rng, depth: u8) -> Value {
    match rng.u8(..if depth == 0 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => Value::String(odd_string(rng).chars().take(50).collect()),
        4 => Value::Array(
            (0..rng.usize(..4))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.usize(..4))
                .map(|i| (format!("k{i}"), random_value(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// Arguments made from a schema: each property the schema lists, with a
/// value of its type (required ones always, others now and then).
fn object(rng: &mut fastrand::Rng, schema: &Value, root: &Value) -> Value {
    let mut members = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if required.contains(&name.as_str()) || rng.bool() {
                members.insert(name.clone(), value(rng, property, root, 0));
            }
        }
    }
    Value::Object(members)
}

/// A value `schema` describes, made up.
fn value(rng: &mut fastrand::Rng, schema: &Value, root: &Value, depth: u8) -> Value {
    if depth > 6 {
        return Value::Null;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(&Value::Null);
        return value(rng, target, root, depth + 1);
    }
    if let Some(values) = schema
        .get("enum")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())
    {
        return values[rng.usize(..values.len())].clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema
            .get(key)
            .and_then(Value::as_array)
            .filter(|b| !b.is_empty())
        {
            let branch = rng.usize(..branches.len());
            return value(rng, &branches[branch], root, depth + 1);
        }
    }
    let kind = match &schema["type"] {
        Value::String(name) => name.clone(),
        Value::Array(names) if !names.is_empty() => names[rng.usize(..names.len())]
            .as_str()
            .unwrap_or("null")
            .to_owned(),
        _ => return random_value(rng, 2),
    };
    match kind.as_str() {
        "string" => Value::String(format!("s{}", rng.u16(..))),
        "integer" => {
            let low = schema["minimum"].as_i64().unwrap_or(-1000);
            let high = schema["maximum"].as_i64().unwrap_or(1000).max(low);
            json!(rng.i64(low..=high.min(low.saturating_add(1_000_000))))
        }
        "number" => json!(rng.f64() * 100.0),
        "boolean" => json!(rng.bool()),
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                (0..rng.usize(..3))
                    .map(|_| value(rng, &items, root, depth + 1))
                    .collect(),
            )
        }
        "object" => {
            if schema.get("properties").is_some() {
                object(rng, schema, root)
            } else {
                let values = schema
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(json!({}));
                Value::Object(
                    (0..rng.usize(..3))
                        .map(|i| (format!("k{i}"), value(rng, &values, root, depth + 1)))
                        .collect(),
                )
            }
        }
        _ => Value::Null,
    }
}
