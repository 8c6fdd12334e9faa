"""Edits of a designed image's layers, named in words: the headline or the line under it
(``headline "Doors open at 8"``, ``remove the subline``), the colours (``primary colour
#0B6E4F``, ``colours #0B6E4F and #F2C572``), the layout (``layout quote``, ``use the offer
template``) and the background (``background gradient``). The design is drawn again from its
spec with the changes, so type is re-fitted and contrast re-checked; the clauses that are not
layer edits are left for the pixel edits (brighter, crop to 4:5, ...)."""

from __future__ import annotations

import re
from typing import Any

from ..base import EngineError
from .brief import BACKGROUNDS, TEMPLATES

_QUOTED = re.compile(r"[\"“”«»„]([^\"“”«»„]+)[\"“”«»]")
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


def parse_layer_edits(prompt: str) -> tuple[dict[str, Any], str]:
    """(changes to the spec, the clauses left for pixel edits)."""
    changes: dict[str, Any] = {}
    texts: list[str] = []

    def stash(m: re.Match) -> str:
        texts.append(m.group(1).strip())
        return f" QTEXT{len(texts) - 1} "

    work = _QUOTED.sub(stash, prompt or "")
    rest: list[str] = []
    clauses: list[str] = []
    for raw in re.split(r"[;\n,]|\bthen\b|\.(?=\s|$)", work):
        clause = raw.strip()
        if clauses and re.fullmatch(r"(?:and\s+)?#[0-9a-fA-F]{3,6}", clause):
            clauses[-1] += " " + clause  # "colours #0B6E4F, #F2C572": one clause
        elif clause:
            clauses.append(clause)
    for clause in clauses:
        if not _layer_clause(clause, texts, changes):
            rest.append(re.sub(r"QTEXT(\d+)", lambda m: f'"{texts[int(m.group(1))]}"', clause))
    return changes, ", ".join(rest)


def _layer_clause(clause: str, texts: list[str], changes: dict[str, Any]) -> bool:
    """Read one clause into ``changes``; False when it names no layer."""
    low = clause.lower()
    q = re.search(r"QTEXT(\d+)", clause)
    if re.search(r"\b(headline|title|heading|main text|message)\b", low) and q:
        changes["headline"] = texts[int(q.group(1))]
    elif re.search(r"\b(sub ?line|subtitle|second line|sub ?text)\b", low):
        if re.search(r"\b(remove|drop|delete|no|without)\b", low):
            changes["sub"] = ""
        elif q:
            changes["sub"] = texts[int(q.group(1))]
        else:
            raise EngineError(f'say the new line in quotes: subline "..." (got {clause!r})')
    elif re.search(r"\b(colou?rs?|palette)\b", low) and _HEX.search(clause):
        hexes = _HEX.findall(clause)
        colours = changes.setdefault("colours", {})
        if re.search(r"\bsecondary\b", low):
            colours["secondary"] = hexes[0]
        else:
            colours["primary"] = hexes[0]
            if len(hexes) > 1:
                colours["secondary"] = hexes[1]
    elif re.search(r"\b(layout|template)\b", low):
        name = next((t for t in TEMPLATES if re.search(rf"\b{t}\b", low)), None)
        if name is None:
            raise EngineError(f"unknown layout in {clause!r}; the layouts are: {', '.join(TEMPLATES)}")
        changes["template"] = name
    elif re.search(r"\bbackground\b", low) and any(re.search(rf"\b{b}\b", low) for b in BACKGROUNDS):
        changes["background"] = next(b for b in BACKGROUNDS if re.search(rf"\b{b}\b", low))
    else:
        return False
    return True


def apply_changes(spec: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = {**spec, **{k: v for k, v in changes.items() if k != "colours"}}
    if "colours" in changes:
        out["colours"] = {**(spec.get("colours") or {}), **changes["colours"]}
    if changes.get("template") and changes["template"] != spec.get("template"):
        # a layout whose own block would be empty falls back to the headline and the line under it
        out.setdefault("steps", [])
    return out
