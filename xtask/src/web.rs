//! The web: the pages' wasm module built with wasm-bindgen (`--target web`, no bundler) into
//! `target/web/`, the browser suite run in headless Chromium (`cargo xtask test-wasm`), and the
//! demo page served on 127.0.0.1 (`cargo xtask web`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::browser::{Browser, CHROMEDRIVER, CHROMIUM, Server};
use crate::drivers::apt_install;
use crate::{Error, Result, cargo_checked, run, workspace_root};

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const WEB_PACKAGE: &str = "wgpu-activations-web";
/// A check that reports nothing for this long is ended as hung, and the page resumes after it.
const CHECK_LIMIT: Duration = Duration::from_secs(120);
/// A page that publishes nothing at all for this long (no wasm, no adapter) fails the run.
const PAGE_LIMIT: Duration = Duration::from_secs(90);
/// The demo page's whole run, every dtype, on a software adapter.
const DEMO_LIMIT: Duration = Duration::from_secs(300);

/// Makes sure the wasm32 target, wasm-bindgen-cli at the version Cargo.lock pins, and Debian's
/// chromium and chromium-driver are present, installing what is missing.
pub(crate) fn ensure_web_tools() -> Result<()> {
    crate::targets::ensure_rust_targets(&[WASM_TARGET])?;
    let version = locked_version("wasm-bindgen")?;
    let have = Command::new("wasm-bindgen").arg("--version").output();
    let have = have.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    if have != format!("wasm-bindgen {version}") {
        println!("xtask: installing wasm-bindgen-cli {version} (Cargo.lock's wasm-bindgen; found {have:?})");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // Not --locked: one of the CLI's own locked dependencies is not on crates.io any more.
        if !run(Command::new(cargo).args(["install", "wasm-bindgen-cli", "--version", &version]))?.success() {
            return Err(Error(format!("could not install wasm-bindgen-cli {version}")));
        }
    }
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        if !Path::new("/etc/debian_version").exists() {
            return Err(Error(format!(
                "the browser suite needs Chromium and chromedriver at {CHROMIUM} and {CHROMEDRIVER}"
            )));
        }
        println!("xtask: installing Debian's chromium and chromium-driver");
        apt_install(&["chromium", "chromium-driver"])?;
    }
    Ok(())
}

/// The version of `package` in Cargo.lock.
fn locked_version(package: &str) -> Result<String> {
    let lock =
        std::fs::read_to_string(workspace_root().join("Cargo.lock")).map_err(|e| Error(format!("Cargo.lock: {e}")))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = lock.find(&needle).ok_or_else(|| Error(format!("Cargo.lock has no {package}")))? + needle.len();
    Ok(lock[start..].split('"').next().unwrap_or_default().to_string())
}

/// `target/web/`: the pages, the wasm module and its JavaScript glue, and the listing of the
/// committed ONNX cases, which are served from `tests/data/onnx` as they are.
pub(crate) fn build() -> Result<PathBuf> {
    let root = workspace_root();
    cargo_checked(
        "build the pages' wasm module",
        &["build", "--profile", "web", "--target", WASM_TARGET, "-p", WEB_PACKAGE],
    )?;
    let out = root.join("target/web");
    let wasm = root.join(format!("target/{WASM_TARGET}/web/{}.wasm", WEB_PACKAGE.replace('-', "_")));
    let bindgen = run(Command::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(out.join("pkg"))
        .arg(&wasm))?;
    if !bindgen.success() {
        return Err(Error("wasm-bindgen failed".into()));
    }
    for entry in std::fs::read_dir(root.join("web/static")).map_err(|e| Error(format!("web/static: {e}")))? {
        let path = entry.map_err(|e| Error(e.to_string()))?.path();
        if path.is_file() {
            let target = out.join(path.file_name().unwrap_or_default());
            std::fs::copy(&path, &target).map_err(|e| Error(format!("{}: {e}", target.display())))?;
        }
    }
    std::fs::write(out.join("onnx-cases.txt"), case_listing(&root.join("tests/data/onnx"))?)
        .map_err(|e| Error(format!("onnx-cases.txt: {e}")))?;
    let module = std::fs::metadata(out.join("pkg").join(format!("{}_bg.wasm", WEB_PACKAGE.replace('-', "_"))))
        .map(|m| m.len())
        .unwrap_or(0);
    let gzipped = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(out.join("pkg").join(format!("{}_bg.wasm", WEB_PACKAGE.replace('-', "_"))))
        .output()
        .map(|o| o.stdout.len())
        .unwrap_or(0);
    println!("xtask: built {} (wasm module: {module} bytes, {gzipped} gzipped)", out.display());
    Ok(out)
}

/// Every committed case (`<group>/<case>/model.onnx` with `test_data_set_N/{input,output}_K.pb`)
/// as the suite page reads it: `case NAME MODEL`, `set NAME`, `input PATH`, `output PATH`.
fn case_listing(onnx: &Path) -> Result<String> {
    let sorted = |dir: &Path| -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
        entries.sort();
        entries
    };
    let numbered = |dir: &Path, prefix: &str| -> Vec<PathBuf> {
        let mut found: Vec<(usize, PathBuf)> = sorted(dir)
            .into_iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?.to_string();
                Some((name.strip_prefix(prefix)?.trim_end_matches(".pb").parse().ok()?, p))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, p)| p).collect()
    };
    let url = |p: &Path| format!("onnx/{}", p.strip_prefix(onnx).unwrap_or(p).display());
    let mut listing = String::new();
    for group in sorted(onnx).into_iter().filter(|p| p.is_dir()) {
        for case in sorted(&group).into_iter().filter(|p| p.join("model.onnx").is_file()) {
            let name = case.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            listing.push_str(&format!("case {name} {}\n", url(&case.join("model.onnx"))));
            for set in numbered(&case, "test_data_set_") {
                listing.push_str(&format!("set {}\n", set.file_name().and_then(|n| n.to_str()).unwrap_or_default()));
                for input in numbered(&set, "input_") {
                    listing.push_str(&format!("input {}\n", url(&input)));
                }
                for output in numbered(&set, "output_") {
                    listing.push_str(&format!("output {}\n", url(&output)));
                }
            }
        }
    }
    if listing.is_empty() {
        return Err(Error(format!("no ONNX cases under {}", onnx.display())));
    }
    Ok(listing)
}

fn serve(web: &Path, port: u16) -> Result<Server> {
    serve_with(web, port, None)
}

/// [`serve`], with ONNX Runtime Web's `dist/` at `/ort/` where given (the bench's round trip).
fn serve_with(web: &Path, port: u16, ort: Option<&Path>) -> Result<Server> {
    let root = workspace_root();
    let mut mounts = vec![("/".into(), web.to_path_buf()), ("/onnx/".into(), root.join("tests/data/onnx"))];
    if let Some(ort) = ort {
        mounts.push(("/ort/".into(), ort.to_path_buf()));
    }
    Server::start(mounts, port)
}

/// `cargo xtask test-wasm`: lints for wasm32, the module built, the browser suite in headless
/// Chromium's WebGPU, then the demo page's own check. Ends with `N passed, N failed`.
/// `library_alone_linted`: `cargo xtask test` has linted the kernel library alone for wasm32
/// already (with the other targets).
pub(crate) fn test_wasm(library_alone_linted: bool) -> Result<()> {
    ensure_web_tools()?;
    // The kernel library alone, then the pages (the CLI and the bench harness are native: they
    // block on the GPU). Clippy lints every workspace member it builds, so the pages' run lints
    // the library with its ONNX layer too, the features the pages take (a run of its own for
    // them took 40 s of the lints' 85 s).
    let library_alone: (&str, &[&str]) =
        ("the kernel library alone", &["-p", "wgpu-activations", "--no-default-features"]);
    let pages: (&str, &[&str]) = ("the pages and the library with onnx", &["-p", WEB_PACKAGE]);
    let lints = if library_alone_linted { vec![pages] } else { vec![library_alone, pages] };
    for (what, selection) in lints {
        let mut args = vec!["clippy", "--target", WASM_TARGET, "--lib"];
        args.extend_from_slice(selection);
        args.extend_from_slice(&["--", "-D", "warnings"]);
        cargo_checked(&format!("clippy for {WASM_TARGET}: {what}"), &args)?;
    }
    let web = build()?;
    let server = serve(&web, 0)?;
    let mut tally = run_suite(&server)?;
    match check_demo(&server, &web) {
        Ok(summary) => {
            println!("ok   web demo page: {summary}");
            tally.0 += 1;
        }
        Err(e) => {
            println!("FAIL web demo page: {e}");
            tally.1 += 1;
        }
    }
    println!("{} passed, {} failed", tally.0, tally.1);
    if tally.1 > 0 {
        return Err(Error(format!("{} browser check(s) failed", tally.1)));
    }
    Ok(())
}

/// Runs the suite page in [`suite_shards`] browsers side by side, each on its share of the
/// checks (`?shard=I/N`), and prints each result as it comes. Returns (passed, failed).
fn run_suite(server: &Server) -> Result<(usize, usize)> {
    let started = Instant::now();
    let shards = suite_shards();
    let outcomes: Vec<Result<(BTreeMap<usize, bool>, usize)>> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..shards).map(|shard| scope.spawn(move || run_shard(server, shard, shards))).collect();
        running
            .into_iter()
            .map(|page| page.join().unwrap_or_else(|_| Err(Error("a browser's driver thread panicked".into()))))
            .collect()
    });
    let mut results: BTreeMap<usize, bool> = BTreeMap::new();
    let mut total = 0;
    for outcome in outcomes {
        let (shard_results, shard_total) = outcome?;
        results.extend(shard_results);
        total = total.max(shard_total);
    }
    let passed = results.values().filter(|&&ok| ok).count();
    // Checks that never reported count as failed (unless a filter left them out).
    let unreported =
        if std::env::var_os("WASM_SUITE_ONLY").is_some() { 0 } else { total.saturating_sub(results.len()) };
    let failed = results.len() - passed + unreported;
    println!(
        "xtask: browser suite: {passed} passed, {failed} failed in {:.0} s ({shards} browsers side by side)",
        started.elapsed().as_secs_f64()
    );
    Ok((passed, failed))
}

/// How many browsers run the suite side by side: `WASM_SUITE_SHARDS`, else one per core up to
/// four. SwiftShader compiles a kernel on one thread, and compiling is most of the suite's time
/// (the f64 checks' software-path kernels above all): one browser left a core of two idle.
fn suite_shards() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    std::env::var("WASM_SUITE_SHARDS").ok().and_then(|s| s.parse().ok()).unwrap_or(cores.min(4)).max(1)
}

/// Runs shard `shard` of `shards` of the suite page, resuming after any check that hangs or
/// panics, and prints each result as it comes. Returns each check's verdict by its number, and
/// how many checks the page has.
///
/// Longer than 80 lines on purpose: one loop over the page's WebDriver session, whose states
/// (page loaded, result read, hang, panic, resume) read best together.
fn run_shard(server: &Server, shard: usize, shards: usize) -> Result<(BTreeMap<usize, bool>, usize)> {
    let mut results: BTreeMap<usize, bool> = BTreeMap::new();
    let mut from = 0;
    let mut total = 0;
    let mut adapter_shown = shard > 0;
    'page: loop {
        let browser = Browser::open()?;
        let only = std::env::var("WASM_SUITE_ONLY").map(|o| format!("&only={o}")).unwrap_or_default();
        browser.navigate(&server.url(&format!("suite.html?from={from}&shard={shard}/{shards}{only}")))?;
        let mut last_progress = Instant::now();
        let mut reported = 0;
        loop {
            std::thread::sleep(Duration::from_millis(250));
            let state = browser.eval(
                "return [globalThis.suiteReport || null, globalThis.suitePanic || globalThis.pageFailure || null];",
            );
            let (report, panic) = match &state {
                Ok(Value::Array(pair)) => {
                    (pair[0].as_str().and_then(|s| serde_json::from_str::<Value>(s).ok()), pair[1].as_str())
                }
                _ => (None, None),
            };
            let Some(report) = report else {
                if let Some(failure) = panic {
                    return Err(Error(format!("the suite page could not start: {failure}")));
                }
                if last_progress.elapsed() > PAGE_LIMIT {
                    let why = state.err().map_or("it published nothing".to_string(), |e| e.0);
                    return Err(Error(format!(
                        "the suite page never reported within {} s: {why}",
                        PAGE_LIMIT.as_secs()
                    )));
                }
                continue;
            };
            if let Some(fatal) = report["fatal"].as_str() {
                return Err(Error(format!("the suite page could not start: {fatal}")));
            }
            let names: Vec<&str> =
                report["names"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            total = total.max(names.len());
            if !adapter_shown {
                println!(
                    "xtask: browser suite on {} ({} checks)",
                    report["adapter"].as_str().unwrap_or("?"),
                    names.len()
                );
                adapter_shown = true;
            }
            let new: Vec<&Value> =
                report["results"].as_array().map(|a| a.iter().skip(reported).collect()).unwrap_or_default();
            for result in new {
                let index = result["index"].as_u64().unwrap_or(0) as usize;
                let ok = result["ok"].as_bool().unwrap_or(false);
                let name = names.get(index).copied().unwrap_or("?");
                println!(
                    "{} {name} ({:.0} ms): {}",
                    if ok { "ok  " } else { "FAIL" },
                    result["ms"].as_f64().unwrap_or(0.0),
                    result["detail"].as_str().unwrap_or("")
                );
                results.insert(index, ok);
                reported += 1;
                last_progress = Instant::now();
            }
            if report["done"].as_bool() == Some(true) {
                break 'page;
            }
            let running = report["running"].as_u64().map(|i| i as usize);
            let stuck = |why: String| {
                let index = running.unwrap_or(from);
                println!("FAIL {}: {why}", names.get(index).copied().unwrap_or("?"));
                index
            };
            if let Some(message) = panic {
                let index = stuck(format!("panicked: {message}"));
                results.insert(index, false);
                from = index + 1;
                continue 'page;
            }
            let limit = std::env::var("WASM_CHECK_SECONDS")
                .ok()
                .and_then(|s| s.parse().ok())
                .map_or(CHECK_LIMIT, Duration::from_secs);
            if last_progress.elapsed() > limit {
                let index = stuck(format!("no report within {} s: ended, the rest resume after it", limit.as_secs()));
                results.insert(index, false);
                from = index + 1;
                continue 'page;
            }
        }
    }
    Ok((results, total))
}

/// Opens the demo page with `?auto=1`, waits for its `summary` line, saves a screenshot as
/// `target/web/demo-screenshot.png`, and returns the line when it starts with `OK`.
fn check_demo(server: &Server, web: &Path) -> Result<String> {
    let browser = Browser::open()?;
    browser.navigate(&server.url("index.html?auto=1"))?;
    let started = Instant::now();
    let summary = loop {
        std::thread::sleep(Duration::from_millis(500));
        let text = browser.eval("const s = document.getElementById('summary'); return s ? s.textContent : '';");
        let text = text.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        if text.starts_with("OK") || text.starts_with("FAIL") {
            break text;
        }
        if started.elapsed() > DEMO_LIMIT {
            return Err(Error(format!("no summary within {} s (it reads {text:?})", DEMO_LIMIT.as_secs())));
        }
    };
    let shot = web.join("demo-screenshot.png");
    std::fs::write(&shot, browser.screenshot()?).map_err(|e| Error(format!("{}: {e}", shot.display())))?;
    println!("xtask: screenshot of the demo page: {}", shot.display());
    if summary.starts_with("OK") { Ok(summary) } else { Err(Error(summary)) }
}

/// `cargo xtask bench-web [ELEMENTS]`: the in-page bench in headless Chromium's WebGPU, printed
/// as Markdown tables (each kernel against the page's own copy kernel; the host round trip
/// against a plain WebGPU program and ONNX Runtime Web, served at `/ort/`).
pub(crate) fn bench_web(elements: Option<&str>) -> Result<()> {
    ensure_web_tools()?;
    let web = build()?;
    let ort = crate::accuracy::ensure_ort_web()
        .inspect_err(|e| println!("xtask: the round trip goes without ONNX Runtime Web: {e}"))
        .ok();
    let server = serve_with(&web, 0, ort.as_deref())?;
    let browser = Browser::open()?;
    // WEB_BENCH_QUERY narrows the page's table, e.g. `ops=LeakyRelu,Elu,PRelu&dtypes=f32&products=hardware`.
    let extra = std::env::var("WEB_BENCH_QUERY").unwrap_or_default();
    let query = format!("?elems={}&{extra}", elements.unwrap_or("4194304"));
    browser.navigate(&server.url(&format!("bench.html{query}")))?;
    let started = Instant::now();
    let report = loop {
        std::thread::sleep(Duration::from_secs(1));
        if let Ok(Value::String(json)) = browser.eval("return globalThis.benchReport || null;") {
            break serde_json::from_str::<Value>(&json).map_err(|e| Error(format!("benchReport: {e}")))?;
        }
        if let Ok(Value::String(failure)) = browser.eval("return globalThis.pageFailure || null;") {
            return Err(Error(format!("the bench page could not start: {failure}")));
        }
        if started.elapsed() > Duration::from_secs(900) {
            let shown = browser.eval("return document.getElementById('bench').textContent;");
            let shown = shown.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            return Err(Error(format!("the bench page reported nothing within 15 minutes; it shows {shown:?}")));
        }
    };
    if let Some(error) = report["error"].as_str() {
        return Err(Error(format!("the bench page failed: {error}")));
    }
    println!("{} elements per kernel on {}", report["elements"], report["adapter"].as_str().unwrap_or("?"));
    println!("\n| kernel | dtype | elements | kernel ms | copy ms | ratio to copy |\n|---|---|---|---|---|---|");
    for row in report["rows"].as_array().into_iter().flatten() {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} |",
            row["kernel"].as_str().unwrap_or("?"),
            row["dtype"].as_str().unwrap_or("?"),
            row["elements"],
            row["kernel_ms"].as_f64().unwrap_or(0.0),
            row["copy_ms"].as_f64().unwrap_or(0.0),
            row["ratio"].as_f64().unwrap_or(0.0)
        );
    }
    print_round_trips(&report);
    Ok(())
}

/// The page's host round trips as a Markdown table.
fn print_round_trips(report: &Value) {
    let trips = report["round_trips"].as_array().map(Vec::as_slice).unwrap_or_default();
    if trips.is_empty() {
        return;
    }
    println!(
        "\n| host round trip, f32 | implementation | ms per call | ours' time / its time | timed inputs: worst ULP | beyond 2 ULP | sweep: worst ULP | beyond 2 ULP |\n|---|---|---|---|---|---|---|---|"
    );
    let accuracy = |a: &Value| -> (String, String) {
        let worst = if a["nan_mismatch"] == Value::Bool(true) {
            "NaN/number".to_string()
        } else {
            match a["worst_ulp"].as_u64() {
                Some(w) if w >= 100_000 => format!("{:.2e}", w as f64),
                Some(w) => w.to_string(),
                None => "-".into(),
            }
        };
        (worst, a["beyond_2_ulp"].to_string())
    };
    for trip in trips {
        let sides = trip["sides"].as_array().map(Vec::as_slice).unwrap_or_default();
        let ours = sides.first().and_then(|s| s["ms"].as_f64());
        for side in sides {
            let (ms, ratio) = match (side["ms"].as_f64(), ours) {
                (Some(ms), Some(o)) => (format!("{ms:.1}"), format!("{:.2}", o / ms)),
                _ => (side["error"].as_str().unwrap_or("-").to_string(), "-".into()),
            };
            let ((timed, timed_beyond), (sweep, sweep_beyond)) =
                (accuracy(&side["timed_inputs"]), accuracy(&side["sweep"]));
            println!(
                "| {} | {} | {ms} | {ratio} | {timed} | {timed_beyond} | {sweep} | {sweep_beyond} |",
                trip["op"].as_str().unwrap_or("?"),
                side["who"].as_str().unwrap_or("?")
            );
        }
    }
}

/// `cargo xtask web [--build-only]`: builds the pages, then serves them on 127.0.0.1 until
/// interrupted.
pub(crate) fn web(build_only: bool) -> Result<()> {
    ensure_web_tools()?;
    let web = build()?;
    if build_only {
        return Ok(());
    }
    let server = serve(&web, 8000).or_else(|_| serve(&web, 0))?;
    println!("xtask: serving {} at {}", web.display(), server.url(""));
    println!("xtask: the demo: {}  (add ?auto=1 to run it without clicks)", server.url("index.html"));
    println!("xtask: the browser suite: {}", server.url("suite.html"));
    println!("xtask: the bench: {}  (?elems=N: elements per kernel)", server.url("bench.html"));
    println!(
        "xtask: WebGPU must be on: Chrome/Chromium 113+ (Linux: --enable-unsafe-webgpu), Edge, Safari 26, Firefox 141+ on Windows"
    );
    println!("xtask: press Ctrl-C to stop");
    loop {
        std::thread::park();
    }
}
