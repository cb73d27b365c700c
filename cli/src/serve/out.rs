//! `ptc serve`'s stdout: a byte-bounded queue of frames and the one thread that writes them.
//!
//! Invariants:
//! - At most [`MAX_QUEUED_BYTES`] of frames wait (one larger frame may wait alone): a host
//!   that does not read makes the engine wait in [`OutQueue::send`] — which stops it reading
//!   stdin, so the host's writes block too — instead of growing without bound.
//! - A failed write (the host closed our stdout) acts like EOF on stdin: the writer closes
//!   the queue, every later send returns at once, and `on_close` tells the protocol loop,
//!   which cancels every run.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

/// The most bytes of frames waiting for stdout.
pub(crate) const MAX_QUEUED_BYTES: usize = 8 << 20;

#[derive(Debug, Default)]
struct State {
    frames: VecDeque<String>,
    bytes: usize,
    /// No more writes: stdout failed, or the engine is done.
    closed: bool,
}

/// The frames waiting for stdout.
#[derive(Debug, Default)]
pub(crate) struct OutQueue {
    state: Mutex<State>,
    /// Signalled when a frame is queued, taken, or the queue closes.
    changed: Condvar,
}

impl OutQueue {
    /// Queues `frame`, waiting while the queue is full; dropped when the queue is closed.
    pub(crate) fn send(&self, frame: String) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        while !state.closed && state.bytes > 0 && state.bytes + frame.len() > MAX_QUEUED_BYTES {
            state = match self.changed.wait(state) {
                Ok(state) => state,
                Err(_) => return,
            };
        }
        if state.closed {
            return;
        }
        state.bytes += frame.len();
        state.frames.push_back(frame);
        self.changed.notify_all();
    }

    /// Closes the queue: what is queued is still written, later sends are dropped.
    pub(crate) fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
        }
        self.changed.notify_all();
    }

    /// The next frame, waiting for one; `None` once closed and drained, or after `abort`.
    fn next(&self) -> Option<String> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(frame) = state.frames.pop_front() {
                state.bytes -= frame.len();
                self.changed.notify_all();
                return Some(frame);
            }
            if state.closed {
                return None;
            }
            state = self.changed.wait(state).ok()?;
        }
    }

    /// Closes the queue and forgets what is queued (stdout is gone).
    fn abort(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
            state.frames.clear();
            state.bytes = 0;
        }
        self.changed.notify_all();
    }

    /// The bytes waiting (for tests).
    #[cfg(test)]
    pub(crate) fn queued_bytes(&self) -> usize {
        self.state.lock().map_or(0, |s| s.bytes)
    }
}

/// Starts the writer thread: it writes each frame and a newline to `sink`, and on a failed
/// write aborts the queue and calls `on_close`.
pub(crate) fn spawn_writer(
    queue: Arc<OutQueue>,
    mut sink: impl std::io::Write + Send + 'static,
    on_close: impl FnOnce() + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while let Some(frame) = queue.next() {
            let written = sink
                .write_all(frame.as_bytes())
                .and_then(|()| sink.write_all(b"\n"))
                .and_then(|()| sink.flush());
            if written.is_err() {
                queue.abort();
                on_close();
                return;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_waits_and_a_failed_write_closes_it() {
        struct Broken;
        impl std::io::Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        struct Slow(Arc<Mutex<Vec<u8>>>, Arc<std::sync::Barrier>);
        impl std::io::Write for Slow {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.0.lock().unwrap().is_empty() {
                    self.1.wait();
                }
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let queue = Arc::new(OutQueue::default());
        let written = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(std::sync::Barrier::new(2));
        let writer = spawn_writer(queue.clone(), Slow(written.clone(), gate.clone()), || {});
        let big = "x".repeat(MAX_QUEUED_BYTES / 2);
        queue.send(big.clone());
        queue.send(big.clone());
        // The writer holds one frame at the gate; the queue is near full.
        assert!(queue.queued_bytes() <= MAX_QUEUED_BYTES);
        let sender = {
            let queue = queue.clone();
            let big = big.clone();
            std::thread::spawn(move || {
                for _ in 0..4 {
                    queue.send(big.clone());
                }
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(queue.queued_bytes() <= MAX_QUEUED_BYTES);
        gate.wait();
        sender.join().unwrap();
        queue.close();
        writer.join().unwrap();
        assert_eq!(written.lock().unwrap().len(), 6 * (big.len() + 1));

        let queue = Arc::new(OutQueue::default());
        let (tx, rx) = std::sync::mpsc::channel();
        let writer = spawn_writer(queue.clone(), Broken, move || {
            let _ = tx.send(());
        });
        queue.send("a".into());
        rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        writer.join().unwrap();
        for _ in 0..1000 {
            queue.send(big.clone());
        }
        assert_eq!(queue.queued_bytes(), 0);
    }
}
