// Starts a page of the wasm module: loads it and runs the page's entry point. Where either
// fails, the page's output element says so, and `globalThis.pageFailure` tells the xtask
// driver (which otherwise waits for the page's report).
import init, * as pages from "./pkg/wgpu_activations_web.js";

export async function start(entry, output) {
  try {
    await init();
    await pages[entry]();
  } catch (e) {
    globalThis.pageFailure = String(e);
    document.getElementById(output).textContent = "FAIL " + e;
  }
}
