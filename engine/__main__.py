"""`python -m napkinmath`: the `napkin` command (see `napkinmath.cli.main`)."""

import sys

try:
    from napkinmath.cli.main import main
except KeyboardInterrupt:  # Ctrl-C while the package loads: one line, like main() says
    sys.stderr.write("napkin: interrupted\n")
    sys.exit(130)

sys.exit(main())
