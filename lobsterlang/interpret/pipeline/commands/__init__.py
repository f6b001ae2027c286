"""The standard commands, one module per family; `registry` maps names to them."""
