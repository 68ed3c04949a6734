//! [`Config<T>`]: a tool's configuration, injected.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::context::{FromToolContext, ToolContext};
use crate::spec::config::ConfigValue;
use crate::spec::error::{ToolError, ToolErrorKind};

/// A tool's configuration, injected into a parameter of type `Config<T>`.
///
/// ```
/// use tool_runtime::{tool, config::Config, Registry, ToolContext, ToolUse};
/// use serde::Deserialize;
/// use schemars::JsonSchema;
/// use serde_json::json;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Greeting {
///     /// What to say.
///     #[serde(default = "hello")]
///     word: String,
/// }
/// fn hello() -> String { "hello".into() }
///
/// /// Greets someone.
/// #[tool(config = Greeting)]
/// fn greet(name: String, config: Config<Greeting>) -> String {
///     format!("{}, {name}", config.word)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder()
///     .tool(GreetTool)
///     .configure("greet", json!({"word": "hi"}))
///     .build()
///     .unwrap();
/// let result = registry.invoke(ToolUse::new("1", "greet", json!({"name": "Ada"})), &ToolContext::new()).await;
/// assert_eq!(result.text_content(), "hi, Ada");
/// # });
/// ```
pub struct Config<T>(Arc<T>);

impl<T> Deref for Config<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Clone for Config<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: fmt::Debug> fmt::Debug for Config<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Config").field(&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromToolContext<'_> for Config<T> {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        let missing = || {
            ToolError::with_kind(
                ToolErrorKind::MissingContext,
                format!(
                    "tool {} has no configuration of type {}; configure it on the registry",
                    ctx.tool_name().unwrap_or("?"),
                    std::any::type_name::<T>()
                ),
            )
        };
        ctx.config()
            .and_then(ConfigValue::get::<T>)
            .map(Config)
            .ok_or_else(missing)
    }
}
