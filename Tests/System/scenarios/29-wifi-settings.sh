#!/bin/bash
# Wi-Fi: the box joins the network its settings file names, through the kernel's own 802.11 stack,
# and the phone page is reached over it. mac80211_hwsim makes two radios that hear each other:
# phy0/wlan0 is the box's; the other is the home's, moved into a network namespace "home" that
# runs hostapd (WPA2-PSK, "Home Net") and busybox's DHCP server, as a home router does.
#   1. kiosk-settings (the image's script, run as at boot) turns kiosk-settings.json's `wifi` into
#      wpa_supplicant-wlan0.conf: the name in hex, the passphrase as its PSK, nothing quoted;
#   2. wpa_supplicant with that file, as wpa_supplicant@wlan0.service runs it, joins "Home Net"
#      (iw's link, the handshake's CCMP keys); the box takes an address by DHCP (the image:
#      systemd-networkd);
#   3. from the home network, the phone page (kiosk-web, beside a running player): the page, the
#      API refused without a session, a pairing code asked for, said by the box, and paired;
#   4. a wrong password in the settings file: the script writes it, wpa_supplicant never
#      connects, and says why (the 4-way handshake; "WRONG_KEY").
# Skips where the kernel has no mac80211_hwsim.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop mac80211_hwsim
require_command hostapd wpa_supplicant wpa_passphrase iw ip busybox curl jq
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s, Beta 2 × 4 s

settings_script=$SYSTEST_REPO/deploy/image/rootfs/usr/lib/kiosk-image/kiosk-settings
home() { ip netns exec home "$@"; }
# Joined: the kernel's view (iw: associated with "Home Net") and wpa_supplicant's (the handshake).
joined() { iw dev wlan0 link | grep -q "SSID: Home Net" && grep -q "CTRL-EVENT-CONNECTED" "$SYSTEST_WORK/wpa_supplicant.log"; }

# The radios: the box's is the one named wlan0; the other goes to the home namespace.
box_phy=$(basename "$(readlink -f /sys/class/net/wlan0/phy80211)")
home_phy=""
for phy in /sys/class/ieee80211/*; do [ "$(basename "$phy")" = "$box_phy" ] || home_phy=$(basename "$phy"); done
must "two radios: $box_phy (wlan0, the box) and ${home_phy:-none} (the home)" test -n "$home_phy"
ip netns add home
# The namespace goes at the end (its radio returns to the guest) after what runs in it.
_systest_cleanup_wifi() {
    ip netns pids home 2>/dev/null | xargs -r kill 2>/dev/null
    snooze 0.5
    ip netns del home 2>/dev/null
    ip addr flush dev wlan0 2>/dev/null
}
trap '_systest_cleanup; _systest_cleanup_wifi' EXIT
must "the home radio moves into its namespace" iw phy "$home_phy" set netns name home
home_if=$(home ls /sys/class/net | grep -v '^lo$' | head -n 1)
home ip link set lo up
home ip link set "$home_if" up
home ip addr add 192.168.77.1/24 dev "$home_if"

# The home router: hostapd and a DHCP server for 192.168.77.100-150.
cat > "$SYSTEST_WORK/hostapd.conf" << EOF
interface=$home_if
driver=nl80211
ssid=Home Net
hw_mode=g
channel=6
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=correct horse battery
ctrl_interface=$SYSTEST_WORK/hostapd
EOF
spawn hostapd ip netns exec home hostapd "$SYSTEST_WORK/hostapd.conf"
must "hostapd serves \"Home Net\"" wait_for 20 "hostapd" grep -q "AP-ENABLED" "$SYSTEST_WORK/hostapd.log"
cat > "$SYSTEST_WORK/udhcpd.conf" << EOF
start 192.168.77.100
end 192.168.77.150
interface $home_if
lease_file $SYSTEST_WORK/udhcpd.leases
option subnet 255.255.255.0
option router 192.168.77.1
EOF
touch "$SYSTEST_WORK/udhcpd.leases"
spawn udhcpd ip netns exec home busybox udhcpd -f "$SYSTEST_WORK/udhcpd.conf"

# 1. the settings file, as a parent writes it on the boot partition
settings() {
    mkdir -p "$SYSTEST_WORK/boot" "$SYSTEST_WORK/settings-state" "$SYSTEST_WORK/settings-run"
    cat > "$SYSTEST_WORK/boot/kiosk-settings.json" << EOF
{ "system": { "wifi": { "name": "Home Net", "password": "$1", "country": "DE" } } }
EOF
    KIOSK_SETTINGS=$SYSTEST_WORK/boot/kiosk-settings.json KIOSK_SETTINGS_STATE=$SYSTEST_WORK/settings-state \
        KIOSK_SETTINGS_RUN=$SYSTEST_WORK/settings-run KIOSK_PLAYER=$SYSTEST_PLAYER KIOSK_SETTINGS_HOSTNAME=true \
        KIOSK_SETTINGS_SYSTEMCTL=true KIOSK_SETTINGS_REMOUNT=true \
        KIOSK_SETTINGS_BASE=$SYSTEST_REPO/deploy/image/rootfs/usr/share/kiosk-image/config-base.json \
        sh "$settings_script" apply > "$SYSTEST_WORK/settings.log" 2>&1
}
must "kiosk-settings applies the settings file" settings "correct horse battery"
conf=$SYSTEST_WORK/settings-run/wpa_supplicant-wlan0.conf
log "$(grep -v psk= "$conf" | tr '\n' ' ')"
check "the network's name is written in hex" grep -qx "    ssid=$(printf 'Home Net' | od -An -tx1 | tr -d ' \n')" "$conf"
check "the passphrase is written as its PSK, not as text" \
    sh -c 'grep -Eqx "    psk=[0-9a-f]{64}" "$1" && ! grep -q "horse" "$1"' _ "$conf"
check "the country is set" grep -qx "country=DE" "$conf"

# 2. wpa_supplicant as its unit runs it (the control socket in the work folder instead of /run)
join() {
    sed "s|^ctrl_interface=.*|ctrl_interface=$SYSTEST_WORK/wpa|" "$conf" > "$SYSTEST_WORK/wpa.conf" || return 1
    spawn wpa_supplicant wpa_supplicant -Dnl80211 -i wlan0 -c "$SYSTEST_WORK/wpa.conf"
    WPA_PID=$SPAWNED_PID
    wait_for 10 "wpa_supplicant's start" grep -q "Successfully initialized" "$SYSTEST_WORK/wpa_supplicant.log"
}
leave() {
    kill "$WPA_PID" 2>/dev/null
    wait "$WPA_PID" 2>/dev/null
    ip addr flush dev wlan0
}
ip link set wlan0 up
must "wpa_supplicant starts with the file kiosk-settings wrote" join
must "the box joins \"Home Net\"" wait_for 30 "CTRL-EVENT-CONNECTED" joined
check "with WPA2 (the 4-way handshake, CCMP keys)" \
    grep -q "WPA: Key negotiation completed with .* \[PTK=CCMP GTK=CCMP\]" "$SYSTEST_WORK/wpa_supplicant.log"
log "$(iw dev wlan0 link | tr '\n\t' '  ')"
busybox udhcpc -i wlan0 -n -q -t 10 -s "$SYSTEST_REPO/Tests/System/tools/udhcpc-script.sh" > "$SYSTEST_WORK/udhcpc.log" 2>&1
box_ip=$(ip -4 -o addr show dev wlan0 | awk '{ print $4 }' | cut -d/ -f1)
must "the box has an address from the home's DHCP server (${box_ip:-none})" \
    sh -c 'case "$1" in 192.168.77.1[0-4][0-9] | 192.168.77.150) exit 0 ;; *) exit 1 ;; esac' _ "$box_ip"

# 3. the phone page from the home network
socket=$SYSTEST_WORK/mpd.socket
player_stick "$FIXTURE/stick.img" KIOSKLIB || fail "the stick"
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" "\"mpd\": { \"socket\": \"$socket\" }, \"web\": { \"enabled\": true }"
player_start "$CONFIG"
must "the player's MPD socket listens" wait_for 30 "mpd.socket" test -S "$socket"
cat > "$SYSTEST_WORK/web.json" << EOF
{ "web": { "enabled": true, "port": 8080 }, "mpd": { "socket": "$socket" } }
EOF
spawn web "$(dirname "$SYSTEST_PLAYER")/kiosk-web" --config "$SYSTEST_WORK/web.json"
page=http://$box_ip:8080
must "the page answers on the box's Wi-Fi address" wait_for 30 "kiosk-web" home curl -sf -o /dev/null "$page/"
check "the home network gets the page" sh -c 'ip netns exec home curl -sf "$1/" | grep -q "<title>"' _ "$page"
check "the API without a session is refused (401)" \
    test "$(home curl -s -o /dev/null -w '%{http_code}' "$page/api/status")" = 401
jar=$SYSTEST_WORK/cookies
home curl -sf -o /dev/null -c "$jar" -H 'Content-Type: application/json' -d '{}' "$page/api/pair/code"
must "the box shows and says a pairing code" wait_for 20 "the code" player_log_has 'pairing code [0-9]{6} shown'
code=$(grep -Eo 'pairing code [0-9]{6}' "$SYSTEST_WORK/player.log" | tail -n 1 | awk '{ print $3 }')
answer=$(home curl -s -c "$jar" -H 'Content-Type: application/json' -d "{\"code\": \"$code\"}" "$page/api/pair")
check "the code pairs a phone on the home network" sh -c 'printf "%s" "$1" | jq -e .csrf > /dev/null' _ "$answer"
check "the paired phone reads the box's status" sh -c 'ip netns exec home curl -sf -b "$2" "$1/api/status" | jq -e .volume > /dev/null' \
    _ "$page" "$jar"
must "the player stops cleanly" player_stop

# 4. a wrong password
leave
must "kiosk-settings writes the wrong password too (it cannot know)" settings "wrong horse battery"
must "wpa_supplicant starts" join
check "with the wrong password the box never joins" \
    not wait_for 20 "CTRL-EVENT-CONNECTED" joined
check "wpa_supplicant says why (the 4-way handshake, WRONG_KEY)" \
    wait_for 20 "WRONG_KEY" grep -q "WRONG_KEY" "$SYSTEST_WORK/wpa_supplicant.log"
leave
finish
