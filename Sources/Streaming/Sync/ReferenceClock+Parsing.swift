// yt-gst — a reference clock as users name it: sender, ntp://HOST[:PORT] or ptp[:DOMAIN].

extension ReferenceClock {
    /// Parses a clock as users name it (`--clock`): `sender`, `ntp://HOST[:PORT]` or `ptp[:DOMAIN]`.
    ///
    /// - Throws: the words for what is wrong (they name the option).
    public init(_ text: String) throws(URLSyntaxError) {
        if text == "sender" {
            self = .sender
        } else if text.hasPrefix("ntp://") {
            let rest = text.dropFirst(6)
            let (host, port) = ReferenceClock.hostAndPort(rest, defaultPort: 123)
            guard !host.isEmpty, let port, (1...65_535).contains(port) else {
                throw URLSyntaxError("--clock ntp://HOST[:PORT], not \"\(text)\"")
            }
            self = .ntp(host: host, port: port)
        } else if text == "ptp" || text.hasPrefix("ptp:") {
            let domain = text == "ptp" ? 0 : Int(text.dropFirst(4))
            guard let domain, (0...255).contains(domain) else {
                throw URLSyntaxError("--clock ptp[:DOMAIN] with DOMAIN 0 to 255, not \"\(text)\"")
            }
            self = .ptp(domain: domain)
        } else {
            throw URLSyntaxError("--clock must be sender, ntp://HOST[:PORT] or ptp[:DOMAIN], not \"\(text)\"")
        }
    }
}
