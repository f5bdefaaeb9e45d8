//! Knowing that the device is gone: the device-lost flag, set by wgpu's lost callback, and a
//! way to tell a destroyed device at once, before that callback comes.
//!
//! Natively wgpu marks a destroyed device invalid at once but calls the lost callback only
//! from a poll that finds its queue empty, and meanwhile drops every error about it: work on
//! it does nothing, silently (a dispatch, an upload into a pooled buffer, a bind group over
//! the application's buffer). One request does answer at once: mapping a buffer of an invalid
//! device fails inside `map_async`, before it returns, where on a valid device the map is only
//! scheduled. The question takes a new 4-byte buffer each time it is asked (only where a poll
//! left work in flight): one buffer mapped and unmapped again races with another thread's
//! poll, which holds a map's state idle for a moment while it completes the map.
//!
//! In the browser the `lost` promise resolves turns of the event loop later (in Chromium,
//! after more than one task), but `destroy()` unmaps every buffer of the device before it
//! returns, so a buffer kept mapped (or with its map pending) reads "unmapped" from then on: a
//! 4-byte buffer kept mapped for the context's life (the sentinel) answers.

#[cfg(not(target_arch = "wasm32"))]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The reason recorded when the sentinel finds the device invalid before wgpu reported it.
const INVALID: &str = "Destroyed: the device is no longer valid (destroyed or lost while work was in flight)";

pub(crate) struct DeviceLoss {
    reason: Arc<Mutex<Option<String>>>,
    /// The sentinel, its map requested once and never undone.
    #[cfg(target_arch = "wasm32")]
    sentinel: wgpu::Buffer,
}

impl DeviceLoss {
    /// Registers the device's lost callback (replacing an earlier one; in the browser, adding
    /// one) and, in the browser, creates the sentinel.
    pub(crate) fn watch(device: &wgpu::Device) -> Self {
        let reason = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&reason);
        device.set_device_lost_callback(move |why, message| {
            *flag.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{why:?}: {message}"));
        });
        #[cfg(target_arch = "wasm32")]
        let sentinel = new_sentinel(device);
        #[cfg(target_arch = "wasm32")]
        sentinel.map_async(wgpu::MapMode::Read, .., |_| {});
        Self {
            reason,
            #[cfg(target_arch = "wasm32")]
            sentinel,
        }
    }

    fn record_invalid(&self) {
        let mut reason = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        reason.get_or_insert_with(|| INVALID.to_string());
    }

    /// Why the device was lost, once it is known to be.
    pub(crate) fn reason(&self) -> Option<String> {
        self.reason.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Polls the device once (without waiting) unless its loss is recorded; where the poll
    /// leaves work in flight, or `after_error` (a call failed: the question is rare there, and
    /// another thread's poll may be completing the loss, its map failures delivered and its
    /// lost callback not yet, while this poll finds the queue empty), asks a sentinel whether
    /// the device is still valid. The caller holds the driver lock.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn notice(&self, device: &wgpu::Device, after_error: bool) {
        if self.reason().is_some() {
            return;
        }
        // With an empty queue, the poll itself calls the lost callback of a destroyed device.
        let emptied = matches!(device.poll(wgpu::PollType::Poll), Ok(status) if status.is_queue_empty());
        if (emptied && !after_error) || self.reason().is_some() {
            return;
        }
        if !self.device_is_valid(device) {
            self.record_invalid();
        }
    }

    /// Records the loss of a destroyed device: its sentinel, mapped or with its map pending
    /// since the context was made, reads "unmapped" (on WebGL, which has no such buffer, only
    /// the lost callback tells).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn notice(&self, _device: &wgpu::Device, _after_error: bool) {
        use js_sys::wasm_bindgen::JsValue;
        if self.reason().is_some() {
            return;
        }
        let Some(buffer) = self.sentinel.as_webgpu() else { return };
        let state = js_sys::Reflect::get(buffer, &JsValue::from_str("mapState")).ok().and_then(|s| s.as_string());
        if state.as_deref() == Some("unmapped") {
            self.record_invalid();
        }
    }

    /// Requests a map of a new sentinel: refused before `map_async` returns only where the
    /// device is invalid (its buffers are invalid too).
    #[cfg(not(target_arch = "wasm32"))]
    fn device_is_valid(&self, device: &wgpu::Device) -> bool {
        let refused = Arc::new(AtomicBool::new(false));
        let answer = Arc::clone(&refused);
        // On an invalid device the new buffer is invalid, and mapping it is a validation error
        // besides the refusal: the scope keeps that from the application's error handler.
        let mut sentinel = None;
        super::platform::quietly(device, || {
            let buffer = sentinel.insert(new_sentinel(device));
            buffer.map_async(wgpu::MapMode::Read, .., move |result| {
                if result.is_err() {
                    answer.store(true, Ordering::Relaxed);
                }
            });
        });
        // Read before the sentinel is dropped: dropping it aborts its pending map.
        let valid = !refused.load(Ordering::Relaxed);
        drop(sentinel);
        valid
    }
}

/// A 4-byte buffer to map, asking whether the device is valid.
fn new_sentinel(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgpu-activations.loss_sentinel"),
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    })
}
