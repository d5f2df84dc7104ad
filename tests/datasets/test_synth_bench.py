"""`xingzi bench synth`: the generator's throughput, as printed, on a run small enough for a test."""

from __future__ import annotations

import re

import pytest

from xingzi.cli import main
from xingzi.datasets.synth.bench import cpu_per_image, steady_rate


def test_the_bench_makes_the_photos_asked_for_and_prints_both_rates(capsys):
    assert main(["bench", "synth", "--n", "3", "--workers", "1", "--imgsz", "320", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    rates = re.search(r"synth: 3 images at 320 px with 1 worker\(s\): ([\d.]+) images/s overall, ([\d.]+) images/s "
                      r"steady", out)
    assert rates and float(rates[1]) > 0 and float(rates[2]) > 0
    cpu = re.search(r"synth: (\d+) ms CPU per image, i\.e\. ([\d.]+) images/s on 1 idle core", out)
    assert cpu and int(cpu[1]) > 0
    assert float(cpu[2]) == pytest.approx(1000 / int(cpu[1]), rel=0.05)


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--n", "0"], "--n and --workers must be at least 1, got 0 and 2", id="no-photos"),
    pytest.param(["--n", "100001"], "--n must be 1..100000 photos, got 100001", id="past-the-cap"),
    pytest.param(["--n", "2", "--workers", "0"], "--n and --workers must be at least 1, got 2 and 0", id="no-workers"),
    pytest.param(["--n", "2", "--imgsz", "0"], "--imgsz must be 64..8192 pixels", id="no-size"),
    pytest.param(["--n", "2", "--seed", "-1"], "--seed must be 0 or more, got -1", id="negative-seed"),
])
def test_bad_numbers_are_refused_before_any_photo_is_made(argv, message, capsys):
    assert main(["bench", "synth", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_module_runs_as_the_command_does(capsys):
    from xingzi.datasets.synth import bench

    assert bench.main(["--n", "2", "--workers", "1", "--imgsz", "320"]) == 0
    assert "synth: 2 images at 320 px with 1 worker(s)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        bench.main(["--n", "0"])
    assert info.value.code == 2 and "--n and --workers must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("stamps, rate", [
    pytest.param([0.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0], 1.0, id="a-slow-start-left-out"),
    pytest.param([1.0, 1.5, 2.0], 2.0, id="intervals-not-stamps"),
    pytest.param([3.0], None, id="one-image"),
    pytest.param([2.0, 2.0], None, id="no-time-between"),
])
def test_the_steady_rate_counts_the_intervals_after_the_first_tenth(stamps, rate):
    assert steady_rate(stamps) == rate


def test_the_cpu_figure_counts_this_process_and_the_workers_it_waited_for():
    import subprocess
    import sys
    import time

    from xingzi.datasets.synth.bench import _cpu_seconds

    before = _cpu_seconds()
    assert before >= time.process_time() - 0.01  # this process's own time, at least
    subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"],
                   check=True)
    assert _cpu_seconds() - before >= 0.3  # a finished child's time is added


@pytest.mark.parametrize("cpu, warm_cpu, workers, done, per_image", [
    pytest.param(10.0, 4.0, 1, 5, 2.0, id="one-process-warmed-before"),
    pytest.param(20.0, 4.0, 2, 6, 2.0, id="each-worker-warms-once"),
    pytest.param(9.0, 4.0, 2, 30, None, id="start-up-is-most-of-it"),  # was 1e-9 s: "6e10 images/s"
    pytest.param(7.0, 4.0, 2, 30, None, id="start-up-more-than-measured"),
])
def test_the_cpu_per_image_leaves_out_the_workers_start_up_or_says_it_cannot(cpu, warm_cpu, workers, done, per_image):
    assert cpu_per_image(cpu, warm_cpu, workers, done) == per_image
