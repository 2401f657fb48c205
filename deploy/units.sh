# shellcheck shell=bash
# Reads deploy/units.list, the one list of the systemd units KioskPlayer installs. Sourced by
# install.sh, check-units.sh and the install/.deb tests.
#   kiosk_units [enable|static]: the unit names, all or those of one kind, one a line.
kiosk_units_list=${kiosk_units_list:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/units.list}
kiosk_units() {
    awk -v kind="${1:-}" '!/^[[:space:]]*(#|$)/ && (kind == "" || $2 == kind) { print $1 }' "$kiosk_units_list"
}
