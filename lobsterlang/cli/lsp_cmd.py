"""`lobster lsp`: start the language server on stdio (pygls is imported only here)."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin/stdout (the default and only transport).")
def lsp_command(stdio: bool) -> None:
    """Start the Lobster language server on stdin/stdout (needs the `lsp` extra).

    Editors start it for you: see docs/editors.md for VS Code, Neovim, Helix and Emacs.
    """
    try:
        from lsp.server import main
    except ImportError as exc:
        raise click.ClickException(
            f"the language server needs the `lsp` extra ({exc.name or exc}): pip install 'lobsterlang[lsp]'"
        ) from None
    main()
