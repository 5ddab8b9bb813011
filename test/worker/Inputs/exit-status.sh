#!/bin/sh
# exit-status.sh CMD ARGS...: runs CMD and prints "exit=<status>" (always
# exits 0), so a test can check an exact exit status with FileCheck.
"$@"
echo "exit=$?"
