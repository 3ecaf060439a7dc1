"""Match files: read and write match records (Jellyfish / XG / gnubg ``.mat`` text)."""

from pulvezar.formats.mat import read_mat, write_mat
from pulvezar.formats.record import Action, Decision, GameRecord, MatchFileError, MatchRecord

__all__ = ["Action", "Decision", "GameRecord", "MatchFileError", "MatchRecord", "read_mat", "write_mat"]
