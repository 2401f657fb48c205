#!/usr/bin/env bash
# The package version, from `git describe`: a tag vX.Y.Z gives X.Y.Z, N commits after it
# X.Y.Z+git<N>.<hash>; with no tag yet, 0.1.0~git<commit date>.<hash> (a shallow clone has no tags to
# count from either). "+dirty" marks a build from a work tree with uncommitted changes.
set -euo pipefail
cd "$(dirname "$0")/../.."
dirty=''
git diff --quiet HEAD 2>/dev/null || dirty='+dirty'
if described=$(git describe --tags --match 'v[0-9]*' --long 2>/dev/null); then
    # v1.2.3-4-gabcdef0
    base=${described%-*-g*}
    base=${base#v}
    count=${described%-g*}
    count=${count##*-}
    hash=${described##*-g}
    if [ "$count" = 0 ]; then echo "$base$dirty"; else echo "$base+git$count.$hash$dirty"; fi
else
    echo "0.1.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=7 HEAD)$dirty"
fi
