// LD_PRELOAD library that counts, per thread, calls into the allocator and to pthread locks.
// KioskAudio looks up kiosk_alloc_counter_read() at start (kiosk_alloc_counter_lookup) and, when
// present, brackets the steady-state work of its audio threads with it. Build and use:
//
//   cc -O2 -shared -fPIC -o /tmp/libkiosk_alloc_counter.so Benchmarks/kiosk_alloc_counter.c -ldl
//   LD_PRELOAD=/tmp/libkiosk_alloc_counter.so kiosk-bench play FILE
//
// The real functions are glibc's __libc_* entry points (no dlsym, so no recursion) and, for the
// locks, RTLD_NEXT lookups made on first use.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));
static __thread uint64_t locks __attribute__((tls_model("initial-exec")));

void kiosk_alloc_counter_read(uint64_t *allocation_count, uint64_t *lock_count) {
    *allocation_count = allocations;
    *lock_count = locks;
}

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer) allocations++;
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    allocations++;
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

// Resolved on first use (a constructor could run after another library's first lock).
#define FORWARD(name, type, argument)                                     \
    int name(type argument) {                                             \
        static int (*real)(type);                                         \
        locks++;                                                          \
        if (!real) real = (int (*)(type))dlsym(RTLD_NEXT, #name);         \
        return real(argument);                                            \
    }

FORWARD(pthread_mutex_lock, pthread_mutex_t *, mutex)
FORWARD(pthread_mutex_trylock, pthread_mutex_t *, mutex)
FORWARD(pthread_rwlock_rdlock, pthread_rwlock_t *, lock)
FORWARD(pthread_rwlock_wrlock, pthread_rwlock_t *, lock)
FORWARD(sem_wait, sem_t *, semaphore)
