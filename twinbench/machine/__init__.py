"""The machine a run executes on: cores and the CPU budget, speed-changing settings, environment
facts.
"""
