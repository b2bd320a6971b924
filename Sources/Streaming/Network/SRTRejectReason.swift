// yt-gst — libsrt's reasons for refusing a connection, read from its errors and its log.
import Glibc

/// Why libsrt refused a connection: its reject reason, `SRT_REJ_*` in srt.h (numbered as there).
public enum SRTRejectReason: Int32, Equatable, Sendable {
    case unknown = 0, system, peer, resource, rogue, backlog, internalProgramError, close, version, rendezvousCookie
    /// SRT_REJ_BADSECRET: both sides have a passphrase, and they differ.
    case badSecret = 10
    /// SRT_REJ_UNSECURE: one side has a passphrase, the other has none.
    case unsecure = 11
    case messageAPI, congestion, filter, group
    /// SRT_REJ_TIMEOUT: the handshake got no answer in time.
    case timeout = 16
    case crypto = 17

    /// What it means for the user, for the reasons users cause.
    public var explanation: String {
        switch self {
        case .badSecret: "wrong passphrase (a caller was rejected: Incorrect passphrase)"
        case .unsecure: "passphrase mismatch (one side has a passphrase, the other has none)"
        default: "a caller was rejected (libsrt reject reason \(rawValue))"
        }
    }

    /// What precedes the number in libsrt's log line for a rejected caller (category "srtlib", level INFO).
    public static let handshakeLogMarker = "rsp(REJECT): "

    /// The reason in a listener's handshake log line, `processConnectRequest: rsp(REJECT): 1010 - ...`: the number
    /// after the marker is the handshake's request type, 1000 (URQ_FAILURE_TYPE in libsrt) + the reason. The line
    /// may come in GStreamer's structure text form (a message field), with its backslash escapes.
    public init?(handshakeLogLine text: String) {
        let line = String(text.filter { $0 != "\\" })
        guard let range = line.firstRange(of: SRTRejectReason.handshakeLogMarker),
            let type = Int32(line[range.upperBound...].prefix(while: \.isNumber)),
            type >= 1000
        else { return nil }
        self.init(rawValue: type - 1000)
    }

    /// The reason an srt element put in its error text.
    ///
    /// GStreamer 1.22's srtsrc and srtsink report every failure as a resource READ or WRITE error, so the GError
    /// code does not tell a rejection from a timeout. gstsrtobject.c ends the text with `srt_rejectreason_str(reason)`
    /// (GStreamer 1.24 and later add " (reason)"): the number is read when it is there, else the text is looked up
    /// in libsrt's own table of those strings. Nil when the text names no reject reason.
    public init?(reportedIn text: String) {
        if text.hasSuffix(")"), let open = text.lastIndex(of: "("),
            let number = Int32(text[text.index(after: open)..<text.index(before: text.endIndex)])
        {
            self.init(rawValue: number)
            return
        }
        let tail = text.split(separator: ":").last.map { String($0.drop { $0 == " " }) } ?? ""
        guard let code = SRTRejectReason.libsrtCodes[tail] else { return nil }
        self.init(rawValue: code)
    }

    /// libsrt's `srt_rejectreason_str(n)` for every reason it knows, mapped back to n; read from the libsrt the
    /// srt plugin loaded (empty when none is loaded).
    private static let libsrtCodes: [String: Int32] = {
        typealias ReasonText = @convention(c) (Int32) -> UnsafePointer<CChar>?
        let names = ["libsrt-gnutls.so.1.5", "libsrt-openssl.so.1.5", "libsrt.so.1.5"]
        guard let library = names.lazy.compactMap({ dlopen($0, RTLD_LAZY | RTLD_NOLOAD) }).first else { return [:] }
        defer { dlclose(library) }
        guard let symbol = dlsym(library, "srt_rejectreason_str") else { return [:] }
        let text = unsafeBitCast(symbol, to: ReasonText.self)
        // Past its last reason, libsrt answers with the text of reason 0 (unknown).
        let unknown = text(0).map { String(cString: $0) }
        var codes: [String: Int32] = [:]
        for code in Int32(1)..<100 {
            guard let reason = text(code).map({ String(cString: $0) }), reason != unknown else { break }
            codes[reason] = code
        }
        return codes
    }()
}
