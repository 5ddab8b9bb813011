#!/usr/bin/env python3
"""Writes a synthetic tether trace (docs/trace-format.md) with N tasks.

Shaped like the worker: one scope per "build" of 50 tasks, each build with a
TaskGroup that is waited; tasks come from 8 spawn sites; every 25th task is
spawned on a fresh Background() (detached) and ends after its build ended
(a zombie), every 100th never ends. Used by bench/report.bench.sh and by the
report lit tests for the large-input grouping.

usage: gen_trace.py N OUT
"""
import sys

SITES = [("/src/worker/executor/%s.cpp" % name, line) for name, line in
         [("build", 40), ("step", 71), ("service", 33), ("stage", 58),
          ("stream", 120), ("plan", 19), ("assemble", 88), ("destroy", 64)]]
PER_BUILD = 50


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    n, path = int(sys.argv[1]), sys.argv[2]
    out = []
    ids = iter(range(1, 10 ** 9))
    t = 1_000_000
    out.append('{"ev":"header","version":1,"pid":9000,"program":"synthetic-worker","t":%d}' % t)
    root = next(ids)
    out.append('{"ev":"ctx","id":%d,"parent":0,"kind":"cancel","scope":0,"file":"/src/worker/cmd/start.cpp",'
               '"line":12,"func":"Start","t":%d}' % (root, t))
    task_no = 0
    build = 0
    late = []  # (t, line) of records after their build's scope ended
    while task_no < n:
        build += 1
        t += 1000
        sctx, scope, gctx, group = next(ids), next(ids), next(ids), next(ids)
        out.append('{"ev":"ctx","id":%d,"parent":%d,"kind":"scope","scope":%d,"file":"/src/worker/cmd/exec.cpp",'
                   '"line":20,"func":"Exec","t":%d}' % (sctx, root, scope, t))
        out.append('{"ev":"scope_begin","id":%d,"ctx":%d,"name":"build %d","file":"/src/worker/cmd/exec.cpp",'
                   '"line":20,"func":"Exec","t":%d}' % (scope, sctx, build, t))
        out.append('{"ev":"ctx","id":%d,"parent":%d,"kind":"group","scope":%d,"file":"/src/worker/cmd/exec.cpp",'
                   '"line":24,"func":"Exec","t":%d}' % (gctx, sctx, scope, t))
        out.append('{"ev":"group","id":%d,"ctx":%d,"file":"/src/worker/cmd/exec.cpp","line":24,"func":"Exec",'
                   '"t":%d}' % (group, gctx, t))
        ends = []
        for _ in range(min(PER_BUILD, n - task_no)):
            task_no += 1
            task = next(ids)
            file, line = SITES[task_no % len(SITES)]
            t += 100
            if task_no % 25 == 0:
                bg = next(ids)
                out.append('{"ev":"ctx","id":%d,"parent":0,"kind":"background","scope":0,"file":"%s","line":%d,'
                           '"func":"StreamBuild","t":%d}' % (bg, file, line - 1, t))
                out.append('{"ev":"spawn","task":%d,"ctx":%d,"group":0,"scope":0,"detached_from":%d,"name":"stream %d",'
                           '"file":"%s","line":%d,"func":"StreamBuild","t":%d}' % (task, bg, scope, task_no, file, line, t))
                out.append('{"ev":"start","task":%d,"tid":%d,"t":%d}' % (task, 100 + task_no % 64, t + 10))
                if task_no % 100 != 0:
                    late.append('{"ev":"end","task":%d,"result":"ok","t":%%d}' % task)
                continue
            out.append('{"ev":"spawn","task":%d,"ctx":%d,"group":%d,"scope":%d,"detached_from":0,"name":"step %d",'
                       '"file":"%s","line":%d,"func":"ExecStep","t":%d}' % (task, gctx, group, scope, task_no, file, line, t))
            out.append('{"ev":"start","task":%d,"tid":%d,"t":%d}' % (task, 100 + task_no % 64, t + 10))
            ends.append(task)
        t += 100
        out.append('{"ev":"wait_begin","group":%d,"file":"/src/worker/cmd/exec.cpp","line":30,"func":"Exec","t":%d}'
                   % (group, t))
        for task in ends:
            t += 20
            out.append('{"ev":"end","task":%d,"result":"ok","t":%d}' % (task, t))
        t += 20
        out.append('{"ev":"wait_end","group":%d,"result":"ok","t":%d}' % (group, t))
        out.append('{"ev":"ctx_done","id":%d,"err":"canceled","t":%d}' % (gctx, t))
        t += 20
        out.append('{"ev":"scope_end","id":%d,"t":%d}' % (scope, t))
        for record in late:
            t += 500
            out.append(record % t)
        late = []
    t += 1000
    out.append('{"ev":"exit","status":0,"t":%d}' % t)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
