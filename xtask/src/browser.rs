//! A real browser for the web pages: a static file server on 127.0.0.1 (WebGPU needs a secure
//! context, which loopback is), and headless Chromium driven through chromedriver's WebDriver
//! protocol (plain HTTP and JSON), with WebGPU on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Error, Result};

/// Serves files over HTTP on 127.0.0.1: URL paths under a prefix from the folder mapped to it
/// (the longest prefix wins), with the MIME types the pages need (wasm must be
/// `application/wasm` to be compiled while it streams).
pub(crate) struct Server {
    pub(crate) port: u16,
}

impl Server {
    /// Starts serving `mounts` (URL prefix, folder) on a free port (or `port`), on a thread of its own.
    pub(crate) fn start(mounts: Vec<(String, PathBuf)>, port: u16) -> Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| Error(format!("could not listen on 127.0.0.1:{port}: {e}")))?;
        let port = listener.local_addr().map_err(|e| Error(e.to_string()))?.port();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mounts = mounts.clone();
                std::thread::spawn(move || serve(stream, &mounts));
            }
        });
        Ok(Server { port })
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }
}

fn serve(stream: TcpStream, mounts: &[(String, PathBuf)]) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(&stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // The headers are not needed: read them to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let mut words = request_line.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or("/"));
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let (status, kind, body) = match (method, resolve(mounts, path)) {
        ("GET" | "HEAD", Some(file)) => match std::fs::read(&file) {
            Ok(body) => ("200 OK", mime(&file), body),
            Err(_) => ("404 Not Found", "text/plain", b"not found".to_vec()),
        },
        ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", b"not found".to_vec()),
        _ => ("405 Method Not Allowed", "text/plain", b"GET only".to_vec()),
    };
    let mut out = &stream;
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(header.as_bytes());
    if method != "HEAD" {
        let _ = out.write_all(&body);
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// The file a URL path names, never outside its mount (no `..`, no absolute parts).
fn resolve(mounts: &[(String, PathBuf)], path: &str) -> Option<PathBuf> {
    let path = if path.ends_with('/') { format!("{path}index.html") } else { path.to_string() };
    let (prefix, root) =
        mounts.iter().filter(|(prefix, _)| path.starts_with(prefix.as_str())).max_by_key(|(p, _)| p.len())?;
    let rest = Path::new(&path[prefix.len()..]);
    if !rest.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = root.join(rest);
    file.is_file().then_some(file)
}

fn mime(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "txt" => "text/plain; charset=utf-8",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// Chromium's and chromedriver's programs, as Debian installs them.
pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Headless Chromium with WebGPU, driven by chromedriver: one browser session.
pub(crate) struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    /// Starts chromedriver and opens a session of headless Chromium with WebGPU on (Dawn over
    /// Vulkan: SwiftShader's, which Chromium ships, on a machine without a GPU).
    pub(crate) fn open() -> Result<Browser> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| Error(format!("no free port for chromedriver: {e}")))?
            .port();
        let mut driver = Command::new(CHROMEDRIVER);
        crate::drivers::with_driver_caches(&mut driver);
        let driver = driver
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Error(format!("could not start {CHROMEDRIVER}: {e}")))?;
        let mut browser = Browser { driver, port, session: String::new() };
        let started = Instant::now();
        while request(port, "GET", "/status", None).is_err() {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(Error("chromedriver did not answer within 30 s".into()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let args = [
            "--headless=new",
            "--no-sandbox",
            "--enable-unsafe-webgpu",
            "--enable-features=Vulkan",
            "--disable-dev-shm-usage",
            "--window-size=1280,2200",
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
        }}});
        let answer = request(port, "POST", "/session", Some(&capabilities))?;
        browser.session = answer["value"]["sessionId"]
            .as_str()
            .ok_or_else(|| Error(format!("chromedriver opened no session: {answer}")))?
            .to_string();
        browser.command("POST", "timeouts", Some(&json!({"script": 20_000, "pageLoad": 60_000})))?;
        Ok(browser)
    }

    fn command(&self, method: &str, what: &str, body: Option<&Value>) -> Result<Value> {
        let answer = request(self.port, method, &format!("/session/{}/{what}", self.session), body)?;
        if let Some(error) = answer["value"]["error"].as_str() {
            let message = answer["value"]["message"].as_str().unwrap_or("").lines().next().unwrap_or("");
            return Err(Error(format!("WebDriver {what}: {error}: {message}")));
        }
        Ok(answer["value"].clone())
    }

    pub(crate) fn navigate(&self, url: &str) -> Result<()> {
        self.command("POST", "url", Some(&json!({"url": url}))).map(|_| ())
    }

    /// The value of `script` (a function body that returns it) in the page.
    pub(crate) fn eval(&self, script: &str) -> Result<Value> {
        self.command("POST", "execute/sync", Some(&json!({"script": script, "args": []})))
    }

    /// A PNG of the page as it is shown now.
    pub(crate) fn screenshot(&self) -> Result<Vec<u8>> {
        use base64::Engine;
        let encoded = self.command("GET", "screenshot", None)?;
        base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or(""))
            .map_err(|e| Error(format!("the screenshot is not base64: {e}")))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(self.port, "DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One WebDriver request: HTTP/1.1 to chromedriver on 127.0.0.1, JSON both ways.
fn request(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
    let fail = |e: &dyn std::fmt::Display| Error(format!("WebDriver {method} {path}: {e}"));
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| fail(&e))?;
    stream.set_read_timeout(Some(Duration::from_secs(90))).map_err(|e| fail(&e))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())).map_err(|e| fail(&e))?;
    // chromedriver may keep the connection open: read the header, then exactly the body.
    let mut reader = BufReader::new(stream);
    let mut headers = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(|e| fail(&e))? == 0 || line == "\r\n" {
            break;
        }
        headers.push_str(&line.to_ascii_lowercase());
    }
    let length =
        headers.lines().find_map(|l| l.strip_prefix("content-length:").and_then(|n| n.trim().parse::<usize>().ok()));
    let content = match length {
        Some(length) => {
            let mut content = vec![0; length];
            reader.read_exact(&mut content).map_err(|e| fail(&e))?;
            content
        }
        None if headers.contains("transfer-encoding: chunked") => read_chunked(&mut reader).map_err(|e| fail(&e))?,
        None => {
            let mut content = Vec::new();
            reader.read_to_end(&mut content).map_err(|e| fail(&e))?;
            content
        }
    };
    serde_json::from_slice(&content).map_err(|e| fail(&e))
}

/// The body of a chunked HTTP response, read to its last (empty) chunk.
fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..size]);
    }
}
