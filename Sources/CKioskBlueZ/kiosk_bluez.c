// SPDX-License-Identifier: GPL-3.0-or-later
// BlueZ through sd-bus: see include/kiosk_bluez.h. The object paths and interfaces are BlueZ's
// documented D-Bus API (doc/adapter-api.txt, device-api.txt, agent-api.txt, media-api.txt).
#include "kiosk_bluez.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define BLUEZ "org.bluez"
#define AGENT_PATH "/org/kioskplayer/agent"
#define A2DP_SINK_UUID "0000110b-0000-1000-8000-00805f9b34fb"

struct kiosk_bt {
    sd_bus *bus;
    char adapter_path[32];
    sd_bus_slot *agent_slot;
    sd_bus_slot *call_slot;
    /// 1 running, 0 done, -1 failed, -2 none.
    int call_state;
    char call_error[160];
};

static void say(char *err, size_t errlen, const char *what, int r, const sd_bus_error *e) {
    if (!err || errlen == 0) return;
    if (e && sd_bus_error_is_set(e))
        snprintf(err, errlen, "%s: %s", what, e->message ? e->message : e->name);
    else
        snprintf(err, errlen, "%s: %s", what, strerror(r < 0 ? -r : r));
}

static void device_path(const kiosk_bt *bt, const char *address, char *out, size_t n) {
    snprintf(out, n, "%s/dev_%s", bt->adapter_path, address);
    for (char *p = out + strlen(bt->adapter_path); *p; p++)
        if (*p == ':') *p = '_';
}

// MARK: the agent: pairing without a display or keys (Just Works), every service authorized

static int agent_ok(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)userdata;
    (void)e;
    return sd_bus_reply_method_return(m, "");
}

static int agent_pin(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)userdata;
    (void)e;
    // Old headphones without Secure Simple Pairing ask for a PIN: theirs is almost always 0000.
    return sd_bus_reply_method_return(m, "s", "0000");
}

static int agent_passkey(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)userdata;
    (void)e;
    return sd_bus_reply_method_return(m, "u", (uint32_t)0);
}

static const sd_bus_vtable agent_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Release", "", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RequestPinCode", "o", "s", agent_pin, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("DisplayPinCode", "os", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RequestPasskey", "o", "u", agent_passkey, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("DisplayPasskey", "ouq", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RequestConfirmation", "ou", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RequestAuthorization", "o", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("AuthorizeService", "os", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Cancel", "", "", agent_ok, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

// MARK: open, close

kiosk_bt *kiosk_bt_open(const char *adapter, int agent, char *err, size_t errlen) {
    kiosk_bt *bt = calloc(1, sizeof *bt);
    if (!bt) {
        say(err, errlen, "out of memory", ENOMEM, NULL);
        return NULL;
    }
    bt->call_state = -2;
    snprintf(bt->adapter_path, sizeof bt->adapter_path, "/org/bluez/%s", adapter);
    int r = sd_bus_open_system(&bt->bus);
    if (r < 0) {
        say(err, errlen, "cannot connect to the system bus", r, NULL);
        free(bt);
        return NULL;
    }
    char address[18];
    int powered, discovering;
    if (kiosk_bt_adapter(bt, address, &powered, &discovering, err, errlen) < 0) {
        kiosk_bt_close(bt);
        return NULL;
    }
    if (agent) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        r = sd_bus_add_object_vtable(bt->bus, &bt->agent_slot, AGENT_PATH, "org.bluez.Agent1", agent_vtable, bt);
        if (r >= 0)
            r = sd_bus_call_method(bt->bus, BLUEZ, "/org/bluez", "org.bluez.AgentManager1", "RegisterAgent", &e, NULL,
                                   "os", AGENT_PATH, "NoInputNoOutput");
        if (r >= 0)
            r = sd_bus_call_method(bt->bus, BLUEZ, "/org/bluez", "org.bluez.AgentManager1", "RequestDefaultAgent", &e,
                                   NULL, "o", AGENT_PATH);
        if (r < 0) {
            say(err, errlen, "cannot register the pairing agent", r, &e);
            sd_bus_error_free(&e);
            kiosk_bt_close(bt);
            return NULL;
        }
    }
    return bt;
}

void kiosk_bt_close(kiosk_bt *bt) {
    if (!bt) return;
    sd_bus_slot_unref(bt->call_slot);
    sd_bus_slot_unref(bt->agent_slot);
    sd_bus_flush_close_unref(bt->bus);
    free(bt);
}

// MARK: properties

static int get_bool(kiosk_bt *bt, const char *path, const char *iface, const char *prop, int *out, sd_bus_error *e) {
    sd_bus_message *reply = NULL;
    int r = sd_bus_get_property(bt->bus, BLUEZ, path, iface, prop, e, &reply, "b");
    if (r >= 0) r = sd_bus_message_read(reply, "b", out);
    sd_bus_message_unref(reply);
    return r;
}

int kiosk_bt_adapter(kiosk_bt *bt, char address[18], int *powered, int *discovering, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    char *text = NULL;
    int r = sd_bus_get_property_string(bt->bus, BLUEZ, bt->adapter_path, "org.bluez.Adapter1", "Address", &e, &text);
    if (r >= 0) {
        snprintf(address, 18, "%s", text);
        free(text);
        r = get_bool(bt, bt->adapter_path, "org.bluez.Adapter1", "Powered", powered, &e);
    }
    if (r >= 0) r = get_bool(bt, bt->adapter_path, "org.bluez.Adapter1", "Discovering", discovering, &e);
    if (r < 0) {
        char what[64];
        snprintf(what, sizeof what, "no adapter %s", bt->adapter_path + strlen("/org/bluez/"));
        say(err, errlen, what, r, &e);
    }
    sd_bus_error_free(&e);
    return r < 0 ? -1 : 0;
}

int kiosk_bt_set_powered(kiosk_bt *bt, int on, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_set_property(bt->bus, BLUEZ, bt->adapter_path, "org.bluez.Adapter1", "Powered", &e, "b", on);
    if (r < 0) say(err, errlen, "cannot power the adapter", r, &e);
    sd_bus_error_free(&e);
    return r < 0 ? -1 : 0;
}

int kiosk_bt_discovery(kiosk_bt *bt, int on, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bt->bus, BLUEZ, bt->adapter_path, "org.bluez.Adapter1",
                               on ? "StartDiscovery" : "StopDiscovery", &e, NULL, "");
    // Stopping a discovery that another client, or none, started is not a failure.
    if (r < 0 && !on) r = 0;
    if (r < 0) say(err, errlen, "cannot start discovery", r, &e);
    sd_bus_error_free(&e);
    return r < 0 ? -1 : 0;
}

int kiosk_bt_set_trusted(kiosk_bt *bt, const char *address, int on, char *err, size_t errlen) {
    char path[64];
    device_path(bt, address, path, sizeof path);
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_set_property(bt->bus, BLUEZ, path, "org.bluez.Device1", "Trusted", &e, "b", on);
    if (r < 0) say(err, errlen, "cannot trust the device", r, &e);
    sd_bus_error_free(&e);
    return r < 0 ? -1 : 0;
}

// MARK: the devices: ObjectManager.GetManagedObjects, a{oa{sa{sv}}}

/// Reads one Device1 property dictionary (a{sv}) into `d`.
static int read_device(sd_bus_message *m, kiosk_bt_device *d) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    uint32_t class_of_device = 0;
    int have_name = 0;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0) return r;
        const char *s;
        int b;
        if (!strcmp(key, "Address") || !strcmp(key, "Alias") || !strcmp(key, "Name")) {
            if ((r = sd_bus_message_read(m, "v", "s", &s)) < 0) return r;
            if (!strcmp(key, "Address"))
                snprintf(d->address, sizeof d->address, "%s", s);
            else if (!strcmp(key, "Alias") || !have_name) {
                snprintf(d->name, sizeof d->name, "%s", s);
                have_name = 1;
            }
        } else if (!strcmp(key, "Paired") || !strcmp(key, "Trusted") || !strcmp(key, "Connected")) {
            if ((r = sd_bus_message_read(m, "v", "b", &b)) < 0) return r;
            if (!strcmp(key, "Paired")) d->paired = b;
            if (!strcmp(key, "Trusted")) d->trusted = b;
            if (!strcmp(key, "Connected")) d->connected = b;
        } else if (!strcmp(key, "Class")) {
            if ((r = sd_bus_message_read(m, "v", "u", &class_of_device)) < 0) return r;
        } else if (!strcmp(key, "UUIDs")) {
            if ((r = sd_bus_message_enter_container(m, 'v', "as")) < 0) return r;
            if ((r = sd_bus_message_enter_container(m, 'a', "s")) < 0) return r;
            while ((r = sd_bus_message_read(m, "s", &s)) > 0)
                if (!strcasecmp(s, A2DP_SINK_UUID)) d->audio_sink = 1;
            if (r < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    // Class of Device: major class 4 is Audio/Video (headphones, loudspeakers).
    if (((class_of_device >> 8) & 0x1f) == 4) d->audio_sink = 1;
    return sd_bus_message_exit_container(m);
}

int kiosk_bt_devices(kiosk_bt *bt, kiosk_bt_device *out, int max, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int count = 0;
    int r = sd_bus_call_method(bt->bus, BLUEZ, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", &e,
                               &reply, "");
    if (r < 0) goto done;
    if ((r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}")) < 0) goto done;
    // Transports found before their device is listed (the order is the daemon's), by path.
    char transports[32][64];
    int ntransports = 0;
    size_t prefix = strlen(bt->adapter_path);
    while ((r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
        const char *path;
        if ((r = sd_bus_message_read(reply, "o", &path)) < 0) goto done;
        int ours = !strncmp(path, bt->adapter_path, prefix) && path[prefix] == '/';
        if ((r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}")) < 0) goto done;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
            const char *iface;
            if ((r = sd_bus_message_read(reply, "s", &iface)) < 0) goto done;
            if (ours && !strcmp(iface, "org.bluez.Device1") && count < max) {
                memset(&out[count], 0, sizeof out[count]);
                if ((r = read_device(reply, &out[count])) < 0) goto done;
                count++;
            } else {
                if (ours && !strcmp(iface, "org.bluez.MediaTransport1") && ntransports < 32)
                    snprintf(transports[ntransports++], 64, "%s", path);
                if ((r = sd_bus_message_skip(reply, "a{sv}")) < 0) goto done;
            }
            if ((r = sd_bus_message_exit_container(reply)) < 0) goto done;
        }
        if (r < 0) goto done;
        if ((r = sd_bus_message_exit_container(reply)) < 0) goto done;
        if ((r = sd_bus_message_exit_container(reply)) < 0) goto done;
    }
    if (r < 0) goto done;
    for (int i = 0; i < count; i++) {
        char path[64];
        device_path(bt, out[i].address, path, sizeof path);
        size_t n = strlen(path);
        for (int t = 0; t < ntransports; t++)
            if (!strncmp(transports[t], path, n) && transports[t][n] == '/') out[i].transport = 1;
    }
    r = 0;
done:
    if (r < 0) say(err, errlen, "cannot list the devices", r, &e);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r < 0 ? -1 : count;
}

// MARK: the long calls

static int call_done(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    kiosk_bt *bt = userdata;
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (e) {
        snprintf(bt->call_error, sizeof bt->call_error, "%s", e->message ? e->message : e->name);
        bt->call_state = -1;
    } else {
        bt->call_state = 0;
    }
    bt->call_slot = sd_bus_slot_unref(bt->call_slot);
    return 0;
}

int kiosk_bt_call(kiosk_bt *bt, const char *address, const char *method, uint64_t timeout_usec, char *err,
                  size_t errlen) {
    char path[64];
    device_path(bt, address, path, sizeof path);
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_method_call(bt->bus, &m, BLUEZ, path, "org.bluez.Device1", method);
    if (r >= 0) {
        bt->call_slot = sd_bus_slot_unref(bt->call_slot);
        r = sd_bus_call_async(bt->bus, &bt->call_slot, m, call_done, bt, timeout_usec);
    }
    sd_bus_message_unref(m);
    if (r < 0) {
        char what[48];
        snprintf(what, sizeof what, "cannot call %s", method);
        say(err, errlen, what, r, NULL);
        return -1;
    }
    bt->call_state = 1;
    bt->call_error[0] = 0;
    return 0;
}

int kiosk_bt_call_result(kiosk_bt *bt, char *err, size_t errlen) {
    if (bt->call_state == -1 && err && errlen) snprintf(err, errlen, "%s", bt->call_error);
    return bt->call_state;
}

int kiosk_bt_run(kiosk_bt *bt, uint64_t usec) {
    int r;
    while ((r = sd_bus_process(bt->bus, NULL)) > 0) {
    }
    if (r < 0) return r;
    r = sd_bus_wait(bt->bus, usec);
    if (r < 0) return r;
    while ((r = sd_bus_process(bt->bus, NULL)) > 0) {
    }
    return r;
}

int kiosk_bus_name_has_owner(const char *name, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    sd_bus *bus = NULL;
    int has = 0;
    int r = sd_bus_open_system(&bus);
    if (r < 0) {
        say(err, errlen, "cannot connect to the system bus", r, NULL);
        return -1;
    }
    r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &e, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "b", &has);
    if (r < 0) say(err, errlen, "cannot ask the bus", r, &e);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    sd_bus_flush_close_unref(bus);
    return r < 0 ? -1 : has;
}
