"""The syntax layer: grammars (via the generated Lark parser) and positioned YAML/JSON loading."""
