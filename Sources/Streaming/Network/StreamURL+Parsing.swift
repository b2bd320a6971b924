// yt-gst — the URLs of `stream` and `receive` as users type them: rtp://, srt:// and SDP files.

/// What is wrong with a URL as typed ("rtp://x:0: port must be a number from 1 to 65534, not "0""): its description
/// names the URL and the problem, in words for the user.
public struct URLSyntaxError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension StreamURL {
    /// Parses a URL as typed by a user: rtp://HOST:PORT, rtp://@:PORT, srt://[HOST]:PORT?OPTIONS, sdp:FILE or
    /// FILE.sdp.
    ///
    /// - Throws: what names the problem ("port must be 1-65534", "unknown scheme").
    public init(_ text: String) throws(URLSyntaxError) {
        if text.hasPrefix("sdp:") {
            let path = String(text.dropFirst(4))
            guard !path.isEmpty else { throw URLSyntaxError("\(text): sdp: needs a file path, e.g. sdp:stream.sdp") }
            self = .sdp(path: path)
            return
        }
        if !text.contains("://") && text.lowercased().hasSuffix(".sdp") {
            self = .sdp(path: text)
            return
        }
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw URLSyntaxError("\(text): not a URL (expected rtp://HOST:PORT, srt://HOST:PORT or an .sdp file)")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        var rest = Substring(text[schemeEnd.upperBound...])
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            query = try StreamURL.parseQuery(rest[rest.index(after: mark)...], in: text)
            rest = rest[..<mark]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        switch scheme {
        case "rtp":
            guard query.isEmpty else {
                throw URLSyntaxError("\(text): rtp:// URLs take no ?options (use --iface and --ttl)")
            }
            var listen = false
            if rest.hasPrefix("@") {
                listen = true
                rest = rest.dropFirst()
            }
            let (host, port) = try StreamURL.hostAndPort(rest, in: text, maxPort: 65_534)
            guard listen || host != nil else {
                throw URLSyntaxError("\(text): no host (send with rtp://HOST:PORT, listen with rtp://@:PORT)")
            }
            self = .rtp(RTPEndpoint(host: host, port: port, listen: listen))
        case "srt":
            let (host, port) = try StreamURL.hostAndPort(rest, in: text, maxPort: 65_535)
            self = .srt(try SRTEndpoint(host: host, port: port, query: query, in: text))
        default:
            throw URLSyntaxError("\(text): unknown scheme \"\(scheme)\" (use rtp://, srt:// or an .sdp file)")
        }
    }

    /// "HOST:PORT", "[v6]:PORT" or ":PORT" (no host).
    static func hostAndPort(_ text: Substring, in url: String, maxPort: Int) throws(URLSyntaxError) -> (String?, Int) {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw URLSyntaxError("\(url): unclosed [ in the address")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw URLSyntaxError("\(url): no port (expected [ADDRESS]:PORT)") }
            portText = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw URLSyntaxError("\(url): no port (expected HOST:PORT)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                throw URLSyntaxError("\(url): write IPv6 addresses in brackets, e.g. [ff02::1]:5004")
            }
        }
        guard let port = Int(portText), (1...maxPort).contains(port) else {
            throw URLSyntaxError("\(url): port must be a number from 1 to \(maxPort), not \"\(portText)\"")
        }
        if host.contains(where: { $0 == "/" || $0 == "@" || $0 == " " }) {
            throw URLSyntaxError("\(url): \"\(host)\" is not a host name or address")
        }
        return (host.isEmpty ? nil : String(host), port)
    }

    /// "a=1&b=2", percent-decoded; a repeated or empty key is an error.
    static func parseQuery(_ text: Substring, in url: String) throws(URLSyntaxError) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try percentDecoded(parts[0], in: url)
            let value = parts.count > 1 ? try percentDecoded(parts[1], in: url) : ""
            guard !key.isEmpty else { throw URLSyntaxError("\(url): empty option name") }
            guard result[key] == nil else { throw URLSyntaxError("\(url): option \"\(key)\" given twice") }
            result[key] = value
        }
        return result
    }

    static func percentDecoded(_ text: Substring, in url: String) throws(URLSyntaxError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw URLSyntaxError("\(url): bad %-escape")
                }
                bytes.append(high << 4 | low)
            } else if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw URLSyntaxError("\(url): not UTF-8") }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension SRTEndpoint {
    /// The endpoint of an srt:// URL, with its ?options (mode, passphrase, pbkeylen, latency) checked.
    init(host: String?, port: Int, query: [String: String], in url: String) throws(URLSyntaxError) {
        var mode: Mode? = nil
        if let text = query["mode"] {
            guard let parsed = Mode(rawValue: text) else {
                throw URLSyntaxError("\(url): mode must be caller or listener")
            }
            mode = parsed
        }
        if mode == .caller && host == nil { throw URLSyntaxError("\(url): a caller needs a host (srt://HOST:PORT)") }
        var keyLength: Int? = nil
        if let text = query["pbkeylen"] {
            guard let value = Int(text), [16, 24, 32].contains(value) else {
                throw URLSyntaxError("\(url): pbkeylen must be 16, 24 or 32 (bytes of AES key), not \"\(text)\"")
            }
            keyLength = value
        }
        let passphrase = query["passphrase"]
        if let passphrase, !(10...79).contains(passphrase.utf8.count) {
            throw URLSyntaxError("\(url): an SRT passphrase must be 10 to 79 characters long")
        }
        if keyLength != nil && passphrase == nil { throw URLSyntaxError("\(url): pbkeylen needs a passphrase") }
        var latency: Int? = nil
        if let text = query["latency"] {
            guard let value = Int(text), (0...60_000).contains(value) else {
                throw URLSyntaxError("\(url): latency must be milliseconds from 0 to 60000, not \"\(text)\"")
            }
            latency = value
        }
        let known: Set = ["mode", "passphrase", "pbkeylen", "latency"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw URLSyntaxError("\(url): unknown option \"\(unknown)\" (known: mode, passphrase, pbkeylen, latency)")
        }
        self.init(host: host, port: port, mode: mode, passphrase: passphrase, keyLength: keyLength, latency: latency)
    }
}
