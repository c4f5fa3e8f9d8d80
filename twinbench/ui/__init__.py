"""What a person sees while work runs: status lines, progress, live terminal tables."""
