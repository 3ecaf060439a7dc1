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
            raise Refused(str(e)) from None
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
        self.body, self.game_id = body or {}, game_id
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
            raise Refused(f"no answer from {self.url}: {e}") from None

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

    def _json(self, response: Any, what: str) -> Any:
        if response.status_code >= 400:
            raise Refused(self.problem(response))
        try:
            return response.json()
        except ValueError:
            raise Refused(f"{what}: the platform did not answer JSON") from None

    def create(self) -> State:
        try:
            if self.game_id is not None:
                return self.state()
            st = self._json(self._request("POST", "/v1/games", json=self.body), "creating the game")
        except Refused as e:
            raise PulvezarError(f"{self.url}: {e}", field="api") from None
        self.game_id = str(st["id"])
        return dict(st)

    def state(self) -> State:
        return dict(self._json(self._request("GET", f"/v1/games/{self.game_id}"), "reading the game"))

    def player_id(self, name: str) -> str:
        """The id of the key's player called ``name`` (compared without case; the newest of several), made
        (``POST /v1/players``) when the key has none: the player the new game is recorded for."""
        wanted, cursor = name.strip().casefold(), None
        try:
            for _ in range(50):  # 200 a page: up to 10,000 players looked at
                query: dict[str, Any] = {"limit": 200, **({"cursor": cursor} if cursor else {})}
                page = self._json(self._request("GET", "/v1/players", params=query), "listing the players")
                found = [p for p in page["players"] if str(p["name"]).strip().casefold() == wanted]
                if found:
                    return str(found[0]["id"])
                cursor = page.get("next_cursor")
                if not cursor:
                    break
            made = self._json(self._request("POST", "/v1/players", json={"name": name}), "making the player")
        except Refused as e:
            raise PulvezarError(f"{self.url}: --player: {e}", field="player") from None
        return str(made["id"])

    def act(self, action: dict[str, Any]) -> tuple[State, list[Event]]:
        if action.get("action") == "resume":  # reading the game lets a pending bot go on (the gateway)
            return self.state(), []
        # one Idempotency-Key per action: a request retried after a lost answer acts once
        path, headers = f"/v1/games/{self.game_id}/actions", {"Idempotency-Key": secrets.token_hex(16)}
        try:
            response = self._request("POST", path, json=action, headers=headers)
        except Refused:
            response = self._request("POST", path, json=action, headers=headers)
        st = dict(self._json(response, "acting"))
        events = st.pop("events", None) or []
        return st, list(events)

    def verify(self) -> bool | None:
        r = self._request("POST", f"/v1/games/{self.game_id}/verify")
        if r.status_code == 409:  # client dice (or not finished): nothing to verify
            return None
        return bool(self._json(r, "verifying the dice").get("verified"))

    def export(self, fmt: str) -> str:
        r = self._request("GET", f"/v1/games/{self.game_id}/export", params={"format": fmt})
        if r.status_code >= 400:
            raise Refused(self.problem(r))
        return str(r.text)

    def close(self) -> None:
        self.http.close()


# ---- words ------------------------------------------------------------------------------------------
def _who(player: Any) -> str:
    return "you" if player == 0 else BOT_NAME


def _subject(player: Any) -> str:
    return "You" if player == 0 else BOT_NAME


def _verb(player: Any, you: str, bot: str, *, capital: bool = True) -> str:
    subject = _subject(player) if capital else _who(player)
    return f"{subject} {you if player == 0 else bot}"


def _dice(d: Any) -> str:
    return f"{d[0]}-{d[1]}" if isinstance(d, list | tuple) and len(d) == 2 else str(d)


def _score(score: Any) -> str:
    if isinstance(score, list | tuple) and len(score) == 2:
        return f"you {score[0]}, {BOT_NAME} {score[1]}"
    return str(score)


def _points(n: Any) -> str:
    return f"{n} point" + ("" if n == 1 else "s")


def describe_verdict(v: dict[str, Any], explicit: bool = True) -> str | None:
    """The trainer's verdict in one line; None for a silent one (a right roll where a double was possible)."""
    mark, played, best = v.get("mark", "ok"), v.get("played", ""), v.get("best", "")
    loss = float(v.get("loss") or 0.0)
    if played == best or loss <= 0:
        return f"trainer: ok ({played} was the best choice)" if explicit and played else None
    line = f"trainer: {mark}: {best or 'no move'} was better than {played or 'no move'} by {loss:.3f}"
    why = v.get("why")
    if not why and isinstance(v.get("explanation"), dict):
        why = v["explanation"].get("en")
    return f"{line} — {why}" if why else line


def describe_event(e: Event, following: Event | None = None) -> tuple[list[str], bool]:
    """An event in plain words; (lines, whether ``following`` was told with it: a roll and its play)."""
    kind, p = e.get("type"), e.get("player")
    d: dict[str, Any] = e.get("details") or {}
    lines: list[str] = []
    used = False
    if kind == "opening":
        dice, winner = d.get("dice") or [0, 0], d.get("winner")
        if winner is None:
            lines.append(f"Opening roll: you {dice[0]}, {BOT_NAME} {dice[1]}: a tie, roll again")
        else:
            starts = _verb(winner, "start", "starts", capital=False)
            lines.append(f"Opening roll: you {dice[0]}, {BOT_NAME} {dice[1]}: {starts}")
        if d.get("cube"):
            lines.append(f"automatic double: the cube is at {d['cube']}")
    elif kind == "roll":
        text = f"{_verb(p, 'roll', 'rolls')} {_dice(d.get('dice'))}"
        if (
            following is not None
            and following.get("type") == "play"
            and following.get("player") == p
            and p == 1
        ):
            notation = (following.get("details") or {}).get("notation")
            text += f" and plays {notation}" if notation else " and cannot move"
            used = True
        lines.append(text)
    elif kind == "play":
        notation = d.get("notation")
        if p == 1 or d.get("auto"):
            forced = " (forced, played for you)" if d.get("auto") else ""
            lines.append(
                f"{_verb(p, 'play', 'plays')} {notation}{forced}"
                if notation
                else f"{_verb(p, 'cannot', 'cannot')} move"
            )
        elif not notation:
            lines.append("You cannot move")
    elif kind in ("double", "beaver", "raccoon"):
        verb = {
            "double": ("double", "doubles"),
            "beaver": ("beaver", "beavers"),
            "raccoon": ("raccoon", "raccoons"),
        }
        you, bot = verb[str(kind)]
        lines.append(f"{_verb(p, you, bot)} to {d.get('cube')}")
    elif kind == "take":
        side = "your" if d.get("owner") == 0 else f"{BOT_NAME}'s"
        lines.append(f"{_verb(p, 'take', 'takes')}: the cube is at {d.get('cube')}, on {side} side")
    elif kind == "drop":
        lines.append(f"{_verb(p, 'pass', 'passes')}")
    elif kind == "resign":
        lines.append(
            f"{_verb(p, 'resign', 'resigns')} a {d.get('level', 'single')} game ({_points(d.get('points'))})"
        )
    elif kind in ("accept", "reject"):
        lines.append(f"{_verb(p, str(kind), str(kind) + 's')} the resignation")
    elif kind == "timeout":
        lines.append("Your time ran out" if p == 0 else f"{BOT_NAME}'s time ran out")
    elif kind == "game_end":
        how = {"drop": " (double passed)", "resignation": " (resignation)", "timeout": " (on time)"}
        outcome = d.get("outcome")
        what = f"a {outcome}" if outcome and outcome != "single" else "the game"
        lines.append(
            f"{_verb(p, 'win', 'wins')} {what}{how.get(str(d.get('how')), '')}: {_points(d.get('points'))}; "
            f"score {_score(d.get('score'))}"
        )
    elif kind == "game_start":
        extra = " (Crawford)" if d.get("crawford") else ""
        opener = d.get("opener")
        start = f"; {_who(opener)} open" + ("" if opener == 0 else "s") if opener is not None else ""
        lines.append(f"Game {d.get('game')}{extra}: score {_score(d.get('score'))}{start}")
    elif kind == "finished":
        pass  # the end of the session says it
    verdict = d.get("verdict")
    if p == 0 and isinstance(verdict, dict):
        v = describe_verdict(verdict, explicit=kind != "roll")
        if v:
            lines.append(v)
    return lines, used


def tell(events: list[Event]) -> list[str]:
    """The events in words, a bot's roll and its play on one line."""
    out: list[str] = []
    i = 0
    while i < len(events):
        lines, used = describe_event(events[i], events[i + 1] if i + 1 < len(events) else None)
        out += lines
        i += 2 if used else 1
    return out


# ---- the board --------------------------------------------------------------------------------------
def _clock(seconds: Any) -> str:
    s = max(0, int(float(seconds)))
    return f"{s // 60}:{s % 60:02d}"


def render(st: State) -> str:
    """The board (you are X, at the bottom) with the score, cube, dice and clock."""
    board = st["board"]
    human, bot = board["checkers"]["human"], board["checkers"]["bot"]
    pips, off = board.get("pips", [0, 0]), board.get("off", [0, 0])
    turn = st.get("turn")
    art = ascii_board(Position(human, bot)).splitlines()
    top_mark = "  <- to move" if turn == 1 and st.get("status") == "playing" else ""
    bottom_mark = "  <- to move" if turn == 0 and st.get("status") == "playing" else ""
    art[0] = art[0].split("     O:")[0] + f"     {BOT_NAME} (O): pips {pips[1]}, off {off[1]}{top_mark}"
    art[-1] = art[-1].split("     X:")[0] + f"     you (X): pips {pips[0]}, off {off[0]}{bottom_mark}"
    cube = st.get("cube") or {}
    if cube.get("used"):
        owner = cube.get("owner")
        where = "centred" if owner is None else ("yours" if owner == 0 else f"{BOT_NAME}'s")
        row = 6 if owner is None else (-2 if owner == 0 else 1)
        art[row] += f"     cube {cube.get('value')} ({where})"
    settings = st.get("settings") or {}
    rules = settings.get("rules") or {}
    variant = rules.get("variant", "international")
    options = [o.replace("_", "-") for o in ("hit_and_stop", "must_bear_off") if rules.get(o)]
    length = st.get("match_length", 0)
    kind = f"{length}-point match" if length else "money session"
    flags = " (Crawford)" if st.get("crawford") else (" (post-Crawford)" if st.get("post_crawford") else "")
    bot = st.get("bot") or {}
    if options:
        variant += f" ({', '.join(options)})"
    head = (
        f"Game {st.get('game')} of a {kind}{flags}, {variant}; score {_score(st.get('score'))}; "
        f"{BOT_NAME} {bot.get('level', '?')}/{bot.get('style', '?')}"
    )
    lines = [head, *art]
    info = []
    if st.get("dice"):
        info.append(f"dice {_dice(st['dice'])} ({_who(turn)})")
    clock = st.get("clock")
    if clock:
        rem = clock.get("remaining") or [0, 0]
        running = clock.get("running")
        info.append(
            f"clock: you {_clock(rem[0])}{' (running)' if running == 0 else ''}, "
            f"{BOT_NAME} {_clock(rem[1])}{' (running)' if running == 1 else ''}"
        )
    gnubg = board.get("gnubg_id") or board.get("position_id")
    info.append(f"ID {gnubg}")
    lines.append(" " + "; ".join(info))
    return "\n".join(lines)


def prompt_lines(st: State, lang: str = "en") -> list[str]:
    """What the game waits for, the numbered plays and the possible actions, in ``lang`` (the catalogs'
    ``cli.play.*``; the commands stay as typed)."""
    actions: list[str] = list(st.get("actions") or [])
    out: list[str] = []
    res = st.get("resignation")
    phase = st.get("phase")
    cube = (st.get("cube") or {}).get("value")
    if res and res.get("player") == 1:
        out.append(i18n.t("cli.play.bot_resigns", lang, bot=BOT_NAME, level=res.get("level")))
    elif phase in ("doubled", "beavered", "raccooned") and st.get("to_act") == 0:
        offered = int(cube or 1) * {"doubled": 2, "beavered": 4, "raccooned": 8}[str(phase)]
        out.append(i18n.t("cli.play.cube_offered", lang, n=offered))
    elif phase == "opening" and "roll" in actions:
        client = st.get("dice_mode") == "client"
        out.append(i18n.t("cli.play.opening_client" if client else "cli.play.opening", lang))
    elif st.get("to_act") == 1 and "roll" in actions:
        out.append(i18n.t("cli.play.enter_bot_roll", lang, bot=BOT_NAME))
    elif "play" in actions:
        plays = st.get("legal_plays") or []
        out.append(i18n.t("cli.play.your_play", lang, dice=_dice(st.get("dice")), n=len(plays)))
        shown = plays[:SHOWN_PLAYS]
        cells = [f"{i:3d}. {p.get('notation') or '(no move)':<22}" for i, p in enumerate(shown, 1)]
        for j in range(0, len(cells), 3):
            out.append(" " + " ".join(cells[j : j + 3]).rstrip())
        if len(plays) > len(shown):
            out.append(i18n.t("cli.play.more", lang, more=len(plays) - len(shown), n=len(plays)))
    elif "roll" in actions:
        client = st.get("dice_mode") == "client"
        out.append(i18n.t("cli.play.your_turn_client" if client else "cli.play.your_turn", lang))
    if not actions and st.get("status") == "playing":
        out.append(i18n.t("cli.play.bot_owes", lang, bot=BOT_NAME))
    extra = [a for a in actions if a != "play"]
    if "resign" in extra and st.get("resign_levels"):
        extra[extra.index("resign")] = f"resign [{'|'.join(st['resign_levels'])}]"
    a_play = [i18n.t("cli.play.a_play", lang)] if "play" in actions else []
    out.append(
        i18n.t("cli.play.possible", lang, actions=", ".join([*a_play, *extra, "board", "help", "quit"]))
    )
    return out


DESCRIPTION = (
    "Play a game or match against pulvezar's bots: in this process with the shipped net, or with --api URL "
    "on a running platform's Play API (the game is kept there; --resume ID continues it). Each line of "
    "standard input is one command (a pipe works; its end ends the session): a play such as '8/5 6/5' or "
    "the number of a listed play, roll, double, take, pass, beaver, raccoon, "
    "resign [single|gammon|backgammon], accept, reject, end, board, help, quit."
)

HELP = i18n.t("cli.play.help")
"""The commands, in English (``cli.play.help`` of the catalogs in the other languages)."""


def parse_command(line: str, st: State) -> dict[str, Any] | str:
    """The action a typed line asks for, or a local command (``board``, ``help``, ``quit``, ``resume``),
    or raises :class:`Refused` with why not."""
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
        raise Refused("no hints during a game; play with --trainer for a verdict on each decision")
    plays = st.get("legal_plays") or []
    if text.isdigit():
        if not plays:
            raise Refused("there is no play to choose now")
        n = int(text)
        if not 1 <= n <= len(plays):
            raise Refused(f"choose a play from 1 to {len(plays)}")
        return {"action": "play", "position_id": plays[n - 1]["position_id"]}
    if w == "drop":
        w = "pass"
    if w == "play":
        rest = text[4:].strip()
        if rest:
            return parse_command(rest, st) if rest.isdigit() else {"action": "play", "notation": rest}
        if len(plays) == 1:
            return {"action": "play", "position_id": plays[0]["position_id"]}
        raise Refused("which play? type it (8/5 6/5) or its number")
    if w == "roll":
        digits = [c for c in text[4:] if c.isdigit()]
        if not digits:
            return {"action": "roll"}
        if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
            raise Refused(f"dice are two digits 1..6 such as roll 31, got {text[4:].strip()!r}")
        return {"action": "roll", "dice": [int(digits[0]), int(digits[1])]}
    if w == "resign":
        level = words[1] if len(words) > 1 else "single"
        if level in ("1", "2", "3"):
            return {"action": "resign", "level": int(level)}
        if level not in RESIGN_LEVELS:
            raise Refused(f"resign single, gammon or backgammon, not {level!r}")
        return {"action": "resign", "level": level}
    if w in WORDS and len(words) == 1:
        return {"action": w}
    if "/" in text or w in ("bar", "none", "nothing", "-"):
        if w in ("none", "nothing", "-") and len(plays) == 1 and not plays[0].get("notation"):
            return {"action": "play", "position_id": plays[0]["position_id"]}
        return {"action": "play", "notation": text}
    raise Refused(f"unknown command {text!r} (type help)")


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


def _result(st: State) -> str:
    r = st.get("result") or {}
    score = r.get("score") or st.get("score")
    winner = r.get("winner")
    reason = r.get("reason")
    if reason == "ended" or winner is None:
        return f"The session is over: {_score(score)}"
    what = "the match" if st.get("match_length") else "the session"
    how = " (on time)" if reason == "timeout" else ""
    return f"{_verb(winner, 'win', 'wins')} {what}{how}: {_score(score)}"


def _export(game: Backend, path: str) -> None:
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "mat"
    if fmt not in ("mat", "sgf", "txt"):
        fmt = "mat"
    try:
        text = game.export(fmt)
    except (Refused, PulvezarError) as e:
        print(f"export failed: {e}")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"the match is saved in {path} ({fmt})")


def _finish(game: Backend, st: State) -> None:
    print(_result(st))
    seed = st.get("dice_seed")
    if st.get("dice_mode") == "client":
        print("client dice: nothing to verify")
    else:
        try:
            ok = game.verify()
        except (Refused, PulvezarError) as e:
            print(f"the dice could not be verified: {e}")
        else:
            verdict = "every roll verifies" if ok else "THE DICE DO NOT VERIFY"
            print(f"dice seed {seed}; commitment {st.get('dice_commitment')}: {verdict}")


def play_loop(game: Backend, args: argparse.Namespace) -> int:
    """Create (or resume) the game and play it from standard input; 0 at the end or at EOF."""
    st = game.create()
    echo = not sys.stdin.isatty()
    if game.game_id:
        print(f"game {game.game_id} at {args.api}")
    if st.get("dice_commitment") and st.get("status") == "playing":
        print(f"dice commitment (SHA-256 of the seed): {st['dice_commitment']}")
    show = True
    quit_ = False
    while st.get("status") == "playing":
        if show:
            print(render(st))
            show = False
        for text in prompt_lines(st, args.lang):
            print(text)
        line = _read(echo)
        if line is None:
            quit_ = True
            break
        try:
            cmd = parse_command(line, st)
            if cmd == "quit":
                quit_ = True
                break
            if cmd in ("board", "help", "nothing"):
                if cmd == "help":
                    print(i18n.t("cli.play.help", args.lang))
                show = cmd == "board"
                continue
            action = {"action": "resume"} if cmd == "resume" else cmd
            assert isinstance(action, dict)
            st, events = game.act(action)
        except Refused as e:
            print(f"refused: {e}")
            show = True
            continue
        for text in tell(events):
            print(text)
        show = True
    if quit_:
        if game.game_id:
            gid = game.game_id
            print(f"game saved as {gid}; continue with: pulvezar play --api {args.api} --resume {gid}")
        else:
            print("the game is left unfinished (an in-process game is not saved)")
    else:
        print(render(st))
        _finish(game, st)
    if args.export:
        _export(game, args.export)
    elif not quit_:
        print("(--export FILE.mat saves the match)")
    return 0


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of a new game (``POST /v1/games``'s body, ``GameSettings.from_dict``'s input)."""
    if (args.hit_and_stop or args.must_bear_off) and not args.tavla:
        raise PulvezarError("--hit-and-stop and --must-bear-off need --tavla", field="rules")
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


def _seed(text: str | None) -> str | None:
    if text is None:
        return None
    t = text.strip().lower().removeprefix("0x")
    if not t or len(t) > 64 or any(c not in "0123456789abcdef" for c in t):
        raise PulvezarError(f"--seed is up to 64 hex digits, got {text!r}", field="seed")
    return t.rjust(64, "0")


def cmd_play(args: argparse.Namespace) -> int:
    game: Backend
    name, _ = player_of(args.player, args.lang)
    if args.api:
        if args.seed is not None:
            raise PulvezarError("--seed is for in-process games; the platform draws its dice", field="seed")
        key = args.key or os.environ.get("PULVEZAR_API_KEY") or "local-dev-key"
        body = None if args.resume else settings_of(args)
        game = ApiGame(args.api, key, body=body, game_id=args.resume, lang=args.lang)
    else:
        if args.resume:
            raise PulvezarError("--resume needs --api (an in-process game is not saved)", field="resume")
        if args.seed is not None and args.client_dice:
            raise PulvezarError("--seed is for server dice; with --client-dice you roll", field="seed")
        game = LocalGame(settings_of(args), seed=_seed(args.seed), lang=args.lang, me=name or "You")
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
