#define _GNU_SOURCE
#include "kiosk_library.h"

#include <sys/resource.h>
#include <unistd.h>

int kiosk_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)gettid(), nice); }
