// yt-gst — an SRT endpoint: caller or listener, port, and encryption.

/// An SRT address: a caller connects to HOST:PORT, a listener waits on :PORT; with optional AES encryption.
public struct SRTEndpoint: Equatable, Sendable, CustomStringConvertible {
    public enum Mode: String, Equatable, Sendable { case caller, listener }

    public var host: String?
    public var port: Int
    public var mode: Mode
    public var passphrase: String?
    /// AES key length in bytes: 16, 24 or 32 (with a passphrase; libsrt's default is 16).
    public var keyLength: Int?
    /// SRT's own latency in milliseconds (its receive buffer), when given in the URL.
    public var latency: Int?

    public init(
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

    /// The URI for srtsrc/srtsink, without secrets (they are set as properties).
    public var elementURI: String {
        let address = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return "srt://\(address):\(port)?mode=\(mode.rawValue)"
    }

    /// For messages: the address without the passphrase.
    public var description: String {
        let address = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return "srt://\(address):\(port)"
    }
}
