//! Serialising a context's own driver work where the backend needs it.
//!
//! wgpu's GL backend guards the driver with one context lock, and a thread that waits for it
//! more than 6 seconds panics (wgpu-hal `gles/egl.rs`). A first compile of a large kernel (a
//! fused chain on the software f64 path) holds that lock longer on llvmpipe, so two threads
//! sharing a GL context could panic. There, the context's threads (callers and the poller)
//! take this lock first, which has no timeout. It is re-entrant per thread, since a wgpu call
//! made under it can run our callbacks, which make wgpu calls of their own.

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard};

thread_local! {
    /// How deeply this thread holds a driver lock.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// The lock: present on backends that need it (GL), absent elsewhere.
#[derive(Clone, Default)]
pub(crate) struct DriverLock(Option<Arc<Mutex<()>>>);

/// Held while a thread does driver work; released on drop.
pub(crate) struct DriverGuard<'a> {
    _guard: Option<MutexGuard<'a, ()>>,
    counted: bool,
}

impl DriverLock {
    pub(crate) fn for_backend(backend: wgpu::Backend) -> Self {
        DriverLock((backend == wgpu::Backend::Gl).then(Arc::default))
    }

    pub(crate) fn hold(&self) -> DriverGuard<'_> {
        let Some(mutex) = &self.0 else { return DriverGuard { _guard: None, counted: false } };
        let depth = DEPTH.with(Cell::get);
        DEPTH.with(|d| d.set(depth + 1));
        let guard = (depth == 0).then(|| mutex.lock().unwrap_or_else(|p| p.into_inner()));
        DriverGuard { _guard: guard, counted: true }
    }
}

impl Drop for DriverGuard<'_> {
    fn drop(&mut self) {
        if self.counted {
            DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_reentrant_on_one_thread_and_exclusive_across_threads() {
        let lock = DriverLock::for_backend(wgpu::Backend::Gl);
        let outer = lock.hold();
        let inner = lock.hold(); // would deadlock if not re-entrant
        drop(inner);
        let other = lock.clone();
        let taken = std::thread::spawn(move || other.0.as_ref().is_some_and(|m| m.try_lock().is_ok()));
        assert!(!taken.join().unwrap_or(true), "another thread took the lock while it was held");
        drop(outer);
        let other = lock.clone();
        let taken = std::thread::spawn(move || other.0.as_ref().is_some_and(|m| m.try_lock().is_ok()));
        assert!(taken.join().unwrap_or(false), "the lock stayed held after its guards were dropped");
        assert!(DriverLock::for_backend(wgpu::Backend::Vulkan).0.is_none());
    }
}
