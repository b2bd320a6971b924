// record-wav — the smallest recorder: a GStreamer source into a crash-safe WAV through yt-gst's Recording library
// (the file is valid at every moment: a kill -9 or a power cut loses at most the last second), until SECONDS of
// audio are written or Ctrl-C.
//
// Usage: record-wav OUT.wav [SECONDS] [SOURCE]
//   SOURCE is a gst-launch fragment that gives audio, e.g. "pulsesrc device=spk.monitor"; by default a test tone.
import Dispatch
import Glibc
import Recording

/// Prints `line` on stderr.
func say(_ line: String) {
    var text = "record-wav: " + line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...3).contains(arguments.count), let seconds = Double(arguments.count > 1 ? arguments[1] : "3600") else {
    say("usage: record-wav OUT.wav [SECONDS] [SOURCE]")
    exit(64)
}
// SIGINT goes to one thread of ours, which stops the session: blocked here, before any thread starts, so every
// thread (GStreamer's too) inherits the mask and none is interrupted.
var interrupt = sigset_t()
sigaddset(&interrupt, SIGINT)
pthread_sigmask(SIG_BLOCK, &interrupt, nil)
let source = arguments.count > 2 ? arguments[2] : "audiotestsrc is-live=true"
var configuration = RecordSession.Configuration(output: .file(arguments[0]), source: .fragment(source))
configuration.duration = seconds  // the session stops by itself after this much audio
configuration.statusInterval = .seconds(1)
let session = RecordSession(configuration) { event in
    switch event {
    case .fileOpened(let path, _): say("recording into \(path)")
    case .status(let now): say("\(now.seconds) s, \(now.bytes) bytes, peak \(now.levels.map(\.peak)) dBFS")
    case .warning(let warning): say("warning: \(warning)")
    default: break
    }
}
let control = session.control  // Sendable: commands from any thread
DispatchQueue.global().async {
    var signal: Int32 = 0
    var set = sigset_t()
    sigaddset(&set, SIGINT)
    if sigwait(&set, &signal) == 0 { control.stop(.interrupted(signal)) }
}
do {
    let ending = try session.run()  // until the duration, the source's end or a stop; the file is finished
    say("\(ending.reason): \(ending.files.joined(separator: ", "))")
    exit(ending.receivedAudio ? 0 : 1)
} catch {
    say("\(error)")  // a RecordingError: the file or element concerned, and the cause
    exit(1)
}
