#!/bin/sh
# busybox udhcpc's event script for the system test: the lease's address on the interface (what
# systemd-networkd does on the image). udhcpc passes the event as $1 and the lease in the environment.
case "$1" in
    deconfig) ip -4 addr flush dev "$interface" ;;
    bound | renew) ip -4 addr flush dev "$interface" && ip addr add "$ip/${mask:-24}" dev "$interface" ;;
esac
exit 0
