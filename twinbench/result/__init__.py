"""The result record of one run: its typed blocks, its schema history, reading and writing
result.json.
"""
