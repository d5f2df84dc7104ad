"""`xingzi synth --workers N` stopped from outside: what each worker process does with the signal. Ctrl-C reaches the
whole process group, and the pool ends its workers with SIGTERM; a worker says nothing of either and leaves no photo
half written."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

# a worker set up as the pool sets it up, then the signal met while a photo is put in place
WORKER = """
import os, signal, sys
from pathlib import Path
from xingzi.datasets.synth import dataset
dataset._init_worker()
real = os.replace
def replace(src, dst):
    os.kill(os.getpid(), signal.{which})
    real(src, dst)
os.replace = replace
out = Path(sys.argv[1])
try:
    dataset.atomic_write_bytes(out / "images" / "s.jpg", b"a photo")
finally:
    print("went on" if os.path.exists(out / "images" / "s.jpg") else "stopped", flush=True)
"""


@pytest.mark.parametrize(("which", "code", "said"), [
    # the parent alone stops on Ctrl-C (and ends the pool): the worker finishes its photo, printing nothing
    pytest.param("SIGINT", 0, "went on\n", id="ctrl-c-ignored"),
    # ended by the pool: it leaves as by an exception, its photo's temporary file removed
    pytest.param("SIGTERM", 128 + signal.SIGTERM, "stopped\n", id="sigterm-leaves-cleanly"),
])
def test_a_synth_worker_met_by_a_signal_while_writing_leaves_no_part_file(tmp_path, which, code, said):
    def as_at_a_terminal() -> None:  # (a suite started in the background inherits SIGINT ignored)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})

    proc = subprocess.run([sys.executable, "-c", WORKER.replace("{which}", which), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, preexec_fn=as_at_a_terminal)
    assert (proc.returncode, proc.stdout, proc.stderr) == (code, said, "")
    assert not list(tmp_path.rglob(".*"))  # no hidden temporary file left behind
