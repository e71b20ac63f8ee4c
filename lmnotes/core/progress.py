"""Progress of long work (training a model, converting a pretrained one), shown on the console
of whoever runs it and never written into a notebook. Used by every chapter that trains.

A notebook's cells write their output into the executed notebook, stderr included (ipykernel
captures the process's file descriptors too), so a progress line printed there would be a
difference between a cold and a warm run of the same chapter. :func:`note` writes to the file
named by ``LMNOTES_PROGRESS`` instead: the runner (:mod:`lmnotes.book`) relays that file to
its own standard error (:func:`relay`), and the test session keeps it as a log. Outside them
(a script, an interactive notebook) the line goes to standard error, where the user who
started the work sees it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time

ENV = "LMNOTES_PROGRESS"


@contextlib.contextmanager
def relay(stream=None):
    """Within the block, the progress lines of child processes (notebook kernels) reach
    ``stream`` (this process's standard error): ``LMNOTES_PROGRESS`` names a temporary file,
    and a thread copies each line written there, in order with this process's own output.
    Where ``LMNOTES_PROGRESS`` is set already, someone else relays and nothing changes."""
    if os.environ.get(ENV):
        yield
        return
    fd, path = tempfile.mkstemp(prefix="lmnotes-progress-", suffix=".log")
    os.close(fd)
    os.environ[ENV] = path
    done = threading.Event()

    def pump():
        with open(path, encoding="utf-8", errors="replace") as fh:
            while True:
                line = fh.readline()
                if line:
                    out = stream or sys.stderr
                    out.write(line)
                    out.flush()
                elif done.is_set():
                    return
                else:
                    time.sleep(0.2)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        del os.environ[ENV]
        os.unlink(path)


def note(message: str) -> None:
    """Print one line of progress for the user, never into a notebook's outputs."""
    line = f"lmnotes: {message}\n"
    target = os.environ.get(ENV)
    if target:
        # a runner that is gone (its file removed) leaves the line nowhere to go
        with contextlib.suppress(OSError), open(target, "a", encoding="utf-8") as fh:
            fh.write(line)
        return
    sys.stderr.write(line)
    sys.stderr.flush()


def duration(seconds: float) -> str:
    """'42 s', '3 min 5 s' or '1 h 2 min'."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {seconds % 60:.0f} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


class Timer:
    """Estimates the time left of ``total`` steps from the steps done so far."""

    def __init__(self, total: int):
        self.total, self.t0 = total, time.perf_counter()

    def left(self, done: int) -> str:
        if done <= 0:
            return "unknown"
        return duration((time.perf_counter() - self.t0) / done * (self.total - done))
