"""The run specification: conf/'s choices, the key schema, command-line checks, the validated
RunSpec.
"""
