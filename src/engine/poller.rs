//! What completes the maps that awaited calls wait for. Natively, one thread per context that
//! polls the device while such maps are pending; in the browser, the page's event loop, with
//! a timer for each map's deadline.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use native::Poller;
#[cfg(target_arch = "wasm32")]
pub(crate) use web::Poller;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::{Arc, Condvar, Mutex, MutexGuard};
    use std::time::{Duration, Instant};

    use super::super::driver_lock::DriverLock;
    use super::super::readback::MapShared;

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

        /// Completes `map` (or expires it after `timeout`) while a future waits for it.
        pub(crate) fn watch(&self, map: Arc<MapShared>, timeout: Duration) {
            let deadline = Instant::now() + timeout;
            let mut state = Self::lock(&self.shared);
            state.watches.push((map, deadline));
            if state.running {
                self.shared.wake.notify_one();
                return;
            }
            let shared = Arc::clone(&self.shared);
            let spawned =
                std::thread::Builder::new().name("wgpu-activations-poller".into()).spawn(move || run(&shared));
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
}

#[cfg(target_arch = "wasm32")]
mod web {
    use std::sync::Arc;
    use std::time::Duration;

    use super::super::driver_lock::DriverLock;
    use super::super::readback::MapShared;

    /// The browser completes maps from its event loop; this only arms each map's deadline.
    pub(crate) struct Poller;

    impl Poller {
        pub(crate) fn new(_device: wgpu::Device, _driver_lock: DriverLock) -> Self {
            Poller
        }

        /// Expires `map` after `timeout` unless it completed by then.
        pub(crate) fn watch(&self, map: Arc<MapShared>, timeout: Duration) {
            super::super::platform::after(timeout, move || map.expire());
        }
    }
}
