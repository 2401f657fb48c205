/* Stand-in for kiosk-player in the boot-time measurement: tells systemd READY=1 from the main
 * process (Type=notify, NotifyAccess=main), pings the watchdog, and otherwise sleeps. Any other
 * command (install.sh's `check-config … --library-directories` through kiosk-library-dropin)
 * succeeds at once with nothing to say, as the player does for a config without such folders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void notify(const char *message) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL) return;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
    if (address.sun_path[0] == '@') address.sun_path[0] = 0;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    sendto(fd, message, strlen(message), 0, (struct sockaddr *)&address, sizeof(address));
    close(fd);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "run") != 0) return 0;
    notify("READY=1\nSTATUS=boot-time stand-in");
    for (;;) { sleep(5); notify("WATCHDOG=1"); }
}
