"""The settings of a game or match against a bot: rules, length, money options, bot, trainer, dice, clock.

:class:`GameSettings` is frozen; :meth:`GameSettings.to_dict` and
:meth:`GameSettings.from_dict` convert it to and from the JSON shape a client
sends (every key optional but where noted)::

    {
      "rules": {"variant": "tavla", "hit_and_stop": false, "must_bear_off": false},
      "match_length": 5,                # 0: a money session (international rules only)
      "money": {"jacoby": true, "beaver": true, "raccoon": false, "automatic_doubles": 0},
      "bot": {"level": "hard", "style": "balanced"},      # or {"level": "adaptive", "rating": 1650}
      "trainer": false,
      "dice": "server",                 # or "client": the player enters both sides' rolls
      "auto_forced": false,             # play forced plays (exactly one legal play) for the player
      "clock": {"enabled": true, "scope": "match"},
      "free": false                     # a free game: neither archived nor counted for a player
    }

:meth:`from_dict` validates and raises :class:`~pulvezar.errors.PulvezarError`
whose ``field`` names the offending key with dots (``"bot.level"``).

The clock (the app's "Uhr"): each side gets 2 minutes per match point (15
minutes in a money session) and a delay of 12 seconds per move during which its
time does not run.  ``scope = "match"`` (the default, as the REST issue asks):
one budget for the whole match, and a side whose time runs out loses the match.
``scope = "game"`` (as the app describes its clock): the budget is given afresh
in every game, and a side whose time runs out loses that game at the cube's
value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pulvezar.errors import PulvezarError
from pulvezar.match.game import SessionOptions
from pulvezar.rules.rules import Rules

DiceMode = Literal["server", "client"]
ClockScope = Literal["match", "game"]
BOT_LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "master")
ADAPTIVE = "adaptive"
STYLES: tuple[str, ...] = ("balanced", "aggressive", "cautious", "runner")
MAX_MATCH_LENGTH = 25
MINUTES_PER_POINT = 2.0
MONEY_MINUTES = 15.0
DELAY_SECONDS = 12.0


def _err(message: str, field: str) -> PulvezarError:
    return PulvezarError(message, field=field)


def _bool(d: dict[str, Any], key: str, default: bool, where: str) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise _err(f"{key} is true or false, got {v!r}", f"{where}{key}")
    return v


def _int(d: dict[str, Any], key: str, default: int, where: str, lo: int, hi: int) -> int:
    v = d.get(key, default)
    if type(v) is not int or not lo <= v <= hi:
        raise _err(f"{key} is an integer from {lo} to {hi}, got {v!r}", f"{where}{key}")
    return v


def _obj(value: Any, where: str, keys: set[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(f"{where} is an object", where)
    unknown = sorted(set(value) - keys)
    if unknown:
        raise _err(f"unknown key {unknown[0]!r} in {where}; keys: {', '.join(sorted(keys))}", where)
    return value


@dataclass(frozen=True, slots=True)
class BotSettings:
    """The bot's level (easy, medium, hard, master) and style, or ``level="adaptive"`` with a rating.

    An adaptive bot maps ``rating`` (Elo-like, or a PR with ``rating_kind="pr"``)
    to a level and margin once, when the game is created
    (:meth:`pulvezar.analysis.bots.Bot.for_rating`), and keeps them for the match.
    """

    level: str = "medium"
    style: str = "balanced"
    rating: float | None = None
    rating_kind: Literal["elo", "pr"] = "elo"

    def __post_init__(self) -> None:
        if self.level not in (*BOT_LEVELS, ADAPTIVE):
            raise _err(
                f"unknown bot level {self.level!r}; levels: {', '.join((*BOT_LEVELS, ADAPTIVE))}", "bot.level"
            )
        if self.style not in STYLES:
            raise _err(f"unknown bot style {self.style!r}; styles: {', '.join(STYLES)}", "bot.style")
        if self.rating_kind not in ("elo", "pr"):
            raise _err(f"unknown rating kind {self.rating_kind!r}; kinds: elo, pr", "bot.rating_kind")
        if self.level == ADAPTIVE:
            r = self.rating
            if isinstance(r, bool) or not isinstance(r, int | float) or not -1000 <= r <= 4000:
                raise _err("an adaptive bot needs a rating (a number; Elo-like or PR)", "bot.rating")
        elif self.rating is not None:
            raise _err("a rating is for the adaptive level only", "bot.rating")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"level": self.level, "style": self.style}
        if self.level == ADAPTIVE:
            d["rating"] = self.rating
            d["rating_kind"] = self.rating_kind
        return d

    @classmethod
    def from_dict(cls, value: Any) -> BotSettings:
        d = _obj(value, "bot", {"level", "style", "rating", "rating_kind"})
        level, style = d.get("level", "medium"), d.get("style", "balanced")
        if not isinstance(level, str):
            raise _err("bot.level is a string", "bot.level")
        if not isinstance(style, str):
            raise _err("bot.style is a string", "bot.style")
        kind = d.get("rating_kind", "elo")
        return cls(level, style, d.get("rating"), kind)


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """The match clock: off by default.  ``minutes``/``delay`` default to the app's figures."""

    enabled: bool = False
    scope: ClockScope = "match"
    minutes: float | None = None  # None: 2 per match point, 15 in a money session
    delay: float = DELAY_SECONDS

    def __post_init__(self) -> None:
        if self.scope not in ("match", "game"):
            raise _err(f"clock scope is 'match' or 'game', got {self.scope!r}", "clock.scope")
        m = self.minutes
        if m is not None and (isinstance(m, bool) or not isinstance(m, int | float) or not 0 < m <= 600):
            raise _err(f"clock minutes lie in (0, 600], got {m!r}", "clock.minutes")
        d = self.delay
        if isinstance(d, bool) or not isinstance(d, int | float) or not 0 <= d <= 120:
            raise _err(f"clock delay lies in 0..120 seconds, got {d!r}", "clock.delay")

    def budget(self, match_length: int) -> float:
        """Seconds each side gets (per match or per game, by ``scope``)."""
        if self.minutes is not None:
            return float(self.minutes) * 60.0
        if match_length:
            return MINUTES_PER_POINT * match_length * 60.0
        return MONEY_MINUTES * 60.0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"enabled": self.enabled, "scope": self.scope, "delay": self.delay}
        if self.minutes is not None:
            d["minutes"] = self.minutes
        return d

    @classmethod
    def from_dict(cls, value: Any) -> ClockSettings:
        if value is None:
            return cls()
        if isinstance(value, bool):
            return cls(enabled=value)
        d = _obj(value, "clock", {"enabled", "scope", "minutes", "delay"})
        return cls(
            _bool(d, "enabled", True, "clock."),
            d.get("scope", "match"),
            d.get("minutes"),
            d.get("delay", DELAY_SECONDS),
        )


@dataclass(frozen=True, slots=True)
class GameSettings:
    """Everything that is fixed for the whole game or match (see the module).

    The human is player 0, the bot player 1.
    """

    rules: Rules = field(default_factory=Rules.international)
    match_length: int = 1
    money: SessionOptions = field(default_factory=SessionOptions)
    bot: BotSettings = field(default_factory=BotSettings)
    trainer: bool = False
    dice: DiceMode = "server"
    auto_forced: bool = False
    clock: ClockSettings = field(default_factory=ClockSettings)
    #: hints (the engine's candidates during play) allowed per match; None: no limit (003: 3 per match)
    hint_limit: int | None = None
    #: the trainer warns from this loss on: 0.02 (every error) by default, 0.08 for blunders only
    warn_at: float = 0.02
    #: a free game (practice, e.g. from a position): neither archived nor counted in a player's record
    free: bool = False

    def __post_init__(self) -> None:
        n = self.match_length
        if type(n) is not int or not 0 <= n <= MAX_MATCH_LENGTH:
            raise _err(f"match_length is 0 (money) to {MAX_MATCH_LENGTH}, got {n!r}", "match_length")
        if n == 0 and not self.rules.uses_cube:
            raise _err("Tavla is played as a match, not a money session", "match_length")
        if self.money != SessionOptions():
            if n:
                raise _err("Jacoby, beaver, raccoon and automatic doubles are for money sessions", "money")
            if self.money.raccoon and not self.money.beaver:
                raise _err("a raccoon needs the beaver rule", "money.raccoon")
        if self.dice not in ("server", "client"):
            raise _err(f"dice is 'server' or 'client', got {self.dice!r}", "dice")
        for name in ("trainer", "auto_forced", "free"):
            if not isinstance(getattr(self, name), bool):
                raise _err(f"{name} is true or false", name)
        if self.hint_limit is not None and (
            type(self.hint_limit) is not int or not 0 <= self.hint_limit <= 99
        ):
            raise _err(f"hint_limit is null or 0 to 99, got {self.hint_limit!r}", "hint_limit")
        if (
            isinstance(self.warn_at, bool)
            or not isinstance(self.warn_at, int | float)
            or not 0 < self.warn_at <= 1
        ):
            raise _err(f"warn_at is a loss above 0 and at most 1, got {self.warn_at!r}", "warn_at")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    def to_dict(self) -> dict[str, Any]:
        r = self.rules
        d: dict[str, Any] = {
            "rules": r.to_dict(),
            "match_length": self.match_length,
            "bot": self.bot.to_dict(),
            "trainer": self.trainer,
            "dice": self.dice,
            "auto_forced": self.auto_forced,
            "clock": self.clock.to_dict(),
            "hint_limit": self.hint_limit,
            "warn_at": self.warn_at,
            "free": self.free,
        }
        if self.is_money:
            m = self.money
            d["money"] = {
                "jacoby": m.jacoby,
                "beaver": m.beaver,
                "raccoon": m.raccoon,
                "automatic_doubles": m.automatic_doubles,
            }
        return d

    @classmethod
    def from_dict(cls, value: Any) -> GameSettings:
        """Settings from their JSON shape; raises :class:`PulvezarError` with ``field`` set."""
        keys = {"rules", "match_length", "money", "bot", "trainer", "dice", "auto_forced", "clock"}
        keys |= {"hint_limit", "warn_at", "free"}
        d = _obj(value, "settings", keys)
        rules = Rules.from_dict(d.get("rules") or {}, "rules")
        length = d.get("match_length", 1)
        if type(length) is not int or not 0 <= length <= MAX_MATCH_LENGTH:
            raise _err(f"match_length is 0 (money) to {MAX_MATCH_LENGTH}, got {length!r}", "match_length")
        md = _obj(d.get("money"), "money", {"jacoby", "beaver", "raccoon", "automatic_doubles"})
        money = SessionOptions(
            _bool(md, "jacoby", False, "money."),
            _bool(md, "beaver", False, "money."),
            _bool(md, "raccoon", False, "money."),
            _int(md, "automatic_doubles", 0, "money.", 0, 8),
        )
        if money != SessionOptions():
            if not rules.uses_cube:
                raise _err("Tavla has no cube options", "money")
            if length:
                raise _err("money options are for money sessions (match_length 0)", "money")
        dice = d.get("dice", "server")
        if dice not in ("server", "client"):
            raise _err(f"dice is 'server' or 'client', got {dice!r}", "dice")
        return cls(
            rules=rules,
            match_length=length,
            money=money,
            bot=BotSettings.from_dict(d.get("bot")),
            trainer=_bool(d, "trainer", False, ""),
            dice=dice,
            auto_forced=_bool(d, "auto_forced", False, ""),
            clock=ClockSettings.from_dict(d.get("clock")),
            hint_limit=d.get("hint_limit"),
            warn_at=d.get("warn_at", 0.02),
            free=_bool(d, "free", False, ""),
        )
