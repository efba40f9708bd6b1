"""``mjtable archive``: a league's archive of recorded games read on Dask, one Parquet row per hand.

``items``: what an item is (a photo, a video, a hand file), how each is read (``process``, through mjtable.pipeline)
and the Parquet output (parts, hands.parquet, the per-game summary); nothing there imports Dask. ``run``: the
Dask side (a LocalCluster or a scheduler, retries, the progress bar); ``mjtable.cli.archive`` is the command.
"""
