//! The sign-in's [`AuthorizationHandler`]: the authorization URL printed
//! (and opened in a browser, if asked), and a listener on
//! `http://127.0.0.1:PORT/callback` that waits for the browser's return.
//!
//! The listener takes one request per connection, its head at most
//! [`MAX_REQUEST_BYTES`], read within [`READ_TIMEOUT`], at most
//! [`MAX_CONNECTIONS`] connections at once. Only `GET /callback` ends the
//! wait: with the `state` of the authorization request and a `code`, the
//! client redeems it; with another `state` (or none) the sign-in is
//! refused; with an `error` (the user denied it) it fails, saying so. Any
//! other request is answered (`404`, `405`, `400`, `431`) and the wait goes
//! on. Each answer is a small fixed HTML page quoting nothing it was sent.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tool_mcp::client::oauth::{
    AuthorizationError, AuthorizationFuture, AuthorizationHandler, AuthorizationPrompt,
};

/// The most bytes of a request's head (its request line and headers): a
/// browser sends the cookies it holds for 127.0.0.1, which other local
/// programs may have set.
pub(super) const MAX_REQUEST_BYTES: usize = 32 * 1024;
/// The most headers a request may have.
const MAX_HEADERS: usize = 64;
/// How long a connection may take to send its request's head.
pub(super) const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections served at once (a browser opens a few at a time).
pub(super) const MAX_CONNECTIONS: usize = 16;
/// The path the browser is sent back to.
const CALLBACK_PATH: &str = "/callback";

/// Listens on the loopback address for the browser's return.
pub(super) struct Loopback {
    listener: TcpListener,
    port: u16,
    browser: bool,
}

impl Loopback {
    /// Listens on 127.0.0.1:`port` (0: a free port); `browser`: try to open
    /// the authorization URL in the user's browser.
    pub(super) async fn bind(port: u16, browser: bool) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            browser,
        })
    }

    /// Waits for the callback with `state`: the URL the browser was sent
    /// to, or why the sign-in ends without one.
    async fn wait(&self, state: &str) -> Result<String, AuthorizationError> {
        let (outcomes, mut outcome) = mpsc::channel(1);
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept(), if connections.len() < MAX_CONNECTIONS => {
                    let stream = match accepted {
                        Ok((stream, _)) => stream,
                        Err(_) => {
                            // Out of file descriptors, say: try again soon.
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            continue;
                        }
                    };
                    let outcomes = outcomes.clone();
                    let state = state.to_owned();
                    let port = self.port;
                    connections.spawn(async move {
                        if let Some(ended) = serve(stream, &state, port).await {
                            let _ = outcomes.send(ended).await;
                        }
                    });
                }
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                Some(ended) = outcome.recv() => return ended.map_err(Into::into),
            }
        }
    }
}

impl AuthorizationHandler for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizationFuture<'a> {
        Box::pin(async move {
            let state = url::Url::parse(&prompt.url)?
                .query_pairs()
                .find(|(key, _)| key == "state")
                .map(|(_, value)| value.into_owned())
                .ok_or("the authorization URL has no state")?;
            eprintln!(
                "To sign in to {}, open this address in a browser:\n\n    {}\n",
                prompt.server, prompt.url
            );
            if self.browser && !open_browser(&prompt.url) {
                eprintln!("(no browser could be opened: open the address yourself)");
            }
            eprintln!(
                "waiting for the browser to come back to {}",
                self.redirect_uri()
            );
            self.wait(&state).await
        })
    }
}

/// What one request to the listener was.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Callback {
    /// The redirect with a code and the right state: the URL it was sent
    /// to.
    Redirect(String),
    /// The authorization server's refusal (`error=`), as said to the user.
    Denied(String),
    /// A callback whose state is not the authorization request's.
    WrongState,
    /// A callback with neither a code nor an error.
    Empty,
    /// Not the callback: another path.
    NotFound,
    /// Not the callback: another method.
    NotAllowed,
}

/// Why a request's head was not read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum HeadError {
    /// Over [`MAX_REQUEST_BYTES`], or over [`MAX_HEADERS`] headers.
    TooLarge,
    /// Not an HTTP request.
    Malformed,
    /// The connection ended (or failed) before the head did.
    Closed,
}

/// Serves one connection: its request answered; what it means for the
/// sign-in when it is the callback (`None` otherwise: the wait goes on).
async fn serve(mut stream: TcpStream, state: &str, port: u16) -> Option<Result<String, String>> {
    let head = tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await;
    let (status, page, ended) = match head {
        Err(_) | Ok(Err(HeadError::Closed)) => return None,
        Ok(Err(HeadError::TooLarge)) => ("431 Request Header Fields Too Large", TOO_LARGE, None),
        Ok(Err(HeadError::Malformed)) => ("400 Bad Request", MALFORMED, None),
        Ok(Ok((method, target))) => match callback(&method, &target, state, port) {
            Callback::Redirect(url) => ("200 OK", SIGNED_IN, Some(Ok(url))),
            Callback::Denied(why) => ("200 OK", DENIED, Some(Err(why))),
            Callback::WrongState => (
                "400 Bad Request",
                WRONG_STATE,
                Some(Err(
                    "the browser came back with another sign-in's `state`: \
                     refused (start `auth login` again)"
                        .to_owned(),
                )),
            ),
            Callback::Empty => (
                "400 Bad Request",
                MALFORMED,
                Some(Err(
                    "the browser came back with neither a code nor an error".to_owned(),
                )),
            ),
            Callback::NotFound => ("404 Not Found", NOT_FOUND, None),
            Callback::NotAllowed => ("405 Method Not Allowed", NOT_FOUND, None),
        },
    };
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    // A browser that left early misses the page; the outcome stands.
    let _ = tokio::time::timeout(READ_TIMEOUT, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
    ended
}

/// Reads a request's head from `stream`: its method and target; at most
/// [`MAX_REQUEST_BYTES`] are read.
pub(super) async fn read_head(
    stream: &mut (impl AsyncRead + Unpin),
) -> Result<(String, String), HeadError> {
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0_u8; 4096];
    loop {
        let read = stream
            .read(&mut chunk)
            .await
            .map_err(|_| HeadError::Closed)?;
        if read == 0 {
            return Err(HeadError::Closed);
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(head) = parse_head(&buffer)? {
            return Ok(head);
        }
        if buffer.len() >= MAX_REQUEST_BYTES {
            return Err(HeadError::TooLarge);
        }
    }
}

/// The method and target of the request whose first bytes are `bytes`;
/// `None` while its head is not whole.
pub(super) fn parse_head(bytes: &[u8]) -> Result<Option<(String, String)>, HeadError> {
    let head = &bytes[..bytes.len().min(MAX_REQUEST_BYTES)];
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Complete(_)) => {
            let method = request.method.ok_or(HeadError::Malformed)?;
            let target = request.path.ok_or(HeadError::Malformed)?;
            Ok(Some((method.to_owned(), target.to_owned())))
        }
        Ok(httparse::Status::Partial) => Ok(None),
        Err(httparse::Error::TooManyHeaders) => Err(HeadError::TooLarge),
        Err(_) => Err(HeadError::Malformed),
    }
}

/// What the request `method target` means for the sign-in whose
/// authorization request has `state`, on `port`.
pub(super) fn callback(method: &str, target: &str, state: &str, port: u16) -> Callback {
    // An origin-form target only (RFC 9112 3.2.1): the path and query.
    if !target.starts_with('/') {
        return Callback::NotFound;
    }
    let Ok(url) = url::Url::parse(&format!("http://127.0.0.1:{port}{target}")) else {
        return Callback::NotFound;
    };
    if url.path() != CALLBACK_PATH {
        return Callback::NotFound;
    }
    if method != "GET" {
        return Callback::NotAllowed;
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if param("state").as_deref() != Some(state) {
        return Callback::WrongState;
    }
    if let Some(error) = param("error") {
        let mut said = format!(
            "the authorization server refused the sign-in: {}",
            quote(&error, 100)
        );
        if let Some(description) = param("error_description") {
            said.push_str(" (");
            said.push_str(&quote(&description, 300));
            said.push(')');
        }
        return Callback::Denied(said);
    }
    if param("code").is_none() {
        return Callback::Empty;
    }
    Callback::Redirect(url.to_string())
}

/// `text` as sent by someone else, escaped and cut to `max` characters.
fn quote(text: &str, max: usize) -> String {
    let cut: String = text.chars().take(max).collect();
    let mut shown = tool_runtime::__private::quote::escape(&cut);
    if cut.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// Tries to open `url` in the user's browser, with the system's opener
/// (`xdg-open`, `open`, or Windows' URL handler), without waiting for it;
/// whether one started.
fn open_browser(url: &str) -> bool {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return false;
    }
    #[cfg(target_os = "macos")]
    let (program, args) = ("open", vec![url]);
    #[cfg(windows)]
    let (program, args) = ("rundll32", vec!["url.dll,FileProtocolHandler", url]);
    #[cfg(not(any(target_os = "macos", windows)))]
    let (program, args) = ("xdg-open", vec![url]);
    let started = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(mut child) => {
            // Reaped in the background; the opener's outcome is not ours.
            std::thread::spawn(move || child.wait());
            true
        }
        Err(_) => false,
    }
}

const SIGNED_IN: &str = "<!doctype html><title>Signed in</title>\
    <p>Signed in. You can close this window and go back to the terminal.</p>";
const DENIED: &str = "<!doctype html><title>Not signed in</title>\
    <p>The sign-in was refused. The terminal says why.</p>";
const WRONG_STATE: &str = "<!doctype html><title>Not signed in</title>\
    <p>This answer belongs to another sign-in, and was refused.</p>";
const MALFORMED: &str = "<!doctype html><title>Bad request</title><p>Bad request.</p>";
const TOO_LARGE: &str = "<!doctype html><title>Too large</title><p>The request is too large.</p>";
const NOT_FOUND: &str = "<!doctype html><title>Not found</title><p>Not found.</p>";

#[cfg(test)]
mod tests {
    use super::*;

    const PORT: u16 = 43123;

    #[test]
    fn the_callback_with_its_state_and_a_code_is_the_redirect() {
        let outcome = callback("GET", "/callback?code=abc&state=s1&iss=x", "s1", PORT);
        assert_eq!(
            outcome,
            Callback::Redirect(format!(
                "http://127.0.0.1:{PORT}/callback?code=abc&state=s1&iss=x"
            ))
        );
    }

    #[test]
    fn another_state_or_none_is_refused() {
        for target in [
            "/callback?code=abc&state=s2",
            "/callback?code=abc",
            "/callback?code=abc&state=",
            "/callback?error=access_denied&state=s2",
        ] {
            assert_eq!(
                callback("GET", target, "s1", PORT),
                Callback::WrongState,
                "{target}"
            );
        }
    }

    #[test]
    fn an_error_is_the_refusal_quoted_safely() {
        let target =
            "/callback?error=access_denied&error_description=End-User%20aborted%1b[2J&state=s1";
        let Callback::Denied(said) = callback("GET", target, "s1", PORT) else {
            panic!("not a refusal");
        };
        assert!(said.contains("access_denied"), "{said}");
        assert!(said.contains("End-User aborted"), "{said}");
        assert!(!said.contains('\u{1b}'), "{said}");
        let empty = callback("GET", "/callback?state=s1", "s1", PORT);
        assert_eq!(empty, Callback::Empty);
    }

    #[test]
    fn other_paths_and_methods_are_not_the_callback() {
        assert_eq!(
            callback("GET", "/favicon.ico", "s1", PORT),
            Callback::NotFound
        );
        assert_eq!(
            callback("GET", "/callback/x?state=s1&code=c", "s1", PORT),
            Callback::NotFound
        );
        assert_eq!(
            callback("GET", "http://evil/callback?state=s1&code=c", "s1", PORT),
            Callback::NotFound
        );
        assert_eq!(
            callback("GET", "//evil/callback?state=s1&code=c", "s1", PORT),
            Callback::NotFound
        );
        assert_eq!(
            callback("POST", "/callback?state=s1&code=c", "s1", PORT),
            Callback::NotAllowed
        );
    }

    #[tokio::test]
    async fn a_head_is_read_whole_and_an_oversized_one_is_refused() {
        let request = b"GET /callback?state=s1&code=c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        let head = read_head(&mut &request[..]).await;
        assert_eq!(
            head,
            Ok(("GET".to_owned(), "/callback?state=s1&code=c".to_owned()))
        );

        let mut huge = b"GET /callback?state=s1&code=c HTTP/1.1\r\nCookie: ".to_vec();
        huge.extend(std::iter::repeat_n(b'a', MAX_REQUEST_BYTES));
        huge.extend_from_slice(b"\r\n\r\n");
        assert_eq!(read_head(&mut &huge[..]).await, Err(HeadError::TooLarge));

        let mut many = b"GET /callback HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend_from_slice(format!("X-{i}: 1\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(read_head(&mut &many[..]).await, Err(HeadError::TooLarge));

        assert_eq!(
            read_head(&mut &b"GET /call"[..]).await,
            Err(HeadError::Closed)
        );
        assert_eq!(
            read_head(&mut &b"\x00\x01 nonsense\r\n\r\n"[..]).await,
            Err(HeadError::Malformed)
        );
    }
}
