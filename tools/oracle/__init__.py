"""An independent scorer written from RULES.md alone, to check the engine by differential testing.

    python -m tools.oracle --n 20000 --seed 55 --show 3   # the engine against the oracle; exit 1 on a difference
    python -m tools.oracle --rounds --n 5000 --seed 55    # whole rounds: xingzi.engine.score_round against it
    python -m tools.oracle --examples                     # the oracle on RULES.md §11's worked examples

It shares no code with ``engine/`` and calls it only through ``xingzi.engine.score_situation`` and
``score_round`` (in ``compare``).
``notation`` reads tiles and melds, ``shapes`` splits hands and finds waits, ``items`` scores one reading,
``score`` picks the best and settles (§6-§8), ``deal`` makes seeded situations; ``rounds`` settles a whole
round between four seats (§7-§8: the seats double, 诈胡, 跟庄, the next dealer), ``deal_rounds`` makes seeded
rounds. Where RULES.md leaves room it takes the project's decisions of docs/engine.md (伤心痛苦, 两炮起胡
between readings); §9 readings it cannot check (000's flower additions, 海底放炮 from 10) it refuses, as
BadInput. ``tests/test_oracle.py`` runs it.
"""

from .deal import situations
from .deal_rounds import rounds
from .notation import BadInput
from .rounds import settle_round
from .score import score

__all__ = ["BadInput", "rounds", "score", "settle_round", "situations"]
