"""The gateway's service layer: what the routes do, below HTTP.

A router parses the request, calls one function here and maps its typed errors to problems; loading,
acting and saving, the locks and the idempotent replays live here.  The dependencies (the store's
records, the bots' evaluator, the archive) are made once per app (:mod:`.deps`).
"""
