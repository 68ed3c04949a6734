//! Typed elicitation: input of a Rust type from the calling client's user.

use std::future::Future;

use serde::de::DeserializeOwned;

use crate::context::ToolContext;
use crate::context::client::{Elicitation, elicitation_schema, read_answer};
use crate::schema::typed::output_schema;
use crate::spec::error::ToolError;

/// Asks the calling client's user for input of a Rust type: a method of
/// [`ToolContext`], in scope with `use tool_runtime::context::Elicit`.
///
/// The schema asked for is `T`'s, built as every tool schema is; the
/// context's own [`elicit_with_schema`](ToolContext::elicit_with_schema)
/// takes a schema as JSON.
///
/// ```
/// use tool_runtime::{tool, context::Elicit, context::Elicitation, ToolContext, ToolError};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Size {
///     /// Width in pixels
///     width: u32,
///     /// Height in pixels
///     height: u32,
/// }
///
/// /// Resize the picture to a size the user picks.
/// #[tool]
/// async fn resize(ctx: &ToolContext) -> Result<String, ToolError> {
///     Ok(match ctx.elicit::<Size>("New size?").await? {
///         Elicitation::Accepted(Size { width, height }) => format!("{width}x{height}"),
///         Elicitation::Declined | Elicitation::Cancelled => "unchanged".to_owned(),
///     })
/// }
/// ```
pub trait Elicit: sealed::Sealed {
    /// Asks the calling client's user for input of type `T`
    /// (`elicitation/create` over MCP), showing `message`.
    ///
    /// The requested schema is `T`'s, which MCP allows to be an object of
    /// strings, numbers, integers, booleans and enumerations; optional
    /// fields are asked for as their plain type. The answer is
    /// [`Accepted`](Elicitation::Accepted) with the user's input read as
    /// `T` (an error names the field that does not fit),
    /// [`Declined`](Elicitation::Declined) or
    /// [`Cancelled`](Elicitation::Cancelled). A
    /// [`ClientUnavailable`](crate::spec::ToolErrorKind::ClientUnavailable) error
    /// when there is no such client.
    fn elicit<T>(
        &self,
        message: impl Into<String>,
    ) -> impl Future<Output = Result<Elicitation<T>, ToolError>> + Send
    where
        T: DeserializeOwned + schemars::JsonSchema;
}

impl Elicit for ToolContext {
    fn elicit<T>(
        &self,
        message: impl Into<String>,
    ) -> impl Future<Output = Result<Elicitation<T>, ToolError>> + Send
    where
        T: DeserializeOwned + schemars::JsonSchema,
    {
        let message = message.into();
        let schema = elicitation_schema(output_schema::<T>());
        async move { read_answer(self.elicit_with_schema(message, schema).await?) }
    }
}

mod sealed {
    /// Only [`ToolContext`](crate::ToolContext) is [`Elicit`](super::Elicit).
    pub trait Sealed {}
    impl Sealed for crate::ToolContext {}
}
