"""The table and verdict every benchmark prints (bench.py, bench_control.py, bench_rooms.py): rows of (figure,
measured as, yt-gst, the peer, ratio, target, result), the machine's load, and the exit code."""

HEADER_ALIGN = ["---", "---", "---:", "---:", "---:", "---", "---"]


def print_table(rows, peer):
    """The rows as a Markdown table; `peer` names the column of what yt-gst is measured against."""
    header = ("figure", "measured as", "yt-gst (median)", f"{peer} (median)", "ratio (median of rounds)", "target",
              "result")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(HEADER_ALIGN) + "|")
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


def verdict(rows, failures, quick, checked):
    """Prints the load average and what failed; returns the exit code: 2 when a run's own check failed or (unless
    `quick`, which measures without judging) a row is FAIL, else 0. `checked` says what every run had checked."""
    print(f"load average at the end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    if failures:
        print(f"FAIL: {len(failures)} run(s) failed their check: " + "; ".join(failures))
        return 2
    failed = [r[0] for r in rows if r[6] == "FAIL"]
    if failed:
        print(f"FAIL: {', '.join(failed)}" + (" (quick mode: the figures are not judged)" if quick else ""))
    else:
        print(f"{checked}; every judged row PASS")
    return 0 if quick or not failed else 2
