#!/usr/bin/env bash
# Prints the `swift test` arguments that skip every test tagged `integration` (`--skip REGEX` pairs),
# for `make test-unit`. Neither swift-testing 6.0.3 (Debian's, for the arm64 build) nor 6.3.1 filters by
# tag from the command line: `--skip` matches a regular expression against test IDs
# ("Module.Suite/test(label:)"). So the IDs are read from the sources: a `.tags(.integration)` in an
# attribute applies to the next declaration — a top-level suite type (all its tests) or a `func`
# (one test, in the last top-level type above it).
set -euo pipefail
cd "$(dirname "$0")"
status=0
for file in Kiosk*Tests/*.swift; do
    module=${file%%/*}
    awk -v module="$module" -v file="$file" '
        /^(@Suite.*)?(public |final |private |fileprivate )*(struct|class|enum|extension) [A-Za-z_]+/ {
            line = $0
            sub(/^@Suite(\([^)]*\))? */, "", line)
            n = split(line, words, /[ :{<(]+/)
            for (i = 1; i <= n; i++) if (words[i] ~ /^(struct|class|enum|extension)$/) { suite = words[i + 1]; break }
            if (pending) { print "--skip"; print module "\\." suite "/"; pending = 0 }
        }
        /^[ \t]+(@Test.*)?(static |private |fileprivate |mutating )*func [A-Za-z_]+/ && pending {
            name = $0
            sub(/.*func /, "", name)
            sub(/[(<].*/, "", name)
            print "--skip"; print module "\\." suite "/" name "\\("
            pending = 0
        }
        /\.tags\(([^)]*, *)?\.integration[,)]/ {
            if (pending) { print file ":" NR ": .integration tag before the last one applied" > "/dev/stderr"; exit 1 }
            pending = 1
            # A tag in a type-level @Suite on the declaration line itself applies at once.
            if ($0 ~ /^@Suite.*(struct|class|enum) [A-Za-z_]+/) {
                line = $0
                sub(/.*(struct|class|enum) /, "", line)
                sub(/[ :{<(].*/, "", line)
                print "--skip"; print module "\\." line "/"
                pending = 0
            } else if ($0 ~ /@Test.*func [A-Za-z_]+/) {
                name = $0
                sub(/.*func /, "", name)
                sub(/[(<].*/, "", name)
                print "--skip"; print module "\\." suite "/" name "\\("
                pending = 0
            }
        }
        END { if (pending) { print file ": .integration tag with no declaration after it" > "/dev/stderr"; exit 1 } }
    ' "$file" || status=1
done
exit $status
