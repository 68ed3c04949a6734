//! What the code `#[resource]` and `#[prompt]` generate names, and nothing
//! else may: the expansion refers to `::tool_mcp::__private::...` (or
//! `<crate>::__private` with `crate = path`) alone, so a user's crate needs
//! `tool-mcp` and no other dependency.
//!
//! - the link-time registrations ([`ResourceRegistration`],
//!   [`PromptRegistration`]) that `Resources::global()` and
//!   `Prompts::global()` collect, through the runtime's `inventory`;
//! - the specs, built once ([`resource_spec`], [`prompt_spec`]);
//! - reading a template variable or a prompt argument into a parameter
//!   ([`var`], [`argument`]), with the assertion trait [`PromptArgument`]
//!   whose message says what a parameter may be;
//! - turning what the function returns into contents or messages
//!   ([`IntoContents`], [`IntoPrompt`], [`IntoCompletion`]) and its error
//!   into the protocol's ([`McpKind`]: the anyhow-style tag of the core's
//!   `Kind`, so a `ResourceError` or `PromptError` keeps its meaning and
//!   any other `Display` error becomes `Failed`).
//!
//! `#[tool(ui = "ui://...")]` names [`AppLinkRegistration`] and
//! [`UiVisibility`] here: the link of a tool to its app's view.

#![allow(missing_docs)]

use std::borrow::Cow;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

pub use futures_util::future::BoxFuture;
pub use std::sync::OnceLock;
pub use tool_runtime::__private::{FromToolContext, inventory};
pub use tool_runtime::context::Role;
pub use tool_runtime::{ToolContext, ToolError};

pub use crate::completion::{CompleteRequest, Completion};
pub use crate::prompts::{
    ArgumentSpec, GetPrompt, Prompt, PromptArguments, PromptError, PromptMessage, PromptSpec,
};
pub use crate::resources::{
    Contents, ReadRequest, Resource, ResourceError, ResourceSpec, UriParams,
};

use crate::resources::UriTemplate;

pub use crate::apps::{AppLinkRegistration, Visibility as UiVisibility};
pub use crate::prompts::linked::PromptRegistration;
pub use crate::resources::linked::ResourceRegistration;

/// A resource's spec: `uri` is a template when it holds a `{`. The macro
/// has checked the template with the same grammar, so it parses.
pub fn resource_spec(
    uri: &'static str,
    name: &'static str,
    title: Option<&'static str>,
    description: Option<&'static str>,
    mime_type: Option<&'static str>,
) -> ResourceSpec {
    let mut spec = if uri.contains('{') {
        match UriTemplate::parse(uri) {
            Ok(template) => ResourceSpec::template(template, name),
            Err(error) => panic!("{error}"),
        }
    } else {
        ResourceSpec::fixed(uri, name)
    };
    spec.title = title.map(Cow::Borrowed);
    spec.description = description.map(Cow::Borrowed);
    spec.mime_type = mime_type.map(Cow::Borrowed);
    spec
}

/// What `#[resource(size = .., cache = "..", ttl = "..", audience = [..],
/// priority = ..)]` adds to a spec. The macro has checked the priority is
/// in range and `size` is on a fixed URI. `cache = "public"` without `ttl`
/// is fresh for the server's list lifetime; a `ttl` without `cache` is
/// private.
pub fn resource_details(
    mut spec: ResourceSpec,
    size: Option<u64>,
    public: Option<bool>,
    ttl_ms: Option<u64>,
    audience: &[Role],
    priority: Option<f64>,
) -> ResourceSpec {
    spec.size = size;
    if public.is_some() || ttl_ms.is_some() {
        let public = public.unwrap_or(false);
        let ttl = match ttl_ms {
            Some(ms) => Some(std::time::Duration::from_millis(ms)),
            None if public => None,
            None => Some(std::time::Duration::ZERO),
        };
        spec.cache = crate::resources::CacheHint::NONE;
        spec.cache.ttl = ttl;
        spec.cache.public = public;
    }
    let mut annotations =
        crate::resources::ResourceAnnotations::new().with_audience(audience.iter().copied());
    if let Some(priority) = priority {
        annotations = annotations
            .with_priority(priority)
            .unwrap_or_else(|error| panic!("{error}"));
    }
    if !annotations.is_empty() {
        spec.annotations = Some(annotations);
    }
    spec
}

/// A prompt's spec.
pub fn prompt_spec(
    name: &'static str,
    title: Option<&'static str>,
    description: Option<&'static str>,
    arguments: Vec<ArgumentSpec>,
) -> PromptSpec {
    let mut spec = PromptSpec::new(name);
    spec.title = title.map(Cow::Borrowed);
    spec.description = description.map(Cow::Borrowed);
    spec.arguments = arguments;
    spec
}

/// One argument of a prompt's spec.
pub fn argument_spec(
    name: &'static str,
    description: Option<&'static str>,
    required: bool,
) -> ArgumentSpec {
    let mut argument = if required {
        ArgumentSpec::required(name)
    } else {
        ArgumentSpec::optional(name)
    };
    argument.description = description.map(Cow::Borrowed);
    argument
}

/// What a template variable or prompt argument may be read into: any type
/// whose text form `FromStr` reads (`String` included).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a prompt argument or a URI template variable",
    label = "a prompt argument or template variable is text",
    note = "use `String`, `&str`, `Option<String>`, or a type that implements `FromStr` (with an error that implements `Display`)"
)]
pub trait PromptArgument: Sized {
    /// Reads `text`, or says why not.
    fn read(text: &str) -> Result<Self, String>;
}

impl<T: FromStr> PromptArgument for T
where
    T::Err: Display,
{
    fn read(text: &str) -> Result<Self, String> {
        text.parse().map_err(|error: T::Err| error.to_string())
    }
}

/// The value of the template variable `name`: `Ok(None)` when the URI
/// gives none (an optional `{?q}`).
pub fn var<T: PromptArgument>(params: &UriParams, name: &str) -> Result<Option<T>, ResourceError> {
    params
        .get(name)
        .map(|text| {
            T::read(text)
                .map_err(|reason| ResourceError::InvalidParams(format!("`{name}`: {reason}")))
        })
        .transpose()
}

/// The value of a template variable the template always gives.
pub fn required_var<T: PromptArgument>(params: &UriParams, name: &str) -> Result<T, ResourceError> {
    var(params, name)?.ok_or_else(|| ResourceError::InvalidParams(format!("no value for `{name}`")))
}

/// The value of the prompt argument `name`, when given.
pub fn argument<T: PromptArgument>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<Option<T>, PromptError> {
    arguments
        .get(name)
        .map(|text| {
            T::read(text).map_err(|reason| PromptError::InvalidArgument {
                name: name.to_owned(),
                reason,
            })
        })
        .transpose()
}

/// The value of a required prompt argument.
pub fn required_argument<T: PromptArgument>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<T, PromptError> {
    argument(arguments, name)?.ok_or_else(|| PromptError::MissingArgument(name.to_owned()))
}

/// What a `#[resource]` function may return.
#[diagnostic::on_unimplemented(
    message = "a #[resource] function cannot return `{Self}`",
    label = "not a resource's contents",
    note = "return `&'static str` or `String` (text), `Vec<u8>` (bytes), `Contents`, `Vec<Contents>`, or a `Result` of one of these"
)]
pub trait IntoContents {
    /// The contents read at `uri`; `mime` is the resource's media type.
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Vec<Contents>;
}

impl IntoContents for &str {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Vec<Contents> {
        self.to_owned().into_contents(uri, mime)
    }
}

impl IntoContents for String {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Vec<Contents> {
        vec![Contents::text(uri, mime.unwrap_or("text/plain"), self)]
    }
}

impl IntoContents for Vec<u8> {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Vec<Contents> {
        vec![Contents::blob(
            uri,
            mime.unwrap_or("application/octet-stream"),
            self,
        )]
    }
}

impl IntoContents for Contents {
    fn into_contents(self, _: &str, _: Option<&str>) -> Vec<Contents> {
        vec![self]
    }
}

impl IntoContents for Vec<Contents> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Vec<Contents> {
        self
    }
}

/// What a `#[prompt]` function may return.
#[diagnostic::on_unimplemented(
    message = "a #[prompt] function cannot return `{Self}`",
    label = "not a prompt's messages",
    note = "return `String` or `&str` (one message of the user's), `PromptMessage`, `Vec<PromptMessage>`, `GetPrompt`, or a `Result` of one of these"
)]
pub trait IntoPrompt {
    /// The prompt's messages.
    fn into_prompt(self) -> GetPrompt;
}

impl IntoPrompt for &str {
    fn into_prompt(self) -> GetPrompt {
        self.into()
    }
}

impl IntoPrompt for String {
    fn into_prompt(self) -> GetPrompt {
        self.into()
    }
}

impl IntoPrompt for PromptMessage {
    fn into_prompt(self) -> GetPrompt {
        self.into()
    }
}

impl IntoPrompt for Vec<PromptMessage> {
    fn into_prompt(self) -> GetPrompt {
        self.into()
    }
}

impl IntoPrompt for GetPrompt {
    fn into_prompt(self) -> GetPrompt {
        self
    }
}

/// What a completion function (`complete = path`) may return.
#[diagnostic::on_unimplemented(
    message = "a completion function cannot return `{Self}`",
    label = "not a list of values",
    note = "return `Vec<String>`, `Vec<&str>` or `Completion`: the values that start with the text typed"
)]
pub trait IntoCompletion {
    /// The values.
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        self
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Completion {
        Completion::of(self)
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Completion {
        Completion::of(self)
    }
}

/// The tag of an error's type `E`: `McpKind::of(&error).resource(error)`
/// keeps a `ResourceError` (or `PromptError`) as it is, and makes any other
/// `Display` error `Failed` (the inherent methods below come first; the
/// `DisplayKind` methods only when they do not apply).
pub struct McpKind<E>(PhantomData<E>);

impl<E> McpKind<E> {
    /// The tag of `error`'s type; it does not keep the reference.
    pub fn of(error: &E) -> Self {
        let _ = error;
        McpKind(PhantomData)
    }
}

impl McpKind<ResourceError> {
    pub fn resource(self, error: ResourceError) -> ResourceError {
        error
    }
}

impl McpKind<PromptError> {
    pub fn prompt(self, error: PromptError) -> PromptError {
        error
    }
}

impl McpKind<ToolError> {
    pub fn resource(self, error: ToolError) -> ResourceError {
        error.into()
    }

    pub fn prompt(self, error: ToolError) -> PromptError {
        error.into()
    }
}

/// Any other error, as text.
pub trait DisplayKind<E> {
    fn resource(self, error: E) -> ResourceError;
    fn prompt(self, error: E) -> PromptError;
}

impl<E: Display> DisplayKind<E> for McpKind<E> {
    fn resource(self, error: E) -> ResourceError {
        ResourceError::Failed(error.to_string())
    }

    fn prompt(self, error: E) -> PromptError {
        PromptError::Failed(error.to_string())
    }
}
