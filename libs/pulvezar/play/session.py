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
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from copy import deepcopy
from typing import Any

from pulvezar.cubeful import CubeState
from pulvezar.errors import NotationError, PulvezarError
from pulvezar.eval.evaluator import Evaluator
from pulvezar.formats.record import Action, GameRecord, MatchRecord, match_id_of
from pulvezar.match.dice import SEED_BYTES, FairDice
from pulvezar.match.dice import verify as verify_rolls
from pulvezar.match.game import Game, Phase
from pulvezar.match.match import Match
from pulvezar.play.bot import BotPlayer
from pulvezar.play.clock import Clock
from pulvezar.play.errors import (
    ActionNotAvailableError,
    IllegalMoveError,
    InvalidActionError,
    SessionFinishedError,
)
from pulvezar.play.provider import DecisionProvider
from pulvezar.play.settings import GameSettings
from pulvezar.play.start import Start
from pulvezar.play.trainer import TrainerAsk, TrainerQuestion, answer
from pulvezar.play.why import diagnose
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play
from pulvezar.rules.xgid import XGID

HUMAN, BOT = 0, 1
FORMAT = "pulvezar-play"
VERSION = 1
ACTIONS: tuple[str, ...] = (
    "roll", "play", "double", "take", "pass", "beaver", "raccoon", "resign", "accept", "reject", "end",
)  # fmt: skip
"""Every action name, in the order :meth:`PlaySession.actions` lists them."""
LEVEL_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}
_RESIGNATION_LEVELS = {"single": 1, "gammon": 2, "mars": 2, "backgammon": 3}
_ACTION_KEYS = {
    "roll": {"dice"},
    "play": {"notation", "position_id"},
    "resign": {"level"},
}
_MAX_STEPS = 10_000


def _event(kind: str, player: int | None, **details: Any) -> dict[str, Any]:
    return {"type": kind, "player": player, "details": details}


class PlaySession:
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

    def __init__(
        self,
        settings: GameSettings,
        *,
        seed: bytes | str | None = None,
        evaluator: Evaluator | None = None,
        bot_seed: int | None = None,
        trainer_ply: int = 2,
        prune: bool = True,
        now: float | None = None,
        start: Start | None = None,
    ) -> None:
        if not isinstance(settings, GameSettings):
            raise PulvezarError("settings must be GameSettings", field="settings")
        if type(trainer_ply) is not int or not 0 <= trainer_ply <= 2:
            raise PulvezarError("trainer_ply is 0, 1 or 2", field="trainer_ply")
        self.settings = settings
        if evaluator is None:
            from pulvezar.eval.evaluator import default_evaluator

            evaluator = default_evaluator()
        self.evaluator: Evaluator = evaluator
        self.trainer_ply = trainer_ply
        self.prune = prune
        self._dice: FairDice | None = None
        if settings.dice == "server":
            if isinstance(seed, str):
                try:
                    seed = bytes.fromhex(seed)
                except ValueError:
                    raise PulvezarError("the dice seed is 64 hex digits", field="seed") from None
            if seed is not None and (not isinstance(seed, bytes) or len(seed) != SEED_BYTES):
                raise PulvezarError(f"the dice seed is {SEED_BYTES} bytes", field="seed")
            self._dice = FairDice(seed if seed is not None else os.urandom(SEED_BYTES))
        elif seed is not None:
            raise PulvezarError("client dice have no seed", field="seed")
        if bot_seed is None:
            source = bytes.fromhex(self._dice.reveal()) if self._dice else os.urandom(8)
            bot_seed = int.from_bytes(source[-4:], "big") if self._dice else int.from_bytes(source[:4], "big")
        self.bot_seed = int(bot_seed)
        # an evaluator that answers the trainer's searches and the bot's decisions itself, else here
        self._trainer: Callable[[TrainerQuestion], Any]
        self.bot: BotPlayer
        if isinstance(evaluator, DecisionProvider):
            self._trainer = evaluator.trainer()
            self.bot = evaluator.bot(settings.bot, self.bot_seed, prune)
        else:
            self._trainer = lambda q: answer(q, evaluator)
            self.bot = BotPlayer(settings.bot, evaluator, self.bot_seed, prune)
        self.start = start
        self.match = Match(settings.match_length, settings.rules, settings.money)
        self.log: list[dict[str, Any]] = []
        if start is None:
            self.game: Game = self.match.new_game()
            self.records: list[GameRecord] = [GameRecord(1, (0, 0))]
        else:
            self._set_up(start)
        self.finished = False
        self.result: dict[str, Any] | None = None
        self.verdict: dict[str, Any] | None = None
        self.hints_used = 0  # in the match (a hint is an entry of the log: it replays)
        self._preview: tuple[int, dict[str, bool]] | None = None  # (log length, resignation preview)
        self._offered: set[int] = set()  # levels the bot has offered in this game
        self.clock: Clock | None = None
        if settings.clock.enabled:
            c = settings.clock
            self.clock = Clock(c.budget(settings.match_length), float(c.delay))
            if now is not None:
                self.clock.start(HUMAN, float(now), new_move=True)

    def _set_up(self, start: Start) -> None:
        """The first game from ``start``: score, Crawford, board, cube, then its dice or its double."""
        length = self.settings.match_length
        start.check(length, self.settings.rules.uses_cube)
        m = self.match
        m.score = start.score
        m.crawford_played = length > 1 and length - 1 in start.score and not start.crawford
        self.game = g = m.new_game(start.setup)
        self.records = [GameRecord(1, start.score, crawford=g.context.crawford, setup=start.setup)]
        if start.dice is not None:
            g.roll(start.dice)
            self._act(start.turn, "roll", dice=start.dice)
        elif start.doubled:
            g.double()
            self._act(start.turn, "double", value=2 * g.cube_value)

    # ---- queries -----------------------------------------------------------------------------
    @property
    def status(self) -> str:
        return "finished" if self.finished else "playing"

    @property
    def dice_commitment(self) -> str | None:
        return self._dice.commitment if self._dice else None

    def to_act(self) -> int | None:
        """The player whose decision the game waits for (None once finished)."""
        if self.finished:
            return None
        g = self.game
        ph = g.phase
        if ph is Phase.OPENING:
            return HUMAN
        if ph in (Phase.ROLL, Phase.MOVE, Phase.BEAVERED):
            return g.turn
        if ph in (Phase.DOUBLED, Phase.RACCOONED):
            return 1 - g.turn
        if ph is Phase.RESIGNED:
            assert g.resigner is not None
            return 1 - g.resigner
        return None

    def resign_levels(self) -> list[str]:
        """The levels the human may resign at now."""
        g = self.game
        if self.finished or g.phase not in (Phase.ROLL, Phase.MOVE):
            return []
        return [LEVEL_NAMES[x] for x in g.resignation_levels(HUMAN)]

    def resignation_preview(self) -> dict[str, bool] | None:
        """Whether the bot would accept the human's resignation now, per level the human may resign at
        (``{"single": true, "gammon": true, ...}``); None when no resignation is possible.  The bot's own
        answer (:meth:`BotPlayer.accepts_resignation`) on a copy of the game; kept until the next action;
        None too while the evaluator fails."""
        levels = self.resign_levels()
        if not levels:
            return None
        key = len(self.log)
        if self._preview is None or self._preview[0] != key:
            out = {}
            try:
                for name in levels:
                    trial = deepcopy(self.game)
                    trial.resign(_RESIGNATION_LEVELS[name], HUMAN)
                    out[name] = self.bot.accepts_resignation(trial)
            except Exception:  # the evaluator is down: the state shows no preview, and the game goes on
                return None
            self._preview = (key, out)
        return dict(self._preview[1])

    def actions(self) -> list[str]:
        """The names of what the human may do now."""
        if self.finished:
            return []
        g, ph, who = self.game, self.game.phase, self.to_act()
        out: set[str] = set()
        if ph is Phase.OPENING:
            out.add("roll")
            if self.settings.is_money:
                out.add("end")
        elif who == HUMAN:
            if ph is Phase.ROLL:
                out.add("roll")
                if g.can_double():
                    out.add("double")
            elif ph is Phase.MOVE:
                out.add("play")
            elif ph in (Phase.DOUBLED, Phase.BEAVERED, Phase.RACCOONED):
                out |= {"take", "pass"}
                if ph is Phase.DOUBLED and g.context.options.beaver:
                    out.add("beaver")
                if ph is Phase.BEAVERED and g.context.options.raccoon:
                    out.add("raccoon")
            elif ph is Phase.RESIGNED:
                out |= {"accept", "reject"}
        elif who == BOT and ph is Phase.ROLL and self.settings.dice == "client":
            out.add("roll")  # the client enters the bot's dice
        if self.resign_levels():
            out.add("resign")
        return [a for a in ACTIONS if a in out]

    def legal_plays(self) -> list[dict[str, str]]:
        """``[{"notation", "position_id"}]`` when the human must play, else ``[]``."""
        if self.finished or self.game.phase is not Phase.MOVE or self.game.turn != HUMAN:
            return []
        return [
            {"notation": p.notation, "position_id": p.position.position_id} for p in self.game.legal_plays()
        ]

    def board(self) -> dict[str, Any]:
        """Position ID, Match ID, gnubg ID and XGID of the current game, and each side's checkers.

        The Match ID and XGID are ``None`` where they cannot express the state (a cube beyond
        32768 or 1024, a money score beyond 32767).
        """
        g = self.game
        pos = g.position
        try:
            mid: str | None = match_id_of(g).encode()
        except PulvezarError:  # a cube or money score beyond what a Match ID holds
            mid = None
        human = pos if g.turn == HUMAN else pos.swap()
        return {
            "position_id": pos.position_id,
            "match_id": mid,
            "gnubg_id": f"{pos.position_id}:{mid}" if mid else None,
            "xgid": self._xgid(),
            "seen_from": g.turn,
            "checkers": {"human": list(human.mine), "bot": list(human.theirs)},
            "off": list(human.off()),
            "pips": list(human.pips()),
        }

    def _xgid(self) -> str | None:
        g, c = self.game, self.game.context
        dice: str | tuple[int, int] = "00"
        if g.phase is Phase.MOVE and g.dice is not None:
            dice = g.dice
        else:
            dice = {Phase.DOUBLED: "D", Phase.BEAVERED: "B", Phase.RACCOONED: "R"}.get(g.phase, "00")
        owner = 0 if g.cube_owner is None else (1 if g.cube_owner == HUMAN else -1)
        cj = int(c.crawford) if c.length else int(c.options.jacoby) | (2 if c.options.beaver else 0)
        try:
            return XGID.from_position(
                g.position, turn=1 if g.turn == HUMAN else -1, cube_value=g.cube_value, cube_owner=owner,
                dice=dice, score=c.score, crawford_jacoby=cj, match_length=c.length,
            ).encode()  # fmt: skip
        except PulvezarError:
            return None

    def state(self, now: float | None = None) -> dict[str, Any]:
        """The JSON-able state: board, score, cube, turn, actions, legal plays, dice, clock, trainer."""
        g = self.game
        who = self.to_act()
        resignation = None
        if g.phase is Phase.RESIGNED and not self.finished:
            resignation = {"player": g.resigner, "level": LEVEL_NAMES[g.resignation]}
        st: dict[str, Any] = {
            "status": self.status,
            "settings": self.settings.to_dict(),
            "bot": {"level": self.bot.level, "style": self.settings.bot.style, "margin": self.bot.margin},
            "game": len(self.match.games),
            "match_length": self.settings.match_length,
            "score": list(self.match.score),
            "crawford": g.context.crawford,
            "post_crawford": bool(g.context.length) and not g.context.crawford and self.match.crawford_played,
            "board": self.board(),
            "phase": g.phase.value,
            "turn": g.turn,
            "to_act": who,
            "cube": {
                "value": g.cube_value,
                "owner": g.cube_owner,
                "used": g.rules.uses_cube,
            },
            "dice": list(g.dice) if g.dice is not None and g.phase is Phase.MOVE else None,
            "actions": self.actions(),
            "legal_plays": self.legal_plays(),
            "resign_levels": self.resign_levels(),
            "resign_preview": self.resignation_preview(),
            "resignation": resignation,
            "dice_mode": self.settings.dice,
            "dice_commitment": self.dice_commitment,
            "clock": self._clock_state(now),
            "trainer": self._warned(self.verdict) if self.settings.trainer else None,
            "hints_used": self.hints_used,
            "hints_left": self.hints_left(),
            "result": self.result,
            "bot_pending": self.bot_pending,
            "start": self.start.to_dict() if self.start is not None else None,
        }
        if self.finished and self._dice is not None:
            st["dice_seed"] = self._dice.reveal()
        return st

    def _warned(self, verdict: dict[str, Any] | None) -> dict[str, Any] | None:
        """A verdict with ``warn``: its loss reaches the game's warning threshold (``warn_at``)."""
        if verdict is None:
            return None
        return {**verdict, "warn": float(verdict["loss"]) >= self.settings.warn_at}

    # ---- help during play: nothing on the board changes --------------------------------------
    def hints_left(self) -> int | None:
        """Hints the match still allows (None: no limit)."""
        limit = self.settings.hint_limit
        return None if limit is None else max(0, limit - self.hints_used)

    def _must_play(self, what: str) -> Game:
        g = self.game
        if self.finished:
            raise SessionFinishedError("the game is over", field="action")
        if g.phase is not Phase.MOVE or g.turn != HUMAN or g.dice is None:
            raise ActionNotAvailableError(f"{what} is for a roll you are to play; now: {self._waiting_for()}",
                                          field="action")  # fmt: skip
        return g

    def hint(self, limit: int = 5) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The engine's best ``limit`` plays of the human's roll at the trainer's depth, best first
        (``notation``, ``position_id`` after the play in the mover's view, ``equity``, ``loss``,
        ``probabilities``, ``ply``), and the events: the hint is counted (``hints_used``) against the
        match's ``hint_limit``."""
        g = self._must_play("a hint")
        if self.hints_left() == 0:
            raise ActionNotAvailableError(
                f"no hints left in this match (it allows {self.settings.hint_limit})", field="action"
            )
        cands: list[dict[str, Any]] = self._trainer(
            TrainerQuestion("hint", g.position, g.rules, self.trainer_ply, self.prune, g.dice, limit=limit)
        )
        return cands, self._record({"a": "hint", "p": HUMAN})

    def check(self, action: dict[str, Any]) -> dict[str, Any]:
        """The trainer's verdict on a play (``notation`` or ``position_id``) of the human's roll, with
        ``warn``, without making it: the session does not change."""
        g = self._must_play("checking a play")
        unknown = set(action) - {"action", "notation", "position_id"}
        if unknown:
            raise InvalidActionError(f"'check' takes no field {sorted(unknown)[0]!r}", field="action")
        play = self._find_play(action)
        verdict = self._warned(self._verdict("play", g, play=play))
        assert verdict is not None
        return verdict

    def _clock_state(self, now: float | None) -> dict[str, Any] | None:
        if self.clock is None:
            return None
        return {
            "remaining": [round(x, 3) for x in self.clock.remaining_at(now)],
            "running": self.clock.running,
            "delay": self.clock.delay,
            "delay_left": round(self.clock.delay_left, 3) if self.clock.running is not None else None,
            "scope": self.settings.clock.scope,
        }

    # ---- the human's actions -------------------------------------------------------------------
    def apply(self, action: dict[str, Any], now: float | None = None) -> list[dict[str, Any]]:
        """Apply the human's ``action`` and the bot's replies; every transition as an event.

        A refused action raises :class:`~pulvezar.play.errors.SessionError` and
        changes nothing.  With the clock on, ``now`` is required; an action
        after the player's time ran out is not applied: the events say the
        time ran out.
        """
        if not isinstance(action, dict) or not isinstance(action.get("action"), str):
            raise InvalidActionError('an action is an object like {"action": "roll"}', field="action")
        name = action["action"]
        if name not in ACTIONS:
            raise InvalidActionError(
                f"unknown action {name!r}; actions: {', '.join(ACTIONS)}", field="action"
            )
        unknown = set(action) - {"action"} - _ACTION_KEYS.get(name, set())
        if unknown:
            raise InvalidActionError(f"{name!r} takes no field {sorted(unknown)[0]!r}", field="action")
        if self.finished:
            raise SessionFinishedError("the game is over", field="action")
        if self.clock is not None:
            if now is None:
                raise InvalidActionError("a game with a clock needs the time of each action", field="now")
            if self.clock.flagged(now) == HUMAN:
                return self._timeout(HUMAN, now)
        if name not in self.actions():
            raise ActionNotAvailableError(self._why_not(name), field="action")
        entry = self._human_entry(name, action)  # validates everything; changes nothing
        if now is not None:
            entry["t"] = now
        if self.clock is not None and now is not None:
            self.clock.charge(now)
        games = len(self.match.games)
        events = self._record(entry)
        more, acted = self._advance(now)
        events += more
        # a roll of the human's own (the opening included) keeps the move and its delay going
        same_move = name == "roll" and entry.get("p", HUMAN) == HUMAN and not acted
        self._clock_after(now, new_move=not (same_move and len(self.match.games) == games))
        return events

    def forfeit(self, now: float | None = None) -> list[dict[str, Any]]:
        """Resign the whole match (or end a money session) as the human: the bot wins the points the
        match still needs (money: the cube's value) and the match is over, a loss (the ``finished``
        event's winner is the bot)."""
        if self.finished:
            raise SessionFinishedError("the game is over", field="action")
        entry: dict[str, Any] = {"a": "forfeit", "p": HUMAN}
        if now is not None:
            entry["t"] = now
        events = self._record(entry)
        if self.clock is not None and now is not None:
            self.clock.stop(now)
        return events

    @property
    def bot_pending(self) -> bool:
        """Whether the bot owes a reply (only after its evaluator failed in :meth:`apply`)."""
        if self.finished or self.to_act() != BOT:
            return False
        return not (self.game.phase is Phase.ROLL and self.settings.dice == "client")  # waits for dice

    def resume(self, now: float | None = None) -> list[dict[str, Any]]:
        """Let the bot finish its replies after its evaluator failed during :meth:`apply`.

        When the evaluator raises while the bot replies, the human's action and the
        bot's replies before the failure stay applied (each is one complete step);
        ``resume`` goes on from there.  Without a pending reply it does nothing.
        """
        if not self.bot_pending:
            return []
        events, _ = self._advance(now)
        self._clock_after(now, new_move=True)
        return events

    def check_clock(self, now: float) -> list[dict[str, Any]]:
        """Apply a timeout if the player's time has run out at ``now`` (events; ``[]`` when not)."""
        if self.finished or self.clock is None or self.clock.flagged(now) != HUMAN:
            return []
        return self._timeout(HUMAN, now)

    def _timeout(self, player: int, now: float) -> list[dict[str, Any]]:
        assert self.clock is not None
        self.clock.charge(now)
        events = self._record({"a": "timeout", "p": player, "t": now})
        if not self.finished:  # scope "game": the match goes on
            more, _ = self._advance(now)
            events += more
        self._clock_after(now, new_move=True)
        return events

    def _clock_after(self, now: float | None, *, new_move: bool) -> None:
        if self.clock is None or now is None:
            return
        if self.to_act() == HUMAN:
            self.clock.start(HUMAN, now, new_move=new_move)
        else:
            self.clock.stop(now)

    def _why_not(self, name: str) -> str:
        g = self.game
        possible = ", ".join(self.actions()) or "nothing"
        if name == "double":
            if not g.rules.uses_cube:
                why = "Tavla is played without a cube"
            elif g.context.crawford:
                why = "there is no doubling in the Crawford game"
            elif g.phase is Phase.ROLL and g.turn == HUMAN and g.cube_owner == BOT:
                why = "the bot owns the cube"
            else:
                why = "you double only on your own turn, before rolling"
        elif name == "end":
            why = "only a money session ends at will, between games"
        elif name == "resign" and g.phase in (Phase.ROLL, Phase.MOVE):
            why = "no resignation is possible here"
        else:
            why = f"the game waits for {self._waiting_for()}"
        return f"{name!r} is not possible now: {why}; possible: {possible}"

    def _waiting_for(self) -> str:
        g, who = self.game, self.to_act()
        ph = g.phase
        if ph is Phase.OPENING:
            return "the opening roll"
        if ph is Phase.ROLL:
            return "your roll" if who == HUMAN else "the bot's dice"
        if ph is Phase.MOVE:
            assert g.dice is not None
            return f"your play of {g.dice[0]}{g.dice[1]}"
        if ph is Phase.DOUBLED:
            return "your answer to the bot's double"
        if ph is Phase.BEAVERED:
            return "your answer to the bot's beaver"
        if ph is Phase.RACCOONED:
            return "your answer to the bot's raccoon"
        if ph is Phase.RESIGNED:
            return "your answer to the bot's resignation"
        return "nothing"

    def _verdict(
        self, ask: TrainerAsk, g: Game, play: Play | None = None, doubled: bool = False, reply: str = ""
    ) -> dict[str, Any]:
        """The trainer's verdict on the human's decision in ``g`` (a play at MOVE, a cube action)."""
        cube = CubeState.from_game(g) if ask != "play" else None
        dice = g.dice if ask == "play" else None
        q = TrainerQuestion(
            ask, g.position, g.rules, self.trainer_ply, self.prune, dice, play, cube, doubled, reply
        )
        verdict: dict[str, Any] = self._trainer(q)
        return verdict

    def _human_entry(self, name: str, action: dict[str, Any]) -> dict[str, Any]:
        """The log entry for the human's action, fully checked; the session is not changed."""
        g = self.game
        trainer = self.settings.trainer
        if name == "roll":
            player = HUMAN if g.phase is Phase.OPENING else g.turn
            entry: dict[str, Any] = {"a": "opening" if g.phase is Phase.OPENING else "roll", "p": player}
            if self.settings.dice == "client":
                entry["d"] = self._client_dice(action.get("dice"))
            elif action.get("dice") is not None:
                raise InvalidActionError("the server rolls the dice in this game; send no dice", field="dice")
            if trainer and g.phase is Phase.ROLL and g.turn == HUMAN and g.can_double():
                entry["v"] = self._verdict("double", g)
            if entry["a"] == "opening":
                entry.pop("p")
            return entry
        if name == "play":
            play = self._find_play(action)
            entry = {"a": "play", "p": HUMAN, "m": play.notation}
            if trainer:
                entry["v"] = self._verdict("play", g, play=play)
            return entry
        if name == "double":
            entry = {"a": "double", "p": HUMAN}
            if trainer:
                entry["v"] = self._verdict("double", g, doubled=True)
            return entry
        if name in ("take", "pass", "beaver", "raccoon"):
            kind = "drop" if name == "pass" else name
            entry = {"a": kind, "p": HUMAN}
            if trainer and g.phase is Phase.DOUBLED:
                entry["v"] = self._verdict("answer", g, reply=kind)
            return entry
        if name == "resign":
            level = self._level(action.get("level", "single"))
            possible = g.resignation_levels(HUMAN)
            if level not in possible:
                names = ", ".join(LEVEL_NAMES[x] for x in possible)
                raise ActionNotAvailableError(
                    f"resigning a {LEVEL_NAMES[level]} is not possible here; possible: {names}", field="level"
                )
            return {"a": "resign", "p": HUMAN, "l": level}
        return {"a": name, "p": HUMAN}  # accept, reject, end

    @staticmethod
    def _client_dice(value: Any) -> list[int]:
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(type(d) is int and 1 <= d <= 6 for d in value)
        ):
            raise InvalidActionError(f"client dice are two integers 1..6, got {value!r}", field="dice")
        return [int(value[0]), int(value[1])]

    def _level(self, value: Any) -> int:
        if isinstance(value, str) and value.lower() in _RESIGNATION_LEVELS:
            return _RESIGNATION_LEVELS[value.lower()]
        if type(value) is int and value in LEVEL_NAMES:
            return value
        raise InvalidActionError(
            f"a resignation level is single, gammon or backgammon, got {value!r}", field="level"
        )

    def _find_play(self, action: dict[str, Any]) -> Play:
        g = self.game
        assert g.dice is not None
        plays = g.rules.legal_plays(g.position, g.dice)
        d = f"{g.dice[0]}{g.dice[1]}"
        if "position_id" in action:
            pid = action["position_id"]
            if not isinstance(pid, str):
                raise InvalidActionError("position_id is a string", field="position_id")
            try:
                target = Position.from_position_id(pid)
            except PulvezarError as e:
                raise InvalidActionError(str(e), field="position_id") from None
            try:
                return plays[plays.index_of(target)]
            except ValueError:
                raise IllegalMoveError(
                    f"no legal play of {d} leads to the position {pid}", field="position_id"
                ) from None
        text = action.get("notation")
        if not isinstance(text, str):
            raise InvalidActionError('a play needs "notation" (text) or "position_id"', field="notation")
        try:
            return plays.find(text)
        except NotationError as e:
            why = diagnose(g.position, g.dice, text, g.rules)
            message = str(e) + (f": {why}" if why else "")
            raise IllegalMoveError(message, field="notation") from e

    # ---- the bot and the server ----------------------------------------------------------------
    def _advance(self, now: float | None) -> tuple[list[dict[str, Any]], bool]:
        """Let the bot (and forced plays) act until the human decides; (events, whether the bot acted)."""
        events: list[dict[str, Any]] = []
        acted = False
        t: dict[str, Any] = {} if now is None else {"t": now}
        for _ in range(_MAX_STEPS):
            if self.finished:
                break
            g, who = self.game, self.to_act()
            ph = g.phase
            if ph is Phase.OPENING:
                break
            if who == HUMAN:
                if ph is Phase.MOVE and self.settings.auto_forced and len(g.legal_plays()) == 1:
                    play = g.legal_plays()[0]
                    events += self._record({"a": "play", "p": HUMAN, "m": play.notation, "auto": True, **t})
                    continue
                break
            entry = self._bot_entry(g)
            if entry is None:
                break  # the bot waits for the client to enter its dice
            acted = True
            events += self._record({**entry, **t})
        else:  # pragma: no cover - a bug, not a game
            raise PulvezarError("the bot did not come to a decision of the player")
        return events, acted

    def _bot_entry(self, g: Game) -> dict[str, Any] | None:
        ph = g.phase
        if ph is Phase.ROLL:
            level = self.bot.resignation_offer(g)
            if level is not None and level not in self._offered:
                return {"a": "resign", "p": BOT, "l": level}
            if self.bot.wants_double(g):
                return {"a": "double", "p": BOT}
            if self.settings.dice == "client":
                return None
            return {"a": "roll", "p": BOT}
        if ph is Phase.MOVE:
            return {"a": "play", "p": BOT, "m": self.bot.choose_play(g).notation}
        if ph is Phase.DOUBLED:
            return {"a": self.bot.answer_double(g), "p": BOT}
        if ph is Phase.BEAVERED:
            return {"a": self.bot.answer_beaver(g), "p": BOT}
        if ph is Phase.RACCOONED:
            return {"a": self.bot.answer_raccoon(g), "p": BOT}
        if ph is Phase.RESIGNED:
            return {"a": "accept" if self.bot.accepts_resignation(g) else "reject", "p": BOT}
        raise PulvezarError(f"the bot cannot act at {ph.value}")  # pragma: no cover

    # ---- applying log entries ------------------------------------------------------------------
    def _record(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply one log entry (live or from a stored log) and append it; its events."""
        events = self._apply_entry(entry)
        self.log.append(entry)
        if "v" in entry:
            self.verdict = entry["v"]
        return events

    def _draw(self, entry: dict[str, Any]) -> tuple[int, int]:
        if self._dice is not None:
            d = self._dice.roll()
            if "d" in entry and list(entry["d"]) != list(d):
                raise PulvezarError("the stored dice do not match the dice seed", field="log")
            entry["d"] = [d[0], d[1]]
            return d
        dice = entry.get("d")
        if not isinstance(dice, list | tuple) or len(dice) != 2:
            raise PulvezarError("a client roll without dice", field="log")
        return int(dice[0]), int(dice[1])

    def _act(self, player: int, kind: str, **kw: Any) -> None:
        self.records[-1].actions.append(Action(player, kind, **kw))  # type: ignore[arg-type]

    def _apply_entry(self, e: dict[str, Any]) -> list[dict[str, Any]]:
        g = self.game
        a = e["a"]
        p: int = int(e.get("p", HUMAN))
        details: dict[str, Any] = {}
        if a == "opening":
            d = self._draw(e)
            g.opening_roll(d[0], d[1])
            winner = None if d[0] == d[1] else (HUMAN if d[0] > d[1] else BOT)
            details = {"dice": [d[0], d[1]], "winner": winner}
            if winner is not None:  # (Tavla: a roll without a play; the winner rolls again)
                rolled = (d[0], d[1]) if winner == HUMAN else (d[1], d[0])
                self._act(winner, "roll", dice=rolled)
            elif g.cube_value > 1:
                details["cube"] = g.cube_value  # an automatic double
            events = [_event("opening", None, **details)]
            return events + self._after(g)
        if a == "roll":
            d = self._draw(e)
            g.roll(d)
            self._act(g.turn, "roll", dice=d)
            details = {"dice": [d[0], d[1]]}
        elif a == "play":
            mover = g.turn
            g.play(e["m"])
            self._act(mover, "play", notation=e["m"])
            details = {"notation": e["m"]}
            if g.phase is Phase.OVER:
                details["position_id"] = g.position.position_id
            else:
                details["position_id"] = g.position.swap().position_id  # the mover's view
            if e.get("auto"):
                details["auto"] = True
        elif a == "double":
            g.double()
            self._act(p, "double", value=2 * g.cube_value)
            details = {"cube": 2 * g.cube_value}
        elif a == "beaver":
            g.beaver()
            self._act(p, "beaver", value=4 * g.cube_value)
            details = {"cube": 4 * g.cube_value}
        elif a == "raccoon":
            g.raccoon()
            self._act(p, "raccoon", value=8 * g.cube_value)
            details = {"cube": 8 * g.cube_value}
        elif a == "take":
            g.take()
            self._act(p, "take")
            details = {"cube": g.cube_value, "owner": g.cube_owner}
        elif a == "drop":
            g.drop()
            self._act(p, "drop")
        elif a == "resign":
            g.resign(e["l"], p)
            self._act(p, "resign", value=e["l"])
            details = {"level": LEVEL_NAMES[e["l"]], "points": g.cube_value * e["l"]}
            if p == BOT:
                self._offered.add(e["l"])
        elif a == "accept":
            g.accept_resignation()
            self._act(p, "accept")
        elif a == "reject":
            g.reject_resignation()
            self._act(p, "reject")
        elif a == "timeout":
            return self._apply_timeout(p, e.get("t"))
        elif a == "forfeit":
            return self._apply_forfeit(p, e.get("t"))
        elif a == "hint":  # help, not a move: counted, nothing else changes
            self.hints_used += 1
            return [_event("hint", HUMAN, used=self.hints_used, left=self.hints_left())]
        elif a == "end":
            return self._finish("ended", None)
        else:
            raise PulvezarError(f"unknown log entry {a!r}", field="log")
        if "v" in e and self.settings.trainer:
            details["verdict"] = self._warned(e["v"])
        return [_event("drop" if a == "drop" else a, p, **details), *self._after(g, at=e.get("t"))]

    def _apply_timeout(self, player: int, at: float | None = None) -> list[dict[str, Any]]:
        g = self.game
        winner = 1 - player
        events = [_event("timeout", player)]
        scope = self.settings.clock.scope
        length = self.settings.match_length
        points = max(1, length - self.match.score[winner]) if scope == "match" and length else g.cube_value
        g._end(winner, points, "timeout")
        final = "timeout" if scope == "match" else None
        return events + self._after(g, how="timeout", final=final, at=at)

    def _apply_forfeit(self, player: int, at: float | None) -> list[dict[str, Any]]:
        g = self.game
        winner = 1 - player
        length = self.settings.match_length
        points = max(1, length - self.match.score[winner]) if length else g.cube_value
        g._end(winner, points, "forfeit")
        events = [_event("forfeit", player, points=points)]
        return events + self._after(g, how="forfeit", final="forfeit", at=at)

    def _after(
        self, g: Game, how: str | None = None, final: str | None = None, at: float | None = None
    ) -> list[dict[str, Any]]:
        """A finished game: score it, then start the next game or finish the match."""
        if g.phase is not Phase.OVER or self.finished:
            return []
        assert g.winner is not None
        if how is None:
            last = next((ev[0] for ev in reversed(g.events[:-1])), "")
            how = {"drop": "drop", "accept": "resignation"}.get(last, "bearoff")
        details: dict[str, Any] = {"winner": g.winner, "points": g.points, "how": how}
        if at is not None:  # when it ended (the end-of-game summary's duration)
            details["at"] = at
        if how == "bearoff":
            result = g.rules.game_result(g.position)
            if result is not None:
                details["outcome"] = result.outcome.name.lower()
        self._act(g.winner, "win", value=g.points)
        rec = self.records[-1]
        rec.winner, rec.points = g.winner, g.points
        self.match.finish_game(g)
        details["score"] = list(self.match.score)
        events = [_event("game_end", g.winner, **details)]
        if final is not None:
            return events + self._finish(final, g.winner)
        if self.match.is_over:
            return events + self._finish("match", self.match.winner)
        if self.clock is not None and self.settings.clock.scope == "game":
            self.clock.reset()
        self.game = self.match.new_game()
        self._offered = set()
        c = self.game.context
        self.records.append(GameRecord(len(self.match.games), c.score, crawford=c.crawford))
        opener = c.opener if self.game.phase is not Phase.OPENING else None
        return [
            *events,
            _event("game_start", None, game=len(self.match.games), score=list(c.score), crawford=c.crawford,
                   opener=opener),
        ]  # fmt: skip

    def _finish(self, reason: str, winner: int | None) -> list[dict[str, Any]]:
        self.finished = True
        self.result = {"reason": reason, "winner": winner, "score": list(self.match.score)}
        details: dict[str, Any] = dict(self.result)
        if self._dice is not None:
            details["dice_seed"] = self._dice.reveal()
        return [_event("finished", winner, **details)]

    # ---- dice verification -----------------------------------------------------------------------
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

    # ---- persistence -----------------------------------------------------------------------------
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

    # ---- export ------------------------------------------------------------------------------------
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
        """The match as ``"mat"``, ``"sgf"`` or ``"txt"`` text, or ``"ogxm"`` bytes (SGF and OGXM:
        international rules only; OGXM needs the ``interop`` extra)."""
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
        if fmt == "sgf":
            if not self.settings.rules.uses_cube:
                raise PulvezarError(
                    "SGF export replays international rules; export Tavla as .mat", field="format"
                )
            return write_sgf(record)
        raise PulvezarError(f"unknown format {fmt!r}; formats: mat, sgf, txt, ogxm", field="format")
