"""The phone web page: upload a photo, see it annotated and scored, correct tiles, set the context.

``create_app(detector)`` builds the FastAPI app; the detector is injected (tests use a fake one)
or made from ``model`` on first use. Uploads are read from the request body with a size cap (no
multipart spooling to disk), decoded with a pixel-count guard, kept in memory for corrections
(a small LRU, or until the page asks the server to forget one), and nothing is written to disk at all.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from xingzi.datasets.samples import SampleStore, encode_sample, safe_name
from xingzi.engine import follow_dealer
from xingzi.engine.ruleset import Ruleset
from xingzi.engine.tiles import CLASS_NAMES, CLASS_NAMES_CN, TILES, Tile
from xingzi.vision.names import EVENTS, ITEM_NAMES
from xingzi.vision.photo import MAX_PIXELS, MAX_SIDE, decode_image
from xingzi.vision.pipeline import (
    PhotoResult,
    TileDetector,
    analyse,
    detect_hand,
    make_detector,
)
from xingzi.vision.sample_meta import sample_truth

from . import guards
from .asking import Marks, Session, flag, marks_of, param_json, read_json, seated, situation_of
from .guards import BadRequest
from .labels import labels_zip
from .refusals import refusal
from .rules import TableRules
from .seats import Seats, table_view
from .source import SourceOffer, licence_text

STATIC = Path(__file__).with_name("static")
MAX_UPLOAD = 12 * 1024 * 1024  # bytes
MAX_DECODING = 2  # photos decoded at once
MAX_SESSIONS = 16


def create_app(detector: TileDetector | None = None, *, model: str | None = None, conf: float | None = None,
               max_upload: int = MAX_UPLOAD, max_pixels: int = MAX_PIXELS, collect: str | Path | None = None,
               rules: TableRules | None = None) -> FastAPI:
    """The page and its API. ``collect``: a dataset folder where "save labels" keeps the photos (else the page
    gets each as a zip); ``rules``: the table's ruleset (the page may change its §9 options for its own scores)."""
    store = None if collect is None else SampleStore(collect)
    rules = rules or TableRules()
    ruleset = rules.ruleset
    # 跟庄 (§8): what the dealer pays each other player, for a plain tile followed and for 中/白
    paid = {kind: follow_dealer(tile, ruleset)[0] for kind, tile in (("plain", Tile.M1), ("dragon", Tile.ZHONG))}
    follow = {kind: int(p.amount) for kind, p in paid.items()}
    follow_pao = {kind: int(p.pao) for kind, p in paid.items()}  # the same before the dealer's doubling
    app = FastAPI(title="xingzi", docs_url=None, redoc_url=None, openapi_url=None)
    sessions: OrderedDict[str, Session] = OrderedDict()
    lock = threading.Lock()  # the held photos, shared between threads (held a moment, never while a photo is read)
    # one detector call at a time, in the order asked; a request whose client has gone by its turn is not read
    # (an asyncio lock: the app is served on one event loop, as uvicorn does, or a TestClient opened with `with`)
    detecting = asyncio.Lock()
    # a 40-MP picture takes up to ~0.6 GB while it is decoded: a few at a time, however many are sent at once
    decoding = threading.BoundedSemaphore(MAX_DECODING)
    holder: dict[str, TileDetector] = {} if detector is None else {"d": detector}

    def get_detector() -> TileDetector:
        if "d" not in holder:
            holder["d"] = make_detector(model, conf)
        return holder["d"]

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    guards.add_error_pages(app)

    @app.exception_handler(BadRequest)
    async def bad_request(_request: Request, exc: BadRequest) -> JSONResponse:
        return JSONResponse(refusal(str(exc), exc.status), status_code=exc.status)  # its Chinese beside it

    @app.exception_handler(Exception)
    async def internal(_request: Request, exc: Exception) -> JSONResponse:
        # the connection is closed after it: the client should not send on into a request that failed half way
        return JSONResponse(refusal(f"internal error: {type(exc).__name__}: {exc}", 500), status_code=500,
                            headers={"Connection": "close"})

    @app.api_route("/", methods=["GET", "HEAD"])  # HEAD: what any address that takes GET takes (curl -I)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    offer = SourceOffer()

    @app.api_route("/source", methods=["GET", "HEAD"])  # AGPL-3.0 §13: the page links it (web/source.py)
    def source() -> Response:
        return Response(offer.archive(), media_type="application/gzip",
                        headers={"Content-Disposition": f'attachment; filename="{offer.filename}"'})

    @app.api_route("/licence", methods=["GET", "HEAD"])
    def licence() -> PlainTextResponse:
        return PlainTextResponse(licence_text())

    @app.api_route("/healthz", methods=["GET", "HEAD"])
    def healthz() -> dict:
        return {"ok": True, "sessions": len(sessions)}

    @app.api_route("/api/faces", methods=["GET", "HEAD"])
    def faces() -> dict:
        return {
            "faces": [{"cls": i, "name": CLASS_NAMES[i], "symbol": t.symbol, "zh": CLASS_NAMES_CN[i]}
                      for i, t in enumerate(TILES)] + [{"cls": 30, "name": "back", "symbol": "?", "zh": "背面"}],
            "events": [{"key": k, "zh": ITEM_NAMES[k][0], "en": ITEM_NAMES[k][1]} for k in EVENTS],
            "max_side": MAX_SIDE,  # the page shrinks larger photos to this before uploading them
            "collect": None if store is None else store.count(),  # photos in the server's dataset folder
            "follow_dealer": follow,
            "follow_dealer_pao": follow_pao,
            "rules": rules.info(),
        }

    @app.api_route("/api/rules", methods=["GET", "HEAD"])
    def rule_items(request: Request) -> dict:
        try:
            return rules.items(param_json(guards.query(request).get("rules"), "rules"))
        except ValueError as e:
            raise BadRequest(str(e)) from None

    @app.post("/api/read")
    async def read(request: Request) -> JSONResponse:
        if guards.media_type(request).startswith("multipart/"):
            raise BadRequest("send the photo's bytes as the request body (curl --data-binary @photo.jpg), "
                             "not as a form", 415)
        params = guards.query(request)
        data = await guards.read_body(request, max_upload)
        context, as_read = situation_of(params, rules), flag(params.get("as_read", False), "as_read")
        (seats, context), hint = seated(params.get("table"), context), guards.form_hint(guards.media_type(request), data)
        image = await _in_thread(lambda: _decoded(data, hint))
        async with detecting:
            if await request.is_disconnected():  # gone (a phone that gave up, or sent the photo again): not read
                return JSONResponse(refusal("the client left before its photo was read", 499), status_code=499)
            detections, reading = await _in_thread(lambda: detect_hand(get_detector(), image))
        token = secrets.token_urlsafe(12)
        with lock:
            sessions[token] = Session(image, detections)
            while len(sessions) > MAX_SESSIONS:
                sessions.popitem(last=False)
        return await _in_thread(lambda: _respond(
            token, analyse(image, detections, context, as_read=as_read, reading=reading), seats, ruleset))

    def _decoded(data: bytes, hint: str) -> np.ndarray:
        try:
            with decoding:
                return decode_image(data, max_pixels=max_pixels)
        except ValueError as e:
            raise BadRequest(f"{e}{hint}") from None
        finally:  # the decoder's buffers, freed now, are not kept by the C heap for the rest of the evening
            guards.give_back_memory()

    def _marked(body: Any) -> tuple[str, Session, Marks]:
        """The held photo a rescore or labels request names, with the user's word on its tiles."""
        if not isinstance(body, dict):
            raise BadRequest("expected a JSON object")
        token = body.get("token")
        if not isinstance(token, str):  # (one let go is a 404 below: upload it again)
            raise BadRequest(f"token must be the text the photo was read under, got {token!r}"[:300])
        with lock:
            session = sessions.get(token)
            if session is not None:
                sessions.move_to_end(token)
        if session is None:
            raise BadRequest("this photo is no longer held by the server: upload it again", 404)
        return token, session, marks_of(body, session, rules)

    @app.post("/api/rescore")
    async def rescore(request: Request) -> JSONResponse:
        body = await read_json(request)

        def work() -> JSONResponse:  # (off the event loop: placing a tile beside a group groups the hand again)
            token, session, m = _marked(body)
            seats, context = seated(body.get("table"), m.context)
            m = replace(m, context=context)
            return _respond(token, _scored(session, m), seats, ruleset, m)

        return await _in_thread(work)

    @app.post("/api/forget")
    async def forget(request: Request) -> dict:
        """The page's "forget this photo": the held copy dropped at once rather than when newer photos push it out."""
        body = await read_json(request)
        if not isinstance(body, dict):
            raise BadRequest("expected a JSON object")
        if not isinstance(body.get("token"), str):
            raise BadRequest(f"token must be the text the photo was read under, got {body.get('token')!r}"[:300])
        with lock:
            held = sessions.pop(body["token"], None)
        return {"forgotten": held is not None}

    @app.post("/api/labels")
    async def labels(request: Request) -> Response:
        body = await read_json(request)

        def work() -> Response:
            _, session, m = _marked(body)
            name = safe_name(body.get("name"))
            guessed = [i for i in m.guessed if i not in m.removed]
            if guessed:  # a training label must lie on its tile
                raise BadRequest(f"tile #{guessed[0]} was added with \"+\": its place is where it reads best, not "
                                 "where it lies; for training labels tap \"not a tile\" on it, then the photo where "
                                 "it lies")
            if flag(body.get("store", False)) and store is None:
                raise BadRequest("this server keeps no dataset: start it with `xingzi serve --collect DIR`, "
                                 "or save the labels as a zip")
            # the faces the page showed (a likely misread put right), the score as the sample's truth
            det, keep, meta = sample_truth(_scored(session, m), m.removed, "page",
                                           lambda faces: _scored(session, replace(m, detections=faces, as_read=True)))
            if store is not None and flag(body.get("store", False)):
                try:
                    saved = store.save(name, *encode_sample(session.image, det, keep), meta)
                except OSError as e:  # a full disk, a folder made read-only: said, the photo still held
                    raise guards.save_failed(e, store.root) from None
                backup = Path(saved.backup).relative_to(store.root).as_posix() if saved.backup else None
                return JSONResponse({"saved": saved.name, "photos": saved.photos, "replaced": saved.replaced,
                                     "truth": meta is not None, "backup": backup})  # the labels it replaced, kept
            data = labels_zip(session.image, det, keep, name, meta)
            return Response(data, media_type="application/zip",
                            headers={"Content-Disposition": f'attachment; filename="{name}.zip"'})

        return await _in_thread(work)
    return app


def _scored(session: Session, m: Marks) -> PhotoResult:
    """The held photo analysed with the user's word on it (what a rescore shows)."""
    try:
        return analyse(session.image, m.detections, m.context, win_index=m.win, as_read=m.as_read, fixed=m.fixed,
                       ignored=m.ignored, claimed=m.claimed, released=m.released)
    except ValueError as e:
        raise BadRequest(str(e)) from None


async def _in_thread(fn: Callable[[], Any]) -> Any:
    return await run_in_threadpool(fn)


def _respond(token: str, res: PhotoResult, seats: Seats | None = None, ruleset: Ruleset | None = None,
             marks: Marks | None = None) -> JSONResponse:
    body = res.to_json()
    if marks is not None and marks.added:  # each added tile with its box as placed (by "+" too): the page keeps these
        first = len(marks.detections) - len(marks.added)
        body["added"] = [{"cls": k, "xyxy": [round(v, 1) for v in box], **({"placed": True} if first + j in
                                                                            marks.guessed else {})}
                         for j, (k, box) in enumerate(marks.added)]
    if seats is not None and res.result is not None:  # the tally's view: who pays whom, who deals next
        body["table"] = table_view(res.result, seats, ruleset)
    for item in body.get("items", []):
        zh, en = ITEM_NAMES.get(item.get("key", ""), (item.get("key", ""), item.get("key", "")))
        item["zh"], item["en"] = zh, en
    h, w = res.image.shape[:2]
    ok, jpeg = cv2.imencode(".jpg", res.annotated, [cv2.IMWRITE_JPEG_QUALITY, 82])
    if not ok:
        raise RuntimeError("could not encode the annotated photo")
    body.update(token=token, width=w, height=h,
                image="data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode("ascii"))
    return JSONResponse(body)
