"""order.py BUILD_JSON A:B...: fails unless step B started after step A finished."""
import json
import sys

build = json.load(open(sys.argv[1]))
steps = {s["name"]: s for s in build["steps"]}
for pair in sys.argv[2:]:
    a, b = pair.split(":")
    if not (steps[a]["finished"] and steps[b]["started"] and steps[b]["started"] >= steps[a]["finished"]):
        sys.exit("%s started (%s) before %s finished (%s)" % (b, steps[b]["started"], a, steps[a]["finished"]))
print("order ok")
