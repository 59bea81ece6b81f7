#!/usr/bin/python3
"""The web page (tools/web.sh builds it) in a real browser: Debian's headless Chromium on
SwiftShader's WebGL2, driven by Selenium, the page served from 127.0.0.1.

Checks, every one against a reference the page did not make:
  methods        print=csv runs one step of every method at N = 1024 and 4099; the initial state is
                 the native scene's, float for float, and the final one agrees with the native CPU
                 engine's (`nbody simulate --engine cpu`, double precision) within the gl tier's
                 1e-5 (SimulateFragment.AgreesWithTheCpuEngineThroughFiles)
  variants       the same for the engine's unroll, bodies-per-fragment and slices
  switch         a variant switched halfway through (as the panel switches) keeps the state: two
                 steps agree with the CPU engine's two
  input          input=FILE fetched beside the page starts from that file's bodies
  picture        the interactive page shows bodies (bright pixels right of the panel) and the panel
                 (its title bar's colour), and is still running 2 s later; it says how long the
                 first picture took (a figure, not a limit: no test here is timed)
  no_float       a browser without EXT_color_buffer_float (its WebGL2 made to hide it) says so in one
                 line and exits 1
  bad_parameter  a parameter the command line would refuse is refused in one line, exit 1; so is
                 one naming a file of the visitor's (screenshot=)
  weight         html + js + wasm under 2 MB

Needs Debian's chromium, chromium-driver and python3-selenium (tools/setup.sh), run with Debian's
own python3:

  /usr/bin/python3 tests/browser/web_page_test.py --page build-web --nbody build/nbody [--only ...]

Prints one line per check (ok or FAIL name: why); exits 0 when every check passes.
"""

import argparse
import functools
import io
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

TOLERANCE = 1e-5
PAGE_BYTES = 2 * 1024 * 1024
METHODS_N = (1024, 4099)


class Failure(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Failure(why)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


def serve(folder):
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def open_browser(hide_float_targets=False):
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1024,700", "--use-angle=swiftshader",
                     "--enable-unsafe-swiftshader"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    if hide_float_targets:  # a WebGL2 as iOS's was: no RGBA32F render targets
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            const hidden = 'EXT_color_buffer_float';
            const get = WebGL2RenderingContext.prototype.getExtension;
            WebGL2RenderingContext.prototype.getExtension = function (name) {
              return name === hidden ? null : get.call(this, name); };
            const list = WebGL2RenderingContext.prototype.getSupportedExtensions;
            WebGL2RenderingContext.prototype.getSupportedExtensions = function () {
              return list.call(this).filter((name) => name !== hidden); };"""})
    return browser


class Page:
    """The page at one URL: its exit code, status line and printed output once it ends."""

    # The waits are bounds for a page that never ends, not speed checks: SwiftShader on 2 cores
    # beside a parallel ctest is several times slower than alone (the test failed so, twice).
    # A page busy on its main thread (SwiftShader compiling, a step) answers no script until it
    # yields: the script timeout (30 s by default; CI hit it) is the same bound as the wait.
    def __init__(self, browser, base, query, wait=300.0):
        self.browser = browser
        browser.set_script_timeout(wait)
        started = time.monotonic()
        browser.get(base + "/nbody.html?" + query)
        self.exit = None
        while time.monotonic() - started < wait:
            self.exit = browser.execute_script("return document.body.dataset.exit ?? null")
            if self.exit is not None:
                break
            time.sleep(0.1)
        self.status = browser.execute_script("return document.getElementById('status').textContent")
        self.output = browser.execute_script("return document.getElementById('output').textContent")


def states_of(output):
    """The print mode's states: {"initial": rows, "final": rows}, rows of floats, and under
    "initial variant" and "final variant" the engine's variant the page names."""
    states, current = {}, None
    for line in output.splitlines():
        if line.startswith("# ") and " state, step " in line:
            title = line[2:].split()[0]
            states[title + " variant"] = line.partition("(")[2].rstrip(")")
            current = states.setdefault(title, [])
        elif current is not None and line and not line.startswith(("#", "x,")):
            current.append([float(value) for value in line.split(",")])
    return states


def read_csv(path):
    with open(path) as text:
        return [[float(value) for value in line.split(",")] for line in text.read().splitlines()[1:]]


def largest_difference(a, b):
    expect(len(a) == len(b), f"{len(a)} bodies against {len(b)}")
    return max(abs(x - y) for row_a, row_b in zip(a, b) for x, y in zip(row_a, row_b))


class Checks:
    def __init__(self, arguments, base, scratch):
        self.nbody, self.base, self.scratch = arguments.nbody, base, scratch
        self.page_folder = arguments.page
        self.browser = open_browser()

    def native(self, name, *options):
        path = os.path.join(self.scratch, name + ".csv")
        run = subprocess.run([self.nbody, "simulate", *options, "-o", path], capture_output=True,
                             text=True, timeout=600)
        expect(run.returncode == 0, f"nbody simulate {' '.join(options)}: {run.stderr.strip()}")
        return read_csv(path)

    def agrees(self, query, simulate_options, steps, variant=(), initial_variant=()):
        """The page's run of `query` against the native one; the variants the page names hold
        every NAME=VALUE of `variant` (at the end) and `initial_variant` (at the start)."""
        page = Page(self.browser, self.base, f"print=csv&steps={steps}&{query}")
        expect(page.exit == "0", f"{query}: exit {page.exit}: {page.status}")
        states = states_of(page.output)
        for title, wanted in (("final", variant), ("initial", initial_variant)):
            named = states.get(title + " variant", "").split()
            expect(all(setting in named for setting in wanted),
                   f"{query}: the page ran {title} {named}, not {list(wanted)}")
        start = self.native("start-" + query.replace("&", "_"), *simulate_options, "--steps", "0")
        expect(largest_difference(states["initial"], start) == 0.0,
               f"{query}: the initial state is not the native scene's")
        cpu = self.native("cpu-" + query.replace("&", "_"), *simulate_options, "--engine", "cpu",
                          "--steps", str(steps))
        difference = largest_difference(states["final"], cpu)
        expect(difference < TOLERANCE, f"{query}: {difference:.3g} from the CPU engine's state")

    def methods(self):
        methods = subprocess.run([self.nbody, "simulate", "--help"], capture_output=True,
                                 text=True).stdout
        names = methods.split("--method")[1].split("{")[1].split("}")[0].split(",")
        for bodies in METHODS_N:
            for method in names:
                self.agrees(f"bodies={bodies}&method={method}",
                            ["--bodies", str(bodies), "--method", method], 1)

    def variants(self):
        for settings in ("unroll=1x1&bodies-per-fragment=1&slices=1",
                         "unroll=4x4&bodies-per-fragment=8&slices=2",
                         "bodies-per-fragment=2&slices=8"):
            self.agrees(f"bodies=1024&method=rk4&{settings}", ["--bodies", "1024", "--method", "rk4"],
                        1, variant=settings.split("&"))

    def switch(self):
        self.agrees("bodies=1024&method=rk2&switch=bodies-per-fragment=2",
                    ["--bodies", "1024", "--method", "rk2"], 2, variant=["bodies-per-fragment=2"],
                    initial_variant=["bodies-per-fragment=4"])

    def input(self):
        start = self.native("input", "--scene", "disk", "--bodies", "300", "--steps", "0")
        shutil.copy(os.path.join(self.scratch, "input.csv"), os.path.join(self.page_folder, "input-check.csv"))
        try:
            page = Page(self.browser, self.base, "print=csv&steps=0&input=input-check.csv")
            expect(page.exit == "0", f"exit {page.exit}: {page.status}")
            expect(largest_difference(states_of(page.output)["initial"], start) == 0.0,
                   "the page did not start from the file's bodies")
        finally:
            os.remove(os.path.join(self.page_folder, "input-check.csv"))

    def picture(self):
        started = time.monotonic()
        self.browser.get(self.base + "/nbody.html?bodies=4096")
        shown = None
        while time.monotonic() - started < 120 and shown is None:
            png = self.browser.get_screenshot_as_png()
            if bodies_and_panel(png):
                shown = time.monotonic() - started
        expect(shown is not None, "no bodies and panel within 120 s")
        time.sleep(2)
        text = self.browser.execute_script("return document.body.dataset.exit ?? ''")
        expect(text == "", f"the page ended: exit {text}")
        self.browser.save_screenshot(os.path.join(self.scratch, "page.png"))
        return f"first picture with the panel after {shown:.2f} s"

    def no_float(self):
        browser = open_browser(hide_float_targets=True)
        try:
            page = Page(browser, self.base, "bodies=1024")
            expect(page.exit == "1", f"exit {page.exit}")
            expect("EXT_color_buffer_float" in page.status and "\n" not in page.status.strip(),
                   f"said: {page.status!r}")
        finally:
            browser.quit()

    def bad_parameter(self):
        for query, named in (("bodies=many", "bodies"), ("screenshot=x.png", "screenshot")):
            page = Page(self.browser, self.base, query)
            expect(page.exit == "1", f"{query}: exit {page.exit}")
            expect(page.status.startswith("nbody: ") and named in page.status,
                   f"{query}: said {page.status!r}")

    def weight(self):
        size = sum(os.path.getsize(os.path.join(self.page_folder, "nbody" + extension))
                   for extension in (".html", ".js", ".wasm"))
        expect(size < PAGE_BYTES, f"the page weighs {size} bytes")
        return f"{size} bytes"


def bodies_and_panel(png):
    """Bright pixels right of the panel (bodies), and the panel's title bar blue at its top left
    (Dear ImGui's dark style): read by Pillow, not by the page."""
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = picture.size
    pixels = picture.load()
    bright = sum(1 for y in range(0, height, 2) for x in range(width // 2, width, 2)
                 if pixels[x, y][0] > 150 and pixels[x, y][1] > 100)
    panel = sum(1 for y in range(10, 80) for x in range(15, 300, 3)
                if pixels[x, y][2] - pixels[x, y][0] > 40)
    return bright > 20 and panel > 20


CHECKS = ["methods", "variants", "switch", "input", "picture", "no_float", "bad_parameter", "weight"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", required=True, help="the folder tools/web.sh built")
    parser.add_argument("--nbody", required=True, help="the native nbody, the reference")
    parser.add_argument("--only", default=",".join(CHECKS))
    arguments = parser.parse_args()
    if not os.path.exists(os.path.join(arguments.page, "nbody.wasm")):
        print(f"FAIL setup: {arguments.page} holds no web page: build it with tools/web.sh")
        return 1
    server = serve(arguments.page)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    failures = 0
    with tempfile.TemporaryDirectory(prefix="nbody-web-") as scratch:
        checks = Checks(arguments, base, scratch)
        try:
            for name in arguments.only.split(","):
                started = time.monotonic()
                try:
                    said = getattr(checks, name)()
                    print(f"ok   {name} ({time.monotonic() - started:.1f} s){': ' + said if said else ''}",
                          flush=True)
                except Failure as failure:
                    failures += 1
                    print(f"FAIL {name}: {failure}", flush=True)
        finally:
            checks.browser.quit()
            server.shutdown()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
