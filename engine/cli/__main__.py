import sys

from napkinmath.cli.main import main

sys.exit(main())
