//! MCP prompts: message templates a server offers clients
//! (`prompts/list`, `prompts/get`), served with
//! [`McpServer::with_prompts`](crate::server::McpServer::with_prompts).
//!
//! A prompt is any [`Prompt`]: its [`PromptSpec`] (name, description,
//! arguments) and how its messages are made from the arguments. The
//! [builder](Prompts::builder) takes them, and makes one from a closure
//! ([`prompt_fn`](PromptsBuilder::prompt_fn)); the collection may change
//! while the server runs ([`insert`](Prompts::insert),
//! [`remove`](Prompts::remove)), and listening clients are told.

mod arguments;
mod error;
pub(crate) mod linked;
mod message;
mod spec;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use futures_util::future::BoxFuture;
use tokio::sync::watch;
use tool_runtime::ToolContext;

pub use arguments::PromptArguments;
pub use error::{DuplicateName, PromptError};
pub use message::{GetPrompt, PromptMessage};
pub use spec::{ArgumentSpec, PromptSpec};

use crate::completion::{CompleteRequest, Completion};

/// A prompt: its description, and how its messages are made.
pub trait Prompt: Send + Sync + 'static {
    /// Its description (name, arguments).
    fn spec(&self) -> &PromptSpec;

    /// Its messages for `arguments` (the required ones are given: the
    /// server checks them first), in `ctx`.
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>>;

    /// The values of an argument as far as the client typed it; by default
    /// the argument's [`completions`](ArgumentSpec::completions) that start
    /// with it.
    fn complete(&self, request: CompleteRequest) -> BoxFuture<'_, Result<Completion, PromptError>> {
        let completion = self
            .spec()
            .argument(&request.argument)
            .map(|argument| Completion::prefix_of(&argument.completions, &request.value))
            .unwrap_or_default();
        Box::pin(async move { Ok(completion) })
    }
}

/// A shared prompt is a prompt: one of another collection (from
/// [`Prompts::get`]) may be [inserted](Prompts::insert) in this one.
impl<P: Prompt + ?Sized> Prompt for Arc<P> {
    fn spec(&self) -> &PromptSpec {
        (**self).spec()
    }

    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>> {
        (**self).get(arguments, ctx)
    }

    fn complete(&self, request: CompleteRequest) -> BoxFuture<'_, Result<Completion, PromptError>> {
        (**self).complete(request)
    }
}

/// The prompts a server offers: a cheap-clone handle whose clones share
/// them, so the program may change them while the server runs.
///
/// ```
/// use tool_mcp::prompts::{ArgumentSpec, PromptMessage, PromptSpec, Prompts};
///
/// let prompts = Prompts::builder()
///     .prompt_fn(
///         PromptSpec::new("greet")
///             .with_description("Greets someone")
///             .with_argument(ArgumentSpec::required("name").with_completions(["Ada", "Alan"])),
///         |arguments, _ctx| async move {
///             let name = arguments.require("name")?.to_owned();
///             Ok(PromptMessage::user(format!("Say hello to {name}.")))
///         },
///     )
///     .build()
///     .unwrap();
/// assert!(prompts.get("greet").is_some());
/// ```
#[derive(Clone)]
pub struct Prompts {
    shared: Arc<Shared>,
}

struct Shared {
    /// Every prompt, in name order.
    entries: ArcSwap<Vec<Arc<dyn Prompt>>>,
    /// Held while the entries change.
    write: Mutex<()>,
    /// Counts the changes to the entries.
    version: watch::Sender<u64>,
}

impl Prompts {
    /// A builder of prompts.
    pub fn builder() -> PromptsBuilder {
        PromptsBuilder {
            entries: Vec::new(),
        }
    }

    /// Every `#[prompt]` linked into this program (those not written
    /// `register = false`): built at the first call, and shared by every
    /// later one, so what is [inserted](Self::insert) in it stays.
    ///
    /// # Panics
    ///
    /// When two linked prompts have the same name: a mistake in the
    /// program, as two `#[tool]`s of one name are for `Registry::global`.
    pub fn global() -> &'static Prompts {
        static GLOBAL: std::sync::OnceLock<Prompts> = std::sync::OnceLock::new();
        GLOBAL.get_or_init(|| {
            let builder = linked::linked()
                .into_iter()
                .fold(Self::builder(), PromptsBuilder::prompt);
            match builder.build() {
                Ok(prompts) => prompts,
                Err(error) => panic!("{error}"),
            }
        })
    }

    /// Every prompt, in name order.
    pub fn list(&self) -> Vec<Arc<dyn Prompt>> {
        self.shared.entries.load().as_ref().clone()
    }

    /// The prompt named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Prompt>> {
        let entries = self.shared.entries.load();
        entries
            .binary_search_by(|prompt| prompt.spec().name.as_ref().cmp(name))
            .ok()
            .map(|at| Arc::clone(&entries[at]))
    }

    /// Adds `prompt`; refused when one has its name already. Clients that
    /// listen for changes are told.
    pub fn insert(&self, prompt: impl Prompt) -> Result<(), DuplicateName> {
        let _write = self.shared.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = self.list();
        let name = prompt.spec().name.clone();
        match entries.binary_search_by(|entry| entry.spec().name.cmp(&name)) {
            Ok(_) => return Err(DuplicateName(name.into_owned())),
            Err(at) => entries.insert(at, Arc::new(prompt)),
        }
        self.shared.entries.store(Arc::new(entries));
        self.shared.version.send_modify(|version| *version += 1);
        Ok(())
    }

    /// Takes out the prompt named `name`; whether there was one. Clients
    /// that listen for changes are told.
    pub fn remove(&self, name: &str) -> bool {
        let _write = self.shared.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = self.list();
        let Ok(at) = entries.binary_search_by(|entry| entry.spec().name.as_ref().cmp(name)) else {
            return false;
        };
        entries.remove(at);
        self.shared.entries.store(Arc::new(entries));
        self.shared.version.send_modify(|version| *version += 1);
        true
    }

    /// Changes with each [`insert`](Self::insert) and
    /// [`remove`](Self::remove).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.version.subscribe()
    }
}

impl fmt::Debug for Prompts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.shared.entries.load();
        f.debug_list()
            .entries(entries.iter().map(|prompt| prompt.spec().name.clone()))
            .finish()
    }
}

/// Builds [`Prompts`] (see [`Prompts::builder`]).
pub struct PromptsBuilder {
    entries: Vec<Arc<dyn Prompt>>,
}

impl PromptsBuilder {
    /// Adds `prompt`.
    pub fn prompt(mut self, prompt: impl Prompt) -> Self {
        self.entries.push(Arc::new(prompt));
        self
    }

    /// Adds the prompt `spec` describes, whose messages `get` makes from
    /// the arguments: any of text (one message of the user's), a
    /// [`PromptMessage`], a list of them, or a [`GetPrompt`]. Completion
    /// offers each argument's [`completions`](ArgumentSpec::completions).
    pub fn prompt_fn<F, Fut, R>(self, spec: PromptSpec, get: F) -> Self
    where
        F: Fn(PromptArguments, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, PromptError>> + Send + 'static,
        R: Into<GetPrompt>,
    {
        self.prompt(PromptFn { spec, get })
    }

    /// The prompts; refused when two have the same name.
    pub fn build(mut self) -> Result<Prompts, DuplicateName> {
        self.entries
            .sort_by(|a, b| a.spec().name.cmp(&b.spec().name));
        if let Some(pair) = self
            .entries
            .windows(2)
            .find(|pair| pair[0].spec().name == pair[1].spec().name)
        {
            return Err(DuplicateName(pair[0].spec().name.clone().into_owned()));
        }
        Ok(Prompts {
            shared: Arc::new(Shared {
                entries: ArcSwap::from_pointee(self.entries),
                write: Mutex::new(()),
                version: watch::Sender::new(0),
            }),
        })
    }
}

/// A prompt made by a closure.
struct PromptFn<F> {
    spec: PromptSpec,
    get: F,
}

impl<F, Fut, R> Prompt for PromptFn<F>
where
    F: Fn(PromptArguments, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, PromptError>> + Send + 'static,
    R: Into<GetPrompt>,
{
    fn spec(&self) -> &PromptSpec {
        &self.spec
    }

    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>> {
        let future = (self.get)(arguments, ctx);
        Box::pin(async move { future.await.map(Into::into) })
    }
}
