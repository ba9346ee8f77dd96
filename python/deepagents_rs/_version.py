"""The deepagents version this package implements, and deepagents' ``_lc_version``.

Agents put ``{"deepagents": __version__}`` in their config's ``lc_versions`` (LangSmith's
trace metadata). ``_lc_version()`` is that version with a ``+editable`` local segment for a
development install (an editable one, as ``maturin develop`` makes), as deepagents reports
its own checkouts. Agents keep the plain version even then: their config is compared with
deepagents' (a released wheel) by the parity tests, which run on a development install.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from importlib.metadata import Distribution, distributions
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

logger = logging.getLogger(__name__)

#: The deepagents release whose interface and behaviour this package reproduces.
__version__ = "0.7.32"

#: Distribution names (normalized) that may install the running package: ours, and the
#: name of the package it stands in for.
_OWN_NAMES = frozenset({"deepagents", "deepagents-rs"})


def _normalized_name(dist: Distribution) -> str | None:
    """The distribution's name, lowercase with hyphens; ``None`` when its metadata cannot
    be read (a broken install must not stop the scan)."""
    try:
        name = dist.name
    except (AttributeError, KeyError, OSError, TypeError, ValueError):
        logger.debug("Skipping a distribution whose name cannot be read", exc_info=True)
        return None
    return name.lower().replace("_", "-") if isinstance(name, str) else None


def _editable_location(dist: Distribution) -> Path | None:
    """Where an editable install's sources are (PEP 610 ``direct_url.json`` with
    ``dir_info.editable`` true and a ``file:`` URL); ``None`` for anything else."""
    try:
        text = dist.read_text("direct_url.json")
    except (OSError, TypeError, ValueError):
        logger.debug("Unreadable direct_url.json", exc_info=True)
        return None
    if not text:
        return None  # the usual case: a wheel install has no direct_url.json
    try:
        record = json.loads(text)
    except (RecursionError, ValueError):
        logger.debug("Unparseable direct_url.json", exc_info=True)
        return None
    if not isinstance(record, dict):
        return None
    info, url = record.get("dir_info"), record.get("url")
    if not (isinstance(info, dict) and info.get("editable") is True and isinstance(url, str)):
        return None
    try:
        parts = urlparse(url)
    except ValueError:
        logger.debug("Unparseable direct_url.json url", exc_info=True)
        return None
    if parts.scheme != "file":
        return None
    local = url2pathname(parts.path)
    # A host other than this machine's names a network share.
    return Path(f"//{parts.netloc}{local}" if parts.netloc not in ("", "localhost") else local)


def _running_package_root() -> Path | None:
    """The directory of the package being run (``None`` where ``__file__`` is unusable, as
    in some frozen interpreters)."""
    try:
        return Path(__file__).resolve().parent
    except (NameError, OSError, ValueError):
        logger.debug("The running package has no usable location", exc_info=True)
        return None


def _contains(root: Path, package: Path) -> bool:
    try:
        root = root.resolve()
    except OSError:
        logger.debug("Cannot resolve an editable source location", exc_info=True)
        return False
    return package == root or root in package.parents


def _is_editable_install() -> bool:
    """Whether the running package comes from an editable install of this project.

    Every installed distribution of this project is looked at (a stray ``*.egg-info`` found
    first must not hide the editable record), and only an editable record whose sources
    hold the running package counts (another checkout elsewhere does not make a wheel
    editable). Unreadable metadata reads as not editable.
    """
    package = _running_package_root()
    if package is None:
        return False
    try:
        for dist in distributions():
            if _normalized_name(dist) not in _OWN_NAMES:
                continue
            location = _editable_location(dist)
            if location is not None and _contains(location, package):
                return True
    except (OSError, TypeError, ValueError):
        # `distributions()` is lazy: a broken path entry raises while iterating.
        logger.debug("Stopped scanning the installed distributions", exc_info=True)
    return False


def _with_editable_local_version(value: str) -> str:
    """``value`` in canonical PEP 440 form with ``editable`` added to its local segment
    (``1.0`` -> ``1.0+editable``, ``1.0+build`` -> ``1.0+build.editable``); a string that is
    no version comes back as it is."""
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        # `packaging` comes with LangChain, not with this package; without it the value is
        # taken as canonical (ours, `__version__`, is).
        public, plus, local = value.partition("+")
        return f"{public}+{local}.editable" if plus else f"{value}+editable"
    try:
        version = Version(value)
    except InvalidVersion:
        return value
    local = "editable" if version.local is None else f"{version.local}.editable"
    return f"{version.public}+{local}"


@cache
def _lc_version() -> str:
    """The version for ``lc_versions``: found once per process (it runs for every agent built)."""
    return _with_editable_local_version(__version__) if _is_editable_install() else __version__
