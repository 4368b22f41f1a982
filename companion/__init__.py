"""UNO table companion: the referee (rules engine, table log, store) and the vision (card
recognition, camera watcher). The phone page lives in `web/`, GPIO in `hardware/`."""

__version__ = "0.1.0"
