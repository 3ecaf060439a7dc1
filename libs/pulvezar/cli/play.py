"""``pulvezar play``: a game or match against pulvezar's bots in the terminal.

Without ``--api`` the game runs in this process (:class:`pulvezar.play.PlaySession` with the shipped
net); with ``--api URL`` it is a game of the Play API of a running platform (``/v1/games``), kept
there (``--resume ID`` continues it).  Both back ends answer the same three calls (create, state, act),
so the loop is the same: the board (you at the bottom, moving from 24 down to 1), what you may do, one
line read from standard input, the bot's replies in words.  Standard input may be a pipe: each line is
one command, and the end of the input ends the session (a game on the platform stays saved there).

Commands: a play in notation (``8/5 6/5``) or the number of a listed play, ``roll`` (with client dice
``roll 31``), ``double``, ``take``, ``pass``, ``beaver``, ``raccoon``, ``resign [single|gammon|backgammon]``,
``accept``, ``reject``, ``end`` (a money session, between games), ``board``, ``help``, ``quit``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from typing import Any, Protocol

from pulvezar import i18n
from pulvezar.cli.common import add_lang_argument
from pulvezar.cli.config import player_of
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t
from pulvezar.rules.diagram import ascii_board
from pulvezar.rules.position import Position

__all__ = ["ApiGame", "Backend", "LocalGame", "Refused", "add_parser", "cmd_play", "describe_event", "render"]

State = dict[str, Any]
Event = dict[str, Any]

BOT_NAME = "pulvezar"
LANGUAGES = i18n.LANGUAGES
BOT_LEVELS = ("easy", "medium", "hard", "master", "adaptive")
STYLES = ("balanced", "aggressive", "cautious", "runner")
WORDS = ("roll", "double", "take", "pass", "beaver", "raccoon", "resign", "accept", "reject", "end")
RESIGN_LEVELS = ("single", "gammon", "backgammon", "mars")
SHOWN_PLAYS = 36  # the numbered list stops here (every play can still be typed or numbered)


class Refused(Exception):
    """An action the game refused (or a request that did not get through); the game is unchanged."""


class Backend(Protocol):
    """A game behind the loop: in process or on a platform."""

    game_id: str | None

    def create(self) -> State: ...

    def state(self) -> State: ...

    def act(self, action: dict[str, Any]) -> tuple[State, list[Event]]: ...

    def verify(self) -> bool | None: ...

    def export(self, fmt: str) -> str: ...

    def close(self) -> None: ...


def _with_why(verdict: Any, lang: str) -> Any:
    """A trainer verdict with ``why``: its explanation in ``lang`` (as the API gives it)."""
    if not isinstance(verdict, dict):
        return verdict
    out = dict(verdict)
    explanation = out.get("explanation")
    out["why"] = explanation.get(lang) if isinstance(explanation, dict) else None
    return out


# ---- the back ends ----------------------------------------------------------------------------------
class LocalGame:
    """A :class:`~pulvezar.play.PlaySession` in this process (``evaluator``: the shipped net unless given)."""

    game_id: str | None = None

    def __init__(
        self, settings: dict[str, Any], *, seed: str | None = None, lang: str = "en", evaluator: Any = None,
        me: str = "You",
    ) -> None:  # fmt: skip
        self.settings, self.seed, self.lang, self.evaluator = settings, seed, lang, evaluator
        self.me = me  # the human's name in an exported match
        self.session: Any = None

    def create(self) -> State:
        from pulvezar.play import GameSettings, PlaySession

        self.session = PlaySession(
            GameSettings.from_dict(self.settings), seed=self.seed, evaluator=self.evaluator, now=time.time()
        )
        return self.state()

    def state(self) -> State:
        st: State = self.session.state(now=time.time())
        st["trainer"] = _with_why(st.get("trainer"), self.lang)
        return st

    def act(self, action: dict[str, Any]) -> tuple[State, list[Event]]:
        s = self.session
        try:
            events = (
                s.resume(time.time()) if action.get("action") == "resume" else s.apply(action, time.time())
            )
        except PulvezarError as e:  # a SessionError: refused, nothing changed
            raise Refused(e.text(self.lang)) from None
        for event in events:
            details = event.get("details") or {}
            if details.get("verdict") is not None:
                event["details"] = {**details, "verdict": _with_why(details["verdict"], self.lang)}
        return self.state(), events

    def verify(self) -> bool | None:
        if self.session.settings.dice != "server":
            return None
        return bool(self.session.verify())

    def export(self, fmt: str) -> str:
        return str(self.session.export(fmt, (self.me, BOT_NAME)))

    def close(self) -> None:
        pass


class ApiGame:
    """A game of the Play API at ``url`` (``/v1/games``), created from ``body`` or resumed by ``game_id``."""

    def __init__(
        self, url: str, key: str, *, body: dict[str, Any] | None = None, game_id: str | None = None,
        lang: str = "en", timeout: float = 120.0,
    ) -> None:  # fmt: skip
        import httpx  # only the API client needs it

        self.url = url.rstrip("/")
        self.body, self.game_id, self.lang = body or {}, game_id, lang
        self._httpx = httpx
        self.http = httpx.Client(
            base_url=self.url,
            headers={"X-API-Key": key, "Accept-Language": lang, "User-Agent": "pulvezar-play"},
            timeout=timeout,
        )

    def _request(self, method: str, path: str, **kw: Any) -> Any:
        try:
            return self.http.request(method, path, **kw)
        except self._httpx.HTTPError as e:
            raise Refused(t("cli.play.no_answer", self.lang, url=self.url, error=e)) from None

    @staticmethod
    def problem(response: Any) -> str:
        """The words of a problem+json answer (its ``detail``), else the status line."""
        try:
            data = response.json()
        except ValueError:
            data = None
        if isinstance(data, dict):
            detail = data.get("detail")
            if isinstance(detail, str) and detail:
                return detail
            errors = data.get("errors")
            if isinstance(errors, list) and errors:
                return "; ".join(
                    f"{e.get('field')}: {e.get('reason') or e.get('message')}"
                    for e in errors
                    if isinstance(e, dict)
                )
            if isinstance(detail, list):  # a framework's validation error
                return "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
        return f"HTTP {response.status_code} {response.reason_phrase}"

    def _json(self, response: Any, doing: str) -> Any:
        """The JSON of ``response``, else :class:`Refused` (``doing``: ``cli.play.doing.<doing>``)."""
        if response.status_code >= 400:
            raise Refused(self.problem(response))
        try:
            return response.json()
        except ValueError:
            what = t(f"cli.play.doing.{doing}", self.lang)
            raise Refused(t("cli.play.not_json", self.lang, what=what)) from None

    def _path(self, tail: str = "") -> str:
        """The game's path in the Play API (``tail``: ``/actions``...)."""
        return f"/v1/games/{self.game_id}{tail}"

    def create(self) -> State:
        try:
            if self.game_id is not None:
                return self.state()
            st = self._json(self._request("POST", "/v1/games", json=self.body), "create")
        except Refused as e:
            raise PulvezarError(f"{self.url}: {e}", field="api") from None
        self.game_id = str(st["id"])
        return dict(st)

    def state(self) -> State:
        return dict(self._json(self._request("GET", self._path()), "read"))

    def player_id(self, name: str) -> str:
        """The id of the key's player called ``name`` (compared without case; the newest of several), made
        (``POST /v1/players``) when the key has none: the player the new game is recorded for."""
        wanted, cursor = name.strip().casefold(), None
        try:
            for _ in range(50):  # 200 a page: up to 10,000 players looked at
                query: dict[str, Any] = {"limit": 200, **({"cursor": cursor} if cursor else {})}
                page = self._json(self._request("GET", "/v1/players", params=query), "list_players")
                found = [p for p in page["players"] if str(p["name"]).strip().casefold() == wanted]
                if found:
                    return str(found[0]["id"])
                cursor = page.get("next_cursor")
                if not cursor:
                    break
            made = self._json(self._request("POST", "/v1/players", json={"name": name}), "make_player")
        except Refused as e:
            raise PulvezarError(f"{self.url}: --player: {e}", field="player") from None
        return str(made["id"])

    def act(self, action: dict[str, Any]) -> tuple[State, list[Event]]:
        if action.get("action") == "resume":  # reading the game lets a pending bot go on (the gateway)
            return self.state(), []
        # one Idempotency-Key per action: a request retried after a lost answer acts once
        path, headers = self._path("/actions"), {"Idempotency-Key": secrets.token_hex(16)}
        try:
            response = self._request("POST", path, json=action, headers=headers)
        except Refused:
            response = self._request("POST", path, json=action, headers=headers)
        st = dict(self._json(response, "act"))
        events = st.pop("events", None) or []
        return st, list(events)

    def verify(self) -> bool | None:
        r = self._request("POST", self._path("/verify"))
        if r.status_code == 409:  # client dice (or not finished): nothing to verify
            return None
        return bool(self._json(r, "verify").get("verified"))

    def export(self, fmt: str) -> str:
        r = self._request("GET", self._path("/export"), params={"format": fmt})
        if r.status_code >= 400:
            raise Refused(self.problem(r))
        return str(r.text)

    def close(self) -> None:
        self.http.close()


# ---- words ------------------------------------------------------------------------------------------
def _side(player: Any) -> str:
    """``you`` or ``bot``: the suffix of an event's key (``cli.play.ev.roll_you``)."""
    return "you" if player == 0 else "bot"


def _ev(name: str, player: Any, lang: str, **values: Any) -> str:
    """The event line ``cli.play.ev.<name>_you`` or ``..._bot`` for ``player``."""
    return t(f"cli.play.ev.{name}_{_side(player)}", lang, bot=BOT_NAME, **values)


def _dice(d: Any) -> str:
    return f"{d[0]}-{d[1]}" if isinstance(d, list | tuple) and len(d) == 2 else str(d)


def _score(score: Any, lang: str = "en") -> str:
    if isinstance(score, list | tuple) and len(score) == 2:
        return t("cli.play.score", lang, you=score[0], bot=BOT_NAME, them=score[1])
    return str(score)


def _points(n: Any, lang: str = "en") -> str:
    return t("cli.play.points", lang, n=n) if isinstance(n, int) else str(n)


def _level(level: Any, lang: str) -> str:
    """A resignation's level in words (``single``, ``gammon``, ``backgammon``), else as given."""
    return t(f"cli.play.level.{level}", lang) if level in RESIGN_LEVELS[:3] else str(level)


def describe_verdict(v: dict[str, Any], explicit: bool = True, lang: str = "en") -> str | None:
    """The trainer's verdict in one line; None for a silent one (a right roll where a double was possible)."""
    mark, played, best = v.get("mark", "ok"), v.get("played", ""), v.get("best", "")
    loss = float(v.get("loss") or 0.0)
    if played == best or loss <= 0:
        return t("cli.play.verdict_ok", lang, played=played) if explicit and played else None
    no_move = t("cli.play.no_move", lang)
    mark_word = t(f"cli.play.mark.{mark}", lang) if mark in ("ok", "doubtful", "blunder") else str(mark)
    line = t(
        "cli.play.verdict", lang, mark=mark_word, best=best or no_move, played=played or no_move,
        loss=i18n.number(loss, lang, ".3f"),
    )  # fmt: skip
    why = v.get("why")
    if not why and isinstance(v.get("explanation"), dict):
        why = v["explanation"].get(lang) or v["explanation"].get("en")
    return f"{line} — {why}" if why else line


def _what(outcome: Any, lang: str) -> str:
    """What a game was won as: ``the game``, ``a gammon``..."""
    if not outcome or outcome == "single":
        return t("cli.play.ev.what_game", lang)
    if outcome in ("gammon", "backgammon"):
        return t(f"cli.play.ev.what_{outcome}", lang)
    return t("cli.play.ev.what_other", lang, outcome=outcome)


def _how(how: Any, lang: str) -> str:
    """`` (double passed)``, `` (resignation)``, `` (on time)`` or nothing."""
    return t(f"cli.play.ev.how_{how}", lang) if how in ("drop", "resignation", "timeout") else ""


def describe_event(e: Event, following: Event | None = None, lang: str = "en") -> tuple[list[str], bool]:
    """An event in plain words in ``lang``; (lines, whether ``following`` was told with it: a roll and its
    play)."""
    kind, p = e.get("type"), e.get("player")
    d: dict[str, Any] = e.get("details") or {}
    lines: list[str] = []
    used = False
    if kind == "opening":
        dice, winner = d.get("dice") or [0, 0], d.get("winner")
        which = "tie" if winner is None else _side(winner)
        lines.append(t(f"cli.play.ev.opening_{which}", lang, you=dice[0], bot=BOT_NAME, them=dice[1]))
        if d.get("cube"):
            lines.append(t("cli.play.ev.auto_double", lang, cube=d["cube"]))
    elif kind == "roll":
        dice = _dice(d.get("dice"))
        if (
            following is not None
            and following.get("type") == "play"
            and following.get("player") == p
            and p == 1
        ):
            notation = (following.get("details") or {}).get("notation")
            if notation:
                lines.append(t("cli.play.ev.roll_play_bot", lang, bot=BOT_NAME, dice=dice, play=notation))
            else:
                lines.append(t("cli.play.ev.roll_stuck_bot", lang, bot=BOT_NAME, dice=dice))
            used = True
        else:
            lines.append(_ev("roll", p, lang, dice=dice))
    elif kind == "play":
        notation = d.get("notation")
        if p == 1 or d.get("auto"):
            forced = t("cli.play.ev.forced", lang) if d.get("auto") else ""
            lines.append(
                _ev("play", p, lang, play=notation, forced=forced) if notation else _ev("stuck", p, lang)
            )
        elif not notation:
            lines.append(_ev("stuck", 0, lang))
    elif kind in ("double", "beaver", "raccoon"):
        lines.append(_ev(str(kind), p, lang, cube=d.get("cube")))
    elif kind == "take":
        side = t(f"cli.play.ev.side_{_side(d.get('owner'))}", lang, bot=BOT_NAME)
        lines.append(_ev("take", p, lang, cube=d.get("cube"), side=side))
    elif kind == "drop":
        lines.append(_ev("pass", p, lang))
    elif kind == "resign":
        level, points = _level(d.get("level", "single"), lang), _points(d.get("points"), lang)
        lines.append(_ev("resign", p, lang, level=level, points=points))
    elif kind in ("accept", "reject"):
        lines.append(_ev(str(kind), p, lang))
    elif kind == "timeout":
        lines.append(_ev("timeout", p, lang))
    elif kind == "game_end":
        lines.append(
            _ev("win", p, lang, what=_what(d.get("outcome"), lang), how=_how(d.get("how"), lang),
                points=_points(d.get("points"), lang), score=_score(d.get("score"), lang))
        )  # fmt: skip
    elif kind == "game_start":
        crawford = t("cli.play.crawford", lang) if d.get("crawford") else ""
        opener = d.get("opener")
        opens = "" if opener is None else t(f"cli.play.ev.opens_{_side(opener)}", lang, bot=BOT_NAME)
        score = _score(d.get("score"), lang)
        lines.append(t("cli.play.ev.game_start", lang, game=d.get("game"), crawford=crawford, score=score,
                       opens=opens))  # fmt: skip
    elif kind == "finished":
        pass  # the end of the session says it
    verdict = d.get("verdict")
    if p == 0 and isinstance(verdict, dict):
        v = describe_verdict(verdict, explicit=kind != "roll", lang=lang)
        if v:
            lines.append(v)
    return lines, used


def tell(events: list[Event], lang: str = "en") -> list[str]:
    """The events in words, a bot's roll and its play on one line."""
    out: list[str] = []
    i = 0
    while i < len(events):
        lines, used = describe_event(events[i], events[i + 1] if i + 1 < len(events) else None, lang)
        out += lines
        i += 2 if used else 1
    return out


# ---- the board --------------------------------------------------------------------------------------
def _clock(seconds: Any) -> str:
    s = max(0, int(float(seconds)))
    return f"{s // 60}:{s % 60:02d}"


def render(st: State, lang: str = "en") -> str:
    """The board (you are X, at the bottom) with the score, cube, dice and clock, in ``lang``."""
    board = st["board"]
    human, bot = board["checkers"]["human"], board["checkers"]["bot"]
    pips, off = board.get("pips", [0, 0]), board.get("off", [0, 0])
    turn = st.get("turn")
    art = ascii_board(Position(human, bot), lang).splitlines()
    playing = st.get("status") == "playing"
    to_move = f"  {t('cli.play.board.to_move', lang)}"
    top_mark = to_move if turn == 1 and playing else ""
    bottom_mark = to_move if turn == 0 and playing else ""
    # the frame's edge (no run of five spaces in it), then the sides' labels
    art[0] = (
        art[0].split(" " * 5)[0]
        + " " * 5
        + t("cli.play.board.bot", lang, bot=BOT_NAME, pips=pips[1], off=off[1])
        + top_mark
    )
    art[-1] = (
        art[-1].split(" " * 5)[0]
        + " " * 5
        + t("cli.play.board.you", lang, pips=pips[0], off=off[0])
        + bottom_mark
    )
    cube = st.get("cube") or {}
    if cube.get("used"):
        owner = cube.get("owner")
        whose = "centred" if owner is None else "yours" if owner == 0 else "bots"
        where = t(f"cli.play.board.{whose}", lang, bot=BOT_NAME)
        row = 6 if owner is None else (-2 if owner == 0 else 1)
        art[row] += " " * 5 + t("cli.play.board.cube", lang, value=cube.get("value"), where=where)
    settings = st.get("settings") or {}
    rules = settings.get("rules") or {}
    variant = rules.get("variant", "international")
    options = [o.replace("_", "-") for o in ("hit_and_stop", "must_bear_off") if rules.get(o)]
    length = st.get("match_length", 0)
    kind = t("cli.play.board.match", lang, n=length) if length else t("cli.play.board.money", lang)
    flags = (
        t("cli.play.crawford", lang) if st.get("crawford")
        else t("cli.play.post_crawford", lang) if st.get("post_crawford") else ""
    )  # fmt: skip
    bot = st.get("bot") or {}
    if options:
        variant += f" ({', '.join(options)})"
    head = t(
        "cli.play.board.head", lang, game=st.get("game"), kind=kind, flags=flags, variant=variant,
        score=_score(st.get("score"), lang), bot=BOT_NAME, level=bot.get("level", "?"),
        style=bot.get("style", "?"),
    )  # fmt: skip
    lines = [head, *art]
    info = []
    if st.get("dice"):
        who = t("cli.play.board.who_you", lang) if turn == 0 else BOT_NAME
        info.append(t("cli.play.board.dice", lang, dice=_dice(st["dice"]), who=who))
    clock = st.get("clock")
    if clock:
        rem = clock.get("remaining") or [0, 0]
        running = clock.get("running")
        mark = t("cli.play.board.running", lang)
        info.append(
            t("cli.play.board.clock", lang, you=_clock(rem[0]), you_running=mark if running == 0 else "",
              bot=BOT_NAME, them=_clock(rem[1]), bot_running=mark if running == 1 else "")
        )  # fmt: skip
    gnubg = board.get("gnubg_id") or board.get("position_id")
    info.append(t("cli.play.board.id", lang, id=gnubg))
    lines.append(" " + "; ".join(info))
    return "\n".join(lines)


def _resign_command(levels: list[str]) -> str:
    """``resign [single|gammon]``: the command as it is typed (English in every language)."""
    return f"resign [{'|'.join(levels)}]"


def prompt_lines(st: State, lang: str = "en") -> list[str]:
    """What the game waits for, the numbered plays and the possible actions, in ``lang`` (the catalogs'
    ``cli.play.*``; the commands stay as typed)."""
    actions: list[str] = list(st.get("actions") or [])
    out: list[str] = []
    res = st.get("resignation")
    phase = st.get("phase")
    cube = (st.get("cube") or {}).get("value")
    if res and res.get("player") == 1:
        out.append(t("cli.play.bot_resigns", lang, bot=BOT_NAME, level=_level(res.get("level"), lang)))
    elif phase in ("doubled", "beavered", "raccooned") and st.get("to_act") == 0:
        offered = int(cube or 1) * {"doubled": 2, "beavered": 4, "raccooned": 8}[str(phase)]
        out.append(t("cli.play.cube_offered", lang, n=offered))
    elif phase == "opening" and "roll" in actions:
        client = st.get("dice_mode") == "client"
        out.append(t("cli.play.opening_client" if client else "cli.play.opening", lang))
    elif st.get("to_act") == 1 and "roll" in actions:
        out.append(t("cli.play.enter_bot_roll", lang, bot=BOT_NAME))
    elif "play" in actions:
        plays = st.get("legal_plays") or []
        out.append(t("cli.play.your_play", lang, dice=_dice(st.get("dice")), n=len(plays)))
        shown = plays[:SHOWN_PLAYS]
        no_move = f"({t('cli.play.no_move', lang)})"
        notations = [p.get("notation") or no_move for p in shown]
        cells = [f"{i:3d}. {n:<22}" for i, n in enumerate(notations, 1)]
        for j in range(0, len(cells), 3):
            out.append(" " + " ".join(cells[j : j + 3]).rstrip())
        if len(plays) > len(shown):
            out.append(t("cli.play.more", lang, more=len(plays) - len(shown), n=len(plays)))
    elif "roll" in actions:
        client = st.get("dice_mode") == "client"
        out.append(t("cli.play.your_turn_client" if client else "cli.play.your_turn", lang))
    if not actions and st.get("status") == "playing":
        out.append(t("cli.play.bot_owes", lang, bot=BOT_NAME))
    extra = [a for a in actions if a != "play"]
    if "resign" in extra and st.get("resign_levels"):
        extra[extra.index("resign")] = _resign_command(st["resign_levels"])
    a_play = [t("cli.play.a_play", lang)] if "play" in actions else []
    out.append(t("cli.play.possible", lang, actions=", ".join([*a_play, *extra, "board", "help", "quit"])))
    return out


DESCRIPTION = (
    "Play a game or match against pulvezar's bots: in this process with the shipped net, or with --api URL "
    "on a running platform's Play API (the game is kept there; --resume ID continues it). Each line of "
    "standard input is one command (a pipe works; its end ends the session): a play such as '8/5 6/5' or "
    "the number of a listed play, roll, double, take, pass, beaver, raccoon, "
    "resign [single|gammon|backgammon], accept, reject, end, board, help, quit."
)

HELP = t("cli.play.help")
"""The commands, in English (``cli.play.help`` of the catalogs in the other languages)."""


def parse_command(line: str, st: State, lang: str = "en") -> dict[str, Any] | str:
    """The action a typed line asks for, or a local command (``board``, ``help``, ``quit``, ``resume``),
    or raises :class:`Refused` with why not (in ``lang``; the commands are English in every language)."""
    text = line.strip()
    words = text.lower().split()
    if not words:
        return "resume" if not st.get("actions") and st.get("status") == "playing" else "nothing"
    w = words[0]
    if w in ("quit", "exit", "q"):
        return "quit"
    if w in ("board", "b", "show"):
        return "board"
    if w in ("help", "h"):
        return "help"
    if w in ("hint", "?", "hint?"):
        raise Refused(t("cli.play.no_hints", lang))
    plays = st.get("legal_plays") or []
    if text.isdigit():
        if not plays:
            raise Refused(t("cli.play.nothing_to_choose", lang))
        n = int(text)
        if not 1 <= n <= len(plays):
            raise Refused(t("cli.play.choose", lang, n=len(plays)))
        return {"action": "play", "position_id": plays[n - 1]["position_id"]}
    if w == "drop":
        w = "pass"
    if w == "play":
        rest = text[4:].strip()
        if rest:
            return parse_command(rest, st, lang) if rest.isdigit() else {"action": "play", "notation": rest}
        if len(plays) == 1:
            return {"action": "play", "position_id": plays[0]["position_id"]}
        raise Refused(t("cli.play.which_play", lang))
    if w == "roll":
        digits = [c for c in text[4:] if c.isdigit()]
        if not digits:
            return {"action": "roll"}
        if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
            raise Refused(t("cli.play.bad_dice", lang, got=repr(text[4:].strip())))
        return {"action": "roll", "dice": [int(digits[0]), int(digits[1])]}
    if w == "resign":
        level = words[1] if len(words) > 1 else "single"
        if level in ("1", "2", "3"):
            return {"action": "resign", "level": int(level)}
        if level not in RESIGN_LEVELS:
            raise Refused(t("cli.play.bad_resign", lang, level=repr(level)))
        return {"action": "resign", "level": level}
    if w in WORDS and len(words) == 1:
        return {"action": w}
    if "/" in text or w in ("bar", "none", "nothing", "-"):
        if w in ("none", "nothing", "-") and len(plays) == 1 and not plays[0].get("notation"):
            return {"action": "play", "position_id": plays[0]["position_id"]}
        return {"action": "play", "notation": text}
    raise Refused(t("cli.play.unknown", lang, command=repr(text)))


# ---- the loop ---------------------------------------------------------------------------------------
def _read(echo: bool) -> str | None:
    sys.stdout.write("> ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        print()
        return None
    if echo:
        print(line.rstrip("\n"))
    return line


def _result(st: State, lang: str = "en") -> str:
    r = st.get("result") or {}
    score = _score(r.get("score") or st.get("score"), lang)
    winner = r.get("winner")
    reason = r.get("reason")
    if reason == "ended" or winner is None:
        return t("cli.play.session_over", lang, score=score)
    what = t("cli.play.what_match" if st.get("match_length") else "cli.play.what_session", lang)
    how = _how(reason, lang) if reason == "timeout" else ""
    return t(f"cli.play.result_{_side(winner)}", lang, bot=BOT_NAME, what=what, how=how, score=score)


def _export(game: Backend, path: str, lang: str = "en") -> None:
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "mat"
    if fmt not in ("mat", "sgf", "txt"):
        fmt = "mat"
    try:
        text = game.export(fmt)
    except (Refused, PulvezarError) as e:
        print(t("cli.play.export_failed", lang, error=e))
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(t("cli.play.saved", lang, path=path, fmt=fmt))


def _finish(game: Backend, st: State, lang: str = "en") -> None:
    print(_result(st, lang))
    seed = st.get("dice_seed")
    if st.get("dice_mode") == "client":
        print(t("cli.play.client_dice", lang))
    else:
        try:
            ok = game.verify()
        except (Refused, PulvezarError) as e:
            print(t("cli.play.not_verified", lang, error=e))
        else:
            verdict = t("cli.play.verifies" if ok else "cli.play.does_not_verify", lang)
            print(
                t(
                    "cli.play.dice_seed",
                    lang,
                    seed=seed,
                    commitment=st.get("dice_commitment"),
                    verdict=verdict,
                )
            )


def play_loop(game: Backend, args: argparse.Namespace) -> int:
    """Create (or resume) the game and play it from standard input; 0 at the end or at EOF."""
    st = game.create()
    lang = args.lang
    echo = not sys.stdin.isatty()
    if game.game_id:
        print(t("cli.play.game_at", lang, id=game.game_id, url=args.api))
    if st.get("dice_commitment") and st.get("status") == "playing":
        print(t("cli.play.commitment", lang, commitment=st["dice_commitment"]))
    show = True
    quit_ = False
    while st.get("status") == "playing":
        if show:
            print(render(st, lang))
            show = False
        for text in prompt_lines(st, lang):
            print(text)
        line = _read(echo)
        if line is None:
            quit_ = True
            break
        try:
            cmd = parse_command(line, st, lang)
            if cmd == "quit":
                quit_ = True
                break
            if cmd in ("board", "help", "nothing"):
                if cmd == "help":
                    print(t("cli.play.help", lang))
                show = cmd == "board"
                continue
            action = {"action": "resume"} if cmd == "resume" else cmd
            assert isinstance(action, dict)
            st, events = game.act(action)
        except Refused as e:
            print(t("cli.play.refused", lang, reason=e))
            show = True
            continue
        for text in tell(events, lang):
            print(text)
        show = True
    if quit_:
        if game.game_id:
            gid = game.game_id
            print(t("cli.play.saved_as", lang, id=gid, url=args.api))
        else:
            print(t("cli.play.unfinished", lang))
    else:
        print(render(st, lang))
        _finish(game, st, lang)
    if args.export:
        _export(game, args.export, lang)
    elif not quit_:
        print(t("cli.play.export_hint", lang))
    return 0


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of a new game (``POST /v1/games``'s body, ``GameSettings.from_dict``'s input)."""
    if (args.hit_and_stop or args.must_bear_off) and not args.tavla:
        raise PulvezarError(t("cli.play.need_tavla", getattr(args, "lang", "en")), field="rules")
    body: dict[str, Any] = {
        "rules": {
            "variant": "tavla" if args.tavla else "international",
            "hit_and_stop": bool(args.hit_and_stop),
            "must_bear_off": bool(args.must_bear_off),
        },
        "match_length": args.length,
        "trainer": bool(args.trainer),
        "dice": "client" if args.client_dice else "server",
        "auto_forced": bool(args.auto_forced),
        "clock": bool(args.clock),
    }
    bot: dict[str, Any] = {"level": args.level}
    if args.style:
        bot["style"] = args.style
    if args.rating is not None:
        bot["rating"] = args.rating
    body["bot"] = bot
    if args.jacoby or args.beaver or args.raccoon:
        body["money"] = {
            "jacoby": args.jacoby,
            "beaver": args.beaver or args.raccoon,
            "raccoon": args.raccoon,
        }
    return body


def _seed(text: str | None, lang: str = "en") -> str | None:
    if text is None:
        return None
    hex_ = text.strip().lower().removeprefix("0x")
    if not hex_ or len(hex_) > 64 or any(c not in "0123456789abcdef" for c in hex_):
        raise PulvezarError(t("cli.play.bad_seed", lang, seed=repr(text)), field="seed")
    return hex_.rjust(64, "0")


def cmd_play(args: argparse.Namespace) -> int:
    game: Backend
    name, _ = player_of(args.player, args.lang)
    if args.api:
        if args.seed is not None:
            raise PulvezarError(t("cli.play.seed_api", args.lang), field="seed")
        key = args.key or os.environ.get("PULVEZAR_API_KEY") or "local-dev-key"
        body = None if args.resume else settings_of(args)
        game = ApiGame(args.api, key, body=body, game_id=args.resume, lang=args.lang)
    else:
        if args.resume:
            raise PulvezarError(t("cli.play.resume_api", args.lang), field="resume")
        if args.seed is not None and args.client_dice:
            raise PulvezarError(t("cli.play.seed_client", args.lang), field="seed")
        game = LocalGame(
            settings_of(args), seed=_seed(args.seed, args.lang), lang=args.lang, me=name or "You"
        )
    try:
        if isinstance(game, ApiGame) and game.game_id is None and name is not None:
            game.body["player"] = game.player_id(name)  # a resumed game stays recorded for whom it was
        return play_loop(game, args)
    finally:
        game.close()


def add_parser(subparsers: Any) -> None:
    """Add ``play`` to ``subparsers`` (from ``add_subparsers``)."""
    p = subparsers.add_parser(
        "play", help="play a game or match against pulvezar's bots (in process, or on a platform with --api)",
        description=DESCRIPTION,
    )  # fmt: skip
    api = p.add_argument_group("platform")
    api.add_argument(
        "--api", metavar="URL", help="play on a running platform's Play API (e.g. http://localhost:8000)"
    )
    api.add_argument(
        "--key",
        metavar="KEY",
        help="its API key (default: $PULVEZAR_API_KEY, else local-dev-key as make run takes)",
    )
    api.add_argument("--resume", metavar="GAME_ID", help="continue a game of the platform")
    p.add_argument(
        "--player",
        metavar="NAME",
        help="who plays (default: player in ~/.config/pulvezar/config.toml): with --api the key's player of "
        "that name (made when missing) the game is recorded for; in process your name in --export's file",
    )
    g = p.add_argument_group("the game")
    g.add_argument("--tavla", action="store_true", help="Tavla rules (no cube)")
    g.add_argument("--hit-and-stop", action="store_true", help="Tavla: 'Nach Schlag Halt'")
    g.add_argument("--must-bear-off", action="store_true", help="Tavla: 'Auswürfelpflicht'")
    g.add_argument(
        "--length", type=int, default=1, metavar="N", help="match length; 0: a money session (default 1)"
    )
    g.add_argument("--jacoby", action="store_true", help="money: the Jacoby rule")
    g.add_argument("--beaver", action="store_true", help="money: beavers")
    g.add_argument("--raccoon", action="store_true", help="money: raccoons (and beavers)")
    g.add_argument(
        "--level", choices=BOT_LEVELS, default="medium", help="the bot's level (adaptive: with --rating)"
    )
    g.add_argument("--style", choices=STYLES, help="the bot's style (default balanced)")
    g.add_argument("--rating", type=float, help="adaptive level: your rating (Elo-like)")
    g.add_argument("--trainer", action="store_true", help="a verdict on each of your decisions")
    g.add_argument("--client-dice", action="store_true", help="you enter both sides' rolls (real dice)")
    g.add_argument("--auto-forced", action="store_true", help="forced plays are played for you")
    g.add_argument("--clock", action="store_true", help="the match clock (2 minutes a point, 12 s delay)")
    add_lang_argument(g)
    g.add_argument(
        "--seed", metavar="HEX", help="in process: the dice seed (up to 64 hex digits), for replays"
    )
    p.add_argument(
        "--export", metavar="FILE", help="at the end, save the match (.mat; .txt and .sgf by suffix)"
    )
    p.set_defaults(func=cmd_play)
