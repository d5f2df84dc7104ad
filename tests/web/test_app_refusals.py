"""What a hostile or careless client sends the web app, and what it is told: addresses and methods the app does not
take, a query parameter given twice, forms, bodies that are no JSON, a dataset folder that cannot take a photo."""

from __future__ import annotations

import errno

import pytest
from web_helpers import client_for, layout_detections


@pytest.mark.parametrize(("method", "path", "status", "message"), [
    pytest.param("GET", "/api/read", 405, "/api/read takes POST, not GET", id="get-the-upload"),
    pytest.param("PUT", "/api/rescore", 405, "/api/rescore takes POST, not PUT", id="put-a-rescore"),
    pytest.param("DELETE", "/api/labels", 405, "/api/labels takes POST, not DELETE", id="delete-labels"),
    pytest.param("POST", "/api/faces", 405, "/api/faces takes GET, HEAD, not POST", id="post-the-faces"),
    pytest.param("POST", "/", 405, "/ takes GET, HEAD, not POST", id="post-the-page"),
    pytest.param("GET", "/api/nope", 404, "no such address: /api/nope (the page is at /)", id="no-such-api"),
    pytest.param("GET", "/static/nope.js", 404, "no such address: /static/nope.js", id="no-such-static-file"),
    pytest.param("GET", "/static/../app.py", 404, "no such address", id="out-of-static"),
])
def test_addresses_and_methods_the_app_does_not_take_are_errors_the_page_can_show(method, path, status, message):
    client, fake = client_for(layout_detections())
    r = client.request(method, path)
    assert r.status_code == status
    assert message in r.json()["error"]  # {"error": ...} as every refusal, not Starlette's {"detail": ...}
    assert fake.calls == 0


@pytest.mark.parametrize("path", ["/", "/healthz", "/api/faces", "/api/rules", "/static/app.js"])
def test_head_is_answered_where_get_is(path):
    client, _ = client_for(layout_detections())
    head, get = client.head(path), client.get(path)
    assert (head.status_code, get.status_code) == (200, 200)
    assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]


@pytest.mark.parametrize(("method", "path", "query", "message"), [
    pytest.param("POST", "/api/read", "self_draw=1&self_draw=0", "self_draw is given 2 times in the query ('1', '0')",
                 id="self-draw-twice"),
    pytest.param("POST", "/api/read", "events=kong_bloom&dealer=1&events=", "events is given 2 times",
                 id="events-twice"),
    pytest.param("GET", "/api/rules", "rules=%7B%7D&rules=%7B%22four_fa%22%3A%22on_top%22%7D",
                 "rules is given 2 times", id="rules-twice"),
])
def test_a_query_parameter_given_twice_is_refused_as_a_json_key_given_twice_is(photo, method, path, query, message):
    client, fake = client_for(layout_detections())
    r = client.request(method, f"{path}?{query}", content=photo if method == "POST" else None)
    assert r.status_code == 400 and message in r.json()["error"] and "give it once" in r.json()["error"]
    assert fake.calls == 0


@pytest.mark.parametrize("media", ["MULTIPART/form-data; boundary=x", "Multipart/Form-Data; boundary=x"])
def test_a_form_is_told_to_send_the_photos_bytes_whatever_the_case_of_its_media_type(photo, media):
    client, fake = client_for(layout_detections())
    form = b'--x\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\n\r\n' + photo + b"\r\n--x--\r\n"
    r = client.post("/api/read", content=form, headers={"content-type": media})
    assert r.status_code == 415 and "--data-binary" in r.json()["error"]
    assert fake.calls == 0


def test_a_photo_sent_with_curl_d_is_told_its_line_breaks_were_dropped(photo):
    client, fake = client_for(layout_detections())
    stripped = photo.replace(b"\r", b"").replace(b"\n", b"")  # what `curl -d @photo.jpg` sends
    r = client.post("/api/read", content=stripped, headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and "curl -d" in r.json()["error"] and "--data-binary" in r.json()["error"]
    form = {"content-type": "application/x-www-form-urlencoded"}  # what curl --data-binary sends too
    assert client.post("/api/read", content=photo, headers=form).status_code == 200
    for other, headers in ((stripped, {"content-type": "image/jpeg"}), (photo[:-3000], form), (b"junk", form)):
        r = client.post("/api/read", content=other, headers=headers)  # cut short, not stripped: no word of curl -d
        assert r.status_code == 400 and "curl" not in r.json()["error"]


@pytest.mark.parametrize(("size", "hinted"), [pytest.param(4095, False, id="under-4-kib"),
                                               pytest.param(4096, True, id="4-kib")])
def test_the_curl_d_hint_is_given_from_4_kib_of_a_form_body_without_line_breaks(size, hinted):
    client, _ = client_for(layout_detections())
    r = client.post("/api/read", content=b"x" * size, headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and ("curl -d" in r.json()["error"]) == hinted


@pytest.mark.parametrize(("body", "came"), [
    pytest.param(b'{"token": x}', "got no JSON: Expecting value at line 1 column 11", id="not-json"),
    pytest.param(b"", "got no JSON: Expecting value at line 1 column 1", id="empty"),
    pytest.param(b'{"token": "\xff"}', "got no UTF-8 text: byte 11 is b'\\xff'", id="not-utf8"),
    pytest.param(b"[" * 100_000, "got JSON nested thousands deep", id="nested"),
])
@pytest.mark.parametrize("path", ["/api/rescore", "/api/labels"])
def test_a_body_that_is_no_json_is_told_what_was_expected_and_what_came(path, body, came):
    client, _ = client_for(layout_detections())
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("expected a JSON body {token, corrections") and came in r.json()["error"]


def _no_space(real):
    def write(path, *args):
        if path.parent.name == "labels":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, *args)
    return write


@pytest.mark.parametrize("fault", ["disk-full", "folder-in-the-way"])
def test_a_dataset_folder_that_cannot_take_the_photo_is_said_and_leaves_no_half_sample(photo, tmp_path, monkeypatch,
                                                                                        fault):
    """A photo saved without its labels would train the detector as a photo of no tiles."""
    from xingzi.datasets import samples

    folder = tmp_path / "collected"
    client, _ = client_for(layout_detections(), collect=folder)
    token = client.post("/api/read", content=photo).json()["token"]
    if fault == "disk-full":
        monkeypatch.setattr(samples, "atomic_write_text", _no_space(samples.atomic_write_text))
    else:
        (folder / "labels" / "hand.txt").mkdir(parents=True)
    r = client.post("/api/labels", json={"token": token, "store": True, "name": "hand.jpg"})
    assert r.status_code == 507
    error = r.json()["error"]
    assert error.startswith("存不进训练集 the photo could not be saved in the server's dataset folder")
    assert ("labels/hand.txt: the disk is full" if fault == "disk-full" else "labels/hand.txt: is a folder") in error
    assert ("labels/hand.txt：磁盘满了" if fault == "disk-full" else "labels/hand.txt：是个文件夹，应为文件") in r.json()[
        "error_zh"]  # why, in Chinese too
    assert not any((folder / "images").glob("*.jpg")) and not any((folder / "meta").glob("*"))
    monkeypatch.undo()
    if fault == "folder-in-the-way":
        (folder / "labels" / "hand.txt").rmdir()
    again = client.post("/api/labels", json={"token": token, "store": True, "name": "hand.jpg"})  # the photo is held
    assert again.status_code == 200 and again.json()["photos"] == 1
    assert sorted(p.name for p in (folder / "images").iterdir()) == ["hand.jpg"]


@pytest.mark.parametrize("corrections", [
    pytest.param('{"10": 10, "010": 11}', id="one-tile-twice-as-10-and-010"),
    pytest.param('{"10": 10, "10 ": 12}', id="one-tile-twice-with-a-space"),
    pytest.param('{"1_0": 10}', id="underscore"),
    pytest.param('{"+10": 10}', id="plus-sign"),
    pytest.param('{"\\u0661\\u0660": 10}', id="arabic-indic-digits"),
    pytest.param('{"\\uff11\\uff10": 10}', id="full-width-digits"),
    pytest.param('{"": 10}', id="empty"),
    pytest.param('{"1e1": 10}', id="exponent"),
    pytest.param('{"' + "1" * 5000 + '": 10}', id="five-thousand-digits"),
])
def test_a_correction_names_its_tile_by_a_plain_number_so_no_tile_is_named_twice(photo, corrections):
    """int() reads " 10", "010", "1_0" and "١٠" as 10: two of them gave one tile two faces, the last kept unsaid."""
    client, _ = client_for(layout_detections(misread_2s_as_3s=True))
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/rescore", content=f'{{"token": "{token}", "corrections": {corrections}}}')
    assert r.status_code == 400
    assert r.json()["error"].startswith('corrections: a tile index is a whole number written plainly, such as "3"; got')
    fixed = client.post("/api/rescore", json={"token": token, "corrections": {"10": 19}})
    assert fixed.status_code == 200 and fixed.json()["own"] == 3  # the 2s named by its number
