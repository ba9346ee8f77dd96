//! `asyncio.gather(a, b)` for the async summarization path: both run at once, a failure does
//! not stop the other (it runs to its end, as deepagents' task does), and when both fail the
//! one that failed first gives the error.
//!
//! "First" is when each side's result arrived, not when this future saw it. A side awaiting
//! Python gets its result from the event loop's thread, which runs the tasks' done callbacks
//! one after another, each waking its side; both results can be in place by the time the
//! joined future is polled again, and a side polled (pending) just before its result arrived
//! would otherwise lose to the other. So each side is polled with its own waker, and every
//! wake is stamped from one counter: a side's result is dated by the last wake since its
//! previous poll began, or, when it finished without one, by the poll that saw it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use parking_lot::Mutex;

use crate::error::Error;

/// One counter for both sides' wakes, and each side's last stamp.
#[derive(Default)]
struct Clock {
    now: AtomicU64,
    last_wake: [AtomicU64; 2],
}

impl Clock {
    fn tick(&self) -> u64 {
        self.now.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// A side's waker: stamps the wake, then wakes the joined future's task.
struct SideWaker {
    side: usize,
    clock: Arc<Clock>,
    task: Mutex<Waker>,
}

impl Wake for SideWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let stamp = self.clock.tick();
        self.clock.last_wake[self.side].store(stamp, Ordering::SeqCst);
        self.task.lock().wake_by_ref();
    }
}

/// One side of the join: its waker (made at its first poll) and the stamp read before its
/// last pending poll.
struct Side {
    index: usize,
    waker: Option<Arc<SideWaker>>,
    before_last_poll: u64,
}

impl Side {
    fn new(index: usize) -> Self {
        Side {
            index,
            waker: None,
            before_last_poll: 0,
        }
    }

    /// Polls `fut` with this side's waker: its output and when it arrived, once ready.
    fn poll<T>(
        &mut self,
        clock: &Arc<Clock>,
        cx: &Context<'_>,
        fut: Pin<&mut impl Future<Output = T>>,
    ) -> Option<(T, u64)> {
        let waker = self.waker.get_or_insert_with(|| {
            Arc::new(SideWaker {
                side: self.index,
                clock: clock.clone(),
                task: Mutex::new(cx.waker().clone()),
            })
        });
        {
            let mut task = waker.task.lock();
            if !task.will_wake(cx.waker()) {
                *task = cx.waker().clone();
            }
        }
        let before = clock.last_wake[self.index].load(Ordering::SeqCst);
        let polled = fut.poll(&mut Context::from_waker(&Waker::from(waker.clone())));
        match polled {
            Poll::Pending => {
                self.before_last_poll = before;
                None
            }
            Poll::Ready(out) => {
                // A wake since the last pending poll began is the one that brought the
                // result (a sender wakes right after storing it, possibly while that poll
                // was still running).
                let woke = clock.last_wake[self.index].load(Ordering::SeqCst);
                let arrived = if woke > self.before_last_poll {
                    woke
                } else {
                    clock.tick()
                };
                Some((out, arrived))
            }
        }
    }
}

pub(super) async fn gather<A, B>(
    a: impl Future<Output = Result<A, Error>>,
    b: impl Future<Output = Result<B, Error>>,
) -> Result<(A, B), Error> {
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let clock = Arc::new(Clock::default());
    let (mut side_a, mut side_b) = (Side::new(0), Side::new(1));
    let (mut out_a, mut out_b) = (None, None);
    std::future::poll_fn(|cx| {
        if out_a.is_none() {
            out_a = side_a.poll(&clock, cx, a.as_mut());
        }
        if out_b.is_none() {
            out_b = side_b.poll(&clock, cx, b.as_mut());
        }
        match (out_a.take(), out_b.take()) {
            (Some((Ok(a), _)), Some((Ok(b), _))) => Poll::Ready(Ok((a, b))),
            (Some((Err(a), when_a)), Some((Err(b), when_b))) => {
                Poll::Ready(Err(if when_a < when_b { a } else { b }))
            }
            (Some((Err(e), _)), Some(_)) | (Some(_), Some((Err(e), _))) => Poll::Ready(Err(e)),
            (a, b) => {
                (out_a, out_b) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(text: &str) -> Error {
        Error::InvalidInput(text.to_owned())
    }

    async fn fail_after(yields: usize, text: &str) -> Result<(), Error> {
        for _ in 0..yields {
            tokio::task::yield_now().await;
        }
        Err(failing(text))
    }

    fn raised(out: Result<((), ()), Error>) -> String {
        match out {
            Err(Error::InvalidInput(text)) => text,
            other => format!("{other:?}"),
        }
    }

    /// A result sent from another thread, as the event loop's done callback sends it.
    async fn fail_when(rx: tokio::sync::oneshot::Receiver<()>, text: &str) -> Result<(), Error> {
        let _ = rx.await;
        Err(failing(text))
    }

    #[tokio::test]
    async fn gather_raises_the_first_failure() {
        // Both fail on their first poll: the first started wins.
        assert_eq!(
            raised(gather(fail_after(0, "a"), fail_after(0, "b")).await),
            "a"
        );
        // The second fails first.
        assert_eq!(
            raised(gather(fail_after(3, "a"), fail_after(0, "b")).await),
            "b"
        );
        assert_eq!(
            raised(gather(fail_after(0, "a"), fail_after(3, "b")).await),
            "a"
        );
        let both = gather(async { Ok(1) }, async { Ok(2) }).await;
        assert!(matches!(both, Ok((1, 2))));
    }

    #[tokio::test]
    async fn both_results_in_place_before_the_next_poll_keep_their_order() {
        // Both senders fire from another thread before the joined future runs again: the
        // one sent first is the error, whichever order the sides are polled in.
        for first_is_a in [true, false] {
            let (tx_a, rx_a) = tokio::sync::oneshot::channel();
            let (tx_b, rx_b) = tokio::sync::oneshot::channel();
            let joined = tokio::spawn(gather(fail_when(rx_a, "a"), fail_when(rx_b, "b")));
            tokio::task::yield_now().await;
            std::thread::spawn(move || {
                if first_is_a {
                    let _ = tx_a.send(());
                    let _ = tx_b.send(());
                } else {
                    let _ = tx_b.send(());
                    let _ = tx_a.send(());
                }
            })
            .join()
            .ok();
            let out = joined.await.expect("the join task ran");
            assert_eq!(raised(out), if first_is_a { "a" } else { "b" });
        }
    }
}
