"""Engine selection, written once: rule system name -> engine module, and profile names resolved.

    eng = engine("mcr")                       # the module: eng.score(hand, profile) -> ScoreResult
    prof = resolve_profile("sichuan", None)   # "sbr2025"; an unknown name raises UnknownProfile

Every caller (the audit, the batch scorer, the pipeline behind the CLI, video and web server) selects its
engine here.
"""

from __future__ import annotations

import importlib

from mjtable.errors import UnknownProfile, UsageError, shown  # noqa: F401  (UnknownProfile: raised here, imported from here)

# rule system -> (engine module, default profile)
ENGINES = {"mcr": ("mjtable.scoring.mcr", "default"), "sichuan": ("mjtable.scoring.sichuan", "sbr2025")}
NAMES = {"mcr": "MCR", "sichuan": "Sichuan"}
RULES = tuple(ENGINES)
DEFAULT_PROFILE = {rules: prof for rules, (_, prof) in ENGINES.items()}


class UnknownRules(UsageError, ValueError):
    """A rule system that is not in RULES."""


class EngineUnavailable(RuntimeError):
    """The engine module cannot be imported."""


def engine(rules: str):
    """The engine module of ``rules`` (it has ``score(hand, profile)`` and ``PROFILES``)."""
    if rules not in ENGINES:
        raise UnknownRules(f"unknown rules {rules!r}: use {' or '.join(repr(r) for r in RULES)}")
    try:
        return importlib.import_module(ENGINES[rules][0])
    except ImportError as e:
        raise EngineUnavailable(f"the {rules} scoring engine is not available ({e})") from None


def resolve_profile(rules: str, profile: str | None) -> str:
    """The engine's profile name: None (and "default") mean the rule system's default profile."""
    if rules not in ENGINES:
        raise UnknownRules(f"unknown rules {rules!r}: use {' or '.join(repr(r) for r in RULES)}")
    name = DEFAULT_PROFILE[rules] if profile in (None, "default") else profile
    known = tuple(engine(rules).PROFILES)
    if name not in known:
        raise UnknownProfile(f"unknown {NAMES[rules]} profile {shown(name)} (known: {', '.join(sorted(known))})")
    return name
