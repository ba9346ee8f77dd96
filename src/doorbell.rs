//! Wake-ups from threads outside the tokio runtime delivered through its I/O driver (an
//! eventfd, the doorbell), not through tokio's wake of a task from outside.
//!
//! Why: a task woken from a thread outside the runtime (a Python-call thread that finished a
//! tool call) goes into the runtime's shared queue, and a parked worker is woken to search
//! for it; that worker, finding it, is the last one searching, and by tokio's rule for
//! spreading work it wakes another worker to search, which finds nothing and parks again. One
//! conversation's tool step so woke both workers. A wake through the I/O driver reaches the
//! worker parked in it, which runs the woken task from its own queue without searching, as it
//! runs a task woken by a reply: another worker is woken only when there is more than one
//! task to run (then tokio spreads them as usual).
//!
//! A waking thread puts the task's waker in a list and rings the doorbell (one eventfd
//! write) when the list was empty; a task on the runtime waits for the ring and wakes the
//! listed tasks on its worker. Without a doorbell (the eventfd or its registration failed,
//! or its task ended) a task is woken directly.

use std::future::Future;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use parking_lot::Mutex;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

pub struct Doorbell {
    /// Shared with the registration, so it stays open while either lives.
    fd: Arc<OwnedFd>,
    /// The tasks to wake at the next ring.
    waiting: Mutex<Vec<Waker>>,
    /// Its task ended (the runtime's driver is gone): tasks are woken directly.
    closed: AtomicBool,
}

impl Doorbell {
    /// A doorbell answered by a task on `runtime`; `None` when the eventfd or its
    /// registration failed.
    pub fn start(runtime: &tokio::runtime::Handle) -> Option<Arc<Doorbell>> {
        // SAFETY: eventfd takes no pointers.
        #[cfg(target_os = "linux")]
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        // No eventfd elsewhere: tasks are woken directly, as before the doorbell.
        #[cfg(not(target_os = "linux"))]
        let fd: libc::c_int = -1;
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        let fd = Arc::new(unsafe { OwnedFd::from_raw_fd(fd) });
        // Registered here, so a registration that fails leaves no doorbell (its task would
        // never answer).
        let bell = {
            let _inside = runtime.enter();
            // SAFETY: the registration holds the descriptor open (its `Arc`) for its life.
            unsafe { AsyncFd::register_with_interest(fd.clone(), Interest::READABLE) }.ok()?
        };
        let doorbell = Arc::new(Doorbell {
            fd,
            waiting: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        });
        runtime.spawn(answer(bell, doorbell.clone()));
        Some(doorbell)
    }

    /// Wakes `task` at the doorbell's next answer.
    fn ring(&self, task: Waker) {
        let first = {
            let mut waiting = self.waiting.lock();
            waiting.push(task);
            waiting.len() == 1
        };
        if self.closed.load(Ordering::SeqCst) {
            // Its task is gone: nobody answers.
            self.wake_all();
            return;
        }
        if first {
            let one = 1u64;
            // SAFETY: writes the 8 bytes of `one`, the size an eventfd write takes. It fails
            // only when the count would overflow, which a ring per emptied list never reaches.
            unsafe {
                libc::write(
                    self.fd.as_raw_fd(),
                    (&raw const one).cast::<libc::c_void>(),
                    std::mem::size_of::<u64>(),
                );
            }
        }
    }

    fn wake_all(&self) {
        let woken = std::mem::take(&mut *self.waiting.lock());
        woken.into_iter().for_each(Waker::wake);
    }
}

/// The doorbell's task: at each ring, wakes the tasks listed (on its worker).
async fn answer(bell: AsyncFd<Arc<OwnedFd>>, doorbell: Arc<Doorbell>) {
    // Closed however the task ends: a runtime shutting down drops its tasks unfinished.
    let _closing = Closing(doorbell.clone());
    while let Ok(mut ready) = bell.readable().await {
        let mut count = 0u64;
        // SAFETY: reads 8 bytes into `count`, the size an eventfd read takes.
        let read = unsafe {
            libc::read(
                bell.as_raw_fd(),
                (&raw mut count).cast::<libc::c_void>(),
                std::mem::size_of::<u64>(),
            )
        };
        // Cleared after the read reset the count: a ring after the read is a new edge, which
        // the driver reports as ready again.
        ready.clear_ready();
        if read > 0 {
            doorbell.wake_all();
        }
    }
}

/// Marks its doorbell closed and wakes the tasks listed when the answering task ends.
struct Closing(Arc<Doorbell>);

impl Drop for Closing {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::SeqCst);
        self.0.wake_all();
    }
}

/// The waker a relayed future's inner future is given: its wake goes through the doorbell.
struct Relay {
    task: Waker,
    doorbell: Arc<Doorbell>,
}

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.doorbell.ring(self.task.clone());
    }
}

/// `inner`, woken through `doorbell` (directly without one).
pub fn relayed<F: Future + Unpin>(inner: F, doorbell: Option<&Arc<Doorbell>>) -> Relayed<F> {
    Relayed {
        inner,
        doorbell: doorbell.cloned(),
        relay: None,
    }
}

pub struct Relayed<F> {
    inner: F,
    doorbell: Option<Arc<Doorbell>>,
    /// The task's waker last seen and the relay made for it.
    relay: Option<(Waker, Waker)>,
}

impl<F: Future + Unpin> Future for Relayed<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let Some(doorbell) = &this.doorbell else {
            return Pin::new(&mut this.inner).poll(cx);
        };
        // The relay made for this task's waker kept; a new one when the task's waker changed.
        let relay = match this.relay.take() {
            Some((task, relay)) if task.will_wake(cx.waker()) => (task, relay),
            _ => {
                let relay = Waker::from(Arc::new(Relay {
                    task: cx.waker().clone(),
                    doorbell: doorbell.clone(),
                }));
                (cx.waker().clone(), relay)
            }
        };
        let (_, relay) = this.relay.insert(relay);
        Pin::new(&mut this.inner).poll(&mut Context::from_waker(relay))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;

    /// Worker wake-ups of `rounds` answers from a thread outside the runtime, each after the
    /// workers went to sleep (as a Python call's result comes back).
    fn wakeups(rounds: usize) -> usize {
        let unparks = Arc::new(AtomicUsize::new(0));
        let counted = unparks.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .on_thread_unpark(move || {
                counted.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        let doorbell = Doorbell::start(runtime.handle());
        let (to_helper, jobs) = std::sync::mpsc::channel::<oneshot::Sender<u32>>();
        let helper = std::thread::spawn(move || {
            for reply in jobs {
                std::thread::sleep(Duration::from_millis(2));
                let _ = reply.send(7);
            }
        });
        // Settled: both workers asleep.
        std::thread::sleep(Duration::from_millis(50));
        let before = unparks.load(Ordering::SeqCst);
        let task = runtime.spawn(async move {
            for _ in 0..rounds {
                let (tx, rx) = oneshot::channel();
                to_helper.send(tx).unwrap();
                assert_eq!(relayed(rx, doorbell.as_ref()).await.unwrap(), 7);
            }
        });
        runtime.block_on(task).unwrap();
        let woken = unparks.load(Ordering::SeqCst) - before;
        helper.join().unwrap();
        woken
    }

    /// Woken directly, each answer woke both workers (the one that ran the task, and the one
    /// it woke to search); through the doorbell, one.
    #[test]
    fn an_answer_from_outside_the_runtime_wakes_one_worker() {
        let rounds = 40;
        let woken = wakeups(rounds);
        assert!(
            woken < rounds * 3 / 2,
            "{woken} worker wake-ups for {rounds} answers"
        );
    }

    #[test]
    fn a_dropped_sender_still_wakes_its_awaiter() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let doorbell = Doorbell::start(runtime.handle());
        let (tx, rx) = oneshot::channel::<u32>();
        let task = runtime.spawn(async move { relayed(rx, doorbell.as_ref()).await });
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(tx);
        });
        assert!(runtime.block_on(task).unwrap().is_err());
    }
}
