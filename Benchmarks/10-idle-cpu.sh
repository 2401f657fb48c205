#!/usr/bin/env bash
# Idle CPU: the event loop sleeping in epoll_wait for 5 s must accumulate < 10 ms of CPU.
# Measured from outside (utime+stime in /proc/PID/stat) as well as reported by the process.
set -euo pipefail
bin=${1:-.build/release/kiosk-player}
seconds=5
"$bin" bench idle --seconds "$seconds" &
pid=$!
sleep 1
start=$(awk '{print $14+$15}' /proc/$pid/stat)
sleep 3
end=$(awk '{print $14+$15}' /proc/$pid/stat)
wait $pid
ticks=$(getconf CLK_TCK)
echo "idle-cpu: /proc/$pid/stat utime+stime over 3 s of idling: $(( (end-start) * 1000 / ticks )) ms (clock tick $(( 1000 / ticks )) ms)"
