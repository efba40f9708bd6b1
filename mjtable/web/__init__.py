"""``mjtable serve``: a phone upload page, a JSON API, live table events and a broadcast overlay (FastAPI)."""
