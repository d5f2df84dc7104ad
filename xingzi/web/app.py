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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from xingzi.datasets.samples import SampleStore, encode_sample, safe_name
from xingzi.engine import check_context, follow_dealer
from xingzi.engine.ruleset import Ruleset
from xingzi.engine.tiles import CLASS_NAMES, CLASS_NAMES_CN, TILES, Tile
from xingzi.jsontext import KeyTwice, NotJsonNumber, strict_loads
from xingzi.vision.detections import Detections, check_tile_index
from xingzi.vision.missed import Placed, add_missed
from xingzi.vision.names import EVENTS, ITEM_NAMES
from xingzi.vision.photo import MAX_PIXELS, MAX_SIDE, decode_image
from xingzi.vision.pipeline import (
    Context,
    PhotoResult,
    TileDetector,
    analyse,
    apply_corrections,
    detect_hand,
    make_detector,
)
from xingzi.vision.sample_meta import sample_truth
from xingzi.vision.usermarks import kong_named

from . import guards
from .guards import BadRequest
from .labels import labels_zip
from .refusals import refusal
from .rules import TableRules
from .seats import Seats, parse_seats, seated_flags, table_view

STATIC = Path(__file__).with_name("static")
MAX_UPLOAD = 12 * 1024 * 1024  # bytes
MAX_JSON = 1024 * 1024  # a rescore or labels body: marks on at most a few hundred tiles
MAX_DECODING = 2  # photos decoded at once
MAX_SESSIONS = 16


@dataclass
class Session:
    image: np.ndarray
    detections: Detections


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
            return rules.items(_param_json(guards.query(request).get("rules"), "rules"))
        except ValueError as e:
            raise BadRequest(str(e)) from None

    @app.post("/api/read")
    async def read(request: Request) -> JSONResponse:
        if guards.media_type(request).startswith("multipart/"):
            raise BadRequest("send the photo's bytes as the request body (curl --data-binary @photo.jpg), "
                             "not as a form", 415)
        params = guards.query(request)
        data = await guards.read_body(request, max_upload)
        context, as_read = _context(params, rules), _flag(params.get("as_read", False), "as_read")
        (seats, context), hint = _seated(params.get("table"), context), guards.form_hint(guards.media_type(request), data)
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
        return token, session, _marks(body, session, rules)

    @app.post("/api/rescore")
    async def rescore(request: Request) -> JSONResponse:
        body = await _json(request)

        def work() -> JSONResponse:  # (off the event loop: placing a tile beside a group groups the hand again)
            token, session, m = _marked(body)
            seats, context = _seated(body.get("table"), m.context)
            m = replace(m, context=context)
            return _respond(token, _scored(session, m), seats, ruleset, m)

        return await _in_thread(work)

    @app.post("/api/forget")
    async def forget(request: Request) -> dict:
        """The page's "forget this photo": the held copy dropped at once rather than when newer photos push it out."""
        body = await _json(request)
        if not isinstance(body, dict):
            raise BadRequest("expected a JSON object")
        if not isinstance(body.get("token"), str):
            raise BadRequest(f"token must be the text the photo was read under, got {body.get('token')!r}"[:300])
        with lock:
            held = sessions.pop(body["token"], None)
        return {"forgotten": held is not None}

    @app.post("/api/labels")
    async def labels(request: Request) -> Response:
        body = await _json(request)

        def work() -> Response:
            _, session, m = _marked(body)
            name = safe_name(body.get("name"))
            guessed = [i for i in m.guessed if i not in m.removed]
            if guessed:  # a training label must lie on its tile
                raise BadRequest(f"tile #{guessed[0]} was added with \"+\": its place is where it reads best, not "
                                 "where it lies; for training labels tap \"not a tile\" on it, then the photo where "
                                 "it lies")
            if _flag(body.get("store", False)) and store is None:
                raise BadRequest("this server keeps no dataset: start it with `xingzi serve --collect DIR`, "
                                 "or save the labels as a zip")
            # the faces the page showed (a likely misread put right), the score as the sample's truth
            det, keep, meta = sample_truth(_scored(session, m), m.removed, "page",
                                           lambda faces: _scored(session, replace(m, detections=faces, as_read=True)))
            if store is not None and _flag(body.get("store", False)):
                try:
                    saved = store.save(name, *encode_sample(session.image, det, keep), meta)
                except OSError as e:  # a full disk, a folder made read-only: said, the photo still held
                    raise guards.save_failed(e, store.root) from None
                return JSONResponse({"saved": saved.name, "photos": saved.photos, "replaced": saved.replaced,
                                     "truth": meta is not None})
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


@dataclass(frozen=True)
class Marks:
    """What the user said about a held photo's tiles, checked: the detections with added tiles and corrected
    faces, the faces the user set (``fixed``: no likeliest legal reading changes them), and the tiles set aside
    (``removed`` ones among them: no tile at all), taken as claimed melds or stood back in the hand."""

    detections: Detections
    fixed: dict[int, int]
    ignored: list[int]
    removed: list[int]
    claimed: list[int]
    released: list[int]
    win: int | None
    context: Context
    as_read: bool
    added: Placed  # the tiles added, each with its box as placed
    guessed: list[int]  # those whose place the server chose (the "+"): their boxes are no training labels


def _marks(body: dict, session: Session, rules: TableRules) -> Marks:
    corrections = body.get("corrections") or {}
    if not isinstance(corrections, dict):
        raise BadRequest("corrections must be an object {tile index: class id}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in corrections.values()):
        raise BadRequest(f"corrections must map tile indices to class ids (whole numbers), got {corrections!r}"[:300])
    odd = [k for k in corrections if not (len(k) < 10 and k.isascii() and k.lstrip("-").isdigit()
                                          and str(int(k)) == k)]
    if odd:  # (int() takes " 3", "03", "1_0" and "٣": "3" and "03" would name one tile twice)
        raise BadRequest(f"corrections: a tile index is a whole number written plainly, such as \"3\"; "
                         f"got {odd[0]!r}"[:300])
    fixed = {int(k): int(v) for k, v in corrections.items()}
    ignored, removed, claimed, released = (guards.indices(body, k) for k in ("ignored", "removed", "claimed", "released"))
    found = session.detections
    try:  # a tile added beside a group is placed as the user sees the hand: its faces corrected, its strays aside
        det, placed = add_missed(found, guards.added_tiles(body), session.image.shape, seen=_as_seen(found, fixed),
                                 ignored=[i for i in {*ignored, *removed} if 0 <= i < len(found)])
    except ValueError as e:
        raise BadRequest(f"bad added tile: {e}") from None
    try:
        if all(0 <= i < len(det) for i in fixed):  # (a bad index: apply_corrections says so)
            fixed = kong_named(det, fixed)
        det = apply_corrections(det, fixed)
    except (TypeError, ValueError) as e:
        raise BadRequest(f"bad correction: {e}") from None
    fixed.update({i: int(det.cls[i]) for i in range(len(found), len(det))})  # the user's own
    win = body.get("win")
    if win is not None and (isinstance(win, bool) or not isinstance(win, int)):
        raise BadRequest(f"win must be a tile index or null, got {win!r}")
    try:
        for i in removed:
            check_tile_index(i, len(det), "removed tile")
    except ValueError as e:
        raise BadRequest(str(e)) from None
    # a box on no tile counts in no hand: set aside, as the user's "not part of this hand"
    guessed = [len(found) + j for j, t in enumerate(body.get("added") or []) if "beside" in t or t.get("placed")]
    return Marks(det, fixed, sorted({*ignored, *removed}), removed, claimed, released, win, _context(body, rules),
                 _flag(body.get("as_read", False), "as_read"), placed, guessed)


def _as_seen(found: Detections, fixed: dict[int, int]) -> Detections:
    """The tiles found with the faces the user set on them (those that name no found tile or face left out: what
    they say is checked after)."""
    valid = {i: k for i, k in fixed.items() if 0 <= i < len(found) and 0 <= k < len(CLASS_NAMES)}
    return apply_corrections(found, kong_named(found, valid))


async def _json(request: Request) -> Any:
    data = await guards.read_body(request, MAX_JSON, "request")  # refused past the limit before it is all read
    try:
        return strict_loads(data)
    except (KeyTwice, NotJsonNumber) as e:
        raise BadRequest(str(e)) from None
    except (ValueError, RecursionError) as e:  # RecursionError: arrays nested thousands deep
        raise BadRequest("expected a JSON body {token, corrections, added, ignored, removed, claimed, released, win, "
                         f"self_draw, dealer, events}}; got {guards.not_json(e)}") from None


def _flag(value: Any, name: str = "flag") -> bool:
    """A yes/no of the query ("1", "true", "on" …) or a JSON body (true/false); anything else is refused."""
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(value, bool) or value is None or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise BadRequest(f"{name} must be true or false, got {value!r}"[:200])


def _context(params: dict, rules: TableRules) -> Context:
    events = params.get("events") or []
    if isinstance(events, str):
        events = [e for e in events.split(",") if e]
    if not isinstance(events, list) or any(e not in EVENTS for e in events):
        raise BadRequest(f"events must be a list of: {', '.join(EVENTS)}; got {events!r}")
    payers = _param_json(params.get("payers"), "payers") or []
    if not isinstance(payers, list) or not all(isinstance(p, dict) for p in payers):
        raise BadRequest("payers must be a list of objects like {\"dealer\": true, \"fa\": 1, \"melds\": []}")
    try:
        overrides = rules.for_page(_param_json(params.get("rules"), "rules"))
    except ValueError as e:
        raise BadRequest(str(e)) from None
    self_draw, dealer = _flag(params.get("self_draw", False), "self_draw"), _flag(params.get("dealer", False), "dealer")
    bloom = params.get("bloom")
    try:
        bloom = None if bloom in (None, "") else Tile.parse(bloom)
    except ValueError as e:
        raise BadRequest(f"bloom (the kong 杠上开花 was drawn on) must be a face such as '9p' or null: {e}") from None
    try:
        check_context(events, payers)  # malformed: said now (400); not fitting the hand: the score says why
    except ValueError as e:
        raise BadRequest(str(e)) from None
    return Context(self_draw=self_draw, dealer=dealer, events=tuple(events), payers=tuple(payers), rules=overrides,
                   ruleset=rules.spec, bloom=bloom)


def _param_json(value: Any, name: str) -> Any:
    """A parameter as the page sends it: JSON text in a query string, the value itself in a JSON body; None for
    none (or an empty text)."""
    if not isinstance(value, str):
        return value
    try:
        return strict_loads(value) if value.strip() else None
    except (KeyTwice, NotJsonNumber) as e:
        raise BadRequest(f"{name} in the query: {e}") from None
    except (ValueError, RecursionError):
        raise BadRequest(f"{name} in the query must be JSON, got {value[:80]!r}") from None


def _seated(value: Any, context: Context) -> tuple[Seats | None, Context]:
    """The tally's seats (None: none sent) and the context with the dealer flags they give (web/seats.py)."""
    try:
        seats = parse_seats(_param_json(value, "table"), context.self_draw)
    except ValueError as e:
        raise BadRequest(str(e)) from None
    if seats is None:
        return None, context
    dealer, payers = seated_flags(seats, context.payers)
    return seats, replace(context, dealer=dealer, payers=payers)


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
