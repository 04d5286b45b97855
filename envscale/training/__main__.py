"""`python -m envscale.training ...`: the same as `envscale train ...` (what `accelerate launch -m` runs)."""

import sys

from . import run_as_script

sys.exit(run_as_script())
