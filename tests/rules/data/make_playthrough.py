"""Write the golden playthrough files ``playthrough_<rules>.txt`` (OpenSpiel style).

Run ``.venv/bin/python tests/rules/data/make_playthrough.py`` after an intended
change of the rules or the notation, and review the diff.  Each file is one
seeded random game: the dice come from ``random.Random(seed)`` (the opening
roll is rerolled until it is not a double), and the play is drawn uniformly
from the legal plays sorted by resulting board, so the files do not depend on
the generator's order.  One line per turn, tab-separated:

    turn  position_id  dice  plays  play  pips

``position_id`` and ``pips`` (mover-opponent) are before the play; ``play`` is
its canonical notation, ``-`` for no move.  The last line gives the result.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pulvezar import LegalPlays, Play, Position, Rules

DIR = Path(__file__).parent
# file name -> (rules, seed)
RULE_SETS = {
    "international": (Rules.international(), 7),
    "tavla": (Rules.tavla(), 8),
    "tavla_hit_and_stop_must_bear_off": (Rules.tavla(hit_and_stop=True, must_bear_off=True), 9),
}
HEADER = "# turn\tposition_id\tdice\tplays\tplay\tpips"


@dataclass(frozen=True)
class Turn:
    number: int
    position: Position
    dice: tuple[int, int]
    plays: LegalPlays
    chosen: Play


def simulate(rules: Rules, seed: int, max_turns: int = 2000) -> Iterator[Turn]:
    """The turns of one seeded random game until it ends."""
    rng = random.Random(seed)
    p = rules.start_position()
    for number in range(1, max_turns + 1):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        while number == 1 and d1 == d2:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        plays = rules.legal_plays(p, (d1, d2))
        ordered = sorted(plays, key=lambda pl: pl.position.board)
        chosen = ordered[rng.randrange(len(ordered))]
        yield Turn(number, p, (d1, d2), plays, chosen)
        if rules.game_result(chosen.position) is not None:
            return
        p = chosen.position.swap()
    raise RuntimeError(f"no result after {max_turns} turns")


def render(rules: Rules, seed: int) -> str:
    """The playthrough text of one rule set."""
    lines = [f"# pulvezar playthrough: rules={rules.name} seed={seed}", HEADER]
    last = None
    for t in simulate(rules, seed):
        mine, theirs = t.position.pips()
        lines.append(
            f"{t.number}\t{t.position.position_id}\t{t.dice[0]}{t.dice[1]}\t{len(t.plays)}"
            f"\t{t.chosen.notation or '-'}\t{mine}-{theirs}"
        )
        last = t
    assert last is not None
    result = rules.game_result(last.chosen.position)
    assert result is not None
    winner = "first" if last.number % 2 else "second"
    lines.append(f"# result: {winner} player wins, {result.outcome.name.lower()}, {result.points} points")
    return "\n".join(lines) + "\n"


def path_for(name: str) -> Path:
    return DIR / f"playthrough_{name}.txt"


def main() -> None:
    for name, (rules, seed) in RULE_SETS.items():
        text = render(rules, seed)
        path_for(name).write_text(text)
        print(f"wrote {path_for(name)} ({text.count(chr(10)) - 3} turns)")


if __name__ == "__main__":
    main()
