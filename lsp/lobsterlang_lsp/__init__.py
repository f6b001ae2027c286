"""The Lobster language server: thin pygls handlers over lobsterlang's IR, linter, formatter and query API.

Start it with `lobster lsp` (stdio). Needs the `lsp` extra (`pip install '.[lsp]'` in a clone).
"""
