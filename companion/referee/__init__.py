"""The referee: the cards, the rules, each card's effect, the engine that keeps the table's
state, scoring, the event store, leagues, and the simulator and engine bench built on them.

It imports nothing from `companion.vision`, `companion.synth` or the wiring above them
(tests/test_layers.py checks); only `companion.errors` from outside.
"""
