"""A game or match of a human (player 0) against a bot (player 1): state, actions, bot replies, records.

>>> from pulvezar.play import GameSettings, PlaySession
>>> s = PlaySession(GameSettings.from_dict({"rules": {"variant": "tavla"}, "bot": {"level": "easy"}}),
...                 seed=bytes(32))
>>> s.state()["actions"], s.state()["dice_commitment"][:8]
(['roll'], '66687aad')
>>> events = s.apply({"action": "roll"})     # the opening roll, then the bot's replies, if any
>>> events[0]["type"], events[0]["details"]["dice"]
('opening', [2, 1])

:meth:`PlaySession.apply` applies one action of the human and then lets the
bot act until the human's next decision, returning every transition as an
event ``{"type", "player", "details"}``.  A refused action raises a
:class:`~pulvezar.play.errors.SessionError` and changes nothing.

The session keeps a log of every primitive action (the human's, the bot's and
the server's), each with the dice it used; :meth:`to_json` stores settings,
seed, log and clock, and :meth:`from_json` replays the log without asking the
bot again, so a restored session is the same session.

The class is built in layers, each a module with one concern: :mod:`~pulvezar.play.core` (what a session
holds), :mod:`~pulvezar.play.entries` (the log's entries applied), :mod:`~pulvezar.play.view` (the state),
:mod:`~pulvezar.play.coach` (the trainer: verdicts, hints, checks, held actions),
:mod:`~pulvezar.play.bot_turn` (the bot's replies), :mod:`~pulvezar.play.timing` (the clock),
:mod:`~pulvezar.play.actions` (the human's actions) and this one (records, verification, export).
"""

from __future__ import annotations

import json
from copy import deepcopy
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Evaluator
from pulvezar.formats.record import MatchRecord
from pulvezar.match.dice import verify as verify_rolls
from pulvezar.play.actions import SessionActions
from pulvezar.play.clock import Clock
from pulvezar.play.core import ACTIONS, BOT, FORMAT, HUMAN, LEVEL_NAMES, VERSION
from pulvezar.play.errors import ActionNotAvailableError
from pulvezar.play.settings import GameSettings
from pulvezar.play.start import Start

__all__ = ["ACTIONS", "BOT", "FORMAT", "HUMAN", "LEVEL_NAMES", "VERSION", "PlaySession"]


class PlaySession(SessionActions):
    """One game or match against a bot (see the module).

    ``seed``: the 32-byte dice seed of server dice (bytes or hex; drawn from the
    operating system when omitted; not allowed with client dice).
    ``evaluator``: anything with ``evaluate_boards`` (default: the shipped net); a
    :class:`~pulvezar.play.provider.DecisionProvider` answers the bot's decisions and the trainer's
    searches itself (one call each).
    ``bot_seed``: the seed of the bot's deterministic noise (default: from the
    dice seed, or random with client dice).  ``trainer_ply``: the depth of the
    trainer's verdicts (2: the master engine, as the app); ``prune``: the trainer's and the bot's
    searches prune their replies (the default; ``False``: unpruned, recorded).  ``now``: the time
    of creation, which starts the player's clock.  ``start``: the first game
    starts from this position (:class:`~pulvezar.play.start.Start`: board, cube,
    score, Crawford, side on roll, its dice or double) instead of the opening;
    the bot acts first where the start gives it the decision (:meth:`resume`).
    """

    def rolls(self) -> list[tuple[int, int]]:
        """Every roll drawn from the dice stream, in order (opening rolls: player 0's die first)."""
        return [(int(e["d"][0]), int(e["d"][1])) for e in self.log if e["a"] in ("opening", "roll")]

    def verify(self, seed_hex: str | None = None) -> bool:
        """Whether the revealed seed (or ``seed_hex``) matches the commitment and produced every roll."""
        if self._dice is None:
            raise ActionNotAvailableError("client dice have nothing to verify", field="dice")
        if not self.finished and seed_hex is None:
            raise ActionNotAvailableError("the dice seed is revealed when the game is over", field="dice")
        seed = seed_hex if seed_hex is not None else self._dice.reveal()
        return verify_rolls(self._dice.commitment, seed, self.rolls())

    def to_json(self) -> dict[str, Any]:
        """A compact record (settings, seed, log, clock) that :meth:`from_json` restores.

        It holds the secret dice seed: store it, never show it to the player.
        """
        record: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "settings": self.settings.to_dict(),
            "seed": self._dice.reveal() if self._dice else None,
            "bot_seed": self.bot_seed,
            "trainer_ply": self.trainer_ply,
            "log": deepcopy(self.log),
            "clock": self.clock.to_dict() if self.clock else None,
            "start": self.start.to_dict() if self.start is not None else None,
        }
        if not self.prune:  # pruned (the default) records stay as they were
            record["prune"] = False
        return record

    def dumps(self) -> str:
        """:meth:`to_json` as compact JSON text."""
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, data: dict[str, Any] | str, *, evaluator: Evaluator | None = None) -> PlaySession:
        """The session of a record of :meth:`to_json` (a dict or its JSON text), replayed."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as e:
                raise PulvezarError(f"not a stored session: {e}", field="record") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PulvezarError("not a stored play session", field="record")
        if data.get("version") != VERSION:
            raise PulvezarError(f"unknown play session version {data.get('version')!r}", field="record")
        s = cls(
            GameSettings.from_dict(data["settings"]),
            seed=data.get("seed"),
            evaluator=evaluator,
            bot_seed=data["bot_seed"],
            trainer_ply=data.get("trainer_ply", 2),
            prune=data.get("prune", True),
            start=Start.from_dict(data["start"]) if data.get("start") else None,
        )
        for entry in data["log"]:
            try:
                s._record(dict(entry))
            except (PulvezarError, KeyError, TypeError) as e:
                raise PulvezarError(f"the stored log does not replay: {e}", field="log") from None
        if data.get("clock") is not None and s.clock is not None:
            s.clock = Clock.from_dict(data["clock"])
        return s

    def to_record(self, players: tuple[str, str] = ("Player", "pulvezar")) -> MatchRecord:
        """The match as a :class:`~pulvezar.formats.MatchRecord` (games that have begun)."""
        tags: dict[str, str] = {}
        rules = self.settings.rules
        if rules.variant == "tavla":
            tags["Variation"] = "Tavla"
            if rules.hit_and_stop:
                tags["HitAndStop"] = "On"
            if rules.must_bear_off:
                tags["MustBearOff"] = "On"
        games = [deepcopy(r) for r in self.records if r.actions or r.setup is not None]
        return MatchRecord(
            length=self.settings.match_length,
            players=players,
            tags=tags,
            games=games,
            options=self.settings.money,
        )

    def export(self, fmt: str, players: tuple[str, str] = ("Player", "pulvezar")) -> str | bytes:
        """The match as ``"mat"``, ``"sgf"`` or ``"txt"`` text, or ``"ogxm"`` bytes (OGXM: international
        rules only, and it needs the ``interop`` extra; a Tavla SGF is pulvezar's, gnubg cannot read it)."""
        from pulvezar.formats import write_mat, write_sgf, write_text

        record = self.to_record(players)
        if fmt == "ogxm":
            from pulvezar.formats.ogxm import write_ogxm

            if not self.settings.rules.uses_cube:
                raise PulvezarError("OGXM has no Tavla; export Tavla as .mat", field="format")
            return write_ogxm(record)
        if fmt == "mat":
            return write_mat(record)
        if fmt == "txt":
            return write_text(record)
        if fmt == "sgf":  # Tavla too: RU[Tavla], and a comment that gnubg cannot read it
            return write_sgf(record)
        raise PulvezarError(f"unknown format {fmt!r}; formats: mat, sgf, txt, ogxm", field="format")
