"""Build of the optional C extension (the MCR scorer's compiled core); every other setting is in pyproject.toml.

The extension is optional: where it cannot be compiled the package installs without it and scores every hand
with the Python path (``scoring/mcr/ccore.py``)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("mjtable.scoring.mcr._ccore", ["scoring/mcr/_ccore.c"], optional=True)])
