//! The few future helpers the invocation path needs, on std alone: a panic
//! guard around a future's polls, taking a ready future's output, and
//! running a list of calls a bounded number at a time.

use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

/// Awaits `future`, turning a panic in any of its polls into `Err` with
/// the panic's payload.
pub(crate) async fn catch_unwind<F: Future>(future: F) -> std::thread::Result<F::Output> {
    let mut future = pin!(future);
    poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    })
    .await
}

/// The output of `future` if one poll finishes it.
pub(crate) fn now_or_never<F: Future>(future: F) -> Option<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

/// Runs `futures` at most `limit` at a time (each next one starts as one
/// finishes) and gives their outputs in the order of `futures`.
pub(crate) async fn join_limited<F: Future>(futures: Vec<F>, limit: usize) -> Vec<F::Output> {
    let limit = limit.max(1);
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let mut waiting = futures.into_iter().enumerate();
    let mut running: Vec<(usize, Pin<Box<F>>)> = Vec::new();
    poll_fn(|cx| {
        loop {
            while running.len() < limit {
                let Some((index, future)) = waiting.next() else {
                    break;
                };
                running.push((index, Box::pin(future)));
            }
            let started = running.len();
            let mut i = 0;
            while i < running.len() {
                match running[i].1.as_mut().poll(cx) {
                    Poll::Ready(output) => {
                        let (index, _) = running.swap_remove(i);
                        outputs[index] = Some(output);
                    }
                    Poll::Pending => i += 1,
                }
            }
            if running.is_empty() && waiting.len() == 0 {
                return Poll::Ready(());
            }
            // Nothing finished: every running call will wake us. Otherwise
            // start the next ones and poll them now.
            if running.len() == started {
                return Poll::Pending;
            }
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn join_limited_keeps_order_and_limit() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let active = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let calls = (0..6u64)
            .map(|i| {
                let (active, most) = (&active, &most);
                async move {
                    let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(6 - i)).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                    i
                }
            })
            .collect();
        assert_eq!(join_limited(calls, 2).await, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn catch_unwind_reports_a_panic() {
        assert_eq!(catch_unwind(async { 1 }).await.ok(), Some(1));
        let panicked = catch_unwind(async {
            tokio::task::yield_now().await;
            panic!("boom")
        })
        .await;
        assert!(panicked.is_err());
        assert_eq!(now_or_never(async { 2 }), Some(2));
    }
}
