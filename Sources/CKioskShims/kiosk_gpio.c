#include "kiosk_gpio.h"

#include <gpiod.h>

// libgpiod v1 defines GPIOD_LINE_BULK_MAX_LINES; v2 removed struct gpiod_line and the bulk API.
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define KIOSK_GPIOD_V1 1
#else
#define KIOSK_GPIOD_V2 1
#endif

int kiosk_gpio_api_version(void) {
#if KIOSK_GPIOD_V1
    return 1;
#else
    return 2;
#endif
}

const char *kiosk_gpio_library_version(void) {
#if KIOSK_GPIOD_V1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}
