//! Where a session's messages go: [`Outbox`], which a transport
//! implements, and the bounded queue of a byte stream's output
//! ([`Queue`], the stdio transport's).
//!
//! Every message names the request it belongs to (its answer, its
//! progress and log messages, the requests to the client a call makes, the
//! notifications of a subscription), and an answer is sent as one
//! ([`Outbox::answer`]), so that a transport with a stream per request
//! (streamable HTTP: each POST's response) can route each message and end
//! the stream with the answer; a byte stream writes them all in turn.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::wire::Id;

/// Where a session's messages go.
pub(super) trait Outbox: Send + Sync + 'static {
    /// Sends one message, a whole line with its newline. `request` is the
    /// client's request it belongs to; `None` for the session's own
    /// messages (a session's tool list changes, in the revisions with
    /// sessions). Waits while the transport cannot take more.
    fn send(&self, line: Vec<u8>, request: Option<&Id>) -> impl Future<Output = ()> + Send;

    /// Sends the answer to `request` (its result or its error), a whole
    /// line: the request's last message, after which a transport with a
    /// stream per request ends that stream. A byte stream writes it as any
    /// other message.
    fn answer(&self, line: Vec<u8>, request: &Id) -> impl Future<Output = ()> + Send {
        self.send(line, Some(request))
    }

    /// Whether messages go where their request says (each request's to a
    /// stream of its own): then each call gets a client of its own, so that
    /// its requests to the client belong to it. A byte stream writes every
    /// message in turn, and its calls share one client.
    fn routes_by_request(&self) -> bool {
        false
    }

    /// The context the calls of `request` start from, when the transport
    /// has one of its own for it (over HTTP, one holding the caller its
    /// access token shows); `None`: the server's.
    fn context(&self, request: &Id) -> Option<tool_runtime::ToolContext> {
        let _ = request;
        None
    }

    /// Runs `call`, the work of `request` (a `tools/call`), which sends its
    /// answer when done: on a task of its own, so that calls overlap, unless
    /// the transport drives it itself (streamable HTTP: on the connection
    /// that carried the request, with its response). A call dropped
    /// unfinished is cancelled.
    fn run<F>(&self, request: &Id, call: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let _ = request;
        tokio::spawn(call);
    }
}

/// A message waiting to be written, holding its room in the queue.
pub(super) struct Queued {
    pub(super) line: Vec<u8>,
    /// Given back when the message is written (or dropped).
    _room: OwnedSemaphorePermit,
}

/// The output of a byte stream: a queue of whole lines that holds at most
/// `capacity` bytes. A message waits for room (a message larger than the
/// queue waits until the queue is empty), so when the other end does not
/// read, whoever sends waits, and the session stops reading its input.
pub(super) struct Queue {
    /// Weak: the output closes when the input ends (and the session is
    /// closed), whatever calls still hold of it.
    sender: mpsc::WeakUnboundedSender<Queued>,
    room: Arc<Semaphore>,
    capacity: usize,
}

impl Queue {
    /// A queue of at most `capacity` bytes, the sender that keeps it open
    /// and its receiving end.
    pub(super) fn new(
        capacity: usize,
    ) -> (
        Self,
        mpsc::UnboundedSender<Queued>,
        mpsc::UnboundedReceiver<Queued>,
    ) {
        let capacity = capacity.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        let (sender, receiver) = mpsc::unbounded_channel();
        let queue = Queue {
            sender: sender.downgrade(),
            room: Arc::new(Semaphore::new(capacity)),
            capacity,
        };
        (queue, sender, receiver)
    }

    /// Queues `line` once there is room for it; a closed output drops it
    /// (nobody reads any more).
    pub(super) async fn push(&self, line: Vec<u8>) {
        let wanted = line.len().clamp(1, self.capacity) as u32;
        let Ok(room) = Arc::clone(&self.room).acquire_many_owned(wanted).await else {
            return;
        };
        if let Some(sender) = self.sender.upgrade() {
            let _ = sender.send(Queued { line, _room: room });
        }
    }
}

impl Outbox for Queue {
    async fn send(&self, line: Vec<u8>, _request: Option<&Id>) {
        self.push(line).await;
    }
}
