"""Training, evaluation, data-preparation and benchmark scripts: entry points, not installed with the package.

Run one from the repository's root as ``python -m scripts.NAME``; what the scripts share lives in the package
(mjtable.vision, mjtable.datasets, mjtable.models), and a script imports no other script."""
