"""The parts of :mod:`pulvezar.analysis.match` (import from there): results, replay, annotated SGF."""
