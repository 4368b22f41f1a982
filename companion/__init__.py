"""UNO table companion, in three rooms and the wiring above them:

- `companion.referee`: the rules engine, the table log's store, scoring, leagues;
- `companion.vision`: the camera, the card recognizer and the watcher;
- `companion.synth`: the synthetic data that training and the benchmarks draw;
- here: the running table (`runner`), its config, backups, the demo bot and the CLI
  (`cli`, `commands/`).

The phone page lives in `web/`, GPIO in `hardware/`. Imports only go down a room
(tests/test_layers.py)."""

__version__ = "0.1.0"
