// synced-receiver — the smallest synchronised receiver: rtp://@:PORT through yt-gst's Streaming library, in step
// with the sender's clock (as every `yt-gst receive` of the same stream), until the sender finishes.
//
// Usage: synced-receiver PORT [OUTPUT]
//   OUTPUT is a gst-launch description that takes the decoded audio, e.g. "audioconvert ! wavenc ! filesink
//   location=copy.wav"; by default the audio plays on the default output.
import Glibc
import Streaming

/// Prints `line` on stderr.
func say(_ line: String) {
    var text = "synced-receiver: " + line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let port = arguments.first.flatMap({ Int($0) }), arguments.count <= 2 else {
    say("usage: synced-receiver PORT [OUTPUT]")
    exit(64)
}
var configuration = ReceiveSession.Configuration(source: .rtp(RTPEndpoint(host: nil, port: port, listen: true)))
configuration.output = arguments.count == 2 ? arguments[1] : nil  // nil: the default output
configuration.timeout = .seconds(10)  // no data for 10 s ends it
let session = ReceiveSession(configuration) { event in
    if case .warning(let warning) = event { say("warning: \(warning)") }  // e.g. a sender that publishes no clock
}
do {
    let ending = try session.run()  // until the sender finishes, the timeout, or session.control.stop()
    let seconds = ending.stats?.audio.duration.seconds ?? 0
    say("\(ending.reason) after \(seconds) s of audio, synchronised: \(ending.sync != nil)")
    exit(ending.reason == .senderFinished && ending.finalised ? 0 : 1)
} catch {
    say("\(error)")  // a StreamingError: the URL, element or port concerned, and the cause
    exit(1)
}
