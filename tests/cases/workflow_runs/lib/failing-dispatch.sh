#!/bin/sh
# Stands in for `gog` / `openclaw`: counts its calls next to the state directory, then fails.
f="$LOBSTER_STATE_DIR.dispatches"
n=$(cat "$f" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$f"
echo "gateway timed out (call $n)" >&2
exit 1
