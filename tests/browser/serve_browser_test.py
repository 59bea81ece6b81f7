#!/usr/bin/python3
"""The real-browser test of `nbody serve`: headless Chromium, driven by Selenium, opens the page the
server prints, looks at the frames it shows and steers the session as a person would.

Checks, each with its own server (`nbody serve --port 0`, in a fresh temporary folder) and browsers:
  frames          frames arrive; the picture shows bodies and the panel
  space           Space pauses (the status' step stops) and Space again resumes
  drag            a left drag on the picture orbits the camera (the picture changes; paused)
  wheel           the wheel zooms (the picture changes; paused)
  panel_button    a click on the panel's "Pause (Space)" button flips `paused` (and back)
  snapshot        "Save snapshot" writes nbody-*.nbody in the server's folder, whole: it reads back
                  with the served N
  second_viewer   a second viewer sees frames, is not the controller and cannot steer (neither
                  through the page nor through a socket of its own); its "Take control" button
                  gives it control
  handover        when the controlling viewer closes, control passes to the remaining one, which
                  then steers
  refusals        the page without a token or with a wrong one gets no frames; /status without or
                  with a wrong Bearer token is refused
  pointer_while_decoding
                  a click while the next frame decodes is sent at its place in the picture
Every check compares pictures or status before and after what it does; none knows a picture.
Panel buttons are found in a frame by their colour (Dear ImGui's dark style), and a click that
changes nothing fails the check. Every click, drag and wheel also checks where in the picture the
page said it was, from a copy of what the page sends; a check ends with SIGTERM to its server,
which must end cleanly (status 143).

Needs Debian's chromium, chromium-driver and python3-selenium (tools/setup.sh), and Debian's own
python3 (a pyenv python3 on PATH cannot see python3-selenium). Run:

  /usr/bin/python3 tests/browser/serve_browser_test.py --nbody build/nbody [--keep-going]
                   [--only NAME,...] [--verbose]

--only runs the checks named; --verbose prints the server's last log lines after a failure. A run
takes 75-95 s on llvmpipe with 2 busy cores.

Exits 0 when every check passes; otherwise prints one line per failure (FAIL name: why) and exits 1.
"""

import argparse
import base64
import contextlib
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

SMALL = (640, 400)  # picture and page size of checks that need no panel
PANEL = (900, 1000)  # tall enough for the whole panel, down to "Save snapshot"
SAFETY_SECONDS = 150  # a server the test failed to end ends itself


class CheckFailed(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise CheckFailed(why)


def wait_for(what, probe, timeout=10.0, interval=0.2):
    """Polls probe() until it returns something true, and returns it; fails after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


# ---------------------------------------------------------------- the server


class Server:
    """`nbody serve --port 0 ...` in a fresh temporary folder; stop() ends it and removes the
    folder."""

    def __init__(self, nbody, *options):
        self.folder = tempfile.mkdtemp(prefix="nbody-serve-browser-")
        self.stdout_path = os.path.join(self.folder, "serve.out")
        self.stderr_path = os.path.join(self.folder, "serve.err")
        command = [nbody, "serve", "--port", "0", "--seconds", str(SAFETY_SECONDS), *options]
        with open(self.stdout_path, "w") as out, open(self.stderr_path, "w") as err:
            self.process = subprocess.Popen(command, cwd=self.folder, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        self.url = self.token = self.base = None

    def wait_until_listening(self):
        self.url = wait_for("the server's address", self._printed_address, timeout=60)
        match = re.match(r"http://127\.0\.0\.1:(\d+)/#token=([A-Za-z0-9_-]+)$", self.url)
        expect(match, f"unexpected address printed: {self.url}")
        self.port, self.token = int(match[1]), match[2]
        self.base = f"http://127.0.0.1:{self.port}/"

    def _printed_address(self):
        with open(self.stdout_path) as out:
            for line in out:
                if line.startswith("serve: open "):
                    return line.split("serve: open ", 1)[1].strip()
        if self.process.poll() is not None:
            raise CheckFailed(f"nbody serve exited with {self.process.returncode}: "
                              f"{self.log_tail(3)}")
        return None

    def log_tail(self, lines=5):
        with open(self.stderr_path, errors="replace") as err:
            return " | ".join(err.read().splitlines()[-lines:])

    def status_answer(self, authorization=None):
        """(HTTP status, body) of GET /status."""
        request = urllib.request.Request(self.base + "status")
        if authorization is not None:
            request.add_header("Authorization", authorization)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode(errors="replace")

    def status(self):
        code, body = self.status_answer("Bearer " + self.token)
        expect(code == 200, f"GET /status with the token answered {code}: {body.strip()}")
        return json.loads(body)

    def stop(self):
        """Ends the server with SIGTERM, as Ctrl-C would; returns why that was not clean, if it
        was not (it had ended already, took over 15 s, or ended with another status than 143)."""
        if self.process.poll() is not None:
            problem = f"nbody serve had ended by itself, with status {self.process.returncode}"
        else:
            self.process.send_signal(signal.SIGTERM)
            try:
                status = self.process.wait(timeout=15)
                problem = None if status == 128 + signal.SIGTERM else \
                    f"nbody serve ended on SIGTERM with status {status}, not 143"
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
                problem = "nbody serve did not end within 15 s of SIGTERM: killed"
        if problem:
            problem += f" ({self.log_tail(2)})"
        shutil.rmtree(self.folder, ignore_errors=True)
        return problem


# ---------------------------------------------------------------- pictures


class Picture:
    """An RGBA frame as the page shows it."""

    def __init__(self, width, height, rgba, seq):
        self.width, self.height, self.rgba, self.seq = width, height, rgba, seq

    def pixel(self, x, y):
        at = 4 * (y * self.width + x)
        return self.rgba[at], self.rgba[at + 1], self.rgba[at + 2]

    def share(self, test, box=None, step=2):
        """The share of the pixels in box (x0, y0, x1, y1) for which test(r, g, b) holds."""
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        hits = total = 0
        for y in range(y0, y1, step):
            row = self.rgba[4 * (y * self.width + x0):4 * (y * self.width + x1)]
            for r, g, b in zip(row[0::4 * step], row[1::4 * step], row[2::4 * step]):
                hits += bool(test(r, g, b))
                total += 1
        return hits / max(total, 1)


def changed_share(before, after):
    """The share of pixels whose colour changed clearly (more than JPEG noise) between frames."""
    if (before.width, before.height) != (after.width, after.height):
        return 1.0
    a, b = before.rgba, after.rgba
    changed = sum(1 for ra, ga, ba, rb, gb, bb in
                  zip(a[0::4], a[1::4], a[2::4], b[0::4], b[1::4], b[2::4])
                  if abs(ra - rb) + abs(ga - gb) + abs(ba - bb) > 60)
    return changed / (before.width * before.height)


def is_body_light(r, g, b):
    """A sprite of the fire colormap: warm, unlike the panel's white text and blue widgets."""
    return r >= 120 and r - b >= 60


def is_not_black(r, g, b):
    return max(r, g, b) >= 8


def is_button_colour(r, g, b):
    """ImGuiCol_Button of the dark style over the panel: (0.26, 0.59, 0.98) at 40 %. Headers and
    frames are darker, a hovered or pressed button much brighter."""
    return r <= 60 and 55 <= g <= 88 and 90 <= b <= 128 and b - r >= 50


# ---------------------------------------------------------------- the browser

GRAB_FRAME = """
const view = document.getElementById("view");
if (!view.complete || !view.naturalWidth) return null;
const canvas = document.createElement("canvas");
canvas.width = view.naturalWidth;
canvas.height = view.naturalHeight;
const context = canvas.getContext("2d", {willReadFrequently: true});
context.drawImage(view, 0, 0);
const bytes = context.getImageData(0, 0, canvas.width, canvas.height).data;
let text = "";
for (let at = 0; at < bytes.length; at += 0x8000)
  text += String.fromCharCode.apply(null, bytes.subarray(at, at + 0x8000));
return [canvas.width, canvas.height, window.nbodyViewer.lastSeq, btoa(text)];
"""

# A viewer socket of its own, from the page's origin, that sends Space (down and up), after asking
# for control when told to: what a page that ignored "view only" would send.
SEND_OWN_SPACE = """
const [token, takeControl, done] = arguments;
const address = new URL("ws", location.href);
address.protocol = "ws:";
const socket = new WebSocket(address, ["nbody.v1", "token." + token]);
const key = (down) => JSON.stringify({type: "key", down, code: "Space", key: " ", repeat: false,
                                      mods: 0});
socket.onopen = () => {
  if (takeControl) socket.send(JSON.stringify({type: "take_control"}));
  socket.send(key(true));
  socket.send(key(false));
  setTimeout(() => { socket.close(); done("sent"); }, 1500);
};
socket.onerror = () => done("the socket failed");
"""


# Where picture pixel (x, y) is in the page: the picture is scaled to fit the view, centred. (The
# size of the last frame shown: view.naturalWidth is 0 while the next one decodes.)
PAGE_POINT = """
const [x, y] = arguments;
const view = document.getElementById("view"), box = view.getBoundingClientRect();
const width = window.nbodyViewer.width, height = window.nbodyViewer.height;
const scale = Math.min(box.width / width, box.height / height);
return [Math.round(box.left + (box.width - width * scale) / 2 + x * scale),
        Math.round(box.top + (box.height - height * scale) / 2 + y * scale)];
"""


# Keeps a copy of every message the page sends but acknowledgements, in window.nbodyTestSent.
RECORD_SENT = """
if (window.nbodyTestSent) return;
window.nbodyTestSent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (typeof data === "string" && !data.includes('"ack"')) window.nbodyTestSent.push(data);
  return send.call(this, data);
};
"""

# A click (press and release, as the page's own listeners get them) at page point (x, y) at the
# moment a frame is decoding (view.naturalWidth 0), which happens a few times a second.
CLICK_WHILE_DECODING = """
const [x, y, done] = arguments;
const view = document.getElementById("view");
const end = performance.now() + 5000;
function attempt() {
  if (view.naturalWidth === 0 && window.nbodyViewer.framesShown > 0) {
    const at = {clientX: x, clientY: y, button: 0, bubbles: true, cancelable: true, view: window};
    view.dispatchEvent(new MouseEvent("mousedown", at));
    view.dispatchEvent(new MouseEvent("mouseup", at));
    done("clicked");
  } else if (performance.now() > end) {
    done("no frame was decoding within 5 s");
  } else {
    setTimeout(attempt, 0);
  }
}
attempt();
"""


class Viewer:
    """A headless Chromium showing the page."""

    def __init__(self):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--hide-scrollbars", "--force-device-scale-factor=1",
                         "--window-size=1000,1250"]:
            options.add_argument(argument)
        driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver_path), options=options)
        self.driver.set_script_timeout(20)

    def set_page_size(self, size):
        """The page's viewport, exactly `size` CSS pixels, one device pixel each."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})

    def open(self, url):
        self.driver.get("about:blank")
        self.driver.get(url)
        self.driver.execute_script(RECORD_SENT)

    def sent(self, message_type):
        """The messages of this type the page sent, oldest first."""
        sent = self.driver.execute_script("return window.nbodyTestSent || []")
        return [message for message in map(json.loads, sent) if message["type"] == message_type]

    def counters(self):
        return self.driver.execute_script("return window.nbodyViewer || null") or {}

    def frame(self):
        grabbed = wait_for("a decoded frame in the page",
                           lambda: self.driver.execute_script(GRAB_FRAME), timeout=10)
        width, height, seq, data = grabbed
        return Picture(width, height, base64.b64decode(data), seq)

    def press(self, key):
        ActionChains(self.driver).send_keys(key).perform()

    def to_page(self, x, y):
        return self.driver.execute_script(PAGE_POINT, x, y)

    def click_picture(self, x, y):
        page_x, page_y = self.to_page(x, y)
        earlier = len(self.sent("button"))
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(page_x, page_y).pause(0.2)
        actions.pointer_action.pointer_down().pause(0.15).pointer_up().pause(0.1)
        actions.perform()
        self.expect_sent_at("button", earlier, 2, (x, y, x, y), f"a click at ({x}, {y})")

    def expect_sent_at(self, message_type, earlier, count, box, what):
        """The `count` messages of this type sent after the first `earlier` (all of them, at least
        one, where count is None) are all within box (x0, y0, x1, y1) of the picture, give or take
        a pixel."""
        def sent_by_now():
            later = self.sent(message_type)[earlier:]
            return later[:count] if len(later) >= (count or 1) else None
        sent = wait_for(f"the page to send {what}", sent_by_now, timeout=3)
        for message in sent:
            inside = box[0] - 1 <= message["x"] <= box[2] + 1 and \
                box[1] - 1 <= message["y"] <= box[3] + 1
            expect(inside, f"for {what} the page sent {json.dumps(message)}, at another place "
                   f"of the picture")

    def drag_picture(self, start, end, steps=8):
        (x0, y0), (x1, y1) = self.to_page(*start), self.to_page(*end)
        earlier_buttons, earlier_moves = len(self.sent("button")), len(self.sent("move"))
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(x0, y0).pause(0.1).pointer_down().pause(0.1)
        for k in range(1, steps + 1):
            actions.pointer_action.move_to_location(x0 + (x1 - x0) * k // steps,
                                                    y0 + (y1 - y0) * k // steps).pause(0.05)
        actions.pointer_action.pointer_up()
        actions.perform()
        box = (min(start[0], end[0]), min(start[1], end[1]), max(start[0], end[0]),
               max(start[1], end[1]))
        what = f"a drag from {start} to {end}"
        self.expect_sent_at("button", earlier_buttons, 2, box, what)
        self.expect_sent_at("move", earlier_moves, None, box, what)

    def wheel_picture(self, x, y, delta):
        page_x, page_y = self.to_page(x, y)
        earlier = len(self.sent("wheel"))
        ActionChains(self.driver).scroll_from_origin(
            ScrollOrigin.from_viewport(page_x, page_y), 0, delta).perform()
        self.expect_sent_at("wheel", earlier, 1, (x, y, x, y), f"the wheel at ({x}, {y})")

    def click_while_decoding(self, x, y):
        page_x, page_y = self.to_page(x, y)
        earlier = len(self.sent("button"))
        done = self.driver.execute_async_script(CLICK_WHILE_DECODING, page_x, page_y)
        expect(done == "clicked", done)
        self.expect_sent_at("button", earlier, 2, (x, y, x, y),
                            f"a click at ({x}, {y}) while a frame decoded")

    def send_own_space(self, token, take_control=False):
        sent = self.driver.execute_async_script(SEND_OWN_SPACE, token, take_control)
        expect(sent == "sent", f"a viewer socket of the page's own: {sent}")

    def quit(self):
        with contextlib.suppress(Exception):
            self.driver.quit()


class Run:
    """What one check started: servers and browsers, all ended by close() whatever happened."""

    def __init__(self, nbody):
        self.nbody = nbody
        self.servers, self.viewers = [], []

    def server(self, size, *options):
        server = Server(self.nbody, "--width", str(size[0]), "--height", str(size[1]), *options)
        self.servers.append(server)
        server.wait_until_listening()
        return server

    def viewer(self, size, url=None):
        viewer = Viewer()
        self.viewers.append(viewer)
        viewer.set_page_size(size)
        if url:
            viewer.open(url)
        return viewer

    def server_logs(self):
        """Each server's state and last log lines."""
        return [("running" if server.process.poll() is None else
                 f"ended with status {server.process.returncode}") + ": " + server.log_tail(8)
                for server in self.servers]

    def close(self):
        """Ends the servers (their viewers still connected), then the browsers; returns the first
        server that did not end cleanly, if one did not."""
        problems = [server.stop() for server in self.servers]
        for viewer in self.viewers:
            viewer.quit()
        return next((problem for problem in problems if problem), None)


def wait_for_frames(viewer, size, timeout=30):
    """Waits until the page shows frames of `size` (the controller's page size) and returns its
    counters."""
    def shown():
        counters = viewer.counters()
        sized = (counters.get("width"), counters.get("height")) == tuple(size)
        return counters if counters.get("framesShown", 0) > 0 and sized else None
    return wait_for(f"frames of {size[0]}x{size[1]} in the page", shown, timeout=timeout)


def steps_in(server, seconds):
    """How many steps the session advances in `seconds`."""
    first = server.status()["step"]
    time.sleep(seconds)
    return server.status()["step"] - first


def wait_for_paused(server, paused, why, timeout=6):
    try:
        wait_for(f"paused = {paused}", lambda: server.status()["paused"] == paused, timeout)
    except CheckFailed:
        raise CheckFailed(f"{why}: the status still says paused = {not paused}") from None


def still_picture(viewer, seconds=1.0):
    """A frame, and the share of pixels that changed by themselves over `seconds` after it."""
    first = viewer.frame()
    time.sleep(seconds)
    return first, changed_share(first, viewer.frame())


def wait_for_change(viewer, before, still, why, timeout=10):
    """Waits for a frame that differs from `before` clearly more than still frames did."""
    needed = max(0.002, 3 * still + 0.001)
    best = 0.0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        best = max(best, changed_share(before, viewer.frame()))
        if best >= needed:
            return best
        time.sleep(0.3)
    raise CheckFailed(f"{why}: the picture did not change ({best:.4f} of the pixels changed, "
                      f"{needed:.4f} needed; {still:.4f} changed by themselves)")


# ---------------------------------------------------------------- panel buttons


def button_runs(picture, y, x0, x1):
    """Runs [start, end) of button colour on row y, gaps of one pixel bridged."""
    runs, start, last = [], None, None
    for x in range(x0, x1):
        if is_button_colour(*picture.pixel(x, y)):
            if start is None or x - last > 2:
                if start is not None:
                    runs.append((start, last + 1))
                start = x
            last = x
    if start is not None:
        runs.append((start, last + 1))
    return runs


def button_boxes(picture, area):
    """Boxes [x0, y0, x1, y1) of button colour 40-260 pixels wide in area: the same run on 4 rows
    or more, 12-40 rows apart at most (a label in the middle hides the run on some rows)."""
    x0, y0, x1, y1 = area
    growing, boxes = [], []  # [x0, y0, x1, y1, rows with the run]
    for y in range(y0, y1):
        for run in button_runs(picture, y, x0, x1):
            if not 40 <= run[1] - run[0] <= 260:
                continue
            box = next((box for box in growing if abs(box[0] - run[0]) <= 2 and
                        abs(box[2] - run[1]) <= 2), None)
            if box:
                box[3], box[4] = y + 1, box[4] + 1
            else:
                growing.append([run[0], y, run[1], y + 1, 1])
        boxes += [box for box in growing if y - box[3] > 16]
        growing = [box for box in growing if y - box[3] <= 16]
    return [box[:4] for box in boxes + growing if box[4] >= 4 and 12 <= box[3] - box[1] <= 40]


def button_rows(boxes):
    """The boxes in rows (same top), top to bottom, each row left to right."""
    rows = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        if rows and abs(rows[-1][0][1] - box[1]) <= 3:
            rows[-1].append(box)
        else:
            rows.append([box])
    return [sorted(row) for row in rows]


def panel_buttons(picture):
    """Rows of the panel's buttons; the panel sits at the top left (Dear ImGui's first place)."""
    return button_rows(button_boxes(picture, (0, 0, picture.width * 45 // 100, picture.height)))


def pause_button(rows):
    """"Pause (Space)": the first of the first row of three buttons (Pause, Step, Reset)."""
    return next((row[0] for row in rows if len(row) >= 3), None)


def save_snapshot_button(rows):
    """"Save snapshot": the second button of the last row of two or more that starts at the
    panel's left edge, below the run controls (its row: Screenshot (P), Save snapshot)."""
    pause = pause_button(rows)
    if pause is None:
        return None
    below = [row for row in rows if row[0][1] > pause[3] and len(row) >= 2 and
             abs(row[0][0] - pause[0]) <= 3]
    return below[-1][1] if below else None


def centre(box):
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


# ---------------------------------------------------------------- the checks


def check_frames(run):
    server = run.server(PANEL, "--bodies", "2048", "--colormap", "fire")
    viewer = run.viewer(PANEL, server.url)
    first = wait_for_frames(viewer, PANEL)
    time.sleep(1.5)
    later = viewer.counters()
    expect(later["framesShown"] > first["framesShown"] and later["lastSeq"] > first["lastSeq"],
           f"frames stopped: {first['framesShown']} shown, then {later['framesShown']} 1.5 s later")
    picture = viewer.frame()
    status = server.status()
    expect((picture.width, picture.height) == (status["width"], status["height"]),
           f"the page shows {picture.width}x{picture.height}, the status says "
           f"{status['width']}x{status['height']}")
    body_light = picture.share(is_body_light)
    expect(body_light > 0.0002, f"no bodies in the picture ({body_light:.5f} of it is body light)")
    rows = panel_buttons(picture)
    expect(sum(map(len, rows)) >= 3 and pause_button(rows),
           f"no panel in the picture: {sum(map(len, rows))} button(s) found at the top left")
    panel = panel_area(rows, picture)
    mirrored = (picture.width - panel[2], panel[1], picture.width - panel[0], panel[3])
    inside, outside = picture.share(is_not_black, panel), picture.share(is_not_black, mirrored)
    expect(inside > 0.9 and outside < 0.5,
           f"the panel's area {panel} is not set apart from the background: {inside:.2f} of it "
           f"is not black, against {outside:.2f} of the background at {mirrored}")


def check_pointer_while_decoding(run):
    """Clicks dispatched (as the page's listeners get them) while the next frame decodes, and
    view.naturalWidth is 0, are sent at their place in the picture all the same."""
    server = run.server(SMALL, "--bodies", "1024", "--hide-panel")
    viewer = run.viewer(SMALL, server.url)
    wait_for_frames(viewer, SMALL)
    for _ in range(3):
        viewer.click_while_decoding(SMALL[0] // 2, SMALL[1] // 2)


def panel_area(rows, picture):
    """The panel's part between its top and the run controls, as wide as its buttons reach."""
    boxes = [box for row in rows for box in row if box[3] <= pause_button(rows)[3]]
    return (min(b[0] for b in boxes), 2, max(b[2] for b in boxes), pause_button(rows)[3])


def check_space(run):
    server = run.server(SMALL, "--bodies", "1024", "--hide-panel")
    viewer = run.viewer(SMALL, server.url)
    wait_for_frames(viewer, SMALL)
    expect(steps_in(server, 1.0) > 0, "the run does not advance before Space")
    viewer.press(Keys.SPACE)
    wait_for_paused(server, True, "Space did not pause")
    stepped = steps_in(server, 1.2)
    expect(stepped == 0, f"paused by Space, the run still advanced {stepped} steps in 1.2 s")
    viewer.press(Keys.SPACE)
    wait_for_paused(server, False, "Space again did not resume")
    expect(steps_in(server, 1.2) > 0, "resumed by Space, the run did not advance in 1.2 s")


def check_camera_input(run, act, what):
    """Paused, so that only the camera changes the picture: `act` must change it."""
    server = run.server(SMALL, "--bodies", "2048", "--paused", "--hide-panel")
    viewer = run.viewer(SMALL, server.url)
    wait_for_frames(viewer, SMALL)
    step = server.status()["step"]
    before, still = still_picture(viewer)
    act(viewer)
    share = wait_for_change(viewer, before, still, what)
    status = server.status()
    expect(status["paused"] and status["step"] == step,
           f"{what} changed the run (paused {status['paused']}, step {step} -> {status['step']})")
    return share


def check_drag(run):
    width, height = SMALL
    start = (width * 6 // 10, height // 2)
    check_camera_input(run, lambda viewer: viewer.drag_picture(start, (start[0] + 160,
                                                                      start[1] + 40)),
                       "a left drag on the picture")


def check_wheel(run):
    centre_of_picture = (SMALL[0] * 6 // 10, SMALL[1] // 2)
    check_camera_input(run, lambda viewer: viewer.wheel_picture(*centre_of_picture, 400),
                       "the wheel on the picture")


def found_button(viewer, finder, label, timeout=10):
    """The button's box in the frames shown. Dear ImGui leaves a window out of its first frame
    (it measures it then), so the first frames of a busy machine may lack the panel: this
    looks at the frames shown for `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        box = finder(panel_buttons(viewer.frame()))
        if box or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    expect(box, f'no "{label}" button found in the panel of the frames shown for {timeout} s')
    return box


def check_panel_button(run):
    server = run.server(PANEL, "--bodies", "2048")
    viewer = run.viewer(PANEL, server.url)
    wait_for_frames(viewer, PANEL)
    expect(not server.status()["paused"], "the run is paused before any click")
    box = found_button(viewer, pause_button, "Pause (Space)")
    viewer.click_picture(*centre(box))
    wait_for_paused(server, True, f'a click on "Pause (Space)" at {centre(box)} did not pause')
    viewer.click_picture(*centre(box))
    wait_for_paused(server, False, f'a click on "Run (Space)" at {centre(box)} did not resume')


def check_snapshot(run):
    server = run.server(PANEL, "--bodies", "2048", "--paused")
    viewer = run.viewer(PANEL, server.url)
    wait_for_frames(viewer, PANEL)
    pattern = os.path.join(server.folder, "nbody-*.nbody")
    expect(not glob.glob(pattern), "a snapshot exists before any click")
    box = found_button(viewer, save_snapshot_button, "Save snapshot")
    viewer.click_picture(*centre(box))
    written = wait_for(f'a snapshot nbody-*.nbody written after a click on "Save snapshot" at '
                       f'{centre(box)}', lambda: glob.glob(pattern), timeout=15)
    expect(len(written) == 1, f"one click wrote {len(written)} snapshots: {written}")
    wait_for("the snapshot's size to settle", lambda: size_settled(written[0]))
    bodies = read_back_bodies(run.nbody, written[0], server.folder)
    served = server.status()["bodies"]
    expect(bodies == served, f"the snapshot reads back with N = {bodies}, the server runs {served}")


def size_settled(path):
    size = os.path.getsize(path)
    time.sleep(0.5)
    return size > 0 and os.path.getsize(path) == size


def read_back_bodies(nbody, snapshot, folder):
    """N as `nbody simulate` reads the snapshot back (0 steps, written out as CSV rows)."""
    csv = os.path.join(folder, "read-back.csv")
    done = subprocess.run([nbody, "simulate", "--input", snapshot, "--steps", "0", "--engine",
                           "cpu", "--output", csv], cwd=folder, capture_output=True, text=True,
                          timeout=120)
    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
    expect(done.returncode == 0, f"nbody simulate cannot read the snapshot back: {why}")
    with open(csv) as rows:
        return sum(1 for row in rows if row.strip()) - 1  # less the header


def controller_and_list(server):
    status = server.status()
    return status["controller"], {viewer["id"]: viewer["control"]
                                  for viewer in status["viewer_list"]}


def two_viewers(run, server):
    """The first viewer (the controller, once its frames arrive) and a second one."""
    first = run.viewer(SMALL, server.url)
    wait_for_frames(first, SMALL)
    second = run.viewer(SMALL, server.url)
    wait_for("frames in the second viewer", lambda: second.counters().get("framesShown", 0) > 0,
             timeout=30)
    return first, second


def check_second_viewer(run):
    server = run.server(SMALL, "--bodies", "1024", "--hide-panel")
    first, second = two_viewers(run, server)
    shown = second.counters()["framesShown"]
    wait_for("more frames in the second viewer",
             lambda: second.counters()["framesShown"] > shown + 2, timeout=10)
    first_id, second_id = first.counters()["viewerId"], second.counters()["viewerId"]
    controller, control = controller_and_list(server)
    expect(controller == first_id and control.get(second_id) is False,
           f"the status gives control to {controller} ({control}), not to the first viewer "
           f"{first_id}")
    expect(not second.counters()["hasControl"], "the second viewer's page believes it has control")
    second.press(Keys.SPACE)
    expect(not second.sent("key"), "the page of a viewer without control sent keys")
    second.send_own_space(server.token)  # the server drops input without control
    expect(not server.status()["paused"], "Space from a viewer without control paused the run")
    expect(steps_in(server, 1.0) > 0, "the run stopped after Space from a viewer without control")
    second.send_own_space(server.token, take_control=True)  # the same Space, with control, steers
    wait_for_paused(server, True, "Space from a socket of the page's own, given control, did not "
                    "pause: the refusal above proves nothing")
    wait_for("control back with the first viewer once the socket that took it left",
             lambda: controller_and_list(server)[0] == first_id and first.counters()["hasControl"])
    second.press(Keys.SPACE)
    time.sleep(1.0)
    expect(server.status()["paused"], "Space from a viewer without control resumed the run")
    second.driver.find_element(By.ID, "take").click()
    wait_for("the second viewer in control after its Take control button",
             lambda: controller_and_list(server)[0] == second_id)
    wait_for("the first viewer's page to lose control",
             lambda: not first.counters()["hasControl"])
    second.press(Keys.SPACE)
    wait_for_paused(server, False, "Space from the second viewer, now in control, did not resume")


def check_handover(run):
    server = run.server(SMALL, "--bodies", "1024", "--hide-panel")
    first, second = two_viewers(run, server)
    first_id, second_id = first.counters()["viewerId"], second.counters()["viewerId"]
    expect(controller_and_list(server)[0] == first_id, "the first viewer is not the controller")
    first.quit()
    wait_for(f"control to pass to viewer {second_id} when the controller {first_id} left",
             lambda: controller_and_list(server) == (second_id, {second_id: True}))
    wait_for("the remaining page to learn it has control",
             lambda: second.counters()["hasControl"])
    second.press(Keys.SPACE)
    wait_for_paused(server, True, "Space from the viewer that was handed control did not pause")


def check_refusals(run):
    server = run.server(SMALL, "--bodies", "1024", "--hide-panel")
    wrong = server.token[::-1] if server.token[::-1] != server.token else server.token + "x"
    for name, authorization in [("no token", None), ("a wrong token", "Bearer " + wrong)]:
        code, body = server.status_answer(authorization)
        expect(code in (401, 403), f"GET /status with {name} answered {code}: {body.strip()[:80]}")
    server.status()  # the right token is accepted
    viewer = run.viewer(SMALL)
    for name, url in [("no token", server.base),
                      ("a wrong token", server.base + "#token=" + wrong)]:
        viewer.open(url)
        time.sleep(3)
        counters, status = viewer.counters(), server.status()
        expect(counters.get("framesShown") == 0 and not counters.get("connected"),
               f"the page with {name} got frames: {counters.get('framesShown')} shown")
        expect(status["viewers"] == 0, f"the page with {name} joined: {status['viewers']} viewers")
    viewer.open(server.url)
    wait_for_frames(viewer, SMALL)  # the same page with the right token does get frames


CHECKS = [("frames", check_frames), ("space", check_space), ("drag", check_drag),
          ("wheel", check_wheel), ("panel_button", check_panel_button),
          ("snapshot", check_snapshot), ("second_viewer", check_second_viewer),
          ("handover", check_handover), ("refusals", check_refusals),
          ("pointer_while_decoding", check_pointer_while_decoding)]


def one_line(error):
    if isinstance(error, CheckFailed):
        return str(error)
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {text}"


def run_check(name, check, nbody, verbose):
    """Runs one check; returns None when it passes, its failure line otherwise."""
    started = time.monotonic()
    run = Run(nbody)
    failure = None
    try:
        check(run)
    except Exception as error:  # every failure, CheckFailed or a browser's, is one line
        failure = f"FAIL {name}: {one_line(error)}"
        if verbose:
            for log in run.server_logs():
                print(f"  server log: {log}", file=sys.stderr)
    finally:
        unclean_end = run.close()
    if unclean_end and not failure:
        failure = f"FAIL {name}: {unclean_end}"
    print(failure or f"pass {name} ({time.monotonic() - started:.1f} s)", flush=True)
    return failure


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nbody", required=True, help="the nbody program")
    parser.add_argument("--keep-going", action="store_true", help="run every check after a failure")
    parser.add_argument("--only", help="comma-separated check names: " +
                        ",".join(name for name, _ in CHECKS))
    parser.add_argument("--verbose", action="store_true", help="print server logs on failure")
    args = parser.parse_args()
    nbody = os.path.abspath(args.nbody)
    chosen = args.only.split(",") if args.only else [name for name, _ in CHECKS]
    unknown = set(chosen) - {name for name, _ in CHECKS}
    if unknown:
        parser.error(f"no check named {', '.join(sorted(unknown))}")
    # Ended by a signal (a ctest timeout), the checks still close their servers and browsers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started, failures = time.monotonic(), []
    for name, check in CHECKS:
        if name in chosen and (args.keep_going or not failures):
            failure = run_check(name, check, nbody, args.verbose)
            failures += [failure] if failure else []
    print(f"{len(failures)} of {len(chosen)} checks failed" if failures else
          f"all {len(chosen)} checks passed", f"in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
