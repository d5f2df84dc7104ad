"""Weight-space blending of two checkpoints (models/soup.py): on small networks and on the shipped detector."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from xingzi.models.soup import blend_states, soup

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "xingzi_yolo11n.pt"


def small_net(fill: float) -> nn.Sequential:
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    with torch.no_grad():
        for tensor in net.state_dict().values():
            if tensor.is_floating_point():
                tensor.fill_(fill)
    net[1].num_batches_tracked.fill_(7 if fill < 1 else 99)
    return net


@pytest.mark.parametrize(("alpha", "expected"), [pytest.param(0.0, 0.0, id="first"),
                                                 pytest.param(0.25, 1.0, id="quarter"),
                                                 pytest.param(1.0, 4.0, id="second")])
def test_blend_mixes_floats_and_keeps_the_first_counters(alpha, expected):
    blended = blend_states(small_net(0.0).state_dict(), small_net(4.0).state_dict(), alpha)
    floats = [t for t in blended.values() if t.is_floating_point()]
    assert floats and all(torch.allclose(t, torch.full_like(t, expected)) for t in floats)
    assert blended["1.num_batches_tracked"].item() == 7


def test_blend_keeps_half_precision():
    a = {k: v.half() for k, v in small_net(0.0).state_dict().items() if v.is_floating_point()}
    b = {k: v.half() for k, v in small_net(2.0).state_dict().items() if v.is_floating_point()}
    blended = blend_states(a, b, 0.5)
    assert all(t.dtype == torch.float16 and torch.all(t == 1.0) for t in blended.values())


@pytest.mark.parametrize(("second", "alpha", "message"), [
    pytest.param(nn.Sequential(nn.Conv2d(3, 4, 3)).state_dict(), 0.5, "different networks", id="other-names"),
    pytest.param(nn.Sequential(nn.Conv2d(3, 5, 3), nn.BatchNorm2d(5)).state_dict(), 0.5, "expected shape",
                 id="other-shapes"),
    pytest.param(small_net(1.0).state_dict(), 1.5, r"\[0, 1\]", id="alpha-out-of-range"),
])
def test_blend_refuses_what_does_not_fit(second, alpha, message):
    with pytest.raises(ValueError, match=message):
        blend_states(small_net(0.0).state_dict(), second, alpha)


def test_soup_of_the_shipped_detector_with_itself_is_the_detector(tmp_path):
    out = soup(SHIPPED, SHIPPED, 0.5, tmp_path / "soup.pt")
    original = torch.load(SHIPPED, weights_only=False, map_location="cpu")["model"].state_dict()
    souped = torch.load(out, weights_only=False, map_location="cpu")
    assert souped["optimizer"] is None and souped["soup"]["alpha"] == 0.5
    for name, tensor in souped["model"].state_dict().items():
        assert torch.equal(tensor, original[name]), name


def test_soup_refuses_to_overwrite_an_input_and_a_non_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="new file"):
        soup(SHIPPED, SHIPPED, 0.5, SHIPPED)
    bogus = tmp_path / "bogus.pt"
    torch.save({"weights": torch.zeros(2)}, bogus)
    with pytest.raises(ValueError, match="Ultralytics checkpoint"):
        soup(SHIPPED, bogus, 0.5, tmp_path / "out.pt")
    assert not (tmp_path / "out.pt").exists()
