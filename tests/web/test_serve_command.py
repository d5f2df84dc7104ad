"""`xingzi serve`: its options reach the app (the server itself is stood in for: it would block)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from xingzi.cli import main


@pytest.fixture
def served(monkeypatch):
    """What `xingzi serve` handed to uvicorn: {"app", "host", "port"}."""
    import uvicorn

    got: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, log_level: got.update(app=app, host=host, port=port))
    monkeypatch.setattr("xingzi.commands.serve.check_port", lambda host, port: None)  # a port in use here is no matter
    return got


def test_a_port_another_server_holds_is_refused_before_the_address_is_printed(monkeypatch, capsys):
    import socket

    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("the server was started"))
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in err and "choose another --port" in err
    assert out == ""


def test_an_address_of_another_machine_is_refused_as_the_host_not_the_port(monkeypatch, capsys):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("the server was started"))
    assert main(["serve", "--host", "203.0.113.77"]) == 2  # (TEST-NET-3: on no machine)
    err = capsys.readouterr().err
    assert "--host 203.0.113.77: not an address of this machine" in err and "--port" not in err


def test_serve_with_a_dataset_folder(served, tmp_path, capsys):
    folder = tmp_path / "table_photos"
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123", "--collect", str(folder)]) == 0
    assert (served["host"], served["port"]) == ("0.0.0.0", 8123)
    assert f"saved labels go to {folder}" in capsys.readouterr().out
    meta = TestClient(served["app"]).get("/api/faces").json()
    assert meta["collect"] == 0 and not folder.exists()  # made by the first photo saved, not before


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["--port", "0"], "--port must be 1..65535", id="port"),
    pytest.param(["--port", "65536"], "--port must be 1..65535, got 65536", id="port-past-the-last"),
    pytest.param(["--max-upload-mb", "0"], "--max-upload-mb must be 0.5 to 1024 (MiB), got 0.0", id="upload-limit"),
    pytest.param(["--max-upload-mb", "0.4"], "--max-upload-mb must be 0.5 to 1024 (MiB), got 0.4",
                 id="upload-limit-under-any-photo"),  # 1e-9 refused every photo, an 8x8 PNG too
    pytest.param(["--max-upload-mb", "inf"], "--max-upload-mb must be 0.5 to 1024 (MiB), got inf",
                 id="upload-limit-infinite"),
    pytest.param(["--max-upload-mb", "nan"], "--max-upload-mb must be 0.5 to 1024 (MiB), got nan",
                 id="upload-limit-nan"),
    pytest.param(["--conf", "nan"], "--conf must be a confidence from 0 to 1, got nan", id="conf-nan"),
    pytest.param(["--conf", "1.5"], "--conf must be a confidence from 0 to 1, got 1.5", id="conf-over-1"),
    pytest.param(["--conf", "-0.5"], "--conf must be a confidence from 0 to 1, got -0.5", id="conf-under-0"),
    pytest.param(["--model", "/nonexistent/weights.onnx"], "--model: detector weights not found", id="no-weights"),
    pytest.param(["--host", "256.1.1.1"], "--host: not an address of this machine", id="bad-host"),
    pytest.param(["--model", "FILE"], "--model: weights must be a .pt or .onnx file, got 'notes.txt'",
                 id="weights-no-model"),
    pytest.param(["--model", "ONNX"], "--model: ", id="weights-no-onnx-network"),  # each photo got a 500
    pytest.param(["--collect", "FILE"], "expected a dataset folder, got the file", id="collect-into-a-file"),
    pytest.param(["--collect", "FILE/photos"], "notes.txt is a file, where a folder is needed", id="collect-under-a-file"),
])
def test_bad_serve_options_say_so(served, tmp_path, capsys, argv, message):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "fake.onnx").write_text("garbage")
    argv = [a.replace("FILE", str(tmp_path / "notes.txt")).replace("ONNX", str(tmp_path / "fake.onnx")) for a in argv]
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err and not served
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("argv", [
    pytest.param(["--port", "65535"], id="the-last-port"),
    pytest.param(["--port", "1"], id="the-first-port"),
    pytest.param(["--max-upload-mb", "0.5"], id="half-a-mib"),
    pytest.param(["--max-upload-mb", "1024"], id="the-most-upload"),
    pytest.param(["--conf", "0"], id="conf-0"),
    pytest.param(["--conf", "1"], id="conf-1"),
])
def test_serve_options_at_their_limits_are_taken(served, capsys, argv):
    """Each passes its own check: the run goes on to the next one, the weights (given missing here to stop it)."""
    assert main(["serve", *argv, "--model", "/nonexistent/weights.onnx"]) == 2
    assert capsys.readouterr().err.strip().endswith("--model: detector weights not found: /nonexistent/weights.onnx")


@pytest.mark.parametrize(("mib", "sent_mib", "over"), [
    pytest.param("1.5", 1.4, False, id="under-the-limit-given"),
    pytest.param("1.5", 1.6, True, id="over-the-limit-given"),
    pytest.param("0.5", 0.6, True, id="over-the-least-limit"),
])
def test_the_upload_limit_given_in_mib_is_the_pages(served, mib, sent_mib, over):
    """--max-upload-mb is MiB: a body past that many times 1024 × 1024 bytes is refused saying the limit, a body under
    it is read (and refused as no picture, these bytes being none)."""
    assert main(["serve", "--max-upload-mb", mib]) == 0
    r = TestClient(served["app"]).post("/api/read", content=b"x" * int(sent_mib * 1024 * 1024))
    assert (r.status_code == 413) is over, r.json()
    assert (f"is over the {mib} MiB limit" in r.json()["error"]) is over


def test_a_collect_folder_on_a_read_only_disk_is_said_so(served, tmp_path, monkeypatch, capsys):
    import os
    from types import SimpleNamespace

    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.setattr(os, "statvfs", lambda path: SimpleNamespace(f_flag=os.ST_RDONLY))
    assert main(["serve", "--collect", str(tmp_path / "photos")]) == 2
    assert f"({tmp_path} is not writable, a read-only disk)" in capsys.readouterr().err and not served
    for statvfs in (lambda path: SimpleNamespace(f_flag=0), _no_statvfs):  # not writable for another reason
        monkeypatch.setattr(os, "statvfs", statvfs)
        assert main(["serve", "--collect", str(tmp_path / "photos")]) == 2
        assert f"({tmp_path} is not writable)" in capsys.readouterr().err


def _no_statvfs(path):
    raise OSError(38, "Function not implemented")


def test_on_all_interfaces_with_no_network_the_user_is_told_a_phone_cannot_reach_it_yet():
    from xingzi.commands.serve import startup_text

    text = startup_text("0.0.0.0", 8000, lan=[])
    assert text.splitlines() == ["xingzi serve: http://127.0.0.1:8000/  (Ctrl-C to stop)",
                                 "no network address found: a phone can reach this machine only once it is on a network"]


QR_BLOCKS = {"█": (255, 255), "▀": (255, 0), "▄": (0, 255), " ": (0, 0)}  # (top, bottom) module: light on a dark screen


def _qr_from_text(text: str):
    """The picture a phone's camera sees of the QR code printed in ``text`` (lines of block characters)."""
    import numpy as np

    lines = [line for line in text.splitlines() if line and set(line) <= set(QR_BLOCKS)]
    rows = []
    for line in lines:
        rows += [[QR_BLOCKS[c][0] for c in line], [QR_BLOCKS[c][1] for c in line]]
    modules = np.array(rows, np.uint8)
    return np.kron(modules, np.ones((8, 8), np.uint8))


def test_on_all_interfaces_the_phone_address_is_printed_with_a_qr_code_that_reads(served, monkeypatch, capsys):
    import cv2

    monkeypatch.setattr("xingzi.web.lan.lan_addresses", lambda: ["192.168.1.23"])
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert "xingzi serve: http://127.0.0.1:8123/" in out
    assert "from a phone on the same network: http://192.168.1.23:8123/" in out
    assert cv2.QRCodeDetector().detectAndDecode(_qr_from_text(out))[0] == "http://192.168.1.23:8123/"
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123", "--no-qr"]) == 0
    assert "█" not in capsys.readouterr().out


def test_on_this_machine_alone_the_user_is_told_how_a_phone_gets_in(served, capsys):
    assert main(["serve"]) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out and "--host 0.0.0.0" in out and "█" not in out


@pytest.mark.parametrize(("host", "lan", "local", "remote"), [
    pytest.param("0.0.0.0", ["10.0.0.5", "192.168.1.2"], ["http://127.0.0.1:80/"],
                 ["http://10.0.0.5:80/", "http://192.168.1.2:80/"], id="all-interfaces"),
    pytest.param("0.0.0.0", [], ["http://127.0.0.1:80/"], [], id="no-network"),
    pytest.param("localhost", [], ["http://localhost:80/"], [], id="localhost"),
    pytest.param("::1", [], ["http://[::1]:80/"], [], id="ipv6-loopback"),
    pytest.param("192.168.1.9", [], [], ["http://192.168.1.9:80/"], id="one-address"),
    pytest.param("fd00::7", [], [], ["http://[fd00::7]:80/"], id="ipv6"),
    pytest.param("::", ["fd00::2"], ["http://[::1]:80/"], ["http://[fd00::2]:80/"], id="all-ipv6"),  # not IPv4's
])
def test_serve_urls(host, lan, local, remote):
    from xingzi.web.lan import serve_urls

    assert serve_urls(host, 80, lan) == (local, remote)


def test_a_name_for_this_machine_alone_is_said_to_be_out_of_a_phones_reach(monkeypatch, capsys):
    import socket

    from xingzi.commands.serve import startup_text

    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: real("127.0.0.1" if host == "vm" else host, *a, **k))
    text = startup_text("vm", 8000)  # (/etc/hosts may name this machine 127.0.x.x)
    assert "http://vm:8000/  (Ctrl-C to stop)" in text and "a phone cannot reach this address" in text
    assert "█" not in text


def test_on_every_ipv6_address_the_ipv6_urls_are_printed_and_ipv4_phones_told_the_way():
    from xingzi.commands.serve import startup_text

    lines = startup_text("::", 8000, qr=False, lan=["fd00::2"]).splitlines()
    assert lines == ["xingzi serve: http://[::1]:8000/  (Ctrl-C to stop)",
                     "from a phone on the same network: http://[fd00::2]:8000/",
                     "listening on IPv6 alone: a phone on an IPv4 network reaches the page with --host 0.0.0.0"]


def test_lan_addresses_are_this_machines_and_never_loopback():
    import ipaddress

    from xingzi.web.lan import lan_addresses

    for address in lan_addresses():  # none on a machine with no network: that is an answer too
        ip = ipaddress.ip_address(address)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_unspecified


class _FakeUdp:
    """A UDP socket whose outgoing interface is ``address`` (or no network at all: None)."""

    def __init__(self, address: str | None) -> None:
        self.address = address

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def connect(self, _to) -> None:
        if self.address is None:
            raise OSError("Network is unreachable")

    def getsockname(self):
        return (self.address, 40000)


@pytest.mark.parametrize(("outgoing", "by_name", "expected"), [
    pytest.param("192.168.1.5", ["127.0.1.1", "192.168.1.5", "10.0.0.7", "169.254.3.3"], ["192.168.1.5", "10.0.0.7"],
                 id="outgoing-first-then-the-host-names-without-loopback-or-link-local"),
    pytest.param("192.168.1.5", ["10.0.0.7"], ["192.168.1.5", "10.0.0.7"], id="outgoing-not-among-the-host-names"),
    pytest.param(None, ["127.0.1.1"], [], id="no-network"),
    pytest.param(None, None, [], id="host-name-not-resolved"),
])
def test_lan_addresses_from_the_outgoing_interface_and_the_host_name(monkeypatch, outgoing, by_name, expected):
    import socket

    from xingzi.web.lan import lan_addresses

    def getaddrinfo(*_args):
        if by_name is None:
            raise socket.gaierror("no such host")
        return [(socket.AF_INET, socket.SOCK_DGRAM, 0, "", (a, 0)) for a in by_name]

    monkeypatch.setattr(socket, "socket", lambda *_a: _FakeUdp(outgoing))
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert lan_addresses() == expected


def test_serve_with_the_tables_rules(served, capsys):
    # text000 puts four 发 on top; the table's own setting wins
    assert main(["serve", "--rules", "text000", "--set", "four_fa=in_all", "--set", 'optional=["tong_ku"]']) == 0
    assert "rules: text000" in capsys.readouterr().out
    rules = TestClient(served["app"]).get("/api/faces").json()["rules"]
    # the name says the server's changes, as `xingzi score --set` does (the name alone hid them from the page)
    assert rules["name"] == 'text000 (000 text readings), with --set four_fa=in_all optional=["tong_ku"]'
    assert rules["name_zh"] == '000 文本（按 000 文本的读法）（另设 four_fa=in_all optional=["tong_ku"]）'
    assert next(o for o in rules["options"] if o["key"] == "four_fa")["value"] == "in_all"
    assert [i["key"] for i in rules["optional"] if i["on"]] == ["tong_ku"]


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["--set", "four_fa=twice"], "'four_fa' must be one of", id="bad-value"),
    pytest.param(["--set", "four_fa"], "--set expects KEY=VALUE", id="no-value"),
    pytest.param(["--set", "nonsense=1"], "is not an option, a 炮 name, a table", id="unknown-key"),
    pytest.param(["--rules", "no_such_preset"], "no_such_preset", id="unknown-ruleset"),
])
def test_bad_rules_stop_the_server_before_it_starts(served, capsys, argv, message):
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err and not served


def test_a_port_an_ipv4_server_holds_is_free_for_one_on_every_ipv6_address():
    """asyncio binds `::` to IPv6 alone: the check refused a port an IPv4 server held, which uvicorn would have got."""
    import socket

    from xingzi.commands.serve import check_port

    with socket.socket() as other:
        other.bind(("0.0.0.0", 0))
        other.listen()
        port = other.getsockname()[1]
        check_port("::", port)  # no ValueError
        with pytest.raises(ValueError, match=rf"--port {port}: cannot listen on 0\.0\.0\.0:{port}"):
            check_port("0.0.0.0", port)


def test_weights_read_by_torch_start_the_page_where_onnx_runtime_is_missing(served, tmp_path, monkeypatch, capsys):
    """A .pt model is read by PyTorch: ONNX Runtime (the `read` extra) is not asked for; an .onnx model needs it."""
    import sys

    from xingzi.vision import pipeline

    monkeypatch.setenv("XINGZI_RUNTIME", "onnxruntime")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # its import fails as a missing package's does
    monkeypatch.setattr(pipeline, "make_detector", lambda weights, conf: "the detector")
    for name in ("net.pt", "net.onnx"):
        (tmp_path / name).write_bytes(b"weights")
    assert main(["serve", "--model", str(tmp_path / "net.pt")]) == 0
    assert served["app"] is not None
    served.clear()
    assert main(["serve", "--model", str(tmp_path / "net.onnx")]) == 2
    assert "needs the onnxruntime package" in capsys.readouterr().err and not served
