// SPDX-License-Identifier: GPL-3.0-or-later
// BlueZ's D-Bus API (org.bluez Adapter1, Device1, AgentManager1, MediaTransport1) and bluez-alsa's
// bus name, through libsystemd's sd-bus. Every call is made on the thread that owns the handle;
// the long ones (Pair, Connect) are asynchronous, so that the handle's thread keeps answering
// bluetoothd's calls to the agent meanwhile (kiosk_bt_run).
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct kiosk_bt kiosk_bt;

/// One device of the adapter, as Device1's properties and the transports under it say.
typedef struct {
    char address[18];
    char name[64];
    int paired;
    int trusted;
    int connected;
    /// Advertises an audio sink (A2DP sink UUID 0x110b, or the Class of Device's Audio/Video major class).
    int audio_sink;
    /// A MediaTransport1 exists under the device (the A2DP stream is configured: bluez-alsa's PCM).
    int transport;
} kiosk_bt_device;

/// Connects to the system bus and finds `adapter` ("hci0"); with `agent` set, registers a
/// NoInputNoOutput pairing agent as the default one. NULL with `err` on failure.
kiosk_bt *kiosk_bt_open(const char *adapter, int agent, char *err, size_t errlen);
void kiosk_bt_close(kiosk_bt *bt);
/// The adapter's address and whether it is powered (0) or an error (-1, `err`).
int kiosk_bt_adapter(kiosk_bt *bt, char address[18], int *powered, int *discovering, char *err, size_t errlen);
int kiosk_bt_set_powered(kiosk_bt *bt, int on, char *err, size_t errlen);
int kiosk_bt_discovery(kiosk_bt *bt, int on, char *err, size_t errlen);
/// Up to `max` devices of the adapter; the count, or -1 (`err`).
int kiosk_bt_devices(kiosk_bt *bt, kiosk_bt_device *out, int max, char *err, size_t errlen);
int kiosk_bt_set_trusted(kiosk_bt *bt, const char *address, int on, char *err, size_t errlen);
/// Device1.`method` ("Pair", "Connect", "Disconnect") on `address`, asynchronously (one at a time):
/// 0 started, -1 (`err`).
int kiosk_bt_call(kiosk_bt *bt, const char *address, const char *method, uint64_t timeout_usec, char *err, size_t errlen);
/// The call started last: 1 still running, 0 done, -1 failed (`err`), -2 none started.
int kiosk_bt_call_result(kiosk_bt *bt, char *err, size_t errlen);
/// Answers what the bus brought (the agent's calls, the replies), then waits up to `usec` for more.
int kiosk_bt_run(kiosk_bt *bt, uint64_t usec);
/// Whether `name` has an owner on the bus ("org.bluealsa"): 1, 0, or -1 (`err`).
/// (its own connection to the system bus, opened and closed).
int kiosk_bus_name_has_owner(const char *name, char *err, size_t errlen);
