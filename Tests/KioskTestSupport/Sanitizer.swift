// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Testing

/// Which sanitizer the suite was built with (`make tsan`, `make asan`), seen by its runtime's
/// symbols in the process. Thread: any.
public enum Sanitizer {
    public static let name: String? = {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        if dlsym(handle, "__tsan_init") != nil { return "ThreadSanitizer" }
        if dlsym(handle, "__asan_init") != nil { return "AddressSanitizer" }
        return nil
    }()

    /// For tests that count the allocator's calls through an LD_PRELOAD library: a sanitizer's
    /// runtime replaces malloc before any preloaded library, so the counter sees nothing.
    public static let countsAllocations: ConditionTrait = .disabled(
        if: name != nil,
        Comment(rawValue: "\(name ?? "a sanitizer") replaces the allocator, so the LD_PRELOAD counter sees no call"))

    /// For tests that bound the resident memory of a process: AddressSanitizer keeps freed memory
    /// in quarantine (256 MB by default) and adds shadow memory, so the bounds describe it, not us.
    public static let boundsResidentMemory: ConditionTrait = .disabled(
        if: name == "AddressSanitizer",
        Comment(rawValue: "AddressSanitizer holds freed memory in quarantine, so resident memory is not ours to bound"))
}
