"""``python -m mjtable.cli ARGS``: the ``mjtable`` command (as mjtable.launch runs it, without its batch shortcut)."""
import sys

from . import main

sys.exit(main())
