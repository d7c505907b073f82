"""The GIL is released while the engine runs: another Python thread makes progress
during a single native call.

Deterministic by construction: the switch interval is raised to 100 s, so a thread that
holds the GIL is never preempted. The watcher thread yields the GIL (time.sleep(0)) after
each step. If a call held the GIL, the watcher could not take a single step during it;
if the call releases the GIL, the watcher runs on the other core (or in the call's I/O
gaps) and its counter moves. A pure-Python control call proves the probe can fail.
"""

import sys
import threading
import time

import pytest

import bitweave


class Watcher:
    def __init__(self):
        self.count = 0
        self.stop = False
        self.started = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        self.started.set()
        while not self.stop:
            self.count += 1
            time.sleep(0)  # yields the GIL between steps

    def progress_during(self, call, tries=20):
        """Steps taken by the watcher during `call()`, over up to `tries` calls."""
        for _ in range(tries):
            before = self.count
            call()
            if self.count != before:
                return self.count - before
        return 0


@pytest.fixture
def watcher():
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    w = Watcher()
    w.thread.start()
    w.started.wait()
    try:
        yield w
    finally:
        w.stop = True
        sys.setswitchinterval(old)
        w.thread.join()


def test_control_pure_python_holds_the_gil(watcher):
    def spin():
        x = 0
        for i in range(300_000):
            x += i

    assert watcher.progress_during(spin, tries=3) == 0


def test_bulk_calls_release_the_gil(watcher):
    data = bytearray(8 << 20)
    key, iv = bytes(16), bytes(16)
    calls = {
        "encrypt": lambda: bitweave.encrypt("aes-128-cbc", key, iv, data, threads=1),
        "decrypt into out": lambda: bitweave.decrypt(
            "aes-128-ctr", key, iv, data, out=data, threads=1),
        "Encryptor.update": lambda: bitweave.Encryptor("seed-cbc", key, iv).update(data),
        "aead_encrypt": lambda: bitweave.aead_encrypt(
            "pi32cipher128v2", key, iv, bytes(32), data),
        "seal_bytes": lambda: bitweave.seal_bytes(data, key=bytes(32), threads=1),
        "bench": lambda: bitweave.bench("aes-128-cbc", size=1 << 20, time_ms=50, direction="enc"),
    }
    for name, call in calls.items():
        assert watcher.progress_during(call) > 0, name
