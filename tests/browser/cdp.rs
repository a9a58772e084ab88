//! A small client of the Chrome DevTools protocol, for driving Debian's
//! chromium in tests: started headless with a debugging port, one page,
//! commands sent and answered over the browser's websocket. Only what the
//! tests use: open a page, run a script, type, press a key, screenshot.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// How the tests run chromium: headless, in a container, no first-run tour.
pub const HEADLESS: [&str; 5] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
];

pub struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Chromium at `path`, headless, with one blank page of `width` x
    /// `height` CSS pixels.
    pub fn start(path: &str, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(path)
            .args(HEADLESS)
            .args(["--hide-scrollbars", "--remote-debugging-port=0"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Chromium names its websocket on stderr; the rest of stderr is
        // drained so that it never blocks on a full pipe.
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("chromium did not open its debugging port in 60 s");
        let address = url
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let stream = TcpStream::connect(&address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let (ws, _) = tungstenite::client(url.as_str(), stream).unwrap();
        let mut b = Browser {
            child,
            ws,
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_string();
        let attached = b.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}),
        );
        b
    }

    /// Sends `method` (to the page once attached) and waits for its
    /// answer, passing over the events that come first.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        loop {
            let answer = match self.ws.read().unwrap() {
                Message::Text(t) => serde_json::from_str::<Value>(&t).unwrap(),
                _ => continue,
            };
            if answer["id"] == json!(id) {
                assert!(answer["error"].is_null(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// The value of a script run in the page (a promise awaited).
    pub fn eval(&mut self, script: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": script, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(r["exceptionDetails"].is_null(), "{script}: {r}");
        r["result"]["value"].clone()
    }

    /// Waits until `script` gives a true value, for at most 20 s.
    pub fn wait_for(&mut self, script: &str) {
        let t0 = Instant::now();
        while self.eval(script) != json!(true) {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "never true: {script}; page: {}",
                self.eval("document.body ? document.body.innerText.slice(0, 2000) : ''")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Opens `url` and waits for it to load.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for(&format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ));
    }

    /// Types `text` into the focused element, a character at a time, as
    /// keystrokes do (an input event each).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.call("Input.insertText", json!({"text": c.to_string()}));
        }
    }

    /// Presses and releases one key that types `key`.
    pub fn press(&mut self, key: &str) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "text": if kind == "keyDown" { key } else { "" }}),
            );
        }
    }

    /// A PNG of the page as it is now, into `path`.
    pub fn screenshot(&mut self, path: &std::path::Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = data_encoding::BASE64
            .decode(shot["data"].as_str().unwrap().as_bytes())
            .unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
