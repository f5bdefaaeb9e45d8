//! What the pages need from the browser: fetching files served beside the page, the query
//! string, the clock, text in elements, and state published for whoever drives the page
//! (`cargo xtask test-wasm` and `cargo xtask web` read it through WebDriver).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn window() -> Result<web_sys::Window, String> {
    web_sys::window().ok_or_else(|| "no window: the pages run on a page's main thread".to_string())
}

/// One line naming a JavaScript exception.
pub fn js_error(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// The bytes of `url` (relative to the page), or why not.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response =
        JsFuture::from(window()?.fetch_with_str(url)).await.map_err(|e| format!("{url}: {}", js_error(&e)))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| format!("{url}: not a response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let buffer = response.array_buffer().map_err(|e| format!("{url}: {}", js_error(&e)))?;
    let buffer = JsFuture::from(buffer).await.map_err(|e| format!("{url}: {}", js_error(&e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// The text of `url`.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    String::from_utf8(fetch_bytes(url).await?).map_err(|_| format!("{url}: not UTF-8"))
}

/// The query string's value of `name` (`?auto=1&image=x.png`).
pub fn param(name: &str) -> Option<String> {
    let search = window().ok()?.location().search().ok()?;
    search.trim_start_matches('?').split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key == name).then(|| js_sys::decode_uri_component(value).ok().map(String::from)).flatten()
    })
}

/// Milliseconds from `performance.now()`.
pub fn now_ms() -> f64 {
    window().ok().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Sets `globalThis[name]`, where the driver of the page reads it.
pub fn publish(name: &str, value: &JsValue) {
    let _ = Reflect::set(&js_sys::global(), &JsValue::from_str(name), value);
}

/// The element with `id`.
pub fn element(id: &str) -> Option<web_sys::Element> {
    window().ok()?.document()?.get_element_by_id(id)
}

/// Sets the text of the element with `id`, if there is one.
pub fn set_text(id: &str, text: &str) {
    if let Some(element) = element(id) {
        element.set_text_content(Some(text));
    }
}

/// Sets the HTML of the element with `id` (markup this crate writes, with values escaped).
pub fn set_html(id: &str, html: &str) {
    if let Some(element) = element(id) {
        element.set_inner_html(html);
    }
}

/// `text` with HTML's special characters escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Lets the browser run its event loop (paint, deliver callbacks) before going on.
pub async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Ok(window) = window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// A context on the page's WebGPU adapter, or why there is none.
pub async fn context(options: wgpu_activations::ContextOptions) -> Result<wgpu_activations::Context, String> {
    wgpu_activations::Context::new_async(options.with_backends(wgpu::Backends::BROWSER_WEBGPU))
        .await
        .map_err(|e| format!("no WebGPU context: {e}"))
}

/// A context on a device the page requested itself and hands over, as an application that
/// draws with WebGPU would: `Context::from_device_async`, which awaits the subnormal probe so
/// the adopted device is measured like a created one.
pub async fn adopted_context(options: wgpu_activations::ContextOptions) -> Result<wgpu_activations::Context, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|e| format!("no WebGPU adapter for the page's own device: {e}"))?;
    // The application's own choice: f16 where the adapter has it, the adapter's limits.
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("web.own_device"),
            required_features: adapter.features() & wgpu::Features::SHADER_F16,
            required_limits: adapter.limits(),
            ..Default::default()
        })
        .await
        .map_err(|e| format!("no device for the page: {e}"))?;
    Ok(wgpu_activations::Context::from_device_async(device, queue, &adapter, options).await)
}

/// The adapter in words, for reports: wgpu's name for it where it has one, else what the
/// browser's `GPUAdapter.info` says (vendor, architecture, description).
pub async fn adapter_name(ctx: &wgpu_activations::Context) -> String {
    let adapter = &ctx.info().adapter;
    let name = [adapter.name.as_str(), adapter.driver.as_str(), adapter.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let name = if name.is_empty() { browser_adapter().await } else { name };
    format!("{} (WebGPU)", if name.is_empty() { "an unnamed adapter" } else { &name })
}

/// The browser's own description of its WebGPU adapter: `GPUAdapter.info`'s vendor,
/// architecture and description, or an empty string.
async fn browser_adapter() -> String {
    let get = |target: &JsValue, key: &str| Reflect::get(target, &JsValue::from_str(key)).ok();
    let Some(gpu) = window().ok().and_then(|w| get(&w.navigator().into(), "gpu")).filter(|g| g.is_object()) else {
        return String::new();
    };
    let Some(request) = get(&gpu, "requestAdapter").and_then(|f| f.dyn_into::<js_sys::Function>().ok()) else {
        return String::new();
    };
    let Ok(promise) = request.call0(&gpu).and_then(|p| p.dyn_into::<js_sys::Promise>()) else {
        return String::new();
    };
    let Ok(adapter) = JsFuture::from(promise).await else { return String::new() };
    let Some(info) = get(&adapter, "info").filter(|i| i.is_object()) else { return String::new() };
    ["vendor", "architecture", "description"]
        .iter()
        .filter_map(|key| get(&info, key).and_then(|v| v.as_string()).filter(|v| !v.is_empty()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A small deterministic generator (xorshift64*), so that every run draws the same inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Completes when the work submitted to `queue` so far is done.
pub async fn work_done(queue: &wgpu::Queue) {
    called_back(|done| queue.on_submitted_work_done(move || done(()))).await;
}

/// Completes when `buffer`'s map for reading is done (or failed: the error in words).
pub async fn mapped_for_reading(buffer: &wgpu::Buffer) -> Result<(), String> {
    called_back(|done| {
        buffer.map_async(wgpu::MapMode::Read, .., move |outcome| done(outcome.map_err(|e| e.to_string())))
    })
    .await
}

/// The value that `start`'s callback is given, once it is called: a browser callback (a
/// promise's) as a future the page's executor wakes.
async fn called_back<T: Send + 'static>(start: impl FnOnce(Box<dyn FnOnce(T) + Send>)) -> T {
    use std::sync::{Arc, Mutex};
    use std::task::{Poll, Waker};
    let state: Arc<Mutex<(Option<T>, Option<Waker>)>> = Arc::new(Mutex::new((None, None)));
    let callback_state = Arc::clone(&state);
    start(Box::new(move |value| {
        let mut state = callback_state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 = Some(value);
        if let Some(waker) = state.1.take() {
            waker.wake();
        }
    }));
    std::future::poll_fn(|cx| {
        let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
        match state.0.take() {
            Some(value) => Poll::Ready(value),
            None => {
                state.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    })
    .await
}
