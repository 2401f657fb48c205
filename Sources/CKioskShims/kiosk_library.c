// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include "kiosk_library.h"

#include <sys/resource.h>
#include <unistd.h>

int kiosk_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)gettid(), nice); }

#include <signal.h>
#include <string.h>

static const int journal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
#define JOURNAL_SIGNALS (int)(sizeof journal_signals / sizeof journal_signals[0])
static struct sigaction journal_previous[JOURNAL_SIGNALS];
static __thread int journal_fd = -1;
static __thread long long journal_offset;

static void journal_on_fault(int sig, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    if (journal_fd >= 0) {
        // The slot's first byte: 2 = "the process died while this thread read the slot's file".
        static const unsigned char crashed = 2;
        (void)pwrite(journal_fd, &crashed, 1, (off_t)journal_offset);
        journal_fd = -1;
    }
    // Back to the handler before ours; a fault re-executes the faulting instruction and reaches it,
    // an abort (or a raised signal) is raised again.
    for (int i = 0; i < JOURNAL_SIGNALS; i++) {
        if (journal_signals[i] == sig) {
            sigaction(sig, &journal_previous[i], NULL);
            break;
        }
    }
    if (sig == SIGABRT || (info != NULL && info->si_code <= 0)) raise(sig);
}

int kiosk_read_journal_install_crash_handler(void) {
    static int installed;
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = journal_on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < JOURNAL_SIGNALS; i++) {
        if (sigaction(journal_signals[i], &action, &journal_previous[i]) != 0) return -1;
    }
    return 0;
}

void kiosk_read_journal_enter(int fd, long long offset) {
    journal_offset = offset;
    journal_fd = fd;
}

void kiosk_read_journal_leave(void) { journal_fd = -1; }
