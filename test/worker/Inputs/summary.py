"""Prints a build.json as stable lines for FileCheck:
build <id> <status> [<reason>]
<kind> <name> <status> exit=<code> [stage=<stage>] [<reason>]
and checks the invariants every build.json must hold (times present and
ordered for whatever started; finished builds have no running container)."""
import json
import sys


def main(path):
    with open(path) as f:
        build = json.load(f)
    print("build %s %s%s" % (build["id"], build["status"],
                             " (%s)" % build["reason"] if build.get("reason") else ""))
    assert build["status"] in ("success", "failure", "error", "canceled"), build["status"]
    for c in build["services"] + build["steps"]:
        kind = "service" if c in build["services"] else "step"
        extra = ""
        if c.get("stage"):
            extra += " stage=%s" % c["stage"]
        if c.get("reason"):
            extra += " (%s)" % c["reason"]
        if c.get("log_truncated"):
            extra += " log-truncated"
        print("%s %s %s exit=%s%s" % (kind, c["name"], c["status"], c["exit_code"], extra))
        assert c["status"] not in ("running", "pending"), c
        if c["started"] is not None:
            assert c["finished"] is not None and c["finished"] >= c["started"], c
    if build["started"] is not None and build["finished"] is not None:
        assert build["finished"] >= build["started"]


if __name__ == "__main__":
    main(sys.argv[1])
