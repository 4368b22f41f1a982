"""Vision at the table: how a frame becomes an event.

The camera (camera.py), the table's zones (zones.py), the recognizer (detector.py: finder.py
finds cards, reader.py names them, colour.py and calibration.py tell their colour,
photometric.py the light), the crops both readers see (crops.py), and the watcher that turns
what is seen into table-log events (watcher.py). It imports only the referee's cards and
`companion.errors`, never `companion.synth` (tests/test_layers.py checks).
"""
