// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskLoader
import Glibc
import Testing

/// The loader of the libraries opened on first use (FFmpeg, libsoxr, libespeak-ng): a library or a
/// function that is missing is named, and every later call gets the same reason without trying again.
@Suite struct DynamicLibraryLoaderTests {
    /// A loader table, as a shim's static one; its strings and slots live as long as the process,
    /// as the shims' do.
    struct Table {
        let library: UnsafeMutablePointer<kld_library>
        let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>

        init(_ name: String, sonames: [String], symbols: [String]) {
            let names = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: sonames.count)
            for (i, soname) in sonames.enumerated() { names[i] = UnsafePointer(strdup(soname)) }
            slots = .allocate(capacity: symbols.count)
            let entries = UnsafeMutablePointer<kld_symbol>.allocate(capacity: symbols.count)
            for (i, symbol) in symbols.enumerated() {
                slots[i] = nil
                entries[i] = kld_symbol(name: UnsafePointer(strdup(symbol)), pointer: slots + i)
            }
            library = .allocate(capacity: 1)
            library.initialize(to: kld_library())
            library.pointee.name = UnsafePointer(strdup(name))
            library.pointee.sonames = UnsafePointer(names)
            library.pointee.soname_count = sonames.count
            library.pointee.symbols = UnsafePointer(entries)
            library.pointee.symbol_count = symbols.count
            pthread_mutex_init(&library.pointee.lock, nil)
        }

        /// kld_load's result and reason.
        func load() -> (status: Int32, why: String) {
            var why = [CChar](repeating: 0, count: 256)
            let status = kld_load(library, &why, why.count)
            return (status, String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    @Test func aMissingLibraryIsNamedAndEveryLaterCallGetsTheSameReason() {
        let table = Table("libkiosk-absent", sonames: ["libkiosk-absent.so.9"], symbols: ["absent_open"])
        let first = table.load()
        #expect(first.status == -1)
        #expect(first.why.contains("libkiosk-absent.so.9: cannot open shared object file"), "\(first.why)")
        let second = table.load()
        #expect(second.status == -1 && second.why == first.why)
        #expect(table.library.pointee.state == -1)
    }

    @Test func aMissingFunctionIsNamedWithItsLibrary() {
        let table = Table("libm", sonames: ["libm.so.6"], symbols: ["cos", "kiosk_no_such_function"])
        let result = table.load()
        #expect(result.status == -1)
        #expect(result.why == "libm has no kiosk_no_such_function")
    }

    @Test func eachFunctionIsTakenFromTheFirstLibraryThatHasIt() throws {
        let table = Table("two", sonames: ["libm.so.6", "libc.so.6"], symbols: ["cos", "strlen"])
        #expect(table.load().status == 0)
        let libm = try #require(dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD))
        let libc = try #require(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD))
        #expect(table.slots[0] == dlsym(libm, "cos"))
        #expect(table.slots[1] == dlsym(libc, "strlen"))
        #expect(table.load().status == 0)
    }
}
