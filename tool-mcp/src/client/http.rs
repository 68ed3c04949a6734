//! Reaching a server over streamable HTTP: the transport's configuration
//! (headers, the bounds on what it reads, how often a broken stream is
//! resumed) and, with feature `client-auth`, its authorization.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{
    ClientInitializeError, RoleClient, RunningService, serve_client_with_lifecycle_and_ct,
};
use rmcp::transport::StreamableHttpClientTransport;
use tokio_util::sync::CancellationToken;

use super::McpClientOptions;
use super::shared::Shared;

/// How many times a broken HTTP response stream is resumed before its
/// request fails (after 0.2, 0.4 and 0.8 s).
const SSE_RETRIES: usize = 3;

/// The handshake with an HTTP server under way.
pub(crate) type Serving = Pin<
    Box<
        dyn Future<Output = Result<RunningService<RoleClient, Arc<Shared>>, ClientInitializeError>>
            + Send,
    >,
>;

/// Starts the handshake with the server at `url`, sending `headers`; or
/// why the configuration cannot be used.
pub(crate) fn serve(
    shared: &Arc<Shared>,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    options: &McpClientOptions,
    close: &CancellationToken,
) -> Result<Serving, String> {
    let config = http_config(shared, url, headers)?;
    let lifecycle = options.protocol.lifecycle();
    #[cfg(feature = "client-auth")]
    if let Some(session) = &shared.oauth {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .redirect(same_origin_redirects())
            .build()
            .map_err(|error| format!("could not make the HTTP client: {error}"))?;
        let client = super::oauth::Authorizing::new(client, Arc::clone(session));
        let transport = StreamableHttpClientTransport::with_client(client, config);
        return Ok(Box::pin(serve_client_with_lifecycle_and_ct(
            Arc::clone(shared),
            transport,
            lifecycle,
            close.clone(),
        )));
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    Ok(Box::pin(serve_client_with_lifecycle_and_ct(
        Arc::clone(shared),
        transport,
        lifecycle,
        close.clone(),
    )))
}

/// As rmcp's own client follows redirects: a 307 or 308 to the same origin
/// (which keeps the method and the body, and where the access token may
/// go), ten at most; any other is the answer.
#[cfg(feature = "client-auth")]
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_the_body = matches!(attempt.status().as_u16(), 307 | 308);
        if same_origin && keeps_the_body && attempt.previous().len() <= 10 {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// The streamable HTTP transport's configuration for `url` with `headers`,
/// its responses bounded by `max_result_bytes`; or why the headers cannot
/// be sent.
fn http_config(
    shared: &Shared,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig, String> {
    use rmcp::transport::common::client_side_sse::ExponentialBackoff;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|error| format!("the header name `{name}` is not valid: {error}"))?;
        let value = http::HeaderValue::from_str(value)
            .map_err(|error| format!("the value of the header `{name}` is not valid: {error}"))?;
        custom.insert(header, value);
    }
    crate::tls::ensure_crypto_provider();
    // A response stream that breaks is resumed a few times, then fails its
    // request (rmcp's default retries forever).
    let mut retry = ExponentialBackoff::default();
    retry.max_times = Some(SSE_RETRIES);
    retry.base_duration = Duration::from_millis(200);
    retry.max_delay = Some(Duration::from_secs(1));
    // Response bodies and events are bounded as they are read.
    let max = shared.limits.max_result_bytes;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .reinit_on_expired_session(true)
        .max_json_response_size(max)
        .max_sse_event_size(max);
    config.retry_config = Arc::new(retry);
    Ok(config)
}
