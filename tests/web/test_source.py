"""The page offers its users the program's source and licence (AGPL-3.0 §13): the archive is the code this server
runs, and nothing private or bulky goes with it."""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pytest
from web_helpers import client_for, layout_detections

from xingzi.web import source

ROOT = Path(__file__).resolve().parents[2]


def _members(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


@pytest.fixture(scope="module")
def served():
    client, fake = client_for(layout_detections())
    r = client.get("/source")
    return client, fake, r


def test_the_source_is_a_download_of_the_code_this_server_runs(served):
    client, fake, r = served
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
    assert re.fullmatch(r'attachment; filename="xingzi-[\w.]+-source\.tar\.gz"', r.headers["content-disposition"])
    files = _members(r.content)
    for name in ("LICENSE", "pyproject.toml", "xingzi/web/app.py", "xingzi/web/static/app.js", "engine/scoring.py",
                 "engine/rulesets/default.toml", "vision/grouping.py", "models/MODEL_CARD.md",
                 "models/LICENSE-mahjong-detector-MIT.txt"):
        assert files[f"xingzi-source/{name}"] == (ROOT / name).read_bytes(), name
    assert fake.calls == 0


def test_the_source_leaves_out_weights_fonts_pictures_and_ultralytics_settings(served):
    names = list(_members(served[2].content))
    assert len(names) > 150
    assert not [n for n in names if n.endswith((".onnx", ".pt", ".ttf", ".otf", ".jpg", ".png", ".so", ".pyc"))]
    assert not [n for n in names if n.endswith("settings.json") or "/." in n or "__pycache__" in n]


def test_the_same_code_gives_the_same_archive(served):
    client, _, r = served
    assert client.get("/source").content == r.content == source.source_archive()


def test_the_licence_is_served_as_text():
    client, _ = client_for(layout_detections())
    r = client.get("/licence")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert "GNU AFFERO GENERAL PUBLIC LICENSE" in r.text and "Version 3" in r.text


@pytest.mark.parametrize("path", ["/source", "/licence"])
def test_head_is_answered_as_get(path):
    client, _ = client_for(layout_detections())
    head = client.head(path)
    assert head.status_code == 200 and head.content == b""


def test_the_page_links_its_source_and_licence():
    client, _ = client_for(layout_detections())
    page = client.get("/").text
    footer = re.search(r"<p id=\"about\">.*?</p>", page, re.S)
    assert footer and 'href="/source"' in footer.group(0) and 'href="/licence"' in footer.group(0)
    assert "AGPL-3.0" in footer.group(0)


def test_a_checkout_offers_its_top_files_and_package_sources_only(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    (tmp_path / "LICENSE").write_text("AGPL\n")
    (tmp_path / "notes.txt").write_text("not a top file the archive takes\n")
    pkg = tmp_path / "pkg"
    for name, text in {"a.py": "x = 1\n", "page/app.js": "'use strict';\n", "rules.toml": "a = 1\n",
                       "weights.onnx": "bytes", "face.png": "bytes", "__pycache__/a.cpython-311.pyc": "bytes",
                       "__pycache__/stray.py": "x", ".hidden/secret.txt": "key", "cfg/settings.json": '{"api_key": 1}',
                       "runs/train/args.yaml": "epochs: 1"}.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    monkeypatch.setattr(source, "_package_dirs", lambda: [pkg])
    names = [name for _, name in source.source_files()]
    assert names == ["LICENSE", "pkg/a.py", "pkg/page/app.js", "pkg/rules.toml", "pyproject.toml"]
    assert source.licence_text() == "AGPL\n"


def test_an_installed_wheel_offers_its_package_folder(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "xingzi" / "engine").mkdir(parents=True)
    (site / "xingzi" / "cli.py").write_text("x = 1\n")
    (site / "xingzi" / "engine" / "scoring.py").write_text("y = 2\n")
    (site / "other.py").write_text("not ours\n")
    monkeypatch.setattr(source, "_package_dirs", lambda: [site / "xingzi", site / "xingzi" / "engine"])
    monkeypatch.setattr(source, "_installed_licence", lambda: None)
    assert [name for _, name in source.source_files()] == ["xingzi/cli.py", "xingzi/engine/scoring.py"]
    (site / "xingzi-0.1.0.dist-info" / "licenses").mkdir(parents=True)
    (site / "xingzi-0.1.0.dist-info" / "licenses" / "LICENSE").write_text("AGPL text\n")
    monkeypatch.setattr(source, "_installed_licence", lambda: site / "xingzi-0.1.0.dist-info" / "licenses" / "LICENSE")
    files = dict((name, path) for path, name in source.source_files())
    assert list(files) == ["LICENSE", "xingzi/cli.py", "xingzi/engine/scoring.py"]  # the licence goes with the code
    assert files["LICENSE"].read_text() == "AGPL text\n" == source.licence_text()


def _build_py(checkout: Path, into: Path) -> set[str]:
    """The package as setup.py lays it out for a wheel (its build_py step): its Python files' names."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "-d", str(into)], cwd=checkout,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {p.relative_to(into).as_posix() for p in into.rglob("*.py")}


def test_the_source_offered_by_an_installed_wheel_builds_the_same_package(tmp_path, monkeypatch):
    """A wheel packs the checkout's build files; its /source lays the packages out as the checkout does, so the
    archive builds again into the same Python files (AGPL-3.0: the scripts that build and install it go with it)."""
    wheel = tmp_path / "wheel"
    built = _build_py(ROOT, wheel)
    assert sorted(p.name for p in (wheel / "xingzi" / "_checkout").iterdir()) == \
        ["Makefile", "README.md", "pyproject.toml", "setup.py"]
    assert _build_py(ROOT, wheel) == built  # built again into the same folder (a second `pip wheel .` keeps build/)
    dirs = [wheel / Path(*name.split(".")) for name in source.PACKAGES]
    monkeypatch.setattr(source, "_package_dirs", lambda: dirs)
    monkeypatch.setattr(source, "_installed_licence", lambda: None)
    names = [name for _, name in source.source_files()]
    assert {"pyproject.toml", "setup.py", "Makefile", "engine/scoring.py", "xingzi/cli.py"} <= set(names)
    assert not [n for n in names if n.startswith(("xingzi/engine/", "xingzi/_checkout/"))]  # laid out as checked out
    unpacked = tmp_path / "unpacked"
    with tarfile.open(fileobj=io.BytesIO(source.source_archive()), mode="r:gz") as tar:
        tar.extractall(unpacked, filter="data")
    assert _build_py(unpacked / source.ARCHIVE_ROOT, tmp_path / "again") == built
