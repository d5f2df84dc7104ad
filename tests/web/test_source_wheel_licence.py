"""A server installed from a wheel (no checkout beside it): the licence it serves and packs with its source is the
licence file its distribution was installed with, found among the distribution's files."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from web_helpers import client_for, layout_detections

from xingzi.web import source

GENERIC = "GNU Affero General Public License, version 3 or later"


class Listed:
    """A file as importlib.metadata lists it: its name in the RECORD, and where it lies."""

    def __init__(self, site: Path, name: str) -> None:
        self.site, self.name = site, name

    def __str__(self) -> str:
        return self.name

    def locate(self) -> Path:
        return self.site / self.name


@pytest.mark.parametrize(("listed", "written", "served"), [
    pytest.param(["xingzi/cli.py", "xingzi-0.1.0.dist-info/licenses/LICENSE"], ["xingzi-0.1.0.dist-info/licenses/LICENSE"],
                 "AGPL text\n", id="licenses-LICENSE"),
    pytest.param(["xingzi/cli.py", "xingzi-0.1.0.dist-info/COPYING"], ["xingzi-0.1.0.dist-info/COPYING"],
                 "AGPL text\n", id="COPYING"),
    # listed in the RECORD but gone from the disk: the generic line, not a crash
    pytest.param(["xingzi/cli.py", "xingzi-0.1.0.dist-info/licenses/LICENSE"], [], GENERIC, id="listed-but-gone"),
    pytest.param(["xingzi/cli.py"], [], GENERIC, id="none-listed"),
])
def test_a_wheel_serves_and_packs_the_licence_it_was_installed_with(tmp_path, monkeypatch, listed, written, served):
    site = tmp_path / "site-packages"
    (site / "xingzi").mkdir(parents=True)
    (site / "xingzi" / "cli.py").write_text("x = 1\n")
    for name in written:
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("AGPL text\n")
    monkeypatch.setattr(source, "_package_dirs", lambda: [site / "xingzi"])
    monkeypatch.setattr(source.metadata, "files", lambda name: [Listed(site, f) for f in listed])
    client, _ = client_for(layout_detections())
    licence = client.get("/licence")
    assert licence.status_code == 200 and served in licence.text
    with tarfile.open(fileobj=io.BytesIO(client.get("/source").content), mode="r:gz") as tar:
        names = sorted(m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile())
    assert names == (["LICENSE", "xingzi/cli.py"] if written else ["xingzi/cli.py"])
