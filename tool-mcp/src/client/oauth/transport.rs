//! The streamable HTTP client with authorization: every request carries
//! the access token, and a `401` or a `403 insufficient_scope` is answered
//! (by the session) and the request sent again, at most
//! `max_authorizations` times; rmcp's transport sees only the outcome.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::flow::Session;

/// An HTTP client `C` whose requests are authorized by `session`.
#[derive(Clone)]
pub(crate) struct Authorizing<C> {
    inner: C,
    session: Arc<Session>,
}

impl<C> Authorizing<C> {
    pub(crate) fn new(inner: C, session: Arc<Session>) -> Self {
        Self { inner, session }
    }
}

impl<C: StreamableHttpClient + Sync> Authorizing<C> {
    /// Runs `call` with the access token; after a `401` or a `403` with a
    /// challenge, authorizes and runs it again.
    async fn authorized<T, F, Fut>(&self, call: F) -> Result<T, StreamableHttpError<C::Error>>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, StreamableHttpError<C::Error>>>,
    {
        let mut authorizations = 0;
        loop {
            let token = self.session.token().await;
            let error = match call(token.clone()).await {
                Err(error) => error,
                answer => return answer,
            };
            if authorizations >= self.session.max_authorizations() {
                return Err(error);
            }
            let outcome = match &error {
                StreamableHttpError::AuthRequired(refused) => {
                    // A refresh first; a second refusal calls for more.
                    let may_refresh = authorizations == 0;
                    self.session
                        .recover(
                            &refused.www_authenticate_header,
                            token.as_deref(),
                            may_refresh,
                        )
                        .await
                }
                StreamableHttpError::InsufficientScope(refused) => {
                    self.session
                        .step_up(&refused.www_authenticate_header, token.as_deref())
                        .await
                }
                _ => return Err(error),
            };
            authorizations += 1;
            if let Err(message) = outcome {
                return Err(StreamableHttpError::Auth(AuthError::AuthorizationFailed(
                    message,
                )));
            }
        }
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for Authorizing<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorized(|token| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorized(|token| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorized(|token| {
            self.inner.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        // No authorization for a goodbye: the token held, or nothing.
        let token = self.session.token().await;
        self.inner
            .delete_session(uri, session_id, token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<Self::Error>> {
        self.authorized(|token| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, StreamableHttpError<Self::Error>> {
        self.authorized(|token| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
