"""Reading results: records, the 2017 logs, duplicates, the tidy runs table, backend identities."""
