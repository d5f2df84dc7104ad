"""The program stopped or starved from outside while it works: SIGTERM in the middle of writing, standard output
closed, a file size limit. Each leaves the files as they were (or whole), says why in one line, and loses no score."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo.jpg"

# the annotated photo's last step (put in place) met by SIGTERM, as `kill` or a stopping service sends it
TERMINATED_WHILE_WRITING = """
import os, signal, sys
real = os.replace
def replace(src, dst):
    if str(dst).endswith("keep.png"):
        os.kill(os.getpid(), signal.SIGTERM)
    real(src, dst)
os.replace = replace
sys.argv = ["xingzi", "score", sys.argv[1], "--out", sys.argv[2]]
from xingzi.cli import program
program()
"""


def test_sigterm_while_the_annotated_photo_is_written_keeps_the_one_before_and_leaves_no_part(tmp_path):
    keep = tmp_path / "keep.png"
    keep.write_bytes(b"the annotated photo of the hand before")
    proc = subprocess.run([sys.executable, "-c", TERMINATED_WHILE_WRITING, str(DEMO), str(keep)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGTERM, proc.stderr  # dies of the signal, as a shell loop expects
    assert "Traceback" not in proc.stderr
    assert keep.read_bytes() == b"the annotated photo of the hand before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.png"]  # its hidden .part file removed


def test_standard_output_closed_is_refused_in_one_line_before_any_work(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", "--hand", "12m456m789p22345s 3m"],
                          preexec_fn=lambda: os.close(1), stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("xingzi: error: standard output is closed (>&-): nowhere to say what was done; "
                                   "send it to a file or to /dev/null")


def test_an_annotated_photo_over_the_file_size_limit_is_named_and_the_score_is_still_said(tmp_path):
    def small_files() -> None:  # `ulimit -f 20`: 20 KB, less than the annotated photo
        resource.setrlimit(resource.RLIMIT_FSIZE, (20 * 1024, resource.RLIM_INFINITY))

    out = tmp_path / "annotated.jpg"
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", str(DEMO), "--out", str(out)], cwd=tmp_path,
                          preexec_fn=small_files, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"xingzi score: error: {out}: too large to write here (a limit on file sizes)" in proc.stderr
    assert "own       26 炮" in proc.stdout and "wrote" not in proc.stdout  # the score read, not thrown away
    assert list(tmp_path.iterdir()) == []  # neither a cut photo nor its hidden part


def test_ctrl_c_on_synth_with_workers_stops_quietly_and_leaves_no_temp_file(tmp_path):
    """Ctrl-C reaches the whole process group: each spawned worker printed its own KeyboardInterrupt traceback, and
    the pool's semaphores were reported leaked, since the program died of the signal before its exit handlers ran."""
    import time

    def as_at_a_terminal() -> None:  # (a suite started in the background inherits SIGINT ignored)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    out = tmp_path / "set"
    proc = subprocess.Popen([sys.executable, "-m", "xingzi", "synth", "--n", "2000", "--out", str(out), "--workers",
                             "2", "--imgsz", "320"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=as_at_a_terminal)
    end = time.monotonic() + 240
    while time.monotonic() < end and len(list((out / "images").glob("*.jpg"))) < 4:  # the workers at work
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGINT, err
    assert "Traceback" not in err.decode() and "leaked" not in err.decode(), err.decode()[-2000:]
    assert not [p for p in out.rglob(".*")]  # no photo or label half written
