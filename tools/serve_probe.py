#!/usr/bin/env python3
"""Measures a running `nbody serve` as browser-like viewers see it: frames delivered per second to
each of K viewers that acknowledge every frame, the simulation's steps per second meanwhile (from
GET /status), and the time from a drag to the first frame that shows it (the session started with
--paused --hide-panel, so that nothing else changes the picture). Standard library only: a small
WebSocket client (RFC 6455) of its own.

  tools/serve_probe.py URL [--viewers K] [--seconds S] [--latency-samples M]

URL is the address `nbody serve` prints (http://127.0.0.1:PORT/#token=TOKEN). Prints one line per
figure and a last JSON line with all of them.
"""

import argparse
import base64
import json
import os
import socket
import statistics
import struct
import threading
import time
import urllib.parse
import urllib.request

FRAME_HEADER = struct.Struct("<4sQHHBBHd")  # magic, sequence, width, height, codec, flags, -, time


def parse_address(url):
    parts = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(parts.fragment).get("token", [""])[0]
    if not token:
        raise SystemExit("serve_probe: the address has no #token=")
    return parts.hostname, parts.port, token


class Viewer:
    """One WebSocket viewer: acknowledges every frame it reads."""

    def __init__(self, host, port, token):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.frames = 0
        self.handshake(host, port, token)

    def handshake(self, host, port, token):
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: http://{host}:{port}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                   f"Sec-WebSocket-Protocol: nbody.v1, token.{token}\r\n\r\n")
        self.sock.sendall(request.encode())
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.receive_some()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit("serve_probe: handshake refused: " + head.split(b"\r\n")[0].decode())

    def receive_some(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("the server closed the connection")
        return data

    def take(self, count):
        while len(self.buffer) < count:
            self.buffer += self.receive_some()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_frame(self):
        first, second = self.take(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", self.take(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self.take(8))[0]
        return first & 0x80 != 0, first & 0x0F, self.take(length)

    def read_message(self):
        """(opcode, payload) of the next whole message; continuation frames joined."""
        final, opcode, payload = self.read_frame()
        while not final:
            final, _, more = self.read_frame()
            payload += more
        return opcode, payload

    def send_text(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def next_picture(self, deadline):
        """The next frame's header, acknowledged; None at the deadline."""
        while True:
            self.sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                opcode, payload = self.read_message()
            except socket.timeout:
                return None
            if opcode == 8:
                raise ConnectionError("the server closed the WebSocket")
            if opcode == 2:
                header = FRAME_HEADER.unpack_from(payload)
                self.send_text({"type": "ack", "seq": header[1]})
                self.frames += 1
                return header

    def close(self):
        try:
            self.sock.sendall(bytes([0x88, 0x82]) + bytes(4) + struct.pack(">H", 1000))
        finally:
            self.sock.close()


def status(host, port, token):
    request = urllib.request.Request(f"http://{host}:{port}/status",
                                     headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def status_after_first_frame(host, port, token, most_seconds=300.0):
    """The status once the session has drawn a frame (a large scene takes a while to make)."""
    end = time.monotonic() + most_seconds
    while time.monotonic() < end:
        shown = status(host, port, token)
        if "step" in shown:
            return shown
        time.sleep(0.5)
    raise SystemExit("serve_probe: the session drew no frame in %d s" % most_seconds)


def frames_per_second(viewers, seconds):
    """Frames each viewer read in `seconds`, acknowledging each, all at once."""
    counts = [0] * len(viewers)

    def watch(index):
        deadline = time.monotonic() + seconds
        start = viewers[index].frames
        while viewers[index].next_picture(deadline) is not None:
            pass
        counts[index] = viewers[index].frames - start

    threads = [threading.Thread(target=watch, args=(i,)) for i in range(len(viewers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [count / seconds for count in counts]


def wait_until_still(viewer, quiet_seconds=0.6, most_seconds=10.0):
    end = time.monotonic() + most_seconds
    while time.monotonic() < end:
        if viewer.next_picture(time.monotonic() + quiet_seconds) is None:
            return
    raise SystemExit("serve_probe: the picture never settled (start the session --paused "
                     "--hide-panel to measure the latency)")


def drag_latencies(viewer, samples, width, height):
    """Seconds from a drag's move to the first frame after it, `samples` times."""
    viewer.send_text({"type": "take_control"})
    x, y = width * 0.75, height * 0.5
    latencies = []
    for k in range(samples):
        wait_until_still(viewer)
        viewer.send_text({"type": "button", "down": True, "button": 0, "x": x, "y": y, "mods": 0})
        wait_until_still(viewer, quiet_seconds=0.1)
        step = 15 if k % 2 == 0 else -15
        sent = time.monotonic()
        viewer.send_text({"type": "move", "x": x + step, "y": y, "buttons": 1})
        if viewer.next_picture(sent + 2.0) is None:
            raise SystemExit("serve_probe: a drag brought no frame within 2 s")
        latencies.append(time.monotonic() - sent)
        viewer.send_text({"type": "button", "down": False, "button": 0, "x": x + step, "y": y,
                          "mods": 0})
    return latencies


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--viewers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--latency-samples", type=int, default=0)
    args = parser.parse_args()
    host, port, token = parse_address(args.url)
    viewers = [Viewer(host, port, token) for _ in range(args.viewers)]
    figures = {"viewers": args.viewers}
    status_after_first_frame(host, port, token)
    if args.seconds > 0:
        before, began = status(host, port, token), time.monotonic()
        rates = frames_per_second(viewers, args.seconds)
        after, elapsed = status(host, port, token), time.monotonic() - began
        figures.update(frames_per_second=rates, width=after["width"], height=after["height"],
                       steps_per_second=(after["step"] - before["step"]) / elapsed,
                       bodies=after["bodies"], engine=after["engine"])
        # What the session drew, published, and left unsent meanwhile (frames a second).
        for counter in ("pictures_drawn", "frames_published", "pictures_unchanged",
                        "pictures_replaced"):
            if counter in after and counter in before:
                figures[counter + "_per_second"] = (after[counter] - before[counter]) / elapsed
        print(f"serve_probe: {args.viewers} viewers, frames/s " +
              ", ".join(f"{r:.1f}" for r in rates) +
              f"; simulation {figures['steps_per_second']:.1f} steps/s")
    if args.latency_samples > 0:
        shown = status(host, port, token)
        latencies = drag_latencies(viewers[0], args.latency_samples, shown["width"],
                                   shown["height"])
        figures.update(latency_median_ms=1e3 * statistics.median(latencies),
                       latency_p99_ms=1e3 * percentile(latencies, 0.99))
        print(f"serve_probe: drag to picture, median {figures['latency_median_ms']:.1f} ms, "
              f"99th percentile {figures['latency_p99_ms']:.1f} ms of {len(latencies)}")
    for viewer in viewers:
        viewer.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
