// libgpiod behind one interface. Debian 12 ships the v1 API (1.6); Raspberry Pi OS trixie ships v2 (2.x).
// The implementation is chosen at build time from the header in use (see kiosk_gpio.c).
#pragma once

/// 1 or 2: the libgpiod API major version this build was compiled against.
int kiosk_gpio_api_version(void);
/// The runtime libgpiod version string, e.g. "1.6.3".
const char *kiosk_gpio_library_version(void);
