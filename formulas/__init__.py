"""The formula library, one module per subject. Importing this package declares them all.

Every module in this folder is imported (except `sources`), so a new subject needs no
registration: write the module, and its formulas join the graph.
"""

import importlib
import pkgutil

SUBJECTS = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "sources"))

for _name in SUBJECTS:
    importlib.import_module(f"{__name__}.{_name}")
