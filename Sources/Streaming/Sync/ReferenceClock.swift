// yt-gst — the clock a synchronised stream runs on: the sender's own, published by it, or an NTP or PTP one.
import GstPlayer

/// The clock senders and receivers share: `stream --clock` and `receive --clock`, and the SDP's RFC 7273
/// `a=ts-refclk` line.
public enum ReferenceClock: Equatable, Sendable, CustomStringConvertible {
    /// The sender's monotonic clock, published by the sender on its RTP port + 2 (`MediaClock`). SDP: `local`.
    case sender
    /// An NTP server everyone can reach. SDP: `ntp=HOST[:PORT]`.
    case ntp(host: String, port: Int)
    /// The PTP (IEEE 1588) grandmaster of a domain. SDP: `ptp=IEEE1588-2008:traceable` (domain 0) or
    /// `ptp=IEEE1588-2008:GMID:DOMAIN`.
    case ptp(domain: Int)

    /// Reads an `a=ts-refclk:` value; nil for clocks yt-gst cannot follow (GPS, private ones).
    public init?(sdpValue value: String) {
        if value == "local" {
            self = .sender
        } else if value.hasPrefix("ntp=") {
            let (host, port) = ReferenceClock.hostAndPort(value.dropFirst(4), defaultPort: 123)
            guard !host.isEmpty, host != "/traceable/", let port else { return nil }
            self = .ntp(host: host, port: port)
        } else if value.hasPrefix("ptp=IEEE1588-2008:") || value.hasPrefix("ptp=IEEE1588-2019:") {
            let fields = value.dropFirst(18).split(separator: ":")
            if fields == ["traceable"] || fields.count == 1 {
                self = .ptp(domain: 0)
            } else if fields.count == 2, let domain = Int(fields[1]) {
                self = .ptp(domain: domain)
            } else {
                return nil
            }
        } else {
            return nil
        }
    }

    /// The `a=ts-refclk:` value.
    public var sdpValue: String {
        switch self {
        case .sender: "local"
        case .ntp(let host, 123): "ntp=\(host)"
        case .ntp(let host, let port): "ntp=\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .ptp(0): "ptp=IEEE1588-2008:traceable"
        case .ptp(let domain): "ptp=IEEE1588-2008:00-00-00-00-00-00-00-00:\(domain)"
        }
    }

    public var description: String {
        switch self {
        case .sender: "the sender's clock"
        case .ntp(let host, let port): "NTP server \(host):\(port)"
        case .ptp(let domain): "PTP domain \(domain)"
        }
    }

    /// "host", "host:port", "[v6]:port" → host and port (nil when the port is not a number).
    public static func hostAndPort(_ text: Substring, defaultPort: Int) -> (String, Int?) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            return (host, rest.isEmpty ? defaultPort : rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 { return (String(parts[0]), Int(parts[1])) }
        return (String(text), defaultPort)
    }

    /// Makes the clock (for a receiver: following the sender's at `senderAddress`:`clockPort`).
    ///
    /// - Returns: nil when PTP cannot start on this machine.
    public func makeClock(senderAddress: String?, clockPort: Int, statisticsTo pipeline: Pipeline?) -> Clock? {
        switch self {
        case .sender:
            guard let senderAddress else { return Clock.system() }
            return Clock.following(address: senderAddress, port: clockPort, statisticsTo: pipeline)
        case .ntp(let host, let port):
            return Clock.ntp(server: host, port: port, statisticsTo: pipeline)
        case .ptp(let domain):
            return Clock.ptp(domain: domain)
        }
    }
}

extension Clock {
    /// How long `waitForSync(within:stoppingWhen:)` lets a seed take (several round trips on a busy machine).
    static let seedLimit = Duration.milliseconds(200)

    /// How a wait for a network clock's first answer ended.
    public enum SyncWait: Equatable, Sendable {
        case answered
        case timedOut
        /// `shouldStop` said to stop first.
        case stopped
    }

    /// Waits up to `limit` for a network clock's first answer (returning the moment it comes), asking `shouldStop`
    /// every 50 ms (a session's stop command ends the wait at once) and serving the main loop's ready GLib sources
    /// in between. A burst of the clock's own exchanges first (`seed`, at most `seedLimit`) has it in milliseconds.
    public func waitForSync(within limit: Duration, stoppingWhen shouldStop: () -> Bool) -> SyncWait {
        let deadline = ContinuousClock.now + limit
        if seed(within: min(limit, Clock.seedLimit)) { return .answered }
        while !waitForSync(timeout: .milliseconds(50)) {
            if shouldStop() { return .stopped }
            if ContinuousClock.now >= deadline { return .timedOut }
            MainLoop.wait(for: [], until: .now)
        }
        return .answered
    }
}
