// play-wav — the smallest program that plays a WAV through yt-gst's libraries, with a pipeline of its own.
//
// Usage: play-wav FILE.wav [LAUNCH]
//   LAUNCH is a gst-launch description whose `appsrc name=src` receives the audio, e.g.
//   "appsrc name=src ! wavenc ! filesink location=copy.wav"; by default the audio plays on the default output.
// Build and run: swift build -c release --product play-wav && .build/release/play-wav song.wav
import AppSrcFeeder
import Glibc
import GstPlayer

/// Plays `path` through `launch` until its last sample has reached the sink; throws what stopped it instead.
func play(_ path: String, through launch: String) throws {
    let feeder = try WAVFeeder(path: path)  // reads the header now, the samples as the pipeline asks for them
    var launch = launch  // e.g. "appsrc name=src ! audioconvert ! audioresample ! autoaudiosink"
    if feeder.needsDecoder {  // compressed samples (ADPCM, MP3, ...): put a decoder after the appsrc
        launch = Launch.insertingDecoder(afterSource: "src", in: launch, decoder: feeder.decoder)
    }
    let player = Player(launch: launch)  // released on return: its pipeline, threads and devices go with it
    try player.play(feeder)
    while true {
        switch player.nextEvent(timeout: .seconds(1))?.view {
        case .endOfStream?: return
        case .error(let error)?: throw error  // a GstError: message, domain, code, element
        default: continue  // state changes, tags, or a second without news
        }
    }
}

/// Prints `line` on stderr and ends the program with `status`.
func exit(_ status: Int32, saying line: String) -> Never {
    var text = line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first, arguments.count <= 2 else { exit(64, saying: "usage: play-wav FILE.wav [LAUNCH]") }
let launch = arguments.count == 2 ? arguments[1] : "appsrc name=src ! audioconvert ! audioresample ! autoaudiosink"
do {
    try play(path, through: launch)
} catch {
    exit(1, saying: "play-wav: \(path): \(error)")  // one line: the file, then what went wrong
}
