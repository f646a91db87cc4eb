# Run with: explore.py scn2_resolve_time.py. The time boundary through `cardgate resolve --now` and
# npm resolveAgentCard({now}) reading response headers (NOW = 12:00:40Z in both).
def hs(*h):
    return ("200 OK", [("content-type", "application/json")] + list(h), b(FRESH))
run("synced_at exactly 10 s before now", [hs(("x-replica-synced-at", "2026-11-09T12:00:30Z"))], expect="valid st=10000")
run("synced_at 10.001 s before now", [hs(("x-replica-synced-at", "2026-11-09T12:00:29.999Z"))], expect="503 watermark_exceeded 10001")
run("synced_at 1 s ahead (skew)", [hs(("x-replica-synced-at", "2026-11-09T12:00:41Z"))], expect="valid st=0")
run("synced_at 1.001 s ahead", [hs(("x-replica-synced-at", "2026-11-09T12:00:41.001Z"))], expect="503 watermark_in_future")
run("synced_at + Age at the tolerance", [hs(("x-replica-synced-at", "2026-11-09T12:00:35Z"), ("Age", "5"))], expect="valid st=10000")
run("synced_at + Age 1 ms over", [hs(("x-replica-synced-at", "2026-11-09T12:00:34.999Z"), ("Age", "5"))], expect="503 watermark_exceeded 10001")
run("lag_ms and synced_at 1000 ms apart", [hs(("x-replica-lag-ms", "9000"), ("x-replica-synced-at", "2026-11-09T12:00:30Z"))], expect="valid st=10000")
run("lag_ms and synced_at 1001 ms apart", [hs(("x-replica-lag-ms", "8999"), ("x-replica-synced-at", "2026-11-09T12:00:30Z"))], expect="503 watermark_contradictory")
run("synced_at with an offset", [hs(("x-replica-synced-at", "2026-11-09T13:00:30+01:00"))], expect="valid st=10000")
run("max_stale 0s, lag 0", [hs(("x-replica-lag-ms", "0"))], req={"require": ["task.execute.v3"], "max_stale": "0s"}, expect="valid st=0")
run("pin matches, synced_at an hour ahead", [hs(("x-replica-synced-at", "2026-11-09T13:00:40Z"))],
    req={"require": ["task.execute.v3"], "pin": subprocess.run([CLI, "hash", "-"], input=b(FRESH), capture_output=True).stdout.decode().strip()},
    expect="valid pinned (replace: watermark not consulted)")
run("stale replica, primary exactly at the tolerance", [hs(("x-replica-lag-ms", "10001")), hs(("x-replica-synced-at", "2026-11-09T12:00:30Z"))],
    expect="valid from attempt 2")
