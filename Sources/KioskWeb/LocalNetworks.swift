// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The networks the box is on (each interface's address and netmask, loopback included): by
/// default the page answers only clients on one of them, so a port forwarded by a router, or a
/// request routed from elsewhere, is closed before a byte is read (config `web.allowOutsideSubnet`).
/// Read again at most every `refreshSeconds`, since Wi-Fi and DHCP change them.
///
/// Thread: a value; the server keeps it in a `Locked`.
public struct LocalNetworks: Sendable, Equatable {
    /// An address family's bytes and the prefix's bytes (16 for IPv6, 4 for IPv4).
    public struct Network: Sendable, Equatable, CustomStringConvertible {
        public let address: [UInt8]
        public let mask: [UInt8]
        public init(address: [UInt8], mask: [UInt8]) {
            self.address = address
            self.mask = mask
        }

        public func contains(_ other: [UInt8]) -> Bool {
            guard other.count == address.count, mask.count == address.count else { return false }
            for i in 0..<address.count where (address[i] & mask[i]) != (other[i] & mask[i]) { return false }
            return true
        }

        public var description: String {
            "\(LocalNetworks.text(address))/\(mask.reduce(0) { $0 + $1.nonzeroBitCount })"
        }
    }

    public var networks: [Network]

    public init(networks: [Network]) { self.networks = networks }

    /// Whether the numeric address `text` is on one of the networks.
    public func contains(_ text: String) -> Bool {
        guard let bytes = Self.bytes(text) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The networks of the interfaces that are up. The corresponding C function is `getifaddrs(3)`.
    public static func ofInterfaces() -> LocalNetworks {
        var found: [Network] = [
            // Loopback always: a tunnel or a test on the box itself.
            Network(address: [127, 0, 0, 0], mask: [255, 0, 0, 0]),
            Network(address: [UInt8](repeating: 0, count: 15) + [1], mask: [UInt8](repeating: 255, count: 16)),
        ]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return LocalNetworks(networks: found) }
        defer { freeifaddrs(list) }
        var next = list
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard entry.pointee.ifa_flags & UInt32(IFF_UP) != 0,
                let address = entry.pointee.ifa_addr, let mask = entry.pointee.ifa_netmask,
                let a = bytes(of: address), let m = bytes(of: mask), a.count == m.count
            else { continue }
            let network = Network(address: a, mask: m)
            if !found.contains(network) { found.append(network) }
        }
        return LocalNetworks(networks: found)
    }

    static func bytes(of address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// The bytes of a numeric IPv4 or IPv6 address; nil for anything else.
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, 64) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
