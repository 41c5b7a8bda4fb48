#!/usr/bin/env bash
# Proves the README's "Adding Doppel to a package": builds a consumer package whose Package.swift
# is the README's block (the URL swapped for this checkout's path), runs its tests (the trait,
# Backend.current, a ManualClock, the XCTest helpers), and checks that it resolved no package
# other than Doppel.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -R .ci/consumer/. "$work/"

# The first ```swift block after the consumer-package marker, with the package URL swapped.
python3 - "$root" "$work/Package.swift" <<'PY'
import re, sys
root, out = sys.argv[1], sys.argv[2]
text = open(f"{root}/README.md", encoding="utf-8").read()
marker = text.index("consumer-package:")
block = re.search(r"```swift\n(.*?)```", text[marker:], re.S).group(1)
url = '.package(url: "https://github.com/doppel-swift/Doppel.git", from: "0.2.0")'
if url not in block:
    sys.exit(f"README.md: the consumer-package block no longer holds {url}")
open(out, "w", encoding="utf-8").write(block.replace(url, f'.package(name: "Doppel", path: "{root}")'))
PY

swift build --package-path "$work" --build-tests 2>&1 | tail -n 3
swift test --package-path "$work" 2>&1 | tail -n 4

checkouts="$(ls "$work/.build/checkouts" 2>/dev/null || true)"
if [ -n "$checkouts" ]; then
  echo "A package that depends on Doppel (no traits) checked out other packages: $checkouts" >&2
  exit 1
fi
# The example app and the benchmarks are executable targets of Doppel's own (SwiftPM runs them in
# this repository), not products: a consumer that names one must be refused.
mkdir -p "$work/probe/Sources/probe"
echo 'print("probe")' >"$work/probe/Sources/probe/main.swift"
cat >"$work/probe/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription
let package = Package(
  name: "probe", dependencies: [.package(name: "Doppel", path: "$root")],
  targets: [.executableTarget(name: "probe", dependencies: [.product(name: "catfancy", package: "Doppel")])])
SWIFT
if probe="$(swift build --package-path "$work/probe" 2>&1)"; then
  echo "A consumer can name the example app (catfancy) as a product of Doppel: it must not be one." >&2
  exit 1
fi
if ! grep -q "product 'catfancy' required by package 'probe' target 'probe' not found in package 'Doppel'" <<<"$probe"; then
  echo "A consumer naming catfancy failed for another reason than its not being a product:" >&2
  echo "$probe" >&2
  exit 1
fi
echo "The consumer package builds, its tests pass, it resolved no package but Doppel, and catfancy is no product of Doppel's."
