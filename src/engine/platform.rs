//! What differs between a native thread and a browser page, in one place.
//!
//! Natively wgpu answers error scopes at once and a thread may wait for the GPU, polling the
//! device. In the browser (wasm32) only the page's event loop completes an error scope or a
//! map, and a thread that waits never sees it: nothing here blocks there, and what cannot be
//! known at once is handed to the event loop, to be reported by the next awaited call.

use std::future::Future;
#[cfg(target_arch = "wasm32")]
use std::time::Duration;

/// Runs `work` in a validation scope of its own and returns what the scope caught, where that
/// can be known at once. In the browser it cannot: there `work` runs in the caller's scopes
/// ([`super::Context::scoped`]), which report it at the next awaited call.
pub(crate) fn caught_now<R>(device: &wgpu::Device, work: impl FnOnce() -> R) -> (R, Option<wgpu::Error>) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = work();
        (result, pollster::block_on(scope.pop()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = device;
        (work(), None)
    }
}

/// Runs `work` (driver work outside any call: an unmap in a drop or a callback, which fails
/// only on a lost device) in a validation scope, and says whether it caught an error where
/// that can be known at once; in the browser the scope's answer is dropped when it comes.
pub(crate) fn quietly(device: &wgpu::Device, work: impl FnOnce()) -> bool {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    work();
    now_or_later(scope.pop(), |_| {}).is_some()
}

/// Natively: `pop`'s answer, which wgpu-core has already given. In the browser: `None` at
/// once, and the event loop passes what the scope caught to `later`.
pub(crate) fn now_or_later<F>(pop: F, later: impl FnOnce(wgpu::Error) + 'static) -> Option<wgpu::Error>
where
    F: Future<Output = Option<wgpu::Error>> + 'static,
{
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = later;
        pollster::block_on(pop)
    }
    #[cfg(target_arch = "wasm32")]
    {
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(error) = pop.await {
                later(error);
            }
        });
        None
    }
}

/// Calls `expire` after `timeout` on the page's event loop (a readback's or a check's
/// deadline: the browser completes maps, so nothing else would end one that never comes).
#[cfg(target_arch = "wasm32")]
pub(crate) fn after(timeout: Duration, expire: impl FnOnce() + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        sleep(timeout).await;
        expire();
    });
}

/// A future that completes after `duration`, through the global `setTimeout` (a window's or
/// a worker's).
#[cfg(target_arch = "wasm32")]
pub(crate) async fn sleep(duration: Duration) {
    use wasm_bindgen::{JsCast, JsValue};
    let millis = duration.as_secs_f64() * 1000.0;
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let global = js_sys::global();
        let set_timeout = js_sys::Reflect::get(&global, &JsValue::from_str("setTimeout"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        match set_timeout {
            Some(set_timeout) => {
                let _ = set_timeout.call2(&global, &resolve, &JsValue::from_f64(millis));
            }
            // No timer in this global: resolve at once rather than never.
            None => {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// What lets a host call block its thread until the GPU answers: every element type has it,
/// except in the browser (wasm32), where a thread that waits never sees the GPU's answer (the
/// page's event loop delivers it). There the blocking calls do not compile, and the error
/// names their `_async` twins.
#[cfg_attr(
    target_arch = "wasm32",
    diagnostic::on_unimplemented(
        message = "blocking calls do not exist in the browser: call the `_async` twin and await it",
        label = "this call would wait for the GPU on the page's only thread, which never sees the answer",
        note = "leaky_relu_async, elu_async, prelu_async, activations_async, activations_in_place_async, \
                prelu_in_place_async, Context::new_async, Context::download_async"
    )
)]
pub trait Blocking: crate::dtype::Element {
    /// Runs `future` to completion on this thread.
    #[doc(hidden)]
    fn block_on<F: std::future::Future>(future: F) -> F::Output;
}

#[cfg(not(target_arch = "wasm32"))]
impl<T: crate::dtype::Element> Blocking for T {
    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        pollster::block_on(future)
    }
}
