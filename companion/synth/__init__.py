"""The synthetic-data factory, used only by training and benchmarks: card faces (render.py),
table scenes (scenes.py), reader and colour crops (cardcrops.py, colourcrops.py), generated
and real-photo table videos (tablevideo.py, realvideo.py), training (train.py) and the
recognizer's evaluation (evaluation.py).

Nothing the table runs (`run`, `watch`, web/) imports from here (tests/test_layers.py checks).
"""
