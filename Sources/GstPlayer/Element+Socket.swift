// yt-gst — the socket a udpsrc reads: waiting for its first datagram without taking it from the stream.
internal import CGStreamer

/// A datagram waiting on a socket, as `Element.peekDatagram()` saw it.
public struct Datagram: Sendable {
    public var bytes: [UInt8]
    /// The sender's IP address ("10.0.0.2"), nil when unknown.
    public var sourceAddress: String?
}

extension Element {
    /// The descriptor of the socket a `udpsrc` reads (from READY on), for `MainLoop.wait(for:until:)`; nil when it
    /// has none yet.
    ///
    /// The corresponding C functions are `g_object_get_property` ("used-socket") and `g_socket_get_fd`.
    public var socketDescriptor: Int32? {
        withUsedSocket { g_socket_get_fd($0) }
    }

    /// The next datagram the `udpsrc`'s socket holds, left there for the element to read when it plays; nil when
    /// none is waiting (it never blocks).
    ///
    /// The corresponding C function is `g_socket_receive_message` with `G_SOCKET_MSG_PEEK`.
    public func peekDatagram() -> Datagram? {
        receive(peeking: true)
    }

    /// Takes the next datagram off the `udpsrc`'s socket and drops it (one not for the stream); false when none was
    /// waiting.
    @discardableResult
    public func discardDatagram() -> Bool {
        receive(peeking: false) != nil
    }

    private func receive(peeking: Bool) -> Datagram? {
        withUsedSocket { socket -> Datagram? in
            guard g_socket_condition_check(socket, G_IO_IN).rawValue & G_IO_IN.rawValue != 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 65_536)
            var address: UnsafeMutablePointer<GSocketAddress>?
            var flags = gint(peeking ? G_SOCKET_MSG_PEEK.rawValue : 0)
            let count = bytes.withUnsafeMutableBytes { buffer -> gssize in
                var vector = GInputVector(buffer: buffer.baseAddress, size: gsize(buffer.count))
                return g_socket_receive_message(socket, &address, &vector, 1, nil, nil, &flags, nil, nil)
            }
            defer { if let address { g_object_unref(UnsafeMutableRawPointer(address)) } }
            guard count >= 0 else { return nil }
            let source = CGst_inet_address_string(address).map { text in
                defer { g_free(text) }
                return String(cString: text)
            }
            return Datagram(bytes: Array(bytes[..<Int(count)]), sourceAddress: source)
        } ?? nil
    }

    /// Runs `body` with the element's "used-socket" (nil when it has none or no such property).
    private func withUsedSocket<T>(_ body: (UnsafeMutablePointer<GSocket>) -> T) -> T? {
        guard hasProperty("used-socket") else { return nil }
        var value = GValue()
        g_value_init(&value, g_socket_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), "used-socket", &value)
        guard let socket = g_value_get_object(&value) else { return nil }
        return body(socket.assumingMemoryBound(to: GSocket.self))
    }
}
