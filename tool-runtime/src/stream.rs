//! `stream!` and `try_stream!`: a stream written like a generator. The
//! stream itself is `tool-runtime-core`'s; the macros are here, beside the
//! procedural macro that rewrites their bodies.

/// Writes a [`Stream`](crate::events::Stream) like a generator: `yield` each item, `.await` in
/// between.
///
/// ```
/// use tool_runtime::events::Stream;
///
/// fn countdown(from: u32) -> impl Stream<Item = u32> {
///     tool_runtime::stream! {
///         for i in (1..=from).rev() {
///             tokio::task::yield_now().await;
///             yield i;
///         }
///     }
/// }
/// # use futures_util::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(countdown(3).collect::<Vec<_>>().await, [3, 2, 1]);
/// # });
/// ```
///
/// `for await item in stream { .. }` reads another stream. A `yield`
/// inside a closure, an async block or a nested function is not the
/// stream's. A stream that never yields has items of type `()`. The stream
/// is `Send` when everything the body holds across an `.await` is.
///
/// A `?` in the body ends the stream with the error as its last item,
/// converted with `From`: the items must then be `Result`s.
/// [`try_stream!`](crate::try_stream!)
/// is that form with `Ok` added to every `yield`.
#[macro_export]
macro_rules! stream {
    ($($body:tt)*) => {
        $crate::__stream!(($crate) $($body)*)
    };
}

/// [`stream!`](crate::stream!) for fallible streams: the items are `Result<T, E>`, each
/// `yield value` yields `Ok(value)`, and an error from `?` (converted with
/// `From`) is yielded as the last item, `Err(error)`.
///
/// ```
/// use tool_runtime::events::Stream;
///
/// fn numbers(lines: &'static [&'static str]) -> impl Stream<Item = Result<u32, std::num::ParseIntError>> {
///     tool_runtime::try_stream! {
///         for line in lines {
///             yield line.parse::<u32>()?;
///         }
///     }
/// }
/// # use futures_util::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let items = numbers(&["1", "two", "3"]).collect::<Vec<_>>().await;
/// assert_eq!(items.len(), 2);
/// assert_eq!(items[0], Ok(1));
/// assert!(items[1].is_err());
/// # });
/// ```
#[macro_export]
macro_rules! try_stream {
    ($($body:tt)*) => {
        $crate::__try_stream!(($crate) $($body)*)
    };
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::Arc;
    use std::task::{Context, Poll};

    use futures_core::FusedStream;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;
    use tool_runtime_core::__private::stream_next as next;
    use tool_runtime_core::events::Stream;

    /// Polls `stream` to its end with a no-op waker, which is enough for
    /// bodies that only await their own yields and `ready` futures.
    fn collect<S: Stream>(stream: S) -> Vec<S::Item> {
        let mut stream = std::pin::pin!(stream);
        let mut cx = Context::from_waker(Waker::noop());
        let mut items = Vec::new();
        loop {
            match stream.as_mut().poll_next(&mut cx) {
                Poll::Ready(Some(item)) => items.push(item),
                Poll::Ready(None) => return items,
                Poll::Pending => panic!("a body without real awaits is never pending"),
            }
        }
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn assert_send<T: std::marker::Send>(_: &T) {}

    #[test]
    fn yields_in_order() {
        let stream = crate::stream! {
            yield 1;
            for i in 2..=3 {
                yield i;
            }
            let four = 4;
            yield four;
        };
        assert_eq!(collect(stream), [1, 2, 3, 4]);
    }

    #[test]
    fn awaits_between_items() {
        let stream = crate::stream! {
            for i in 0..3u32 {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                tokio::task::yield_now().await;
                yield i;
            }
        };
        assert_send(&stream);
        let items = block_on(async {
            let mut stream = std::pin::pin!(stream);
            let mut items = Vec::new();
            while let Some(item) = next(stream.as_mut()).await {
                items.push(item);
            }
            items
        });
        assert_eq!(items, [0, 1, 2]);
    }

    #[test]
    fn ends_early_and_stays_ended() {
        let stream = crate::stream! {
            yield "a";
            if "a".len() == 1 {
                return;
            }
            yield "never";
        };
        let mut stream = std::pin::pin!(stream);
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(stream.as_mut().poll_next(&mut cx), Poll::Ready(Some("a")));
        assert_eq!(stream.as_mut().poll_next(&mut cx), Poll::Ready(None));
        assert!(stream.is_terminated());
        assert_eq!(stream.as_mut().poll_next(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn empty_stream_has_unit_items() {
        let stream = crate::stream! {};
        let items: Vec<()> = collect(stream);
        assert!(items.is_empty());
    }

    #[test]
    fn try_stream_ends_with_the_error() {
        fn parse(text: &str) -> Result<u32, std::num::ParseIntError> {
            text.parse()
        }
        let stream = crate::try_stream! {
            yield parse("1")?;
            let two = parse("2")?;
            yield two;
            yield parse("three")?;
            yield 4;
        };
        let items: Vec<Result<u32, String>> = collect(stream)
            .into_iter()
            .map(|item: Result<u32, std::num::ParseIntError>| item.map_err(|e| e.to_string()))
            .collect();
        assert_eq!(
            items,
            [
                Ok(1),
                Ok(2),
                Err("invalid digit found in string".to_owned())
            ]
        );
    }

    #[test]
    fn try_stream_converts_errors_and_returns() {
        #[derive(Debug, PartialEq)]
        struct Wrapped(String);
        impl From<std::fmt::Error> for Wrapped {
            fn from(error: std::fmt::Error) -> Self {
                Wrapped(error.to_string())
            }
        }
        let fail = true;
        let stream = crate::try_stream! {
            yield 1u8;
            if !fail {
                return;
            }
            Err(std::fmt::Error)?;
            yield 2u8;
        };
        let items: Vec<Result<u8, Wrapped>> = collect(stream);
        assert_eq!(
            items,
            [
                Ok(1),
                Err(Wrapped(
                    "an error occurred when formatting an argument".into()
                ))
            ]
        );

        let stream = crate::try_stream! {
            yield 1u8;
            return;
        };
        let items: Vec<Result<u8, Wrapped>> = collect(stream);
        assert_eq!(items, [Ok(1)]);
    }

    #[test]
    fn question_mark_inside_a_macro_call() {
        let stream = crate::try_stream! {
            yield format!("{}", "1".parse::<u8>()?);
            yield format!("{}", "x".parse::<u8>()?);
        };
        let items: Vec<Result<String, std::num::ParseIntError>> = collect(stream);
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].as_deref(), Ok("1"));
        assert!(items[1].is_err());
    }

    #[test]
    fn question_mark_in_stream() {
        let stream = crate::stream! {
            if false {
                return;
            }
            yield Ok(1);
            let value: u8 = "x".parse::<u8>().map_err(|_| "bad")?;
            yield Ok(value);
        };
        let items: Vec<Result<u8, &str>> = collect(stream);
        assert_eq!(items, [Ok(1), Err("bad")]);
    }

    #[test]
    fn infinite_stream_stops_with_its_consumer() {
        let stream = crate::try_stream! {
            let mut i = 0u64;
            loop {
                i += 1;
                yield i;
            }
        };
        let mut stream = std::pin::pin!(stream);
        let mut cx = Context::from_waker(Waker::noop());
        for expected in 1..=3 {
            let item: Poll<Option<Result<u64, ()>>> = stream.as_mut().poll_next(&mut cx);
            assert_eq!(item, Poll::Ready(Some(Ok(expected))));
        }
    }

    #[test]
    fn dropping_mid_way_drops_the_body() {
        struct Guard<'a>(&'a AtomicUsize);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let (dropped, resumed) = (&AtomicUsize::new(0), &AtomicUsize::new(0));
        {
            let stream = crate::stream! {
                let _guard = Guard(dropped);
                yield 1;
                resumed.fetch_add(1, Ordering::SeqCst);
                yield 2;
            };
            let mut stream = std::pin::pin!(stream);
            let mut cx = Context::from_waker(Waker::noop());
            assert_eq!(stream.as_mut().poll_next(&mut cx), Poll::Ready(Some(1)));
            assert_eq!(dropped.load(Ordering::SeqCst), 0);
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
        assert_eq!(resumed.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn nested_closures_async_blocks_and_streams_keep_their_own() {
        let stream = crate::stream! {
            let double = |x: u32| x * 2;
            let inner = async { 5u32 };
            let nested = crate::stream! {
                yield "inner";
            };
            yield double(1);
            yield inner.await;
            let nested: Vec<&str> = collect(nested);
            yield nested.len() as u32;
            fn helper() -> u32 {
                7
            }
            yield helper();
            let bits = 1 | 2;
            yield bits;
        };
        assert_eq!(collect(stream), [2, 5, 1, 7, 3]);
    }

    #[test]
    fn for_await_reads_another_stream() {
        let stream = crate::stream! {
            let inner = crate::stream! {
                yield 1;
                yield 2;
                yield 3;
            };
            'outer: for await value in inner {
                if value == 2 {
                    continue 'outer;
                }
                yield value * 10;
            }
        };
        assert_eq!(collect(stream), [10, 30]);
    }

    #[test]
    fn is_send_when_the_body_is() {
        let shared = Arc::new(AtomicUsize::new(0));
        let stream = crate::stream! {
            shared.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            yield String::from("sent");
        };
        assert_send(&stream);
        let handle = block_on(async {
            tokio::spawn(async move {
                let mut stream = std::pin::pin!(stream);
                next(stream.as_mut()).await
            })
            .await
            .unwrap()
        });
        assert_eq!(handle.as_deref(), Some("sent"));
    }
}
