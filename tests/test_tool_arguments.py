"""The developer tools say in one line what is wrong with their arguments (exit 2), before any work: a traceback, or
a clean result from a folder that is not there, hid the slip."""

from __future__ import annotations

import json

import pytest

from tools import coco_check, false_claims, missed_check, user_paths
from tools.oracle.__main__ import main as oracle_main


@pytest.fixture
def files(tmp_path):
    (tmp_path / "notes.txt").write_text("not json")
    (tmp_path / "other.json").write_text(json.dumps({"samples": 3}))
    (tmp_path / "synth" / "images").mkdir(parents=True)
    (tmp_path / "synth" / "meta").mkdir()
    return tmp_path


@pytest.mark.parametrize(("main", "argv", "message"), [
    pytest.param(coco_check.main, ["--data", "{d}/nowhere", "--preds", "{d}"], "dataset not found", id="coco-no-data"),
    pytest.param(coco_check.main, ["--data", "{d}/synth", "--preds", "{d}/nowhere"], "no data.yaml or classes.txt",
                 id="coco-data-unnamed"),
    pytest.param(false_claims.main, ["--data", "{d}/nowhere"], "--data {d}/nowhere: no photos in", id="claims-no-data"),
    pytest.param(user_paths.main, ["--data", "{d}/synth", "--bench", "{d}/notes.txt"],
                 "--bench {d}/notes.txt: expected a `xingzi bench pipeline --json-out` file", id="paths-bench-no-json"),
    pytest.param(user_paths.main, ["--data", "{d}/synth", "--bench", "{d}/other.json"],
                 "of a synthetic set", id="paths-bench-another-json"),
    pytest.param(user_paths.main, ["--data", "{d}/synth", "--limit", "-1"], "--limit must be 0 (all) or more, got -1",
                 id="paths-negative-limit"),  # sliced [:-1]: every sample but the last
    pytest.param(oracle_main, ["--n", "-5"], "--n must be 1 or more", id="oracle-negative-n"),
    pytest.param(missed_check.main, ["--random-layouts", "-3"], "--random-layouts and --limit must be 0 or more",
                 id="missed-negative-layouts"),
])
def test_a_tool_refuses_a_bad_argument_in_a_line(files, capsys, main, argv, message):
    with pytest.raises(SystemExit) as info:
        main([a.format(d=files) for a in argv])
    err = capsys.readouterr().err
    assert info.value.code == 2 and message.format(d=files) in err and "Traceback" not in err
    assert err.startswith("usage: python -m tools.")  # the name the docs run it by
