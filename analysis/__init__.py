"""Reports from result records. Reads JSON only: never imports a framework."""
