//! The stream behind `tool_runtime::stream!` and `try_stream!`: a stream
//! written like a generator.
//!
//! The macros (defined in `tool-runtime`, expanded by `tool-runtime-macros`) turn the body into an async block
//! in which each `yield value` is `sender.send(value).await`.
//! [`GeneratorStream`] polls that block: `send` puts the value in a slot the
//! two share and returns `Pending` once, so the poll ends and the stream
//! hands out the value; the next poll resumes the block after the `yield`.
//! One allocation per stream (the slot), none per item.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_core::{FusedStream, Stream};

type Slot<T> = Arc<Mutex<Option<T>>>;

/// A new pair: the sender the body yields through, and the slot the stream
/// reads.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Mutex::new(None));
    (Sender { slot: slot.clone() }, Receiver { slot })
}

fn take<T>(slot: &Slot<T>) -> Option<T> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).take()
}

/// What `yield` sends through.
pub struct Sender<T> {
    slot: Slot<T>,
}

impl<T> Sender<T> {
    /// Yields `value`: the future stores it and is pending once.
    pub fn send(&mut self, value: T) -> Send<'_, T> {
        Send {
            slot: &self.slot,
            value: Some(value),
        }
    }
}

/// The stream's side of the slot.
pub struct Receiver<T> {
    slot: Slot<T>,
}

/// The future of [`Sender::send`].
pub struct Send<'a, T> {
    slot: &'a Slot<T>,
    value: Option<T>,
}

// The value is never pinned: it is only moved into the slot.
impl<T> Unpin for Send<'_, T> {}

impl<T> Future for Send<'_, T> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        match this.value.take() {
            Some(value) => {
                *this.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(value);
                // No wake-up: the stream returns the value from this very
                // poll, and its consumer polls again for the next one.
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
    }
}

/// The stream `stream!` and `try_stream!` return: the body's async block
/// and the slot its `yield`s fill.
#[must_use = "streams do nothing unless polled"]
pub struct GeneratorStream<T, F> {
    receiver: Receiver<T>,
    done: bool,
    generator: F,
}

impl<T, F: Future<Output = ()>> GeneratorStream<T, F> {
    /// The stream of what `generator` sends through the sender paired with
    /// `receiver`.
    pub fn new(receiver: Receiver<T>, generator: F) -> Self {
        GeneratorStream {
            receiver,
            done: false,
            generator,
        }
    }
}

impl<T, F: Future<Output = ()>> Stream for GeneratorStream<T, F> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        // SAFETY: `generator` is pinned with `self` (it is never moved out
        // of it, and `GeneratorStream` has no `Drop` that could); the other
        // fields are never pinned.
        let this = unsafe { self.get_unchecked_mut() };
        if this.done {
            return Poll::Ready(None);
        }
        let generator = unsafe { Pin::new_unchecked(&mut this.generator) };
        let finished = generator.poll(cx).is_ready();
        this.done = finished;
        match take(&this.receiver.slot) {
            Some(item) => Poll::Ready(Some(item)),
            None if finished => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

impl<T, F: Future<Output = ()>> FusedStream for GeneratorStream<T, F> {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl<T, F> std::fmt::Debug for GeneratorStream<T, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratorStream")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// The next item of a pinned stream, for `for await`.
pub async fn next<S: Stream + ?Sized>(mut stream: Pin<&mut S>) -> Option<S::Item> {
    std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await
}
