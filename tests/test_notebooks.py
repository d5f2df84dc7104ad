"""The notebooks run top to bottom on the bundled tiny sample (executed with nbclient).

The kernel is ``python3``: ipykernel's own spec, installed into the venv with it (or by
``python -m ipykernel install --sys-prefix``); jupyter_client starts it with this interpreter,
so the notebooks see the same installed ``xingzi``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
SAMPLE = NOTEBOOKS.parent / "datasets" / "sample"


@pytest.fixture(scope="module", autouse=True)
def python3_kernel() -> None:
    """Make sure this environment has the ``python3`` kernel spec (a venv built without it gets it)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix"], check=True)


def execute(nb, cwd: Path = NOTEBOOKS) -> str:
    """Execute a notebook in ``cwd``; returns everything its cells printed."""
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    client.execute()  # raises CellExecutionError when a cell fails
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


@pytest.fixture
def run_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run a notebook whose kernel keeps its scratch folder (``tempfile.mkdtemp``) under this test's tmp_path."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the kernel inherits it: nothing is left in the system's /tmp

    def run(name: str) -> str:
        out = execute(nbformat.read(NOTEBOOKS / name, as_version=4))
        removed = re.search(r"removed the scratch folder (\S+)", out)
        assert removed and Path(removed[1]).parent == tmp_path, "the scratch folder is not under tmp_path"
        assert not list(tmp_path.glob("xingzi_nb_*")), "the notebook left its scratch folder behind"
        return out

    return run


def test_kernel_runs_this_environment():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys, xingzi; print(sys.prefix); print(xingzi.__file__)")]
    prefix, package = execute(nb).split()
    assert Path(prefix).resolve() == Path(sys.prefix).resolve()
    assert Path(package).resolve() == Path(__import__("xingzi").__file__).resolve()


def test_notebooks_are_the_three_documented():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == [
        "01_quickstart.ipynb", "02_evaluate.ipynb", "03_label_retrain.ipynb"]


def sample_label_count() -> int:
    return sum(1 for f in (SAMPLE / "labels").glob("*.txt") for line in f.read_text().splitlines() if line.strip())


@pytest.mark.slow
def test_quickstart_scores_worked_example_13(run_notebook):
    out = run_notebook("01_quickstart.ipynb")
    assert "own 炮: 3" in out  # RULES.md §11 example 13: own 3, pao 8, amount 16
    assert "eaten 5 -> 8 炮, pays 16" in out
    assert "放炮者 the discarder  pays 16" in out, out[-3000:]  # the same hand through `xingzi score --hand`
    assert '"amount": 16' in out  # and through `xingzi score --json`
    assert re.search(r"photo +\S+demo\.jpg .* tiles seen", out), out[-3000:]  # the example photo read
    owns = re.findall(r"^own +(\d+) 炮", out, re.M)  # `xingzi score --hand`, then the photo
    assert len(owns) == 2 and owns[0] == "3", out[-3000:]
    assert "Traceback" not in out


@pytest.mark.slow
def test_evaluate_reads_a_confusion_matrix(run_notebook):
    out = run_notebook("02_evaluate.ipynb")
    n_photos = len(list((SAMPLE / "images").iterdir()))
    assert f"{n_photos} photos predicted" in out
    assert "0 errors" in out  # the bundled sample passes `xingzi dataset check`
    m = re.search(r"tiles: (\d+) true, (\d+) read right, (\d+) missed", out)
    assert m, out[-2000:]
    true, right, missed = map(int, m.groups())
    assert true == sample_label_count()
    assert right >= 0.9 * true and missed <= 0.05 * true, m.group(0)  # the shipped model reads the sample
    assert re.search(r"\d+ images not exact; by kind of wrong box", out), out[-2000:]


@pytest.mark.slow
def test_label_retrain_keeps_corrected_labels(run_notebook):
    out = run_notebook("03_label_retrain.ipynb")
    n_photos = len(list((SAMPLE / "images").iterdir()))
    assert f"{n_photos} photos to label" in out
    assert f"second run: {n_photos} labels kept, 0 predicted" in out
    assert "0 errors" in out  # the photo kept from `xingzi score --labels` passes `xingzi dataset check`
    assert re.search(r"shipped +no correction \d+/\d+", out), out[-2000:]
    assert re.search(r"retrained +no correction \d+/\d+", out), out[-2000:]
