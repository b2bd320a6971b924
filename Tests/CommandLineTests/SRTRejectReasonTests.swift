// yt-gst — SRT failures are told apart by libsrt's reject reason numbers, never by the words of a message.
import GstPlayer
import Testing

@testable import Streaming
@testable import yt_gst

@Suite struct SRTRejectReasonTests {
    /// The number in a listener's handshake log decides; the words after it do not matter.
    @Test(arguments: [
        ("processConnectRequest: rsp(REJECT): 1010 - Incorrect passphrase", SRTRejectReason.badSecret),
        ("processConnectRequest: rsp(REJECT): 1011 - Incorrect passphrase", .unsecure),
        ("processConnectRequest: rsp(REJECT): 1011 - Mot de passe requis", .unsecure),
        ("processConnectRequest: rsp(REJECT): 1016 - ", .timeout),
        // As a DebugLogWatch message carries it: a structure in text form, escaped.
        (#"yt-gst/srt-rejected, text=(string)"processConnectRequest:\ rsp\(REJECT\):\ 1011\ -\ Password";"#, .unsecure),
    ])
    func handshakeLogLineIsReadByNumber(line: String, reason: SRTRejectReason) {
        #expect(SRTRejectReason(handshakeLogLine: line) == reason)
    }

    @Test func linesWithoutARejectCodeAreNotReasons() {
        #expect(SRTRejectReason(handshakeLogLine: "KMREQ/rcv: (snd) Rx process failure - BADSECRET") == nil)
        #expect(SRTRejectReason(handshakeLogLine: "rsp(REJECT): soon") == nil)
        #expect(SRTRejectReason(handshakeLogLine: "rsp(REJECT): 7") == nil)
    }

    /// An element's error text ends with libsrt's `srt_rejectreason_str(n)`, turned back into n with libsrt's own
    /// table (GStreamer 1.24 and later append the number itself).
    @Test func errorTextIsMappedBackThroughLibsrt() throws {
        Gst.initialize()
        _ = try Pipeline(launch: "srtsrc ! fakesink")  // loads the srt plugin, and libsrt with it
        #expect(SRTRejectReason(reportedIn: "Failed to authenticate: Incorrect passphrase") == .badSecret)
        #expect(SRTRejectReason(reportedIn: "Failed to authenticate: Password required or unexpected") == .unsecure)
        #expect(SRTRejectReason(reportedIn: "Error on SRT socket: Connection timeout") == .timeout)
        #expect(SRTRejectReason(reportedIn: "Failed to authenticate: Incorrect passphrase (11)") == .unsecure)
        #expect(SRTRejectReason(reportedIn: "Failed to write to SRT socket: Connection does not exist") == nil)
        #expect(SRTRejectReason(reportedIn: "Failed to authenticate: incorrect PASSPHRASE") == nil)
    }
}
