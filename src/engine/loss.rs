//! Knowing that the device is gone: the device-lost flag, set by wgpu's lost callback, and a
//! way to tell a destroyed device at once, before that callback comes.
//!
//! Natively wgpu marks a destroyed device invalid at once but calls the lost callback only
//! from a poll that finds its queue empty, and meanwhile drops every error about it: work on
//! it does nothing, silently (a dispatch, an upload into a pooled buffer, a bind group over
//! the application's buffer). One request does answer at once: mapping a buffer of an invalid
//! device fails inside `map_async`, before it returns, where on a valid device the map is only
//! scheduled. In the browser the `lost` promise resolves turns of the event loop later (in
//! Chromium, after more than one task), but `destroy()` unmaps every buffer of the device
//! before it returns, so a buffer kept mapped (or with its map pending) reads "unmapped" from
//! then on. Either way a 4-byte buffer kept for the question (the sentinel) makes it cheap.

#[cfg(not(target_arch = "wasm32"))]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The reason recorded when the sentinel finds the device invalid before wgpu reported it.
const INVALID: &str = "Destroyed: the device is no longer valid (destroyed or lost while work was in flight)";

pub(crate) struct DeviceLoss {
    reason: Arc<Mutex<Option<String>>>,
    /// The sentinel and whether a map of it was requested (and must be undone before the next).
    #[cfg(not(target_arch = "wasm32"))]
    sentinel: Mutex<(wgpu::Buffer, bool)>,
    /// The sentinel, its map requested once and never undone.
    #[cfg(target_arch = "wasm32")]
    sentinel: wgpu::Buffer,
}

impl DeviceLoss {
    /// Registers the device's lost callback (replacing an earlier one; in the browser, adding
    /// one) and creates the sentinel.
    pub(crate) fn watch(device: &wgpu::Device) -> Self {
        let reason = Arc::new(Mutex::new(None));
        let flag = Arc::clone(&reason);
        device.set_device_lost_callback(move |why, message| {
            *flag.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{why:?}: {message}"));
        });
        let sentinel = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-activations.loss_sentinel"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        #[cfg(target_arch = "wasm32")]
        sentinel.map_async(wgpu::MapMode::Read, .., |_| {});
        Self {
            reason,
            #[cfg(not(target_arch = "wasm32"))]
            sentinel: Mutex::new((sentinel, false)),
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
    /// leaves work in flight, asks the sentinel whether the device is still valid. The caller
    /// holds the driver lock.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn notice(&self, device: &wgpu::Device) {
        if self.reason().is_some() {
            return;
        }
        // With an empty queue, the poll itself calls the lost callback of a destroyed device.
        if matches!(device.poll(wgpu::PollType::Poll), Ok(status) if status.is_queue_empty()) {
            return;
        }
        if !self.device_is_valid() {
            self.record_invalid();
        }
    }

    /// Records the loss of a destroyed device: its sentinel, mapped or with its map pending
    /// since the context was made, reads "unmapped" (on WebGL, which has no such buffer, only
    /// the lost callback tells).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn notice(&self, _device: &wgpu::Device) {
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

    /// Requests a map of the sentinel: refused before `map_async` returns only where the
    /// device is invalid. The request it replaces (pending or done) is undone first; its
    /// callback then reports an abort nobody reads.
    #[cfg(not(target_arch = "wasm32"))]
    fn device_is_valid(&self) -> bool {
        let mut sentinel = self.sentinel.lock().unwrap_or_else(|p| p.into_inner());
        let (buffer, requested) = &mut *sentinel;
        if *requested {
            buffer.unmap();
        }
        let refused = Arc::new(AtomicBool::new(false));
        let answer = Arc::clone(&refused);
        buffer.map_async(wgpu::MapMode::Read, .., move |result| {
            if result.is_err() {
                answer.store(true, Ordering::Relaxed);
            }
        });
        let valid = !refused.load(Ordering::Relaxed);
        *requested = valid;
        valid
    }
}
