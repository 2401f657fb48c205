#!/usr/bin/env bash
# debian/changelog for one build: the version, the commit and its date (the repository's history
# is the real changelog; this names what the package was built from).
#
#   deploy/debian/changelog.sh VERSION SUITE
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$1
suite=$2
maintainer=$(sed -n 's/^Maintainer: //p' deploy/debian/control)
cat <<END
kiosk-player ($version) $suite; urgency=medium

  * Built from commit $(git rev-parse --short=12 HEAD); its history is the
    changelog.

 -- $maintainer  $(git log -1 --format=%cd --date=format:'%a, %d %b %Y %H:%M:%S %z')
END
