"""Match equity tables: Kazaross-XG2 for backgammon, a computed cubeless table for Tavla.

>>> from pulvezar.met import MatchEquity
>>> MatchEquity.kazaross_xg2().mwc(7, 7)
0.5
"""

from pulvezar.met.equity import (
    MONEY_GAMMON_PRICE,
    MONEY_TAKE_POINT,
    GammonPrice,
    MatchEquity,
    ScoreSummary,
    money_gammon_price,
    money_take_point,
)
from pulvezar.met.tavla import DEFAULT_GAMMON_RATE, tavla_table

__all__ = [
    "DEFAULT_GAMMON_RATE",
    "MONEY_GAMMON_PRICE",
    "MONEY_TAKE_POINT",
    "GammonPrice",
    "MatchEquity",
    "ScoreSummary",
    "money_gammon_price",
    "money_take_point",
    "tavla_table",
]
