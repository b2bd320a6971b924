// yt-gst — the clock a synchronised stream runs on: the sender's own, published by it, or an NTP or PTP one.
import GstPlayer

/// The clock senders and receivers share: `stream --clock` and `receive --clock`, and the SDP's RFC 7273
/// `a=ts-refclk` line.
enum ReferenceClock: Equatable, CustomStringConvertible {
    /// The sender's monotonic clock, published by the sender on its RTP port + 2 (`MediaClock`). SDP: `local`.
    case sender
    /// An NTP server everyone can reach. SDP: `ntp=HOST[:PORT]`.
    case ntp(host: String, port: Int)
    /// The PTP (IEEE 1588) grandmaster of a domain. SDP: `ptp=IEEE1588-2008:traceable` (domain 0) or
    /// `ptp=IEEE1588-2008:GMID:DOMAIN`.
    case ptp(domain: Int)

    /// Parses the option's value: `sender`, `ntp://HOST[:PORT]` or `ptp[:DOMAIN]`.
    init(option text: String) throws(UsageError) {
        if text == "sender" {
            self = .sender
        } else if text.hasPrefix("ntp://") {
            let rest = text.dropFirst(6)
            let (host, port) = ReferenceClock.hostAndPort(rest, defaultPort: 123)
            guard !host.isEmpty, let port, (1...65_535).contains(port) else {
                throw UsageError("--clock ntp://HOST[:PORT], not \"\(text)\"")
            }
            self = .ntp(host: host, port: port)
        } else if text == "ptp" || text.hasPrefix("ptp:") {
            let domain = text == "ptp" ? 0 : Int(text.dropFirst(4))
            guard let domain, (0...255).contains(domain) else {
                throw UsageError("--clock ptp[:DOMAIN] with DOMAIN 0 to 255, not \"\(text)\"")
            }
            self = .ptp(domain: domain)
        } else {
            throw UsageError("--clock must be sender, ntp://HOST[:PORT] or ptp[:DOMAIN], not \"\(text)\"")
        }
    }

    /// Reads an `a=ts-refclk:` value; nil for clocks yt-gst cannot follow (GPS, private ones).
    init?(sdpValue value: String) {
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
    var sdpValue: String {
        switch self {
        case .sender: "local"
        case .ntp(let host, 123): "ntp=\(host)"
        case .ntp(let host, let port): "ntp=\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .ptp(0): "ptp=IEEE1588-2008:traceable"
        case .ptp(let domain): "ptp=IEEE1588-2008:00-00-00-00-00-00-00-00:\(domain)"
        }
    }

    var description: String {
        switch self {
        case .sender: "the sender's clock"
        case .ntp(let host, let port): "NTP server \(host):\(port)"
        case .ptp(let domain): "PTP domain \(domain)"
        }
    }

    /// "host", "host:port", "[v6]:port" → host and port (nil when the port is not a number).
    private static func hostAndPort(_ text: Substring, defaultPort: Int) -> (String, Int?) {
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
    func makeClock(senderAddress: String?, clockPort: Int, statisticsTo pipeline: Pipeline?) -> Clock? {
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
    /// Waits up to `limit` for a network clock's first answer, giving up at once for a signal.
    ///
    /// - Returns: whether the clock answered.
    /// - Throws: the exit code of the signal that interrupted the wait.
    func waitForSync(within limit: Duration) throws(ExitCode) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !waitForSync(timeout: .milliseconds(100)) {
            if let signal = Interrupts.pending { throw Interrupts.exitCode(for: signal) }
            if ContinuousClock.now >= deadline { return false }
        }
        return true
    }
}
