"""Compilation state shared by the schema checks: the source, node helpers and diagnostics."""

from __future__ import annotations

import yaml

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import LineIndex, Span
from lobsterlang.suggest import closest
from lobsterlang.syntax.locate import Locator
from lobsterlang.syntax.nodes import key_text, node_span, scalar_value, to_value
from lobsterlang.syntax.scalars import scalar_locator
from lobsterlang.syntax.yamlload import STR_TAG

Entry = tuple[yaml.Node, yaml.Node]
"""A mapping entry: (key node, value node)."""


class Context:
    """Collects diagnostics in the reference's check order while compiling one file."""

    def __init__(self, text: str, index: LineIndex, path: str, is_json: bool, *, releases_steps: bool = False) -> None:
        self.text = text
        self.index = index
        self.path = path
        self.is_json = is_json
        self.releases_steps = releases_steps
        """Each top-level step's nodes may be let go once the step is compiled: nobody reads the
        document after the compile, and no alias shares a node between steps."""
        self.diagnostics: list[Diagnostic] = []
        self._mappings: dict[int, dict[str, Entry]] = {}

    # ── reporting ──

    def error(self, code: str, message: str, where: yaml.Node | Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, Severity.ERROR, message, self._span(where), hint=hint))

    def warning(self, code: str, message: str, where: yaml.Node | Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, Severity.WARNING, message, self._span(where), hint=hint))

    def extend(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics.extend(diagnostics)

    def _span(self, where: yaml.Node | Span) -> Span:
        return where if isinstance(where, Span) else self.span(where)

    # ── nodes ──

    def span(self, node: yaml.Node) -> Span:
        """The span of a node; its line and column are looked up when read (most never are)."""
        return node_span(node, self.index)

    def entry_span(self, key: yaml.Node, value: yaml.Node) -> Span:
        return self.index.span(key.start_mark.index, max(value.end_mark.index, key.end_mark.index))

    def locator(self, node: yaml.ScalarNode) -> Locator:
        return scalar_locator(node, self.text, self.index)

    def mapping(self, node: yaml.MappingNode) -> dict[str, Entry]:
        """Entries by key; duplicate keys are errors in YAML and warnings in JSON (last wins).

        Each mapping is read once: later calls return the same entries without reporting again.
        """
        cached = self._mappings.get(id(node))
        if cached is not None:
            return cached
        entries: dict[str, Entry] = {}
        self._mappings[id(node)] = entries
        for entry in node.value:  # (key node, value node) pairs, kept as they are
            key_node = entry[0]
            plain = key_node.tag == STR_TAG and isinstance(key_node, yaml.ScalarNode)
            key = key_node.value if plain else key_text(key_node)
            if key in entries:
                self._duplicate_key(key, key_node)
            entries[key] = entry
        return entries

    @property
    def mappings_read(self) -> int:
        """How many mappings have been read so far (a mark for `forget_mappings_since`)."""
        return len(self._mappings)

    def forget_mappings_since(self, mark: int) -> None:
        """Drop the entries of the mappings read since `mark`, whose nodes are being released:
        a freed node's id may be reused by a new node, which must not find stale entries."""
        mappings = self._mappings
        while len(mappings) > mark:
            mappings.popitem()

    def _duplicate_key(self, key: str, key_node: yaml.Node) -> None:
        if self.is_json:
            hint = "JSON.parse keeps the last value; remove the earlier one"
            self.warning("W011", f"duplicate key {key!r}", key_node, hint)
        else:
            self.error("E007", f"Map keys must be unique: duplicate key {key!r}", key_node, "remove or rename one of them")

    def unknown_keys(self, entries: dict[str, Entry], known: frozenset[str], where: str) -> None:
        """Warn about keys the reference ignores, suggesting the closest known key."""
        if entries.keys() <= known:
            return
        for key, (key_node, _) in entries.items():
            if key in known or key.startswith("x-") or key in _DOCUMENTATION_KEYS:
                continue  # extension keys (`x-anchors: &a ...`), editor schema links, notes for readers
            if key == "<<":
                hint = "YAML 1.2 has no merge keys: `<<` is an ordinary key here, so nothing is merged"
            else:
                close = closest(key, known)
                hint = f"did you mean `{close}`?" if close else f"known keys: {', '.join(sorted(known))}"
            self.warning("W001", f"unknown key {key!r} in {where} is ignored", key_node, hint)


_DOCUMENTATION_KEYS = frozenset({"$schema", "description"})
"""Keys the runtimes ignore on purpose: an editor's schema link, and a note for readers (steps carry one often)."""

value_of = to_value
"""A node's plain value."""


def is_str(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and (node.tag == STR_TAG or isinstance(scalar_value(node), str))


def is_map(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.MappingNode)


def is_seq(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.SequenceNode)
