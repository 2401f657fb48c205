// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskWeb
import CMicroHTTPD
import Glibc
import KioskSystem
import KioskWeb

/// The server's state the C callbacks reach through their context pointer.
///
/// Thread: any (the daemon's threads); what it holds is thread-safe.
public final class WebServer: @unchecked Sendable {
    public let api: PhoneAPI
    public init(api: PhoneAPI) { self.api = api }
}

/// One live page's stream of server-sent events, read by the daemon's thread of its connection.
///
/// Thread: that connection's thread.
final class LiveStream {
    let server: WebServer
    let session: String
    var next: Int
    var pending: [UInt8]
    var sent = 0

    init(server: WebServer, from: Int, session: String) {
        self.server = server
        self.session = session
        next = from
        // The browser reconnects after 3 s if the stream breaks.
        pending = Array("retry: 3000\n\n".utf8)
    }

    /// Fills `buffer` with up to `max` bytes; 0 never (blocks for the next event or a keep-alive
    /// every 5 s, well inside the daemon's 10 s idle timeout); -1 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if sent >= pending.count {
            pending = []
            sent = 0
            guard let events = server.api.events.wait(from: next, nanoseconds: 5_000_000_000) else { return -1 }
            if events.isEmpty {
                pending = Array(": keep-alive\n\n".utf8)
            } else {
                for event in events {
                    pending += Array("id: \(event.number)\nevent: \(event.name)\ndata: \(event.data)\n\n".utf8)
                    next = event.number + 1
                }
            }
        }
        let count = min(max, pending.count - sent)
        pending.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + sent, byteCount: count)
        }
        sent += count
        return count
    }
}

private func makeResponse(_ server: WebServer, _ response: WebResponse) -> OpaquePointer? {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { raw in
            kiosk_web_response_copy(raw.baseAddress, raw.count)
        }
    case .events(let from, let session):
        let stream = LiveStream(server: server, from: from, session: session)
        made = MHD_create_response_from_callback(
            UInt64.max, 1024,
            { context, _, buffer, max in
                guard let context, let buffer else { return -1 }
                return Unmanaged<LiveStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
            },
            Unmanaged.passRetained(stream).toOpaque(),
            { context in
                guard let context else { return }
                let stream = Unmanaged<LiveStream>.fromOpaque(context).takeRetainedValue()
                stream.server.api.liveStreamEnded()
            })
    }
    guard let made else { return nil }
    for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
    return made
}

private func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

/// Starts libmicrohttpd with the page's limits (docs/architecture.md, "The phone page"): a thread
/// per connection with a small stack, at most 32 connections and 8 from one address (a browser opens up to 6 to one host, and keeps them), 10 s without a
/// byte closes a connection (slowloris), 32 KiB of memory per connection for its headers, 4 KiB of
/// body. The callbacks are C functions reaching `server` through their context pointer.
///
/// Thread: the main thread starts it; the callbacks run on the daemon's threads. A library of its own
/// (not kiosk-web's) so that the fuzzer drives the same server (`WebFuzzRig`).
public enum WebDaemon {
    public static func start(server: WebServer, port: Int, bind bindAddress: String?) -> OpaquePointer? {
        (bindAddress ?? "").withCString { bind in
            var options = kiosk_web_options(
                port: UInt16(port), bind_address: bindAddress == nil ? nil : bind,
                connection_limit: 32, per_ip_connection_limit: 8, timeout_seconds: 10,
                connection_memory_limit: 32 << 10, thread_stack_size: 256 << 10, max_body_bytes: PhoneAPI.maxPieceBytes)
            return kiosk_web_start(
                &options,
                { context, address, _ in
                    guard let context, let address else { return 0 }
                    var buffer = [CChar](repeating: 0, count: 64)
                    kiosk_web_address_text(address, &buffer, 64)
                    let client = String(
                        decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
                    return server.api.admits(client) ? 1 : 0
                },
                { context, request, status in
                    guard let context, let request, let status else { return nil }
                    let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
                    let r = request.pointee
                    let connection = r.connection
                    let body =
                        r.body_length > 0 && r.body != nil
                        ? Array(UnsafeRawBufferPointer(start: r.body, count: r.body_length)) : []
                    let client = withUnsafeBytes(of: r.client) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    // libmicrohttpd hands the path alone; the query's arguments (decoded) come apart.
                    var query: [String: String] = [:]
                    withUnsafeMutablePointer(to: &query) { pointer in
                        kiosk_web_arguments(
                            connection, 32,
                            { context, key, value in
                                guard let context, let key else { return }
                                context.assumingMemoryBound(to: [String: String].self).pointee[String(cString: key)] =
                                    value.map { String(cString: $0) } ?? ""
                            }, pointer)
                    }
                    var webRequest = WebRequest(
                        method: text(r.method), target: text(r.url),
                        header: { name in
                            kiosk_web_header(connection, name).map { String(cString: $0) }
                        },
                        body: body, client: client)
                    webRequest.query = query
                    let response = server.api.handle(webRequest)
                    status.pointee = response.status
                    return makeResponse(server, response)
                },
                Unmanaged.passRetained(server).toOpaque())
        }
    }
}
