#!/usr/bin/env bash
# Manual check of the .deb (not part of `./run test`: it needs root, a mount
# namespace and a few minutes of cpack): builds the package in BUILD_DIR,
# lists it, then installs it with dpkg into a throw-away overlay of this
# machine's root (the host's /usr and dpkg database are untouched) and runs
# the installed `tether --version`, `pkg-config` and find_package lookups.
# Usage (as root): test/install/deb-check.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: deb-check.sh BUILD_DIR}" && pwd)"
(cd "$build" && cpack -G DEB >/dev/null)
deb="$(ls -t "$build"/tether_*.deb | head -n 1)"
dpkg-deb -I "$deb" | grep -E "Package|Version|Depends|Recommends"
dpkg-deb -c "$deb" | awk '{print $6}' | grep -E "bin/|\.a$|\.pc$|cmake/Tether/|models/|libTetherTidy"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
unshare -m bash -euo pipefail -c '
  s="$1"
  mount -t tmpfs tmpfs "$s"
  mkdir -p "$s/upper" "$s/work" "$s/root"
  mount -t overlay overlay -o "lowerdir=/,upperdir=$s/upper,workdir=$s/work" "$s/root"
  mount --bind /proc "$s/root/proc"; mount --bind /dev "$s/root/dev"
  cp "$2" "$s/root/tmp/tether.deb"
  chroot "$s/root" dpkg -i /tmp/tether.deb
  chroot "$s/root" tether --version
  chroot "$s/root" pkg-config --modversion --libs tether
  chroot "$s/root" ls /usr/lib/cmake/Tether
' deb-check "$scratch" "$deb"
