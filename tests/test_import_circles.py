"""No import circles between the files of apps/ (issue 29).

import-linter's contracts (pyproject.toml) keep the apps layered against each other; this test
looks one floor lower, at modules: any set of modules that import each other in a circle, at
file level (imports inside functions included, as grimp reads them), is a strongly connected
component of the import graph with more than one module. The circles known when the guard
came in are listed below, each owned by the engineer who breaks it; the list only shrinks: a
new circle fails, and so does a listed one that no longer exists (delete its line).
"""

from __future__ import annotations

import grimp

#: circles known on 2026-11-29, to be broken by their owners (issue 29); remove a line with its circle
KNOWN_CIRCLES: set[frozenset[str]] = {
    frozenset({"apps.publishing.bluesky", "apps.publishing.oauth", "apps.publishing.services.tokens"}),
    frozenset({"apps.publishing.linkedin_pages", "apps.publishing.oauth_backends"}),
}


def _circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    modules = sorted(m for m in graph.modules if m.startswith("apps."))
    edges = {
        m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i.startswith("apps."))
        for m in modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            children = edges.get(node, [])
            if child < len(children):
                work.append((node, child + 1))
                nxt = children[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_the_circle_finder_finds_a_circle_and_nothing_else():
    graph = grimp.ImportGraph()
    for module in ("apps.a", "apps.b", "apps.c", "apps.d"):
        graph.add_module(module)
    graph.add_import(importer="apps.a", imported="apps.b")
    graph.add_import(importer="apps.b", imported="apps.c")
    graph.add_import(importer="apps.c", imported="apps.a")
    graph.add_import(importer="apps.c", imported="apps.d")
    assert _circles(graph) == {frozenset({"apps.a", "apps.b", "apps.c"})}


def test_apps_has_no_import_circle_but_the_known_ones():
    graph = grimp.build_graph("apps", cache_dir=None)
    circles = _circles(graph)
    new = circles - KNOWN_CIRCLES
    assert not new, f"new import circles between files of apps/: {sorted(sorted(c) for c in new)}"
    gone = KNOWN_CIRCLES - circles
    assert not gone, (
        f"these circles are gone: delete them from KNOWN_CIRCLES: {sorted(sorted(c) for c in gone)}"
    )
