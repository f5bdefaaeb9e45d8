//! Reading device buffers back: staging buffers, their maps, and the one poller per context
//! that completes asynchronous reads without a thread per call.
//!
//! Cancel safety: a [`Readback`] dropped at any point leaves nothing mapped or pending in the
//! pool. Whoever finishes last, the map callback or the dropped readback, unmaps the staging
//! buffer and returns it to the pool; a buffer whose map failed or never completed is dropped
//! instead of pooled. Nothing unmaps a buffer while its map is pending.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use super::driver_lock::DriverLock;
use super::pool::PooledBuffer;
use crate::error::{Error, Result};

/// How a readback waits for the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Poll the device on the calling thread.
    Block,
    /// Let the context's poller poll; the future completes when the map does.
    Async,
}

/// What the map callback, the poller and the readback share about one map.
pub(crate) struct MapShared {
    state: Mutex<MapState>,
    device: wgpu::Device,
}

#[derive(Default)]
struct MapState {
    /// Set by the map callback: `Ok` when the staging buffer is mapped.
    completed: Option<Result<(), String>>,
    /// Set by the poller when the deadline passed first.
    timed_out: bool,
    waker: Option<Waker>,
    /// The staging buffer of a readback dropped before its map completed: the callback
    /// unmaps it and returns it to the pool, or discards it if the map failed.
    abandoned: Option<PooledBuffer>,
}

impl Drop for MapState {
    fn drop(&mut self) {
        // The callback never came (the device went away): the buffer's state is unknown.
        if let Some(buffer) = self.abandoned.take() {
            buffer.discard();
        }
    }
}

impl MapShared {
    fn lock(&self) -> MutexGuard<'_, MapState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn finished(&self) -> bool {
        let state = self.lock();
        state.completed.is_some() || state.timed_out || state.abandoned.is_some()
    }

    fn expire(&self) {
        let mut state = self.lock();
        if state.completed.is_none() {
            state.timed_out = true;
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }
    }

    fn complete(&self, result: Result<(), wgpu::BufferAsyncError>) {
        let mut state = self.lock();
        match state.abandoned.take() {
            Some(buffer) if result.is_ok() => buffer.unmap_and_return(&self.device),
            Some(buffer) => buffer.discard(),
            None => {
                state.completed = Some(result.map_err(|e| e.to_string()));
                if let Some(waker) = state.waker.take() {
                    waker.wake();
                }
            }
        }
    }
}

/// A staging buffer that receives a copy of device data and is then mapped and read.
pub(crate) struct Readback {
    staging: Option<PooledBuffer>,
    /// Bytes of data, and the mapped size (rounded up to 4).
    bytes: u64,
    padded: u64,
    shared: Arc<MapShared>,
    started: bool,
}

impl Readback {
    pub(crate) fn new(device: &wgpu::Device, staging: PooledBuffer, bytes: u64) -> Self {
        let shared = Arc::new(MapShared { state: Mutex::default(), device: device.clone() });
        Readback { staging: Some(staging), bytes, padded: bytes.next_multiple_of(4), shared, started: false }
    }

    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        match &self.staging {
            Some(staging) => staging.buffer(),
            None => unreachable!("the staging buffer leaves only in drop"),
        }
    }

    /// Requests the map; call after the submission that copies into the staging buffer.
    pub(crate) fn start(&mut self) {
        let shared = Arc::clone(&self.shared);
        self.buffer().map_async(wgpu::MapMode::Read, 0..self.padded, move |result| shared.complete(result));
        self.started = true;
    }

    /// Waits until the map completes (or `timeout` passes), then copies the data into `out`,
    /// which holds exactly as many elements.
    pub(crate) async fn read_into<T: bytemuck::Pod>(
        &mut self,
        device: &wgpu::Device,
        poller: &Poller,
        wait: Wait,
        timeout: Duration,
        out: &mut [T],
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        match wait {
            Wait::Block => self.block_until_mapped(device, &poller.shared.driver_lock, deadline, timeout)?,
            Wait::Async => {
                poller.watch(Arc::clone(&self.shared), deadline);
                MapFuture { shared: &self.shared }.await;
            }
        }
        let outcome = {
            let state = self.shared.lock();
            match (&state.completed, state.timed_out) {
                (Some(result), _) => result.clone(),
                (None, _) => return Err(Error::Timeout { during: "readback", after: timeout }),
            }
        };
        outcome.map_err(|message| Error::Gpu { during: "readback", message })?;
        self.copy_out(out)
    }

    fn block_until_mapped(
        &self,
        device: &wgpu::Device,
        driver_lock: &DriverLock,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        loop {
            if self.shared.lock().completed.is_some() {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Timeout { during: "readback", after: timeout });
            }
            // A wait that times out can race another thread's submit into a wgpu-core assertion
            // (gfx-rs/wgpu#9958); this one times out only at the call's deadline.
            let polled = {
                let _driver = driver_lock.hold();
                device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(left) })
            };
            match polled {
                Ok(_) | Err(wgpu::PollError::Timeout) => {}
                Err(e) => return Err(Error::Gpu { during: "readback", message: e.to_string() }),
            }
            // Another thread's poll may be running our callback right now.
            if self.shared.lock().completed.is_none() {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    fn copy_out<T: bytemuck::Pod>(&mut self, out: &mut [T]) -> Result<()> {
        let view = self
            .buffer()
            .slice(0..self.padded)
            .get_mapped_range()
            .map_err(|e| Error::Gpu { during: "readback", message: e.to_string() })?;
        let data = &view[..self.bytes as usize];
        let target: &mut [u8] = bytemuck::cast_slice_mut(out);
        if target.len() != data.len() {
            return Err(Error::Gpu {
                during: "readback",
                message: format!("{} bytes read back into {}", data.len(), target.len()),
            });
        }
        target.copy_from_slice(data);
        Ok(())
    }
}

impl Drop for Readback {
    fn drop(&mut self) {
        let Some(staging) = self.staging.take() else { return };
        if !self.started {
            return; // never mapped: back to the pool as it is
        }
        let mut state = self.shared.lock();
        match &state.completed {
            Some(Ok(())) => staging.unmap_and_return(&self.shared.device),
            Some(Err(_)) => staging.discard(),
            None => state.abandoned = Some(staging),
        }
    }
}

struct MapFuture<'a> {
    shared: &'a MapShared,
}

impl Future for MapFuture<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        let mut state = self.shared.lock();
        if state.completed.is_some() || state.timed_out {
            return Poll::Ready(());
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// One thread per context that polls the device while asynchronous reads are waiting, and
/// expires those whose deadline passed. It starts with the first such read and ends after a
/// second with none, or when the context goes.
pub(crate) struct Poller {
    shared: Arc<PollerShared>,
    /// The threads started, joined when the context goes: a poller still inside the driver
    /// (or dropping the last device handle) while the process exits has crashed Mesa's GL
    /// driver at exit.
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

struct PollerShared {
    device: wgpu::Device,
    driver_lock: DriverLock,
    state: Mutex<PollerState>,
    wake: Condvar,
}

#[derive(Default)]
struct PollerState {
    watches: Vec<(Arc<MapShared>, Instant)>,
    running: bool,
    shutdown: bool,
}

/// The poller's pause between polls that completed nothing grows from the first to the second.
const MIN_BACKOFF: Duration = Duration::from_micros(20);
const MAX_BACKOFF: Duration = Duration::from_millis(1);
/// How long the thread stays without work before it ends.
const IDLE_EXIT: Duration = Duration::from_secs(1);

impl Poller {
    pub(crate) fn new(device: wgpu::Device, driver_lock: DriverLock) -> Self {
        let shared = Arc::new(PollerShared { device, driver_lock, state: Mutex::default(), wake: Condvar::new() });
        Poller { shared, threads: Mutex::default() }
    }

    fn lock(shared: &PollerShared) -> MutexGuard<'_, PollerState> {
        shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn watch(&self, map: Arc<MapShared>, deadline: Instant) {
        let mut state = Self::lock(&self.shared);
        state.watches.push((map, deadline));
        if state.running {
            self.shared.wake.notify_one();
            return;
        }
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new().name("wgpu-activations-poller".into()).spawn(move || run(&shared));
        // Without a thread (the system refused one) the watch still ends at its deadline: the
        // next read's thread, or a blocking call's poll, completes it.
        state.running = spawned.is_ok();
        if let Ok(handle) = spawned {
            let mut threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
            threads.retain(|t| !t.is_finished());
            threads.push(handle);
        }
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        Self::lock(&self.shared).shutdown = true;
        self.shared.wake.notify_all();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|p| p.into_inner()));
        let current = std::thread::current().id();
        for thread in threads {
            // Never join itself (a context dropped by a callback on the poller thread).
            if thread.thread().id() != current {
                let _ = thread.join();
            }
        }
    }
}

fn run(shared: &PollerShared) {
    let mut backoff = MIN_BACKOFF;
    let mut last_pending = 0;
    loop {
        {
            let mut state = Poller::lock(shared);
            loop {
                state.watches.retain(|(map, _)| !map.finished());
                if state.shutdown {
                    state.running = false;
                    return;
                }
                if !state.watches.is_empty() {
                    break;
                }
                let (next, waited) = shared.wake.wait_timeout(state, IDLE_EXIT).unwrap_or_else(|p| p.into_inner());
                state = next;
                if waited.timed_out() && state.watches.is_empty() {
                    state.running = false;
                    return;
                }
            }
        }
        // Non-blocking polls with a backoff, never a wait with a timeout: in wgpu-core 30 a
        // timed-out wait racing another thread's submit can trip an internal assertion
        // (gfx-rs/wgpu#9958), and the poller's short waits would time out all the time.
        {
            let _driver = shared.driver_lock.hold();
            let _ = shared.device.poll(wgpu::PollType::Poll);
        }
        let pending = Poller::lock(shared).watches.iter().filter(|(map, _)| !map.finished()).count();
        if pending == last_pending {
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(MAX_BACKOFF);
        } else {
            backoff = MIN_BACKOFF;
        }
        last_pending = pending;
        let now = Instant::now();
        let state = Poller::lock(shared);
        for (map, deadline) in &state.watches {
            if *deadline <= now {
                map.expire();
            }
        }
    }
}
