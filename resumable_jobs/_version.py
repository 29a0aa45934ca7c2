"""Single source of the package version (read by pyproject and ``--version``)."""

__version__ = "0.1.0"
