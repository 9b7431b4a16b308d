"""The installed version of a package, read off its ``.dist-info`` folder.

``importlib.metadata.version`` finds a distribution by scanning every folder of ``sys.path`` and
parses its METADATA file with the email package: with its own import about 30 ms, paid by every
command that imports pint (pint, flexcache and flexparser each ask it for their own version at
import; ``units._import_pint``) and by verify's cache for its key (``cache.code_fingerprint``). A
package installed by pip has one ``<name>-<version>.dist-info`` folder beside it, whose name says the
version; that is read here, and importlib.metadata answers only where no single such folder is found.
"""

from __future__ import annotations

import importlib.util
import os


def dist_info_version(name: str) -> str | None:
    """The version in the name of the one ``<name>-<version>.dist-info`` folder beside the package
    ``name`` (found without running it), or None where there is not exactly one."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
        return None
    folder = os.path.dirname(os.path.dirname(spec.origin))
    prefix = f"{name.lower()}-"
    try:
        found = [entry for entry in os.listdir(folder) if entry.endswith(".dist-info") and entry.lower().startswith(prefix)]
    except OSError:
        return None
    return found[0][len(prefix):-len(".dist-info")] if len(found) == 1 else None


def version(name: str) -> str:
    """``importlib.metadata.version(name)``, from the ``.dist-info`` folder's name where it can be."""
    found = dist_info_version(name)
    if found is not None:
        return found
    from importlib.metadata import version as metadata_version

    return metadata_version(name)
