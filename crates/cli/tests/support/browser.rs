//! A real browser for the report tests: headless Chromium (Debian's `chromium`) driven over
//! the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out, one JSON
//! message per NUL), with no extra crates. It opens a page, records every console error,
//! uncaught exception, failed or refused request, evaluates a script in the page, and takes
//! a full-page screenshot.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct Browser {
    child: Child,
    to: File,
    from: BufReader<File>,
    next_id: u64,
    session: Option<String>,
    /// Problems seen so far: console errors, exceptions, failed requests.
    pub problems: Vec<String>,
    loaded: bool,
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// A pipe whose ends sit on fds ≥ 10 with close-on-exec set: (read, write).
fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: fds is a 2-element array, as pipe2 wants.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let high = |fd: RawFd| {
        // SAFETY: duplicating our own open fd; the original is closed right after.
        let h = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
        unsafe { libc::close(fd) };
        h
    };
    (high(fds[0]), high(fds[1]))
}

impl Browser {
    /// Starts headless Chromium, or says why it cannot (the test is then skipped).
    pub fn launch() -> Result<Browser, String> {
        let bin = chromium().ok_or("chromium is not installed (apt-get install chromium)")?;
        let (cmd_r, cmd_w) = pipe();
        let (out_r, out_w) = pipe();
        let profile = std::env::temp_dir().join(format!("iolab-chromium-{}", std::process::id()));
        let mut c = Command::new(bin);
        c.args([
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2) between fork and exec.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(cmd_r, 3) < 0 || libc::dup2(out_w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c.spawn().map_err(|e| format!("cannot start {bin}: {e}"))?;
        // SAFETY: the parent's ends, owned from here on; the child's ends are closed here.
        let (to, from) = unsafe {
            libc::close(cmd_r);
            libc::close(out_w);
            (File::from_raw_fd(cmd_w), File::from_raw_fd(out_r))
        };
        let mut b = Browser {
            child,
            to,
            from: BufReader::new(from),
            next_id: 1,
            session: None,
            problems: Vec::new(),
            loaded: false,
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let tid = target["targetId"]
            .as_str()
            .ok_or("no targetId")?
            .to_string();
        let s = b.call(
            "Target.attachToTarget",
            json!({"targetId": tid, "flatten": true}),
        )?;
        b.session = Some(s["sessionId"].as_str().ok_or("no sessionId")?.to_string());
        for m in [
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Page.enable",
        ] {
            b.call(m, json!({}))?;
        }
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        Ok(b)
    }

    fn read_message(&mut self) -> Result<Value, String> {
        let mut buf = Vec::new();
        let n = self
            .from
            .read_until(0, &mut buf)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("chromium closed the pipe".into());
        }
        buf.pop();
        serde_json::from_slice(&buf).map_err(|e| e.to_string())
    }

    /// Records what an event says about the page's health.
    fn event(&mut self, m: &Value) {
        let p = &m["params"];
        match m["method"].as_str().unwrap_or("") {
            "Runtime.exceptionThrown" => self.problems.push(format!(
                "exception: {}",
                p["exceptionDetails"]["exception"]["description"]
                    .as_str()
                    .or(p["exceptionDetails"]["text"].as_str())
                    .unwrap_or("?")
            )),
            "Runtime.consoleAPICalled"
                if matches!(p["type"].as_str(), Some("error" | "assert")) =>
            {
                self.problems.push(format!(
                    "console.{}: {}",
                    p["type"].as_str().unwrap_or(""),
                    p["args"]
                ))
            }
            "Log.entryAdded" if p["entry"]["level"] == "error" => self.problems.push(format!(
                "log error: {} {}",
                p["entry"]["text"].as_str().unwrap_or(""),
                p["entry"]["url"].as_str().unwrap_or("")
            )),
            "Network.loadingFailed" => self.problems.push(format!(
                "request failed: {} ({})",
                p["requestId"],
                p["errorText"].as_str().unwrap_or("")
            )),
            "Network.requestWillBeSent" => {
                let url = p["request"]["url"].as_str().unwrap_or("");
                if !(url.starts_with("file:")
                    || url.starts_with("data:")
                    || url.starts_with("blob:"))
                {
                    self.problems.push(format!("network request: {url}"));
                }
            }
            "Network.responseReceived" if p["response"]["status"].as_i64().unwrap_or(0) >= 400 => {
                self.problems.push(format!(
                    "HTTP {} for {}",
                    p["response"]["status"], p["response"]["url"]
                ))
            }
            "Page.loadEventFired" => self.loaded = true,
            _ => {}
        }
    }

    /// Sends a command (to the page once attached) and waits for its answer.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .map_err(|e| format!("{method}: {e}"))?;
        loop {
            let m = self.read_message()?;
            if m["id"].as_u64() == Some(id) {
                if let Some(e) = m.get("error") {
                    return Err(format!("{method}: {e}"));
                }
                return Ok(m["result"].clone());
            }
            self.event(&m);
        }
    }

    /// Opens `page` and waits for its load event.
    pub fn open(&mut self, page: &Path) -> Result<(), String> {
        self.loaded = false;
        let url = format!(
            "file://{}",
            page.canonicalize().map_err(|e| e.to_string())?.display()
        );
        self.call("Page.navigate", json!({"url": url}))?;
        let started = Instant::now();
        while !self.loaded {
            if started.elapsed() > Duration::from_secs(30) {
                return Err("the page did not finish loading in 30 s".into());
            }
            let m = self.read_message()?;
            self.event(&m);
        }
        Ok(())
    }

    /// Evaluates `js` in the page; its value (JSON-serialisable).
    pub fn eval(&mut self, js: &str) -> Result<Value, String> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": js, "returnByValue": true}),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("script failed: {e}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Evaluates `js`, a promise, in the page and waits for its value.
    pub fn eval_async(&mut self, js: &str) -> Result<Value, String> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": js, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("script failed: {e}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Drags the mouse from one point of the viewport to another, button held, as a reader
    /// drags out a zoom box.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) -> Result<(), String> {
        let ev = |kind: &str, (x, y): (f64, f64), buttons: u32| json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1});
        self.call("Input.dispatchMouseEvent", ev("mouseMoved", from, 0))?;
        self.call("Input.dispatchMouseEvent", ev("mousePressed", from, 1))?;
        for i in 1..=10 {
            let f = f64::from(i) / 10.0;
            let at = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
            self.call("Input.dispatchMouseEvent", ev("mouseMoved", at, 1))?;
        }
        self.call("Input.dispatchMouseEvent", ev("mouseReleased", to, 0))?;
        Ok(())
    }

    /// A PNG of the whole page (or its first `max_height` pixels).
    pub fn screenshot(&mut self, out: &Path, max_height: Option<f64>) -> Result<(), String> {
        let m = self.call("Page.getLayoutMetrics", json!({}))?;
        let h = m["cssContentSize"]["height"].as_f64().unwrap_or(900.0);
        let h = max_height.map_or(h, |m| h.min(m));
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true,
                   "clip": {"x": 0, "y": 0, "width": 1280, "height": h, "scale": 1}}),
        )?;
        let png = base64_decode(r["data"].as_str().ok_or("no screenshot data")?)?;
        std::fs::write(out, png).map_err(|e| e.to_string())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.session = None;
        let _ = self.call("Browser.close", json!({}));
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(
            std::env::temp_dir().join(format!("iolab-chromium-{}", std::process::id())),
        );
    }
}

pub fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    let val = |c: u8| -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("bad base64 byte {c}")),
        })
    };
    let bytes: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let mut n = 0u32;
        for &c in chunk {
            n = n << 6 | if c == b'=' { 0 } else { val(c)? };
        }
        n <<= 6 * (4 - chunk.len() as u32);
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..4 - pad]);
    }
    Ok(out)
}

/// What the report test asks of every chart in the page: its drawn points and whether it
/// is visible, so a chart that rendered nothing fails.
/// What each chart of a report drew, as plotly left it: its traces and how many were drawn,
/// the points it declares and carries, hover text, axis titles, markers inside the plot; and
/// the page's tables, save buttons and anything it would load from elsewhere.
pub const CHART_CHECK: &str = r#"(() => {
  const charts = [];
  for (const div of document.querySelectorAll('div.chart')) {
    const data = div.data || [];
    const fl = div._fullLayout || {};
    const traces = data.length;
    const rendered = div.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length;
    const points = data.reduce((n, t) => n + ((t.x || []).length), 0);
    const titled = data.filter(t => (t.hovertemplate || t.hovertext || '').length > 0).length;
    const plot = div.querySelector('.nsewdrag');
    const box = plot ? plot.getBoundingClientRect() : null;
    const marks = Array.from(div.querySelectorAll('.scatterlayer path.point, .barlayer path'));
    // A point's centre, a horizontal bar's end (on a log axis its start is clipped far left).
    const inside = box ? marks.filter(m => { const r = m.getBoundingClientRect();
      const cx = m.closest('.barlayer') ? r.right : r.x + r.width / 2, cy = r.y + r.height / 2;
      return cx >= box.left - 1 && cx <= box.right + 1 && cy >= box.top - 1 && cy <= box.bottom + 1; }).length : 0;
    const reduced = !!div.closest('figure').querySelector('p.reduced');
    const axes = [fl.xaxis, fl.yaxis].filter(a => a && a.title && a.title.text).map(a => a.title.text);
    const at = div.getBoundingClientRect();
    charts.push({ id: div.id, want: Number(div.dataset.points), traces, rendered, points, titled,
                  markers: marks.length, inside, reduced, axes, visible: div.getClientRects().length > 0,
                  span: [at.top + window.scrollY, at.bottom + window.scrollY] });
  }
  const external = Array.from(document.querySelectorAll('[src], link[href]')).map(e => e.getAttribute('src') || e.getAttribute('href'));
  return { charts, sections: Array.from(document.querySelectorAll('main > section')).map(s => s.id),
           tables: document.querySelectorAll('figure details table').length,
           figures: document.querySelectorAll('figure.chart-block').length,
           saves: document.querySelectorAll('figure button.save').length, external };
})()"#;

#[cfg(test)]
mod tests {
    #[test]
    fn base64() {
        assert_eq!(super::base64_decode("aW9sYWI=").unwrap(), b"iolab");
        assert_eq!(super::base64_decode("aW9s").unwrap(), b"iol");
    }
}
