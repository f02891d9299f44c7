"""Tuning that holds on queries it has not seen: ``tune`` (a search with a held-out estimate) and ``check``.

- ``space``: the configurations a study may try, from the config's choices and tuning ranges.
- ``split``: golden queries split, seeded, into tuning and held-out parts (or K folds).
- ``objective``: one trial: evaluate a configuration on the tuning queries only.
- ``study``: the search (Optuna TPE, or every point when the space is small), stored in the home.
- ``verdict``: the held-out gain over the starting configuration, with a paired bootstrap interval.
- ``tune``: the whole procedure, from a request to a report, and saving a preset by its rule.
- ``gate``: ``check``, the regression gate for CI (paired test, exit codes, JUnit XML).
"""
