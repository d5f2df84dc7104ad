"""Rulesets: every RULES.md §9 option and every 炮 number, loaded from TOML, never mutated.

``load_ruleset()`` gives the shipped default (the 003 text), ``load_ruleset("text000")`` the
second preset, ``load_ruleset(path)`` a house file. A file may start with ``base = "default"``
and write only what it changes. ``ruleset.with_overrides({...})`` returns a new Ruleset.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from .compiled import HERE as ENGINE_DIR  # (a compiled module's own __file__ is its build-time path)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

RULESET_DIR: Final = ENGINE_DIR / "rulesets"
PRESETS: Final = {"default": "default.toml", "text000": "text000.toml"}
MAX_NUMBER: Final = 1_000_000  # the most any 炮 number or factor of a ruleset may be
FLOWER_PATTERNS: Final = ("qi_xian_nv", "qing_yi_se", "hun_yi_se", "peng_peng_hu", "qi_dui", "yi_tiao_long", "hong_qi")
ADDITIONS: Final = ("self_draw", "concealed", "single_wait")  # the additions whose value the hand's 花炮 decides
OPTIONAL_ITEMS: Final = ("hai_di_lao_yue", "hai_di_pao", "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en")
CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "flower_additions": ("003", "000"),
    "specials_lift_threshold": (False, True),
    "hong_qi_seven_pairs": ("pairs", "fours"),
    "eaten_hong_qi": ("in_all", "on_top"),
    "four_fa": ("in_all", "on_top"),
    "self_draw_eating": ("each", "pool"),
    "hai_di_pao": ("addition", "start_at_10"),
    "won_triplet_concealed": (True, False),
}


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


_OPEN_TABLES: Final = ("replaces.", "flower_additions.")  # tables that may gain new keys


def _homes(tables: Mapping, key: str, where: str = "") -> list[str]:
    """The paths of the tables that hold ``key`` (``min_own`` → ``["threshold"]``), [pao] and [options] first: where
    a key written in the wrong place belongs."""
    found: list[str] = []
    for name, value in tables.items():
        if isinstance(value, Mapping):
            if key in value:
                found.append(where + name)
            found += _homes(value, key, f"{where}{name}.")
    return sorted(found, key=lambda path: ("pao", "options").index(path) if path in ("pao", "options") else 2)


def _said_homes(homes: list[str]) -> str:
    """``[pao], [options] or [eating]``: the tables a key belongs under, at most four named."""
    named = [f"[{home}]" for home in homes[:4]] + (["…"] if len(homes) > 4 else [])
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"


def _merge(base: dict, top: Mapping, where: str = "", root: Mapping | None = None) -> dict:
    out = copy.deepcopy(base)
    for key, value in top.items():
        if not isinstance(key, str):
            raise ValueError(f"ruleset: keys are text, got {key!r} in {where.rstrip('.') or 'the top table'}"[:300])
        if key not in out and where.startswith(_OPEN_TABLES):
            out[key] = copy.deepcopy(_thaw(value))
        elif key not in out:
            home = _homes(base if root is None else root, key)  # (not this table: it lacks the key)
            hint = f" ({key} belongs under {_said_homes(home)})" if home else ""
            raise ValueError(f"ruleset: unknown key {where + key!r}; expected one of {sorted(out)}{hint}")
        if isinstance(out[key], dict):
            if not isinstance(value, Mapping):
                raise ValueError(f"ruleset: {where + key!r} must be a table, got {value!r}")
            out[key] = _merge(out[key], value, f"{where}{key}.", base if root is None else root)
        else:
            out[key] = copy.deepcopy(_thaw(value))
    return out


def _read_toml(path: Path) -> dict:
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text.removeprefix("\ufeff"))  # the mark some editors (Notepad) put before UTF-8 text
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"ruleset {path}: not valid TOML (UTF-8 text): {e}") from None
    except RecursionError:  # (tomllib recurses: arrays nested thousands deep)
        raise ValueError(f"ruleset {path}: nested too deeply to be a ruleset (its tables are a few deep)") from None
    except OSError as e:  # (a device that fails to read, a file this user may not read)
        raise ValueError(f"ruleset {path}: cannot be read: {e.strerror or e}") from None


@dataclass(frozen=True)
class Ruleset:
    """One table's rules. Fields mirror the TOML tables; ``data`` keeps the whole file."""

    name: str
    options: Mapping[str, Any]
    optional: frozenset[str]
    pao: Mapping[str, int]
    hong_qi_sets: Mapping[str, int]
    additions: Mapping[str, Mapping[str, int]]
    replaces: Mapping[str, tuple[str, ...]]
    min_own: int
    not_lifting: frozenset[str]
    eating: Mapping[str, int]
    eating_hong_qi: Mapping[str, int]
    settlement: Mapping[str, Any]
    data: Mapping[str, Any] = field(repr=False)

    @classmethod
    def from_data(cls, raw: Mapping[str, Any]) -> Ruleset:
        data = _thaw(raw)
        data.pop("base", None)
        data = _merge(_default_data(), data)  # a file may write only what it changes
        _check(data)
        opts = data["options"]
        not_lifting = set(data["threshold"]["not_lifting"])
        if opts["specials_lift_threshold"]:
            not_lifting -= set(data["threshold"]["lifted_by_option"])
        frozen = _freeze(data)
        return cls(
            name=data["name"],
            options=frozen["options"],
            optional=frozenset(opts["optional"]),
            pao=frozen["pao"],
            hong_qi_sets=frozen["hong_qi_sets"],
            additions=frozen["flower_additions"][opts["flower_additions"]],
            replaces=frozen["replaces"],
            min_own=int(data["threshold"]["min_own"]),
            not_lifting=frozenset(not_lifting),
            eating=frozen["eating"],
            eating_hong_qi=frozen["eating"]["hong_qi"][opts["eaten_hong_qi"]],
            settlement=frozen["settlement"],
            data=frozen,
        )

    def option(self, key: str) -> Any:
        return self.options[key]

    def __reduce__(self) -> tuple[Any, ...]:
        # copy rebuilds from the fields: a compiled (mypyc) frozen dataclass cannot be restored
        # attribute by attribute (pickling fails either way: the tables are mapping proxies)
        return (Ruleset, tuple(getattr(self, f.name) for f in fields(self)))

    def with_overrides(self, overrides: Mapping[str, Any] | None) -> Ruleset:
        """A new Ruleset with §10 ``rules`` overrides applied.

        Keys may be whole tables (``{"pao": {"qing_yi_se": 20}}``), paths into them as the errors name them
        (``{"pao.qing_yi_se": 20}``) or, as shortcuts, option names (``{"specials_lift_threshold": true,
        "optional": ["tong_ku"]}``) and 炮 names. A name that is both (four_fa, hai_di_pao) sets the 炮 when given a
        whole number, the option otherwise.
        """
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise ValueError(f"rules overrides must be an object, got {overrides!r}")
        given: Any = overrides  # (compiled, a typed loop would raise TypeError at a key that is no text)
        if named := [key for key in given if not isinstance(key, str)]:
            raise ValueError(f"rules override names are text, like \"pao.ping_hu\", got {named[0]!r}"[:300])
        nested: dict[str, Any] = {}
        for key, value in overrides.items():
            number = isinstance(value, int) and not isinstance(value, bool)
            if "." in key and key.split(".", 1)[0] in self.data:  # a TOML path, as the errors name it: pao.ping_hu
                *tables, last = key.split(".")
                place = nested
                for table in tables:
                    place = place.setdefault(table, {})
                    if not isinstance(place, dict):
                        raise ValueError(f"rules override {key!r} sets inside {table!r}, which is given whole too")
                place[last] = value
            elif key in self.options and key in self.pao and number:  # four_fa, hai_di_pao: a number is the 炮
                nested.setdefault("pao", {})[key] = value
            elif key in self.options and not isinstance(value, Mapping):  # flower_additions is both
                nested.setdefault("options", {})[key] = value
            elif key in self.data:
                nested.setdefault(key, {})
                if isinstance(value, Mapping):
                    nested[key].update(value)
                else:
                    nested[key] = value
            elif key in self.options:
                nested.setdefault("options", {})[key] = value
            elif key in self.pao:
                nested.setdefault("pao", {})[key] = value
            elif home := _homes(self.data, key):  # min_own: a key of a table, given without its table
                raise ValueError(f"rules override {key!r} belongs under {_said_homes(home)}: name it by its path, "
                                 f"{'' if len(home) == 1 else 'e.g. '}{home[0]}.{key}"[:300])
            else:
                raise ValueError(
                    f"rules override {key!r} is not an option, a 炮 name, a table of the ruleset or a path into one "
                    f"(options: {', '.join(self.options)})"
                )
        return Ruleset.from_data(_merge(_thaw(self.data), nested))


def _check(data: dict) -> None:
    opts = data["options"]
    for key, allowed in CHOICES.items():
        if opts.get(key) not in allowed or type(opts.get(key)) is not type(allowed[0]):
            said = "true or false" if isinstance(allowed[0], bool) else f"one of {list(allowed)}"
            raise ValueError(f"ruleset option {key!r} must be {said}, got {_said(opts.get(key))}")
    optional = opts.get("optional")
    if not isinstance(optional, list) or any(o not in OPTIONAL_ITEMS for o in optional):
        raise ValueError(f"ruleset option 'optional' must list items among {list(OPTIONAL_ITEMS)}, got {optional!r}")
    numbers = {f"{table}.{key}": value for table in ("pao", "hong_qi_sets", "eating") for key, value in data[table].items()
               if (table, key) != ("eating", "hong_qi")}
    eating_hong_qi = data["eating"].get("hong_qi")
    if not isinstance(eating_hong_qi, dict) or sorted(eating_hong_qi) != ["in_all", "on_top"]:
        raise ValueError(f"ruleset eating.hong_qi must be the tables in_all and on_top, got {eating_hong_qi!r}")
    for way, table in eating_hong_qi.items():
        if not isinstance(table, dict):
            raise ValueError(f"ruleset eating.hong_qi.{way} must be a table, got {table!r}")
        numbers.update({f"eating.hong_qi.{way}.{key}": value for key, value in table.items()})
    settlement = data["settlement"]
    numbers.update({f"settlement.{key}": value for key, value in settlement.items() if key != "follow_dealer_doubled"})
    numbers["threshold.min_own"] = data["threshold"].get("min_own")
    for where, value in numbers.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"ruleset {where} must be a whole number ≥ 0, got {value!r}")
        if value > MAX_NUMBER:  # past it, payments outgrow what JSON readers (the page) hold exactly
            raise ValueError(f"ruleset {where} must be at most {MAX_NUMBER:,}, got {value:,}")
    if not isinstance(settlement.get("follow_dealer_doubled"), bool):
        raise ValueError(f"ruleset settlement.follow_dealer_doubled must be true or false, "
                         f"got {settlement.get('follow_dealer_doubled')!r}")
    if not isinstance(data.get("name"), str):
        raise ValueError(f"ruleset name must be text, got {data.get('name')!r}")
    from .items import NAMES  # (here: items reads this module)

    for key in ("not_lifting", "lifted_by_option"):
        listed = data["threshold"].get(key)
        if not isinstance(listed, list) or not all(isinstance(v, str) for v in listed):
            raise ValueError(f"ruleset threshold.{key} must be a list of item keys, got {listed!r}")
        _check_item_keys(listed, f"threshold.{key}", NAMES)
    if opts["flower_additions"] not in data["flower_additions"]:
        raise ValueError(f"ruleset has no [flower_additions.\"{opts['flower_additions']}\"] table")
    _check_additions(data["flower_additions"])
    for key, value in data["replaces"].items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"ruleset replaces.{key} must be a list of item keys, got {value!r}")
        _check_item_keys([key], "replaces", NAMES)
        _check_item_keys([v for v in value if v != "*"], f"replaces.{key}", NAMES)


def _check_item_keys(keys: list, where: str, known: Mapping[str, str]) -> None:
    """A key no item has would be read as nothing: a misspelt 门前清 in replaces.wenrou would quietly add it back."""
    for key in keys:
        if key not in known:
            raise ValueError(f"ruleset {where}: {key!r} is no scoring item; expected one of {', '.join(known)}")


def least_win_name(min_own: int) -> str:
    """The rule of the least a win may be, named by its number as players do: 两炮起胡 at 2, 三炮起胡 at 3."""
    return f"{'一两三四五六七八九十'[min_own - 1] if 1 <= min_own <= 10 else min_own}炮起胡"


def _said(value: Any) -> str:
    """A value as the file or JSON would write it: true/false/null, else Python's repr."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    return repr(value)


def _check_additions(tables: Mapping) -> None:
    """Each [flower_additions."X"] table: 自摸/门清/单张, each valued for a 平胡 (ping_hu), any 花炮 hand (flower) and
    any pattern of its own, in whole 炮 ≥ 0 (a negative or fractional value would score nonsense)."""
    for name, table in tables.items():
        where = f"ruleset flower_additions.{name}"
        if not isinstance(table, Mapping) or sorted(table) != sorted(ADDITIONS):
            got = sorted(table) if isinstance(table, Mapping) else table
            raise ValueError(f"{where} must hold the tables {list(ADDITIONS)}, got {got!r}")
        for addition, values in table.items():
            if not isinstance(values, Mapping) or not {"ping_hu", "flower"} <= set(values):
                raise ValueError(f"{where}.{addition} must give ping_hu and flower (and any 花炮 pattern), got {values!r}")
            for key, value in values.items():
                if key not in ("ping_hu", "flower") and key not in FLOWER_PATTERNS:
                    raise ValueError(f"{where}.{addition}: {key!r} is neither ping_hu, flower nor a 花炮 pattern "
                                     f"({', '.join(FLOWER_PATTERNS)})")
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise ValueError(f"{where}.{addition}.{key} must be a whole number ≥ 0, got {value!r}")
                if value > MAX_NUMBER:
                    raise ValueError(f"{where}.{addition}.{key} must be at most {MAX_NUMBER:,}, got {value:,}")


_DEFAULT: dict | None = None


def _default_data() -> dict:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = _read_toml(RULESET_DIR / PRESETS["default"])
    return _DEFAULT


_CACHE: Final[dict[str, Ruleset]] = {}


def load_ruleset(source: object = None) -> Ruleset:
    """The default ruleset, a preset name (``default``, ``text000``) or a TOML file path."""
    # typed object: compiled, nothing checked a str | Path parameter (0 and False loaded the default)
    if source is not None and not isinstance(source, (str, Path)):
        raise ValueError(f"a ruleset is a preset name ({', '.join(PRESETS)}) or a TOML file path, got {source!r}")
    key = str(source or "default")
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    if key in PRESETS:
        path = RULESET_DIR / PRESETS[key]
    else:
        path = Path(key)
        said = key if len(key) <= 120 else f"{key[:120]}… ({len(key)} characters)"
        try:
            folder, found = path.is_dir(), path.is_file()
        except OSError as e:  # a name too long for the system, a loop of links
            raise ValueError(f"ruleset file {said!r}: {e.strerror or e} (or use a preset: {', '.join(PRESETS)})") \
                from None
        if folder:
            raise ValueError(f"ruleset {said!r} is a folder: give a TOML file (or a preset: {', '.join(PRESETS)})")
        if not found:
            raise ValueError(f"ruleset file {said!r} not found (or use a preset: {', '.join(PRESETS)})")
    raw = _read_toml(path)
    base = raw.get("base")
    if base is not None and (not isinstance(base, str) or base not in PRESETS):
        raise ValueError(f"ruleset {path}: base must be one of {list(PRESETS)}, got {base!r}")
    if key not in PRESETS and "name" not in raw:  # else it bore its base's name: "default" for a changed default
        raw["name"] = f"{path.name}, on {load_ruleset(base).name}"
    if base and base != "default":
        merged = _merge(_thaw(load_ruleset(base).data), {k: v for k, v in raw.items() if k != "base"})
        ruleset = Ruleset.from_data(merged)
    else:
        ruleset = Ruleset.from_data(raw)
    _CACHE[key] = ruleset
    return ruleset
