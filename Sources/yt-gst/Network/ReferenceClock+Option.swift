// yt-gst — `--clock` as users type it.
import Streaming
import WAV

extension ReferenceClock {
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
}
