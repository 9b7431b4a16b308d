"""check-draft: every figure in a draft, found, set aside or matched to the ledger.

``reading`` reads a draft within its limits; ``finder`` finds figures (``text``, ``words``,
``setaside`` and ``equations`` are its parts); ``identity`` and ``backing`` decide which claim a
figure is, ``match`` holds it against a Report; ``check`` runs them once into a ``DraftCheck``,
``output`` formats it, and ``new`` writes starting claim records for what is unbacked. ``article``
reads a published text kept as ``claims/<slug>/article.md``, and ``published`` checks it in CI.
"""
