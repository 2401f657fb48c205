// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// The one seam between KioskPlayer and the kernel: every raw system call goes through here.
///
/// Each wrapper retries on `EINTR` (in `retrying`), throws `Errno` on failure and says which C
/// function it calls. Thread: all functions may be called from any thread.
public enum Syscalls {
    /// Runs `body` until it does not fail with EINTR. `body` returns -1 and sets errno on failure.
    /// The one place that retries EINTR: a call site outside `Syscalls` that makes its own C call
    /// (a shim, a callback of a C library) wraps it in this rather than looping itself.
    @inlinable
    public static func retrying<T: BinaryInteger>(_ what: @autoclosure () -> String, _ body: () -> T) throws(Errno) -> T
    {
        while true {
            let rc = body()
            if rc != -1 { return rc }
            let e = errno
            if e == EINTR { continue }
            throw Errno(rawValue: e, context: what())
        }
    }

    /// Calls `body` with `path`'s bytes; when that fails (`failed`, errno set) because the path's
    /// UTF-8 does not exist, once more with its `DiskName.legacyPath` (a name written in
    /// Windows-1252), if there is one. errno is that of the last call made.
    static func onDisk<T>(_ path: String, failed: (T) -> Bool, _ body: (UnsafePointer<CChar>) -> T) -> T {
        let first = path.withCString(body)
        guard failed(first) else { return first }
        let e = errno
        guard e == ENOENT || e == ENOTDIR, let legacy = DiskName.legacyPath(path) else {
            errno = e  // legacyPath's lstat calls may have changed it
            return first
        }
        return legacy.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// `retrying` for a call on a path, through `onDisk`.
    static func retrying<T: BinaryInteger>(
        path: String, _ what: @autoclosure () -> String, _ body: (UnsafePointer<CChar>) -> T
    ) throws(Errno) -> T {
        try retrying(what()) { onDisk(path, failed: { $0 == -1 }, body) }
    }

    /// The corresponding C function is `open(2)`. `O_CLOEXEC` is always added.
    /// Whether the kernel's clock discipline counts the clock as synchronized (chrony, ntpd).
    public static var kernelClockSynchronized: Bool { kiosk_clock_synchronized() != 0 }

    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno) -> Int32 {
        try retrying(path: path, "open \(path)") { kiosk_open($0, flags | O_CLOEXEC, mode) }
    }

    /// The corresponding C function is `openat(2)`. `O_CLOEXEC` is always added.
    public static func openat(_ dirfd: Int32, _ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno)
        -> Int32
    {
        try retrying("open \(path)") { kiosk_openat(dirfd, path, flags | O_CLOEXEC, mode) }
    }

    /// The corresponding C function is `close(2)`. EINTR is not retried (Linux closes the fd anyway).
    public static func closeIgnoringErrors(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The corresponding C function is `read(2)`.
    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retrying("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// The corresponding C function is `pread(2)`.
    public static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, offset: Int64) throws(Errno) -> Int {
        try retrying("pread") { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// The corresponding C function is `pwrite(2)`.
    public static func pwrite(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, offset: Int64) throws(Errno) -> Int {
        try retrying("pwrite") { Glibc.pwrite(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `open(2)`'s `O_DIRECT` flag on this architecture.
    public static var directIOFlag: Int32 { kiosk_o_direct() }

    /// The corresponding C function is `write(2)`.
    public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retrying("write") { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    /// The corresponding C function is `ftruncate(2)`.
    public static func truncate(_ fd: Int32, length: Int64) throws(Errno) {
        _ = try retrying("ftruncate") { Glibc.ftruncate(fd, off_t(length)) }
    }

    /// Sends `signal` to process `pid`. The corresponding C function is `kill(2)`.
    public static func kill(_ pid: pid_t, _ signal: Int32) throws(Errno) {
        _ = try retrying("kill \(pid)") { Glibc.kill(pid, signal) }
    }

    /// `write(2)` in a loop until every byte is written.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try retrying("write") {
                bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            }
        }
    }

    /// `read(2)` until end of file; more than `limit` bytes is an `EFBIG` error.
    public static func readAll(_ fd: Int32, limit: Int) throws(Errno) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = try retrying("read") {
                chunk.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress, raw.count) }
            }
            if n == 0 { return result }
            if result.count + n > limit { throw Errno(rawValue: EFBIG, context: "read: more than \(limit) bytes") }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// This program's executable, as `/proc/self/exe` names it; nil when it cannot be read.
    /// The corresponding C function is `readlink(2)`.
    public static func ownExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads a whole file (at most `limit` bytes).
    public static func readFile(_ path: String, limit: Int = 64 << 20) throws(Errno) -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY)
        do throws(Errno) {
            return try fd.readAll(limit: limit)
        } catch {
            throw error.with("read \(path)")
        }
    }

    /// The corresponding C function is `fsync(2)`.
    public static func fsync(_ fd: Int32) throws(Errno) {
        noteDurableSync()
        _ = try retrying("fsync") { Glibc.fsync(fd) }
    }

    /// The corresponding C function is `fdatasync(2)`: the file's data and what is needed to read
    /// it back (its size, new blocks), not its timestamps.
    public static func fdatasync(_ fd: Int32) throws(Errno) {
        noteDurableSync()
        _ = try retrying("fdatasync") { Glibc.fdatasync(fd) }
    }

    /// Called on the calling thread before every fsync and fdatasync while set: how a test proves
    /// that the loop thread never waits for the storage (issue 48). nil (the default) in the player.
    public static func watchDurableSyncs(_ watcher: (@Sendable () -> Void)?) {
        durableSyncWatcher.withLock { $0 = watcher }
    }

    private static let durableSyncWatcher = Locked<(@Sendable () -> Void)?>(nil)

    private static func noteDurableSync() {
        durableSyncWatcher.withLock { $0 }?()
    }

    /// The corresponding C function is `rename(2)`.
    public static func rename(_ from: String, _ to: String) throws(Errno) {
        _ = try retrying("rename \(from) to \(to)") { Glibc.rename(from, to) }
    }

    /// The corresponding C function is `renameat(2)`: `from` in `fromDir` to `to` in `toDir`. A
    /// symbolic link named `to` is replaced, not followed.
    public static func renameat(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) throws(Errno) {
        _ = try retrying("rename \(from) to \(to)") { Glibc.renameat(fromDir, from, toDir, to) }
    }

    /// The corresponding C function is `unlinkat(2)` (a file, not a folder); errors are ignored:
    /// for a temporary file left by a failed write.
    public static func unlinkatIgnoringErrors(_ dirfd: Int32, _ name: String) {
        _ = Glibc.unlinkat(dirfd, name, 0)
    }

    /// The corresponding C function is `unlink(2)`.
    public static func unlink(_ path: String) throws(Errno) {
        _ = try retrying("unlink \(path)") { Glibc.unlink(path) }
    }

    /// The corresponding C function is `link(2)`: a second name `to` for the file `from`; an existing
    /// `to` is `EEXIST`, never replaced.
    public static func link(_ from: String, _ to: String) throws(Errno) {
        _ = try retrying("link \(to)") { Glibc.link(from, to) }
    }

    /// The corresponding C function is `chmod(2)` (not masked by the umask, as a create's mode is).
    public static func chmod(_ path: String, _ mode: mode_t) throws(Errno) {
        _ = try retrying("chmod \(path)") { Glibc.chmod(path, mode) }
    }

    /// The bytes an unprivileged writer may still use on the file system holding `path`: the
    /// corresponding C function is `statvfs(3)` (`f_bavail` × `f_frsize`).
    public static func availableBytes(_ path: String) throws(Errno) -> Int64 {
        var s = statvfs()
        _ = try retrying("statvfs \(path)") { statvfs(path, &s) }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }

    /// The corresponding C function is `mkdir(2)`; an existing directory is not an error.
    public static func mkdir(_ path: String, mode: mode_t = 0o755) throws(Errno) {
        if Glibc.mkdir(path, mode) == 0 { return }
        let e = errno
        if e == EEXIST { return }
        throw Errno(rawValue: e, context: "mkdir \(path)")
    }

    /// `mkdir -p`: creates `path` and its missing parents.
    public static func mkdirs(_ path: String, mode: mode_t = 0o755) throws(Errno) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            try mkdir(prefix, mode: mode)
            prefix += "/"
        }
    }

    /// The corresponding C function is `stat(2)`.
    public static func fileStatus(_ path: String) throws(Errno) -> stat {
        var st = stat.init()
        _ = try retrying(path: path, "stat \(path)") { kiosk_stat($0, &st) }
        return st
    }

    /// The corresponding C function is `lstat(2)`.
    public static func linkStatus(_ path: String) throws(Errno) -> stat {
        var st = stat.init()
        _ = try retrying(path: path, "lstat \(path)") { kiosk_lstat($0, &st) }
        return st
    }

    /// The corresponding C function is `fstat(2)`.
    public static func fileStatus(fd: Int32) throws(Errno) -> stat {
        var st = stat.init()
        _ = try retrying("fstat") { Glibc.fstat(fd, &st) }
        return st
    }

    /// Whether `path` exists (follows symlinks).
    public static func exists(_ path: String) -> Bool {
        var st = stat.init()
        return (try? retrying(path: path, "stat") { kiosk_stat($0, &st) }) != nil
    }

    /// The corresponding C function is `epoll_create1(2)`.
    public static func epollCreate() throws(Errno) -> Int32 {
        try retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// The corresponding C function is `epoll_ctl(2)`.
    public static func epollControl(_ epfd: Int32, _ op: Int32, _ fd: Int32, events: UInt32, data: UInt64) throws(Errno)
    {
        var event = epoll_event()
        event.events = events
        event.data.u64 = data
        _ = try retrying("epoll_ctl fd \(fd)") { epoll_ctl(epfd, op, fd, &event) }
    }

    /// The corresponding C function is `epoll_wait(2)`. EINTR returns 0 events (the caller loops anyway).
    public static func epollWait(_ epfd: Int32, _ events: UnsafeMutableBufferPointer<epoll_event>, timeoutMs: Int32)
        throws(Errno) -> Int
    {
        // glibc 2.41 (trixie) declares the events pointer non-null; an empty buffer has none to give.
        guard let base = events.baseAddress, !events.isEmpty else {
            throw Errno(rawValue: EINVAL, context: "epoll_wait with no room for events")
        }
        let n = epoll_wait(epfd, base, Int32(events.count), timeoutMs)
        if n >= 0 { return Int(n) }
        let e = errno
        if e == EINTR { return 0 }
        throw Errno(rawValue: e, context: "epoll_wait")
    }

    /// Which of `fds` are ready now, without waiting (their `revents`); the count of ready ones. The
    /// corresponding C function is `poll(2)` with a timeout of 0. EINTR counts as none ready.
    public static func pollNow(_ fds: inout [pollfd]) throws(Errno) -> Int {
        guard !fds.isEmpty else { return 0 }
        let n = fds.withUnsafeMutableBufferPointer { buffer in poll(buffer.baseAddress!, nfds_t(buffer.count), 0) }
        if n >= 0 { return Int(n) }
        let e = errno
        if e == EINTR { return 0 }
        throw Errno(rawValue: e, context: "poll")
    }

    /// The corresponding C function is `timerfd_create(2)` on `CLOCK_MONOTONIC`, non-blocking.
    public static func timerfdCreate() throws(Errno) -> Int32 {
        try retrying("timerfd_create") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        }
    }

    /// The corresponding C function is `timerfd_settime(2)` with an absolute `CLOCK_MONOTONIC` deadline
    /// (0 disarms).
    public static func timerfdSetAbsolute(_ fd: Int32, deadlineNanoseconds: UInt64) throws(Errno) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadlineNanoseconds / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadlineNanoseconds % 1_000_000_000)
        if deadlineNanoseconds == 0 { spec.it_value.tv_nsec = 0 }
        _ = try retrying("timerfd_settime") { timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
    }

    /// The corresponding C function is `eventfd(2)`, non-blocking.
    public static func eventfdCreate() throws(Errno) -> Int32 {
        try retrying("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    /// Adds 1 to an eventfd counter. Async-signal-safe and lock-free: usable from audio threads.
    @inline(__always)
    public static func eventfdSignal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, 8)
    }

    /// Reads (and resets) an eventfd or timerfd counter; 0 when nothing was pending.
    public static func readCounter(_ fd: Int32) -> UInt64 {
        var value: UInt64 = 0
        let n = try? retrying("read counter") { Glibc.read(fd, &value, 8) }
        return n == 8 ? value : 0
    }

    /// The corresponding C function is `signalfd(2)` over `signals`, non-blocking.
    public static func signalfdCreate(_ signals: [Int32]) throws(Errno) -> Int32 {
        var set = sigset_t()
        kiosk_sigset_empty(&set)
        for s in signals { kiosk_sigset_add(&set, s) }
        return try retrying("signalfd") { signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
    }

    /// Blocks `signals` in the calling thread (threads created afterwards inherit the mask).
    /// The corresponding C function is `pthread_sigmask(3)`.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        kiosk_sigset_empty(&set)
        for s in signals { kiosk_sigset_add(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks `signals` in the calling thread.
    public static func unblockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        kiosk_sigset_empty(&set)
        for s in signals { kiosk_sigset_add(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Sets or clears `O_NONBLOCK`. The corresponding C function is `fcntl(2)`.
    public static func setNonBlocking(_ fd: Int32, _ on: Bool = true) throws(Errno) {
        let flags = try retrying("fcntl F_GETFL") { kiosk_fcntl_int(fd, F_GETFL, 0) }
        let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        _ = try retrying("fcntl F_SETFL") { kiosk_fcntl_int(fd, F_SETFL, wanted) }
    }

    /// The corresponding C function is `pipe2(2)` with `O_CLOEXEC` (+ `flags`).
    public static func pipe(flags: Int32 = 0) throws(Errno) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = try retrying("pipe2") { kiosk_pipe2(&fds, O_CLOEXEC | flags) }
        return (fds[0], fds[1])
    }

    /// The corresponding C function is `ioctl(2)` with a pointer argument.
    public static func ioctl(
        _ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer?, _ what: @autoclosure () -> String
    )
        throws(Errno) -> Int32
    {
        try retrying(what()) { kiosk_ioctl_ptr(fd, request, arg) }
    }

    /// The corresponding C function is `ioctl(2)` with an integer argument.
    public static func ioctl(_ fd: Int32, _ request: UInt, value: UInt, _ what: @autoclosure () -> String) throws(Errno)
        -> Int32
    {
        try retrying(what()) { kiosk_ioctl_int(fd, request, value) }
    }

    /// Maps `length` bytes of `fd` from `offset`, shared and readable + writable (a frame buffer, a
    /// file). The corresponding C function is `mmap(2)` with `MAP_SHARED`.
    public static func mapShared(_ fd: Int32, length: Int, offset: Int64 = 0, _ what: @autoclosure () -> String)
        throws(Errno) -> UnsafeMutableRawPointer
    {
        let address = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw Errno(rawValue: errno, context: what())
        }
        return address
    }

    /// The corresponding C function is `munmap(2)`.
    public static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = Glibc.munmap(address, length)
    }

    /// The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`, in nanoseconds.
    @inline(__always)
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The corresponding C function is `clock_gettime(CLOCK_REALTIME)`, in nanoseconds since the epoch.
    public static func realtimeNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// CPU time (user + system) used by the whole process so far, in nanoseconds (`getrusage(2)`).
    public static func processCPUNanoseconds() -> UInt64 {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1000
        let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1000
        return user + system
    }

    /// What this process has read so far through read-like system calls (`/proc/self/io`'s `rchar`
    /// and `syscr`: every read, pread and readv, page cache or not): a count, not a time, so a
    /// budget on it holds on a busy machine. `thread`: the calling thread's alone
    /// (`/proc/thread-self/io`), for a test beside others in one process. Zero when the kernel has no
    /// task I/O accounting.
    public static func readCounters(thread: Bool = false) -> (bytes: UInt64, calls: UInt64) {
        guard let data = try? readFile(thread ? "/proc/thread-self/io" : "/proc/self/io", limit: 4096) else {
            return (0, 0)
        }
        var bytes: UInt64 = 0
        var calls: UInt64 = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let value = UInt64(String(parts[1].filter { $0.isNumber })) else { continue }
            if parts[0] == "rchar" { bytes = value } else if parts[0] == "syscr" { calls = value }
        }
        return (bytes, calls)
    }

    /// Peak resident set size of this process in bytes (`getrusage(2)` `ru_maxrss`).
    public static func peakResidentBytes() -> Int {
        // VmHWM is the peak of this process image. getrusage's ru_maxrss survives execve: a process
        // started with posix_spawn (CLONE_VM) from a large parent reports the parent's peak.
        if let bytes = try? readFile("/proc/self/status", limit: 16_384) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
                if let kib = Int(line.dropFirst(6).filter { $0.isNumber }) { return kib * 1024 }
            }
        }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }

    /// Current resident set size in bytes, from /proc/self/statm.
    public static func residentBytes() -> Int {
        guard let bytes = try? readFile("/proc/self/statm", limit: 4096) else { return 0 }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The value of an environment variable.
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Sleeps the calling thread (never on the event-loop thread). The corresponding C function is `nanosleep(2)`.
    public static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        _ = try? retrying("nanosleep") {
            let rc = nanosleep(&request, &remaining)
            request = remaining  // an interrupted sleep resumes with what was left
            return rc
        }
    }
}
