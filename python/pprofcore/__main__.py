"""``python -m pprofcore`` runs the same program as the ``pprofcore`` command."""

import sys

from .cli import main

sys.exit(main())
