// yt-gst — an RTP endpoint: the host or multicast group and port of an rtp:// URL.

/// An RTP address: a unicast host or multicast group and the RTP port (RTCP uses the next one).
public struct RTPEndpoint: Equatable, Sendable, CustomStringConvertible {
    /// Host name or address; nil means every local address (`rtp://@:PORT`).
    public var host: String?
    public var port: Int
    /// Written with `@`: the address to listen on rather than to send to.
    public var listen: Bool

    public init(host: String?, port: Int, listen: Bool) {
        self.host = host
        self.port = port
        self.listen = listen
    }

    public var rtcpPort: Int { port + 1 }

    /// 224.0.0.0/4 or ff00::/8.
    public var isMulticast: Bool { host.map(RTPEndpoint.isMulticastAddress) ?? false }

    public var isIPv6: Bool { host?.contains(":") ?? false }

    public static func isMulticastAddress(_ host: String) -> Bool {
        if host.contains(":") { return host.lowercased().hasPrefix("ff") }
        let parts = host.split(separator: ".")
        guard parts.count == 4, let first = Int(parts[0]),
            parts.allSatisfy({ Int($0).map { (0...255).contains($0) } ?? false })
        else { return false }
        return (224...239).contains(first)
    }

    public var description: String {
        let address = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return "rtp://\(listen ? "@" : "")\(address):\(port)"
    }
}
