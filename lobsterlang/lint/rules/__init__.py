"""The rule families; `registry.all_rules()` imports them all, which registers every rule."""
