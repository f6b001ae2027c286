"""`lobster lsp`: start the language server on stdio (pygls is imported only here)."""

from __future__ import annotations

import click

MISSING_EXTRA = "Error: lobster lsp needs the optional `lsp` extra; install it with: pip install 'lobsterlang[lsp]'"


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin/stdout (the default and only transport).")
@click.pass_context
def lsp_command(ctx: click.Context, stdio: bool) -> None:
    """Start the Lobster language server on stdin/stdout (needs the `lsp` extra).

    Editors start it for you: see docs/editors.md for VS Code, Neovim, Helix and Emacs.
    Exit 2 when the `lsp` extra is not installed (as `lobster mcp` does for its extra).
    """
    try:
        from lsp.server import main
    except ImportError:
        click.echo(MISSING_EXTRA, err=True)
        ctx.exit(2)
    main()
