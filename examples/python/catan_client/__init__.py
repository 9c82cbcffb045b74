"""An example client of the Catan server, written from protocol.md.

Modules: ``rng`` (the game's generator), ``board`` (the fixed geometry),
``derive`` (re-deriving every random outcome of a finished game from its seed),
``view`` (following a game view from events), ``lobby`` (the HTTP API),
``connection`` (one WebSocket: request ids, acknowledgements, sequence numbers),
``strategy`` (choosing actions), ``play`` (playing seats to the end) and ``models``
(typed models of every message and body, generated from the protocol's JSON Schema by
``tools/gen_models.py``).
"""
