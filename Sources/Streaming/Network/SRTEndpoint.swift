// yt-gst — an SRT endpoint: caller or listener, port, and encryption, from an srt:// URL.

/// An SRT address: a caller connects to HOST:PORT, a listener waits on :PORT; with optional AES encryption.
struct SRTEndpoint: Equatable, CustomStringConvertible {
    enum Mode: String, Equatable { case caller, listener }

    var host: String?
    var port: Int
    var mode: Mode
    var passphrase: String?
    /// AES key length in bytes: 16, 24 or 32 (with a passphrase; libsrt's default is 16).
    var keyLength: Int?
    /// SRT's own latency in milliseconds (its receive buffer), when given in the URL.
    var latency: Int?

    init(
        host: String?, port: Int, mode: Mode? = nil, passphrase: String? = nil, keyLength: Int? = nil,
        latency: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.mode = mode ?? (host == nil ? .listener : .caller)
        self.passphrase = passphrase
        self.keyLength = keyLength
        self.latency = latency
    }

    init(host: String?, port: Int, query: [String: String], in url: String) throws(UsageError) {
        var mode: Mode? = nil
        if let text = query["mode"] {
            guard let parsed = Mode(rawValue: text) else { throw UsageError("\(url): mode must be caller or listener") }
            mode = parsed
        }
        if mode == .caller && host == nil { throw UsageError("\(url): a caller needs a host (srt://HOST:PORT)") }
        var keyLength: Int? = nil
        if let text = query["pbkeylen"] {
            guard let value = Int(text), [16, 24, 32].contains(value) else {
                throw UsageError("\(url): pbkeylen must be 16, 24 or 32 (bytes of AES key), not \"\(text)\"")
            }
            keyLength = value
        }
        let passphrase = query["passphrase"]
        if let passphrase, !(10...79).contains(passphrase.utf8.count) {
            throw UsageError("\(url): an SRT passphrase must be 10 to 79 characters long")
        }
        if keyLength != nil && passphrase == nil { throw UsageError("\(url): pbkeylen needs a passphrase") }
        var latency: Int? = nil
        if let text = query["latency"] {
            guard let value = Int(text), (0...60_000).contains(value) else {
                throw UsageError("\(url): latency must be milliseconds from 0 to 60000, not \"\(text)\"")
            }
            latency = value
        }
        let known: Set = ["mode", "passphrase", "pbkeylen", "latency"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw UsageError("\(url): unknown option \"\(unknown)\" (known: mode, passphrase, pbkeylen, latency)")
        }
        self.init(host: host, port: port, mode: mode, passphrase: passphrase, keyLength: keyLength, latency: latency)
    }

    /// The URI for srtsrc/srtsink, without secrets (they are set as properties).
    var elementURI: String {
        let address = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return "srt://\(address):\(port)?mode=\(mode.rawValue)"
    }

    /// For messages: the address without the passphrase.
    var description: String {
        let address = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return "srt://\(address):\(port)"
    }
}
