"""Position evaluation: the evaluator interface, pulvezar's nets, exact bear-off databases, PubEval.

- :mod:`pulvezar.eval.encoding` -- the versioned feature encoding (training imports it from here);
- :mod:`pulvezar.eval.nets` -- the PyTorch nets;
- :mod:`pulvezar.eval.evaluator` -- ``Evaluator``, ``NetEvaluator``, ``default_evaluator()``;
- :mod:`pulvezar.eval.classes` -- GNU Backgammon's crashed test, the evaluator's crashed class;
- :mod:`pulvezar.eval.bearoff` -- one- and two-sided bear-off databases;
- :mod:`pulvezar.eval.pubeval` -- Tesauro's PubEval, the classic baseline player.
"""
