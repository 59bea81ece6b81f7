"""What the Python tests of tools/ share: checks that count instead of stopping at the first, and
the line and exit status that sum them up."""

results = {"passed": 0, "failed": 0}


def check(condition, what):
    """Counts `condition`; a failed one prints `what`."""
    if condition:
        results["passed"] += 1
    else:
        results["failed"] += 1
        print("FAIL:", what)


def summary():
    """Prints "N passed, M failed"; the exit status: 1 where any failed."""
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0
