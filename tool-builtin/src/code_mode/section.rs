//! The `code_mode` section of a registry file: the options of a
//! `code_mode` tool over the file's tools, and how it is offered.
//!
//! ```yaml
//! tools: [calculator, current_time]
//! code_mode:
//!   offer: in_place      # or beside
//!   tools: [calculator]
//!   max_calls: 20
//!   timeout_ms: 10000
//!   python: {sandbox: true}
//! ```

use serde_json::{Map, Value};
use tool_manifest::{Location, Node, Section, SectionReader};

use super::{CodeModeOffer, CodeModeOptions};

/// The `code_mode` section of a registry file, read with
/// [`Manifest::parse_with`](tool_manifest::Manifest::parse_with):
/// a mapping of [`CodeModeOptions`]' keys (each with its default) and
/// `offer` (`in_place`, the default, or `beside`). A program that reads it
/// makes the file's registry with
/// [`CodeModeExt::code_mode`](super::CodeModeExt::code_mode).
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeModeSection;

/// What a registry file's `code_mode` section asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeModeSetting {
    /// The options, each key not written at its default.
    pub options: CodeModeOptions,
    /// How the registry offers `code_mode`.
    pub offer: CodeModeOffer,
    /// Where the section starts.
    pub location: Location,
}

impl Section for CodeModeSection {
    /// `None` when the section's value has a mistake (reported).
    type Entries = Option<CodeModeSetting>;

    fn key(&self) -> &'static str {
        "code_mode"
    }

    fn description(&self) -> &'static str {
        "a `code_mode` mapping"
    }

    fn schema(&self) -> Value {
        // Inline, with no `$defs`: the section's schema sits inside the
        // file's.
        let mut generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|settings| settings.inline_subschemas = true)
            .into_generator();
        let mut schema = generator.root_schema_for::<CodeModeOptions>().to_value();
        let offer = generator.root_schema_for::<CodeModeOffer>().to_value();
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
            object.remove("title");
            object.insert(
                "description".into(),
                "A `code_mode` tool over the file's tools: its options, and how it is offered."
                    .into(),
            );
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                let mut offer = offer;
                if let Some(offer) = offer.as_object_mut() {
                    offer.remove("$schema");
                    offer.remove("title");
                    offer.insert(
                        "description".into(),
                        "`in_place` (the default): code_mode alone; `beside`: code_mode and the tools."
                            .into(),
                    );
                }
                properties.insert("offer".into(), offer);
            }
        }
        schema
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Option<CodeModeSetting> {
        let Some(entries) = node.entries() else {
            reader.problem(
                Some(node.location()),
                "`code_mode` must be a mapping of its options (`tools`, `max_calls`, `timeout_ms`, `python`, `offer`, ...)",
            );
            return None;
        };
        let mut options = Map::new();
        let mut offer = CodeModeOffer::default();
        let mut sound = true;
        for (key, value) in entries {
            let name = key.as_str();
            let json = reader.to_json(value, &format!("/code_mode/{name}"));
            if name == "offer" {
                match serde_json::from_value(json) {
                    Ok(read) => offer = read,
                    Err(_) => {
                        reader.problem(
                            Some(value.location()),
                            "`offer` is `in_place` (code_mode alone) or `beside` (code_mode and the tools)",
                        );
                        sound = false;
                    }
                }
                continue;
            }
            // Each option read alone, so a mistake is reported at its value.
            let alone = Value::Object(Map::from_iter([(name.to_owned(), json.clone())]));
            if let Err(error) = serde_json::from_value::<CodeModeOptions>(alone) {
                let at = if error.to_string().starts_with("unknown field") {
                    key.location()
                } else {
                    value.location()
                };
                reader.problem(Some(at), format!("`code_mode`: {error}"));
                sound = false;
                continue;
            }
            options.insert(name.to_owned(), json);
        }
        if !sound {
            return None;
        }
        let options = match serde_json::from_value(Value::Object(options)) {
            Ok(options) => options,
            Err(error) => {
                reader.problem(Some(node.location()), format!("`code_mode`: {error}"));
                return None;
            }
        };
        Some(CodeModeSetting {
            options,
            offer,
            location: node.location(),
        })
    }
}
