//! The body of every response the HTTP transport gives: a whole one
//! (JSON, text, or nothing), or an event stream; either holds the
//! connection busy until it is sent ([`Busy`]), so that its time is no
//! idle time.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use super::activity::Busy;
use super::routes::Events;
use crate::server::wire::{self, Id};

/// A response's body.
pub(super) struct Body {
    kind: Kind,
    /// The connection's request in progress, ended when the body is dropped
    /// (sent, or given up).
    busy: Option<Busy>,
}

enum Kind {
    Whole(Option<Bytes>),
    Events(Box<Events>),
}

impl Body {
    /// The whole body `bytes`.
    fn whole(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: Kind::Whole(Some(bytes.into())),
            busy: None,
        }
    }

    /// The body holds the connection busy until it is dropped.
    pub(super) fn hold(&mut self, busy: Busy) {
        self.busy = Some(busy);
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Whole(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Kind::Events(events) => events
                .poll_next(cx)
                .map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Whole(bytes) => bytes.is_none(),
            Kind::Events(events) => events.is_done(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Whole(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Kind::Events(_) => SizeHint::default(),
        }
    }
}

/// A response.
pub(super) type Reply = Response<Body>;

/// A response of `status` with a text body.
pub(super) fn text(status: StatusCode, text: impl Into<String>) -> Reply {
    let mut text = text.into();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let mut response = Response::new(Body::whole(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// An empty response of `status`.
pub(super) fn empty(status: StatusCode) -> Reply {
    let mut response = Response::new(Body::whole(Bytes::new()));
    *response.status_mut() = status;
    response
}

/// A JSON-RPC message (a line, its newline included) as a response of
/// `status`.
pub(super) fn json(status: StatusCode, mut line: Vec<u8>) -> Reply {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    let mut response = Response::new(Body::whole(line));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A JSON-RPC error answering `id` (`null` when it could not be read) as a
/// response of `status`.
pub(super) fn rpc_error(status: StatusCode, id: Option<&Id>, code: i64, message: &str) -> Reply {
    let null = Id::null();
    json(
        status,
        wire::error_line(id.unwrap_or(&null), code, message, None),
    )
}

/// An event stream as a `200 OK` response.
pub(super) fn events(events: Events) -> Reply {
    let mut response = Response::new(Body {
        kind: Kind::Events(Box::new(events)),
        busy: None,
    });
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // nginx passes each event on as it comes.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
