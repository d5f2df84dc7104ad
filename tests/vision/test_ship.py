"""Shipping a new detector replaces the .pt and the .onnx together: stopped midway, the pair shipped before stays."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), ValueError("the export failed")], ids=["ctrl-c", "export-fails"])
def test_shipping_stopped_during_the_export_leaves_the_shipped_pair_as_it_was(tmp_path, monkeypatch, no_network, stop):
    import xingzi.models.ship as shipping

    out_pt, out_onnx = tmp_path / "w.pt", tmp_path / "w.onnx"
    out_pt.write_bytes(b"the .pt shipped before")
    out_onnx.write_bytes(b"the .onnx shipped before")

    def stopped(src, dst):  # the last step of the export, after the new .pt was ready
        raise stop

    monkeypatch.setattr(shipping, "any_size", stopped)
    with pytest.raises(type(stop)):
        shipping.ship(shipping.SHIPPED_PT, out_pt=out_pt, out_onnx=out_onnx)
    assert (out_pt.read_bytes(), out_onnx.read_bytes()) == (b"the .pt shipped before", b"the .onnx shipped before")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.onnx", "w.pt"]  # nothing half-made left beside them


def test_shipping_into_an_installed_package_is_refused_before_any_work(tmp_path, monkeypatch):
    import xingzi.models.ship as shipping

    monkeypatch.setattr(shipping, "is_checkout", lambda: False)  # a wheel's site-packages/xingzi/models
    before = shipping.SHIPPED_PT.stat().st_mtime_ns
    with pytest.raises(ValueError, match="is an installed package's: shipping replaces the models of a checkout"):
        shipping.ship(tmp_path / "none.pt")
    assert shipping.SHIPPED_PT.stat().st_mtime_ns == before
    monkeypatch.setattr(shipping, "checkpoint_of", lambda source: (_ for _ in ()).throw(FileNotFoundError("reached")))
    with pytest.raises(FileNotFoundError, match="reached"):  # elsewhere (a folder of the user's) it goes on
        shipping.ship(tmp_path / "none.pt", out_pt=tmp_path / "w.pt", out_onnx=tmp_path / "w.onnx")
