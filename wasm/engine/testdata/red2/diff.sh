#!/bin/sh
# Runs the red2 attack tests on this checkout and on a checkout of BASE
# (main by default) and prints the cases whose verdicts differ, and each
# run's failing tests. Run from the repository's root:
#   sh wasm/engine/testdata/red2/diff.sh [BASE]
set -eu
base=${1:-main}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
mkdir -p "$tmp/base/wasm/engine/testdata/red2"
cp "$root"/wasm/engine/attack_red2_*_test.go "$tmp/base/wasm/engine/"
cp "$root"/wasm/engine/testdata/red2/* "$tmp/base/wasm/engine/testdata/red2/"
for side in base head; do
	dir=$root
	[ "$side" = base ] && dir=$tmp/base
	(cd "$dir" && R2_VERDICTS="$tmp/$side.txt" go test -tags attack -run 'TestRed2' -v ./wasm/engine 2>&1 |
		grep -E '^\s*--- FAIL' | sed 's/ (.*//' | sort >"$tmp/$side.fail") || true
done
echo "== corpus verdicts, $base (<) against this checkout (>)"
diff "$tmp/base.txt" "$tmp/head.txt" || true
echo "== failing tests, $base (<) against this checkout (>)"
diff "$tmp/base.fail" "$tmp/head.fail" || true
