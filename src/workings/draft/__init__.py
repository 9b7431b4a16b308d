"""check-draft: every figure in a draft, found, set aside or matched to the ledger.

``finder`` finds figures (``text``, ``words``, ``unitwords``, ``setaside`` and ``equations`` are its
parts), ``match`` holds them against a Report, ``check`` runs both once into a ``DraftCheck``,
``output`` formats it, and ``new`` writes starting claim records for what is unbacked.
"""
