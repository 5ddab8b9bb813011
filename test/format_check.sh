#!/usr/bin/env bash
# The product code (lib/, tool/, worker-reference/) is formatted as .clang-format
# says: clang-format-16 --dry-run -Werror on every tracked C++ source and header
# there, one line per file that is not. Test inputs, fuzz corpora and third-party
# code are not checked. Fix with: clang-format-16 -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'lib/*.cpp' 'lib/*.hpp' 'lib/*.h' 'tool/*.cpp' 'tool/*.hpp' \
  'worker-reference/*.cpp' 'worker-reference/*.hpp')
if [[ ${#files[@]} -eq 0 ]]; then
  echo "format: no product sources found (not a git checkout?)" >&2
  exit 2
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format-16 --dry-run -Werror "$f" 2>/dev/null; then
    echo "format: $f differs from .clang-format (clang-format-16 -i $f)" >&2
    bad=$((bad + 1))
  fi
done
echo "format: ${#files[@]} files checked, $bad not formatted" >&2
[[ $bad -eq 0 ]]
