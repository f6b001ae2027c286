# mypy: disable-error-code="union-attr, index, arg-type, no-untyped-call, untyped-decorator"
"""End to end over stdio with pytest-lsp: every feature, with the VS Code, Neovim, Emacs and Helix capability profiles."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import (
    OFFERED,
    PROFILES,
    SERVER,
    STRICT,
    apply_edits,
    change_doc,
    diagnostics,
    doc,
    forget_push,
    open_doc,
    position,
    pulls,
    start,
    until,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text
from lobsterlang.fmt.meaning import meaning

pytestmark = [pytest.mark.asyncio(loop_scope="module"), STRICT]

FLOW = """\
name: demo
args:
  repo:
    default: o/r
    description: the repository
steps:
  - id: fetch
    run: gh pr list --repo ${repo} --json
  - id: filter
    pipeline: "exec --json --shell 'cat x' | where 'n>2' | sort --desc"
    stdin: $fetch.json
  - id: post
    run: curl -X POST https://example.com/hook
    when: $filter.json && $fetch.stdout != ''
  - id: child
    workflow: child.lobster
    workflow_args:
      who: $fetch.stdout
"""

CHILD = """\
args:
  who:
    default: me
steps:
  - id: hello
    run: echo "$LOBSTER_ARG_WHO"
    env:
      NAME: ${who}
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / ".lobster.toml").write_text('[lint]\ntarget = "reference"\n')  # a raw `${repo}` in shell text is L301
    (root / "flow.lobster").write_text(FLOW)
    (root / "child.lobster").write_text(CHILD)
    (root / "messy.lobster").write_text("steps:\n    -   id:   a\n        run:    echo hi\n    -   id: b\n        run: echo bye\n")
    return root


@pytest_lsp.fixture(config=SERVER, scope="module", params=PROFILES)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path) -> AsyncIterator[None]:
    await start(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


def uri_of(workspace: Path, name: str) -> str:
    return (workspace / name).as_uri()


async def test_diagnostics_with_rule_docs_and_related_steps(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    found = await diagnostics(client, uri)
    l301 = next(d for d in found if d.code == "L301")
    assert l301.source == "lobster" and l301.range.start.line == 7
    caps = client.capabilities.text_document
    described = caps.diagnostic if pulls(client) else caps.publish_diagnostics
    if getattr(described, "code_description_support", False):
        assert l301.code_description is not None and l301.code_description.href == "https://lobsterlang.dev/rules/L301/"
    order = "steps:\n  - id: first\n    run: cat\n    stdin: $later.json\n  - id: later\n    run: echo hi\n"
    uri = open_doc(client, workspace / "order.lobster", order)
    l102 = next(d for d in await diagnostics(client, uri) if d.code == "L102")
    if getattr(described, "related_information", False):
        assert l102.related_information is not None and len(l102.related_information) == 1
        where = l102.related_information[0]
        assert where.location.range.start == position(order, "later\n") and "`later`" in where.message
    else:
        assert l102.related_information is None


async def test_diagnostics_follow_edits_and_a_broken_file_keeps_its_outline(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    broken = FLOW.replace("  - id: post\n", "  - id: post\n    bad: [unclosed\n")
    await diagnostics(client, uri)
    forget_push(client, uri)
    change_doc(client, uri, broken, 2)
    found = await diagnostics(client, uri)
    assert any("YAML" in d.message for d in found)
    outline = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc(uri)))
    assert [s.name for s in outline] == ["args", "fetch", "filter"]
    completion = await client.text_document_completion_async(
        types.CompletionParams(text_document=doc(uri), position=position(broken, "$fetch.json", 1)))
    assert "fetch" in [i.label for i in completion.items]
    forget_push(client, uri)
    change_doc(client, uri, FLOW, 3)
    assert not any("YAML" in d.message for d in await diagnostics(client, uri))


async def test_positions_count_characters_in_the_encoding_the_client_offered_first(
    client: LanguageClient, workspace: Path
) -> None:
    """Neovim 0.11 and Helix offer UTF-8 first and Emacs UTF-32: a column after non-ASCII text differs in each."""
    general = client.capabilities.general
    offered = [e for e in (general.position_encodings if general else None) or [] if e in ("utf-8", "utf-16", "utf-32")]
    encoding = offered[0] if offered else "utf-16"

    def column(line: str, before: str) -> int:
        head = line[: line.index(before)]
        return {"utf-8": len(head.encode("utf-8")), "utf-16": len(head) + head.count("🦞"), "utf-32": len(head)}[encoding]

    broken = 'steps:\n  - id: greet\n    run: echo hi\n    when: "🦞 é" == $nope.approved\n'
    uri = open_doc(client, workspace / "unicode.lobster", broken)
    error = next(d for d in await diagnostics(client, uri) if d.code == "E003")
    assert error.range.start == types.Position(3, column(broken.splitlines()[3], "=="))
    text = 'steps:\n  - id: greet\n    run: echo hi\n  - id: next\n    run: echo "🦞 é" $greet.stdout\n'
    change_doc(client, uri, text, 2)
    at = types.Position(4, column(text.splitlines()[4], "greet.") + 1)
    found = await client.text_document_definition_async(types.DefinitionParams(doc(uri), at))
    assert [(loc.range.start.line, loc.range.start.character) for loc in found] == [(1, len("  - id: "))]


async def test_definition_references_and_hover(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    await diagnostics(client, uri)  # hover names the rules of the findings the editor shows
    at_ref = position(FLOW, "$fetch.json", 2)
    targets = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri), position=at_ref))
    assert isinstance(targets, list) and len(targets) == 1
    target = targets[0]
    assert isinstance(target, types.Location)
    assert target.range.start == position(FLOW, "fetch\n")
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=doc(uri), position=at_ref, context=types.ReferenceContext(include_declaration=False)))
    assert len(refs) == 3  # stdin, when, workflow_args
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=position(FLOW, "where")))
    assert "keep items" in hover.contents.value
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=position(FLOW, "${repo}", 3)))
    assert "o/r" in hover.contents.value and "**L301** `raw-arg-in-shell`" in hover.contents.value
    assert "([docs](https://lobsterlang.dev/rules/L301/))" in hover.contents.value
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=position(FLOW, "id: fetch", 5)))
    assert "read by: for_each" not in hover.contents.value and "read by: stdin, when, workflow_args" in hover.contents.value


async def test_rename_step_compiles_to_the_same_ir(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    where = position(FLOW, "$fetch.json", 2)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(uri), position=where))
    assert prepared is not None
    result = await client.text_document_rename_async(types.RenameParams(text_document=doc(uri), position=where, new_name="grab"))
    renamed = apply_edits(FLOW, result.changes[uri])
    before, after = compile_workflow(FLOW, "flow.lobster").ir, compile_workflow(renamed, "flow.lobster").ir
    assert meaning(after) == meaning(before).replace('"fetch"', '"grab"').replace("$fetch.", "$grab.")
    with pytest.raises(Exception, match="already exists"):
        await client.text_document_rename_async(types.RenameParams(text_document=doc(uri), position=where, new_name="filter"))


async def test_rename_arg_reaches_the_callers_workflow_args(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "child.lobster")
    result = await client.text_document_rename_async(types.RenameParams(text_document=doc(uri), position=position(CHILD, "${who}", 3), new_name="person"))
    child = apply_edits(CHILD, result.changes[uri])
    assert "${person}" in child and "LOBSTER_ARG_PERSON" in child and "  person:" in child
    parent = apply_edits(FLOW, result.changes[uri_of(workspace, "flow.lobster")])
    assert "      person: $fetch.stdout" in parent
    flow = open_doc(client, workspace / "flow.lobster")
    targets = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(flow), position=position(FLOW, "who:")))
    assert [(t.uri, t.range.start) for t in targets] == [(uri, position(CHILD, "who:"))]


async def test_formatting_whole_document_and_range(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "messy.lobster")
    text = (workspace / "messy.lobster").read_text()
    options = types.FormattingOptions(tab_size=2, insert_spaces=True)
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(text_document=doc(uri), options=options))
    assert apply_edits(text, edits) == format_text(text, "messy.lobster")
    first = types.Range(types.Position(1, 0), types.Position(2, 0))
    edits = await client.text_document_range_formatting_async(types.DocumentRangeFormattingParams(text_document=doc(uri), range=first, options=options))
    partly = apply_edits(text, edits)
    assert "id: a\n" in partly and "-   id: b" in partly


async def test_code_actions_fix_suppress_and_add_an_approval(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    everything = types.Range(position(FLOW, "  - id: fetch"), position(FLOW, "  - id: filter"))
    context = types.CodeActionContext(diagnostics=[])
    actions = await client.text_document_code_action_async(types.CodeActionParams(text_document=doc(uri), range=everything, context=context))
    titles = [a.title for a in actions]
    # The fix of an unquoted `${repo}` changes word splitting: offered, labelled unsafe, never preferred.
    unsafe = [a for a in actions if a.title.endswith("(unsafe: may change behaviour)")]
    assert unsafe and not any(a.is_preferred for a in unsafe), titles
    assert "Suppress L301 for step fetch" in titles
    suppressed = next(a for a in actions if a.title == "Suppress L301 for step fetch")
    assert "  # lobster: ignore[L301]\n  - id: fetch" in apply_edits(FLOW, suppressed.edit.changes[uri])
    at_post = types.Range(position(FLOW, "curl"), position(FLOW, "curl"))
    actions = await client.text_document_code_action_async(types.CodeActionParams(text_document=doc(uri), range=at_post, context=context))
    approval = next(a for a in actions if a.title.startswith("Add an approval step before post"))
    added = apply_edits(FLOW, approval.edit.changes[uri])
    workflow = compile_workflow(added, "flow.lobster").ir
    assert [s.id for s in workflow.steps] == ["fetch", "filter", "approve_post", "post", "child"]
    assert workflow.steps[2].approval is not None


async def test_completion_in_context(client: LanguageClient, workspace: Path) -> None:
    text = FLOW + "  - id: last\n    pipeline: exec --json | so"
    uri = open_doc(client, workspace / "edited.lobster", text)
    items = await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=position(text, "| so", 4)))
    assert "sort" in [i.label for i in items.items]
    items = await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=position(text, "stdin: $", 8)))
    assert [i.label for i in items.items] == ["fetch"]


async def test_semantic_tokens_of_a_pipeline(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    tokens = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(doc(uri)))
    data = tokens.data
    assert data and len(data) % 5 == 0
    legend = ["function", "parameter", "string", "operator", "variable", "property"]
    kinds = {legend[data[i + 3]] for i in range(0, len(data), 5)}
    assert kinds == set(legend)
    line = char = 0
    decoded = []
    for i in range(0, len(data), 5):
        line, char = line + data[i], (char if data[i] == 0 else 0) + data[i + 1]
        decoded.append((line, char, data[i + 2], legend[data[i + 3]]))
    stdin = position(FLOW, "$fetch.json")
    assert (stdin.line, stdin.character, len("$fetch.json"), "property") in decoded
    bar = position(FLOW, "| where")
    assert (bar.line, bar.character, 1, "operator") in decoded


async def test_folding_links_inlay_hints_and_lenses(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(doc(uri)))
    assert {f.start_line for f in folds} >= {6, 8, 11}
    links = await client.text_document_document_link_async(types.DocumentLinkParams(doc(uri)))
    assert [link.target for link in links] == [uri_of(workspace, "child.lobster")]
    whole = types.Range(types.Position(0, 0), types.Position(30, 0))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(text_document=doc(uri), range=whole))
    assert any("'o/r'" in str(h.label) for h in hints)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(doc(uri)))
    assert [lens.command.command for lens in lenses] == ["lobster.dryRun", "lobster.graph"]


async def test_dry_run_and_graph_commands_and_request(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "flow.lobster")
    dry = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lobster.dryRun", arguments=[uri]))
    cli = subprocess.run([sys.executable, "-m", "lobsterlang", "run", "--dry-run", str(workspace / "flow.lobster")],
                         capture_output=True, text=True, check=True, cwd=workspace)
    assert dry == cli.stderr and "3. post" in dry
    graph = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lobster.graph", arguments=[uri, "dot"]))
    assert graph["format"] == "dot" and graph["text"].startswith("digraph")
    params = {"textDocument": {"uri": uri}, "format": "mermaid"}
    result = await client.protocol.send_request_async("lobster/graph", params)
    assert result.format == "mermaid" and "fetch" in result.text


async def test_workspace_symbols(client: LanguageClient, workspace: Path) -> None:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="hel"))
    assert [(s.name, s.location.uri) for s in found] == [("hello", uri_of(workspace, "child.lobster"))]


async def test_config_file_per_folder_and_reloaded_when_it_changes(client: LanguageClient, workspace: Path) -> None:
    folder = workspace / "configured"
    folder.mkdir(exist_ok=True)
    config = folder / ".lobster.toml"
    config.write_text('[lint]\ntarget = "reference"\nignore = ["L301"]\n')
    (folder / "flow.lobster").write_text(FLOW)
    uri = open_doc(client, folder / "flow.lobster")
    assert "L301" not in {d.code for d in await diagnostics(client, uri)}
    config.write_text('[lint]\ntarget = "reference"\nignore = []\n')
    forget_push(client, uri)
    change = types.FileEvent(config.as_uri(), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))
    assert "L301" in {d.code for d in await diagnostics(client, uri)}
    config.unlink()


FORK = """\
steps:
  - id: unread
    pipeline: mail.search --unread --top 20
  - id: few
    stdin: $unread.json
    when: length($unread.json) > 0
    run: cat
"""
"""A workflow of a Lobster fork: its command and condition function are unknown until the config declares them."""


async def test_declared_fork_commands_and_functions_are_picked_up_when_the_config_changes(client: LanguageClient, workspace: Path) -> None:
    folder = workspace / "fork"
    folder.mkdir(exist_ok=True)
    config = folder / ".lobster.toml"
    config.write_text("[lint]\n")
    uri = open_doc(client, folder / "flow.lobster", FORK)
    found = {(d.code, d.severity) for d in await diagnostics(client, uri)}
    assert ("L201", types.DiagnosticSeverity.Warning) in found and ("X001", types.DiagnosticSeverity.Warning) in found
    config.write_text('[lint]\nextra-commands = ["mail.*"]\ncondition-functions = ["length"]\n')
    forget_push(client, uri)
    change = types.FileEvent(config.as_uri(), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))
    assert {d.code for d in await diagnostics(client, uri)} == set()
    config.unlink()


async def test_a_stale_pull_is_answered_with_content_modified(client: LanguageClient, workspace: Path) -> None:
    if not pulls(client):
        pytest.skip("this client takes pushed diagnostics")
    uri = open_doc(client, workspace / "stale.lobster", FLOW)
    change_doc(client, uri, FLOW + "\n", 2)
    stale = client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc(uri)))
    pending = asyncio.ensure_future(stale)
    await asyncio.sleep(0.05)
    change_doc(client, uri, FLOW + "\n\n", 3)
    with pytest.raises(Exception, match="changed"):
        await pending
    assert await diagnostics(client, uri)


async def test_a_broken_config_is_shown_once_and_the_defaults_apply(client: LanguageClient, workspace: Path) -> None:
    folder = workspace / "misconfigured"
    folder.mkdir(exist_ok=True)
    (folder / ".lobster.toml").write_text("[lint]\nselect = 3\n")
    uri = open_doc(client, folder / "flow.lobster", FLOW)
    codes = {d.code for d in await diagnostics(client, uri)}
    assert "L401" in codes and "L301" not in codes  # the defaults: the lobsterlang target
    for _ in range(100):
        if any("select must be a list" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.02)
    shown = [m for m in client.messages if "select must be a list" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning


async def test_prepare_rename_explains_a_file_with_errors(client: LanguageClient, workspace: Path) -> None:
    text = FLOW.replace("  - id: child\n", "  - id: fetch\n")  # a duplicate id: the file does not compile
    uri = open_doc(client, workspace / "duplicate.lobster", text)
    where = position(text, "$filter.json", 2)
    with pytest.raises(Exception, match="has errors"):
        await client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc(uri), position=where))
    nothing = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=position(text, "gh pr")))
    assert nothing is None


async def test_fix_all_applies_every_safe_fix_when_asked_for_alone(client: LanguageClient, workspace: Path) -> None:
    quoted = FLOW.replace("--repo ${repo}", '--repo "${repo}"')  # quoted: its fix is safe
    uri = open_doc(client, workspace / "quoted.lobster", quoted)
    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    context = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])
    actions = await client.text_document_code_action_async(types.CodeActionParams(text_document=doc(uri), range=whole, context=context))
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction)
    fixed = apply_edits(quoted, action.edit.changes[uri])
    assert "${repo}" not in fixed and "LOBSTER_ARG_REPO" in fixed
    assert compile_workflow(fixed, "flow.lobster").ok


async def test_configs_are_reloaded_on_save_for_clients_that_cannot_watch(client: LanguageClient, workspace: Path) -> None:
    folder = workspace / "saved"
    folder.mkdir(exist_ok=True)
    config = folder / ".lobster.toml"
    config.write_text('[lint]\ntarget = "reference"\nignore = ["L301"]\n')
    uri = open_doc(client, folder / "flow.lobster", FLOW)
    assert "L301" not in {d.code for d in await diagnostics(client, uri)}
    config.write_text('[lint]\ntarget = "reference"\nignore = []\n')
    forget_push(client, uri)
    client.text_document_did_save(types.DidSaveTextDocumentParams(doc(uri)))
    assert "L301" in {d.code for d in await diagnostics(client, uri)}


SHELLCHECKED = "steps:\n  - id: count\n    run: echo $HOME/*.txt\n"
"""shellcheck finds the unquoted `$HOME` (SC2086, L310); it checks saved text only."""


async def test_the_shellcheck_finding_returns_after_a_save(client: LanguageClient, workspace: Path) -> None:
    """A pulling client is asked to pull again (it would not after a save); any other client gets a push."""
    path = workspace / "shellchecked.lobster"
    path.write_text(SHELLCHECKED)
    uri = open_doc(client, path)
    assert "L310" in {d.code for d in await diagnostics(client, uri)}
    forget_push(client, uri)
    change_doc(client, uri, SHELLCHECKED + "\n", 2)
    assert "L310" not in {d.code for d in await diagnostics(client, uri)}  # unsaved text: no shellcheck process
    path.write_text(SHELLCHECKED + "\n")
    asked = client.diagnostic_refresh_count
    forget_push(client, uri)
    client.text_document_did_save(types.DidSaveTextDocumentParams(doc(uri)))
    if pulls(client):
        await until(lambda: client.diagnostic_refresh_count > asked, "workspace/diagnostic/refresh after the save")
    assert "L310" in {d.code for d in await diagnostics(client, uri)}


async def test_a_pulling_client_is_asked_to_pull_again_when_a_config_changes(client: LanguageClient, workspace: Path) -> None:
    if not pulls(client):
        pytest.skip("this client takes pushed diagnostics: the push after the change is tested above")
    asked = client.diagnostic_refresh_count
    change = types.FileEvent((workspace / ".lobster.toml").as_uri(), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))
    await until(lambda: client.diagnostic_refresh_count > asked, "workspace/diagnostic/refresh after the config change")


async def test_diagnostics_are_pulled_only_by_a_client_that_can_be_refreshed(client: LanguageClient) -> None:
    """Neovim 0.11 pulls but cannot be refreshed: it gets pushes, and is not offered pulling (never both)."""
    offered = OFFERED[client].diagnostic_provider is not None
    assert offered == pulls(client)
