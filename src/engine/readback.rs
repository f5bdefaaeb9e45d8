//! Reading device buffers back: staging buffers and their maps, completed by polling on the
//! calling thread (blocking calls), by the context's poller (awaited calls), or in the
//! browser by its event loop.
//!
//! Cancel safety: a [`Readback`] dropped at any point leaves nothing mapped or pending in the
//! pool. Whoever finishes last, the map callback or the dropped readback, unmaps the staging
//! buffer and returns it to the pool; a buffer whose map failed or never completed is dropped
//! instead of pooled. Nothing unmaps a buffer while its map is pending.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use super::driver_lock::DriverLock;
use super::poller::Poller;
use super::pool::PooledBuffer;
use crate::error::{Error, Result};

/// How a readback waits for the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Poll the device on the calling thread (never in the browser).
    #[cfg(not(target_arch = "wasm32"))]
    Block,
    /// Let the context's poller (in the browser, the event loop) complete the map; the future
    /// completes when the map does.
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

    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn finished(&self) -> bool {
        let state = self.lock();
        state.completed.is_some() || state.timed_out || state.abandoned.is_some()
    }

    pub(super) fn expire(&self) {
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
        poller: &Poller,
        driver_lock: &DriverLock,
        wait: Wait,
        timeout: Duration,
        out: &mut [T],
    ) -> Result<()> {
        match wait {
            #[cfg(not(target_arch = "wasm32"))]
            Wait::Block => self.block_until_mapped(driver_lock, timeout)?,
            Wait::Async => {
                let _ = driver_lock;
                poller.watch(Arc::clone(&self.shared), timeout);
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

    #[cfg(not(target_arch = "wasm32"))]
    fn block_until_mapped(&self, driver_lock: &DriverLock, timeout: Duration) -> Result<()> {
        let device = &self.shared.device;
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if self.shared.lock().completed.is_some() {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
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
            return Err(Error::Internal { what: format!("{} bytes read back into {}", data.len(), target.len()) });
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
