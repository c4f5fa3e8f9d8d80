"""Framework releases as an axis: a stack is a set of exact pins (conf/stack/<name>.yaml), run in
its own environment built once by uv as an overlay on the project's and cached by the hash of
its pins (docs/usage/stacks.md)."""
